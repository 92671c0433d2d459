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
from jubex.definition.order import set_levels, set_names, step_order
from jubex.definition.tags import tag_matches
from jubex.errors import DefinitionError, DefinitionWarning, UsageError, did_you_mean, warn
from jubex.language.confine import control_character
from jubex.language.template import Template, template
from jubex.space.conditions import Condition
from jubex.space.expand import STEP_NAME, Space
from jubex.space.workpackage import HELD, SHARED, Workpackage, wp_dir_name
from jubex.space.wp_values import builtins, finalize, inherited, needs_builtins


@dataclass
class _StepIndex:
    """Workpackages of a planned step, by the values of its parameters.

    ``loose`` names parameters that are no ground to tell the step's workpackages apart, as
    JUBE compares a dependent step's parameters with its parent's by what they are defined
    as: a value that still reads an unknown ``$name`` (JUBE works it out again in a
    dependent step that knows the name) and one that reads the step's own ``jube_*`` names.
    """

    #: the names a dependent point is matched by (sorted, once the step is planned)
    names: tuple[str, ...]
    by_key: dict[tuple[tuple[str, str], ...], list[int]] = field(default_factory=dict)
    shared: int | None = None
    #: the last workpackage, which runs the step's shared operation and so is done first
    last: int = -1
    loose: frozenset[str] = frozenset()

    def build(self, points: Sequence[tuple[int, Mapping[str, object]]], own: set[str]) -> None:
        """Index the step's workpackages (id and restricted point) once all are planned;
        ``own`` names the parameters that read the step's ``jube_*`` names."""
        self.loose = frozenset(
            n for _, point in points for n, v in point.items() if isinstance(v, str) and "$" in v
        ).union(own)
        ordered: dict[frozenset[str], tuple[str, ...]] = {}
        for wp_id, point in points:
            keys = frozenset(point)
            if keys not in ordered:
                ordered[keys] = tuple(sorted(keys - self.loose))
            self.by_key.setdefault(_key(ordered[keys], point), []).append(wp_id)
        self.names = tuple(sorted(set(self.names) - self.loose))


def step_space(
    benchmark: Benchmark,
    step: Step,
    *,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
    chosen: Sequence[str] = (),
) -> Space:
    """The space of the sets a step spans (and of the sets ``chosen`` for some of its points)."""
    names = [
        *set_names(benchmark, step),
        *(n for n in chosen if n not in set_names(benchmark, step)),
    ]
    sets = [benchmark.parametersets[n] for n in names]
    return Space(
        sets,
        benchmark.where,
        overrides=_known_overrides(sets, overrides),
        tags=tags,
        constants={**(constants or {}), STEP_NAME: step.name},
        file=benchmark.file,
        shell_in_cwd=benchmark.dialect == "jube",
        levels=set_levels(benchmark, step),
    )


def _known_overrides(
    sets: Sequence[ParameterSet], overrides: Mapping[str, Sequence[str]] | None
) -> dict[str, Sequence[str]] | None:
    """Overrides for the parameters these sets define (others belong to other steps)."""
    if not overrides:
        return None
    names = {p for s in sets for p in s.parameters}
    return {k: v for k, v in overrides.items() if k in names}


def _chosen_texts(benchmark: Benchmark, step: Step) -> list[str]:
    """The set names chosen per point by a step and the steps it depends on."""
    found: list[str] = []
    for parent in step.depend:
        found += _chosen_texts(benchmark, benchmark.steps[parent])
    return list(dict.fromkeys([*found, *step.chosen]))


def step_points(
    benchmark: Benchmark,
    step: Step,
    *,
    overrides: Mapping[str, Sequence[str]] | None = None,
    tags: Iterable[str] = (),
    constants: Mapping[str, object] | None = None,
) -> Iterator[tuple[Space, dict[str, object]]]:
    """Each point of a step with the space it comes from.

    A set chosen by a parameter (``<use>set_$i</use>``) is JUBE's choice per point: the
    points of the step's fixed sets are split by the names they choose, and each group is
    crossed with its chosen sets, so ``i=0`` gets ``set_0``'s parameters and ``i=1``
    ``set_1``'s.
    """
    texts = _chosen_texts(benchmark, step)
    space = step_space(benchmark, step, overrides=overrides, tags=tags, constants=constants)
    if not texts:
        yield from ((space, point) for point in space)
        return
    templates = [Template(t, step.loc, shell=False) for t in texts]
    env = {**(constants or {}), "jube_step_name": step.name}

    def choice(point: Mapping[str, object]) -> tuple[str, ...]:
        return tuple(t.render({**env, **point}) for t in templates)

    for names in dict.fromkeys(choice(point) for point in space):
        for text, name in zip(texts, names, strict=True):
            if name not in benchmark.parametersets:
                raise DefinitionError(
                    f"step '{step.name}' uses '{text}', that is '{name}', which is no parameterset",
                    step.loc,
                    did_you_mean(name, benchmark.parametersets),
                )
        chosen = step_space(
            benchmark,
            step,
            overrides=overrides,
            tags=tags,
            constants=constants,
            chosen=names,
        )
        yield from ((chosen, point) for point in chosen if choice(point) == names)


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
    constants = dict(constants or {})
    indexes: dict[str, _StepIndex] = {}
    iterations: dict[int, int] = {}
    finals: dict[int, dict[str, object]] = {}
    has_children = {p for s in benchmark.steps.values() for p in s.depend}
    next_id = 0
    shared_id = 0
    for step in step_order(benchmark):
        if step.tag and not tag_matches(step.tag, tags, step.loc):
            continue
        points = step_points(benchmark, step, overrides=overrides, tags=tags, constants=constants)
        space = step_space(benchmark, step, overrides=overrides, tags=tags, constants=constants)
        active = Condition(step.active, step.loc)
        suffix = Template(step.suffix, step.loc, shell=False)
        index = _StepIndex(tuple(space.names))
        own_ids: list[int] = []
        keyed: list[tuple[int, dict[str, object]]] = []
        parent_indexes = [indexes[p] for p in step.depend if p in indexes]
        if len(parent_indexes) < len(step.depend):
            continue
        shared_parents = tuple(pi.shared for pi in parent_indexes if pi.shared is not None)
        own_sets = [
            benchmark.parametersets[n].parameters
            for n in step.use or ()
            if n in benchmark.parametersets
        ]
        spaces: dict[int, tuple[frozenset[str], list[str]]] = {}
        names: dict[str, None] = dict.fromkeys(space.names)
        reads_builtins: set[str] = set()
        first_done = frozenset(pi.last for pi in parent_indexes if pi.shared is not None)
        children = _children(points, active, constants, parent_indexes)
        for own_space, point, combo in _in_jube_order(children, first_done):
            if id(own_space) not in spaces:
                spaces[id(own_space)] = (
                    inherited(own_space.parameters, own_sets),
                    [n for n, p in own_space.parameters.items() if p.export],
                )
                names.update(dict.fromkeys(own_space.names))
                reads_builtins.update(
                    n
                    for n, p in own_space.parameters.items()
                    if any("jube_" in text for text in p.written)
                )
            keep, exported = spaces[id(own_space)]
            parents = combo + shared_parents
            base = iterations[combo[0]] * step.iterations if combo else 0
            values = _from_parents(own_space, point, [finals[p] for p in combo], keep)
            name = suffix.render({**constants, **values}) if step.suffix else ""
            _check_suffix(benchmark, step, name)
            for own in range(step.iterations):
                state = HELD if step.until and own >= step.until.minimum else "planned"
                dir_name = wp_dir_name(next_id, step.name, name)
                final = values
                if needs_builtins(values):
                    own_names = builtins(
                        next_id,
                        step,
                        base + own,
                        dir_name,
                        dict(zip(step.depend, combo, strict=True)),
                        constants,
                    )
                    final = finalize(values, {**constants, **own_names}, exported)
                if step.name in has_children:
                    finals[next_id] = final
                iterations[next_id] = base + own
                yield Workpackage(
                    next_id,
                    step.name,
                    base + own,
                    final,
                    parents,
                    dir_name=dir_name,
                    state=state,
                )
                keyed.append((next_id, {n: point[n] for n in own_space.names}))
                own_ids.append(next_id)
                next_id += 1
        if any(d.shared for d in step.do) and own_ids:
            # numbered apart (-1, -2, ...), as JUBE gives a shared operation no workpackage:
            # the ids, directories and $jube_wp_id of the later steps stay JUBE's
            shared_id -= 1
            index.shared = shared_id
            index.last = own_ids[-1]
            name = suffix.render(constants) if step.suffix else ""
            _check_suffix(benchmark, step, name)
            yield Workpackage(
                shared_id,
                step.name,
                0,
                {},
                tuple(own_ids),
                kind=SHARED,
                dir_name=f"{step.name}{name}_shared",
            )
        index.names = tuple(names)
        # values a step works out for itself do not tell which parent a child belongs to
        index.build(keyed, reads_builtins | space.updated)
        indexes[step.name] = index


def _check_suffix(benchmark: Benchmark, step: Step, suffix: str) -> None:
    """A workpackage directory stays in its place: its suffix may not climb out with ``..``
    (a JUBE file gets a warning, as JUBE goes where it is told) nor break a line of the job
    script that names the directory."""
    if not suffix:
        return
    what = control_character(suffix)
    if what:
        raise DefinitionError(
            f"the suffix of step '{step.name}' holds {what}: {suffix!r}",
            step.loc,
            "a directory name must be one line of printable text",
        )
    if ".." not in suffix.split("/"):
        return
    message = (
        f"the suffix {suffix!r} of step '{step.name}' climbs out with '..': its workpackage "
        "directories would be outside their own place in the run directory"
    )
    if benchmark.dialect == "jubex":
        raise DefinitionError(message, step.loc, "a suffix names a directory inside the run")
    warn(DefinitionWarning(message, step.loc))


def _from_parents(
    space: Space,
    point: Mapping[str, object],
    parents: Sequence[Mapping[str, object]],
    keep: frozenset[str],
) -> dict[str, object]:
    """A dependent workpackage's values: its parents' fixed values of the parameters it
    inherits, and what derives from them worked out again (JUBE's history of values)."""
    if not parents:
        return dict(point)
    values = dict(point)
    changed: list[str] = []
    taken: set[str] = set()
    for parent in parents:
        for name, value in parent.items():
            if name in keep and name in values:
                taken.add(name)
                if values[name] != value:
                    values[name] = value
                    changed.append(name)
    for name in taken:
        value = values[name]
        if isinstance(value, str) and "$" in value:
            values[name] = template(value).render(values)
    return space.recompute(values, changed, frozenset(taken)) if changed else values


def _children(
    points: Iterable[tuple[Space, dict[str, object]]],
    active: Condition,
    constants: Mapping[str, object],
    parent_indexes: Sequence[_StepIndex],
) -> Iterator[tuple[Space, dict[str, object], tuple[int, ...]]]:
    """A step's active points, each with every combination of parent workpackages it
    belongs to."""
    for space, point in points:
        if active.holds(point, constants):
            matches = [_matching(pi, point) for pi in parent_indexes]
            for combo in product(*matches):
                yield space, point, combo


def _in_jube_order(
    children: Iterable[tuple[Space, dict[str, object], tuple[int, ...]]],
    first_done: frozenset[int],
) -> Iterator[tuple[Space, dict[str, object], tuple[int, ...]]]:
    """The children in the order JUBE makes them: a parent's when it is done. A step's
    workpackages are done in their order, except after a shared operation: the last one,
    which runs it, is done first, then the others in their order (checked with JUBE 2.7.1),
    so its children come first."""
    if not first_done:
        yield from children
        return
    later = []
    for child in children:
        if first_done.intersection(child[2]):
            yield child
        else:
            later.append(child)
    yield from later


def _matching(index: _StepIndex, point: Mapping[str, object]) -> list[int]:
    return index.by_key.get(_key(index.names, point), [])


def _key(names: Sequence[str], point: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """A point's values of those of ``names`` (sorted) it has."""
    return tuple((n, str(point[n])) for n in names if n in point)
