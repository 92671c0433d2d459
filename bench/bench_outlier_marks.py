"""How often the flags column marks an outlier in samples that hold none.

Normal noise, and the same noise as programs print it: rounded to a grid (times in whole
milliseconds), or put in fio's latency buckets (64 per power of two, each shown as one
value), which makes ties. Each share is of ``--samples`` samples per size marked at all,
with the rule jubex uses and with the plain generalized ESD test from three values on
(the rule before ties and small samples were guarded against).

    python bench/bench_outlier_marks.py [--samples 4000]
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable

from jubex.results import stats

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4000)
    args = parser.parse_args()
    print("| data | rule | " + " | ".join(f"n={n}" for n in SIZES) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in SIZES) + " |")
    for name, draw in KINDS.items():
        for rule, test in (("jubex", stats.outliers), ("plain ESD", _plain_esd)):
            shares = []
            for n in SIZES:
                rng = random.Random(n)
                marked = sum(bool(test([draw(rng) for _ in range(n)])) for _ in range(args.samples))
                shares.append(f"{marked / args.samples:.1%}")
            print(f"| {name} | {rule} | " + " | ".join(shares) + " |")


if __name__ == "__main__":
    main()
