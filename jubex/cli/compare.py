"""``jubex compare BASELINE CANDIDATE``: regression acceptance of one run against another.

The exit status is the verdict (1 when any metric is worse beyond the noise and the
tolerance, else 0), so that the command gates continuous integration as it stands.
"""

from __future__ import annotations

import argparse

from jubex.api import compare
from jubex.cli.common import FORMATS, add_format, comma_list
from jubex.results.formats import render
from jubex.store.rundir import open_run, resolve_run


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run_help = "a run directory, an outpath (its latest run), a run id, 'last' or -N"
    parser.add_argument("baseline", metavar="BASELINE", help=f"the reference run: {run_help}")
    parser.add_argument("candidate", metavar="CANDIDATE", help=f"the run judged: {run_help}")
    parser.add_argument("--outpath", help="where runs given by id live")
    parser.add_argument(
        "--tolerance",
        type=lambda t: fraction(t, name="tolerance", upper=1),
        default=0.05,
        help="loss accepted when it is beyond the noise (default: 5%%)",
    )
    parser.add_argument(
        "--alpha",
        type=lambda t: fraction(t, name="significance level alpha", upper=1),
        default=0.05,
        help="significance level of Welch's t-test (default: 0.05)",
    )
    parser.add_argument(
        "-m",
        "--metric",
        type=comma_list,
        action="extend",
        default=[],
        metavar="NAME[,NAME...]",
        help="values to compare (default: the table's value columns, else every measured "
        "value whose better direction is known)",
    )
    parser.add_argument(
        "-k",
        "--keys",
        type=comma_list,
        action="extend",
        default=[],
        metavar="P[,P...]",
        help="parameters that identify a point (default: the table's group_by, else the "
        "parameters that vary)",
    )
    parser.add_argument("-T", "--table", help="take keys and metrics from this result table")
    add_format(parser, FORMATS, "pretty")


def handle(args: argparse.Namespace) -> int:
    runs = [open_run(resolve_run(spec, args.outpath)) for spec in (args.baseline, args.candidate)]
    result = compare(
        *runs,
        keys=args.keys,
        metrics=args.metric,
        table=args.table,
        tolerance=args.tolerance,
        alpha=args.alpha,
    )
    text = render(result.to_table(), args.format)
    print(text, end="" if text.endswith("\n") else "\n")
    return 1 if result.failed else 0
