"""What the shell offers for the values of jubex's options: argcomplete's completers.

Each completer is called while the user presses Tab, with the words typed so far parsed
into ``parsed_args``; it reads what those words name (the definition file on the line,
the runs of this directory) and never fails: a file that cannot be read offers nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

Completer = Callable[..., list[str]]
#: the values of one parameter offered at most
MAX_VALUES = 100


def _quiet(produce: Callable[[argparse.Namespace], Iterable[str]]) -> Completer:
    """A completer that offers nothing where ``produce`` fails (a broken file, no runs)."""

    def complete(parsed_args: argparse.Namespace | None = None, **_: Any) -> list[str]:
        try:
            return sorted(dict.fromkeys(produce(parsed_args or argparse.Namespace())))
        except Exception:  # pressing Tab must never print a trace into the line
            return []

    return complete


@_quiet
def platforms(_: argparse.Namespace) -> Iterable[str]:
    """The names ``-P`` takes, as jubex looks platforms up."""
    from jubex.platform.load import platform_paths

    return (name for name, _ in platform_paths())


def _definition(args: argparse.Namespace) -> Any:
    """The benchmark of the definition file on the line (without running any of it)."""
    from jubex.definition.load import problems_of

    files = getattr(args, "files", None) or [None]
    path = getattr(args, "definition", None) or getattr(args, "target", None) or files[0]
    if path is None:
        raise ValueError("no definition on the line")
    benchmark = problems_of(path).benchmark
    if benchmark is None:
        raise ValueError(f"{path} cannot be read")
    return benchmark


def parameters(
    prefix: str = "", parsed_args: argparse.Namespace | None = None, **_: Any
) -> list[str]:
    """``NAME=`` for each parameter of the definition on the line (for ``-p``); once the
    word holds ``NAME=``, that parameter's values as written (``NAME=VALUE``). A completion
    is never the word itself: bash, which breaks words at ``=``, would get an empty one."""
    offered = _parameter_words(prefix)(parsed_args)
    return [word for word in offered if word != prefix]


def _parameter_words(prefix: str) -> Completer:
    name, typed, _ = prefix.partition("=")  # typed: "=" once NAME= is on the line

    @_quiet
    def words(args: argparse.Namespace) -> Iterable[str]:
        benchmark = _definition(args)
        if not typed:
            return (f"{found}=" for found in benchmark.parameter_types())
        return (
            f"{name}={value}"
            for group in benchmark.parametersets.values()
            if name in group.parameters and group.parameters[name].mode == "text"
            for value in list(group.parameters[name].written)[:MAX_VALUES]
        )

    return words


@_quiet
def tags(args: argparse.Namespace) -> Iterable[str]:
    """The tags the definition on the line declares or uses (for ``-t``)."""
    from jubex.definition.references import used_tags

    benchmark = _definition(args)
    return [*benchmark.tags, *used_tags(benchmark)]


def _runs(args: argparse.Namespace) -> list[Any]:
    """The runs the words so far select (this directory's latest without any)."""
    from jubex.store.rundir import open_run, resolve_runs

    specs = [*(getattr(args, "runs", None) or []), *(getattr(args, "run_id", None) or [])]
    specs.append(getattr(args, "run", None))
    chosen = [spec for spec in specs if isinstance(spec, str)]
    return [open_run(p) for p in resolve_runs(chosen, getattr(args, "outpath", None))]


@_quiet
def run_ids(args: argparse.Namespace) -> Iterable[str]:
    """The ids of the runs in the outpath of the words so far (else of this directory)."""
    from pathlib import Path

    from jubex.store.rundir import list_runs, outpath_here

    outpath = getattr(args, "outpath", None)
    found = list_runs(Path(outpath) if outpath else outpath_here())
    several = hasattr(args, "runs")  # result, plot, report, export: 'all' of them too
    return [*(path.name for path in found), *(["last", "all"] if several else ["last"])]


@_quiet
def tables(args: argparse.Namespace) -> Iterable[str]:
    """The result tables of the definition on the line, else of the runs selected."""
    if getattr(args, "definition", None):
        return _definition(args).tables
    return (name for run in _runs(args) for name in run.benchmark.tables)


@_quiet
def plot_keys(args: argparse.Namespace) -> Iterable[str]:
    """What ``-x``, ``-g`` and ``--rows`` may name: the selected runs' parameters, run, site."""
    from jubex.results.presentation.plotdata import plot_names

    return plot_names(_runs(args))[0]


@_quiet
def plot_values(args: argparse.Namespace) -> Iterable[str]:
    """What ``-y`` may name: the values measured in the selected runs."""
    from jubex.results.presentation.plotdata import plot_names

    return plot_names(_runs(args))[1]


#: argument (its ``dest``) -> what completes its values, in every command that has it
BY_DEST: dict[str, Completer] = {
    "platform": platforms,
    "parameter": parameters,
    "tag": tags,
    "table": tables,
    "run": run_ids,
    "runs": run_ids,
    "run_id": run_ids,
    "x": plot_keys,
    "group": plot_keys,
    "rows": plot_keys,
    "y": plot_values,
}


def attach(parser: argparse.ArgumentParser, by_dest: dict[str, Completer] = BY_DEST) -> None:
    """Let the shell complete the values of a command's arguments (files stay files)."""
    for action in parser._actions:
        if action.dest in by_dest:
            action.completer = by_dest[action.dest]  # type: ignore[attr-defined]
