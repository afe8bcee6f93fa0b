"""audit tree: a Merkle tree and signed checkpoints over each chain

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07

Each organization's chain gets a Merkle tree (RFC 6962 hashing), kept as entries are
appended: its frontier on the head row, every 256th-level node in ``audit_tree_nodes``
(the rest are recomputed from entry hashes), and checkpoints signed with Ed25519 in
``audit_checkpoints``. Existing chains have ``tree`` NULL: their tree and first checkpoint
are built from their entries at the next append or verification, history untouched.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0028'
down_revision = '0027'
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    with op.batch_alter_table('audit_heads') as batch:
        batch.add_column(sa.Column('tree', text(), nullable=True))
        batch.add_column(
            sa.Column('checkpoint_size', sa.Integer(), nullable=False, server_default='0')
        )
    op.create_table(
        'audit_tree_nodes',
        sa.Column('org_id', text(), nullable=False),
        sa.Column('level', sa.Integer(), nullable=False),
        sa.Column('idx', sa.BigInteger(), nullable=False),
        sa.Column('hash', text(), nullable=False),
        sa.PrimaryKeyConstraint('org_id', 'level', 'idx'),
    )
    op.create_table(
        'audit_checkpoints',
        sa.Column('org_id', text(), nullable=False),
        sa.Column('size', sa.BigInteger(), nullable=False),
        sa.Column('root', text(), nullable=False),
        sa.Column('note', text(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('org_id', 'size'),
    )


def downgrade() -> None:
    op.drop_table('audit_checkpoints')
    op.drop_table('audit_tree_nodes')
    with op.batch_alter_table('audit_heads') as batch:
        batch.drop_column('checkpoint_size')
        batch.drop_column('tree')
