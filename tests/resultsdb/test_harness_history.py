"""A real ReFrame run, imported, published and followed in one results database with
jubex's own runs and a JUBE run (`jubex import-reframe`, end to end, on both back ends)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import REPO, run_jubex

CHECKS = REPO / "tests" / "data" / "reframe" / "checks.py"
#: the block sizes of the checks, as JSON gives a size: in bytes
BYTES = {"64K": 65536, "1M": 1048576}
JUBE_RUN = REPO / "tests" / "data" / "jube_runs" / "io_study" / "bench_run" / "000000"


def _reframe() -> str:
    found = shutil.which("reframe")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("ReFrame (reframe-hpc) is not installed: the test extra installs it")
        pytest.skip("ReFrame is not installed here (pip install reframe-hpc)")
    return found


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of a real ReFrame run of the test checks, on its local scheduler."""
    where = tmp_path_factory.mktemp("reframe")
    path = where / "report.json"
    command = [_reframe(), "-c", str(CHECKS), "-n", "DdWrite", "-r", "--repeat", "2"]
    done = subprocess.run(
        [*command, f"--report-file={path}", "--prefix", str(where)],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    return path


def _write_bw(report: Path) -> dict[str, list[float]]:
    """ReFrame's own write_bw values of each block size."""
    found: dict[str, list[float]] = {}
    for case in json.loads(report.read_text())["runs"][0]["testcases"]:
        block = case["display_name"].split("%block=")[1].split()[0]
        found.setdefault(block, []).append(case["perfvalues"]["generic:default:write_bw"][0])
    return found


def test_a_real_report_becomes_runs_holding_its_values(report: Path, tmp_path: Path) -> None:
    done = run_jubex(tmp_path, "import-reframe", str(report))
    assert done.returncode == 0, done.stderr
    assert "imported DdWrite on generic" in done.stdout and "(4 done, 0 failed)" in done.stdout
    table = run_jubex(tmp_path, "result", "-f", "json")
    assert table.returncode == 0, table.stderr
    rows = {row["block"]: row for row in json.loads(table.stdout)["rows"]}
    for block, values in _write_bw(report).items():
        row = rows[BYTES[block]]
        assert row["write_bw_n"] == 2
        assert (row["write_bw_min"], row["write_bw_max"]) == (min(values), max(values))
    again = run_jubex(tmp_path, "import-reframe", str(report))
    assert "already imported as run 000000" in again.stdout


def test_reframe_jube_and_jubex_runs_publish_into_one_history(
    report: Path, made: Path, database: str, tmp_path: Path
) -> None:
    assert run_jubex(tmp_path, "import-reframe", str(report)).returncode == 0
    jube = run_jubex(tmp_path, "import-jube", str(JUBE_RUN), "--site", "jureca")
    assert jube.returncode == 0, jube.stderr
    for args in (["all"], ["all", "--outpath", str(made)]):
        published = run_jubex(tmp_path, "publish", *args, "--database", database)
        assert published.returncode == 0, published.stderr
        assert published.stdout.count("published to") == 2
    for selector, metric in (
        ("db:benchmark=DdWrite", "write_bw"),
        ("db:benchmark=io_study", "write_bw"),
        ("db:benchmark=dbstudy", "bw"),
    ):
        history = run_jubex(
            tmp_path, "history", selector, "--database", database, "-m", metric, "-f", "json"
        )
        assert history.returncode == 0, history.stderr
        rows = json.loads(history.stdout)["rows"]
        assert rows and {row["metric"] for row in rows} == {metric}
        if selector.endswith("DdWrite"):
            means = {BYTES.get(row["block"], row["block"]): row["mean"] for row in rows}
            wanted = {BYTES[b]: statistics.fmean(v) for b, v in _write_bw(report).items()}
            assert means == pytest.approx(wanted)
