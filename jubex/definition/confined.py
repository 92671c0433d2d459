"""What a definition may not name, checked as it is loaded wherever the value is literal.

A copy, link or substitution target must stay in the work directory unless its entry says
``outside: true``, and a step's suffix may not climb out of its place in the run directory.
A value with ``$`` is known only when a workpackage is rendered, and is checked then
(``workdir/prepare.py``, ``space/plan.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from jubex.definition.model import Benchmark
from jubex.errors import DefinitionError, JubexError, Loc
from jubex.language.confine import control_character, escapes

_OUTSIDE = "set outside: true on the entry to allow it"


def check_paths(benchmark: Benchmark) -> list[JubexError]:
    """Every literal target and suffix that leads out of its directory."""
    return [*_targets(benchmark), *_suffixes(benchmark)]


def _literal(*parts: str | None) -> str | None:
    """The parts joined, or None when one of them is rendered later (holds ``$``)."""
    given = [p for p in parts if p]
    if any("$" in p for p in given):
        return None
    return os.path.join(*given) if given else None


def _targets(benchmark: Benchmark) -> Iterator[JubexError]:
    for fileset in benchmark.filesets.values():
        for op in fileset.ops:
            if op.kind == "prepare" or op.outside:
                continue
            path = _literal(op.target_dir, op.target)
            yield from _refuse(path, f"{op.kind} target", op.loc)
    for subset in benchmark.substitutesets.values():
        for iofile in subset.iofiles:
            if not iofile.outside:
                yield from _refuse(_literal(iofile.target), "substitution target", iofile.loc)


def _refuse(path: str | None, what: str, loc: Loc | None) -> Iterator[JubexError]:
    reason = escapes(path) if path else None
    if reason:
        yield DefinitionError(
            f"the {what} '{path}' {reason}: it would be written outside the work directory",
            loc,
            _OUTSIDE,
        )


def _suffixes(benchmark: Benchmark) -> Iterator[JubexError]:
    for step in benchmark.steps.values():
        suffix = _literal(step.suffix)
        if not suffix:
            continue
        what = control_character(suffix)
        if what or ".." in suffix.split("/"):
            yield DefinitionError(
                f"the suffix {suffix!r} of step '{step.name}' "
                + (f"holds {what}" if what else "climbs out with '..'"),
                step.loc,
                "a suffix names a directory inside the run, on one line",
            )
