"""identities

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01

Outside identities (an OIDC subject, a Slack or Teams user) of human principals.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'identities',
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('principal_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('kind', 'external_id'),
    )
    op.create_index(op.f('ix_identities_org_id'), 'identities', ['org_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_identities_org_id'), table_name='identities')
    op.drop_table('identities')
