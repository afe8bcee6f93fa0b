"""webhook posts

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01

A webhook post the receiver accepted, one row per intent, written with its dispatch
entry (the connector posts first, then records).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'webhook_posts',
        sa.Column('intent_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('target', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('event', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('body', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=False),
        sa.Column('audit_seq', sa.Integer(), nullable=False),
        sa.Column('entry_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('intent_id'),
    )
    op.create_index(op.f('ix_webhook_posts_org_id'), 'webhook_posts', ['org_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_webhook_posts_org_id'), table_name='webhook_posts')
    op.drop_table('webhook_posts')
