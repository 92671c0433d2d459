"""A definition's parameter spaces checked: each must give at least one point."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from jubex.definition.consistency import applies
from jubex.definition.model import Benchmark, ParameterSet
from jubex.errors import JubexError
from jubex.space.expand import Space

#: spaces up to this size are walked to prove they give a point; larger ones are trusted
MAX_WALK = 1_000_000


def check_spaces(b: Benchmark, tags: Sequence[str] = ()) -> list[JubexError]:
    """Each distinct combination of used sets must give at least one point."""
    return list(_spaces(b, tags))


def _spaces(b: Benchmark, tags: Sequence[str]) -> Iterator[JubexError]:
    """Each distinct combination of used sets must give at least one point."""
    uses = {
        tuple(step.use) if step.use is not None else tuple(b.parametersets)
        for step in b.steps.values()
    }
    for use in sorted(uses or {tuple(b.parametersets)}):
        sets = [b.parametersets[name] for name in use if name in b.parametersets]
        yield from _space(b, sets, tags)


def _space(b: Benchmark, sets: list[ParameterSet], tags: Sequence[str]) -> Iterator[JubexError]:
    names = {n for ps in sets for n in ps.parameters}
    where = [c for c in b.where if applies(c, names)]
    try:
        space = Space(sets, where, {}, tags, {}, b.file)
        if not _runs_commands(sets) and space.upper_bound() <= MAX_WALK:
            next(iter(space), None)  # the space raises if its constraints leave no point
    except JubexError as exc:
        yield exc.at(b.loc)


def _runs_commands(sets: list[ParameterSet]) -> bool:
    """Proving a space non-empty must not run shell commands or depend on this environment."""
    return any(p.mode in ("shell", "env") for ps in sets for p in ps.parameters.values())
