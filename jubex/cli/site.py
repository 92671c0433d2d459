"""``jubex site db:... -o DIR``: the results database as a static website (docs/dashboard.md)."""

from __future__ import annotations

import argparse
import contextlib

from jubex.cli.common import add_database_option, positive
from jubex.cli.compare import add_noise_options

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex site db: -o site", "the site of every published run, into site/"),
    ("jubex site db:benchmark=ior,since=2026-01-01 -o site --serve", "build it, then look"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "selector",
        nargs="?",
        default="db:",
        metavar="db:KEY=VALUE,...",
        help="which runs: benchmark, site, platform, user, host, version, id, since, until, "
        "last=N (of each benchmark at each site) or a parameter NAME=VALUE (default: all)",
    )
    parser.add_argument("-o", "--output", metavar="DIR", required=True, help="the site's directory")
    add_database_option(parser)
    parser.add_argument(
        "--base-url",
        default="",
        metavar="URL",
        help="where the site is published (the Atom feed's links start there)",
    )
    parser.add_argument(
        "--no-charts",
        action="store_true",
        help="build without the charts (when the bokeh package is not installed)",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="then serve the site on 127.0.0.1 until interrupted (to look, not to publish)",
    )
    parser.add_argument(
        "--all",
        dest="all_metrics",
        action="store_true",
        help="a history of every measured value (default: the headline values, as jubex "
        "history chooses them)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=positive,
        help="benchmarks x sites built at once, each in a process of its own (default: one a "
        "core this process may use)",
    )
    parser.add_argument("--port", type=int, default=8000, help="the port of --serve")
    add_noise_options(
        parser,
        tolerance="smallest change marked as a change point",
        alpha="chance of a false change point over each history",
    )


def handle(args: argparse.Namespace) -> int:
    from pathlib import Path

    from jubex.dashboard.build import build
    from jubex.errors import UsageError
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.select import is_selector

    if not is_selector(args.selector):
        raise UsageError(f"'{args.selector}' is no db: selector", hint="e.g. db:benchmark=ior")
    built = build(
        args.selector,
        Path(args.output),
        database=Database(args.database),
        charts=not args.no_charts,
        base_url=args.base_url,
        tolerance=args.tolerance,
        alpha=args.alpha,
        all_metrics=args.all_metrics,
        jobs=args.jobs,
    )
    print(
        f"{built.root}: {built.runs} run(s), {built.series} series, {built.change_points} "
        f"change point(s); {built.written} file(s) written, {built.unchanged} unchanged, "
        f"{built.removed} removed"
    )
    if args.serve:
        from jubex.dashboard.serve import HOST, server

        with server(built.root, args.port) as running:
            port = running.server_address[1]
            print(f"serving http://{HOST}:{port}/index.html (Ctrl-C stops)", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                running.serve_forever()
    return 0
