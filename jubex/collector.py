"""Python's cyclic garbage collector paused where jubex makes many objects without cycles.

Start-up imports tens of thousands of objects that live as long as the process, a
command reading runs makes rows that are dicts of plain values, and a JUBE file of many
benchmarks is a tree of tens of thousands of nodes read as long as the command runs: the
full collections either sets off walk everything made so far and find nothing (a tenth
of a small command's start-up, 10-20 % of reading 10,000 rows, a third of validating a
JUBE file of 10,000 benchmarks).

The collector counts what is made while it is off, and the first collection after it is
on again walks all of it that is still alive (the modules of a command, the runs it
read): 4-6 ms of a 0.25 s table, 10-20 ms of a history of 1,000 runs, again at each
older generation's turn. In a process that is one command (the command line's own),
what such a pause made and the command keeps to its end is frozen out of the
collector's sight instead (``kept``): freed as ever when nothing refers to it, never
walked again. A process that runs commands again and again (a program calling ``main``,
the tests) freezes nothing: its cycles would never be collected.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: whether this process is one command's (see the module's text)
_ONE_COMMAND = {"on": False}


def one_command(on: bool = True) -> None:
    """Say whether this process is one command's: its kept pauses freeze what they made."""
    _ONE_COMMAND["on"] = on


@contextmanager
def paused(*, kept: bool = False) -> Iterator[None]:
    """The collector off inside, and on again after if it was on before; ``kept``: what
    is alive at the end lives to the end of the command, and is frozen
    (:func:`gc.freeze`) where the process is one command's."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if kept and _ONE_COMMAND["on"]:
            gc.freeze()
        if enabled:
            gc.enable()
