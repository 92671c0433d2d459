"""Analysis into the store, incremental and idempotent, and the rows result tables read.

A workpackage is read again only when its outputs changed since the last reading (the
signature is its exit-status file's size and modification time, and the state), so
``jubex analyse`` twice in a row does nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from jubex.analysis.harvest import Harvester
from jubex.analysis.measurement import Measurement, ParseResult
from jubex.engine.plan import SHARED
from jubex.engine.rundir import Run
from jubex.engine.store import DONE, FAILED, WorkpackageRow
from jubex.engine.workpackages import parameter_types
from jubex.space.values import parse_value
from jubex.workdir.prepare import wp_dir_name
from jubex.workdir.script import EXIT, admin_dir

ANALYSABLE = (DONE, FAILED)


def _signature(run_dir: Path, wp: WorkpackageRow) -> str:
    try:
        st = (admin_dir(run_dir / wp_dir_name(wp.id, wp.step)) / EXIT).stat()
    except OSError:
        return wp.state
    return f"{wp.state}:{st.st_size}:{st.st_mtime_ns}"


def analyse_workpackages(run: Run, wps: Sequence[WorkpackageRow], *, force: bool = False) -> int:
    """Harvest the given finished workpackages whose outputs are new; returns how many."""
    known = {} if force else run.store.analysed()
    types = parameter_types(run.benchmark)
    harvesters: dict[str, Harvester] = {}
    results = []
    for wp in wps:
        if wp.state not in ANALYSABLE or wp.kind == SHARED:
            continue
        signature = _signature(run.dir, wp)
        if not force and known.get(wp.id, (None, None, None))[2] == signature:
            continue
        harvester = harvesters.get(wp.step)
        if harvester is None:
            harvester = harvesters[wp.step] = Harvester(run.benchmark, wp.step)
        params = {k: parse_value(v, types.get(k, "auto")) for k, v in wp.params.items()}
        workdir = run.dir / wp_dir_name(wp.id, wp.step) / "work"
        found: ParseResult = harvester.harvest(workdir, params)
        ok = found.ok and wp.state == DONE
        reason = found.reason if wp.state == DONE else (wp.reason or "failed")
        results.append((wp.id, ok, reason, signature, found.measurements))
    if results:
        run.store.store_analysis(results)
    return len(results)


def analyse_run(run: Run, *, force: bool = False) -> int:
    return analyse_workpackages(run, run.store.workpackages(states=list(ANALYSABLE)), force=force)


def result_rows(run: Run) -> Iterator[dict[str, object]]:
    """One row per analysed workpackage: parameters, values, and JUBE's meta names.

    A value matched several times appears under its name as the first match (JUBE's
    representative value); its reductions (``_max``, ``_avg``, ...) come from the analyser.
    Values of different records of one output (several IOR tests) get ``_<record>`` suffixes
    beyond the first record.
    """
    types = parameter_types(run.benchmark)
    analysed = run.store.analysed()
    measurements = run.store.measurements()
    for wp in run.store.workpackages(states=list(ANALYSABLE)):
        if wp.kind == SHARED:
            continue
        row: dict[str, object] = {k: parse_value(v, types.get(k, "auto")) for k, v in wp.params.items()}
        row.update(
            {
                "jube_wp_id": wp.id,
                "jube_step_name": wp.step,
                "jube_wp_iteration": wp.iteration,
                "run": run.id,
                "ok": analysed.get(wp.id, (False,))[0],
                "reason": analysed.get(wp.id, (False, wp.reason))[1] or wp.reason,
            }
        )
        for m in measurements.get(wp.id, ()):
            name = m.name if m.record == 0 else f"{m.name}_{m.record}"
            if name not in row:
                row[name] = m.value
        yield row


def units_of(run: Run) -> dict[str, str]:
    units: dict[str, str] = {}
    for ms in run.store.measurements().values():
        for m in ms:
            if m.unit:
                units.setdefault(m.name, m.unit)
    return units


def missing_analysis(run: Run) -> list[tuple[int, str]]:
    """Finished workpackages whose analysers found nothing (for ``jubex status``)."""
    measured = run.store.measurements()
    return [
        (wp, reason or "no value found")
        for wp, (ok, reason, _sig) in run.store.analysed().items()
        if not measured.get(wp) or not ok
    ]


__all__ = ["Measurement", "analyse_run", "analyse_workpackages", "result_rows"]
