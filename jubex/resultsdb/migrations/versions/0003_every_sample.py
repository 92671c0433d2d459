"""every sample: the iteration of a program's own repetitions, and runs that hold them all

A sample was one number per repetition and metric: the first iteration of each execution
(IOR's ``-i 3`` gave three, the database kept one). ``samples.iteration`` numbers the
program's own repetitions inside an execution and joins the primary key; ``runs.every_sample``
says that a run's samples are all of them. Runs published before hold their first
iterations only and are marked so (false): the commands that read samples re-read those
runs from their stored runs, which are whole, and say so.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = "point, metric, repetition, iteration, run, workpackage, value, unit, higher_is_better"


def upgrade() -> None:
    op.add_column(
        "runs", sa.Column("every_sample", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    if op.get_bind().dialect.name == "postgresql":
        op.add_column(
            "samples",
            sa.Column("iteration", sa.Integer(), nullable=False, server_default="0"),
        )
        op.drop_constraint("samples_pkey", "samples", type_="primary")
        op.create_primary_key(
            "samples_pkey", "samples", ["point", "metric", "repetition", "iteration"]
        )
        return
    # SQLite changes no primary key in place: the table is made anew and filled
    op.create_table(
        "samples_new",
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column("metric", sa.Text(), nullable=False),
        sa.Column("repetition", sa.Integer(), nullable=False),
        sa.Column("iteration", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("run", sa.Integer(), nullable=False),
        sa.Column("workpackage", sa.Integer(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("unit", sa.Text(), nullable=False),
        sa.Column("higher_is_better", sa.Boolean(), nullable=True),
        sa.ForeignKeyConstraint(["point"], ["points.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run"], ["runs.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("point", "metric", "repetition", "iteration"),
        sqlite_with_rowid=False,
    )
    old = COLUMNS.replace("iteration", "0")
    op.execute(f"INSERT INTO samples_new ({COLUMNS}) SELECT {old} FROM samples")
    op.drop_index("samples_run", table_name="samples")
    op.drop_table("samples")
    op.rename_table("samples_new", "samples")
    op.create_index("samples_run", "samples", ["run"], unique=False)


def downgrade() -> None:
    op.execute("DELETE FROM samples WHERE iteration > 0")
    with op.batch_alter_table("samples", schema=None) as batch_op:
        batch_op.drop_column("iteration")
    if op.get_bind().dialect.name == "postgresql":  # dropping the column dropped the key
        op.create_primary_key("samples_pkey", "samples", ["point", "metric", "repetition"])
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_column("every_sample")
