"""Definition features the engine does not carry out yet: refused by name, never ignored."""

from __future__ import annotations

from jubex.definition.model import Benchmark, Parameter
from jubex.errors import DefinitionError, ErrorList
from jubex.language.template import template
from jubex.space.expand import PER_CYCLE


def check_supported(benchmark: Benchmark) -> None:
    """Raise one error per use of a feature that would otherwise be silently ignored."""
    problems = [
        DefinitionError(
            f"parameter '{p.name}': update_mode \"{p.update_mode}\" is not supported for "
            "several values computed from other values",
            p.loc,
            hint="give it one value; to vary it, give the values to an index parameter and "
            "compute this one from the index",
        )
        for pset in benchmark.parametersets.values()
        for p in pset.parameters.values()
        if p.update_mode in PER_CYCLE and _computed_list(p)
    ]
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise ErrorList(problems)


def _computed_list(p: Parameter) -> bool:
    """Several values, one of them read from other values: a cycle would have to know which
    of them the workpackage chose, which it no longer can once the value is computed."""
    split = p.mode == "text" and p.separator
    texts = [t.strip() for v in p.values for t in (v.split(p.separator) if split else [v])]
    return len(texts) > 1 and any(template(t, p.loc).names for t in texts)
