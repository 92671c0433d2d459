"""How often the flags column marks an outlier in samples that hold none, and what it
says of samples that are no single population.

First table: normal noise, and the same noise as programs print it: rounded to a grid
(times in whole milliseconds), or put in fio's latency buckets (64 per power of two, each
shown as one value), which makes ties. Each share is of ``--samples`` samples per size
given any flag of the outlier test at all (an outlier, two groups, too many far values),
with the rule jubex uses and with the plain generalized ESD test from three values on
(the rule before ties and small samples were guarded against).

Second table: points of several executions of a program that repeats its measurement
(IOR's ``-i``): each execution draws its own mean (standard deviation ``between``), its
repetitions vary around it (``within`` 1); a value planted 10 ``within`` above its
execution's mean; two populations (a read from the page cache or from the disk). Shares
of ``--samples`` points: any value marked an outlier, values marked per point, flagged
``runs differ``, ``bimodal`` or ``not one population``, the planted value marked; before
(the pooled test) and with the rule jubex uses.

    python bench/bench_outlier_marks.py [--samples 4000]
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable, Iterable

from jubex.results.statistics import spread, stats

SIZES = (3, 4, 5, 6, 8, 10, 20, 50)


def _bucket(value: float) -> float:
    """fio's histogram: 64 buckets per power of two, a value shown as its bucket's middle."""
    width = 2.0 ** (math.floor(math.log2(value)) - 6)
    return (math.floor(value / width) + 0.5) * width


#: name -> a draw of one value
KINDS: dict[str, Callable[[random.Random], float]] = {
    "normal": lambda rng: rng.gauss(1000, 20),
    "ms grid (sd 0.5 grid steps)": lambda rng: round(rng.gauss(20, 0.5)),
    "ms grid (sd 1 grid step)": lambda rng: round(rng.gauss(20, 1)),
    "fio buckets (sd 1%)": lambda rng: _bucket(rng.gauss(1150, 11.5)),
    "fio buckets (sd 0.5%)": lambda rng: _bucket(rng.gauss(1150, 5.75)),
}


def _plain_esd(values: list[float]) -> list[int]:
    """The test alone, from three values on, ties not guarded against."""
    kept = stats.OUTLIER_MIN_N
    stats.OUTLIER_MIN_N = 3
    try:
        return stats._esd(values, 0.01)
    finally:
        stats.OUTLIER_MIN_N = kept


def _jubex(values: list[float]) -> bool:
    """Whether the table's test flags the values of one execution each at all."""
    found = spread.examine([[v] for v in values])
    return bool(found.outliers or found.groups or found.many)


#: name -> executions of a point (and the position of a planted far value, if any)
Point = tuple[list[list[float]], int | None]


def _clustered(runs: int, reps: int, between: float) -> Callable[[random.Random], Point]:
    def draw(rng: random.Random) -> Point:
        means = [rng.gauss(1000, between) for _ in range(runs)]
        return [[rng.gauss(m, 1) for _ in range(reps)] for m in means], None

    return draw


def _planted(runs: int, reps: int, between: float) -> Callable[[random.Random], Point]:
    clustered = _clustered(runs, reps, between)

    def draw(rng: random.Random) -> Point:
        executions, _ = clustered(rng)
        run, rep = rng.randrange(runs), rng.randrange(reps)
        executions[run][rep] = math.fsum(executions[run]) / reps + 10
        return executions, run * reps + rep

    return draw


def _cache(runs: int, reps: int, hits: float) -> Callable[[random.Random], Point]:
    """Reads served by the page cache (at 20000, cv 5 %) with probability ``hits``, else
    by the disk (at 3400, cv 5 %)."""

    def draw(rng: random.Random) -> Point:
        return [
            [
                rng.gauss(20000, 1000) if rng.random() < hits else rng.gauss(3400, 170)
                for _ in range(reps)
            ]
            for _ in range(runs)
        ], None

    return draw


CLUSTERED: dict[str, Callable[[random.Random], Point]] = {
    "5 x 5, between 0 (one population)": _clustered(5, 5, 0),
    "5 x 5, between 1": _clustered(5, 5, 1),
    "5 x 5, between 3": _clustered(5, 5, 3),
    "10 x 3, between 3": _clustered(10, 3, 3),
    "5 x 5, between 0, one value planted": _planted(5, 5, 0),
    "5 x 5, between 3, one value planted": _planted(5, 5, 3),
    "5 x 5, cache hits 60 %": _cache(5, 5, 0.6),
    "5 x 5, cache hits 90 %": _cache(5, 5, 0.9),
}


def _structured(samples: int) -> None:
    """The second table (see the module's docstring)."""
    print(
        "| data | rule | any outlier | values marked | runs differ | bimodal "
        "| not one population | planted found |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, draw in CLUSTERED.items():
        rng = random.Random(name)
        points = [draw(rng) for _ in range(samples)]
        before = [stats.outliers([v for e in ex for v in e]) for ex, _ in points]
        after = [spread.examine(ex) for ex, _ in points]
        planted = [at for _, at in points]
        rows = {
            "before": (before, [None] * samples),
            "jubex": ([list(s.outliers) for s in after], after),
        }
        for rule, (marked, shapes) in rows.items():
            cells = [
                _share(bool(m) for m in marked),
                f"{sum(map(len, marked)) / samples:.2f}",
                *(
                    _share(bool(s and getattr(s, kind)) for s in shapes)
                    for kind in ("runs", "groups", "many")
                ),
                _share(at in m for m, at in zip(marked, planted, strict=True) if at is not None)
                if planted[0] is not None
                else "",
            ]
            print(f"| {name} | {rule} | " + " | ".join(cells) + " |")


def _share(found: Iterable[bool]) -> str:
    flags = list(found)
    return f"{sum(flags) / len(flags):.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4000)
    args = parser.parse_args()
    print("| data | rule | " + " | ".join(f"n={n}" for n in SIZES) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in SIZES) + " |")
    for name, draw in KINDS.items():
        for rule, test in (("jubex", _jubex), ("plain ESD", _plain_esd)):
            shares = []
            for n in SIZES:
                rng = random.Random(n)
                marked = sum(bool(test([draw(rng) for _ in range(n)])) for _ in range(args.samples))
                shares.append(f"{marked / args.samples:.1%}")
            print(f"| {name} | {rule} | " + " | ".join(shares) + " |")
    print()
    _structured(args.samples)


if __name__ == "__main__":
    main()
