"""Every benchmark script of bench/ runs at a small size, so that none of them rots: a
script whose builder, command line or check no longer fits jubex fails here, not on the
day its figures are wanted again (the Slurm ones on the real Slurm of tests/conftest.py).
bench/run's own cases are smoke-tested in test_bench_run.py.

No timing is asserted here: each script is run for its exit status and one line of its
report.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SlurmCluster

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"

#: script -> (its arguments at a small size, a text its report holds)
SMOKE: dict[str, tuple[list[str], str]] = {
    "analyser_recall.py": ([], "| mdtest |"),
    "bench_analyse_result.py": (["--n", "20", "--runs", "1"], "jubex result"),
    "bench_bounded_sizes.py": (["--runs", "1", "--only", "jube_250", "list_9999"], "list_9999"),
    "bench_bundle.py": (["--n", "5", "--runs", "1"], "jubex import:"),
    "bench_compare_false_alarms.py": (["--trials", "5", "--n", "3"], "mannwhitney"),
    "bench_engine_local.py": (["--n", "5", "--runs", "1"], "| 5 |"),
    "bench_expand.py": (["--runs", "1", "--scale", "1"], "points/s"),
    "bench_history.py": (
        ["--runs", "5", "--metrics", "2", "--reps", "2", "--repeat", "1"],
        "5 runs x 2 metrics x 2 reps",
    ),
    # five repetitions a run: the planted step, 60 % into each site's 10 runs, is then
    # found whatever SQLite's unseeded noise (with two, a Welch test of 2 against 2 values
    # misses it in some fills)
    "bench_history_db.py": (
        ["--runs", "1000", "--metrics", "2", "--reps", "5", "--repeat", "1"],
        "(10 of 1000 runs)",
    ),
    "bench_jube_file_sizes.py": (["--n", "5", "--runs", "1"], "| 5 |"),
    "bench_jube_import.py": (["--runs", "1", "--sizes", "5"], "result -f csv"),
    "bench_outlier_marks.py": (["--samples", "5"], "5 x 5"),
    "bench_patterns.py": (
        ["--size-mb", "1", "--dirs", "1", "--repeat", "1", "--iterations", "1"],
        "patterns",
    ),
    "bench_reading_runs.py": (["--runs", "3", "--n", "2", "--repeat", "1"], "reading 3 runs"),
    "bench_refusals.py": (["--runs", "1"], "range_of_1e9"),
    "bench_report.py": (["--n", "5", "--runs", "1"], "N = 5: jubex report"),
    "bench_result_sets.py": (
        ["--runs", "3", "--n", "2", "--repeat", "1"],
        "3 runs of 2 workpackages",
    ),
    "bench_results.py": ([], "compare, 1000 points"),
    "bench_resultsdb.py": (
        [
            *("--runs", "1000", "--metrics", "2", "--reps", "5", "--repeat", "1"),
            *("--write-runs", "4", "--writers", "2", "--only", "sqlite"),
        ],
        "writers failed (locked): 0 (0)",
    ),
    "bench_site.py": (["--runs", "20", "--metrics", "2", "--reps", "2", "--series", "2"], "peak"),
    "bench_spread.py": (
        ["--groups", "2", "--executions", "3", "--size", "3", "--runs", "1"],
        "18 values in 2 groups",
    ),
    "fuzz_analysers.py": (["--count", "5"], "| mdtest |"),
    "fuzz_inputs.py": (["--count", "5", "--jobs", "1"], "| bundle |"),
}

#: the scripts that submit to the real Slurm (tests/conftest.py's cluster)
ON_SLURM: dict[str, tuple[list[str], str]] = {
    "bench_slurm.py": (["--jobs", "5", "--runs", "1"], "| ids polled |"),
    "bench_engine_slurm.py": (
        ["--n", "5", "--runs", "1", "--hold", "2", "--modes", "jobs"],
        "| 5 | one job each |",
    ),
}

#: the scripts not run here, and why
NOT_HERE = {
    "bench_jube_sweep.py": "needs JUBE 2.7.1 in an environment of its own (docs/performance.md)",
    "bench_peers.py": "needs JUBE 2.7.1 and ReFrame in environments of their own",
    "jube_differential.py": "needs JUBE 2.7.1 in an environment of its own",
    "bench_site_render.py": "renders a site in Chromium: tests/dashboard/test_browser.py",
    "render_performance.py": "writes docs/performance.md's tables: test_bench_run.py",
    "fuzz_bundles.py": "the bundles of fuzz_inputs.py, run above",
    "resultsdb_fill.py": "the filling of bench_site.py and bench_resultsdb.py, run above",
    "suite.py": "bench/run's cases: test_bench_run.py",
    "timing.py": "the timing every script above uses",
}


def test_every_script_is_run_or_said_why_not() -> None:
    scripts = {path.name for path in BENCH.glob("*.py")}
    assert scripts == set(SMOKE) | set(ON_SLURM) | set(NOT_HERE)
    assert len(SMOKE) + len(ON_SLURM) + len(NOT_HERE) == len(scripts)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SMOKE))
def test_the_script_runs_at_a_small_size(script: str, tmp_path: Path) -> None:
    _runs(script, *SMOKE[script], tmp_path)


@pytest.mark.slow
@pytest.mark.slurm
@pytest.mark.parametrize("script", sorted(ON_SLURM))
def test_the_script_runs_on_slurm(script: str, slurm: SlurmCluster, tmp_path: Path) -> None:
    _runs(script, *ON_SLURM[script], tmp_path)


def _runs(script: str, args: list[str], said: str, tmp_path: Path) -> None:
    """The script exits 0 and its report holds ``said``."""
    env = {**os.environ, "TMPDIR": str(tmp_path), "BENCH_TMP": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert said in done.stdout, done.stdout[-2000:]
