"""False alarms and power of ``jubex compare`` on synthetic runs with known noise.

Run: ``python bench/bench_compare_false_alarms.py [--trials 100] [--seed 1]``. Each trial
makes two result sets of one point with 30 metrics (higher is better), n repetitions each,
every value ``1000 × (1 + noise)``. Two questions, asked of the comparison as the CLI makes
it (one-sided test per metric, corrected over all metrics, tolerance 5 %):

* **false alarms**: both sides from the same distribution; how many of the trials say
  "regression" (at least one metric ``worse``)? The target is at most 5 of 100.
* **power**: the candidate's first metric is 10 % lower; in how many trials is that metric
  found ``worse``?

The noise is drawn two ways: normal with a standard deviation of 5 % (the strict reading
of "5 % noise"), and uniform within ±5 % (a standard deviation of 2.9 %).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from jubex.results.compare import compare

METRICS = [f"m{i:02d}" for i in range(30)]
Noise = Callable[[random.Random], float]
NOISES: dict[str, Noise] = {
    "normal sd 5%": lambda rng: rng.gauss(0, 0.05),
    "uniform +-5%": lambda rng: rng.uniform(-0.05, 0.05),
}


def result_set(rng: random.Random, n: int, noise: Noise, drop: float) -> list[dict[str, object]]:
    """n repetitions of one point; the first metric ``drop`` (a fraction) lower."""
    rows: list[dict[str, object]] = []
    for _ in range(n):
        row: dict[str, object] = {"point": "p", "ok": True}
        for index, metric in enumerate(METRICS):
            level = 1000 * (1 - drop) if index == 0 else 1000
            row[metric] = level * (1 + noise(rng))
        rows.append(row)
    return rows


def trial(
    rng: random.Random, n: int, noise: Noise, drop: float, test: str, correction: str
) -> tuple[bool, bool]:
    """(a regression was reported, the dropped metric was found worse)."""
    result = compare(
        result_set(rng, n, noise, 0.0),
        result_set(rng, n, noise, drop),
        keys=["point"],
        metrics=METRICS,
        directions=dict.fromkeys(METRICS, True),
        tolerance=0.05,
        alpha=0.05,
        test=test,
        correction=correction,
    )
    worse = {item.metric for item in result.items if item.verdict == "worse"}
    return bool(worse - {METRICS[0]}) or (drop == 0 and bool(worse)), METRICS[0] in worse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--n", type=int, nargs="+", default=[5, 10], help="repetitions per side")
    parser.add_argument(
        "--configs",
        nargs="+",
        default=["welch/holm", "welch/bh", "mannwhitney/holm"],
        help="test/correction pairs (mannwhitney is slow)",
    )
    args = parser.parse_args()
    configs = [tuple(config.split("/")) for config in args.configs]
    print(f"{args.trials} trials each; 30 metrics, tolerance 5 %, alpha 0.05")
    print(
        f"{'noise':<14} {'n':>3} {'test':<12} {'correction':<10} {'false alarms':>12} {'found':>6}"
    )
    for name, noise in NOISES.items():
        for n in args.n:
            for test, correction in configs:
                rng = random.Random(args.seed)
                alarms = sum(
                    trial(rng, n, noise, 0.0, test, correction)[0] for _ in range(args.trials)
                )
                found = sum(
                    trial(rng, n, noise, 0.10, test, correction)[1] for _ in range(args.trials)
                )
                print(
                    f"{name:<14} {n:>3} {test:<12} {correction:<10} {alarms:>12} {found:>6}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
