"""Steps in dependency order, and the parametersets each step spans (JUBE's rules)."""

from __future__ import annotations

from jubex.definition.model import Benchmark, Step
from jubex.errors import DefinitionError


def step_order(benchmark: Benchmark) -> list[Step]:
    """Steps with every parent before its children (definition order otherwise)."""
    done: dict[str, Step] = {}
    visiting: list[str] = []

    def visit(step: Step) -> None:
        if step.name in done:
            return
        if step.name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(step.name) :], step.name])
            raise DefinitionError(f"steps depend on each other in a cycle: {cycle}", step.loc)
        visiting.append(step.name)
        for parent in step.depend:
            if parent not in benchmark.steps:
                raise DefinitionError(
                    f"step '{step.name}' depends on unknown step '{parent}'", step.loc
                )
            visit(benchmark.steps[parent])
        visiting.pop()
        done[step.name] = step

    for step in benchmark.steps.values():
        visit(step)
    return list(done.values())


def set_names(benchmark: Benchmark, step: Step) -> list[str]:
    """The parametersets a step spans: its ancestors' first, then its own."""
    names: list[str] = []
    for parent in step.depend:
        names += set_names(benchmark, benchmark.steps[parent])
    own = step.use if step.use is not None else tuple(benchmark.parametersets)
    names += [n for n in own if n in benchmark.parametersets]
    return list(dict.fromkeys(names))


def set_levels(benchmark: Benchmark, step: Step) -> dict[str, int]:
    """How deep in the chain of steps each set a step spans is first used: a set of a step
    without parents is at 0, one its child adds at 1, and so on. JUBE makes a parent's
    workpackages, all their values expanded, before a child expands its own sets."""
    levels: dict[str, int] = {}

    def visit(current: Step) -> int:
        depth = 1 + max((visit(benchmark.steps[p]) for p in current.depend), default=-1)
        own = current.use if current.use is not None else tuple(benchmark.parametersets)
        for name in own:
            levels[name] = min(levels.get(name, depth), depth)
        return depth

    visit(step)
    return levels
