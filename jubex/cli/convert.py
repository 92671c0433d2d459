"""``jubex convert FILE [-o OUT]``: a JUBE file (XML or YAML) in jubex's concise YAML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jubex.cli.common import add_reading_options
from jubex.definition.jube.convert import convert_file
from jubex.definition.load import read_source
from jubex.errors import UsageError, no_such_file

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex convert benchmark.xml -o benchmark.yaml", "a JUBE file as jubex YAML"),
    ("jubex convert benchmark.xml -t big", "with tags, to the terminal"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", help="a JUBE input file (<jube> XML or JUBE's YAML)"
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT", help="write the YAML here (default: standard output)"
    )
    add_reading_options(parser)


def handle(args: argparse.Namespace) -> int:
    source = Path(args.file)
    if not source.is_file():
        raise no_such_file(args.file)
    if read_source(source).shape != "jube":
        raise UsageError(f"'{args.file}' is a jubex definition already; convert reads JUBE files")
    text = convert_file(
        source,
        args.output,
        tags=args.tag,
        include_path=[Path(p) for p in args.include_path],
        benchmark=args.benchmark,
    )
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write '{args.output}': {exc.strerror or exc}") from None
    print(f"wrote {args.output}", file=sys.stderr)
    return 0
