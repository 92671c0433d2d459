"""The ``jubex`` command: one module per subcommand, registered here by name."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from jubex import blas
from jubex.cli import complete
from jubex.cli.parser import Parser, subparser
from jubex.collector import one_command, paused
from jubex.errors import JubexError, UsageError
from jubex.language import inspection
from jubex.version import __version__

#: subcommand -> (module under jubex.cli, one-line help). Modules import lazily.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "check definition and platform files, listing every problem"),
    "info": ("info", "show the parameter space of a definition, or a run's parametrisation"),
    "run": ("run", "expand, submit and track a benchmark"),
    "continue": ("continue_", "pick up a run where it stopped"),
    "status": ("status", "counts per state and step of a run"),
    "runs": ("runs", "list the runs below an outpath"),
    "log": ("log", "the state history of a run"),
    "remove": ("remove", "remove a run or some of its workpackages"),
    "cancel": ("cancel", "cancel a run's queued and running jobs"),
    "analyse": ("analyse", "read new outputs of a run into its store"),
    "result": ("result", "print a run's result tables"),
    "parse": ("parse", "apply an analyser to any output file"),
    "compare": ("compare", "compare two result sets, beyond the noise"),
    "history": ("history", "a metric across runs over time, change points marked"),
    "plot": ("plot", "draw a metric against a parameter, or the definition's plots"),
    "report": ("report", "one self-contained HTML file: plots, tables, provenance, failures"),
    "schema": ("schema", "print the JSON Schema of the definition format"),
    "platforms": ("platforms", "list the platform files jubex can find"),
    "platform": ("platform", "show one platform, resolved"),
    "convert": ("convert", "write a JUBE file in jubex's concise YAML"),
    "publish": ("publish", "send runs' results to the results database, each once and whole"),
    "query": ("query", "a metric's samples over time from the results database"),
    "site": ("site", "a static website of the results database: histories, regressions, runs"),
    "annotate": ("annotate", "note what happened at a site on a date, shown on its histories"),
    "export": ("export", "pack runs into a bundle to tabulate and reproduce elsewhere"),
    "import": ("import_", "unpack a bundle's runs into the runs directory"),
    "import-jube": ("import_jube", "bring run directories JUBE made in as jubex runs"),
    "import-reframe": ("import_reframe", "bring a ReFrame run report in as jubex runs"),
    "import-record": ("import_record", "bring results another harness recorded in as runs"),
    "ci": ("ci", "continuous benchmarking: write CI pipelines; the gate their jobs run"),
    "init": ("init", "write a commented starter definition"),
    "help": ("help_topics", "a short page on a topic: format, expressions, running, ..."),
    "completion": ("completion", "print the shell hook that completes jubex's commands"),
}


#: the commands that only look at a definition (run: with --dry-run), and so run none of
#: its code unless allowed (:mod:`jubex.language.inspection`)
LOOKING = ("validate", "info", "convert", "run", "ci")
#: the commands that read a definition and never run its code, whatever allows it
#: (import-jube imports the values JUBE recorded)
NEVER_RUNNING = ("import-jube",)
#: the commands that drive a run: an interrupted one is picked up by `jubex continue`
DRIVING = ("run", "continue")
#: the module of the real Python interpreter, imported only by the commands that run it
#: (its subprocess and resource limits are no part of reading a table)
_PYTHON = "jubex.language.python"


def build_parser(only: str | None = None, *, alone: bool = False) -> Parser:
    """The parser; with ``only``, just that subcommand's module is imported (fast start),
    and with ``alone`` the other subcommands are not even named: the command line of one
    command, whose parser need not list the rest (30 subparsers are most of argparse's
    share of a small command)."""
    parser = Parser(
        prog="jubex",
        description="A declarative benchmark workflow environment for HPC.",
    )
    parser.add_argument("--version", action="version", version=f"jubex {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if alone and name != only:
            continue
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if only is None or name == only:
            mod = importlib.import_module(f"jubex.cli.{module}")
            mod.add_arguments(cmd)
            complete.attach(cmd)
            cmd.epilog = examples_text(getattr(mod, "EXAMPLES", ()))
            cmd.add_argument(
                "--no-python",
                action="store_true",
                help="refuse python snippets of JUBE files that need real Python "
                "(also: JUBEX_NO_PYTHON=1)",
            )
            if name in LOOKING:
                cmd.add_argument(
                    "--allow-code",
                    action="store_true",
                    help=("with --dry-run: " if name == "run" else "")
                    + "evaluate the definition's shell and python values, which are shown as "
                    "not evaluated otherwise (also: JUBEX_ALLOW_CODE=1, allow_code: true in "
                    "config.yaml)",
                )
            cmd.set_defaults(handler=mod.handle)
    return parser


def examples_text(examples: Sequence[tuple[str, str]]) -> str:
    """A command's examples as ``--help`` ends with them: each line, and what it does."""
    width = min(max((len(line) for line, _ in examples), default=0), 48)
    shown = (f"  {line:<{width}}  # {what}" if what else f"  {line}" for line, what in examples)
    return (
        "examples:\n"
        + "\n".join(shown)
        + "\n\nexit status: 0 ok, 1 a benchmark or comparison failed, 2 bad input or usage"
    )


def _command_of(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def _is_text(arg: str) -> bool:
    """Whether a command-line argument is text: bytes that are not UTF-8 reach Python as lone
    surrogates, which no file jubex writes can hold."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the process is this command's (else: a program calling main)
        one_command()
    argv = list(sys.argv[1:] if argv is None else argv)
    blas.one_thread()
    if "_ARGCOMPLETE" in os.environ:  # asked by the shell hook of `jubex completion`
        import argcomplete

        # only the command on the line is imported: a Tab press costs one module, not all
        typed = os.environ.get("COMP_LINE", "").split()[1:]
        argcomplete.autocomplete(build_parser(_command_of(typed) or ""))
    undecodable = next((arg for arg in argv if not _is_text(arg)), None)
    if undecodable is not None:  # before anything is made: a run could not record it
        print(
            UsageError(
                f"the argument {undecodable.encode('utf-8', 'surrogateescape')!r} is not UTF-8 "
                "text: jubex keeps what its command line says in UTF-8 files",
                hint="give the value in UTF-8",
            ),
            file=sys.stderr,
        )
        return 2
    command = _command_of(argv)
    with paused(kept=True):  # the command's modules and its parser, kept to the end
        parser = build_parser(command or "", alone=command is not None)
        args, unknown = parser.parse_known_args(argv)
    if unknown:
        (subparser(parser, command) or parser).unrecognized(unknown)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    no_python = getattr(args, "no_python", False)
    if no_python or _PYTHON in sys.modules:  # not yet imported: its default is None already
        from jubex.language import python

        python.set_allowed(False if no_python else None)
    looking = command in LOOKING and (command != "run" or getattr(args, "dry_run", False))
    inspection.set_inspecting(looking, getattr(args, "allow_code", False))
    if command in NEVER_RUNNING:
        inspection.set_inspecting(True, never_runs=True)
    try:
        return int(args.handler(args) or 0)
    except JubexError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        resumed = "; `jubex continue` picks the run up again" if command in DRIVING else ""
        print(f"interrupted{resumed}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except Exception as exc:  # the last guard: a bug must still not greet the user with a trace
        if os.environ.get("JUBEX_DEBUG"):
            raise
        print(
            f"internal error: {type(exc).__name__}: {exc} (this is a bug in jubex; run again with"
            " JUBEX_DEBUG=1 to see where it happened, and report it)",
            file=sys.stderr,
        )
        return 3
    finally:  # the library, called after a command in the same process, decides afresh
        inspection.set_inspecting(False)
        if _PYTHON in sys.modules:
            from jubex.language import python

            python.refuse_for_platform(None)
            python.set_allowed(None)
