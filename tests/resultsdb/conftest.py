"""A results database of each back end, fresh for each test, and real runs to publish."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.store.rundir import STORE, open_run
from jubex.store.store import Store

#: a study whose numbers are known: repetition i of a point writes ``level * (1 + i / 100)``
DEFINITION = r"""
name: dbstudy
parameters:
  point: [a, b]
  level: 1000
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
    t: {regex: '^t: $jube_pat_fp s', type: float, unit: s, better: lower}
steps:
  run:
    iterations: 5
    do: 'echo bw: ${level * (1 + jube_wp_iteration / 100)} MiB/s; echo t: 2 s'
    analyse: [bw]
results:
  bandwidth:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean]}, {name: t, stats: [mean]}]
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty results database: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "results.sqlite")
        return
    yield request.getfixturevalue("new_postgres")


@pytest.fixture(scope="session")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The definition file of :data:`DEFINITION`."""
    path = tmp_path_factory.mktemp("study") / "dbstudy.yaml"
    path.write_text(DEFINITION)
    return path


@pytest.fixture(scope="session")
def made(study: Path) -> Path:
    """Two real runs of the study (level 1000, then 500), analysed: their outpath."""
    out = study.parent / "runs"
    for level in ("1000", "500"):
        argv = ["run", str(study), "--outpath", str(out), "-q", "--no-result"]
        main([*argv, "-p", f"level={level}"])
    return out


@pytest.fixture
def copies() -> Callable[[Path, int, Path], list[Path]]:
    """A maker of copies of a run, each a run of its own."""
    return _copies


def _copies(run_dir: Path, count: int, where: Path) -> list[Path]:
    """``count`` copies of a run, each a run of its own (its own uid and time)."""
    made = []
    created = float(open_run(run_dir).meta["created"])
    for number in range(count):
        target = where / f"{number:06d}"
        shutil.copytree(run_dir, target)
        store = Store(target / STORE)
        store.set_meta({"uid": uuid.uuid4().hex[:8], "created": f"{created + number:.3f}"})
        store.close()
        made.append(target)
    return made


#: a study whose program repeats its measurement: each execution prints a real output of
#: ``ior -i 5`` (tests/data/outputs/ior/clio_i5), three executions of one point
IOR_STUDY = r"""
name: iorrep
parameters:
  data: {DATA}
  first: 0
steps:
  run:
    iterations: 3
    do: cat $data/fpp_run${(jube_wp_iteration + first) % 5 + 1}.txt
    analyse: [ior]
results:
  bandwidth:
    columns: [{name: write_bw, stats: [n, mean, std]}, {name: read_bw, stats: [n, mean]}]
"""
OUTPUTS = Path(__file__).resolve().parents[1] / "data" / "outputs" / "ior" / "clio_i5"


@pytest.fixture(scope="session")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real runs of :data:`IOR_STUDY` (the second on other outputs): their outpath."""
    folder = tmp_path_factory.mktemp("iorrep")
    study = folder / "iorrep.yaml"
    study.write_text(IOR_STUDY.replace("{DATA}", str(OUTPUTS)))
    out = folder / "runs"
    for first in ("0", "2"):
        argv = ["run", str(study), "--outpath", str(out), "-q", "--no-result"]
        main([*argv, "-p", f"first={first}"])
    return out
