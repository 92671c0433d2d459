"""A size in a ``db:`` selector selects the runs whose parameter has that size however it
was written (``transfer=1MiB`` finds a study written with ``1m``), as filters compare sizes;
other values select as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.errors import UsageError
from jubex.language.values import parse_value, size_spellings
from jubex.resultsdb.connect import Database
from jubex.resultsdb.publish import publish
from jubex.resultsdb.select import open_selected
from jubex.store.rundir import open_run

SIZED = """
name: sized
parameters:
  transfer: [1m, 64k]
  api: POSIX
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    do: 'echo "bw: 1.5 MiB/s"'
    analyse: [bw]
results:
  bandwidth:
    group_by: [transfer]
    columns: [transfer, {name: bw, stats: [mean]}]
"""


@pytest.fixture(scope="module")
def sized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("sized")
    (home / "sized.yaml").write_text(SIZED)
    argv = ["run", str(home / "sized.yaml"), "--outpath", str(home / "runs"), "-q", "--no-result"]
    assert main(argv) == 0
    return home / "runs" / "000000"


@pytest.mark.parametrize("written", ["1MiB", "1m", "1M", "1024KiB", "1024k"])
def test_a_size_selects_the_run_written_with_another_unit(
    database: str, sized: Path, written: str
) -> None:
    db = Database(database)
    publish(db, open_run(sized))
    (run,) = open_selected(f"db:benchmark=sized,transfer={written}", db)
    assert run.benchmark.name == "sized"


@pytest.mark.parametrize("other", ["1MB", "2MiB", "1000k", "posix"])
def test_another_size_or_text_selects_nothing(database: str, sized: Path, other: str) -> None:
    db = Database(database)
    publish(db, open_run(sized))
    field = "api" if other == "posix" else "transfer"
    with pytest.raises(UsageError, match="selects no run"):
        open_selected(f"db:benchmark=sized,{field}={other}", db)


@pytest.mark.parametrize("text", ["1MiB", "64k", "3kB", "1.5m", "7", "POSIX", "1 GiB"])
def test_every_spelling_means_the_same_size(text: str) -> None:
    spellings = size_spellings(text)
    assert text in spellings
    meant = parse_value(text)
    assert all(parse_value(s) == meant for s in spellings), spellings
    sized = isinstance(meant, int) and not str(meant).isdigit()
    assert (len(spellings) > 1) == sized, spellings
