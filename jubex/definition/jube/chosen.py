"""Sets a step chooses by a parameter (``<use>set_$i</use>``), and ``max_async="$n"``.

JUBE replaces the parameters in such a name when it creates a step's workpackages, with the
values the step knows by then: those of the sets of the steps it depends on and of the sets
it already uses, adding the sets it finds until no new one turns up; ``max_async`` it
replaces with the workpackage's values. jubex decides a step's sets and its cap when it
reads the file, so it takes the parameters that have one plain value (``<parameter
name="i">2</parameter>``): they are the same for every workpackage, and the result is
JUBE's. A name that reads a parameter with several values, or a derived one, is refused,
since its step's sets would differ from point to point.
"""

from __future__ import annotations

from jubex.definition.jube.context import Context
from jubex.definition.jube.steps import set_kind
from jubex.definition.model import Benchmark, Parameter, Step
from jubex.errors import JubexError, Loc
from jubex.language.template import Template


def resolve_chosen(ctx: Context, built: Benchmark) -> None:
    """Add each step's chosen sets to its ``use``; settle a ``max_async`` given by a name."""
    for name, step in built.steps.items():
        pending = list(ctx.chosen.get(name, ()))
        while pending:
            known = constants(built, step)
            found = [(text, loc, _render(text, known)) for text, loc in pending]
            pending = [(text, loc) for text, loc, value in found if value is None]
            for text, loc, value in found:
                if value is not None:
                    _add(ctx, built, step, text, value, loc)
            if len(pending) == len(found):
                break
        for text, loc in pending:
            if _per_point(built, step, text):
                step.chosen = (*step.chosen, text)
                ctx.note("steps", step.name, f"<use>{text}</use> chooses a set per point")
            else:
                what = f"<use>{text}</use> chooses a set by a parameter"
                _refuse(ctx, built, step, what, text, loc)
        if name in ctx.max_async:
            text, loc = ctx.max_async[name]
            step.max_async = _max_async(ctx, built, step, text, loc)


def constants(built: Benchmark, step: Step) -> dict[str, str]:
    """The parameters with one plain value that the step and the steps before it use."""
    found: dict[str, str] = {"jube_step_name": step.name, "jube_benchmark_name": built.name}
    for p in _reachable(built, step):
        if p.mode == "text" and len(p.values) == 1 and "$" not in p.values[0]:
            found.setdefault(p.name, p.values[0])
    return found


def _reachable(built: Benchmark, step: Step) -> list[Parameter]:
    """The parameters of the sets the step and the steps it depends on use."""
    found: list[Parameter] = []
    seen: set[str] = set()
    todo = [step.name]
    while todo:
        current = built.steps.get(todo.pop())
        if current is None or current.name in seen:
            continue
        seen.add(current.name)
        todo += current.depend
        for set_name in current.use or ():
            if set_name in built.parametersets:
                found += built.parametersets[set_name].parameters.values()
    return found


def _per_point(built: Benchmark, step: Step, text: str) -> bool:
    """Whether every name the text reads is a parameter the step spans (or a constant)."""
    try:
        names = Template(text, shell=False).names
    except JubexError:
        return False
    known = {p.name for p in _reachable(built, step)} | constants(built, step).keys()
    return names <= known


def _render(text: str, known: dict[str, str]) -> str | None:
    try:
        template = Template(text, shell=False)
        return template.render(known) if template.names <= known.keys() else None
    except JubexError:
        return None


def _add(ctx: Context, built: Benchmark, step: Step, text: str, name: str, loc: Loc) -> None:
    kind = set_kind(built, name)
    if kind == "parameterset":
        if name not in (step.use or ()):
            step.use = (*(step.use or ()), name)
    elif kind in ("fileset", "substituteset"):
        if name not in step.use_files:
            step.use_files = (*step.use_files, name)
    else:
        ctx.fail(
            f"step '{step.name}' uses '{text}', that is '{name}', which is no parameterset, "
            "fileset or substituteset",
            loc,
        )
    ctx.note("steps", step.name, f"<use>{text}</use> chose '{name}'")


def _max_async(ctx: Context, built: Benchmark, step: Step, text: str, loc: Loc) -> int:
    value = _render(text, constants(built, step))
    if value is None:
        _refuse(ctx, built, step, f'step max_async="{text}" takes a parameter', text, loc)
        return 0
    try:
        return max(0, int(value))
    except ValueError:
        ctx.fail(f'step max_async="{text}" is "{value}", which is no whole number', loc)
        return 0


def _refuse(ctx: Context, built: Benchmark, step: Step, what: str, text: str, loc: Loc) -> None:
    """Why a name cannot be worked out while reading: which parameter, and what it is."""
    try:
        names = sorted(Template(text, shell=False).names)
    except JubexError as exc:
        ctx.fail(f"{what}: {exc.message}", loc)
        return
    known = constants(built, step)
    missing = [n for n in names if n not in known]
    defined = {p.name for p in _reachable(built, step) if p.name in missing}
    if defined:
        ctx.fail(
            f"{what} ('{sorted(defined)[0]}') that has several values or is derived; jubex "
            "works out a step's sets and its max_async when it reads the file",
            loc,
            "give that parameter one plain value in a set the step uses, or name the set",
        )
    else:
        ctx.fail(
            f"{what} ('{missing[0] if missing else text}') that no set of step "
            f"'{step.name}' or of the steps before it defines",
            loc,
            "use the set that defines it in this step",
        )
