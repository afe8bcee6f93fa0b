"""memory links

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01

Typed links between memory records: relations, and derivations with the source span
they drew on (the relational and causal stores).
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'memory_links',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('org_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('src_ref', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('dst_ref', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('span_start', sa.Integer(), nullable=True),
        sa.Column('span_end', sa.Integer(), nullable=True),
        sa.Column('author_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_memory_links_org_id'), 'memory_links', ['org_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_memory_links_org_id'), table_name='memory_links')
    op.drop_table('memory_links')
