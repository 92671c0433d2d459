"""``jubex info FILE|RUN``: the space a definition spans, or a run's parametrisation."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path

from jubex.api import resolve
from jubex.cli.common import add_definition_options, add_limit_option, overrides
from jubex.space.expand import Space
from jubex.space.limit import count_text, count_work, limit_of
from jubex.space.plan import SHARED, plan
from jubex.store.rundir import Run, open_run, resolve_run

SHOWN = 10
#: a space with constraints is listed for its exact count up to this many points
WALK = 100_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="?",
        metavar="FILE|RUN",
        help="a definition file, or a run (default: the latest run)",
    )
    parser.add_argument("--all", action="store_true", help="list every point, not the first 10")
    parser.add_argument("-f", "--format", choices=("pretty", "csv", "json"), default="pretty")
    parser.add_argument(
        "-P",
        "--parametrisation",
        "--parametrization",
        action="store_true",
        dest="parametrisation",
        help="a run's workpackages with their parameters",
    )
    add_definition_options(parser, bare_parameter="list a run's parametrisation (as JUBE)")
    add_limit_option(parser)


def handle(args: argparse.Namespace) -> int:
    target = args.target
    if "" in args.parameter:
        args.parametrisation = True
    if target and Path(target).is_file():
        return _definition_info(args)
    run = open_run(resolve_run(target))
    return _run_info(run, args)


def _definition_info(args: argparse.Namespace) -> int:
    """The space and each step's workpackages, counted without listing them: any size
    answers at once (a constrained space is listed for its exact count up to WALK)."""
    spec = resolve(
        args.target, tags=args.tag, overrides=overrides(args), include_path=args.include_path
    )
    benchmark = spec.benchmark
    space = Space(
        list(benchmark.parametersets.values()),
        benchmark.where,
        overrides=spec.overrides,
        tags=spec.tags,
        file=benchmark.file,
    )
    names = list(space.names)
    bound = space.upper_bound()
    points = space.points(None if args.all or not space.constrained else WALK)
    rows = [[str(p[n]) for n in names] for p in (points if args.all else islice(points, SHOWN))]
    exact = args.all or not space.constrained or bound <= WALK
    total = len(rows) + sum(1 for _ in points) if space.constrained and exact else bound
    work = count_work(benchmark, overrides=spec.overrides, tags=spec.tags)
    steps_bound = not all(s.exact for s in work)
    per_step = {s.step: s.points * s.per_point for s in work}  # a shared operation is none
    if steps_bound and sum(per_step.values()) <= WALK:
        listed = plan(benchmark, overrides=spec.overrides, tags=spec.tags)
        per_step = dict(Counter(wp.step for wp in listed if wp.kind != SHARED))
        steps_bound = False
    limit = limit_of(benchmark, args.max_workpackages)
    over = sum(s.work for s in work) > limit
    if args.format != "pretty":
        _emit(
            args.format,
            names,
            rows,
            {
                "name": benchmark.name,
                "points": _json_count(total),
                "points_exact": exact,
                "varying": list(space.varying),
                "workpackages": {k: _json_count(v) for k, v in per_step.items()},
                "over_limit": over,
            },
        )
        return 0
    print(f"benchmark {benchmark.name}: {benchmark.comment}".rstrip(": "))
    counted = count_text(total) if exact else f"at most {count_text(bound)}"
    print(f"parameter space: {counted} point(s) of {count_text(bound)} before constraints")
    print(f"varying: {', '.join(space.varying) or 'nothing'}")
    for name in benchmark.steps:
        few = "at most " if steps_bound else ""
        print(f"step {name}: {few}{count_text(per_step.get(name, 0))} workpackage(s)")
    if over:
        print(
            f"a run is refused: more than {limit:,} workpackage cycles "
            "(--max-workpackages N or max_workpackages: N raises the limit)"
        )
    _print_table(names, rows)
    if not exact:
        print(f"(points listed from the first {WALK:,} combinations; --all lists every point)")
    if not args.all and exact and total > len(rows):
        print(f"... {count_text(total - len(rows))} more (--all lists them)")
    return 0


def _json_count(n: int) -> int | str:
    """A count for JSON: a number, or past 10^15 its text (``about 10^40``)."""
    return n if n < 10**15 else count_text(n)


def _run_info(run: Run, args: argparse.Namespace) -> int:
    meta = run.meta
    wps = run.store.workpackages()
    names = list(dict.fromkeys(n for wp in wps for n in wp.point))
    rows = [
        [
            str(wp.id),
            wp.step,
            str(wp.iteration),
            wp.state,
            wp.job_id or "",
            *(str(wp.point.get(n, "")) for n in names),
        ]
        for wp in wps
    ]
    header = ["id", "step", "iteration", "state", "job", *names]
    if args.format != "pretty":
        _emit(args.format, header, rows, {"run": str(run.dir), **meta})
        return 0
    for key in (
        "name",
        "comment",
        "platform",
        "created",
        "host",
        "user",
        "command",
        "jubex_version",
        "tags",
        "overrides",
    ):
        if meta.get(key) and meta[key] not in ("[]", "{}"):
            value = meta[key]
            if key == "created":
                value = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(value)))
            print(f"{key}: {value}")
    if args.parametrisation or args.all:
        _print_table(header, rows)
    else:
        print(f"{len(wps)} workpackage(s); -P lists them with their parameters")
    return 0


def _emit(fmt: str, header: Sequence[str], rows: Iterable[Sequence[str]], info: dict) -> None:
    if fmt == "json":
        print(
            json.dumps({**info, "columns": list(header), "rows": [list(r) for r in rows]}, indent=1)
        )
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    sys.stdout.write(buffer.getvalue())


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
