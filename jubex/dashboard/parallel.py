"""The groups of a site made on every core: forked processes, results in the given order.

A site's groups (each benchmark at each site) are independent: each reads its own samples
and writes its own files. A build hands each to a process forked for it from the one that
read the runs, so that it shares that memory (the runs, the manifest) without sending it,
and takes the results back in the order the groups were given: the site and its manifest
are the same whatever the number of processes and whichever finishes first.

A process a group: a group's millions of samples, rows and pages are given back to the
system at once when its process ends, not freed object by object (a tenth of a group's
time, objects spread over a heap of a gigabyte), and no group starts in a heap that the
groups before it left in pieces.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext
from multiprocessing.process import BaseProcess
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
    item) is asked, else each item in a process forked for it, ``jobs`` at a time.

    ``work`` must find what it needs beyond its item in what the processes share from
    before the fork; ``start`` is called first in each worker. An error of ``work`` is
    raised here in its item's turn, the worker's traceback its cause. A worker that dies
    (killed, out of memory) ends the whole with an error, never a wait for a result that
    cannot come."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, items)
        return
    context = multiprocessing.get_context("fork")
    running: dict[int, tuple[BaseProcess, Connection]] = {}
    done: dict[int, tuple[bool, object, str]] = {}
    given = 0
    try:
        for turn in range(len(items)):
            while turn not in done:
                while len(running) < jobs and given < len(items):
                    running[given] = _started(context, work, items[given], start)
                    given += 1
                ready = wait([receive for _, receive in running.values()])
                for index in [i for i, (_, receive) in running.items() if receive in ready]:
                    done[index] = _received(running[index][1])
                    running.pop(index)[0].join()
            ok, result, where = done.pop(turn)
            if not ok:
                raise result from _RemoteTraceback(where)  # type: ignore[misc]
            yield result  # type: ignore[misc]
    finally:  # an error or Ctrl-C: the workers go at once
        for process, receive in running.values():
            process.terminate()
            process.join()
            receive.close()


def _started(
    context: ForkContext,
    work: Callable[[Item], Result],
    item: Item,
    start: Callable[[], None] | None,
) -> tuple[BaseProcess, Connection]:
    """A worker forked for ``item``, and the end of the pipe its result comes by."""
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_worker, args=(work, item, start, send), daemon=True)
    process.start()
    send.close()  # the worker's alone: its end, when it dies, is the end of the pipe
    return process, receive


def _received(receive: Connection) -> tuple[bool, object, str]:
    """What a worker sent: its result, or its error and where it happened."""
    try:
        with receive:
            found: tuple[bool, object, str] = receive.recv()
    except EOFError:
        raise JubexError(
            "a process building the site ended without its result (killed, or out of memory?)",
            hint="-j 1 builds in one process",
        ) from None
    return found


class _RemoteTraceback(Exception):
    """Where a worker's error happened: its traceback, as the cause of the error raised."""

    def __str__(self) -> str:
        return str(self.args[0])


def _worker(
    work: Callable[[Item], Result],
    item: Item,
    start: Callable[[], None] | None,
    send: Connection,
) -> None:
    """A worker's life: Ctrl-C is the parent's to handle (it ends the workers), not each
    worker's to print its traceback; then ``start``, the work, and its result sent. The
    process ends without freeing what the work left (:mod:`multiprocessing` ends a forked
    process at once)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if start is not None:
            start()
        sent: tuple[bool, object, str] = (True, work(item), "")
    except BaseException as error:  # every error is the parent's to raise
        sent = (False, error, traceback.format_exc())
    try:
        send.send(sent)
    except Exception as error:  # a result or an error that pickle cannot send
        send.send((False, JubexError(f"a group's result could not be sent back: {error}"), ""))
    send.close()
