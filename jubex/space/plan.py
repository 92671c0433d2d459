"""From a benchmark to workpackages: steps × parameter points × iterations, as a stream.

JUBE's pairing rule: a dependent step spans the sets of its ancestors and its own; each of
its points pairs with the parent workpackages whose parameters it shares (their points are
the restriction of its point to the parent's names), once per parent iteration and per own
iteration. A compile step used by a run step is therefore built once per compile point.
A child's iteration number is ``parent iteration × own iterations + own iteration``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

from jubex.definition.model import Benchmark, ParameterSet, Step
from jubex.definition.order import set_names, step_order
from jubex.definition.tags import tag_matches
from jubex.errors import UsageError, did_you_mean
from jubex.language.template import Template
from jubex.space.conditions import Condition
from jubex.space.expand import STEP_NAME, Space

SHARED = "shared"


def wp_dir_name(wp_id: int, step: str, suffix: str = "") -> str:
    """``<id>_<step><suffix>``: JUBE's name of a workpackage directory."""
    return f"{wp_id:06d}_{step}{suffix}"


@dataclass(slots=True)
class Workpackage:
    """One workpackage, the same value from the plan to the job script and the tables.

    ``point`` holds its parameter values typed (a size stays a size); ``dir_name`` is fixed
    when it is planned. The last four fields are where it stands, kept by the run store.
    """

    id: int
    step: str
    iteration: int
    point: dict[str, object]
    parents: tuple[int, ...] = ()
    kind: str = "wp"
    dir_name: str = ""
    state: str = "planned"
    job_id: str | None = None
    exit_code: int | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        if not self.dir_name:
            self.dir_name = wp_dir_name(self.id, self.step)


@dataclass
class _StepIndex:
    """Workpackages of a planned step, by the values of its parameters."""

    names: tuple[str, ...]
    by_key: dict[tuple[str, ...], list[int]] = field(default_factory=dict)
    shared: int | None = None


def step_space(
    benchmark: Benchmark,
    step: Step,
    *,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
) -> Space:
    sets = [benchmark.parametersets[n] for n in set_names(benchmark, step)]
    return Space(
        sets,
        benchmark.where,
        overrides=_known_overrides(sets, overrides),
        tags=tags,
        constants={**(constants or {}), STEP_NAME: step.name},
        file=benchmark.file,
    )


def _known_overrides(
    sets: Sequence[ParameterSet], overrides: Mapping[str, Sequence[str]] | None
) -> dict[str, Sequence[str]] | None:
    """Overrides for the parameters these sets define (others belong to other steps)."""
    if not overrides:
        return None
    names = {p for s in sets for p in s.parameters}
    return {k: v for k, v in overrides.items() if k in names}


def check_overrides(benchmark: Benchmark, overrides: Mapping[str, Sequence[str]]) -> None:
    """An override must name a parameter of some set."""
    known = {p for s in benchmark.parametersets.values() for p in s.parameters}
    for name in overrides:
        if name not in known:
            raise UsageError(
                f"-p {name}=...: the definition has no parameter '{name}'",
                hint=did_you_mean(name, known),
            )


def plan(
    benchmark: Benchmark,
    *,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
) -> Iterator[Workpackage]:
    """Every workpackage of the benchmark, parents before children, numbered from 0, each
    with its directory named (a step's ``suffix`` rendered with the point's values)."""
    tags = tuple(tags)
    indexes: dict[str, _StepIndex] = {}
    iterations: dict[int, int] = {}
    next_id = 0
    for step in step_order(benchmark):
        if step.tag and not tag_matches(step.tag, tags):
            continue
        space = step_space(benchmark, step, overrides=overrides, tags=tags, constants=constants)
        active = Condition(step.active, step.loc)
        suffix = Template(step.suffix, step.loc, shell=False)
        values = dict(constants or {})
        index = _StepIndex(tuple(n for n in space.names if n not in space.updated))
        own_ids: list[int] = []
        parent_indexes = [indexes[p] for p in step.depend if p in indexes]
        if len(parent_indexes) < len(step.depend):
            continue
        shared_parents = tuple(pi.shared for pi in parent_indexes if pi.shared is not None)
        for point in space:
            if not active.holds(point, constants):
                continue
            matches = [_matching(pi, point) for pi in parent_indexes]
            for combo in product(*matches):
                parents = combo + shared_parents
                base = iterations[combo[0]] * step.iterations if combo else 0
                name = suffix.render({**values, **point}) if step.suffix else ""
                for own in range(step.iterations):
                    iterations[next_id] = base + own
                    yield Workpackage(
                        next_id,
                        step.name,
                        base + own,
                        point,
                        parents,
                        dir_name=wp_dir_name(next_id, step.name, name),
                    )
                    index.by_key.setdefault(_key(index.names, point), []).append(next_id)
                    own_ids.append(next_id)
                    next_id += 1
        if any(d.shared for d in step.do) and own_ids:
            index.shared = next_id
            name = suffix.render(values) if step.suffix else ""
            yield Workpackage(
                next_id,
                step.name,
                0,
                {},
                tuple(own_ids),
                kind=SHARED,
                dir_name=wp_dir_name(
                    next_id, step.name, suffix.render(values) if step.suffix else ""
                ),
            )
            next_id += 1
        indexes[step.name] = index


def _matching(index: _StepIndex, point: Mapping[str, object]) -> list[int]:
    return index.by_key.get(_key(index.names, point), [])


def _key(names: tuple[str, ...], point: Mapping[str, object]) -> tuple[str, ...]:
    return tuple(str(point[n]) for n in names if n in point)
