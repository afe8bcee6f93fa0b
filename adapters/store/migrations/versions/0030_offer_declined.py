"""offer declined: a process offer a person turned down, by whom, when and why

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07

An open offer may be declined with a reason (on the record, in the offer's own chain
entry): it is not offered again, and its later episodes still join it as evidence.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0030'
down_revision = '0029'
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    with op.batch_alter_table('offers') as batch:
        batch.add_column(sa.Column('declined_by', text(), nullable=True))
        batch.add_column(sa.Column('declined_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('declined_reason', text(), nullable=True))


def downgrade() -> None:
    # the code before knows no declined offer: they are open again
    op.execute("UPDATE offers SET state = 'open' WHERE state = 'declined'")
    with op.batch_alter_table('offers') as batch:
        batch.drop_column('declined_reason')
        batch.drop_column('declined_at')
        batch.drop_column('declined_by')
