"""established destinations: where a project's outbound work may go without a human

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06

A project's established counterparties (email domains, addresses, payees and their bank
details), kept as configuration on the chain; the payments ledger records the bank
account a payment named.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'destinations',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('project', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('value', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('account', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('label', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('established_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('established_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('retired_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_destinations_org_id'), 'destinations', ['org_id'], unique=False)
    with op.batch_alter_table('payments_ledger') as batch:
        batch.add_column(sa.Column('account', sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('payments_ledger') as batch:
        batch.drop_column('account')
    op.drop_index(op.f('ix_destinations_org_id'), table_name='destinations')
    op.drop_table('destinations')
