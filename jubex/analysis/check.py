"""A definition's analysers checked against the analysers jubex has built in."""

from __future__ import annotations

from collections.abc import Iterator

from jubex.analysis import builtin
from jubex.definition.model import Benchmark, place
from jubex.definition.references import unknown
from jubex.errors import DefinitionError


def check_analysers(b: Benchmark) -> list[DefinitionError]:
    """What a step's ``analyse`` names exists; an analyser's ``builtin`` is one of jubex's."""
    return list(_references(b))


def _references(b: Benchmark) -> Iterator[DefinitionError]:
    analysable = {*builtin.names(), *b.patternsets, *b.analysers}
    for step in b.steps.values():
        for i, name in enumerate(step.analyse):
            if name not in analysable:
                where = f"step '{step.name}'"
                yield unknown(
                    "analyser or patternset", name, analysable, where, place(step, "analyse", i)
                )
    for analyser in b.analysers.values():
        if analyser.builtin is not None and not builtin.is_builtin(analyser.builtin):
            where = f"analyser '{analyser.name}'"
            yield unknown(
                "built-in analyser", analyser.builtin, builtin.names(), where, analyser.loc
            )
