"""Printing result tables: to the terminal, or into a file ``-o`` names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from jubex.errors import UsageError
from jubex.results.deliver import report
from jubex.store.rundir import Run


def print_tables(
    run: Run, names: Sequence[str] | None, fmt: str | None, *, include_failed: bool
) -> None:
    print(report([run], names, fmt, include_failed=include_failed), end="")


def write_output(text: str, path: str | None) -> None:
    if path is None:
        print(text, end="" if text.endswith("\n") else "\n")
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write '{path}': {exc.strerror}") from None
