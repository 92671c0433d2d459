"""``jubex import-jube``: run directories JUBE 2.7.1 made (tests/data/jube_runs, see its
SOURCES.md) become jubex runs whose tables are JUBE's own ``jube result``."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data" / "jube_runs"
CASES = (
    "result_creation",
    "statistic",
    "iterations",
    "scripting_pattern",
    "io_study",
    "interrupted",
)


def jubex(cwd: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    return done


def jube_tables(text: str) -> list[list[list[str]]]:
    """The cells of each table ``jube result`` printed: pretty (``| a | b |``) or CSV."""
    tables = []
    for block in text.strip("\n").split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if lines and lines[0].endswith(":") and "|" not in lines[0]:
            lines = lines[1:]  # a pretty table's name
        if lines and lines[0].startswith("|"):
            rows = [
                [cell.strip() for cell in line.strip().strip("|").split("|")]
                for line in lines
                if not set(line) <= set("|-")
            ]
        else:
            rows = list(csv.reader(io.StringIO("\n".join(lines))))
        tables.append(rows)
    return tables


def jubex_tables(text: str) -> list[list[list[str]]]:
    """The cells of each table of ``jubex result -f csv`` (its notes left out)."""
    return [
        list(csv.reader(io.StringIO("\n".join(x for x in block.splitlines() if x[:2] != "# "))))
        for block in text.strip("\n").split("\n\n")
    ]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each case imported once, as runs 000000 ... in the order of CASES."""
    home = tmp_path_factory.mktemp("imported")
    for case in CASES:
        said = jubex(home, "import-jube", str(DATA / case / "bench_run" / "000000"))
        (home / f"{case}.said").write_text(said.stdout + said.stderr)
    return home


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("style", ["txt", "csv"])
def test_result_of_an_imported_run_is_jubes_result(imported: Path, case: str, style: str) -> None:
    run = f"runs/{CASES.index(case):06d}"
    ours = jubex(imported, "result", run, "-f", "csv", "--include-failed").stdout
    theirs = jube_tables((DATA / case / f"jube-result.{style}").read_text())
    mine = jubex_tables(ours)
    if case == "iterations":  # which analyser's rows come first is JUBE's hash order
        for table in (mine, theirs):
            table[0][1:] = sorted(table[0][1:], key=lambda row: row[0])
    assert mine == theirs


@pytest.mark.parametrize("case", CASES)
def test_the_tables_jube_wrote_are_kept_and_equal_jubexs(imported: Path, case: str) -> None:
    """result/*.dat (here the CSV of JUBE's last ``jube result -s csv``) are checked."""
    said = (imported / f"{case}.said").read_text()
    dats = sorted((DATA / case / "bench_run" / "000000" / "result").glob("*.dat"))
    left_out = FAILED_ROWS.get(case, {})
    assert dats and ("warning" in said) == bool(left_out)
    kept = imported / "runs" / f"{CASES.index(case):06d}" / "jube-result"
    for dat in dats:
        if dat.name in left_out:
            assert (
                f"result/{dat.name} differs from jubex's table {dat.stem}: JUBE's row(s) "
                f"{left_out[dat.name]} are of workpackages that failed or did not finish"
            ) in said
        else:
            assert f"result/{dat.name}: equal to jubex's table {dat.stem}" in said
        assert (kept / dat.name).read_bytes() == dat.read_bytes()


#: the rows of failed or unfinished workpackages JUBE's tables show (jubex's leave them out)
FAILED_ROWS = {"interrupted": {"bw.dat": "(3,3.5), (4,)"}, "io_study": {"ior.dat": "(16m,4)"}}


def test_a_jube_runs_table_shows_its_numbers_as_jube_printed_them(imported: Path) -> None:
    """An unformatted column: JUBE printed 2001.5; a rounded 2002 would be another number."""
    shown = jubex(imported, "result", f"runs/{CASES.index('io_study'):06d}", "-T", "ior").stdout
    assert "2001.5" in shown and "2002 " not in shown


def test_a_pretty_table_jube_wrote_is_read_too(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "statistic")  # JUBE's pretty table, as jube result printed it
    (run / "result" / "result.dat").write_text((DATA / "statistic" / "jube-result.txt").read_text())
    said = jubex(tmp_path, "import-jube", str(run)).stdout
    assert "result/result.dat: equal to jubex's table result" in said


def test_an_aligned_table_jube_wrote_is_read_too(tmp_path: Path) -> None:
    run = copy_run(tmp_path)  # JUBE's jube result -s aligned of this run: cells padded
    ior, mdtest = (DATA / "io_study" / "jube-result-aligned.txt").read_text().split("\n\n")[:2]
    (run / "result" / "ior.dat").write_text(ior + "\n")
    (run / "result" / "mdtest.dat").write_text(mdtest + "\n")
    done = jubex(tmp_path, "import-jube", str(run))
    assert "result/ior.dat differs from jubex's table ior: JUBE's row(s) (16m,4)" in done.stderr
    assert "result/mdtest.dat: equal to jubex's table mdtest" in done.stdout


def test_a_table_jube_wrote_that_differs_is_said_at_import_and_by_result(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    edit(run / "result" / "ior.dat", "4m,4,7,5000.50", "4m,4,7,5000.75")
    edit(run / "result" / "mdtest.dat", "transfer,tasks,files,", "transfer,tasks,nfiles,")
    done = jubex(tmp_path, "import-jube", str(run))
    assert (
        "warning: JUBE's result/ior.dat differs from jubex's table ior: row 6 (4m,4), "
        "write_bw_avg[MiB/s]: JUBE '5000.75', jubex '5000.50'" in done.stderr
    )
    assert (
        "result/mdtest.dat differs from jubex's table mdtest: columns "
        "transfer,tasks,nfiles,create_rate[ops/s],stat[ops/s] in JUBE's, "
        "transfer,tasks,files,create_rate[ops/s],stat[ops/s] in jubex's" in done.stderr
    )
    notes = jubex(tmp_path, "result", "-T", "ior", "-f", "csv").stderr
    assert "# ior: JUBE's result/ior.dat differs from jubex's table ior" in notes
    kept = tmp_path / "runs" / "000000" / "jube-result" / "ior.dat"
    assert "5000.75" in kept.read_text()  # JUBE's file as it was, to be read


def test_a_run_jube_has_not_analysed_keeps_the_tables_jube_wrote(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    (run / "analyse.xml").unlink()
    said = jubex(tmp_path, "import-jube", str(run)).stdout
    assert "result/ior.dat: holds the table jube result showed; jubex's is empty" in said
    shown = jubex(tmp_path, "result", "-T", "ior").stdout
    assert "empty: the JUBE run was imported with no analysed values (no analyse.xml)" in shown
    assert "(its copy: runs/000000/jube-result)" in shown


def test_tables_jube_wrote_that_are_no_tables_are_not_compared(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "result_creation")
    (run / "result" / "result.dat").unlink()
    with sqlite3.connect(run / "result" / "result.dat") as db:  # a <database> result's file
        db.execute("CREATE TABLE result (number INT)")
    db.close()
    (run / "result" / "other.dat").write_text("a,b\n1,2\n")
    (run / "result" / "link.dat").symlink_to("/etc/passwd")
    done = jubex(tmp_path, "import-jube", str(run))
    assert "result/result.dat: a <database> table, kept as JUBE wrote it" in done.stdout
    assert "result/other.dat: configuration.xml has no table of its name" in done.stdout
    assert "warning: JUBE's result/link.dat is not a plain file: not kept" in done.stderr
    assert not (tmp_path / "runs" / "000000" / "jube-result" / "link.dat").exists()


def test_states_of_done_failed_and_unfinished_workpackages(imported: Path) -> None:
    run = f"runs/{CASES.index('io_study'):06d}"
    status = jubex(imported, "status", run, code=1).stdout
    assert "archive: 20 unfinished" in status  # a done_file never made
    assert "ior: 10 done, 2 failed" in status and "mdtest: 20 done" in status
    assert "ior: out of space" in status  # JUBE's error file is the reason
    assert "2 failed, 1 cause(s):" in status  # JUBE's messages differ only in the directory
    assert (
        "outputs not imported (they were in /tmp/jube-scratch/io_study/bench_run/000000/"
        "000010_ior/work)" in status
    )
    states = json.loads(jubex(imported, "status", run, "-f", "json", code=1).stdout)["steps"]
    assert states == {
        "archive": {"submitted": 20},
        "ior": {"done": 10, "failed": 2},
        "mdtest": {"done": 20},
    }
    shown = jubex(imported, "result", run, "-T", "ior", "-f", "csv")
    table = shown.stdout  # the table alone; its notes on standard error
    assert "16m,4," not in table and "# ior: 1 failed workpackage(s) left out" in shown.stderr
    assert "16m,2,8,3100.00,2001.5,0.7,2" in table


def test_a_run_jube_was_killed_in_is_imported_unfinished(imported: Path) -> None:
    """JUBE killed while its third workpackage ran: two done, one started and not done,
    one never started; JUBE's table shows all four (the third's output, the fourth empty)."""
    run = f"runs/{CASES.index('interrupted'):06d}"
    said = (imported / "interrupted.said").read_text()
    assert "(2 done, 1 unfinished, 1 not started)" in said
    status = jubex(imported, "status", run).stdout
    assert "write: 1 not started, 1 unfinished, 2 done" in status
    assert "analysers found nothing" not in status  # not finished: not a finding
    shown = jubex(imported, "result", run, "-f", "csv")
    assert shown.stdout == "n,bw[MiB/s]\n1,1.5\n2,2.5\n"
    assert "# bw: 2 unfinished workpackage(s) left out" in shown.stderr
    every = jubex(imported, "result", run, "-f", "csv", "--include-failed")
    assert every.stdout == "n,bw[MiB/s]\n1,1.5\n2,2.5\n3,3.5\n4,\n"
    assert "# bw: 2 unfinished workpackage(s) included" in every.stderr


def test_an_imported_run_is_compared_published_reported_and_has_a_history(
    imported: Path, tmp_path: Path
) -> None:
    """Two imports of JUBE's run, the second's write bandwidth of one point halved in its
    analyse.xml: compare, history, report and publish read both as JUBE stored them."""
    slower = tmp_path / "bench_run"
    shutil.copytree(DATA / "io_study" / "bench_run", slower)
    edit(
        slower / "000000" / "analyse.xml",
        '<pattern name="write_bw_avg" type="float">1000.5</pattern>',
        '<pattern name="write_bw_avg" type="float">500.25</pattern>',
    )
    again = jubex(imported, "import-jube", str(slower), "--outpath", "more").stdout
    assert again.startswith("imported ") and "30 done, 2 failed, 20 unfinished" in again
    twice = jubex(imported, "import-jube", str(slower), "--outpath", "more").stdout
    assert "already imported as run 000000" in twice
    first = f"runs/{CASES.index('io_study'):06d}"
    compared = json.loads(
        jubex(imported, "compare", first, "more/000000", "-f", "json", code=4).stdout
    )
    rows = compared["rows"]
    halved = [r for r in rows if r["metric"] == "write_bw_avg" and r["transfer"] == "1m"]
    assert [(r["tasks"], r["change"]) for r in halved] == [(2, -50.0), (4, 0.0)]
    # JUBE kept the statistics, not the samples: one value a point, so the loss cannot be
    # told from noise, and the comparison is inconclusive (exit 4), not failed
    assert halved[0]["verdict"] == "inconclusive" and compared["verdict"] == "inconclusive"
    history = jubex(imported, "history", first, "more/000000", "-m", "write_bw_avg").stdout
    assert "2026-11-26 23:04" in history  # when JUBE started the run, from its timestamps
    assert "-50.0" in history
    jubex(imported, "report", first, "more/000000", "-o", "report.html")
    html = (imported / "report.html").read_text()
    assert "write_bw_avg" in html and "/tmp/jube-scratch/io_study/bench_run/000000" in html
    database = imported / "r.sqlite"
    for run in (first, "more/000000"):
        assert "published" in jubex(imported, "publish", run, "--database", str(database)).stdout
    with sqlite3.connect(database) as db:
        runs = db.execute("SELECT platform, scheduler, host, imported_from FROM runs").fetchall()
        means = db.execute(
            "SELECT s.value FROM samples s JOIN points p ON s.point = p.id "
            "JOIN parameters a ON a.point = p.id "
            "WHERE s.metric = 'write_bw_avg' AND a.name = 'transfer' AND a.value = '1m' "
            "ORDER BY p.run, s.value"
        ).fetchall()
    assert [r[:3] for r in runs] == [("jube", "", "")] * 2  # not this machine's platform
    assert runs[1][3] == str((slower / "000000").resolve())
    assert [m for (m,) in means] == [1000.5, 2001.0, 500.25, 2001.0]
    refused = jubex(imported, "analyse", first, code=2).stderr
    assert "imported without its outputs" in refused
    cancelled = jubex(imported, "cancel", first, code=1).stderr
    assert "its jobs ran elsewhere" in cancelled and "not cancelled" in cancelled


def test_an_imported_run_says_where_jube_ran_it_and_never_names_this_machine(
    imported: Path,
) -> None:
    io_study = jubex(imported, "info", f"runs/{CASES.index('io_study'):06d}").stdout
    assert "platform: not recorded (a run JUBE 2.7.1 made; JUBE records no platform)" in io_study
    # no run.log kept: the directory is the one JUBE's error file names
    assert (
        "ran in: /tmp/jube-scratch/io_study/bench_run/000000 (JUBE's 000010_ior/error)" in io_study
    )
    assert "host, user: not recorded by JUBE" in io_study
    assert "command: jube run io_study.xml (JUBE's parse.log)" in io_study
    assert "created: 2026-11-26 23:04:55" in io_study  # JUBE's timestamps
    assert "platform: local" not in io_study and f"host: {socket.gethostname()}" not in io_study
    assert f"on {socket.gethostname()} by" in io_study  # where it was imported, said as such
    statistic = jubex(imported, "info", f"runs/{CASES.index('statistic'):06d}").stdout
    # run.log wraps the directory over two rows of its table ("/tmp/jube-", "scratch/...")
    assert "ran in: /tmp/jube-scratch/statistic/bench_run/000000 (JUBE's run.log)" in statistic
    status = jubex(imported, "status", f"runs/{CASES.index('statistic'):06d}").stdout
    assert "(reduce_example, a JUBE 2.7.1 run imported from " in status


def test_the_site_a_jube_run_ran_at_is_said_at_import(tmp_path: Path) -> None:
    run = str(DATA / "statistic" / "bench_run" / "000000")
    bad = jubex(tmp_path, "import-jube", run, "--site", "../x", code=2).stderr
    assert "--site '../x': expected a system's name" in bad and not (tmp_path / "runs").exists()
    jubex(tmp_path, "import-jube", run, "--site", "jureca")
    said = jubex(tmp_path, "info").stdout
    assert "site: jureca (given at import; JUBE does not record it)" in said
    jubex(tmp_path, "publish", "runs/000000", "--database", str(tmp_path / "r.sqlite"))
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        assert db.execute("SELECT platform, site FROM runs").fetchall() == [("jube", "jureca")]
    table = jubex(tmp_path, "result", "-f", "csv", "--pivot", "site").stdout
    assert "jureca" in table


def test_an_imported_run_without_logs_or_timestamps_leaves_them_unknown(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "statistic")
    for name in ("run.log", "parse.log", "timestamps"):
        (run / name).unlink()
    jubex(tmp_path, "import-jube", str(run))
    said = jubex(tmp_path, "info").stdout
    assert "ran in: not recorded" in said and "command:" not in said


def test_the_tags_jube_ran_with_are_kept(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "result_creation")
    edit(run / "configuration.xml", "<benchmark", "<selection><tag>eng</tag></selection><benchmark")
    jubex(tmp_path, "import-jube", str(run))
    assert json.loads((tmp_path / "runs" / "000000" / "run.json").read_text())["tags"] == ["eng"]


def test_no_code_of_the_jube_run_runs(tmp_path: Path) -> None:
    """Python and shell parameters and patterns are JUBE's record, not run again: not by
    the import, nor by any command reading the imported run."""
    run = tmp_path / "jube" / "000000"
    shutil.copytree(DATA / "scripting_pattern" / "bench_run" / "000000", run)
    config = run / "configuration.xml"
    config.write_text(
        config.read_text()
        .replace(
            "</patternset>",
            '<pattern name="evil" mode="shell">touch PWNED_SHELL</pattern>'
            '<pattern name="evil2" mode="python">__import__("os").system("touch PWNED_PY")'
            "</pattern></patternset>",
        )
        .replace(
            "</parameterset>",
            '<parameter name="evil3" mode="python">__import__("os").system("touch PWNED_PARAM")'
            '</parameter><parameter name="evil4" mode="shell">touch PWNED_SH_PARAM</parameter>'
            "</parameterset>",
            1,
        )
    )
    jubex(tmp_path, "import-jube", str(run))
    jubex(tmp_path, "import-jube", str(run), "--again")
    for command in (
        ("result",),
        ("result", "-f", "csv", "--include-failed"),
        ("info", "-p"),
        ("status",),
        ("report", "-o", "r.html"),
        ("compare", "runs/000000", "runs/000001"),
        ("history", "runs/000000", "runs/000001"),
        ("publish", "runs/000000", "--database", str(tmp_path / "r.sqlite")),
    ):
        jubex(tmp_path, *command)
    assert "imported without its outputs" in jubex(tmp_path, "analyse", code=2).stderr
    assert not list(tmp_path.rglob("PWNED*")) and not list(Path.cwd().glob("PWNED*"))


def copy_run(tmp_path: Path, case: str = "io_study") -> Path:
    run = tmp_path / "jube" / "000000"
    shutil.copytree(DATA / case / "bench_run" / "000000", run, symlinks=True)
    return run


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


HOSTILE = {
    "truncated workpackages.xml": (
        lambda run: (run / "workpackages.xml").write_text("<workpackages>\n<workpackage id='0'>"),
        "workpackages.xml:2",
    ),
    "entity expansion": (
        lambda run: (run / "analyse.xml").write_text(
            '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "xxxxxxxxxx">'
            '<!ENTITY y "&x;&x;&x;&x;&x;&x;&x;&x;">]><analyse>&y;</analyse>'
        ),
        "entity declarations is refused",
    ),
    "no configuration.xml": (
        lambda run: (run / "configuration.xml").unlink(),
        "(no configuration.xml)",
    ),
    "a step name leaving the run": (
        lambda run: edit(run / "workpackages.xml", ">ior</step>", ">../../x</step>"),
        "a step name that is one plain name, not '../../x'",
    ),
    "an id that is no number": (
        lambda run: edit(run / "workpackages.xml", 'id="3"', 'id="3; rm"'),
        "the attribute id as a whole number",
    ),
    "an unknown parent": (
        lambda run: edit(
            run / "workpackages.xml", "<parents>0</parents>", "<parents>999</parents>"
        ),
        "names the parent 999",
    ),
    "a workpackage its own parent": (
        lambda run: edit(run / "workpackages.xml", "<parents>0</parents>", "<parents>12</parents>"),
        "workpackage 12 depends on itself",
    ),
    "a value that is not of its type": (
        lambda run: edit(
            run / "workpackages.xml", 'idx="0">2</selection>', 'idx="0">two</selection>'
        ),
        "the parameter 'tasks' holds 'two'",
    ),
    "an analysed workpackage that does not exist": (
        lambda run: edit(run / "analyse.xml", '<workpackage id="', '<workpackage id="77" x="'),
        "(id 77 is not one)",
    ),
    "a pattern value that is no number": (
        lambda run: edit(run / "analyse.xml", 'type="float">', 'type="float">fast'),
        "a number of type float, not 'fast",
    ),
    "a configuration reading another file": (
        lambda run: edit(
            run / "configuration.xml",
            "<comment>",
            '<include from="/etc/passwd" path="x"/><comment>',
        ),
        "<include> reads another file",
    ),
    "an analyser the configuration lacks": (
        lambda run: edit(run / "analyse.xml", 'name="ior_analyser"', 'name="other"'),
        "names the analyser 'other'",
    ),
    "a truncated analyse.xml": (
        lambda run: (run / "analyse.xml").write_text((run / "analyse.xml").read_text()[:3000]),
        "analyse.xml:51",
    ),
    "a huge workpackages.xml": (
        lambda run: os.truncate(run / "workpackages.xml", 65 * 1024 * 1024),  # sparse
        "more than the 67,108,864 read of one file of a JUBE run",
    ),
    "a workpackage's directory linked elsewhere": (
        lambda run: (
            shutil.rmtree(run / "000010_ior"),
            (run / "000010_ior").symlink_to(run.parent.parent),
        ),
        "000010_ior' is a link; a workpackage's directory is a directory",
    ),
    "not a JUBE run": (
        lambda run: [p.unlink() for p in run.glob("*.xml")],
        "is neither a JUBE run directory (no configuration.xml) nor a benchmark's outpath",
    ),
    "a linked workpackages.xml": (
        lambda run: (
            (run / "workpackages.xml").unlink(),
            (run / "workpackages.xml").symlink_to("/etc/hostname"),
        ),
        "is not a plain file",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_jube_run_is_refused_in_one_paragraph_and_nothing_is_written(
    tmp_path: Path, case: str
) -> None:
    run = copy_run(tmp_path)
    spoil, said = HOSTILE[case]
    spoil(run)
    done = jubex(tmp_path, "import-jube", str(run), code=2)
    assert said in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_an_outpath_of_several_runs_and_ids(tmp_path: Path) -> None:
    outpath = tmp_path / "bench_run"
    shutil.copytree(DATA / "result_creation" / "bench_run" / "000000", outpath / "000000")
    shutil.copytree(DATA / "statistic" / "bench_run" / "000000", outpath / "000003")
    one = jubex(tmp_path, "import-jube", str(outpath), "-i", "3").stdout
    assert "000003 as runs/000000" in one
    every = jubex(tmp_path, "import-jube", str(outpath)).stdout
    assert "000000 as runs/000001" in every and "already imported as run 000000" in every
    missing = jubex(tmp_path, "import-jube", str(outpath), "-i", "7", code=2).stderr
    assert "holds no run of id '7' (it holds 0, 3)" in missing


def test_a_refused_run_of_an_outpath_is_said_and_the_others_imported(tmp_path: Path) -> None:
    outpath = tmp_path / "bench_run"
    for i, case in enumerate(("result_creation", "io_study", "statistic")):
        shutil.copytree(DATA / case / "bench_run" / "000000", outpath / f"{i:06d}")
    edit(outpath / "000001" / "workpackages.xml", 'id="3"', 'id="x"')
    done = jubex(tmp_path, "import-jube", str(outpath), code=2)
    assert "000000 as runs/000000" in done.stdout and "000002 as runs/000001" in done.stdout
    assert "000001/workpackages.xml:" in done.stderr
    assert "the attribute id as a whole number" in done.stderr
    assert done.stderr.endswith("1 of 3 JUBE runs refused (above)\n")
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["000000", "000001"]


def test_a_run_jube_has_not_analysed_says_so(tmp_path: Path) -> None:
    run = copy_run(tmp_path, "result_creation")
    (run / "analyse.xml").unlink()
    said = jubex(tmp_path, "import-jube", str(run)).stdout
    assert "holds no analyse.xml: JUBE has not analysed this run" in said
    assert "empty" in jubex(tmp_path, "result", "-f", "csv").stderr


def test_a_workpackage_jube_never_started_is_planned(tmp_path: Path) -> None:
    run = copy_run(tmp_path)
    shutil.rmtree(run / "000032_archive")
    said = jubex(tmp_path, "import-jube", str(run)).stdout
    assert "(30 done, 2 failed, 19 unfinished, 1 not started)" in said
