"""email relay

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01

The mail relay delivers outbox rows and keeps each one's state: pending, sending (claimed
by a pass, with when), delivered or bounced, how many attempts, the server's last
answer, and when it was delivered.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('email_outbox') as batch:
        batch.add_column(
            sa.Column(
                'delivery_state',
                sqlmodel.sql.sqltypes.AutoString(),
                nullable=False,
                server_default='pending',
            )
        )
        batch.add_column(sa.Column('attempts', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('last_code', sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column('last_detail', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch.add_column(sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True))
        batch.create_index('ix_email_outbox_delivery_state', ['delivery_state'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('email_outbox') as batch:
        batch.drop_index('ix_email_outbox_delivery_state')
        batch.drop_column('claimed_at')
        batch.drop_column('delivered_at')
        batch.drop_column('last_detail')
        batch.drop_column('last_code')
        batch.drop_column('attempts')
        batch.drop_column('delivery_state')
