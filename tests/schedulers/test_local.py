"""The local backend's job ids: ``pid:start time``, the start time as the kernel counts it.

The start time is mostly taken from the boot clock around the spawn instead of read from
``/proc``; these tests hold it to what ``/proc`` says of the same processes.
"""

from __future__ import annotations

import os
from pathlib import Path

from jubex.schedulers.base import JobSpec
from jubex.schedulers.local import TICK_NS, LocalScheduler, process_start_time


def spec(tmp_path: Path, name: str) -> JobSpec:
    script = tmp_path / f"{name}.sh"
    script.write_text("sleep 2\n")
    return JobSpec(name, script, tmp_path, tmp_path / "out", tmp_path / "err")


def test_every_job_id_names_the_start_time_proc_gives(tmp_path: Path) -> None:
    local = LocalScheduler()
    ids = [local.submit(spec(tmp_path, f"j{i}")) for i in range(40)]
    try:
        for job_id in ids:
            pid, _, start = job_id.partition(":")
            assert start == process_start_time(int(pid)), job_id
        assert local.clock_ok, "no spawn fell within one clock tick: the clock was never used"
    finally:
        local.cancel(ids)
    for job_id in ids:
        os.waitpid(local.children[job_id], 0)


def test_a_spawn_across_a_tick_or_a_clock_unlike_proc_reads_proc(tmp_path: Path) -> None:
    local = LocalScheduler()
    pid = os.getpid()
    start = process_start_time(pid)
    assert start is not None
    assert local._job_id(pid, 1, 2) == f"{pid}:{start}"  # across a tick: /proc
    assert local.clock_ok is None
    assert local._job_id(pid, 3, 3) == f"{pid}:{start}"  # the first within a tick: /proc
    assert local.clock_ok is False  # the clock said 3: never trusted again
    assert local._job_id(pid, 3, 3) == f"{pid}:{start}"
    assert TICK_NS > 0
