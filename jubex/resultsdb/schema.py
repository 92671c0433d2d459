"""The tables of a results database, one schema for SQLite and PostgreSQL alike.

A person reads them with SQL (docs/database.md): ``runs`` says who ran what, when, where
and with which jubex; ``points`` the parameter values of each point of a run (and
``parameters`` the same one value a row, to filter on); ``samples`` one number a row, per
repetition (execution), metric and iteration of the program's own repetitions (IOR's
``-i``), with its unit and better direction: every sample the run has (``runs.every_sample``
is false for a run published before they were all kept, which held the first iteration of
each execution only); ``sample_packs`` the same samples again, a point's in one row, as
jubex reads them, and ``sample_layouts`` the metrics, counts, units and directions they
share (:mod:`jubex.resultsdb.packs`); ``verdicts`` whether each
repetition ran and was analysed cleanly; ``flags`` what makes a point's numbers less
trustworthy; ``site_annotations`` what a site's people said happened on a date (an
upgrade), shown beside its histories. ``specs`` and ``stores`` keep what jubex needs to
show a run's tables exactly as its run directory did: the resolved run (``run.json``) and
the run's own store.

Changes to these tables are Alembic migrations (``migrations/versions/``): a database
made by an older jubex is brought up to date when it is opened; a newer one is refused.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

from jubex.resultsdb.connect import HEAD as HEAD  # kept where reading needs no SQLAlchemy

metadata = MetaData()

specs = Table(
    "specs",
    metadata,
    Column("hash", String(64), primary_key=True),
    Column("body", Text, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_key", String(64), nullable=False, unique=True),
    Column("benchmark", Text, nullable=False),
    Column("run_id", Text, nullable=False),
    Column("directory", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("published", Float, nullable=False),
    Column("user_name", Text, nullable=False),
    Column("host", Text, nullable=False),
    Column("site", Text, nullable=False),
    Column("platform", Text, nullable=False),
    Column("scheduler", Text, nullable=False),
    Column("jubex_version", Text, nullable=False),
    Column("definition", Text, nullable=False),
    Column("definition_hash", Text, nullable=False),
    Column("tags", Text, nullable=False),
    Column("overrides", Text, nullable=False),
    Column("comment", Text, nullable=False),
    Column("imported_from", Text, nullable=False),
    Column("provenance", Text, nullable=False),
    Column("spec_hash", String(64), ForeignKey("specs.hash"), nullable=False),
    Column("every_sample", Boolean, nullable=False, server_default=sa.false()),
    Index("runs_series", "benchmark", "site", "created"),
    Index("runs_created", "created"),
)

stores = Table(
    "stores",
    metadata,
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("body", LargeBinary, nullable=False),
)

points = Table(
    "points",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("step", Text, nullable=False),
    Column("point_key", Text, nullable=False),
    Column("parameters", Text, nullable=False),
    Index("points_run", "run"),
    Index("points_key", "point_key"),
)

parameters = Table(
    "parameters",
    metadata,
    Column("point", Integer, ForeignKey("points.id", ondelete="CASCADE"), primary_key=True),
    Column("name", Text, primary_key=True),
    Column("value", Text, nullable=False),
    Column("number", Float),
    Index("parameters_value", "name", "value"),
    sqlite_with_rowid=False,
)

samples = Table(
    "samples",
    metadata,
    Column("point", Integer, ForeignKey("points.id", ondelete="CASCADE"), primary_key=True),
    Column("metric", Text, primary_key=True),
    Column("repetition", Integer, primary_key=True),
    Column("iteration", Integer, primary_key=True, server_default="0"),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("workpackage", Integer, nullable=False),
    Column("value", Float),
    Column("unit", Text, nullable=False),
    Column("higher_is_better", Boolean),
    Index("samples_run", "run"),
    sqlite_with_rowid=False,
)

sample_layouts = Table(
    "sample_layouts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("digest", String(64), nullable=False, unique=True),
    Column("body", Text, nullable=False),
)

sample_packs = Table(
    "sample_packs",
    metadata,
    Column("point", Integer, ForeignKey("points.id", ondelete="CASCADE"), primary_key=True),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("layout", Integer, ForeignKey("sample_layouts.id"), nullable=False),
    Column("numbers", LargeBinary, nullable=False),
    Column("missing", LargeBinary),
    Column("repetitions", LargeBinary),
    Column("iterations", LargeBinary),
    Index("sample_packs_run", "run"),
)

verdicts = Table(
    "verdicts",
    metadata,
    Column("point", Integer, ForeignKey("points.id", ondelete="CASCADE"), primary_key=True),
    Column("repetition", Integer, primary_key=True),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("workpackage", Integer, nullable=False),
    Column("ok", Boolean, nullable=False),
    Column("reason", Text, nullable=False),
    Index("verdicts_run", "run"),
    sqlite_with_rowid=False,
)

flags = Table(
    "flags",
    metadata,
    Column("point", Integer, ForeignKey("points.id", ondelete="CASCADE"), primary_key=True),
    Column("metric", Text, primary_key=True),
    Column("flag", Text, primary_key=True),
    Column("run", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("detail", Text, nullable=False),
    Index("flags_run", "run"),
    sqlite_with_rowid=False,
)

site_annotations = Table(
    "site_annotations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("site", Text, nullable=False),
    Column("moment", Float, nullable=False),
    Column("text", Text, nullable=False),
    Column("user_name", Text, nullable=False),
    Column("made", Float, nullable=False),
    Index("site_annotations_site", "site", "moment"),
)
