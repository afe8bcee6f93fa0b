"""broker poison and modes

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

A poisoned broker is a state of the organization, kept in the database so that every
worker refuses to act for it until a human clears it. The head also keeps the sequence
of the newest configuration entry, against which processes check a cached configuration. Decisions record the broker's mode
and, in observe mode, what enforcement would have decided.
"""
from alembic import op
import sqlalchemy as sa


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('audit_heads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('poisoned', sa.String(), nullable=True))
        batch_op.add_column(sa.Column('config_seq', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('mode', sa.String(), server_default='enforce', nullable=False))
        batch_op.add_column(sa.Column('enforced', sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.drop_column('enforced')
        batch_op.drop_column('mode')
    with op.batch_alter_table('audit_heads', schema=None) as batch_op:
        batch_op.drop_column('config_seq')
        batch_op.drop_column('poisoned')
