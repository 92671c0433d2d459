"""``jubex init [TEMPLATE] [-o FILE]``: a commented starter definition to edit and run."""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

from jubex.errors import UsageError

#: template -> what it measures (and what it needs)
TEMPLATES = {
    "generic": "a command, a sweep and a number read back (runs anywhere)",
    "ior": "IOR bandwidth; here with jubex's bundled kernel, -t real for IOR itself",
    "mdtest": "mdtest metadata rates; here with jubex's bundled kernel, -t real for mdtest",
    "fio": "fio bandwidth on one node (needs fio)",
    "io500": "the io500 harness with your config.ini (needs io500)",
}


#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex init ior", "writes ior.yaml, a commented study that runs here"),
    ("jubex init generic -o mine.yaml", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    listed = "; ".join(f"{name}: {text}" for name, text in TEMPLATES.items())
    parser.add_argument(
        "template",
        nargs="?",
        default="generic",
        choices=tuple(TEMPLATES),
        metavar="TEMPLATE",
        help=f"what to start from (default: generic) - {listed}",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="where to write it (default: TEMPLATE.yaml)"
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing FILE")


def template_text(name: str) -> str:
    """The starter definition shipped with jubex under ``name``."""
    return (resources.files("jubex") / "data" / "templates" / f"{name}.yaml").read_text()


def handle(args: argparse.Namespace) -> int:
    target = Path(args.output or f"{args.template}.yaml")
    if target.exists() and not args.force:
        raise UsageError(f"'{target}' exists; --force overwrites it, -o FILE writes elsewhere")
    try:
        target.write_text(template_text(args.template))
    except OSError as exc:
        raise UsageError(f"cannot write '{target}': {exc.strerror}") from None
    print(f"wrote {target}: jubex validate {target}; jubex run {target}")
    return 0
