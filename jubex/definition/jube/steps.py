"""JUBE's steps into the model: what they use, depend on and do, attribute by attribute."""

from __future__ import annotations

from collections.abc import Callable

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node, split_list
from jubex.definition.jube.python_mode import Known
from jubex.definition.jube.sets import condition
from jubex.definition.model import Benchmark, Do, Step
from jubex.errors import Loc

#: a used name -> "parameterset", "fileset", "substituteset" or None if unknown
Classify = Callable[[str], str | None]


def uses(ctx: Context, node: Node, chosen: list[tuple[str, Loc]] | None = None) -> list[str]:
    """The names of every ``<use>`` of an element; a name used twice is an error, as in JUBE.

    A name holding ``$`` chooses a set by a parameter: JUBE allows it in a step's ``<use>``
    only; such names go to ``chosen`` (with their place) to be worked out later.
    """
    names: list[str] = []
    for use in node.all("use"):
        ctx.check(use)
        if not use.value:
            ctx.fail(f"<use> in <{node.tag}> is empty", use.loc)
        for name in split_list(use.value):
            if "$" in name and chosen is not None:
                chosen.append((name, use.loc))
            elif "$" in name:
                ctx.fail(
                    f"<use>{name}</use> in <{node.tag}> chooses a set by a parameter, which "
                    "JUBE allows in a step's <use> only",
                    use.loc,
                    "use the sets by name",
                )
            elif name in names:
                ctx.fail(f"<use>: '{name}' is used more than once", use.loc)
            else:
                names.append(name)
    return names


def set_kind(built: Benchmark, name: str) -> str | None:
    """What a used name is: ``parameterset``, ``fileset``, ``substituteset``, or None."""
    kinds = [
        kind
        for kind, sets in (
            ("parameterset", built.parametersets),
            ("fileset", built.filesets),
            ("substituteset", built.substitutesets),
        )
        if name in sets
    ]
    return kinds[0] if len(kinds) == 1 else None


def step(ctx: Context, node: Node, known: Known, classify: Classify) -> Step:
    ctx.check(node, ("use", "do"))
    name = ctx.required(node, "name")
    parametersets, files = [], []
    chosen: list[tuple[str, Loc]] = []
    for used in uses(ctx, node, chosen):
        kind = classify(used)
        if kind == "parameterset":
            parametersets.append(used)
        elif kind in ("fileset", "substituteset"):
            files.append(used)
        else:
            ctx.fail(
                f"step '{name}' uses '{used}', which is no parameterset, fileset or substituteset",
                node.loc,
            )
    shared = node.get("shared")
    if shared is not None and not shared:
        ctx.fail(f"step '{name}' has an empty shared attribute", node.where("shared"))
    procs = ctx.integer(node, "procs", 1)
    if chosen:
        ctx.chosen[name] = chosen
    return Step(
        name,
        do=[_do(ctx, child, known, name, shared, procs) for child in node.all("do")],
        depend=tuple(split_list(node.get("depend"))),
        use=tuple(parametersets),
        use_files=tuple(files),
        iterations=ctx.integer(node, "iterations", 1),
        cycles=ctx.integer(node, "cycles", 1),
        shared=shared or None,
        active=condition(node.get("active"), known),
        work_dir=node.get("work_dir"),
        suffix=node.get("suffix", "") or "",
        max_async=_max_async(ctx, node),
        procs=procs,
        export=ctx.flag(node, "export"),
        do_log_file=_do_log_file(ctx, node),
        loc=node.loc,
    )


def _do_log_file(ctx: Context, node: Node) -> str | None:
    """The attribute as JUBE reads it: ``true`` names JUBE's ``do_log``, ``false`` none."""
    name = node.get("do_log_file")
    if name in (None, "", "None", "False", "false"):
        return None
    if name in ("True", "true"):
        return "do_log"
    if name.endswith("/"):
        ctx.fail(
            f'step do_log_file="{name}" ends with "/", which names no file',
            node.where("do_log_file"),
            "name the log file itself",
        )
    return name


def _max_async(ctx: Context, node: Node) -> int:
    text = node.get("max_async", "0") or "0"
    if "$" in text:
        ctx.max_async[node.get("name") or ""] = (text, node.where("max_async"))
        return 0
    return ctx.integer(node, "max_async", 0)


def _do(ctx: Context, node: Node, known: Known, step: str, shared: str | None, procs: int) -> Do:
    ctx.check(node)
    flag = (node.get("shared") or "false").lower()
    if flag not in ("true", "false"):
        ctx.fail(f'<do shared="{node.get("shared")}">: expected true or false', node.loc)
    if flag == "true" and shared is None:
        ctx.fail(
            f"<do shared=\"true\"> in step '{step}', which has no shared attribute",
            node.loc,
            'add shared="NAME" to the step',
        )
    if flag == "true" and procs != 1:
        ctx.fail(f"<do shared=\"true\"> is not allowed in step '{step}', which has procs", node.loc)
    return Do(
        node.value,
        active=condition(node.get("active"), known),
        shared=flag == "true",
        done_file=node.get("done_file"),
        error_file=node.get("error_file"),
        break_file=node.get("break_file"),
        work_dir=node.get("work_dir"),
        stdout=node.get("stdout"),
        stderr=node.get("stderr"),
        loc=node.loc,
    )
