"""ingress refusals and model spend

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01

The front door records every request it refuses (never the token, secret or body), and
counts the model spend the runs it starts reserve, beside the requests.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('ingress_usage') as batch:
        batch.add_column(
            sa.Column('model_cents', sa.BigInteger(), nullable=False, server_default='0')
        )
    op.create_table(
        'ingress_refusals',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('channel', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('detail', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('path', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('principal_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        op.f('ix_ingress_refusals_reason'), 'ingress_refusals', ['reason'], unique=False
    )
    op.create_index(
        op.f('ix_ingress_refusals_org_id'), 'ingress_refusals', ['org_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_ingress_refusals_org_id'), table_name='ingress_refusals')
    op.drop_index(op.f('ix_ingress_refusals_reason'), table_name='ingress_refusals')
    op.drop_table('ingress_refusals')
    with op.batch_alter_table('ingress_usage') as batch:
        batch.drop_column('model_cents')
