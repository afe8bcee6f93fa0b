"""commitment rejection

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01

A human may reject an extracted commitment: who did, when and why. (Extraction's
provenance, the document, span, extractor and model, lives in the provenance JSON.)
"""
from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('commitments') as batch:
        batch.add_column(
            sa.Column('rejected_by', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )
        batch.add_column(sa.Column('rejected_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column('rejection_reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('commitments') as batch:
        batch.drop_column('rejection_reason')
        batch.drop_column('rejected_at')
        batch.drop_column('rejected_by')
