"""A definition's parameter spaces checked: each gives a point; cycles can evaluate them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from jubex.definition.consistency import applies
from jubex.definition.model import Benchmark, Parameter, ParameterSet, Step
from jubex.definition.order import set_names
from jubex.errors import DefinitionError, ErrorList, JubexError
from jubex.language.template import template
from jubex.space.expand import PER_CYCLE, STEP_NAME, Space

#: spaces up to this size are walked to prove they give a point; larger ones are trusted
MAX_WALK = 1_000_000


def check_spaces(b: Benchmark, tags: Sequence[str] = ()) -> list[JubexError]:
    """Each distinct combination of used sets must give at least one point."""
    return list(_spaces(b, tags))


#: the names a run gives every template besides its parameters (``constants_for`` of the
#: render stage), with stand-in values: a space is checked as it will be planned
RUN_NAMES: dict[str, object] = {
    "jube_benchmark_name": "",
    "jube_benchmark_id": 0,
    "jube_benchmark_padid": "000000",
    "jube_benchmark_home": "",
    "jube_benchmark_rundir": "",
    "jubex_kernels": "",
    "jubex_fs": "",
    "jubex_fs_path": ".",
}


def _spaces(b: Benchmark, tags: Sequence[str]) -> Iterator[JubexError]:
    """Each distinct combination of sets a step spans (its ancestors' and its own, as it
    is planned) must give at least one point, with the names planning gives it."""
    uses = {(tuple(set_names(b, step)), _named(b, step)) for step in b.steps.values()}
    for use, step in sorted(uses or {(tuple(b.parametersets), "")}):
        sets = [b.parametersets[name] for name in use if name in b.parametersets]
        yield from _space(b, sets, tags, {**RUN_NAMES, STEP_NAME: step})


def _named(b: Benchmark, step: Step) -> str:
    """The step's name where its sets read it (else steps sharing sets share one check)."""
    sets = [b.parametersets[n] for n in set_names(b, step) if n in b.parametersets]
    reads = any(
        STEP_NAME in text for ps in sets for p in ps.parameters.values() for text in p.written
    )
    return step.name if reads else ""


def _space(
    b: Benchmark, sets: list[ParameterSet], tags: Sequence[str], constants: dict[str, object]
) -> Iterator[JubexError]:
    names = {n for ps in sets for n in ps.parameters}
    where = [c for c in b.where if applies(c, names)]
    try:
        space = Space(sets, where, {}, tags, constants, b.file, shell_in_cwd=b.dialect == "jube")
        if not _runs_commands(sets) and space.upper_bound() <= MAX_WALK:
            next(iter(space), None)  # the space raises if its constraints leave no point
    except JubexError as exc:
        yield exc.at(b.loc)


def _runs_commands(sets: list[ParameterSet]) -> bool:
    """Proving a space non-empty must not run commands or Python or depend on this environment."""
    return any(p.mode in ("shell", "env", "python") for ps in sets for p in ps.parameters.values())


def check_cycle_updates(benchmark: Benchmark) -> None:
    """Parameters evaluated again every cycle must be single values: raise one error per
    parameter that is not (it would otherwise be silently evaluated wrong)."""
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
    texts = [t.strip() for v in p.written for t in (v.split(p.separator) if split else [v])]
    return len(texts) > 1 and any(template(t, p.loc).names for t in texts)
