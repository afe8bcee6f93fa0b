"""experience review

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01

The founder promotes a candidate experience (vouches for the lesson; never policy) or
dismisses it: who, when and why.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('experiences') as batch:
        batch.add_column(
            sa.Column('reviewed_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch.add_column(sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column('review_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('experiences') as batch:
        batch.drop_column('review_reason')
        batch.drop_column('reviewed_at')
        batch.drop_column('reviewed_by')
