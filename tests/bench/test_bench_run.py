"""bench/run, the benchmarks' self-gate: every case runs (at its small size), its figures
become a jubex run, compare tells a planted slowdown from the same figures, and the
generated part of docs/performance.md is rebuilt from a record and nothing else.

No timing is asserted here: the figures themselves are bench/run's business.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

from render_performance import BEGIN, END, render  # noqa: E402
from suite import CASES  # noqa: E402


def bench_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "run"), *args], cwd=REPO, capture_output=True, text=True
    )


def figures(result_cpu: float = 1.0) -> dict:
    """A record as bench/run writes it, with steady made-up figures."""
    spread = (0.98, 1.0, 1.02, 0.99, 1.01)
    points = [
        {
            "parameters": {"bench": case.name, "n": case.size},
            "repetitions": [
                {"values": {"wall": 2 * s, "cpu": s * (result_cpu if case.name == "result" else 1)}}
                for s in spread
            ],
        }
        for case in CASES
    ]
    return {
        "format": "jubex-record/1",
        "benchmark": "jubex_bench",
        "site": "bench",
        "platform": "local",
        "harness": {"name": "jubex bench/run", "version": "abc"},
        "created": 1790000000.0,
        "provenance": {
            "cpu_model": "AMD EPYC",
            "cores": "2",
            "python": "3.11.7",
            "commit": "abc",
            "load_before": "1.00",
            "load_after": "1.50",
        },
        "metrics": {
            "cpu": {"unit": "s", "better": "lower"},
            "wall": {"unit": "s", "better": "lower"},
        },
        "points": points,
    }


def test_every_case_runs_at_its_small_size_and_its_figures_become_a_jubex_run(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "figures.json"
    done = bench_run(
        *("--smoke", "--no-compare", "--repetitions", "1"),
        *("--outpath", str(tmp_path / "runs"), "--record", str(kept)),
    )
    assert done.returncode == 0, done.stderr
    made = json.loads(kept.read_text())
    assert [p["parameters"]["bench"] for p in made["points"]] == [c.name for c in CASES]
    some = bench_run(
        *("--smoke", "--no-compare", "--repetitions", "1", "--only", "startup,xargs_floor"),
        *("--outpath", str(tmp_path / "runs"), "--record", str(kept)),
    )
    assert some.returncode == 0, some.stderr
    measured = [p["parameters"]["bench"] for p in json.loads(kept.read_text())["points"]]
    assert measured == ["startup", "xargs_floor"]
    assert all(p["repetitions"][0]["values"]["cpu"] > 0 for p in made["points"])
    assert made["provenance"]["sizes"] == "smoke" and made["provenance"]["cores"]
    assert (tmp_path / "runs" / "000000" / "run.json").is_file()
    assert "figures imported as the jubex run" in done.stderr


def test_against_a_commit_both_checkouts_are_measured_imported_and_compared(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "this.json"
    done = bench_run(
        *("--smoke", "--repetitions", "2", "--only", "startup,engine", "--against", "HEAD"),
        *("--outpath", str(tmp_path / "runs"), "--record", str(kept)),
    )
    assert done.returncode in (0, 1, 4), done.stdout + done.stderr
    this = json.loads(kept.read_text())
    other = json.loads((tmp_path / "runs" / "000001" / "run.json").read_text())
    assert [p["parameters"]["bench"] for p in this["points"]] == ["startup", "engine"]
    assert all(len(p["repetitions"]) == 2 for p in this["points"])
    assert this["harness"]["directory"] == str(REPO)
    head = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    assert f"against {head}\n" in done.stderr
    assert head in json.dumps(other) and str(REPO) not in json.dumps(other)
    assert f"baseline {tmp_path / 'runs' / '000001'}, candidate" in done.stdout
    assert "2 compared" in done.stdout
    left = [p for p in Path(tempfile.gettempdir()).glob("jubex-bench-*") if p.is_dir()]
    assert not [p for p in left if (p / "against" / "bench" / "run").exists()]


def test_against_an_unknown_commit_is_refused_in_one_line(tmp_path: Path) -> None:
    done = bench_run("--smoke", "--against", "no-such-rev", "--outpath", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr == f"bench/run: --against no-such-rev: no such commit in {REPO}\n"


@pytest.mark.parametrize(("result_cpu", "code"), [(1.0, 0), (2.0, 1)])
def test_the_gate_passes_the_same_figures_and_fails_a_doubled_result(
    tmp_path: Path, result_cpu: float, code: int
) -> None:
    accepted, new = tmp_path / "accepted.json", tmp_path / "new.json"
    accepted.write_text(json.dumps(figures()))
    new.write_text(json.dumps(figures(result_cpu)))
    done = bench_run(
        *("--from-record", str(new), "--accepted", str(accepted)),
        *("--outpath", str(tmp_path / "runs")),
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert ("FAILED" in done.stdout) == (code == 1)


def test_a_run_of_some_cases_is_judged_on_those_cases_alone(tmp_path: Path) -> None:
    accepted, new = tmp_path / "accepted.json", tmp_path / "new.json"
    accepted.write_text(json.dumps(figures()))
    some = figures(2.0)
    some["points"] = [p for p in some["points"] if p["parameters"]["bench"] == "result"]
    new.write_text(json.dumps(some))
    done = bench_run(
        *("--from-record", str(new), "--accepted", str(accepted)),
        *("--outpath", str(tmp_path / "runs")),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 compared: 1 worse" in done.stdout and "missing" not in done.stdout


def test_the_generated_part_of_the_document_is_rebuilt_and_the_prose_kept() -> None:
    doc = f"# Performance\n\nprose before\n\n{BEGIN}\nold figures\n{END}\n\nprose after\n"
    made = figures()
    made["points"][1]["repetitions"][0]["values"]["cpu"] = 7.25
    text = render(doc, made)
    assert text.startswith("# Performance\n\nprose before\n\n") and text.endswith("prose after\n")
    assert "old figures" not in text
    assert "| result |" in text and "0.990–7.250" in text and "load average 1.00" in text
    assert "**1.00×**" in text  # the engine over the xargs floor
    assert render(text, figures()) == render(doc, figures())


def test_a_document_without_the_generated_part_is_refused() -> None:
    with pytest.raises(SystemExit, match="bench/run: begin"):
        render("# Performance\n", figures())
