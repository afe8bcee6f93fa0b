"""memory reads on whose behalf

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

A run started by a human reads memory on that human's behalf: the read log names them
beside the agent that asked.
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('memory_reads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('on_behalf_of', sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('memory_reads', schema=None) as batch_op:
        batch_op.drop_column('on_behalf_of')
