"""memory node revisions

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

Each memory node carries the organization's memory-write order when it was kept or last
embedded, so that a similarity index reads only what moved since it was built.
"""
import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('memory_nodes') as batch:
        batch.add_column(sa.Column('revision', sa.Integer(), nullable=True))
    connection = op.get_bind()
    nodes = sa.table(
        'memory_nodes',
        sa.column('org_id', sa.String()),
        sa.column('ref', sa.String()),
        sa.column('created_at', sa.DateTime()),
        sa.column('revision', sa.Integer()),
    )
    rows = connection.execute(
        sa.select(nodes.c.org_id, nodes.c.ref).order_by(
            nodes.c.org_id, nodes.c.created_at, nodes.c.ref
        )
    ).all()
    counters: dict[str, int] = {}
    for org_id, ref in rows:
        counters[org_id] = counters.get(org_id, 0) + 1
        connection.execute(
            nodes.update()
            .where(nodes.c.org_id == org_id, nodes.c.ref == ref)
            .values(revision=counters[org_id])
        )
    with op.batch_alter_table('memory_nodes') as batch:
        batch.alter_column('revision', existing_type=sa.Integer(), nullable=False)
        batch.create_unique_constraint(
            'uq_memory_nodes_org_id_revision', ['org_id', 'revision']
        )


def downgrade() -> None:
    with op.batch_alter_table('memory_nodes') as batch:
        batch.drop_constraint('uq_memory_nodes_org_id_revision', type_='unique')
        batch.drop_column('revision')
