"""``jubex plot [RUN...]``: a metric against a parameter, one line per group; or the plots
the definition declares, into the run's ``plots/`` directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jubex.cli.common import (
    add_runs_selector,
    add_tabulating_options,
    kept_apart_by,
    shown,
    tabulated_runs,
)
from jubex.definition.model import PLOT_ERRORS, PLOT_KINDS, PLOT_STATS, Plot
from jubex.errors import UsageError
from jubex.store.rundir import Run

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex plot -x transfer -y write_bw -g tasks", "write_bw_by_transfer.svg here"),
    ("jubex plot -x tasks -y write_bw --stat max -o bw.png", ""),
    ("jubex plot", "the plots the definition declares, into RUN/plots/"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(
        parser, "; several runs are one result set (group by run or site to tell them apart)"
    )
    parser.add_argument("-x", metavar="PARAM", help="the parameter along the horizontal axis")
    parser.add_argument("-y", metavar="VALUE", help="the measured value drawn (its statistic)")
    parser.add_argument(
        "-g",
        "--group",
        action="append",
        default=[],
        metavar="KEY",
        help="one line (or bar) per value of this parameter or of run, site, platform (repeatable)",
    )
    parser.add_argument(
        "--kind",
        choices=PLOT_KINDS,
        default=None,
        help="line (numeric x), bar (categories) or heatmap (with --rows); default: auto",
    )
    parser.add_argument(
        "--rows", metavar="PARAM", help="a heatmap's second parameter, down the vertical axis"
    )
    parser.add_argument(
        "--stat", choices=PLOT_STATS, default="mean", help="the statistic drawn (default: mean)"
    )
    parser.add_argument(
        "--error",
        choices=PLOT_ERRORS,
        default="std",
        help="error bars: standard deviation, 95%% confidence interval, none (default: std)",
    )
    parser.add_argument(
        "--logx",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a log2 x axis (default: when x is sizes or powers of two)",
    )
    parser.add_argument("--logy", action="store_true", help="a logarithmic y axis")
    parser.add_argument("--filter", metavar="EXPR", help="only rows where EXPR is true")
    parser.add_argument("--title", help="the plot's title")
    parser.add_argument(
        "--plot",
        action="append",
        default=[],
        metavar="NAME",
        help="without -x/-y: only this plot of the definition (repeatable)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the file, .svg, .png or .pdf (default: Y_by_X.svg here; the definition's "
        "plots: RUN/plots/NAME.FORMAT)",
    )
    add_tabulating_options(parser)


def handle(args: argparse.Namespace) -> int:
    runs = tabulated_runs(args)
    written = [_ad_hoc(runs, args)] if args.x or args.y else _declared(runs, args)
    for path in written:
        print(shown(path))
    return 0


def plot_of(args: argparse.Namespace) -> Plot:
    """The plot the flags describe."""
    if not (args.x and args.y):
        raise UsageError("a plot needs both -x PARAM and -y VALUE, e.g. -x nodes -y write_bw")
    kind = args.kind or ("heatmap" if args.rows else "auto")
    if kind == "heatmap" and not args.rows:
        raise UsageError("--kind heatmap needs --rows PARAM: the parameter down the vertical axis")
    if args.rows and kind != "heatmap":
        raise UsageError(f"--rows makes a heatmap, not a {kind} plot")
    if kind == "heatmap" and args.group:
        raise UsageError("a heatmap's colour is its value: it takes no --group (use --filter)")
    return Plot(
        f"{args.y}_by_{args.x}",
        x=args.x,
        y=args.y,
        group=tuple(args.group),
        kind=kind,
        rows=args.rows,
        stat=args.stat,
        error=args.error,
        logx=args.logx,
        logy=args.logy,
        filter=args.filter,
        title=args.title or f"{args.y} by {args.x}",
    )


def _ad_hoc(runs: list[Run], args: argparse.Namespace) -> Path:
    from jubex.results.presentation.plot import draw, refuse_if_empty, save
    from jubex.results.presentation.plotdata import plot_data

    plot = plot_of(args)
    data = plot_data(runs, plot, include_failed=args.include_failed, by=kept_apart_by(args))
    refuse_if_empty(plot, data)
    _notes(data.notes)
    return save(draw(data), Path(args.output or f"{plot.name}.svg"))


def _declared(runs: list[Run], args: argparse.Namespace) -> list[Path]:
    from jubex.results.presentation.plot import draw_declared, save

    if not runs[0].benchmark.plots:
        raise UsageError(
            "the definition declares no plots (plots: beside results:); draw one with "
            "-x PARAM -y VALUE, e.g. jubex plot -x nodes -y write_bw --group api"
        )
    drawn = draw_declared(
        runs,
        args.plot,
        include_failed=args.include_failed,
        by=kept_apart_by(args),
        refuse_empty=True,
    )
    if args.output and len(drawn) > 1:
        raise UsageError("-o names one file, but the definition has several plots: add --plot NAME")
    written = []
    for plot, figure, notes in drawn:
        _notes(notes, plot.name)
        default = runs[-1].dir / "plots" / f"{plot.name}.{plot.format}"
        written.append(save(figure, Path(args.output) if args.output else default))
    return written


def _notes(notes: list[str], name: str = "") -> None:
    for note in notes:
        print(f"note{f' ({name})' if name else ''}: {note}", file=sys.stderr)
