"""principal standing: when and why a principal was suspended, brought back or offboarded

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07

A principal's status now moves (suspended, active again, offboarded for good); the row
keeps when it last moved and why, as the founder said it (the chain keeps every move).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0029'
down_revision = '0028'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('principals') as batch:
        batch.add_column(sa.Column('status_since', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column('status_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('principals') as batch:
        batch.drop_column('status_reason')
        batch.drop_column('status_since')
