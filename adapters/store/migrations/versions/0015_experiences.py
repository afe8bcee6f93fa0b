"""experiences

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01

A learning pass keeps the insights it accepted as candidate experiences (a human may
promote them); they are never policy. Refusals are only in the audit chain.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'experiences',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('pass_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('lesson', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('cites', sa.JSON(), nullable=False),
        sa.Column('episodes', sa.JSON(), nullable=False),
        sa.Column('general', sa.Boolean(), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('audit_seq', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_experiences_org_id'), 'experiences', ['org_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_experiences_org_id'), table_name='experiences')
    op.drop_table('experiences')
