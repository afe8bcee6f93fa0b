"""memory procedures

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

The procedural store: versioned workflow definitions and playbooks.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'memory_procedures',
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('projects', sa.JSON(), nullable=False),
        sa.Column('steps', sa.JSON(), nullable=False),
        sa.Column('author_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('org_id', 'name', 'version'),
    )


def downgrade() -> None:
    op.drop_table('memory_procedures')
