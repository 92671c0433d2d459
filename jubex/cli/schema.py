"""``jubex schema``: the JSON Schema of the definition format, for editors and tools."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jubex.definition.schema_check import schema_text
from jubex.errors import UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (("jubex schema -o jubex.schema.json", "for an editor's YAML completion"),)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the schema to FILE instead of printing it"
    )


def handle(args: argparse.Namespace) -> int:
    text = schema_text()
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write '{args.output}': {exc.strerror or exc}") from None
    return 0
