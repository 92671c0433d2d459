"""What a comparison tests of nested samples: the executions, not their repetitions.

Five executions of ``ior -i 5`` give 25 values of a point, but not 25 independent ones: the
repetitions of one execution share its node, its files and its moment. The execution is the
experimental unit, and the standard test of such nested data is on the units' means, n =
executions (results.md, "Comparing two result sets").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate, pairwise


def units_tested(
    base: list[float], base_runs: Sequence[int], cand: list[float], cand_runs: Sequence[int]
) -> tuple[list[float], list[float]]:
    """What a point's test compares: the executions' means where both sides hold two
    executions or more and some execution repeated its measurement, else the samples.

    The execution is the experimental unit: its repetitions share its node, its files and
    its moment, so that executions differ more than their repetitions do, and a test of
    the repetitions as independent samples takes a difference between executions for a
    change (5 executions of 5 repetitions, executions 3 times as spread as repetitions:
    a false alarm in 966 of 1,000 comparisons of 30 metrics at alpha 0.05, results.md). The
    means are taken whether or not the executions are seen to differ: with 5 executions
    the Kruskal–Wallis test misses a spread between them that still makes false alarms
    common. With one execution on a side its spread is unknown, and where every
    execution of each side has the same mean none is seen (a mixed model's estimate of it
    is then 0): the samples are tested.
    """
    if (
        sum(n > 0 for n in base_runs) < 2
        or sum(n > 0 for n in cand_runs) < 2
        or max(*base_runs, *cand_runs) < 2
        or sum(base_runs) != len(base)
        or sum(cand_runs) != len(cand)
    ):
        return base, cand
    means = _means(base, base_runs), _means(cand, cand_runs)
    return (base, cand) if all(len(set(m)) == 1 for m in means) else means


def by_execution(values: Sequence[float], runs: Sequence[int]) -> list[Sequence[float]]:
    """The values of each execution, from how many of them each gave, in order (an
    execution without a value gives none)."""
    return [values[a:b] for a, b in pairwise(accumulate(runs, initial=0))]


def _means(values: list[float], runs: Sequence[int]) -> list[float]:
    """Each execution's mean (an execution without a value has none)."""
    return [math.fsum(e) / len(e) for e in by_execution(values, runs) if e]


def execution_note(count: int) -> list[str]:
    """Why ``count`` comparisons tested their executions' means, once for all of them."""
    if not count:
        return []
    return [
        f"{count} comparison(s) tested the means of their executions, not every repetition: "
        "the repetitions of one execution (a program's own, such as IOR's -i) share its "
        "node, files and moment and are no independent samples; n and std there are those "
        "of the executions' means"
    ]
