"""commitment fulfilment

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01

A human marks a confirmed delivery or obligation kept: who, when and how. A kept
commitment binds no more (the broker and the heartbeat stop watching it).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('commitments') as batch:
        batch.add_column(
            sa.Column('fulfilled_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch.add_column(sa.Column('fulfilled_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column('fulfilment_note', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('commitments') as batch:
        batch.drop_column('fulfilment_note')
        batch.drop_column('fulfilled_at')
        batch.drop_column('fulfilled_by')
