"""``jubex completion bash|zsh``: the shell hook that completes jubex's commands and options.

Completion itself is argcomplete's: the hook calls jubex with ``_ARGCOMPLETE`` set and
:func:`jubex.cli.main.main` answers from its parser, so the completions are the parser's.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "shell",
        choices=("bash", "zsh"),
        help='the shell; e.g. in ~/.bashrc: eval "$(jubex completion bash)"',
    )


def handle(args: argparse.Namespace) -> int:
    import argcomplete

    print(argcomplete.shellcode(["jubex"], shell=args.shell), end="")
    return 0
