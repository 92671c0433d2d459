"""``jubex compare BASELINE CANDIDATE``: regression acceptance of one run against another.

The exit status is the verdict (1 when any metric is worse beyond the noise and the
tolerance, else 0), so that the command gates continuous integration as it stands.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence

from jubex.analysis.run import analyse_run
from jubex.cli.common import FORMATS, add_format
from jubex.cli.tables import META, directions_of, rows_for, tables_of
from jubex.definition.model import Table
from jubex.errors import UsageError
from jubex.results.compare import Comparison, compare
from jubex.results.formats import render
from jubex.results.rows import result_rows, units_of
from jubex.store.rundir import open_run, resolve_run

Row = dict[str, object]


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
        nargs="+",
        action="extend",
        default=[],
        metavar="NAME",
        help="values to compare (default: the table's value columns, else every measured "
        "value whose better direction is known)",
    )
    parser.add_argument(
        "-k",
        "--keys",
        nargs="+",
        action="extend",
        default=[],
        metavar="P",
        help="parameters that identify a point (default: the table's group_by, else the "
        "parameters that vary)",
    )
    parser.add_argument("--table", help="take keys and metrics from this result table")
    add_format(parser, FORMATS, "pretty")


def handle(args: argparse.Namespace) -> int:
    runs = [open_run(resolve_run(spec, args.outpath)) for spec in (args.baseline, args.candidate)]
    for run in runs:
        analyse_run(run)
    rows = [list(result_rows(run)) for run in runs]
    table = tables_of(runs[:1], [args.table])[0] if args.table else None
    if table is not None:
        analysers = {a.name: a.step for a in runs[0].benchmark.analysers.values()}
        rows = [rows_for(table, side, analysers) for side in rows]
    directions = {**directions_of(runs[1]), **directions_of(runs[0])}
    parameters = {name for run in runs for name in run.benchmark.parameter_types()}
    metrics = args.metric or default_metrics(rows, parameters, directions, table)
    steps = _steps_with(rows, metrics)
    if steps:  # else compare() names the metric that no row has
        rows = [[row for row in side if row["jube_step_name"] in steps] for side in rows]
    keys = args.keys or default_keys(rows, parameters, table)
    result = applicable(
        compare(
            rows[0],
            rows[1],
            keys=keys,
            metrics=metrics,
            directions=directions,
            tolerance=args.tolerance,
            alpha=args.alpha,
        )
    )
    result.notes.insert(
        0, f"baseline {runs[0].dir}, candidate {runs[1].dir}; points by {', '.join(keys) or '—'}"
    )
    units = {**units_of(runs[1]), **units_of(runs[0])}
    text = render(result.to_table(units), args.format)
    print(text, end="" if text.endswith("\n") else "\n")
    return 1 if result.failed else 0


def default_metrics(
    rows: Sequence[Sequence[Row]],
    parameters: set[str],
    directions: dict[str, bool | None],
    table: Table | None,
) -> list[str]:
    """The table's measured value columns, or every measured value with a known direction."""
    measured = [name for name in _numeric(rows) if name not in parameters]
    if table is not None:
        names = [c.name for c in table.columns if not c.expr and c.name not in table.group_by]
        found = [_base_name(n, measured) for n in names]
        metrics = list(dict.fromkeys(n for n in found if n is not None))
    else:
        metrics = [n for n in measured if directions.get(n) is not None]
    if not metrics:
        where = f"table '{table.name}' shows" if table else "the runs hold"
        raise UsageError(
            f"nothing to compare: {where} no measured value whose better direction is known",
            hint="name the values with --metric",
        )
    return metrics


def default_keys(
    rows: Sequence[Sequence[Row]], parameters: set[str], table: Table | None
) -> list[str]:
    """A table's group_by, or the parameters that vary within either run.

    A parameter that differs only *between* the runs (the setting under test) is no key:
    it would put every point of one run apart from every point of the other.
    """
    if table is not None and table.group_by:
        return list(table.group_by)
    keys: dict[str, None] = {}
    for side in rows:
        for name in dict.fromkeys(k for row in side for k in row if k in parameters):
            if len({str(row.get(name)) for row in side}) > 1:
                keys[name] = None
    return list(keys)


def applicable(result: Comparison) -> Comparison:
    """Drop metrics that neither run measured at a point (another step's values)."""
    items = [i for i in result.items if i.baseline is not None or i.candidate is not None]
    return dataclasses.replace(result, items=items)


def _numeric(rows: Sequence[Sequence[Row]]) -> list[str]:
    """Names holding a number in some row, meta keys left out."""
    found: dict[str, None] = {}
    for side in rows:
        for row in side:
            found.update(
                dict.fromkeys(
                    k
                    for k, v in row.items()
                    if k not in META and isinstance(v, int | float) and not isinstance(v, bool)
                )
            )
    return list(found)


def _base_name(name: str, measured: Sequence[str]) -> str | None:
    """A column as written (``write_bw``) or in JUBE's ``<name>_<stat>`` spelling."""
    if name in measured:
        return name
    base = name.rpartition("_")[0]
    return base if base in measured else None


def _steps_with(rows: Sequence[Sequence[Row]], metrics: Sequence[str]) -> set[object]:
    return {
        row["jube_step_name"]
        for side in rows
        for row in side
        if any(row.get(m) is not None for m in metrics)
    }
