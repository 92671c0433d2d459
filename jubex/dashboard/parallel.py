"""The groups of a site made on every core: forked processes, results in the given order.

A site's groups (each benchmark at each site) are independent: each reads its own samples
and writes its own files. A build hands them to worker processes forked from the one that
read the runs, so that the workers share its memory (the runs, the manifest) without
sending it, and takes their results back in the order the groups were given: the site
and its manifest are the same whatever the number of processes and whichever finishes
first.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from jubex.errors import JubexError

Item = TypeVar("Item")
Result = TypeVar("Result")


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def in_order(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    start: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """``work`` of each item, in the items' order: in this process when one job (or one
    item) is asked, else in ``jobs`` forked processes, each item sent to the next free one.

    ``work`` must be a module's function (its name is what the workers are sent) and must
    find what it needs beyond its item in what the processes share from before the fork;
    ``start`` is called first in each worker. A worker that dies (killed, out of memory)
    ends the whole with an error, never a wait for a result that cannot come."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(jobs, context, initializer=_started, initargs=(start,))
    ended = False
    try:
        # not pool.map, which cancels what is left when interrupted: Python 3.11's pool
        # then fails to mark a cancelled item broken, in a thread's traceback
        for future in [pool.submit(work, item) for item in items]:
            yield future.result()
        ended = True
    except BrokenProcessPool:
        raise JubexError(
            "a process building the site ended without its result (killed, or out of memory?)",
            hint="-j 1 builds in one process",
        ) from None
    finally:
        if not ended:  # an error or Ctrl-C: the workers go at once, their queued items too
            for worker in multiprocessing.active_children():
                worker.terminate()
        pool.shutdown()


def _started(start: Callable[[], None] | None) -> None:
    """A worker's start: Ctrl-C is the parent's to handle (it ends the workers), not
    each worker's to print its traceback; then ``start``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if start is not None:
        start()
