"""fleet registry: skills on charters, rollouts

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-01

A charter version carries the organization's skills (named instructions); an agent's
rollout says which published version new runs get. An agent without a rollout row runs
its newest published version, as every agent did before.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('charters') as batch:
        batch.add_column(sa.Column('skills', sa.JSON(), nullable=False, server_default='[]'))
    op.create_table(
        'agent_rollouts',
        sa.Column('principal_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('stable', sa.Integer(), nullable=False),
        sa.Column('candidate', sa.Integer(), nullable=True),
        sa.Column('share', sa.Integer(), nullable=False),
        sa.Column('previous', sa.Integer(), nullable=True),
        sa.Column('rolled_back', sa.JSON(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('principal_id'),
    )
    op.create_index(op.f('ix_agent_rollouts_org_id'), 'agent_rollouts', ['org_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_agent_rollouts_org_id'), table_name='agent_rollouts')
    op.drop_table('agent_rollouts')
    with op.batch_alter_table('charters') as batch:
        batch.drop_column('skills')
