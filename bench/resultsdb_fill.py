"""Fill a results database with many synthetic runs, fast, through the documented tables.

Every run is a run of one benchmark at one of ``series`` sites, made one hour after the one
before it at that site: one point (``transfer=1MiB``, ``nodes=4``) of ``metrics`` metrics
``m00``, ``m01``, ... with ``reps`` repetitions each, around 1000 with a 1 % spread. From run
``step_at`` of each series on, ``m00`` is ``step`` times higher (a planted change point).
Each run carries the spec and compacted store of one real run (``template``), as a
published run does, so that reading runs back costs what it costs for real runs.

Rows go in by SQLite's executemany and PostgreSQL's COPY, a batch of runs per transaction.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import pack, pack_stored, with_layout_ids

BENCHMARK = "bench"
PARAMETERS = {"nodes": "4", "transfer": "1MiB"}
START = 1_767_225_600.0  # 2026-01-01 UTC
BATCH = 500


@dataclass(frozen=True)
class Template:
    """What a real published run holds besides its numbers: its spec, its store and its
    provenance (each synthetic run's, so that its page and digest cost what a real run's
    do)."""

    spec: str
    store: bytes
    provenance: str


def template_of(database: Database, newest: bool = False) -> Template:
    """The spec and store of the run published first (``newest``: last) in ``database``."""
    order = schema.runs.c.published.desc() if newest else schema.runs.c.id
    with database.reading() as connection:
        run = connection.execute(sa.select(schema.runs).order_by(order)).first()
        if run is None:
            raise SystemExit(f"publish one real run into {database.name} first")
        spec = connection.execute(
            sa.select(schema.specs.c.body).where(schema.specs.c.hash == run.spec_hash)
        ).scalar_one()
        store = connection.execute(
            sa.select(schema.stores.c.body).where(schema.stores.c.run == run.id)
        ).scalar_one()
    return Template(spec, store, run.provenance)


def site_of(series: int) -> str:
    return f"site{series:02d}"


def fill(
    database: Database,
    template: Template,
    *,
    runs: int,
    series: int,
    metrics: int,
    reps: int,
    step_at: int,
    step: float = 0.8,
    seed: int = 28,
) -> None:
    """Synthetic runs spread over ``series`` sites until the database holds ``runs`` of
    them: a fill that was stopped goes on where it stopped (each batch is one transaction)."""
    spec_hash = hashlib.sha256(template.spec.encode()).hexdigest()
    with database.writing() as connection:
        first = (connection.execute(sa.select(sa.func.max(schema.runs.c.id))).scalar() or 0) + 1
        done = connection.execute(
            sa.select(sa.func.count()).where(schema.runs.c.benchmark == BENCHMARK)
        ).scalar()
        first_point = connection.execute(sa.select(sa.func.max(schema.points.c.id))).scalar()
        if (
            connection.execute(
                sa.select(schema.specs.c.hash).where(schema.specs.c.hash == spec_hash)
            ).first()
            is None
        ):
            connection.execute(schema.specs.insert(), {"hash": spec_hash, "body": template.spec})
    point_base = (first_point or 0) + 1 - first
    rng = random.Random(seed + done)
    names = [f"m{m:02d}" for m in range(metrics)]
    for start in range(0, runs - done, BATCH):
        numbers = range(first + start, first + min(start + BATCH, runs - done))
        rows = _Rows()
        for number in numbers:
            index = number - first + done
            order, where = divmod(index, series)
            level = step if order >= step_at else 1.0
            rows.add(number, number + point_base, order, site_of(where), spec_hash, template, reps)
            of_point = []
            for name in names:
                scale = level if name == "m00" else 1.0
                of_point += [
                    (number + point_base, name, r, 0, number, r,
                     1000 * scale * rng.gauss(1, 0.01), "MiB/s", True)
                    for r in range(reps)
                ]  # fmt: skip
            rows.samples += of_point
            rows.packs.append(
                pack(number + point_base, number, [(*s[1:4], *s[6:]) for s in of_point])
            )
        with database.writing() as connection:
            _copy(connection, rows)
            connection.execute(
                schema.sample_packs.insert(), with_layout_ids(connection, rows.packs)
            )
            if not database.sqlite:  # ids given here: the sequences follow, batch by batch
                for table in ("runs", "points"):
                    connection.execute(
                        sa.text(
                            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                            f"(SELECT max(id) FROM {table}))"
                        )
                    )


class _Rows:
    """The rows of one batch, table by table, in the tables' column order."""

    def __init__(self) -> None:
        self.runs: list[tuple] = []
        self.stores: list[tuple] = []
        self.points: list[tuple] = []
        self.parameters: list[tuple] = []
        self.samples: list[tuple] = []
        self.packs: list[dict] = []
        self.verdicts: list[tuple] = []

    def add(
        self,
        run: int,
        point: int,
        order: int,
        site: str,
        spec_hash: str,
        template: Template,
        reps: int,
    ) -> None:
        created = START + order * 3600.0
        key = hashlib.sha256(f"bench-{run}".encode()).hexdigest()
        self.runs.append(
            (
                run,
                key,
                BENCHMARK,
                f"{order:06d}",
                f"/bench/{site}/{order:06d}",
                created,
                created + 60,
                "bench",
                "host",
                site,
                site,
                "slurm",
                "0.1.0",
                "/bench/ior.yaml",
                "0" * 64,
                "[]",
                "{}",
                "",
                "",
                template.provenance,
                spec_hash,
                True,
            )
        )
        self.stores.append((run, template.store))
        point_key = json.dumps(["run", PARAMETERS], sort_keys=True, separators=(",", ":"))
        self.points.append((point, run, "run", point_key, json.dumps(PARAMETERS)))
        self.parameters += [(point, n, v, _number(v)) for n, v in PARAMETERS.items()]
        self.verdicts += [(point, r, run, r, True, "") for r in range(reps)]

    def tables(self) -> Iterator[tuple[sa.Table, Sequence[tuple]]]:
        yield schema.runs, self.runs
        yield schema.stores, self.stores
        yield schema.points, self.points
        yield schema.parameters, self.parameters
        yield schema.samples, self.samples
        yield schema.verdicts, self.verdicts


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _copy(connection: sa.Connection, rows: _Rows) -> None:
    """A batch into its tables: COPY for PostgreSQL, executemany for SQLite."""
    raw = connection.connection.driver_connection
    for table, found in rows.tables():
        if not found:
            continue
        columns = [c.name for c in table.columns]
        if connection.dialect.name == "postgresql":
            with (
                raw.cursor() as cursor,
                cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy,
            ):
                for row in found:
                    copy.write_row(row)
        else:
            marks = ", ".join("?" * len(columns))
            raw.executemany(f"INSERT INTO {table.name} VALUES ({marks})", found)


def fill_sqlite(
    database: Database,
    template: Template,
    *,
    runs: int,
    series: int,
    metrics: int,
    reps: int,
    step_at: int,
    step: float = 0.8,
) -> None:
    """The runs of :func:`fill`, made by SQLite itself (``INSERT ... SELECT`` over a
    counting ``WITH RECURSIVE``) in one transaction: about 100x faster than rows sent
    from Python. The noise is uniform (1 % standard deviation) rather than normal."""
    assert database.sqlite
    spec_hash = hashlib.sha256(template.spec.encode()).hexdigest()
    point_key = json.dumps(["run", PARAMETERS], sort_keys=True, separators=(",", ":"))
    with database.writing() as connection:
        raw = connection.connection.driver_connection
        first = raw.execute("SELECT coalesce(max(id), 0) + 1 FROM runs").fetchone()[0]
        point = raw.execute("SELECT coalesce(max(id), 0) + 1 FROM points").fetchone()[0]
        raw.execute("INSERT OR IGNORE INTO specs VALUES (?, ?)", (spec_hash, template.spec))
        raw.execute("CREATE TEMP TABLE n (i INTEGER PRIMARY KEY)")
        raw.execute(
            "INSERT INTO n WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c "
            "WHERE i + 1 < ?) SELECT i FROM c",
            (runs,),
        )
        at = {"first": first, "point": point, "series": series, "start": START}
        raw.execute(
            "INSERT INTO runs SELECT :first + i, printf('bench-%d', :first + i), 'bench', "
            "printf('%06d', i / :series), printf('/bench/site%02d/%06d', i % :series, "
            "i / :series), :start + (i / :series) * 3600.0, :start + (i / :series) * 3600.0 "
            "+ 60, 'bench', 'host', printf('site%02d', i % :series), printf('site%02d', "
            "i % :series), 'slurm', '0.1.0', '/bench/ior.yaml', :zeros, '[]', '{}', '', '', "
            ":provenance, :spec, 1 FROM n",
            {**at, "zeros": "0" * 64, "spec": spec_hash, "provenance": template.provenance},
        )
        raw.execute(
            "INSERT INTO stores SELECT :first + i, :body FROM n", {**at, "body": template.store}
        )
        raw.execute(
            "INSERT INTO points SELECT :point + i, :first + i, 'run', :key, :values FROM n",
            {**at, "key": point_key, "values": json.dumps(PARAMETERS)},
        )
        for name, value in PARAMETERS.items():
            raw.execute(
                "INSERT INTO parameters SELECT :point + i, :name, :value, :number FROM n",
                {**at, "name": name, "value": value, "number": _number(value)},
            )
        raw.execute(
            "INSERT INTO samples SELECT :point + n.i, printf('m%02d', m.i), r.i, 0, :first + n.i, "
            "r.i, 1000 * (CASE WHEN m.i = 0 AND n.i / :series >= :step_at THEN :step ELSE 1 END)"
            " * (1 + 0.0173 * ((abs(random()) % 2000001) - 1000000) / 1000000.0), 'MiB/s', 1 "
            "FROM n, n AS m, n AS r WHERE m.i < :metrics AND r.i < :reps ORDER BY 1, 2, 3",
            {**at, "step_at": step_at, "step": step, "metrics": metrics, "reps": reps},
        )
        raw.execute(
            "INSERT INTO verdicts SELECT :point + n.i, r.i, :first + n.i, r.i, 1, '' "
            "FROM n, n AS r WHERE r.i < :reps",
            {**at, "reps": reps},
        )
        raw.execute("DROP TABLE n")
        pack_stored(connection, first)
