"""How much work a run would make, counted without listing it, and the limit it must keep.

A typo (``iterations: 1000000000000``) or a space crossed one parameter too many must be
refused before anything is planned: listing such a run takes hours or all the memory.
The count follows the plan's rules (:mod:`jubex.space.plan`): a step makes, per point of
its space, one workpackage per iteration for each combination of matching parent
workpackages; every workpackage runs its commands ``cycles`` times. Points are counted as
the product of the list lengths; where constraints (``where``) or an ``active`` condition
drop points, an exact count would need listing them, so the count is an upper bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from jubex.definition.model import Benchmark, Parameter, Step
from jubex.definition.order import set_names, step_order
from jubex.definition.tags import tag_matches
from jubex.errors import DefinitionError
from jubex.space.expand import Space

#: workpackage cycles a run may make unless the definition or the command line allows more
DEFAULT_LIMIT = 1_000_000


class _Texts(Space):
    """A step's space with its values left as written: all that counting needs, and cheap
    (a range's million values are not typed a second time, no expression is compiled)."""

    def _producers(self, p: Parameter) -> Sequence[object]:
        return self._texts(p)


def _space(
    benchmark: Benchmark,
    step: Step,
    overrides: Mapping[str, Sequence[str]] | None,
    tags: tuple[str, ...],
    constants: Mapping[str, object] | None,
) -> Space:
    sets = [benchmark.parametersets[n] for n in set_names(benchmark, step)]
    names = {p for s in sets for p in s.parameters}
    return _Texts(
        sets,
        benchmark.where,
        overrides={k: v for k, v in (overrides or {}).items() if k in names},
        tags=tags,
        constants=constants,
        file=benchmark.file,
    )


@dataclass(frozen=True, slots=True)
class StepWork:
    """What one step would make: its workpackages (points × per point) and their cycles."""

    step: str
    points: int
    per_point: int
    cycles: int
    shared: bool
    #: False when constraints or an ``active`` condition may make the step smaller
    exact: bool

    @property
    def workpackages(self) -> int:
        return self.points * self.per_point + (1 if self.shared and self.points else 0)

    @property
    def work(self) -> int:
        """Workpackage cycles: what the limit counts."""
        return self.workpackages * self.cycles


def count_work(
    benchmark: Benchmark,
    *,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
) -> list[StepWork]:
    """Each step's work in plan order, in time independent of its size."""
    tags = tuple(tags)
    per_key: dict[str, int] = {}
    found: list[StepWork] = []
    for step in step_order(benchmark):
        if step.tag and not tag_matches(step.tag, tags, step.loc):
            continue
        if any(p not in per_key for p in step.depend):
            continue
        space = _space(benchmark, step, overrides, tags, constants)
        per_point = math.prod(per_key[p] for p in step.depend) * max(step.iterations, 1)
        per_key[step.name] = per_point
        found.append(
            StepWork(
                step.name,
                space.upper_bound(),
                per_point,
                max(step.cycles, 1),
                any(d.shared for d in step.do),
                exact=not space.constrained and step.active.strip() in ("", "true"),
            )
        )
    return found


def limit_of(benchmark: Benchmark, given: int | None = None) -> int:
    """The limit: the command line's ``--max-workpackages``, else the definition's
    ``max_workpackages``, else :data:`DEFAULT_LIMIT`."""
    if given is not None:
        return given
    return benchmark.max_workpackages or DEFAULT_LIMIT


def check_work(
    benchmark: Benchmark,
    *,
    limit: int | None = None,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
) -> None:
    """Raise when the run would make more workpackage cycles than the limit allows."""
    steps = count_work(benchmark, overrides=overrides, tags=tags, constants=constants)
    allowed = limit_of(benchmark, limit)
    total = sum(s.work for s in steps)
    if total <= allowed:
        return
    bound = "" if all(s.exact for s in steps) else "up to "
    parts = ", ".join(_described(s) for s in steps if s.work)
    raise DefinitionError(
        f"the run would make {bound}{count_text(total)} workpackage cycles ({parts}), more than "
        f"the limit of {allowed:,}",
        benchmark.loc,
        "make the space smaller, or raise the limit: --max-workpackages N on the command "
        "line, else max_workpackages: N in the definition",
    )


def _described(s: StepWork) -> str:
    text = f"step {s.step}: {count_text(s.points)} point(s)"
    if s.per_point > 1:
        text += f" × {count_text(s.per_point)} per point (iterations)"
    if s.cycles > 1:
        text += f" × {count_text(s.cycles)} cycle(s)"
    return text


def count_text(n: int) -> str:
    """A count as a person reads it; astronomically large ones as a power of ten."""
    return f"{n:,}" if n < 10**15 else f"about 10^{int(n.bit_length() * math.log10(2))}"
