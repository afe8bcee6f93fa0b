"""signed audit chain and done claims

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Audit entries and heads carry an HMAC signature by a key kept outside the database.
Chains written before this revision are unsigned: verification reports them as such
(a development database can be removed with ``make clean``).
Claims gain a state: a non-repeatable write (a paid invoice) keeps its key as ``done``.
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
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('state', sa.String(), server_default='in_flight', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('claims', schema=None) as batch_op:
        batch_op.drop_column('state')
    with op.batch_alter_table('audit_heads', schema=None) as batch_op:
        batch_op.drop_column('signature')
    with op.batch_alter_table('audit_entries', schema=None) as batch_op:
        batch_op.drop_column('signature')
