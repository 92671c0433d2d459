"""Repetitions until the numbers are tight, on real local runs of the CLI.

Each repetition prints a value drawn from a seeded generator (the same value for the same
point and iteration, whatever the round it runs in) and logs its execution in a file
outside jubex, so how often each point ran is counted independently of the run store.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

MIN, MAX, LIMIT = 3, 12, 0.02
SPREADS = (0, 1, 2, 30)


#: the command of every repetition: a value drawn as :func:`value` draws it
DRAW_TEXT = """\
import random, sys
iteration, spread = int(sys.argv[1]), float(sys.argv[2])
r = random.Random(iteration * 1000 + int(spread * 10))
print("bw", 100 + r.gauss(0, spread))
"""


def definition(tmp_path: Path, *, pause: float = 0.0, until: str = "ci95 <= 2%") -> Path:
    log = tmp_path / "executions"
    (tmp_path / "draw.py").write_text(DRAW_TEXT)
    draw = tmp_path / "draw.py"
    path = tmp_path / "tight.yaml"
    path.write_text(
        f"""
name: tight
parametersets:
  p:
    spread: [{", ".join(str(s) for s in SPREADS)}]
steps:
  measure:
    use: [p]
    iterations: {{min: {MIN}, max: {MAX}, until: "{until}"}}
    do: |
      echo "$spread $jube_wp_iteration" >> {log}
      sleep {pause}
      {sys.executable} {draw} $jube_wp_iteration $spread
    analyse: [bw]
patterns:
  bw:
    bw: {{regex: 'bw $jube_pat_fp', type: float, unit: MiB/s}}
results:
  bandwidth:
    group_by: [spread]
    columns:
      - spread
      - {{name: bw, stats: [mean, ci95]}}
"""
    )
    return path


def value(spread: float, iteration: int) -> float:
    """What the command prints: the same draw the test can make itself."""
    return 100 + random.Random(iteration * 1000 + int(spread * 10)).gauss(0, spread)


def half_width(values: list[float]) -> float:
    """The relative half-width of the 95 % interval of the mean, by scipy."""
    n = len(values)
    mean = statistics.fmean(values)
    return float(scipy_stats.t.ppf(0.975, n - 1) * statistics.stdev(values) / n**0.5 / mean)


def jubex(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def executions(tmp_path: Path) -> dict[float, list[int]]:
    found: dict[float, list[int]] = {}
    for line in (tmp_path / "executions").read_text().splitlines():
        spread, iteration = line.split()
        found.setdefault(float(spread), []).append(int(iteration))
    return found


def check_outcome(tmp_path: Path) -> dict[float, list[int]]:
    """Every point ran its first MIN iterations, then only as long as it was short of the
    target, each iteration exactly once; the table says how many and flags the rest."""
    ran = executions(tmp_path)
    for spread in SPREADS:
        iterations = ran[spread]
        assert sorted(iterations) == list(range(len(iterations))), (spread, iterations)
        assert MIN <= len(iterations) <= MAX
        values = [value(spread, i) for i in range(len(iterations))]
        met = spread == 0 or half_width(values) <= LIMIT
        if len(iterations) < MAX:
            assert met, f"spread {spread} stopped at {len(iterations)} short of the target"
        if len(iterations) > MIN:
            first = [value(spread, i) for i in range(MIN)]
            assert spread and half_width(first) > LIMIT, f"spread {spread}: more than needed"
    status = jubex(tmp_path, "status", "runs/000000", "--format", "json")
    steps = json.loads(status.stdout)["steps"]["measure"]
    assert steps == {"done": sum(len(i) for i in ran.values())}
    return ran


def test_each_point_runs_until_its_interval_is_tight(tmp_path: Path) -> None:
    definition(tmp_path)
    done = jubex(tmp_path, "run", "tight.yaml", "--outpath", "runs", "-q")
    assert done.returncode == 0, done.stderr
    ran = check_outcome(tmp_path)
    assert len(ran[0]) == MIN, "a point without spread needs no more than the minimum"
    assert len(ran[30]) == MAX, "a very noisy point gets every repetition allowed"
    assert MIN < len(ran[2]) < MAX, "a moderately noisy point gets some more"
    text = done.stdout
    assert "repetitions until ci95 <= 2% (3 to 12 per point): 3 point(s) reached it" in text
    assert "1 did not (flagged)" in text
    assert "target ci95 <= 2% not reached: bw ci95" in text
    assert f"after {MAX} repetition(s) (the most allowed)" in text


def test_the_table_says_how_many_repetitions_each_point_got(tmp_path: Path) -> None:
    definition(tmp_path)
    assert jubex(tmp_path, "run", "tight.yaml", "--outpath", "runs", "-q").returncode == 0
    out = jubex(tmp_path, "result", "runs/000000", "-f", "csv")
    lines = [line for line in out.stdout.splitlines() if line and not line.startswith("#")]
    header = lines[0].split(",")
    assert "repetitions" in header and "flags" in header
    got = {
        float(cells[0]): int(cells[header.index("repetitions")])
        for cells in (line.split(",") for line in lines[1:])
    }
    assert got == {s: len(i) for s, i in executions(tmp_path).items()}


def test_a_cv_target_adds_one_repetition_at_a_time(tmp_path: Path) -> None:
    definition(tmp_path, until="cv(bw) <= 3%")
    assert jubex(tmp_path, "run", "tight.yaml", "--outpath", "runs", "-q").returncode == 0
    ran = executions(tmp_path)
    for spread, iterations in ran.items():
        values = [value(spread, i) for i in range(len(iterations))]
        cv = statistics.stdev(values) / statistics.fmean(values)
        assert cv <= 0.03 or len(iterations) == MAX
        if len(iterations) > MIN:
            earlier = values[:-1]
            assert statistics.stdev(earlier) / statistics.fmean(earlier) > 0.03


def test_the_dry_run_shows_which_iterations_are_held(tmp_path: Path) -> None:
    definition(tmp_path)
    out = jubex(tmp_path, "run", "tight.yaml", "--dry-run", "-f", "json")
    planned = json.loads(out.stdout)["workpackages"]
    held = [wp["iteration"] for wp in planned if wp["held"]]
    assert len(planned) == MAX * len(SPREADS)
    assert held == [i for _ in SPREADS for i in range(MIN, MAX)]
    assert not (tmp_path / "executions").exists()


def started(proc: subprocess.Popen[bytes], store: Path) -> None:
    """Wait until the run's store exists (or jubex ended): a kill before it tests nothing.

    On a loaded machine the interpreter alone can take longer than the random delay.
    """
    deadline = time.monotonic() + 60
    while not store.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.mark.slow
def test_kill_minus_nine_between_rounds_loses_and_repeats_nothing(tmp_path: Path) -> None:
    definition(tmp_path, pause=0.15)
    rng = random.Random(7)
    args = ["run", "tight.yaml", "--outpath", "runs", "-q", "--no-result", "-j", "2"]
    kills = 0
    while True:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jubex", *args],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            started(proc, tmp_path / "runs" / "000000" / "jubex.sqlite")
            proc.wait(timeout=rng.uniform(0.6, 2.0))
            break
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)  # its jobs run on and are adopted
            proc.wait()
            kills += 1
        args = ["continue", "runs/000000", "-q", "--no-result", "-j", "2"]
        if kills == 4:
            break
    final = jubex(tmp_path, "continue", "runs/000000", "-q", "--no-result")
    assert final.returncode == 0, final.stderr
    assert kills >= 2, "the run ended before it was killed twice; make it longer"
    check_outcome(tmp_path)


def test_min_above_max_and_a_malformed_target_are_refused_with_their_line(tmp_path: Path) -> None:
    path = definition(tmp_path)
    text = path.read_text()
    path.write_text(text.replace(f"min: {MIN}", "min: 20"))
    out = jubex(tmp_path, "validate", "tight.yaml")
    assert out.returncode == 2
    assert "tight.yaml:9:17: error: steps.measure.iterations:" in out.stdout
    assert "min 20, max 12: expected 2 <= min <= max" in out.stdout
    path.write_text(text.replace("ci95 <= 2%", "ci95 below 2"))
    out = jubex(tmp_path, "validate", "tight.yaml")
    assert out.returncode == 2
    assert "steps.measure.iterations.until: expected a target such as" in out.stdout


def test_a_target_must_judge_values_the_step_gives(tmp_path: Path) -> None:
    path = definition(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("ci95 <= 2%", "ci95(bandwith) <= 2%"))
    out = jubex(tmp_path, "validate", "tight.yaml")
    assert out.returncode == 2
    assert "tight.yaml:9:17: error: step 'measure': the target 'ci95(bandwith) <= 2%': " in (
        out.stdout
    )
    path.write_text(text[: text.index("results:")])
    out = jubex(tmp_path, "run", "tight.yaml", "--dry-run")
    assert out.returncode == 2
    assert "judges the values the result tables show, and there is no table" in out.stderr
    assert not (tmp_path / "executions").exists()
