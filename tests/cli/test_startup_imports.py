"""A command imports the heavy libraries only where it uses them: SciPy, SQLAlchemy,
matplotlib and Jinja2 take 0.2-0.8 s each to import, more than the whole of a small
command. Checked structurally (which modules a real process holds at its end), not timed."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("scipy", "sqlalchemy", "alembic", "matplotlib", "jinja2", "rich")

#: run a jubex command in this process, then print which heavy libraries it imported
PROBE = """
import contextlib, io, json, sys
heavy = set(sys.argv.pop(1).split(','))
from jubex.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
held = {m.rsplit('.', k)[0] for m in sys.modules for k in range(m.count('.') + 1)}
print(json.dumps(sorted(held & heavy)))
"""

STUDY = """
name: tiny
parameters:
  n: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
steps:
  hello:
    do: echo "value $n"
    analyse: [values]
patterns:
  values:
    value: {regex: "value $jube_pat_int", type: int}
results:
  table:
    columns: [n, value]
"""


def _imported(*args: str, cwd: Path, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(heavy), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "JUBEX_RESULTS_DB": str(cwd / "results.sqlite")},
    )
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


def _ran_tiny(where: Path) -> None:
    """The tiny study written into ``where`` and run there."""
    (where / "tiny.yaml").write_text(STUDY)
    subprocess.run(
        [sys.executable, "-m", "jubex", "run", "tiny.yaml", "-q"],
        cwd=where,
        check=True,
        capture_output=True,
    )


def test_version_and_help_import_none_of_them(tmp_path: Path) -> None:
    assert _imported("--version", cwd=tmp_path) == []
    assert _imported("result", "--help", cwd=tmp_path) == []


def test_a_small_result_imports_none_of_them(tmp_path: Path) -> None:
    _ran_tiny(tmp_path)
    assert _imported("result", "last", "-f", "csv", cwd=tmp_path) == []
    assert _imported("status", "last", cwd=tmp_path) == []
    # a pretty table of one-column characters is drawn without rich's layout
    assert _imported("result", "last", "-f", "pretty", cwd=tmp_path) == []
    # nor does a table read without analysing import numpy, the analysers' entry points,
    # the comparison of runs, or what only making a run reads (its host, user and uid):
    # what a table does not use, it does not import
    unused = (*HEAVY, "numpy", "jubex.api", "jubex.results.comparison", "socket", "uuid")
    shown = _imported("result", "--no-analyse", "last", "-f", "pretty", cwd=tmp_path, heavy=unused)
    assert shown == []
    # nor the searches for outliers among repetitions, the writing of a table into SQLite
    # or CSV's writer, which a table of single values printed on the terminal needs not
    unused = (*SEARCHES, "jubex.results.delivery.database", "csv", "textwrap")
    shown = _imported("result", "--no-analyse", "last", "-f", "pretty", cwd=tmp_path, heavy=unused)
    assert shown == []
    # a run read back is resolved already, and a table of no expression evaluates none:
    # neither the planner, nor the checks of resolving, nor the expression language, nor
    # real Python's interpreter (its subprocesses), nor the hints of a misspelt name
    unused = (*READING_A_RUN, "difflib")
    shown = _imported("result", "--no-analyse", "last", "-f", "csv", cwd=tmp_path, heavy=unused)
    assert shown == []
    # a run analysed before has nothing to read again: its table asks one stat a
    # workpackage and imports neither the patterns nor the library that composes the stages
    unused = (*READING_A_RUN, "jubex.api", "jubex.analysis.harvest", "jubex.analysis.patterns")
    assert _imported("result", "last", "-f", "csv", cwd=tmp_path, heavy=unused) == []


#: the outlier searches over the repetitions of a point and their tables
SEARCHES = (
    "jubex.results.statistics.farthest",
    "jubex.results.statistics.sweep",
    "jubex.results.statistics.split_critical",
)
#: what reading a run and showing its table never needs
READING_A_RUN = (
    "jubex.space.plan",
    "jubex.space.expand",
    "jubex.space.sources",
    "jubex.definition.shell_names",
    "jubex.definition.tags",
    "jubex.language.expr",
    "jubex.language.template",
    "jubex.language.python",
    "subprocess",
)


def test_a_command_parser_holds_that_command_alone() -> None:
    """The command line of one command builds its parser alone (argparse's subparsers for
    every command were most of its share of start-up); the bare ``jubex`` lists them all."""
    from jubex.cli.main import COMMANDS, build_parser
    from jubex.cli.parser import subparser

    alone = build_parser("result", alone=True)
    assert subparser(alone, "result") is not None and subparser(alone, "run") is None
    every = build_parser("")
    assert all(subparser(every, name) is not None for name in COMMANDS)


def test_the_probe_sees_an_import(tmp_path: Path) -> None:
    """The check can fail: a question to the results database imports SQLAlchemy."""
    assert "sqlalchemy" in _imported("query", "value", "db:benchmark=tiny", cwd=tmp_path)


def test_version_is_answered_before_the_commands_are_imported(tmp_path: Path, capsys) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jubex", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "jubex.cli" not in done.stderr
    from jubex.cli.main import main

    with contextlib.suppress(SystemExit):
        main(["--version"])
    assert done.stdout == capsys.readouterr().out


def test_history_of_a_selector_imports_neither_sqlalchemy_nor_the_analysis(tmp_path: Path) -> None:
    """Named by a path or by a plain sqlite:/// URL, a SQLite file's history is read with
    SQLite's own driver; history's options need nothing of compare's analysing, and its
    rows, made of samples, nothing of the analysers that make a run directory's rows; a
    query of the samples needs neither numpy nor the comparison of runs."""
    (tmp_path / "tiny.yaml").write_text(STUDY)
    for argv in (["run", "tiny.yaml", "-q"], ["publish", "last"]):
        subprocess.run(
            [sys.executable, "-m", "jubex", *argv],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            env={**os.environ, "JUBEX_RESULTS_DB": str(tmp_path / "results.sqlite")},
        )
    analysers = ("jubex.analysis.harvest", "jubex.analysis.patterns", "jubex.analysis.run")
    unused = (*HEAVY, "jubex.api", "numpy.ma", *analysers, "jubex.analysis.builtin.darshan")
    unused += READING_A_RUN
    for where in (str(tmp_path / "results.sqlite"), f"sqlite:///{tmp_path}/results.sqlite"):
        argv = ("history", "db:benchmark=tiny", "-m", "value", "--database", where)
        assert _imported(*argv, cwd=tmp_path, heavy=unused) == []
    # the samples alone, listed: no history's arithmetic, no comparison
    listing = (*unused, "numpy", "jubex.results.comparison", "jubex.results.trends")
    argv = ("query", "value", "db:benchmark=tiny", "--database", where)
    assert _imported(*argv, cwd=tmp_path, heavy=listing) == []


def test_history_of_a_definition_renders_no_job_and_imports_no_jinja2(tmp_path: Path) -> None:
    """A history resolves its definition to find its runs, and renders no job script: the
    platform's templates are not compiled, and Jinja2 is not imported for them."""
    _ran_tiny(tmp_path)
    unused = ("jinja2", "jubex.platform.render")
    argv = ("history", "tiny.yaml", "-m", "value")
    assert _imported(*argv, cwd=tmp_path, heavy=unused) == []
    # the probe sees them where a job is rendered
    assert "jinja2" in _imported("run", "tiny.yaml", "--dry-run", cwd=tmp_path, heavy=unused)
