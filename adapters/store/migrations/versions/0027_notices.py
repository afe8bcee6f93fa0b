"""notices: telling a person that something waits for them

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06

A new hold or finding reaches the people who may decide it, by email, Slack or Teams,
and each person gets a digest of the day: each notice is kept with its delivery (as the
mail relay's emails are), and what each person was told of while it waits.
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0027'
down_revision = '0026'
branch_labels = None
depends_on = None


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    op.create_table(
        'notices',
        sa.Column('id', text(), nullable=False),
        sa.Column('org_id', text(), nullable=False),
        sa.Column('person_id', text(), nullable=False),
        sa.Column('channel', text(), nullable=False),
        sa.Column('address', text(), nullable=False),
        sa.Column('name', text(), nullable=False),
        sa.Column('kind', text(), nullable=False),
        sa.Column('items', sa.JSON(), nullable=False),
        sa.Column('subject', text(), nullable=False),
        sa.Column('body', text(), nullable=False),
        sa.Column('link', text(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('delivery_state', text(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('last_code', sa.Integer(), nullable=True),
        sa.Column('last_detail', text(), nullable=True),
        sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_notices_org_id', 'notices', ['org_id'], unique=False)
    op.create_index('ix_notices_delivery_state', 'notices', ['delivery_state'], unique=False)
    op.create_table(
        'notices_told',
        sa.Column('org_id', text(), nullable=False),
        sa.Column('person_id', text(), nullable=False),
        sa.Column('item', text(), nullable=False),
        sa.Column('told_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('org_id', 'person_id', 'item'),
    )


def downgrade() -> None:
    op.drop_table('notices_told')
    op.drop_index('ix_notices_delivery_state', table_name='notices')
    op.drop_index('ix_notices_org_id', table_name='notices')
    op.drop_table('notices')
