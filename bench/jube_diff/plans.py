"""Plans (workpackages per step) and how two of them are compared."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Collection

# A parameter dictionary, frozen so that a multiset of them can be counted.
Row = tuple[tuple[str, str], ...]
# Step name -> the workpackages' parameter dictionaries.
Plan = dict[str, list[dict[str, str]]]


@dataclasses.dataclass
class Answer:
    """What one tool said about a case: whether it planned it, and the plan or the error."""

    accepted: bool
    plan: Plan = dataclasses.field(default_factory=dict)
    error: str = ""


def compare(jube: Plan, jubex: Plan) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """Per step: (JUBE's count, jubex's count), and the first differences, described."""
    counts: dict[str, tuple[int, int]] = {}
    differences: list[str] = []
    for step in dict.fromkeys([*jube, *jubex]):
        ours, theirs = jubex.get(step, []), jube.get(step, [])
        counts[step] = (len(theirs), len(ours))
        if step not in jubex:
            differences.append(f"step {step}: jubex plans no such step ({len(theirs)} in JUBE)")
            continue
        if step not in jube:
            differences.append(f"step {step}: JUBE plans no such step ({len(ours)} in jubex)")
            continue
        if len(ours) != len(theirs):
            differences.append(
                f"step {step}: {len(theirs)} workpackages in JUBE, {len(ours)} in jubex"
            )
        names_jube = set().union(*theirs) if theirs else set()
        names_jubex = set().union(*ours) if ours else set()
        if names_jube - names_jubex:
            differences.append(f"step {step}: only JUBE has {sorted(names_jube - names_jubex)}")
        if names_jubex - names_jube:
            differences.append(f"step {step}: only jubex has {sorted(names_jubex - names_jube)}")
        common = names_jube & names_jubex
        a = Counter(_row(r, common) for r in theirs)
        b = Counter(_row(r, common) for r in ours)
        only_jube, only_jubex = list((a - b).elements()), list((b - a).elements())
        if only_jube and only_jubex:
            differences.append(f"step {step}: {_row_difference(only_jube[0], only_jubex)}")
        elif only_jube or only_jubex:
            side = "JUBE" if only_jube else "jubex"
            extra = (only_jube or only_jubex)[0]
            differences.append(f"step {step}: only {side} plans {dict(extra)}")
    return counts, differences


def without_ids(plan: Plan, names: Collection[str]) -> Plan:
    """The plan with the digits of the values of NAMES (those holding workpackage ids) as
    ``#``. Which point gets which id is no promise: JUBE orders a step's sets by Python's
    hash seed (it changes from run to run), and jubex numbers a step's shared operation
    as a workpackage of its own. Every other value, and the points, are compared whole."""
    return {
        step: [
            {k: re.sub(r"[0-9]+", "#", v) if k in names else v for k, v in row.items()}
            for row in rows
        ]
        for step, rows in plan.items()
    }


def _row(values: dict[str, str], names: set[str]) -> Row:
    return tuple(sorted((k, v) for k, v in values.items() if k in names))


def _row_difference(jube_row: Row, jubex_rows: list[Row]) -> str:
    """Name the values of JUBE's workpackage that its nearest jubex workpackage lacks."""
    ref = dict(jube_row)

    distances = [sum(1 for k, v in row if ref.get(k) != v) for row in jubex_rows]
    nearest = dict(jubex_rows[distances.index(min(distances))])
    diffs = [
        f"{k}: JUBE {ref[k]!r} / jubex {nearest.get(k)!r}" for k in ref if ref[k] != nearest.get(k)
    ]
    return "; ".join(diffs[:4]) + (f" (+{len(diffs) - 4} more)" if len(diffs) > 4 else "")
