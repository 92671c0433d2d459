"""The groups of a site made on every core: a forked process a group, results in the given order.

A site's groups (each benchmark at each site) are independent: each reads its own samples
and writes its own files. A build forks a process for each group from the one that read
the runs, so that the processes share its memory (the runs, the manifest) without sending
it, at most one a core at once, and takes their results back in the order the groups were
given: the site and its manifest are the same whatever the number of processes and
whichever finishes first.

A process makes one group and ends. What it made stays until then (:func:`keep`): a group
of 10,000 runs holds some 10 million Python objects, and freeing them one by one cost a
tenth of the group's time, where the end of the process gives their memory back at once.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar, cast

from jubex.errors import JubexError

Item = TypeVar("Item")
Result = TypeVar("Result")

#: what this process keeps to its end (None: a process that goes on after its work)
_kept: list[object] | None = None


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def keep(*objects: object) -> bool:
    """Keep ``objects`` unfreed to the end of this process where it ends after its one
    item (the end frees them all at once); whether it does."""
    if _kept is None:
        return False
    _kept.extend(objects)
    return True


def in_order(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    start: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """``work`` of each item, in the items' order: in this process when one job (or one
    item) is asked, else each in a process forked for it, ``jobs`` at once.

    ``work`` must find what it needs beyond its item in what the processes share from
    before the fork; ``start`` is called first in each process. An error of ``work`` is
    raised here, in its item's turn; a process that dies (killed, out of memory) ends the
    whole with an error, never a wait for a result that cannot come."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    context = multiprocessing.get_context("fork")
    running: dict[Connection, tuple[int, BaseProcess]] = {}
    made: dict[int, tuple[bool, Any]] = {}
    queued = iter(enumerate(items))
    turn = 0
    try:
        while turn < len(items):
            while len(running) < jobs and (following := next(queued, None)) is not None:
                index, item = following
                receiving, sending = context.Pipe(duplex=False)
                forked = context.Process(target=_one, args=(work, start, item, sending))
                forked.start()
                sending.close()
                running[receiving] = (index, forked)
            if turn not in made:
                for ready in wait(list(running)):
                    done = cast(Connection, ready)
                    index, process = running.pop(done)
                    made[index] = _received(done, process)
            while turn in made:
                ok, value = made.pop(turn)
                turn += 1
                if not ok:
                    error, where = value
                    raise error from ProcessTraceback(where)
                yield value
    finally:  # an error, Ctrl-C or a caller that stopped: the processes go at once
        for receiving, (_, process) in running.items():
            process.terminate()
            process.join()
            receiving.close()


class ProcessTraceback(Exception):
    """Where an error of a forked process happened, as its traceback told it there."""


def _received(receiving: Connection, process: BaseProcess) -> tuple[bool, Any]:
    """What a process sent before it ended: its result, or its error."""
    try:
        outcome: tuple[bool, Any] = receiving.recv()
    except (EOFError, OSError):
        raise JubexError(
            "a process building the site ended without its result (killed, or out of memory?)",
            hint="-j 1 builds in one process",
        ) from None
    finally:
        receiving.close()
        process.join()
    return outcome


def _one(
    work: Callable[[Item], Result],
    start: Callable[[], None] | None,
    item: Item,
    sending: Connection,
) -> None:
    """A forked process' life: Ctrl-C is the parent's to handle (it ends the processes),
    not each one's to print its traceback; ``start``, the work, its result or its error
    sent; then the end, nothing freed."""
    global _kept
    _kept = []
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if start is not None:
            start()
        outcome: tuple[bool, Any] = (True, work(item))
    except BaseException as error:  # sent to be raised in the parent, in its item's turn
        outcome = (False, (error, traceback.format_exc()))
    try:
        sending.send(outcome)
    except Exception as error:  # a result or an error that cannot be pickled
        failed = JubexError(f"a process building the site failed: {error}")
        sending.send((False, (failed, traceback.format_exc())))
    sending.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
