"""heartbeat runs and findings

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01

The heartbeat keeps a durable record of each run (its checks, findings and Sentinel's
proposals); findings filed through the broker (``findings.file``) are the rows of their
connector.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'findings',
        sa.Column('intent_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('principal_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('subject', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('severity', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('summary', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('evidence', sa.JSON(), nullable=False),
        sa.Column('cites', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('audit_seq', sa.Integer(), nullable=False),
        sa.Column('entry_hash', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('intent_id'),
    )
    op.create_index(op.f('ix_findings_org_id'), 'findings', ['org_id'], unique=False)
    op.create_index(op.f('ix_findings_subject'), 'findings', ['subject'], unique=False)
    op.create_table(
        'heartbeat_runs',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('workflow_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('body', sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(
        op.f('ix_heartbeat_runs_org_id'), 'heartbeat_runs', ['org_id'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_heartbeat_runs_org_id'), table_name='heartbeat_runs')
    op.drop_table('heartbeat_runs')
    op.drop_index(op.f('ix_findings_subject'), table_name='findings')
    op.drop_index(op.f('ix_findings_org_id'), table_name='findings')
    op.drop_table('findings')
