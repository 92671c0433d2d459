"""Workpackages of an ``exclusive`` step run alone on the local platform, and a table says
when its samples ran while others did."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import load, resolve, run
from jubex.engine.driver import Options
from jubex.results.samples.concurrency import neighbours
from jubex.results.tables.tabulate import tables_with_definitions

REPO = Path(__file__).resolve().parents[2]

DEFINITION = """
name: alone
parameters: {point: [a, b]}
patterns:
  bw: {bw: {regex: '^bw: $jube_pat_fp', type: float}}
steps:
  build:
    do: sleep 0.3
  measure:
    depend: [build]
    iterations: 2
    EXCLUSIVE
    do: "sleep 0.4; echo bw: $((100 + $jube_wp_iteration))"
    analyse: [bw]
results:
  t:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean]}]
"""


def _run(tmp_path: Path, exclusive: bool):
    path = tmp_path / "alone.yaml"
    path.write_text(DEFINITION.replace("EXCLUSIVE", f"exclusive: {str(exclusive).lower()}"))
    made, _ = run(resolve(path, outpath=tmp_path / "runs"), Options(jobs=2, progress="quiet"))
    ((_, table),) = tables_with_definitions([made])
    return made, table


def test_an_exclusive_step_runs_each_workpackage_alone(tmp_path: Path) -> None:
    made, table = _run(tmp_path, exclusive=True)
    wps = made.store.workpackages()
    overlapping = neighbours(made, wps)
    measured = [wp.id for wp in wps if wp.step == "measure"]
    assert len(measured) == 4 and not any(overlapping[i] for i in measured)
    assert overlapping[0] == overlapping[1] == 1  # the two builds ran side by side
    assert not any(note.startswith("concurrent:") for note in table.notes)


def test_a_table_says_when_its_samples_shared_the_machine(tmp_path: Path) -> None:
    _, table = _run(tmp_path, exclusive=False)
    (note,) = [note for note in table.notes if note.startswith("concurrent:")]
    assert note.startswith("concurrent: 4 execution(s) of 2 row(s) ran while other")


@pytest.mark.parametrize(
    "path",
    [
        *sorted((REPO / "benchmarks").glob("*.yaml")),
        *sorted((REPO / "jubex/data/templates").glob("*.yaml")),
    ],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_the_shipped_benchmark_steps_run_alone(path: Path) -> None:
    benchmark = load(path)
    measuring = [s for s in benchmark.steps.values() if s.analyse]
    assert measuring and all(s.exclusive for s in measuring), path.name
