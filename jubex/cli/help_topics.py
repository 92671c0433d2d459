"""``jubex help [TOPIC]``: a short page per topic, shipped with jubex, pointing to the docs."""

from __future__ import annotations

import argparse
from importlib import resources

from jubex.errors import UsageError, did_you_mean

#: topic -> one line about it (the text is jubex/data/help/TOPIC.txt)
TOPICS = {
    "format": "the definition format: parameters, steps, patterns, results",
    "expressions": "values, sizes, $substitution and the expression language",
    "running": "runs, the run directory, status, continue and the other commands",
    "platforms": "platform files: local, Slurm, PBS and your site's",
    "results": "result tables, formats and jubex compare",
    "analysers": "patterns and the built-in IOR, mdtest, fio and IO500 analysers",
    "jube": "running JUBE's files, and JUBE's commands in jubex",
    "kernels": "the bundled bandwidth and metadata kernels",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "topic",
        nargs="?",
        metavar="TOPIC",
        help=f"one of {', '.join(TOPICS)} (default: list them)",
    )


def topic_text(topic: str) -> str:
    """The page of ``topic`` as shipped in the package."""
    return (resources.files("jubex") / "data" / "help" / f"{topic}.txt").read_text()


def handle(args: argparse.Namespace) -> int:
    if args.topic is None:
        width = max(len(name) for name in TOPICS)
        print("jubex help TOPIC, one of:")
        for name, line in TOPICS.items():
            print(f"  {name:<{width}}  {line}")
        print("jubex COMMAND --help: a command's options; the docs/ directory: everything")
        return 0
    if args.topic not in TOPICS:
        raise UsageError(
            f"no help topic '{args.topic}'; topics: {', '.join(TOPICS)}",
            hint=did_you_mean(args.topic, TOPICS),
        )
    print(topic_text(args.topic), end="")
    return 0
