"""ingress nonces and usage

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

The front door remembers the nonces it has seen (replay) and counts requests against
budget ceilings, in the database, so that every API process sees the same.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'ingress_nonces',
        sa.Column('channel', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('nonce', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('seen_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('channel', 'nonce'),
    )
    op.create_table(
        'ingress_usage',
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('principal_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('period', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('requests', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('org_id', 'principal_id', 'period'),
    )


def downgrade() -> None:
    op.drop_table('ingress_usage')
    op.drop_table('ingress_nonces')
