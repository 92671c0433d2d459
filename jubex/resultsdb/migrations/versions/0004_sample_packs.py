"""sample_packs: each point's samples again in one row, as jubex reads them

``samples`` keeps one number a row; reading a history back a row a number cost seconds a
benchmark of 10,000 runs. ``sample_packs`` holds the same samples a point a row (its
numbers, repetitions and iterations as little-endian arrays, the last two null where
they are each metric's 0, 1, ... of one iteration each; its metrics, counts, units and
directions as a JSON text of ``sample_layouts``, which the points of a benchmark share:
:mod:`jubex.resultsdb.packs`), made here from ``samples`` for every
point that has some, and written beside them by every publish from now on.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from jubex.resultsdb.packs import pack_stored

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sample_layouts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    op.create_table(
        "sample_packs",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("layout", sa.Integer(), nullable=False),
        sa.Column("numbers", sa.LargeBinary(), nullable=False),
        sa.Column("missing", sa.LargeBinary(), nullable=True),
        sa.Column("repetitions", sa.LargeBinary(), nullable=True),
        sa.Column("iterations", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["layout"], ["sample_layouts.id"]),
        sa.PrimaryKeyConstraint("point"),
    )
    op.create_index("sample_packs_run", "sample_packs", ["run"], unique=False)
    pack_stored(op.get_bind())


def downgrade() -> None:
    op.drop_index("sample_packs_run", table_name="sample_packs")
    op.drop_table("sample_packs")
    op.drop_table("sample_layouts")
