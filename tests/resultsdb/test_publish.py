"""Publishing runs into the results database and reading them back, on both back ends."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.errors import JubexError
from jubex.results.statistics.stats import summarize
from jubex.resultsdb.connect import Database
from jubex.resultsdb.publish import _cv, _flags, publish
from jubex.resultsdb.schema import HEAD
from jubex.resultsdb.select import open_selected
from jubex.store.rundir import open_run

TABLES = {"runs", "points", "parameters", "samples", "verdicts", "flags", "specs", "stores"}


def rows(url: str, sql: str) -> list[tuple]:
    database = Database(url)
    with database.reading() as connection:
        found = [tuple(row) for row in connection.execute(sa.text(sql))]
    database.close()
    return found


def test_a_new_database_gets_the_documented_tables_at_this_jubex_schema(database):
    Database(database).ensure_schema()
    assert _tables(database) >= TABLES
    assert rows(database, "SELECT version_num FROM alembic_version") == [(HEAD,)]


def data_lines(csv: str) -> list[str]:
    """A CSV's header and rows, without the notes after them."""
    return [line for line in csv.splitlines() if line and not line.startswith("#")]


def _tables(url: str) -> set[str]:
    database = Database(url)
    with database.reading() as connection:
        return set(sa.inspect(connection).get_table_names())


def test_a_database_of_a_newer_schema_is_refused(database):
    Database(database).ensure_schema()
    engine = sa.create_engine(Database(database).url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(JubexError, match="made by a newer jubex"):
        Database(database).ensure_schema()


def test_a_run_is_published_once_with_a_sample_per_repetition_and_metric(database, made):
    run = open_run(made / "000000")
    assert publish(Database(database), run) is True
    assert publish(Database(database), run) is False  # idempotent by the run's identity
    assert rows(database, "SELECT benchmark, run_id, site FROM runs") == [
        ("dbstudy", "000000", "local")
    ]
    bw = rows(
        database,
        "SELECT p.step, s.repetition, s.value, s.unit, s.higher_is_better FROM samples s "
        "JOIN points p ON p.id = s.point WHERE s.metric = 'bw' ORDER BY p.point_key, s.repetition",
    )
    assert [(step, rep, value, unit, bool(better)) for step, rep, value, unit, better in bw] == [
        ("run", i, 1000 * (1 + i / 100), "MiB/s", True) for i in range(5)
    ] * 2
    t = rows(database, "SELECT DISTINCT unit, higher_is_better FROM samples WHERE metric = 't'")
    assert [(unit, bool(better)) for unit, better in t] == [("s", False)]
    assert rows(database, "SELECT count(*) FROM verdicts WHERE ok") == [(10,)]
    assert rows(
        database, "SELECT a.value FROM parameters a WHERE a.name = 'point' ORDER BY a.value"
    ) == [("a",), ("b",)]


def test_an_imported_bundle_is_the_same_run(database, made, tmp_path):
    bundle = tmp_path / "runs.tar.gz"
    main(["export", str(made / "000000"), "-o", str(bundle)])
    main(["import", str(bundle), "--outpath", str(tmp_path / "elsewhere")])
    imported = open_run(tmp_path / "elsewhere" / "000000")
    assert imported.meta.get("imported_from")
    assert publish(Database(database), imported) is True
    assert publish(Database(database), open_run(made / "000000")) is False
    assert rows(database, "SELECT count(*) FROM runs") == [(1,)]


def test_result_of_a_selector_is_the_result_of_the_run_directory(database, made, capsys):
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    assert capsys.readouterr().out.count("published to") == 2
    main(["result", str(made / "000001"), "-f", "csv", "--no-analyse"])
    from_directory = capsys.readouterr().out
    main(["result", "db:benchmark=dbstudy,level=500", "--database", database, "-f", "csv"])
    assert capsys.readouterr().out == from_directory
    assert "\na,5,510" in from_directory  # level 500: the mean of 500 .. 520
    (run,) = open_selected("db:level=500", Database(database))
    assert run.meta["imported_from"].startswith("a results database (published from ")
    assert run.meta["uid"] == open_run(made / "000001").meta["uid"]


def test_compare_takes_baseline_and_candidate_from_the_database(database, made, capsys):
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    status = main(
        [
            "compare",
            "db:benchmark=dbstudy,level=1000",
            "db:benchmark=dbstudy,level=500",
            "--database",
            database,
            "-m",
            "bw",
        ]
    )
    assert status == 1  # half the bandwidth: worse
    assert "worse" in capsys.readouterr().out
    assert main(["compare", "db:benchmark=dbstudy", "db:id=000001", "--database", database]) == 2
    assert "selects 2 published runs" in capsys.readouterr().err


def test_query_prints_a_metrics_samples_over_time_as_csv(database, made, capsys):
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    capsys.readouterr()
    main(["query", "bw", "db:benchmark=dbstudy,point=a", "--database", database, "-f", "csv"])
    lines = data_lines(capsys.readouterr().out)
    assert lines[0] == "created,run,site,user,step,point,level,repetition,iteration,bw [MiB/s]"
    assert [line.split(",")[1] for line in lines[1:]] == ["000000"] * 5 + ["000001"] * 5
    values = [float(line.split(",")[-1]) for line in lines[1:]]
    assert values == [level * (1 + i / 100) for level in (1000, 500) for i in range(5)]


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("db:benchmark", "expected KEY=VALUE items"),
        ("db:since=yesterday", "is no date"),
        ("db:last=0", "at least 1"),
        ("db:benchmark=nothing", "selects no run"),
    ],
)
def test_a_bad_or_empty_selector_is_a_clear_error(database, made, capsys, selector, message):
    main(["publish", str(made / "000000"), "--database", database])
    capsys.readouterr()
    assert main(["result", selector, "--database", database]) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_selectors_by_time_and_latest(database, made, capsys):
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    capsys.readouterr()
    main(["query", "bw", "db:last=1,point=b", "--database", database, "-f", "csv"])
    assert {line.split(",")[1] for line in data_lines(capsys.readouterr().out)[1:]} == {"000001"}
    assert main(["query", "bw", "db:since=2999-01-01", "--database", database]) == 2
    main(["query", "bw", "db:until=2999-01-01,point=a", "--database", database, "-f", "csv"])
    assert len(data_lines(capsys.readouterr().out)) == 11


def test_a_path_is_sqlite_and_an_unknown_scheme_is_refused(tmp_path: Path):
    assert Database(str(tmp_path / "x.sqlite")).sqlite
    with pytest.raises(JubexError, match="SQLite or PostgreSQL"):
        Database("mysql://host/db")


def test_report_and_plot_take_published_runs_beside_a_run_directory(
    database, made, tmp_path, capsys
):
    main(["publish", str(made / "000000"), "--database", database])
    both = ["db:benchmark=dbstudy,level=1000", str(made / "000001"), "--database", database]
    assert main(["report", *both, "-o", str(tmp_path / "report.html")]) == 0
    html = (tmp_path / "report.html").read_text()
    assert ">1020<" in html and ">510<" in html  # each run's mean
    assert main(["plot", *both, "-x", "point", "-y", "bw", "-o", str(tmp_path / "bw.png")]) == 0
    assert (tmp_path / "bw.png").stat().st_size > 1000


@settings(deadline=None)  # a loaded machine must not fail it
@given(st.lists(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False), max_size=12))
def test_a_published_noisy_flag_uses_the_cv_of_a_result_tables_summary(values):
    expected = summarize(values).cv
    found = _cv(values)
    assert (found is None) == (expected is None)
    if expected is not None:
        assert found == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_published_flags_say_two_groups_as_a_table_does():
    cache, disk = [21000.0, 21400.0, 20800.0, 22000.0, 21100.0], [3400.0, 3350.0, 3420.0, 3380.0]
    series = {"read_bw": cache + disk, "write_bw": [100.0] * 8 + [100.5, 160.0]}
    found = _flags(1, 1, {m: {i: [v] for i, v in enumerate(vs)} for m, vs in series.items()})
    assert [(f["metric"], f["flag"], f["detail"]) for f in found] == [
        ("read_bw", "noisy", "cv 70.8%"),
        ("read_bw", "bimodal", "4 near 3390, 5 near 21100"),
        ("write_bw", "noisy", "cv 17.9%"),
        ("write_bw", "outlier", "repetition 9: 160"),
    ]
