"""standing holds

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01

A standing hold placed through the broker (``holds.place``, Sentinel's when a spend cap
has expired) is the row of its connector: until a human releases it, intents moving
money on its projects wait for a human.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'standing_holds',
        sa.Column('intent_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('subject', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('cites', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('placed_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('audit_seq', sa.Integer(), nullable=False),
        sa.Column('entry_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('released_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('released_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('release_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint('intent_id'),
    )
    op.create_index(
        op.f('ix_standing_holds_org_id'), 'standing_holds', ['org_id'], unique=False
    )
    op.create_index(
        op.f('ix_standing_holds_subject'), 'standing_holds', ['subject'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_standing_holds_subject'), table_name='standing_holds')
    op.drop_index(op.f('ix_standing_holds_org_id'), table_name='standing_holds')
    op.drop_table('standing_holds')
