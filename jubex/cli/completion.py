"""``jubex completion bash|zsh|fish``: the shell hook that completes jubex's commands and options.

Completion itself is argcomplete's: the hook calls jubex with ``_ARGCOMPLETE`` set and
:func:`jubex.cli.main.main` answers from its parser, so the completions are the parser's.
"""

from __future__ import annotations

import argparse

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ('eval "$(jubex completion bash)"', "in ~/.bashrc"),
    ("jubex completion fish | source", "in ~/.config/fish/config.fish"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "shell",
        choices=("bash", "zsh", "fish"),
        help='the shell; e.g. in ~/.bashrc: eval "$(jubex completion bash)"',
    )


def handle(args: argparse.Namespace) -> int:
    import argcomplete

    print(argcomplete.shellcode(["jubex"], shell=args.shell), end="")
    return 0
