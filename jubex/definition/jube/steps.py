"""JUBE's steps into the model: what they use, depend on and do, attribute by attribute."""

from __future__ import annotations

from collections.abc import Callable

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node, split_list
from jubex.definition.jube.python_mode import Known
from jubex.definition.jube.sets import condition
from jubex.definition.model import Do, Step

#: a used name -> "parameterset", "fileset", "substituteset" or None if unknown
Classify = Callable[[str], str | None]


def uses(ctx: Context, node: Node) -> list[str]:
    """The names of every ``<use>`` of an element; a name used twice is an error, as in JUBE."""
    names: list[str] = []
    for use in node.all("use"):
        ctx.check(use)
        if not use.value:
            ctx.fail(f"<use> in <{node.tag}> is empty", use.loc)
        for name in split_list(use.value):
            if "$" in name:
                ctx.fail(
                    f"<use>{name}</use> chooses a set by a parameter, which jubex does not "
                    "support yet",
                    use.loc,
                    "use the sets by name, or give their parameters tag attributes",
                )
            elif name in names:
                ctx.fail(f"<use>: '{name}' is used more than once", use.loc)
            else:
                names.append(name)
    return names


def step(ctx: Context, node: Node, known: Known, classify: Classify) -> Step:
    ctx.check(node, ("use", "do"))
    name = ctx.required(node, "name")
    parametersets, files = [], []
    for used in uses(ctx, node):
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
        loc=node.loc,
    )


def _max_async(ctx: Context, node: Node) -> int:
    text = node.get("max_async", "0") or "0"
    if "$" in text:
        ctx.fail(
            f'step max_async="{text}" takes a parameter, which jubex does not support yet',
            node.where("max_async"),
            "write the number itself",
        )
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
