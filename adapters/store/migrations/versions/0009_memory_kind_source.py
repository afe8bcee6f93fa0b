"""memory node kind and source

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

What sort of document a node is, and where it came from.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('memory_nodes') as batch:
        batch.add_column(
            sa.Column(
                'kind',
                sqlmodel.sql.sqltypes.AutoString(),
                nullable=False,
                server_default='note',
            )
        )
        batch.add_column(sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('memory_nodes') as batch:
        batch.drop_column('source')
        batch.drop_column('kind')
