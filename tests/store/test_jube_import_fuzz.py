"""Damaged JUBE run directories: whatever the bytes of its XML files, ``import_jube``
imports the run or refuses it with jubex's error, writing nothing then."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import JubexError
from jubex.store.jube_import import import_jube

DATA = Path(__file__).parent.parent / "data" / "jube_runs" / "io_study" / "bench_run" / "000000"
FILES = ("workpackages.xml", "analyse.xml", "configuration.xml")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(FILES),
    at=st.floats(0, 1),
    cut=st.integers(0, 40),
    insert=st.text(alphabet='<>/"=&;! abc0123.-_\n', max_size=20),
)
def test_a_damaged_file_imports_or_is_refused(
    tmp_path_factory, name: str, at: float, cut: int, insert: str
) -> None:
    home = tmp_path_factory.mktemp("fuzz")
    run = home / "jube" / "000000"
    shutil.copytree(DATA, run)
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
