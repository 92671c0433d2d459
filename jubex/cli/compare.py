"""``jubex compare BASELINE CANDIDATE``: regression acceptance of one run against another.

The exit status is the verdict, so that the command gates continuous integration as it
stands: 0 passed, 1 a metric is worse beyond the noise and the tolerance, 2 wrong usage or
data that cannot be compared (a value the candidate lacks, a value that is no number), 4
inconclusive: no regression found, but the noise could hide a loss beyond the tolerance
(``--strict`` makes it 1, ``--allow-inconclusive`` 0).
"""

from __future__ import annotations

import argparse

from jubex.cli.common import (
    add_database_option,
    add_format,
    add_list_option,
    one_run,
    say_read,
    write_output,
)
from jubex.collector import paused as collector_paused
from jubex.results.statistics.significance import CORRECTIONS, TESTS
from jubex.results.tables.formats import render


def fraction(text: str, *, name: str, upper: float) -> float:
    """``5%`` or ``0.05``; a bare ``5`` is refused, since it could mean either."""
    number = text.strip()
    percent = number.endswith("%")
    try:
        value = float(number.rstrip("%").strip())
    except ValueError:
        value = -1.0
    if percent:
        value /= 100
    if not 0 <= value < upper or (value >= 1 and not percent):
        raise argparse.ArgumentTypeError(
            f"expected the {name} as a percentage such as 5% or a fraction such as 0.05, "
            f"got '{text}'"
        )
    return value


def add_noise_options(parser: argparse.ArgumentParser, *, tolerance: str, alpha: str) -> None:
    """``--tolerance`` and ``--alpha``, as compare and history take them."""
    parser.add_argument(
        "--tolerance",
        type=lambda t: fraction(t, name="tolerance", upper=1),
        default=0.05,
        help=f"{tolerance} (default: 5%%)",
    )
    parser.add_argument(
        "--alpha",
        type=lambda t: fraction(t, name="significance level alpha", upper=1),
        default=0.05,
        help=f"{alpha} (default: 0.05)",
    )


#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    (
        "jubex compare 0 1",
        "run 1 against run 0; exit 1: a regression beyond the noise, 4: inconclusive",
    ),
    ("jubex compare 0 1 --strict", "an acceptance test: inconclusive fails too"),
    ("jubex compare 0 1 -m write_bw -f junit", "one metric, as JUnit XML for CI"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run_help = (
        "a run directory, an outpath (its latest run), a run id, 'last', -N or a db: "
        "selector naming one published run"
    )
    parser.add_argument("baseline", metavar="BASELINE", help=f"the reference run: {run_help}")
    parser.add_argument("candidate", metavar="CANDIDATE", help=f"the run judged: {run_help}")
    parser.add_argument("--outpath", help="where runs given by id live")
    add_database_option(parser)
    add_noise_options(
        parser,
        tolerance="loss accepted when it is beyond the noise",
        alpha="chance of a false alarm over all points and metrics together",
    )
    parser.add_argument(
        "--test",
        choices=TESTS,
        default="moderated",
        help="moderated: Welch's t-test on the means, each variance moderated by those of "
        "the other points (default; Welch's own below 10 points); welch: Welch's t-test "
        "alone; mannwhitney: Mann-Whitney's U on ranks, for skewed data (needs more "
        "repetitions)",
    )
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="holm: bound the chance of any false alarm (default); bh: Benjamini-Hochberg, "
        "bound the share of false alarms among the alarms",
    )
    parser.add_argument(
        "--all",
        dest="all_metrics",
        action="store_true",
        help="compare every measured value, not only the tables' headline values",
    )
    add_list_option(
        parser,
        "-m",
        "--metric",
        metavar="NAME[,NAME...]",
        help="values to compare (default: the value columns of the definition's tables, "
        "else every measured value whose better direction is known)",
    )
    add_list_option(
        parser,
        "-k",
        "--keys",
        metavar="P[,P...]",
        help="parameters that identify a point (default: the table's group_by, else the "
        "parameters that vary)",
    )
    judged = parser.add_mutually_exclusive_group()
    judged.add_argument(
        "--allow-inconclusive",
        action="store_true",
        help="pass (exit 0) a metric the test cannot judge (neither a change nor "
        "equivalence shown) even when its observed loss is beyond the tolerance",
    )
    judged.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on such a metric, as an acceptance test must; by default the "
        "comparison is inconclusive (exit 4)",
    )
    parser.add_argument("-T", "--table", help="take keys and metrics from this result table")
    add_format(parser, ("pretty", "json", "junit"), "pretty")
    parser.add_argument(
        "--junit",
        metavar="FILE",
        help="also write the comparison as JUnit XML to FILE, for CI's test report",
    )


def handle(args: argparse.Namespace) -> int:
    from jubex.api import compare  # with analysing's imports: not for history's options
    from jubex.results.comparison.gate import to_json, to_junit

    runs = [one_run(spec, args.outpath, args.database) for spec in (args.baseline, args.candidate)]
    say_read(runs)
    # the two runs' rows (10,000 each for a sweep of 10,000 workpackages) are plain values
    # made once and kept: the collector's full collections walked them for nothing
    with collector_paused(kept=True):
        result = compare(
            *runs,
            keys=args.keys,
            metrics=args.metric,
            table=args.table,
            tolerance=args.tolerance,
            alpha=args.alpha,
            test=args.test,
            correction=args.correction,
            all_metrics=args.all_metrics,
            allow_inconclusive=args.allow_inconclusive,
            strict=args.strict,
        )
    if args.format == "json":
        text = to_json(result)
    elif args.format == "junit":
        text = to_junit(result)
    else:
        text = render(result.to_table(), "pretty")
    print(text, end="" if text.endswith("\n") else "\n")
    if args.junit:
        write_output(to_junit(result), args.junit)
    return result.status
