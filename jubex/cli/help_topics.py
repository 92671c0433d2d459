"""``jubex help [TOPIC]``: a short page per concept, and every command's help, shipped with
jubex (nothing here points to a file that is not installed)."""

from __future__ import annotations

import argparse
from importlib import resources

from jubex.cli.parser import subparser
from jubex.errors import UsageError, did_you_mean

#: concept -> one line about it (the text is jubex/data/help/TOPIC.txt)
TOPICS = {
    "format": "the definition format: parameters, steps, patterns, results",
    "expressions": "values, sizes, $substitution and the expression language",
    "running": "runs, the run directory, status, continue and the other commands",
    "platforms": "platform files: local, Slurm, PBS and your site's",
    "results": "result tables, formats and jubex compare",
    "sharing": "plots, the HTML report, result sets across runs, bundles",
    "database": "the results database: jubex publish, db: selectors, jubex query",
    "analysers": "patterns and the built-in IOR, mdtest, fio and IO500 analysers",
    "jube": "running JUBE's files, and JUBE's commands in jubex",
    "kernels": "the bundled bandwidth and metadata kernels",
    "exit-codes": "what each exit status means, the same for every command",
}

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex help", "the topics and the commands"),
    ("jubex help run", "a command: what it does, its options, examples"),
    ("jubex help exit-codes", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    topic = parser.add_argument(
        "topic",
        nargs="?",
        metavar="TOPIC",
        help=f"a command, or one of {', '.join(TOPICS)} (default: list them)",
    )
    topic.completer = _offered  # type: ignore[attr-defined]


def _offered(**_: object) -> list[str]:
    """What the shell offers after ``jubex help``: every topic. Here rather than in
    :mod:`jubex.cli.complete`, which the command line imports, and this module imports the
    command line's list of commands."""
    return sorted(topics())


def topics() -> list[str]:
    """Every name ``jubex help`` takes: the concepts, then the commands."""
    from jubex.cli.main import COMMANDS

    return [*TOPICS, *(name for name in COMMANDS if name not in TOPICS)]


def topic_text(topic: str) -> str:
    """The page of a concept as shipped in the package."""
    return (resources.files("jubex") / "data" / "help" / f"{topic}.txt").read_text()


def command_text(command: str) -> str:
    """A command's ``--help``: what it does, its options, examples, exit status."""
    from jubex.cli.main import build_parser

    found = subparser(build_parser(command), command)
    assert found is not None, command  # a name of COMMANDS
    return found.format_help()


def page(topic: str) -> str:
    """What ``jubex help TOPIC`` prints; a name both concept and command gets both."""
    from jubex.cli.main import COMMANDS

    parts = []
    if topic in TOPICS:
        parts.append(topic_text(topic))
    if topic in COMMANDS:
        parts.append(command_text(topic))
    return "\n".join(parts)


def handle(args: argparse.Namespace) -> int:
    from jubex.cli.main import COMMANDS

    if args.topic is None:
        width = max(len(name) for name in [*TOPICS, *COMMANDS])
        print("jubex help TOPIC, one of:")
        for name, line in TOPICS.items():
            print(f"  {name:<{width}}  {line}")
        print("or a command (jubex help COMMAND is jubex COMMAND --help):")
        for name, (_, line) in COMMANDS.items():
            print(f"  {name:<{width}}  {line}")
        return 0
    if args.topic not in topics():
        raise UsageError(
            f"no help topic '{args.topic}' (`jubex help` lists the topics and commands)",
            hint=did_you_mean(args.topic, topics()),
        )
    print(page(args.topic), end="")
    return 0
