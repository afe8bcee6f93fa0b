"""process offers, episodes and drift findings

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-01

Episodes of work (runs, or processes done outside Verletica and submitted), the process
offers they merge into (a human confirms one into a playbook), and drift findings on
confirmed playbooks, resolved once with a reason.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'offers',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('tools', sa.JSON(), nullable=False),
        sa.Column('steps', sa.JSON(), nullable=False),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('state', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('playbook', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=True),
        sa.Column('confirmed_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('confirmed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('confirmed_with', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_offers_org_id'), 'offers', ['org_id'], unique=False)
    op.create_table(
        'episodes',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('run_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('steps', sa.JSON(), nullable=False),
        sa.Column('outcome_met', sa.Boolean(), nullable=True),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('embedder', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('vectors', sa.JSON(), nullable=False),
        sa.Column('offer_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('position', sa.Integer(), nullable=True),
        sa.Column('recorded_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('org_id', 'run_id'),
    )
    op.create_index(op.f('ix_episodes_org_id'), 'episodes', ['org_id'], unique=False)
    op.create_index(op.f('ix_episodes_offer_id'), 'episodes', ['offer_id'], unique=False)
    op.create_table(
        'drift_findings',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('offer_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('playbook', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('episodes', sa.JSON(), nullable=False),
        sa.Column('missed', sa.Integer(), nullable=False),
        sa.Column('flagged_by', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('flagged_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('resolved_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        op.f('ix_drift_findings_org_id'), 'drift_findings', ['org_id'], unique=False
    )
    op.create_index(
        op.f('ix_drift_findings_offer_id'), 'drift_findings', ['offer_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_drift_findings_offer_id'), table_name='drift_findings')
    op.drop_index(op.f('ix_drift_findings_org_id'), table_name='drift_findings')
    op.drop_table('drift_findings')
    op.drop_index(op.f('ix_episodes_offer_id'), table_name='episodes')
    op.drop_index(op.f('ix_episodes_org_id'), table_name='episodes')
    op.drop_table('episodes')
    op.drop_index(op.f('ix_offers_org_id'), table_name='offers')
    op.drop_table('offers')
