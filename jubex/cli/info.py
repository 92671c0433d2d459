"""``jubex info FILE|RUN``: the space a definition spans, or a run's parametrisation."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from jubex.api import resolve
from jubex.cli.common import add_definition_options, add_format, add_limit_option, overrides
from jubex.cli.provenance import (
    JOB_COLUMNS,
    job_columns,
    jube_origin_lines,
    jube_run,
    provenance_lines,
)
from jubex.definition.model import ParameterSet
from jubex.engine import provenance
from jubex.errors import no_such_file
from jubex.space.expand import STEP_NAME, Space
from jubex.space.limit import count_text, count_work, limit_of
from jubex.space.plan import SHARED, plan
from jubex.space.sources import COMMAND_LINE
from jubex.store.jobs import job_records
from jubex.store.rundir import Run, open_run, resolve_run

SHOWN = 10
#: the most combinations info walks: a constrained space for its count, any for --all
WALK = 100_000
#: about how long info may walk them; a slow constraint makes it walk fewer
SECONDS = 1.0
#: up to this many workpackages, a constrained space's steps are planned for exact counts
PLANNED = 10_000


@dataclass
class Walked:
    """What a bounded walk of a space found: the rows to show, the points among the
    combinations tried, and how many combinations that was."""

    rows: list[list[str]]
    found: int
    tried: int


def walk(space: Space, names: Sequence[str], every: bool) -> Walked:
    """The points among the first combinations, 1,000 then ten times more each round up to
    :data:`WALK`, as long as the round before says the next ends within :data:`SECONDS` of
    CPU time (wall time would make the answer depend on the load of the machine).

    Rows are every point found when ``every``, else the first :data:`SHOWN`. An
    unconstrained space is not walked for its count (it is its size)."""
    bound = space.upper_bound()
    if not space.constrained and not every:
        points = space.points(SHOWN)
        return Walked([[str(p[n]) for n in names] for p in points], bound, bound)
    deadline = time.process_time() + SECONDS
    tried, done = 1_000, Walked([], 0, 0)
    while True:
        started = time.process_time()
        points = space.points(None if tried >= bound else tried)  # None: an empty space is an error
        rows = [[str(p[n]) for n in names] for p in (points if every else islice(points, SHOWN))]
        done = Walked(rows, len(rows) + sum(1 for _ in points), min(tried, bound))
        spent = time.process_time() - started
        if done.tried == bound or tried >= WALK or started + spent * 11 > deadline:
            return done
        tried = min(tried * 10, WALK)


#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex info ior.yaml", "size of the space, what varies, the first points"),
    ("jubex info ior.yaml -p tasks=1,2,4 --all", "every point, a parameter overridden"),
    ("jubex info runs/000000 --parametrisation", "the values a run's workpackages had"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="?",
        metavar="FILE|RUN",
        help="a definition file, or a run (default: the latest run)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help=f"list every point (of the first {WALK:,} combinations), not the first 10",
    )
    add_format(parser, ("pretty", "csv", "json"), "pretty")
    parser.add_argument(
        "-P",
        "--platform",
        help="of a definition: the platform `jubex run -P` would use, whose values it takes",
    )
    parser.add_argument(
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
    lone = [value for value in args.parameter if "=" not in value]
    if lone:  # a lone -p (JUBE's spelling), which may have taken the RUN after it
        args.parametrisation = True
        args.parameter = [value for value in args.parameter if "=" in value]
        target = target or next((value for value in lone if value), None)
        args.target = target
    if target and Path(target).is_file():
        return _definition_info(args)
    if target and Path(target).suffix in (".yaml", ".yml", ".xml"):
        raise no_such_file(target)  # a definition that is not there, not a run
    run = open_run(resolve_run(target))
    return _run_info(run, args)


def _definition_info(args: argparse.Namespace) -> int:
    """The space and each step's workpackages, counted without listing them: any size
    answers in about a second (a constrained space is walked for its exact count up to
    WALK combinations, and so is any for --all)."""
    spec = resolve(
        args.target,
        tags=args.tag,
        platform=args.platform,
        overrides=overrides(args),
        include_path=args.include_path,
        benchmark=args.benchmark,
    )
    benchmark = spec.benchmark
    own = step_own(benchmark.parametersets.values())
    space = Space(
        [_without(pset, own) for pset in benchmark.parametersets.values()],
        benchmark.where,
        overrides=spec.overrides,
        tags=spec.tags,
        file=benchmark.file,
        shell_in_cwd=benchmark.dialect == "jube",
    )
    names = list(space.names)
    bound = space.upper_bound()
    walked = walk(space, names, args.all)
    rows = walked.rows
    complete = walked.tried == bound  # every combination was looked at
    exact = complete or not space.constrained
    total = walked.found if complete else bound
    work = count_work(benchmark, overrides=spec.overrides, tags=spec.tags)
    steps_bound = not all(s.exact for s in work)
    per_step = {s.step: s.points * s.per_point for s in work}  # a shared operation is none
    if steps_bound and sum(per_step.values()) <= PLANNED:
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
                "rows_complete": complete and len(rows) == walked.found,
                "varying": list(space.varying),
                "per_step": sorted(own),
                "workpackages": {k: _json_count(v) for k, v in per_step.items()},
                "over_limit": over,
                "sources": spec.sources,
            },
        )
        return 0
    print(f"benchmark {benchmark.name}: {benchmark.comment}".rstrip(": "))
    counted = count_text(total) if exact else f"at most {count_text(bound)}"
    print(f"parameter space: {counted} point(s) of {count_text(bound)} before constraints")
    print(f"varying: {', '.join(space.varying) or 'nothing'}")
    _print_sources(spec.sources)
    settings = spec.platform.mpi_settings()
    if settings:
        print(settings)
    if own:
        print(f"each step's own (they read $jube_step_name): {', '.join(sorted(own))}")
    for name in benchmark.steps:
        few = "at most " if steps_bound else ""
        print(f"step {name}: {few}{count_text(per_step.get(name, 0))} workpackage(s)")
    if over:
        print(
            f"a run is refused: more than {limit:,} workpackage cycles "
            "(--max-workpackages N or max_workpackages: N raises the limit)"
        )
    _print_table(names, rows)
    if not complete and (args.all or not exact):
        print(
            f"(points listed from the first {walked.tried:,} of {count_text(bound)} "
            f"combinations: info looks at no more than {WALK:,}, for about {SECONDS:.0f} s)"
        )
    elif not args.all and total > len(rows):
        print(f"... {count_text(total - len(rows))} more (--all lists them)")
    return 0


def _print_sources(sources: Mapping[str, str]) -> None:
    """Where the values come from: command line over platform file over definition."""
    by_source: dict[str, list[str]] = {}
    for name, source in sources.items():
        by_source.setdefault(source, []).append(name)
    for source, names in sorted(by_source.items(), key=lambda item: item[0] != COMMAND_LINE):
        print(f"values from the {source}: {', '.join(sorted(names))}")


def step_own(psets: Iterable[ParameterSet]) -> set[str]:
    """Parameters whose value is each step's own: they read ``jube_step_name``, or read one
    that does. They have no value outside a step, so the space without steps leaves them out."""
    texts = {n: " ".join(p.written) for ps in psets for n, p in ps.parameters.items()}
    found = {STEP_NAME}
    while True:
        more = {
            n
            for n, text in texts.items()
            if n not in found and any(re.search(rf"\b{name}\b", text) for name in found)
        }
        if not more:
            return found - {STEP_NAME}
        found |= more


def _without(pset: ParameterSet, names: set[str]) -> ParameterSet:
    if not names & pset.parameters.keys():
        return pset
    kept = {n: p for n, p in pset.parameters.items() if n not in names}
    zips = [z for z in (tuple(n for n in zip_ if n in kept) for zip_ in pset.zips) if len(z) > 1]
    return replace(pset, parameters=kept, zips=zips)


def _json_count(n: int) -> int | str:
    """A count for JSON: a number, or past 10^15 its text (``about 10^40``)."""
    return n if n < 10**15 else count_text(n)


#: the store meta a run's information shows, in order
_RUN_KEYS = (
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
)


def _run_info(run: Run, args: argparse.Namespace) -> int:
    meta = run.meta
    wps = run.store.workpackages()
    names = list(dict.fromkeys(n for wp in wps for n in wp.point))
    facts = provenance.read(run.dir)
    jobs = job_records(run.store)
    host = str(meta.get("host", ""))
    rows = [
        [
            str(wp.id),
            wp.step,
            str(wp.iteration),
            wp.state,
            *job_columns(wp.job_id, jobs, host if run.platform.scheduler == "local" else ""),
            *(str(wp.point.get(n, "")) for n in names),
        ]
        for wp in wps
    ]
    header = ["id", "step", "iteration", "state", *JOB_COLUMNS, *names]
    if args.format != "pretty":
        _emit(args.format, header, rows, {"run": str(run.dir), **meta, "provenance": facts})
        return 0
    imported = jube_run(meta)
    keys = ("name", "comment", "created", "tags", "overrides") if imported else _RUN_KEYS
    for key in keys:
        if meta.get(key) and meta[key] not in ("[]", "{}"):
            value = meta[key]
            if key == "created":
                value = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(value)))
            print(f"{key}: {value}")
    for line in jube_origin_lines(meta) if imported else ():
        print(line)
    for line in provenance_lines(facts, meta):
        print(line)
    if args.parametrisation or args.all:
        _print_table(header, rows)
    else:
        print(f"{len(wps)} workpackage(s); -p lists them with their parameters")
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
