"""Definition features the engine does not carry out yet: refused by name, never ignored."""

from __future__ import annotations

from jubex.definition.model import Benchmark
from jubex.errors import DefinitionError, ErrorList


def check_supported(benchmark: Benchmark) -> None:
    """Raise one error per use of a feature that would otherwise be silently ignored."""
    problems = []
    for pset in benchmark.parametersets.values():
        for p in pset.parameters.values():
            if p.update_mode in ("cycle", "always"):
                problems.append(
                    DefinitionError(
                        f"parameter '{p.name}': update_mode \"{p.update_mode}\" is not supported"
                        " yet",
                        p.loc,
                        hint="values are evaluated once per workpackage (as 'step')",
                    )
                )
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise ErrorList(problems)
