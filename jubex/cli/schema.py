"""``jubex schema [record]``: the JSON Schema of the definition format, for editors and
tools, or of a result record, for harnesses that write them (docs/record.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jubex.definition.schema_check import schema_text
from jubex.errors import UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex schema -o jubex.schema.json", "for an editor's YAML completion"),
    ("jubex schema record", "what a harness writes for jubex import-record"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "what",
        nargs="?",
        choices=("definition", "record"),
        default="definition",
        help="the definition format (default) or a result record",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the schema to FILE instead of printing it"
    )


def handle(args: argparse.Namespace) -> int:
    text = schema_text() if args.what == "definition" else _record_schema()
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write '{args.output}': {exc.strerror or exc}") from None
    return 0


def _record_schema() -> str:
    import json

    from jubex.records.record import record_schema

    return json.dumps(record_schema(), indent=2) + "\n"
