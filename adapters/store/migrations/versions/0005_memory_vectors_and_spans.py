"""memory vectors, spans and read paths

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

Memory nodes keep their embedding (by which embedder) and their tagged spans of
identifying detail; the read log names the read path.
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('memory_nodes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('spans', sa.JSON(), server_default='[]', nullable=False))
        batch_op.add_column(sa.Column('embedding', sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column('embedder', sa.String(), nullable=True))
    with op.batch_alter_table('memory_reads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('path', sa.String(), server_default='recall', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('memory_reads', schema=None) as batch_op:
        batch_op.drop_column('path')
    with op.batch_alter_table('memory_nodes', schema=None) as batch_op:
        batch_op.drop_column('embedder')
        batch_op.drop_column('embedding')
        batch_op.drop_column('spans')
