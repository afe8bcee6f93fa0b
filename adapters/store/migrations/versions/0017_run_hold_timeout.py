"""run hold timeout

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01

A run records how long its holds wait for a human, so that the needs-you queue shows a
held intent's real expiry (runs recorded before have none: the default is shown).
"""
from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('runs') as batch:
        batch.add_column(sa.Column('hold_timeout_seconds', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('runs') as batch:
        batch.drop_column('hold_timeout_seconds')
