"""Which parameters name a point when runs are set side by side, and which tell runs apart.

A point is a place in the sweep: the values of the parameters a study varies on purpose.
A derived parameter (an expression, a ``$name`` template such as IOR's ``options`` text,
a shell, env or python value) follows those values and names nothing of its own: taken as
a key, a run with another ``block`` would share no point with the first, since its
``options`` text holds the block too. Constants name nothing either, and a setting that
differs only *between* runs is what they compare, not a place in either. compare, history,
plot and the report all choose their keys here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from jubex.definition.model import Benchmark, Parameter, Table
from jubex.results.tables.table import Row


def derived_parameters(benchmarks: Iterable[Benchmark]) -> set[str]:
    """Parameters every definition of which derives one value from others (or from the
    shell, the environment, Python): they vary with the sweep, not on their own."""
    kinds: dict[str, set[bool]] = {}
    for benchmark in benchmarks:
        for parameterset in benchmark.parametersets.values():
            for parameter in parameterset.parameters.values():
                kinds.setdefault(parameter.name, set()).add(_derived(parameter))
    return {name for name, derived in kinds.items() if derived == {True}}


def _derived(parameter: Parameter) -> bool:
    if len(parameter.values) != 1:
        return False
    return parameter.mode != "text" or "$" in str(parameter.values[0])


def default_keys(
    rows: Sequence[Sequence[Row]],
    parameters: Collection[str],
    benchmarks: Iterable[Benchmark] = (),
    table: Table | None = None,
) -> list[str]:
    """A table's group_by, or the independent ``parameters`` that vary within a side.

    ``rows`` holds the rows of each side (a run, or a set of runs). A parameter that
    differs only *between* the sides (the setting under test) is no key: it would put
    every point of one apart from every point of the other; nor is a parameter the
    ``benchmarks`` derive from others.
    """
    if table is not None and table.group_by:
        return list(table.group_by)
    derived = derived_parameters(benchmarks)
    keys: dict[str, None] = {}
    for side in rows:
        named: dict[str, None] = {}
        for row in side:  # the parameters in order of appearance, each row's in one C call
            named.update(dict.fromkeys(filter(parameters.__contains__, row)))
        for name in named:
            if name not in derived and name not in keys and _varies(side, name):
                keys[name] = None
    return list(keys)


def _varies(rows: Sequence[Row], name: str) -> bool:
    """Whether the rows show more than one value of ``name`` (as text): a parameter that
    varies mostly shows so within a few rows."""
    first = str(rows[0].get(name))
    return any(str(row.get(name)) != first for row in rows)


def sides_differ(
    rows: Sequence[Sequence[Row]],
    parameters: Collection[str],
    benchmarks: Iterable[Benchmark] = (),
) -> list[str]:
    """What differs between two sides, as ``block 16m → 32m``: the independent parameters
    whose values on one side are not those of the other."""
    derived = derived_parameters(benchmarks)
    base, cand = rows
    found: list[str] = []
    names = dict.fromkeys(k for side in rows for row in side for k in row if k in parameters)
    for name in names:
        if name in derived:
            continue
        before, after = (_values(side, name) for side in (base, cand))
        if set(before) != set(after):
            found.append(f"{name} {_shown(before)} → {_shown(after)}")
    return found


def _values(rows: Sequence[Row], name: str) -> list[str]:
    return list(dict.fromkeys(str(row[name]) for row in rows if row.get(name) is not None))


def _shown(values: list[str]) -> str:
    if not values:
        return "(none)"
    text = ",".join(values[:4]) + (",…" if len(values) > 4 else "")
    return text if len(text) <= 40 else text[:39] + "…"
