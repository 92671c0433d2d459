"""Every reading command gives the same numbers from ``db:`` as from the run directories.

The shipped starters (``jubex init``) and the quickstart that run cheaply here are run
twice each; both runs are published, and each command's output from the database is set
against its output from the directories: JSON against JSON (``result``, ``compare``,
``history``), the plot's SVG and the report's page byte for byte, a bundle exported from
the database imported and tabulated, and ``query``'s samples against every sample the
directories' rows give.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.results.samples.rows import samples_of
from jubex.results.tables.tabulate import rows_of
from jubex.resultsdb.connect import Database
from jubex.resultsdb.select import open_selected
from jubex.store.rundir import open_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: (source, its overrides that keep it cheap, a metric, a parameter to plot it by)
SHIPPED = {
    "generic": ("starter", ["-p", "lines=1000,20000"], "time", "lines"),
    "fio": ("starter", ["-p", "size=2m", "-p", "bs=64k,1m"], "write_bw", "bs"),
    "ior": (
        "starter",
        ["-p", "block=2m", "-p", "options=-t $transfer -b $block -F -e -C -w -r -o ior.dat -i 3"],
        "write_bw",
        "transfer",
    ),
    "mdtest": ("starter", ["-p", "files=20,40"], "file_creation_mean", "files"),
    "quickstart": ("example", ["-p", "block=2MiB", "-p", "items=40"], "write_bw", "transfer"),
}


@pytest.fixture(scope="module", params=sorted(SHIPPED))
def shipped(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Two runs of a shipped definition: its name, the runs, a metric and a parameter."""
    name = request.param
    kind, overrides, metric, axis = SHIPPED[name]
    folder = tmp_path_factory.mktemp(name)
    if kind == "starter":
        definition = folder / f"{name}.yaml"
        assert main(["init", name, "-o", str(definition)]) == 0
    else:
        definition = EXAMPLES / f"{name}.yaml"
    out = folder / "runs"
    for _ in range(2):
        argv = ["run", str(definition), "--outpath", str(out), "-q", "--no-result"]
        assert main([*argv, *overrides]) == 0
    benchmark = open_run(out / "000000").meta["name"]
    return benchmark, [out / "000000", out / "000001"], metric, axis


#: the provenance row of a run read from the database: where it was published from
IMPORTED = r"<tr><td>store\.imported_from</td><td>a results database [^<]*</td></tr>\n?"


def _drawn(drawing: Path | str) -> str:
    """An SVG or a page without what changes from one drawing to the next: the ids
    matplotlib makes up (clip paths, markers) and the moment it was made."""
    text = drawing.read_text() if isinstance(drawing, Path) else drawing
    return re.sub(r"\b[pm][0-9a-f]{10}\b|\d\d:\d\d:\d\d UTC", "", text)


def documents(text: str) -> list[object]:
    """The JSON documents of an output, one a table."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        document, at = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        found.append(document)
    return found


def output(capsys, *argv: str) -> str:
    status = main(list(argv))
    captured = capsys.readouterr()
    assert status in (0, 1, 4), captured.err  # 4: a comparison inconclusive
    return captured.out


def test_every_command_reads_the_database_as_it_reads_the_directories(
    database, shipped, tmp_path, capsys
):
    benchmark, runs, metric, axis = shipped
    dirs = [str(run) for run in runs]
    db = ["--database", database]
    output(capsys, "publish", *dirs, *db)
    both = f"db:benchmark={benchmark}"
    first, second = (f"db:benchmark={benchmark},id={run.name}" for run in runs)

    opened = open_selected(both, Database(database))
    where = {str(run.dir): str(made) for run, made in zip(opened, runs, strict=True)}

    def named_as_made(text: str) -> str:
        """A published run is opened from the cache: its notes name it there."""
        for cached, made in where.items():
            text = text.replace(cached, made)
        return text

    def same(command: list[str], from_dirs: list[str], from_db: list[str]) -> None:
        expected = documents(output(capsys, *command, *from_dirs, "-f", "json"))
        found = output(capsys, *command, *from_db, *db, "-f", "json")
        assert documents(named_as_made(found)) == expected, command

    same(["result"], dirs, [both])
    same(["compare", "-m", metric], dirs, [first, second])
    same(["history", "-m", metric], dirs, [both])  # from the samples alone
    same(["history", "-m", metric], dirs, [first, second])  # from the stored runs

    plots = tmp_path / "dirs.svg", tmp_path / "db.svg"
    output(capsys, "plot", *dirs, "-x", axis, "-y", metric, "-o", str(plots[0]))
    output(capsys, "plot", both, *db, "-x", axis, "-y", metric, "-o", str(plots[1]))
    assert _drawn(plots[0]) == _drawn(plots[1])

    pages = tmp_path / "dirs.html", tmp_path / "db.html"
    output(capsys, "report", *dirs, "-o", str(pages[0]))
    output(capsys, "report", both, *db, "-o", str(pages[1]))
    published = re.sub(IMPORTED, "", named_as_made(pages[1].read_text()))
    assert _drawn(published) == _drawn(pages[0].read_text())

    bundle = tmp_path / "bundle.tar.gz"
    output(capsys, "export", both, *db, "-o", str(bundle))
    output(capsys, "import", str(bundle), "--outpath", str(tmp_path / "imported"))
    imported = [str(tmp_path / "imported" / run.name) for run in runs]
    same(["result"], dirs, [*imported, "--no-analyse"])

    rows = json.loads(output(capsys, "query", metric, both, *db, "-f", "json"))["rows"]
    expected = [
        value
        for run in runs
        for row in rows_of([open_run(run)], per_iteration=True)
        for value in samples_of(row, metric)
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]
    assert len(rows) == len(expected)
    assert sorted(row[metric] for row in rows) == sorted(expected)
