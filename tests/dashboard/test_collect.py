"""The site's series say of every run what ``jubex history`` of the same runs says."""

from __future__ import annotations

import math
from collections.abc import Iterator

import sqlalchemy as sa
from resultsdb_fill import fill, template_of

from jubex.dashboard.collect import collect, history_of
from jubex.dashboard.model import Dashboard, Series
from jubex.dashboard.run_page import _extremes, run_pages
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import pack_stored
from jubex.resultsdb.samples import Sample, database_history, read_samples


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _histories(db: Database) -> Iterator[tuple[Dashboard, str, list[Series]]]:
    """The site of every run, each group's selector and its series as the site makes them."""
    site = collect("db:", db)
    for benchmark, where in site.groups:
        series, _ = history_of(site, (benchmark, where), db, tolerance=0.05, alpha=0.05)
        yield site, f"db:benchmark={benchmark},site={where}", series


def test_each_entry_holds_the_figures_of_its_row_in_the_history(database: str) -> None:
    db = Database(database)
    checked = marked = 0
    for site, selector, series in _histories(db):
        table = database_history(selector, database=db)
        names = table.columns
        keys = names[: names.index("metric")]
        expected = {}
        for row in table.rows:
            cells = dict(zip(names, row, strict=True))
            point = tuple(str(cells[k]) for k in keys)
            figures = [cells[n] for n in ("mean", "std", "change", "p_adjusted", "change_point")]
            expected[(str(cells["metric"]), point, str(cells["run"]))] = figures
        shown = {}
        for s in series:
            point = tuple(s.point[k] for k in keys)
            for e in s.entries:
                if e.mean is not None:
                    label = site.runs[e.run].label
                    figures = [e.mean, e.std, e.change, e.p_adjusted, e.mark]
                    shown[(s.metric, point, label)] = figures
        assert shown.keys() == expected.keys()
        for key, figures in shown.items():
            assert all(map(_same, figures, expected[key])), key
        checked += len(shown)
        marked += sum(bool(f[-1]) for f in shown.values())
    assert checked > 3000  # the 1,000 runs of 3 metrics and the real run
    assert marked >= 1  # the planted step


def test_each_entry_holds_its_run_s_samples_of_its_metric_at_its_point(database: str) -> None:
    """The values an entry shows (and its downloads hold) are every sample of its run at
    its point, missing ones left out, as ``jubex query`` reads them; their least and
    greatest, where the history worked them out, are those its run's page shows."""
    db = Database(database)
    checked = extremes = 0
    for _, selector, series in _histories(db):
        found = read_samples(selector, database=db)
        by_run: dict[tuple[int, str], list[Sample]] = {}
        for sample in found.items:
            by_run.setdefault((sample.run, sample.metric), []).append(sample)
        for s in series:
            for e in s.entries:
                expected = [
                    sample.value
                    for sample in by_run[(e.run, s.metric)]
                    if sample.value is not None
                    and all(str(sample.parameters.get(k)) == v for k, v in s.point.items())
                ]
                assert e.values == expected, (s.metric, s.point, e.run)
                checked += 1
                if e.low is not None:  # the history's, the same texts as the values' own
                    assert (repr(e.low), repr(e.high)) == tuple(map(repr, _extremes(e.values)))
                    extremes += 1
    assert checked > 3000
    assert extremes > 3000  # the rule: the history worked them out


def test_a_run_page_shows_the_least_zero_as_min_takes_it(database: str, new_postgres: str) -> None:
    """PostgreSQL keeps a negative zero (SQLite writes it as 0): a run whose repetitions are
    -0.0, 0.0 and 5.0 shows -0 as its least, the first of the equal values as ``min()``
    takes it, not the history's own least (numpy's minimum of the three is 0.0)."""
    db = Database(new_postgres)
    fill(db, template_of(Database(database)), runs=4, series=1, metrics=1, reps=3, step_at=9)
    with db.writing() as connection:
        connection.execute(
            sa.text(
                "UPDATE samples SET value = CASE repetition WHEN 0 THEN CAST('-0' AS DOUBLE "
                "PRECISION) WHEN 1 THEN 0.0 ELSE 5.0 END WHERE run = (SELECT max(id) FROM runs)"
            )
        )
        connection.execute(sa.text("DELETE FROM sample_packs"))  # packed again, as changed
        pack_stored(connection)
    site = collect("db:", db)
    group = next(iter(site.groups))
    series, _ = history_of(site, group, db, tolerance=0.05, alpha=0.05)
    last = series[0].entries[-1]
    assert [repr(v) for v in last.values] == ["-0.0", "0.0", "5.0"]
    page = dict(run_pages(site, series, site.groups[group]))[site.runs[last.run].page]
    assert "<td>-0</td><td>5</td>" in page  # its least and its greatest
