"""Damaged JUBE run directories: whatever the bytes of its XML files, ``import_jube``
imports the run or refuses it with jubex's error, writing nothing then; whatever the
bytes of a table JUBE wrote, the check of it says equal or differs, never fails."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import JubexError
from jubex.results.tables.jube_tables import check_jube_tables, jube_cells
from jubex.store.jube_import import import_jube
from jubex.store.rundir import Run

RUNS = Path(__file__).parent.parent / "data" / "jube_runs"
#: every run directory JUBE made for the tests
CASES = sorted(p.parents[2].name for p in RUNS.glob("*/bench_run/000000/configuration.xml"))
DATA = RUNS / "io_study" / "bench_run" / "000000"
FILES = ("workpackages.xml", "analyse.xml", "configuration.xml")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=st.sampled_from(CASES),
    name=st.sampled_from(FILES),
    at=st.floats(0, 1),
    cut=st.integers(0, 40),
    insert=st.text(alphabet='<>/"=&;! abc0123.-_\n', max_size=20),
)
def test_a_damaged_file_imports_or_is_refused(
    tmp_path_factory, case: str, name: str, at: float, cut: int, insert: str
) -> None:
    home = tmp_path_factory.mktemp("fuzz")
    run = home / "jube" / "000000"
    shutil.copytree(RUNS / case / "bench_run" / "000000", run)
    data = (run / name).read_text()
    where = int(at * len(data))
    (run / name).write_text(data[:where] + insert + data[where + cut :])
    try:
        made = import_jube(run, home / "runs")
    except JubexError as exc:
        assert str(exc).startswith(f"{run}") or "error:" in str(exc)
        assert not (home / "runs").exists() or not list((home / "runs").iterdir())
    else:
        made.store.close()


@pytest.fixture(scope="module")
def imported_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    home = tmp_path_factory.mktemp("tables")
    shutil.copytree(DATA, home / "jube" / "000000")
    return import_jube(home / "jube" / "000000", home / "runs")


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    at=st.floats(0, 1),
    cut=st.integers(0, 20),
    insert=st.text(alphabet="|,-:. 0123456789m\n\r\t", max_size=12),
)
def test_a_damaged_table_jube_wrote_is_equal_or_said_to_differ(
    imported_run: Run, tmp_path: Path, at: float, cut: int, insert: str
) -> None:
    """JUBE's result/ior.dat, cut and added to: the check says equal or where it differs,
    whatever the bytes, and says of a file with JUBE's cells what it says of JUBE's own."""
    data = (DATA / "result" / "ior.dat").read_text()
    where = int(at * len(data))
    spoiled = data[:where] + insert + data[where + cut :]
    folder = tmp_path / "jube-result"
    folder.mkdir(exist_ok=True)
    (folder / "ior.dat").write_text(spoiled)
    (checked,) = check_jube_tables(imported_run, folder)
    assert checked.verdict in ("equal", "differs")
    (folder / "ior.dat").write_text(data)
    (unchanged,) = check_jube_tables(imported_run, folder)
    # JUBE's table shows a row of a failed workpackage, which jubex's leaves out: even the
    # unchanged file differs, and says where; a damaged one is never more equal than that
    assert unchanged.verdict == "differs" and "(16m,4)" in unchanged.said
    if jube_cells(spoiled, ",") == jube_cells(data, ",") or _reordered(spoiled, data):
        assert (checked.verdict, checked.said) == (unchanged.verdict, unchanged.said)
    else:
        assert checked.verdict == "differs", checked.said


def _reordered(spoiled: str, data: str) -> bool:
    mine, theirs = jube_cells(spoiled, ","), jube_cells(data, ",")
    return mine[:1] == theirs[:1] and sorted(mine[1:]) == sorted(theirs[1:])
