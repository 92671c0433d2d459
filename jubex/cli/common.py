"""Flags several subcommands share, defined once."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from jubex.collector import paused
from jubex.errors import UsageError
from jubex.store.rundir import Run, each_once, open_run, resolve_run, resolve_runs

FORMATS = ("pretty", "aligned", "csv", "json", "markdown", "latex")
#: the formats of commands that print a report rather than a table
REPORT_FORMATS = ("pretty", "json")


def shown(path: Path) -> str:
    """A run's path as a person reads it: relative to here when below here, else absolute."""
    try:
        relative = path.relative_to(Path.cwd())
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else str(path)


def add_definition_options(
    parser: argparse.ArgumentParser,
    *,
    bare_parameter: str | None = None,
) -> None:
    """--tag, -p and --include-path; with ``bare_parameter``, a lone ``-p`` means that."""
    add_reading_options(parser)
    parser.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="replace a parameter's values (repeatable)"
        + (f"; a lone -p: {bare_parameter}" if bare_parameter else ""),
        nargs="?" if bare_parameter else None,
        const="" if bare_parameter else None,
    )
    parser.add_argument(
        "--allow-shell-syntax",
        action="store_true",
        help="let a -p value hold shell syntax ($(, backticks, ;, |, &, <, >, a newline), "
        "which the definition's commands then run",
    )


def add_limit_option(parser: argparse.ArgumentParser) -> None:
    """--max-workpackages: how much work a run may make (wins over the definition's key)."""
    parser.add_argument(
        "--max-workpackages",
        type=positive,
        metavar="N",
        help="refuse a run of more workpackage cycles than N (default: the definition's "
        "max_workpackages, else 1,000,000)",
    )


def positive(text: str) -> int:
    """A command-line count: a whole number of at least 1 (argparse says which option)."""
    if not text.isdigit() or int(text) < 1 or len(text) > 18:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got '{text}'")
    return int(text)


def add_reading_options(parser: argparse.ArgumentParser) -> None:
    """How a definition is read: its tags, where its includes are found, which benchmark."""
    add_list_option(
        parser,
        "-t",
        "--tag",
        metavar="TAG[,TAG...]",
        help="switch on the parts of the definition with these tags (repeatable)",
    )
    parser.add_argument(
        "--include-path",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory searched for included files (repeatable)",
    )
    parser.add_argument(
        "-b",
        "--benchmark",
        metavar="NAME",
        help="of a JUBE file holding several benchmarks, this one (default: run takes each)",
    )


def add_list_option(
    parser: argparse.ArgumentParser, *flags: str, metavar: str, help: str, dest: str | None = None
) -> None:
    """An option of several values, as comma lists or repeated, that never eats FILE."""
    parser.add_argument(
        *flags, type=comma_list, action="extend", default=[], metavar=metavar, help=help, dest=dest
    )


def comma_list(text: str) -> list[str]:
    """``a,b`` as ["a", "b"]: how an option takes several values without eating FILE."""
    return [item.strip() for item in text.split(",") if item.strip()]


def overrides(args: argparse.Namespace) -> dict[str, list[str]]:
    """``-p transfer=1m,4m`` as {"transfer": ["1m", "4m"]}."""
    found: dict[str, list[str]] = {}
    for item in args.parameter:
        if item == "":
            continue
        name, sep, values = item.partition("=")
        if not sep or not name.strip() or not values:
            raise UsageError(f"-p {item}: expected NAME=VALUE[,VALUE...], e.g. -p transfer=1m,4m")
        shell = next((s for s in SHELL_SYNTAX if s in values), None)
        if shell is not None and not getattr(args, "allow_shell_syntax", False):
            raise UsageError(
                f"-p {name.strip()}: the value holds {SHELL_SYNTAX[shell]}, which the shell "
                "would run: a value is put into the definition's commands as written text",
                hint="give a plain value; to run it as shell text on purpose, add "
                "--allow-shell-syntax",
            )
        found[name.strip()] = [v.strip() for v in values.split(",")]
    return found


#: what makes a value of the command line a command of its own once it is in a shell line
SHELL_SYNTAX = {
    "$(": "a command substitution '$('",
    "`": "a backtick",
    ";": "';'",
    "|": "'|'",
    "&": "'&'",
    "\n": "a newline",
    "\r": "a carriage return",
    "<": "a redirection '<'",
    ">": "a redirection '>'",
}


def add_run_selector(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run",
        nargs="?",
        metavar="RUN",
        help="a run directory, an outpath, a run id, 'last' or -N (default: this directory's "
        "latest run)",
    )
    parser.add_argument("-i", "--id", dest="run_id", help="run id within the outpath (JUBE's -i)")
    parser.add_argument("--outpath", help="where runs live (default: this directory's runs)")


def add_runs_selector(parser: argparse.ArgumentParser, what: str = "") -> None:
    """RUN... as result, plot, report and export take them: several runs are one set."""
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run directories, ids, 'last', -N or 'all' (default: this directory's latest "
        f"run){what}",
    )
    parser.add_argument("--outpath", help="where runs live (default: this directory's runs)")
    add_list_option(
        parser,
        "-i",
        "--id",
        dest="run_id",
        metavar="ID[,ID...]",
        help="run ids within the outpath, or 'all' (JUBE's -i)",
    )
    parser.add_argument(
        "-n", "--num", type=int, metavar="N", help="the N latest runs of the outpath (JUBE's -n)"
    )
    add_database_option(parser)


def add_database_option(parser: argparse.ArgumentParser) -> None:
    """``--database``: the results database that publish, query and ``db:`` selectors use."""
    parser.add_argument(
        "--database",
        metavar="URL|PATH",
        help="the results database (default: $JUBEX_RESULTS_DB, else results_database in "
        "config.yaml, else results.sqlite in the user's data directory)",
    )


def add_tabulating_options(parser: argparse.ArgumentParser) -> None:
    """What result, plot and report read: failed workpackages' values, new outputs."""
    parser.add_argument(
        "--include-failed", action="store_true", help="count failed workpackages' values too"
    )
    parser.add_argument("--no-analyse", action="store_true", help="do not read new outputs first")
    apart = parser.add_mutually_exclusive_group()
    apart.add_argument(
        "--pool",
        action="store_true",
        help="pool several runs as repetitions of one study even where they differ (default: "
        "only runs of identical studies pool; what differs is a column)",
    )
    apart.add_argument(
        "--by",
        type=comma_list,
        action="extend",
        metavar="KEY[,KEY...]",
        help="tell several runs apart by these keys (run, site, platform, a parameter) instead "
        "of by what differs; --by run never pools",
    )


def kept_apart_by(args: argparse.Namespace) -> list[str] | None:
    """``--pool`` as no keys, ``--by`` as its keys, else None: what differs, chosen per set."""
    return [] if args.pool else args.by


def tabulated_runs(args: argparse.Namespace) -> list[Run]:
    """The runs RUN..., -i and -n name, their new outputs analysed unless --no-analyse."""
    runs = selected_runs(args)
    if not args.no_analyse:
        from jubex.analysis.run import analyse_runs  # not for --no-analyse

        analyse_runs(runs)
    return runs


def selected_runs(args: argparse.Namespace) -> list[Run]:
    """The runs RUN..., -i and -n name, each opened and each once (a run named twice, or
    by two paths, or copied, is one run); ``db:`` selectors name published runs. Which
    runs they are is said on stderr."""
    published = [spec for spec in args.runs if is_selector(spec)]
    specs = [spec for spec in args.runs if not is_selector(spec)]
    with paused(kept=True):  # the runs opened (1,000 of -i all) are kept to the end
        runs = database_runs(published, args.database)
        if specs or args.run_id or args.num is not None or not published:
            paths = resolve_runs(specs, args.outpath, args.num, args.run_id)
            runs += [open_run(path, follow=False) for path in paths]
        runs = each_once(runs) if len(runs) > 1 else runs  # one run is once: no identity hashed
    say_read(runs)
    return runs


def say_read(runs: list[Run]) -> None:
    """Which directory and runs a command reads, on stderr: ``reading runs/ 000000, 000002``
    (``runs/ 000000-000999``: a stretch of three or more runs numbered one after another)."""
    by_outpath: dict[Path, list[str]] = {}
    for run in runs:
        by_outpath.setdefault(run.dir.parent, []).append(run.id)
    where = "; ".join(f"{shown(base)}/ {stretches(ids)}" for base, ids in by_outpath.items())
    print(f"reading {where}", file=sys.stderr)


def stretches(ids: Sequence[str]) -> str:
    """Run ids in their order, each stretch of three or more numbered one after another
    (same width) as its first and last: ``-i all`` of 1,000 runs is one line of 13
    characters, not of 8,000."""
    found: list[list[str]] = []
    for run_id in ids:
        last = found[-1] if found else None
        if last and _next(last[-1], run_id):
            last.append(run_id)
        else:
            found.append([run_id])
    parts = [
        f"{got[0]}-{got[-1]} ({len(got)} runs)" if len(got) > 2 else ", ".join(got) for got in found
    ]
    return ", ".join(parts)


def _next(before: str, run_id: str) -> bool:
    """Whether ``run_id`` is the number after ``before``, written as wide."""
    return (
        len(before) == len(run_id)
        and _DIGITS.fullmatch(before) is not None
        and _DIGITS.fullmatch(run_id) is not None
        and int(run_id) == int(before) + 1
    )


_DIGITS = re.compile("[0-9]+")


def is_selector(spec: str | None) -> bool:
    """Whether a run argument selects published runs (``db:benchmark=ior,...``)."""
    return bool(spec) and str(spec).startswith("db:")


def database_runs(selectors: list[str], database: str | None) -> list[Run]:
    """The published runs the ``db:`` selectors name, each once (none: no database opened)."""
    if not selectors:
        return []
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.select import selected_runs as published

    return published(selectors, Database(database))


def one_run(spec: str, outpath: str | None, database: str | None = None) -> Run:
    """One run from a directory, an id, ``last``, -N, or a ``db:`` selector naming one."""
    if not is_selector(spec):
        return open_run(resolve_run(spec, outpath), follow=False)
    runs = database_runs([spec], database)
    if len(runs) > 1:
        raise UsageError(
            f"'{spec}' selects {len(runs)} published runs; one is needed here",
            hint="narrow it, e.g. with last=1 or id=ID",
        )
    return runs[0]


def selected_run(args: argparse.Namespace) -> Run:
    """The one run RUN and -i name (``DIR -i ID``: run ID of the outpath DIR, as in JUBE);
    which it is is said on stderr."""
    spec = args.run_id or args.run
    outpath = args.outpath
    if args.run_id and args.run and Path(args.run).is_dir():
        outpath = args.run
    run = open_run(resolve_run(spec, outpath))
    say_read([run])
    return run


def add_format(
    parser: argparse.ArgumentParser, choices: tuple[str, ...], default: str | None
) -> None:
    """``-f/--format``: one spelling for every command; ``pretty`` is for people."""
    parser.add_argument(
        "-f",
        "--format",
        choices=choices,
        default=default,
        help=f"output format: {', '.join(choices)} (default: {default or 'each table style'})",
    )


def write_output(text: str, path: str | None) -> None:
    """Text to the terminal, or into the file ``-o`` names."""
    if path is None:
        print(text, end="" if text.endswith("\n") else "\n")
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write '{path}': {exc.strerror}") from None
