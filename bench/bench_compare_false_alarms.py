"""False alarms and power of ``jubex compare`` on synthetic runs with known noise.

Run: ``python bench/bench_compare_false_alarms.py [--trials 100] [--seed 1]``. Each trial
makes two result sets of one point with 30 metrics (higher is better), n repetitions each,
every value ``1000 × (1 + noise)``. Two questions, asked of the comparison as the CLI makes
it (one-sided test per metric, corrected over all metrics, tolerance 5 %):

* **false alarms**: both sides from the same distribution; how many of the trials say
  "regression" (at least one metric ``worse``)? The target is at most 5 of 100.
* **power**: the candidate's first metric is 10 % lower; in how many trials is that metric
  found ``worse``?

Each question is also asked as a CI gate reads it: the exit status of ``jubex compare``
(0 passed, 1 failed, 4 inconclusive), counted per status.

The noise is drawn two ways: normal with a standard deviation of 5 % (the strict reading
of "5 % noise"), and uniform within ±5 % (a standard deviation of 2.9 %).

``--nested`` asks the same two questions of nested samples instead: every side is 5
executions of a program that repeats its measurement 5 times (``ior -i 5``), each execution
with its own level (normal, sd ``--between``, 4.5 % by default) and its repetitions normal
around it (sd ``--within``, 1.5 %), as the rows of ``jubex result`` carry them (one row per
execution, its repetitions as ``samples``). Besides ``worse`` it counts the trials where
some metric was called worse beyond the noise at all (``worse`` or ``within tolerance``):
what the test's level promises.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from jubex.results.comparison.compare import Comparison, compare

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


def nested_set(
    rng: random.Random, executions: int, repetitions: int, spread: tuple[float, float], drop: float
) -> list[dict[str, object]]:
    """One row per execution, its ``repetitions`` as samples; the first metric ``drop``
    lower. ``spread``: the sd of the executions' levels and of the repetitions around them."""
    between, within = spread
    rows: list[dict[str, object]] = []
    for _ in range(executions):
        samples: dict[str, list[float]] = {}
        for index, metric in enumerate(METRICS):
            level = 1000 * (1 - drop if index == 0 else 1) * (1 + rng.gauss(0, between))
            samples[metric] = [level * (1 + rng.gauss(0, within)) for _ in range(repetitions)]
        rows.append(
            {"point": "p", "ok": True, **{m: v[0] for m, v in samples.items()}, "samples": samples}
        )
    return rows


def nested_trial(
    rng: random.Random, spread: tuple[float, float], drop: float, test: str, correction: str
) -> tuple[bool, bool, bool]:
    """(some metric beyond the noise the bad way, some regression, the dropped metric found
    worse) of 5 executions × 5 repetitions per side."""
    result = _compare(
        nested_set(rng, 5, 5, spread, 0.0), nested_set(rng, 5, 5, spread, drop), test, correction
    )
    bad = {item.metric for item in result.items if item.verdict in ("worse", "within tolerance")}
    worse = {item.metric for item in result.items if item.verdict == "worse"}
    if drop:
        bad, worse = bad - {METRICS[0]}, worse - {METRICS[0]}
    found = any(i.metric == METRICS[0] and i.verdict == "worse" for i in result.items)
    return bool(bad), bool(worse), found


def _compare(
    baseline: list[dict[str, object]],
    candidate: list[dict[str, object]],
    test: str,
    correction: str,
) -> Comparison:
    return compare(
        baseline,
        candidate,
        keys=["point"],
        metrics=METRICS,
        directions=dict.fromkeys(METRICS, True),
        tolerance=0.05,
        alpha=0.05,
        test=test,
        correction=correction,
    )


def trial(
    rng: random.Random, n: int, noise: Noise, drop: float, test: str, correction: str
) -> tuple[bool, bool, int]:
    """(a regression was reported, the dropped metric was found worse, the exit status)."""
    result = _compare(
        result_set(rng, n, noise, 0.0),
        result_set(rng, n, noise, drop),
        test,
        correction,
    )
    worse = {item.metric for item in result.items if item.verdict == "worse"}
    alarm = bool(worse - {METRICS[0]}) or (drop == 0 and bool(worse))
    return alarm, METRICS[0] in worse, result.status


def exits(statuses: list[int]) -> str:
    """How many trials exited 0, 1 and 4, as ``0/1/4``."""
    return "/".join(str(statuses.count(code)) for code in (0, 1, 4))


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
    parser.add_argument("--nested", action="store_true", help="5 executions x 5 repetitions")
    parser.add_argument("--between", type=float, nargs="+", default=[0.045])
    parser.add_argument("--within", type=float, default=0.015)
    args = parser.parse_args()
    configs = [tuple(config.split("/")) for config in args.configs]
    if args.nested:
        nested(args, configs)
        return
    print(f"{args.trials} trials each; 30 metrics, tolerance 5 %, alpha 0.05")
    print(
        f"{'noise':<14} {'n':>3} {'test':<12} {'correction':<10} {'false alarms':>12} "
        f"{'found':>6} {'A/A exits 0/1/4':>16} {'drop exits 0/1/4':>17}"
    )
    for name, noise in NOISES.items():
        for n in args.n:
            for test, correction in configs:
                rng = random.Random(args.seed)
                same = [trial(rng, n, noise, 0.0, test, correction) for _ in range(args.trials)]
                drop = [trial(rng, n, noise, 0.10, test, correction) for _ in range(args.trials)]
                alarms, found = sum(t[0] for t in same), sum(t[1] for t in drop)
                print(
                    f"{name:<14} {n:>3} {test:<12} {correction:<10} {alarms:>12} {found:>6} "
                    f"{exits([t[2] for t in same]):>16} {exits([t[2] for t in drop]):>17}",
                    flush=True,
                )


def nested(args: argparse.Namespace, configs: list[tuple[str, ...]]) -> None:
    """The false alarms and the power on 5 executions × 5 repetitions per side."""
    print(f"{args.trials} trials each; 30 metrics, 5 executions x 5 repetitions per side")
    print(
        f"{'between':>7} {'within':>6} {'test':<12} {'beyond noise':>12} {'worse':>6} {'found':>6}"
    )
    for between in args.between:
        spread = (between, args.within)
        for test, correction in configs:
            rng = random.Random(args.seed)
            same = [nested_trial(rng, spread, 0.0, test, correction) for _ in range(args.trials)]
            found = sum(
                nested_trial(rng, spread, 0.10, test, correction)[2] for _ in range(args.trials)
            )
            print(
                f"{between:>7.1%} {args.within:>6.1%} {test:<12} {sum(s[0] for s in same):>12} "
                f"{sum(s[1] for s in same):>6} {found:>6}",
                flush=True,
            )


if __name__ == "__main__":
    main()
