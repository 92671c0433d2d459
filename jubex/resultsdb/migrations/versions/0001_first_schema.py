"""the first schema: runs, points, parameters, samples, verdicts, flags, specs, stores

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "specs",
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("hash"),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run_key", sa.String(length=64), nullable=False),
        sa.Column("benchmark", sa.Text(), nullable=False),
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("directory", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("published", sa.Float(), nullable=False),
        sa.Column("user_name", sa.Text(), nullable=False),
        sa.Column("host", sa.Text(), nullable=False),
        sa.Column("site", sa.Text(), nullable=False),
        sa.Column("platform", sa.Text(), nullable=False),
        sa.Column("scheduler", sa.Text(), nullable=False),
        sa.Column("jubex_version", sa.Text(), nullable=False),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.Column("definition_hash", sa.Text(), nullable=False),
        sa.Column("tags", sa.Text(), nullable=False),
        sa.Column("overrides", sa.Text(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("imported_from", sa.Text(), nullable=False),
        sa.Column("provenance", sa.Text(), nullable=False),
        sa.Column("spec_hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["spec_hash"],
            ["specs.hash"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_key"),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("runs_created", ["created"], unique=False)
        batch_op.create_index("runs_series", ["benchmark", "site", "created"], unique=False)

    op.create_table(
        "points",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("step", sa.Text(), nullable=False),
        sa.Column("point_key", sa.Text(), nullable=False),
        sa.Column("parameters", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("points", schema=None) as batch_op:
        batch_op.create_index("points_key", ["point_key"], unique=False)
        batch_op.create_index("points_run", ["run"], unique=False)

    op.create_table(
        "stores",
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run"),
    )
    op.create_table(
        "flags",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("metric", sa.Text(), nullable=False),
        sa.Column("flag", sa.Text(), nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("point", "metric", "flag"),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("flags", schema=None) as batch_op:
        batch_op.create_index("flags_run", ["run"], unique=False)

    op.create_table(
        "parameters",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("number", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("point", "name"),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("parameters", schema=None) as batch_op:
        batch_op.create_index("parameters_value", ["name", "value"], unique=False)

    op.create_table(
        "samples",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("metric", sa.Text(), nullable=False),
        sa.Column("repetition", sa.Integer(), nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("workpackage", sa.Integer(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("unit", sa.Text(), nullable=False),
        sa.Column("higher_is_better", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("point", "metric", "repetition"),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.create_index("samples_run", ["run"], unique=False)

    op.create_table(
        "verdicts",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("repetition", sa.Integer(), nullable=False),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("workpackage", sa.Integer(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("point", "repetition"),
        sqlite_with_rowid=False,
    )
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        batch_op.create_index("verdicts_run", ["run"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        batch_op.drop_index("verdicts_run")

    op.drop_table("verdicts")
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.drop_index("samples_run")

    op.drop_table("samples")
    with op.batch_alter_table("parameters", schema=None) as batch_op:
        batch_op.drop_index("parameters_value")

    op.drop_table("parameters")
    with op.batch_alter_table("flags", schema=None) as batch_op:
        batch_op.drop_index("flags_run")

    op.drop_table("flags")
    op.drop_table("stores")
    with op.batch_alter_table("points", schema=None) as batch_op:
        batch_op.drop_index("points_run")
        batch_op.drop_index("points_key")

    op.drop_table("points")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("runs_series")
        batch_op.drop_index("runs_created")

    op.drop_table("runs")
    op.drop_table("specs")
