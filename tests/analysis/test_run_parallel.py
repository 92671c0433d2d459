"""Analysis in worker processes stores what a serial analysis stores, in the same order."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from jubex.analysis import run as analysis_run
from jubex.api import load
from jubex.engine.driver import new_run
from jubex.platform.load import load_platform
from jubex.results.samples.rows import result_rows
from jubex.space.plan import Workpackage, wp_dir_name
from jubex.space.spec import resolve_spec
from jubex.store.rundir import Run
from jubex.store.store import DONE, FAILED

OUTPUT = Path(__file__).resolve().parents[1] / "data/outputs/ior/posix_fpp_t1m_b16m_np4.txt"
DEFINITION = """
name: parallel
parameters:
  n: {range: {start: 0, stop: 23, step: 1}}
patterns:
  bw:
    write_bw: {regex: "^write +$jube_pat_fp", type: float, unit: MiB/s}
    tasks_seen: {regex: "tasks += $jube_pat_int", type: int}
steps:
  ior:
    do: ior
    analyse: [ior, bw]
"""


def make_run(root: Path) -> Run:
    root.mkdir()
    definition = root / "d.yaml"
    definition.write_text(DEFINITION)
    run = new_run(resolve_spec(load(definition), load_platform("local"), outpath=root / "runs"))
    text = OUTPUT.read_text()
    wps = run.store.workpackages()
    for wp in wps:
        work = run.dir / wp_dir_name(wp.id, wp.step) / "work"
        work.mkdir(parents=True)
        # every third output cut short: a failed reading must come back the same, too
        (work / "stdout").write_text(text if wp.id % 3 else text[: len(text) // 2])
        (work.parent / "exit").write_text("0\n" if wp.id % 5 else "1\n")
    run.store.set_states((wp.id, DONE if wp.id % 5 else FAILED, None, 0, "") for wp in wps)
    return run


def stored(run: Run) -> tuple[object, ...]:
    analysed = {wp: (ok, reason) for wp, (ok, reason, _) in run.store.analysed().items()}
    return run.store.measurements(), analysed, run.store.units(), list(result_rows(run))


@pytest.mark.parametrize("cores", [2, 3])
def test_workers_store_what_one_process_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    monkeypatch.setattr(analysis_run, "BATCH", 4)
    monkeypatch.setattr(analysis_run, "PARALLEL_FROM", 8)
    serial, parallel = make_run(tmp_path / "serial"), make_run(tmp_path / "parallel")
    monkeypatch.setattr(analysis_run, "_cores", lambda: 1)
    assert analysis_run.analyse_run(serial) == 24
    pids = tmp_path / "pids"
    harvest = analysis_run.RunAnalysis.harvest

    def noted(
        self: analysis_run.RunAnalysis, batch: Sequence[tuple[Workpackage, str]]
    ) -> list[analysis_run.Analysed]:
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return harvest(self, batch)

    monkeypatch.setattr(analysis_run.RunAnalysis, "harvest", noted)
    monkeypatch.setattr(analysis_run, "_cores", lambda: cores)
    assert analysis_run.analyse_run(parallel) == 24
    assert str(os.getpid()) not in pids.read_text().split()  # read by the workers
    assert stored(parallel) == stored(serial)
    assert len(serial.store.measurements()) == 24
    assert analysis_run.analyse_run(parallel) == 0  # nothing changed: nothing read again


def test_incremental_analysis_reads_only_new_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = make_run(tmp_path / "run")
    assert analysis_run.analyse_run(run) == 24
    read: list[int] = []
    harvest = analysis_run.RunAnalysis.harvest

    def noted(
        self: analysis_run.RunAnalysis, batch: Sequence[tuple[Workpackage, str]]
    ) -> list[analysis_run.Analysed]:
        read.extend(wp.id for wp, _ in batch)
        return harvest(self, batch)

    monkeypatch.setattr(analysis_run.RunAnalysis, "harvest", noted)
    (run.dir / wp_dir_name(7, "ior") / "exit").write_text("0\n\n")
    assert analysis_run.analyse_run(run) == 1
    assert read == [7]


def test_a_crash_keeps_the_batches_stored_before_it_and_nothing_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis_run, "BATCH", 4)
    run = make_run(tmp_path / "run")
    harvest = analysis_run.RunAnalysis.harvest
    calls: list[int] = []

    def crashing(
        self: analysis_run.RunAnalysis, batch: Sequence[tuple[Workpackage, str]]
    ) -> list[analysis_run.Analysed]:
        calls.append(len(batch))
        found = harvest(self, batch)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return found

    monkeypatch.setattr(analysis_run.RunAnalysis, "harvest", crashing)
    with pytest.raises(KeyboardInterrupt):
        analysis_run.analyse_run(run)
    assert sorted(run.store.analysed()) == [0, 1, 2, 3]
    assert sorted(run.store.measurements()) == [0, 1, 2, 3]
    monkeypatch.setattr(analysis_run.RunAnalysis, "harvest", harvest)
    assert analysis_run.analyse_run(run) == 20
