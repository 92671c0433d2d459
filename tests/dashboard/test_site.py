"""``jubex site`` of 1,000 published runs with a planted step: the regressions page lists
it, the history shows it with the annotation, the run pages show failures and provenance,
every text from a run stays text, and a rebuild writes only what changed."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.dashboard import build, groups
from jubex.dashboard.build import RunStarts, _history_downloads
from jubex.dashboard.model import Dashboard, Entry, RunInfo, Series
from jubex.dashboard.write import SiteWriter
from jubex.resultsdb.connect import Database
from tests.dashboard.conftest import NOTE, STEP_RUN, fill, template_of


def records(site: Path, name: str) -> list[dict[str, object]]:
    return json.loads((site / "data" / f"{name}.json").read_text())


def test_the_regressions_page_lists_the_planted_step_and_nothing_else(site: Path) -> None:
    found = records(site, "regressions")
    assert [(r["metric"], r["run"], r["mark"], r["open"]) for r in found] == [
        ("m00", STEP_RUN, "worse", "open")
    ]
    assert -21 < float(found[0]["change %"]) < -19  # type: ignore[arg-type]
    page = (site / "regressions.html").read_text()
    run = re.search(rf'<a href="(runs/[0-9]+\.html)">{STEP_RUN}</a>', page)
    assert re.search(r'<a href="history/[0-9a-f]{16}\.html">m00</a>', page) and run
    assert f"<title>Run {STEP_RUN} of bench at site00" in (site / run.group(1)).read_text()


def test_the_overview_has_each_series_with_its_latest_figures(site: Path) -> None:
    found = {(r["benchmark"], r["metric"], r["point"]): r for r in records(site, "index")}
    assert set(found) == {
        ("bench", "m00", "(one point)"),
        ("bench", "m01", "(one point)"),
        ("bench", "m02", "(one point)"),
        ("sitestudy", "bw", "point=a"),
        ("sitestudy", "bw", "point=b"),
    }
    step = found[("bench", "m00", "(one point)")]
    assert step["runs"] == 1000 and str(step["open regression"]).startswith("-")
    assert 780 < float(step["latest mean"]) < 820  # type: ignore[arg-type]
    assert found[("bench", "m01", "(one point)")]["open regression"] == ""


def history_of(site: Path, metric: str) -> str:
    index = (site / "index.html").read_text()
    page = re.search(rf'<a href="(history/[0-9a-f]+\.html)">bench</a></td><td>site00</td>'
                     rf"<td>[^<]*</td><td>{metric}</td>", index)  # fmt: skip
    assert page, f"no history of {metric} on the overview"
    return (site / page.group(1)).read_text()


def test_a_history_page_has_every_repetition_the_change_point_and_the_note(site: Path) -> None:
    page = history_of(site, "m00")
    data = json.loads(re.search(r'id="series-data">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    assert len(data["run"]) == 1000 and all(len(values) == 5 for values in data["values"])
    assert [run for run, mark in zip(data["run"], data["mark"], strict=True) if mark] == [STEP_RUN]
    assert [a["text"] for a in data["annotations"]] == [NOTE]
    assert "Lustre 2.15 upgrade &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page and "\\u003cscript\\u003e" in page
    # BokehJS, copied into the site as bokeh ships it, and then the site's script, deferred
    # (fetched while the page is read, run in this order once it is read); the chart is
    # built from BokehJS's models, so its plotting API is neither fetched nor copied
    head = page[: page.index("</head>")]
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', head)
    assert scripts == ["../assets/bokeh.min.js", "../assets/site.js"]
    assert len(re.findall("<script src=", page)) == 2
    shipped = Path(importlib.util.find_spec("bokeh").origin).parent / "server/static/js"  # type: ignore[arg-type,union-attr]
    assert (site / "assets/bokeh.min.js").read_bytes() == (shipped / "bokeh.min.js").read_bytes()
    assert sorted(p.name for p in (site / "assets").iterdir()) == [
        "bokeh.min.js",
        "site.css",
        "site.js",
    ]


def test_a_run_page_shows_its_failures_with_their_causes(site: Path) -> None:
    listing = json.loads(
        re.search(
            r'id="listing-data">(.*?)</script>', (site / "runs.html").read_text(), re.S
        ).group(1)  # type: ignore[union-attr]
    )
    real = [i for i, row in enumerate(listing["rows"]) if row[1] == "sitestudy"]
    assert len(real) == 1 and listing["rows"][real[0]][-1] == 1  # one failed repetition
    page = (site / listing["hrefs"][real[0]]["0"]).read_text()
    assert "<td>point=b</td><td>1</td><td>3</td><td>exit status 3</td>" in page
    assert "<th>definition_hash</th>" in page and "provenance.json" in page


def test_the_latest_runs_are_compared_with_a_verdict(site: Path) -> None:
    page = next((site / "compare").glob("*.html")).read_text()
    assert "PASSED" in page or "FAILED" in page or "ERROR" in page
    assert "candidate mean" in page


def test_a_rebuild_writes_only_what_changed(
    site: Path, database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["site", "db:", "-o", str(site), "--database", database, "-j", "1"]) == 0
    assert "0 file(s) written" in capsys.readouterr().out
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
    assert main(["annotate", "site00", "2026-02-01", "new striping", "--database", database]) == 0
    assert main(["site", "db:", "-o", str(site), "--database", database]) == 0
    out = capsys.readouterr().out
    changed = sorted(str(p.relative_to(site)) for p in before if p.stat().st_mtime_ns != before[p])
    assert len(changed) == 3 and all(p.startswith("history/") for p in changed), changed
    assert "written" in out


@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_count(
    jobs: str, database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["site", "db:", "-o", str(tmp_path / "s"), "--database", database, "-j", jobs])
    assert ended.value.code == 2
    assert f"expected a positive whole number, got '{jobs}'" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_after_new_runs_only_their_pages_are_written_and_old_run_pages_left_alone(
    site: Path, database: str, tmp_path: Path
) -> None:
    """A copy of the site and of its database, two runs more: the run pages written are
    the two new ones, no other run page is rewritten."""
    shutil.copytree(site, tmp_path / "site")
    shutil.copy(database, tmp_path / "results.sqlite")
    db = Database(str(tmp_path / "results.sqlite"))
    fill(db, template_of(db), runs=1002, series=1, metrics=3, reps=5, step_at=600)
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "site/runs").glob("*.html")}
    url = str(tmp_path / "results.sqlite")
    assert main(["site", "db:", "-o", str(tmp_path / "site"), "--database", url]) == 0
    assert all(p.stat().st_mtime_ns == before[p] for p in before)
    assert len(list((tmp_path / "site/runs").glob("*.html"))) == len(before) + 2


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_rebuild_reads_only_the_groups_with_new_runs_and_equals_a_fresh_build(
    site: Path, database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs more at site00: only that benchmark at that site is read again (the real
    run's group is kept as the last build left it), and the site is, file for file and
    byte for byte, the one a build into an empty directory makes of the same database."""
    shutil.copytree(site, tmp_path / "site")
    shutil.copy(database, tmp_path / "results.sqlite")
    db = Database(str(tmp_path / "results.sqlite"))
    fill(db, template_of(db), runs=1002, series=1, metrics=3, reps=5, step_at=600)
    log = tmp_path / "read.log"  # the groups read, by whichever process reads them
    history_of = build.history_of

    def logged(s: object, group: tuple[str, str], *a: object, **k: object) -> object:
        with log.open("a") as out:
            out.write(f"{group[1]}\n")
        return history_of(s, group, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "history_of", logged)

    def read() -> list[str]:
        return log.read_text().split()

    url = str(tmp_path / "results.sqlite")
    assert main(["site", "db:", "-o", str(tmp_path / "site"), "--database", url]) == 0
    assert read() == ["site00"]
    assert main(["site", "db:", "-o", str(tmp_path / "fresh"), "--database", url]) == 0
    assert len(read()) == 3  # the fresh build read both groups
    assert tree(tmp_path / "site") == tree(tmp_path / "fresh")
    (tmp_path / "fresh" / groups.GROUPS).write_text("[{")  # damaged: every group is read
    assert main(["site", "db:", "-o", str(tmp_path / "fresh"), "--database", url]) == 0
    assert len(read()) == 5
    assert tree(tmp_path / "site") == tree(tmp_path / "fresh")
    kept = json.loads((tmp_path / "fresh" / groups.GROUPS).read_text())
    for group in kept["groups"]:  # edited, still well formed: not shown, every group read
        group["notes"] = ["<b>forged</b>"]
        for series in group["series"]:
            series["entries"] = [{**e, "mean": 1e9} for e in series["entries"]]
    (tmp_path / "fresh" / groups.GROUPS).write_text(json.dumps(kept))
    assert main(["site", "db:", "-o", str(tmp_path / "fresh"), "--database", url]) == 0
    assert len(read()) == 7
    assert tree(tmp_path / "site") == tree(tmp_path / "fresh")


def test_last_keeps_the_latest_runs_of_each_benchmark_at_each_site(
    database: str, tmp_path: Path
) -> None:
    assert main(["site", "db:last=7", "-o", str(tmp_path), "--database", database]) == 0
    assert len(list((tmp_path / "runs").glob("*.html"))) == 8  # 7 synthetic, 1 real
    held = {(row["benchmark"], row["runs"]) for row in records(tmp_path, "index")}
    assert held == {("bench", 7), ("sitestudy", 1)}


def test_a_directory_jubex_did_not_write_is_refused(database: str, tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("a user's file")
    assert main(["site", "db:", "-o", str(tmp_path), "--database", database]) == 2
    assert (tmp_path / "mine.txt").exists()


def test_without_bokeh_the_site_says_how_to_get_it(
    database: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "bokeh", None)  # an import of it fails
    assert main(["site", "db:", "-o", str(tmp_path / "s"), "--database", database]) == 2
    err = capsys.readouterr().err
    assert "need the Python package bokeh" in err and "jubex[dashboard]" in err
    assert not (tmp_path / "s").exists()  # said before any work
    assert (
        main(["site", "db:", "-o", str(tmp_path / "s"), "--no-charts", "--database", database]) == 0
    )
    assert not (tmp_path / "s/assets/bokeh.min.js").exists()
    assert 'id="chart"' not in next((tmp_path / "s/history").glob("*.html")).read_text()


def test_a_history_download_holds_every_run_as_its_listing_shows_it(tmp_path: Path) -> None:
    """The listing's columns, newest run first, each repetition at full precision (the
    page shows 6 digits), a value JSON cannot hold as its text."""
    runs = {
        1: RunInfo(1, 'r"1 <é>', "b", "s", "l", 1.0e9, {}, {}),
        2: RunInfo(2, "r2", "b", "s", "l", 1.0e9 + 86400, {}, {}),
    }
    series = Series("b", "s", "l", "bw", "MiB/s", True, {})
    series.entries = [
        Entry(1, 1.0e9, [1.5, float("inf")], None, None),
        Entry(2, 1.0e9 + 86400, [3, 0.1 + 0.2], 2.5, 1.0, 12.5, 0.001, mark="worse"),
    ]
    writer = SiteWriter.open(tmp_path / "site")
    _history_downloads(writer, Dashboard("db:", runs, [], [], {}, {}, []), series)
    stem = tmp_path / "site" / "data" / "history" / Path(series.page).stem
    columns = ["run", "date", "n", "mean", "std", "change %", "p adj", "change point", "values"]
    rows = [
        ["r2", "2001-09-10 01:46", 2, 2.5, 1.0, 12.5, 0.001, "worse", [3, 0.30000000000000004]],
        ['r"1 <é>', "2001-09-09 01:46", 2, None, None, None, None, "", [1.5, "inf"]],
    ]
    expected = [dict(zip(columns, row, strict=True)) for row in rows]
    written = stem.with_suffix(".json").read_text(encoding="utf-8")
    assert written == json.dumps(expected, separators=(",", ":"))  # the same text, byte for byte
    lines = stem.with_suffix(".csv").read_text(encoding="utf-8").splitlines()
    assert lines == [
        ",".join(columns),
        "r2,2001-09-10 01:46,2,2.5,1.0,12.5,0.001,worse,3 0.30000000000000004",
        '"r""1 <é>",2001-09-09 01:46,2,,,,,,1.5 inf',
    ]


def test_history_downloads_of_a_group_sharing_its_runs_texts_are_each_alone(
    tmp_path: Path,
) -> None:
    """What one series' download keeps of each run for the next (its label and date,
    encoded) changes neither download."""
    runs = {i: RunInfo(i, f'r"{i}', "b", "s", "l", 1.0e9 + i * 86400, {}, {}) for i in (1, 2)}
    site = Dashboard("db:", runs, [], [], {}, {}, [])
    made = []
    for metric in ("bw", "iops"):
        series = Series("b", "s", "l", metric, "MiB/s", True, {})
        series.entries = [
            Entry(i, runs[i].created, [1.5, i / 3], 2.0, 0.5, mark="up") for i in (1, 2)
        ]
        made.append(series)
    alone, together = SiteWriter.open(tmp_path / "alone"), SiteWriter.open(tmp_path / "together")
    kept: dict[int, RunStarts] = {}
    for series in made:
        _history_downloads(alone, site, series)
        _history_downloads(together, site, series, kept)
    assert set(kept) == {1, 2}
    for path in alone.made:
        assert (tmp_path / "alone" / path).read_bytes() == (
            tmp_path / "together" / path
        ).read_bytes()
    assert len(alone.made) == 4


def test_groups_made_in_parallel_make_the_site_made_in_one_process(
    database: str, tmp_path: Path
) -> None:
    """Two worker processes make the groups (each benchmark at each site): the site, its
    manifest and what it keeps of each group are the same bytes as one process makes, and
    so is a rebuild after new runs at one site."""
    shutil.copy(database, tmp_path / "results.sqlite")
    db = Database(str(tmp_path / "results.sqlite"))
    fill(db, template_of(db), runs=1010, series=3, metrics=3, reps=5, step_at=600)
    made = {}
    for jobs in (1, 2):
        root = tmp_path / f"jobs{jobs}"
        built = build.build("db:last=12", root, database=Database(db.name), jobs=jobs)
        assert built.written > 0
        made[jobs] = tree(root)
    assert len({k for k in made[1] if k.startswith("history/")}) > 6  # three groups at least
    assert made[1] == made[2]
    fill(db, template_of(db), runs=1012, series=3, metrics=3, reps=5, step_at=600)
    for jobs in (1, 2):
        build.build("db:last=12", tmp_path / f"jobs{jobs}", database=Database(db.name), jobs=jobs)
    assert tree(tmp_path / "jobs1") == tree(tmp_path / "jobs2")


def test_the_site_of_a_postgresql_database_is_the_site_of_the_same_runs_in_sqlite(
    new_postgres: str, tmp_path: Path
) -> None:
    """The same runs published into PostgreSQL (where each query may see its own snapshot)
    and into a SQLite file give the same site, file for file and byte for byte."""
    from jubex.resultsdb.publish import publish
    from jubex.store.rundir import open_run
    from tests.dashboard.conftest import DEFINITION

    (tmp_path / "sitestudy.yaml").write_text(DEFINITION)
    out = tmp_path / "runs"
    main(["run", str(tmp_path / "sitestudy.yaml"), "--outpath", str(out), "-q", "--no-result"])
    made = {}
    for url in (str(tmp_path / "results.sqlite"), new_postgres):
        db = Database(url)
        publish(db, open_run(out / "000000"))
        fill(db, template_of(db), runs=40, series=2, metrics=2, reps=3, step_at=25)
        assert main(["annotate", "site00", "2026-01-20", NOTE, "--database", url]) == 0
        root = tmp_path / f"site-{len(made)}"
        assert main(["site", "db:", "-o", str(root), "--database", url]) == 0
        made[url] = tree(root)
    sqlite, postgresql = made.values()
    assert len(sqlite) > 40 and postgresql == sqlite
