"""site_annotations: what a site's people said happened on a date (an upgrade)

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "site_annotations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("site", sa.Text(), nullable=False),
        sa.Column("moment", sa.Float(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=False),
        sa.Column("made", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("site_annotations", schema=None) as batch_op:
        batch_op.create_index("site_annotations_site", ["site", "moment"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("site_annotations", schema=None) as batch_op:
        batch_op.drop_index("site_annotations_site")
    op.drop_table("site_annotations")
