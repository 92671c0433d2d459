"""``jubex run FILE``: expand, submit, track, analyse, and print the result tables."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from jubex.api import analyse_runs, resolve
from jubex.api import run as api_run
from jubex.api import start as api_start
from jubex.cli.common import (
    REPORT_FORMATS,
    add_definition_options,
    add_format,
    add_limit_option,
    overrides,
    positive,
    shown,
)
from jubex.cli.dryrun import SHOWN, SHOWN_BENCHMARKS, show_dry_run
from jubex.engine.driver import DRIVER_LOG, Options
from jubex.engine.failures import failure_causes, id_list
from jubex.errors import JubexError, UsageError
from jubex.results.delivery.deliver import report
from jubex.schedulers.registry import scheduler_for
from jubex.space.spec import RunSpec
from jubex.store.rundir import Run
from jubex.store.store import FAILED


def add_driving_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-j", "--jobs", type=positive, help="workpackages at once (local: cores)")
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="submit and return at once (local platform: a process of its own drives the run)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    parser.add_argument("--fail-fast", action="store_true", help="stop at the first failure")
    parser.add_argument("--no-result", action="store_true", help="do not print result tables")


#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex run ior.yaml", "run here, then print the result tables"),
    ("jubex run ior.yaml --dry-run", "the exact commands; nothing written"),
    ("jubex run ior.yaml -P slurm -t real --no-wait", "submit to Slurm and return"),
    ("jubex run ior.yaml -p transfer=1m,4m -j 4", "a parameter overridden; 4 at once"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("definition", metavar="FILE", help="a definition (YAML or XML)")
    parser.add_argument("-P", "--platform", help="platform name or file (default: local)")
    parser.add_argument(
        "--outpath", help="where runs are made (default: the definition's outpath, beside it)"
    )
    parser.add_argument("--dry-run", action="store_true", help="show what would run; write nothing")
    parser.add_argument(
        "--all",
        action="store_true",
        help=f"with --dry-run: show every workpackage (else the first {SHOWN:,})",
    )
    add_format(parser, REPORT_FORMATS, "pretty")
    add_definition_options(parser)
    add_limit_option(parser)
    add_driving_options(parser)


def options_from(args: argparse.Namespace) -> Options:
    return Options(
        jobs=args.jobs,
        wait=not args.no_wait,
        progress="quiet" if args.quiet else None,
        fail_fast=args.fail_fast,
    )


def finish(run: Run, counts: dict[str, int], args: argparse.Namespace) -> int:
    """Say where the run is and what happened; print its tables when it is complete, the
    same tables a later ``jubex result`` prints."""
    pending = sum(counts.get(s, 0) for s in ("held", "planned", "queued", "submitted"))
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    print(f"run {shown(run.dir)}: {summary}")
    if counts.get(FAILED):
        print_causes(run)
    if pending:
        print(f"{pending} workpackage(s) still to finish: jubex continue {shown(run.dir)}")
    else:
        if run.benchmark.tables:
            analyse_runs([run])  # what an earlier, killed jubex judged is judged again
            text = report([run], None, None, include_failed=False)  # kept in the run either way
            if not args.no_result:
                print(text, end="")
        if run.benchmark.plots:
            draw_plots(run)
        publish_finished(run)
    return 1 if counts.get(FAILED) else 0


def publish_finished(run: Run) -> None:
    """Publish a finished run when the configuration asks for it (``publish: true``); a
    failure to publish is said and leaves the run's outcome as it is."""
    from jubex.resultsdb.config import publishes

    if not publishes():
        return
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.publish import publish

    try:
        database = Database()
        said = "published to" if publish(database, run) else "already in"
    except JubexError as exc:
        print(f"run not published: {exc}", file=sys.stderr)
        return
    print(f"run {shown(run.dir)}: {said} {database.name}")


def print_causes(run: Run) -> None:
    """How many failed, grouped by cause, each with its line, and where to see more."""
    causes = failure_causes(run)
    total = sum(len(c.ids) for c in causes)
    print(f"{total} workpackage(s) failed, {len(causes)} cause(s):")
    for cause in causes:
        ids = id_list(cause.ids)
        print(f"  {len(cause.ids)} x {cause.step}: {cause.text}  (workpackage {ids})")
    print(f"more: jubex status {shown(run.dir)}  (outputs in {shown(Path(causes[0].workdir))})")


def draw_plots(run: Run) -> None:
    """The definition's plots into ``RUN/plots/``; a plot that cannot be drawn (no
    matplotlib, no values yet) is said, and leaves the run's outcome as it is."""
    from jubex.results.presentation.plot import write_declared

    try:
        written, refused = write_declared([run])
    except JubexError as exc:
        print(f"plots not drawn: {exc}", file=sys.stderr)
        return
    for why in refused:
        print(f"plots not drawn: {why}", file=sys.stderr)
    if written:
        print(f"plots: {', '.join(shown(path) for path in written)}")


def handle(args: argparse.Namespace) -> int:
    """One run; of a JUBE file holding several benchmarks, one after another (as JUBE runs
    each) unless ``--benchmark`` names one. The exit status is the worst of them."""
    if args.no_wait and args.dry_run:
        raise UsageError("--dry-run and --no-wait exclude each other")
    if args.format != "pretty" and not args.dry_run:
        raise UsageError("--format is for --dry-run: a run prints its result tables")
    if args.all and not args.dry_run:
        raise UsageError("--all is for --dry-run: a run makes every workpackage")
    spec = _resolved(args, args.benchmark)
    several = () if args.benchmark else spec.benchmark.file_benchmarks
    if several and args.dry_run and args.format == "json":
        raise UsageError(
            f"{args.definition} holds {len(several)} benchmarks ({', '.join(several)}); "
            "--format json plans one",
            hint=f"name it with --benchmark NAME (e.g. --benchmark {several[0]})",
        )
    status = 0
    made: dict[str, int] = {}  # runs made (or, dry, planned) per outpath so far
    names = several or (spec.benchmark.name,)
    # a dry run shows SHOWN workpackages in all, of SHOWN_BENCHMARKS benchmarks at most
    left = None if args.all else SHOWN
    for number, name in enumerate(names, 1):
        if args.dry_run and (left == 0 or (left is not None and number > SHOWN_BENCHMARKS)):
            _not_shown(args.definition, names[number - 1 :])
            break
        if several:
            print(f"benchmark '{name}' ({number} of {len(several)}):")
            spec = spec if name == spec.benchmark.name else _resolved(args, name)
        if args.dry_run:
            left = _dry_run(spec, args, made.get(spec.outpath, 0), left)
        else:
            status = max(status, _run_one(spec, args, made.get(spec.outpath, 0)))
        made[spec.outpath] = made.get(spec.outpath, 0) + 1
    return status


def _not_shown(definition: str, names: Sequence[str]) -> None:
    """The benchmarks a dry run has no room left for: named, not planned."""
    listed = ", ".join(names[:10]) + (f", ... {len(names) - 10:,} more" if len(names) > 10 else "")
    print(
        f"{len(names):,} more benchmark(s) not shown ({listed}): the dry run shows {SHOWN:,} "
        f"workpackages of {SHOWN_BENCHMARKS} benchmarks at most (--all shows every one; "
        f"jubex validate {definition} checks each benchmark)"
    )


def _resolved(args: argparse.Namespace, benchmark: str | None) -> RunSpec:
    return resolve(
        args.definition,
        tags=args.tag,
        platform=args.platform,
        overrides=overrides(args),
        include_path=args.include_path,
        outpath=args.outpath,
        benchmark=benchmark,
    )


def _run_one(spec: RunSpec, args: argparse.Namespace, earlier: int) -> int:
    """Run one benchmark, saying its warnings first."""
    _say_warnings(spec)
    if args.no_wait and scheduler_for(spec.platform).local:
        run, pid = api_start(spec, options_from(args), max_workpackages=args.max_workpackages)
        print(
            f"run {shown(run.dir)}: driven by process {pid} in the background (its output: "
            f"{shown(run.dir / DRIVER_LOG)}); jubex status {shown(run.dir)} shows how far it is"
        )
        return 0
    run, counts = api_run(spec, options_from(args), max_workpackages=args.max_workpackages)
    return finish(run, counts, args)


def _dry_run(spec: RunSpec, args: argparse.Namespace, earlier: int, left: int | None) -> int | None:
    """Plan one benchmark after ``earlier`` dry runs in its outpath, showing at most
    ``left`` workpackages (None: all); the number it may still show after."""
    _say_warnings(spec)
    shown = show_dry_run(spec, args.format, args.max_workpackages, earlier, left)
    return None if left is None else left - shown


def _say_warnings(spec: RunSpec) -> None:
    for warning in spec.benchmark.warnings:
        print(warning, file=sys.stderr)
    settings = spec.platform.mpi_settings()
    if settings:
        print(settings, file=sys.stderr)
