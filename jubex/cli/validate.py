"""``jubex validate``: every problem of every file, then exit 0 (valid), 1 (invalid), 2 (usage)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jubex.api import validate
from jubex.cli.common import (
    REPORT_FORMATS,
    add_format,
    add_limit_option,
    add_list_option,
)
from jubex.errors import JubexError, UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex validate ior.yaml", "every problem of the file, each at its line"),
    ("jubex validate ior.yaml -t real", "as `jubex run -t real` would read it"),
    ("jubex validate *.yaml -f json", "for scripts and editors"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="definition files (YAML or XML)")
    add_list_option(
        parser,
        "-t",
        "--tag",
        metavar="TAG[,TAG...]",
        help="check with these tags given, as `jubex run --tag` would (repeatable)",
    )
    add_format(parser, REPORT_FORMATS, "pretty")
    add_limit_option(parser)


def handle(args: argparse.Namespace) -> int:
    missing = [name for name in args.files if not Path(name).is_file()]
    if missing:
        raise UsageError(f"no such file: {', '.join(missing)}")
    problems = validate(args.files, args.tag, max_workpackages=args.max_workpackages)
    errors = [p for p in problems if p.exit_code]
    if args.format == "json":
        report = {"valid": not errors, "problems": [_as_dict(p) for p in problems]}
        print(json.dumps(report, indent=2))
    else:
        for problem in problems:
            print(problem)
        warnings = len(problems) - len(errors)
        verdict = "invalid" if errors else "valid"
        print(f"{len(args.files)} file(s) {verdict}: {len(errors)} error(s), {warnings} warning(s)")
    return max((p.exit_code for p in errors), default=0)


def _as_dict(problem: JubexError) -> dict[str, object]:
    loc = problem.loc
    return {
        "severity": "error" if problem.exit_code else "warning",
        "file": loc.file if loc else None,
        "line": loc.line if loc else None,
        "column": loc.column if loc else None,
        "message": problem.message,
        "hint": problem.hint,
    }
