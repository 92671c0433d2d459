"""``jubex validate``: every problem of every file, then exit 0 (valid) or 2 (invalid, usage)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from jubex.api import Selection, validate
from jubex.cli.common import (
    REPORT_FORMATS,
    add_definition_options,
    add_format,
    add_limit_option,
    overrides,
)
from jubex.errors import JubexError, no_such_file

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex validate ior.yaml", "every problem of the file, each at its line"),
    ("jubex validate ior.yaml -t real", "as `jubex run -t real` would read it"),
    ("jubex validate ior.yaml -P slurm -p nodes=4", "the run `jubex run` would make of it"),
    ("jubex validate *.yaml -f json", "for scripts and editors; exit 2: invalid"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="definition files (YAML or XML)")
    parser.add_argument(
        "-P", "--platform", help="check against this platform, as `jubex run -P` would"
    )
    add_definition_options(parser)
    add_format(parser, REPORT_FORMATS, "pretty")
    add_limit_option(parser)


def handle(args: argparse.Namespace) -> int:
    missing = [name for name in args.files if not Path(name).is_file()]
    if missing:
        raise no_such_file(", ".join(missing))
    selection = Selection(args.platform, overrides(args), tuple(args.include_path), args.benchmark)
    problems = validate(
        args.files, args.tag, max_workpackages=args.max_workpackages, selection=selection
    )
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
