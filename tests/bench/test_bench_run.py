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
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
sys.path.insert(0, str(BENCH))

from render_performance import BEGIN, END, render  # noqa: E402
from suite import CASES  # noqa: E402


def _gate() -> ModuleType:
    """bench/run as a module: a script without a suffix, so loaded by its path."""
    loader = SourceFileLoader("bench_run", str(BENCH / "run"))
    module = module_from_spec(spec_from_loader("bench_run", loader))
    loader.exec_module(module)
    return module


GATE = _gate()


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
        *("--max-repetitions", "2"),
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
    assert "2 compared" in done.stdout and "at alpha 0.05;" in done.stdout
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


def test_a_case_the_first_look_cannot_judge_is_named_with_the_repetitions_it_needs(
    tmp_path: Path,
) -> None:
    base, noisy = figures(), figures()
    wide = (0.8, 1.25, 0.95, 1.3, 1.05)
    for made, scale in ((base, 1.0), (noisy, 1.2)):
        for point in made["points"]:
            if point["parameters"]["bench"] == "engine":
                for rep, s in zip(point["repetitions"], wide, strict=True):
                    rep["values"]["cpu"] = s * scale
    runs = []
    for name, made in (("base", base), ("noisy", noisy), ("again", base)):
        (tmp_path / f"{name}.json").write_text(json.dumps(made))
        runs.append(GATE.imported(tmp_path / f"{name}.json", tmp_path / "runs"))
    unsettled = GATE.unjudged(runs[0], runs[1], "10%", 0.025)
    assert list(unsettled) == ["engine"] and unsettled["engine"] > 5
    assert GATE.compare(runs[0], runs[1], "10%", 0.025) == 4
    assert GATE.unjudged(runs[0], runs[2], "10%", 0.025) == {}


@pytest.mark.parametrize(
    ("unsettled", "more"),
    [
        ({"engine": 12}, 7),
        ({"engine": 400}, 20),
        ({"engine": 0}, 20),
        ({"engine": 5}, 1),
        ({"engine": 12, "result": 8}, 7),
        ({}, 0),
    ],
)
def test_a_second_look_takes_what_compare_asks_for_within_the_bound(
    unsettled: dict[str, int], more: int
) -> None:
    assert GATE.second_look(unsettled, 5, 25) == more
    assert GATE.second_look(unsettled, 5, 5) == 0
