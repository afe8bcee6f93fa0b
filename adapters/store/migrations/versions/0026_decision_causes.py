"""a hold's causes: each cause of a hold of several, with its rule

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06

The broker joins the reasons of a hold of several causes into one sentence; the console
shows each on its own line, the most worrying first, so each is kept with its rule.
Decisions recorded before have none (their one reason is shown as it was).
"""
from alembic import op
import sqlalchemy as sa


revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.add_column(sa.Column('reasons', sa.JSON(), nullable=False, server_default='[]'))


def downgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.drop_column('reasons')
