"""Which workpackages of a run ran while others did: samples that shared the machine.

A benchmark that measures the machine measures its neighbours too: two 2-rank IOR runs
on two cores each see half of it. The wrapper of a workpackage creates ``claim`` when it
starts and writes ``exit`` when it ends, on every platform, so their modification times
are when it ran; two workpackages overlap when each started before the other ended. A run
read from the results database has no such files: publishing keeps the times in its store
(:data:`SPANS`).
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Iterable

from jubex.space.workpackage import SHARED, Workpackage
from jubex.store.rundir import Run, wp_dir_of
from jubex.workdir.script import CLAIM, EXIT, admin_dir

#: the store meta key of a published run's workpackage times: {id: [start, end]} as JSON
SPANS = "wp_spans"


def spans_of(run: Run, wps: Iterable[Workpackage]) -> dict[int, tuple[float, float]]:
    """When each workpackage ran: from its files, or from the store of a published run."""
    kept = run.meta.get(SPANS)
    if kept:
        found = {int(k): (float(v[0]), float(v[1])) for k, v in json.loads(kept).items()}
        return {wp.id: found[wp.id] for wp in wps if wp.id in found}
    spans: dict[int, tuple[float, float]] = {}
    for wp in wps:
        if wp.kind == SHARED:
            continue
        # two stats per workpackage: plain strings, pathlib's joins cost more than the stats
        admin = os.fspath(admin_dir(wp_dir_of(run.dir, wp)))
        try:
            claim = os.stat(os.path.join(admin, CLAIM)).st_mtime
            spans[wp.id] = (claim, os.stat(os.path.join(admin, EXIT)).st_mtime)
        except OSError:
            continue
    return spans


def neighbours(run: Run, wps: Iterable[Workpackage]) -> dict[int, int]:
    """How many other workpackages of ``run`` ran at some time while each one did (those
    without both times, not yet run or of an older jubex, are left out)."""
    spans = spans_of(run, wps)
    starts = sorted(start for start, _ in spans.values())
    ends = sorted(end for _, end in spans.values())
    found = {}
    for wp_id, (start, end) in spans.items():
        # the others that started before this one ended, less those that ended before it began
        began = bisect.bisect_left(starts, end)
        done = bisect.bisect_right(ends, start)
        found[wp_id] = max(0, began - done - 1)
    return found
