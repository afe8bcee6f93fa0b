"""signed audit chain, operation keys and evidence, who started a run and its reach

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Audit entries and heads carry an HMAC signature by a key kept outside the database.
Chains written before this revision are unsigned: verification reports them as such
(a development database can be removed with ``make clean``).
Intents keep their operation key, so that an earlier write to the same resource (an
invoice paid before) is found; decisions keep the intents they rest on as evidence.
Runs record who started them and the agent's projects then, so that a human reads only
the runs that stay within their own projects.
"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('signature', sa.String(), server_default='', nullable=False))
    with op.batch_alter_table('audit_heads', schema=None) as batch_op:
        batch_op.add_column(sa.Column('signature', sa.String(), server_default='', nullable=False))
    with op.batch_alter_table('intents', schema=None) as batch_op:
        batch_op.add_column(sa.Column('op_key', sa.String(), nullable=True))
        batch_op.create_index(batch_op.f('ix_intents_op_key'), ['op_key'], unique=False)
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('evidence', sa.JSON(), server_default='[]', nullable=False))
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('started_by', sa.String(), nullable=True))
        batch_op.add_column(sa.Column('projects', sa.JSON(), server_default='[]', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_column('projects')
        batch_op.drop_column('started_by')
    with op.batch_alter_table('decisions', schema=None) as batch_op:
        batch_op.drop_column('evidence')
    with op.batch_alter_table('intents', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_intents_op_key'))
        batch_op.drop_column('op_key')
    with op.batch_alter_table('audit_heads', schema=None) as batch_op:
        batch_op.drop_column('signature')
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_column('signature')
