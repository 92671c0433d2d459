"""Many short sums at once, each the float :func:`math.fsum` gives.

A history's steps and an outlier search's executions are tens of thousands of runs of a
few values; one ``math.fsum`` call each costs more than the rest of their arithmetic. Here
the runs of one length are the rows of an array, added up column by column with
error-free additions (Knuth's TwoSum): the sum so far rounded, and its exact error. The
errors are added up the same way; where that adds no error of its own, the row's exact
sum is the rounded sum plus the errors' sum, both floats, and their one rounded addition
is the correctly rounded sum, which ``math.fsum`` returns too. A row where the errors'
sum is not exact, or where anything is not finite (an overflow, an infinity, a NaN), is
left to ``math.fsum`` itself, which also raises what it raises.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]


def row_fsums(block: Floats) -> Floats:
    """``math.fsum`` of each row of a two-dimensional array, as floats (a zero sum is
    +0.0, as ``math.fsum`` gives it)."""
    import numpy as np

    rows, size = block.shape
    if not size:
        return np.zeros(rows)
    with np.errstate(over="ignore", invalid="ignore"):
        total = block[:, 0]
        errors = np.zeros(rows)
        unsure = np.zeros(rows, dtype=bool)
        for column in range(1, size):
            total, error = _two_sum(total, block[:, column])
            errors, left = _two_sum(errors, error)
            unsure |= left != 0  # (a NaN too)
        sums = (total + errors) + 0.0
    unsure |= ~np.isfinite(sums) | ~np.isfinite(errors)
    for row in np.flatnonzero(unsure).tolist():
        sums[row] = math.fsum(block[row].tolist())
    return sums


def _two_sum(a: Floats, b: Floats) -> tuple[Floats, Floats]:
    """``a + b`` rounded, and the exact error of that rounding (finite values)."""
    total = a + b
    part = total - a
    return total, (a - (total - part)) + (b - part)
