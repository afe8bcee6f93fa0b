"""identity linked by: who linked an outside identity to its principal

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-07

A Slack or Teams account proves its principal only when that person linked it
themselves (by sending, from the account, a code only their console sign-in could get).
Rows from before have no one here: a chat account among them proves nobody until its
owner links it again; a sign-in (OIDC) is unaffected.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0031'
down_revision = '0030'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('identities') as batch:
        batch.add_column(sa.Column('linked_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('identities') as batch:
        batch.drop_column('linked_by')
