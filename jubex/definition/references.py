"""Cross-reference checks: every name a definition uses must be defined somewhere.

An unknown set, step or analyser is an error (the run could not work). Names only a later
stage knows (built-in analysers, the values a table reads) are checked by that stage.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from jubex.definition.model import Analyser, Benchmark, Step, place
from jubex.errors import DefinitionError, DefinitionWarning, Loc, UsageError, did_you_mean

_TAG_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
#: names every workpackage knows without defining them (JUBE's, kept)
BUILTIN_PREFIXES = ("jube_", "jubex_")


def check_references(benchmark: Benchmark) -> list[DefinitionError]:
    """Every unknown name, every ``depend`` cycle, tags used but not declared."""
    return [
        *_step_references(benchmark),
        *_cycles(benchmark),
        *_analyser_references(benchmark),
        *_undeclared_tags(benchmark),
    ]


def check_tags(benchmark: Benchmark, tags: Iterable[str]) -> list[UsageError]:
    """``--tag`` values the definition neither declares nor uses are probably misspelt."""
    known = set(benchmark.tags) | set(used_tags(benchmark))
    return [
        UsageError(
            f"tag '{tag}' is not known to {benchmark.file or 'the definition'}"
            + (f" (known tags: {', '.join(sorted(known))})" if known else " (it uses no tags)"),
            hint=did_you_mean(tag, known),
        )
        for tag in tags
        if tag not in known
    ]


def used_tags(benchmark: Benchmark) -> dict[str, Loc | None]:
    """Tag names in the tag expressions of elements, with the first place of each."""
    found: dict[str, Loc | None] = {}
    elements: list = [*benchmark.where, *benchmark.steps.values(), *benchmark.analysers.values()]
    elements += [*benchmark.tables.values(), *benchmark.plots.values()]
    for pset in benchmark.parametersets.values():
        elements += pset.parameters.values()
    for fileset in benchmark.filesets.values():
        elements += fileset.ops
    for step in benchmark.steps.values():
        elements += step.do
    for element in elements:
        for name in _TAG_NAME.findall(element.tag or ""):
            found.setdefault(name, element.loc)
    return found


def unknown(
    kind: str, name: str, known: Iterable[str], where: str, loc: Loc | None
) -> DefinitionError:
    known = sorted(set(known))
    hint = did_you_mean(name, known) or (
        f"known: {', '.join(known)}" if known else f"no {kind} is defined"
    )
    return DefinitionError(f"{where} names unknown {kind} '{name}'", loc, hint)


def _step_references(b: Benchmark) -> Iterator[DefinitionError]:
    for step in b.steps.values():
        where = f"step '{step.name}'"
        for i, name in enumerate(step.use or ()):
            if name not in b.parametersets:
                at = place(step, "use", None if step.chosen else i)  # chosen: left out of use
                yield unknown("parameterset", name, b.parametersets, where, at)
        for i, name in enumerate(step.use_files):
            if name not in b.filesets and name not in b.substitutesets:
                known = [*b.filesets, *b.substitutesets]
                at = place(step, "files", i)
                yield unknown("fileset or substituteset", name, known, where, at)
        for i, name in enumerate(step.depend):
            if name not in b.steps:
                yield unknown("step", name, b.steps, where, place(step, "depend", i))
        if step.shared is None:
            for do in step.do:
                if do.shared:
                    yield DefinitionError(
                        f"step '{step.name}' has a do entry with shared: true but no shared folder",
                        do.loc,
                        "add shared: NAME to the step",
                    )


def _cycles(b: Benchmark) -> Iterator[DefinitionError]:
    state: dict[str, str] = {}
    reported: set[frozenset[str]] = set()

    def visit(step: Step, path: list[str]) -> Iterator[DefinitionError]:
        state[step.name] = "open"
        for name in step.depend:
            if name not in b.steps:
                continue
            if state.get(name) == "open":
                cycle = [*path[path.index(name) :], name]
                if frozenset(cycle) not in reported:
                    reported.add(frozenset(cycle))
                    yield DefinitionError(
                        f"steps depend on each other in a cycle: {' -> '.join(cycle)}", step.loc
                    )
            elif name not in state:
                yield from visit(b.steps[name], [*path, name])
        state[step.name] = "done"

    for step in b.steps.values():
        if step.name not in state:
            yield from visit(step, [step.name])


def _analyser_references(b: Benchmark) -> Iterator[DefinitionError]:
    for analyser in b.analysers.values():
        where = f"analyser '{analyser.name}'"
        uses = [*analyser.use, *(name for f in analyser.files for name in f.use)]
        for name in uses:
            if name not in b.patternsets:
                yield unknown("patternset", name, b.patternsets, where, analyser.loc)
        if analyser.step is not None and analyser.step not in b.steps:
            yield unknown("step", analyser.step, b.steps, where, analyser.loc)


def analysers_of(b: Benchmark, step: Step) -> list[Analyser]:
    """The definition's analysers that read a step: named in its ``analyse``, or bound to it."""
    named = [b.analysers[n] for n in step.analyse if n in b.analysers]
    return named + [
        a for a in b.analysers.values() if a.step == step.name and a.name not in step.analyse
    ]


def _undeclared_tags(b: Benchmark) -> Iterator[DefinitionError]:
    if not b.tags:
        return
    for tag, loc in used_tags(b).items():
        if tag not in b.tags:
            yield DefinitionWarning(
                f"tag '{tag}' is used but not among the file's tags ({', '.join(b.tags)})",
                loc,
                did_you_mean(tag, b.tags),
            )
