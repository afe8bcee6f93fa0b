"""filed finding resolution

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01

A human resolves a finding Sentinel filed: who, when and why (once; the chain has the
entry too).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('findings') as batch:
        batch.add_column(
            sa.Column('resolved_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch.add_column(sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column('resolution', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('findings') as batch:
        batch.drop_column('resolution')
        batch.drop_column('resolved_at')
        batch.drop_column('resolved_by')
