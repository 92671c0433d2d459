"""Python's cyclic garbage collector paused where jubex makes many objects without cycles.

Start-up imports tens of thousands of objects that live as long as the process, and a
command reading runs makes rows that are dicts of plain values: the full collections
either sets off walk everything made so far and find nothing (a tenth of a small
command's start-up, 10-20 % of reading 10,000 rows).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off inside, and on again after if it was on before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
