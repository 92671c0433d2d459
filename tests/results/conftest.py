"""Rows as the run store hands them over: parameters, measurements, meta keys."""

import pytest

from jubex.cli.main import main
from jubex.language.values import Size
from jubex.store.rundir import Run, open_run


def _row(wp, api, transfer, nodes, write_bw, read_bw=None, *, it=0, ok=True, run="r1"):
    return {
        "api": api,
        "transfer": transfer,
        "nodes": nodes,
        "write_bw": write_bw,
        "read_bw": read_bw,
        "jube_wp_id": wp,
        "jube_step_name": "run",
        "jube_wp_iteration": it,
        "run": run,
        "ok": ok,
    }


@pytest.fixture
def ior_rows():
    """Two points of three iterations each, one of them with a missing and a failed value."""
    small, big = Size(4096, "4KiB"), Size(1 << 20, "1MiB")
    return [
        _row(0, "POSIX", small, 2, 1000.0, 900.0, it=0),
        _row(1, "POSIX", small, 2, 1100.0, 950.0, it=1),
        _row(2, "POSIX", small, 2, 1200.0, None, it=2),
        _row(3, "MPIIO", big, 10, 3000.0, 2000.0, it=0),
        _row(4, "MPIIO", big, 10, 3100.0, 2100.0, it=1),
        _row(5, "MPIIO", big, 10, None, None, it=2, ok=False),
    ]


@pytest.fixture
def make_row():
    return _row


@pytest.fixture
def units():
    return {"write_bw": "MiB/s", "read_bw": "MiB/s", "transfer": "B"}


@pytest.fixture
def directions():
    return {"write_bw": True, "read_bw": True}


#: a definition whose values are known: iteration i of a point writes ``level * (1 + i / 100)``
SYNTHETIC = r"""
name: synthetic
parameters:
  point: [a, b]
  level: 1000
  fail: none
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
    t: {regex: '^t: $jube_pat_fp s', type: float, unit: s, better: lower}
steps:
  run:
    iterations: 2
    do:
      - 'echo bw: ${level * (1 + jube_wp_iteration / 100)} MiB/s; echo t: 2 s'
      - test $point != $fail
    analyse: [bw]
results:
  bandwidth:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean], unit: GiB/s}, {name: t, stats: [mean]}]
  per_run:
    group_by: [run, point]
    columns: [{name: bw, stats: [mean]}]
"""

#: run id -> the -p overrides it was made with
SYNTHETIC_RUNS = {"000000": [], "000001": ["level=500"], "000002": ["fail=b"]}


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Real runs of :data:`SYNTHETIC` on the local platform, by run id (analysed)."""
    base = tmp_path_factory.mktemp("synthetic")
    definition = base / "synthetic.yaml"
    definition.write_text(SYNTHETIC)
    out = base / "runs"
    for overrides in SYNTHETIC_RUNS.values():
        argv = ["run", str(definition), "--outpath", str(out), "-q", "--no-result"]
        main(argv + [a for o in overrides for a in ("-p", o)])
    return {run_id: open_run(out / run_id) for run_id in SYNTHETIC_RUNS}
