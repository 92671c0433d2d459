"""JUBE parametersets into the model, with JUBE's rules for templates and duplicates.

A text value holding the separator (``,`` unless the parameter says otherwise) is a
template: one value per piece. A parameter named twice in a set follows ``duplicate``:
``replace`` (the default), ``error``, or ``concat``, which JUBE resolves into the sorted
set of both value lists. ``init_with`` starts a set from another file's set of that name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node
from jubex.definition.model import DERIVED_MODES, Parameter
from jubex.definition.tree import MAX_LISTED, too_long
from jubex.errors import Loc

#: JUBE's parameter and pattern types, and the model's type for each
TYPES = {"string": "auto", "int": "int", "float": "float"}
MODES = ("text", "python", "perl", "shell", "env", "tag")
UPDATE_MODES = ("never", "use", "step", "cycle", "always")
_NAME = re.compile(r"[^\d\W]\w*")


@dataclass
class RawParameter:
    """A parameter as JUBE reads it, before any expression is looked at."""

    name: str
    text: str
    values: list[str]
    mode: str = "text"
    type: str = "string"
    separator: str = ","
    export: bool = False
    unit: str = ""
    update_mode: str = "never"
    duplicate: str = "none"
    loc: Loc | None = None


@dataclass
class RawSet:
    name: str
    duplicate: str
    loc: Loc
    parameters: dict[str, RawParameter] = field(default_factory=dict)


def find_set(ctx: Context, root: Node, kind: str, name: str, loc: Loc) -> Node | None:
    """The one ``<kind name="name">`` anywhere in another file's tree, as JUBE looks it up."""
    found = [n for n in root.walk() if n.tag == kind and n.get("name") == name]
    if len(found) != 1:
        what = "more than once" if found else "nowhere"
        ctx.fail(f'<{kind} name="{name}"> is found {what} in {root.loc.file}', loc)
        return None
    return found[0]


def read_parameterset(ctx: Context, node: Node, stack: tuple[str, ...] = ()) -> RawSet:
    """A set with its ``init_with`` base and its parameters, duplicates resolved."""
    ctx.check(node, ("parameter",))
    name = ctx.required(node, "name")
    duplicate = node.get("duplicate")
    result = RawSet(name, duplicate or "replace", node.loc)
    reference = node.get("init_with")
    if reference:
        base = _base(ctx, node, reference, name, stack)
        if base is not None:
            given = base[1].get("duplicate")
            if duplicate and given and given != duplicate:
                ctx.fail(
                    f"parameterset '{name}' and the set it starts from name different duplicate "
                    f"options ({duplicate}, {given})",
                    node.where("duplicate"),
                )
            result = RawSet(
                name, duplicate or given or "replace", node.loc, dict(base[0].parameters)
            )
    if result.duplicate not in ("replace", "concat", "error"):
        ctx.fail(
            f'parameterset duplicate="{result.duplicate}" is unknown',
            node.where("duplicate"),
            "use replace (the default), concat or error",
        )
    for child in node.children:
        parameter = read_parameter(ctx, child)
        if parameter is not None:
            add_parameter(ctx, result, parameter)
    return result


def _base(
    ctx: Context, node: Node, reference: str, name: str, stack: tuple[str, ...]
) -> tuple[RawSet, Node] | None:
    file, _, other = reference.partition(":")
    key = f"{file}:{other or name}"
    if key in stack:
        ctx.fail(f"init_with cycle: {' -> '.join([*stack, key])}", node.where("init_with"))
        return None
    root, _ = ctx.sources.external(
        file.strip(), node.where("init_with"), Path(node.loc.file).parent
    )
    found = find_set(ctx, root, "parameterset", (other or name).strip(), node.where("init_with"))
    if found is None:
        return None
    return read_parameterset(ctx, found, (*stack, key)), found


def read_parameter(ctx: Context, node: Node) -> RawParameter | None:
    ctx.check(node, ("value",))
    name = ctx.required(node, "name")
    if name and not _NAME.fullmatch(name):
        ctx.fail(f"parameter name '{name}' is not a name (letters, digits, _)", node.loc)
    values = node.all("value")
    text = (values[0].value if values else node.value).strip()
    kind, mode = node.get("type", "string") or "string", node.get("mode", "text") or "text"
    separator = node.attrs.get("separator", ",")
    update_mode = node.get("update_mode", "never") or "never"
    duplicate = node.get("duplicate", "none") or "none"
    kind = known_type(ctx, kind, f"parameter '{name}'", node.where("type"))
    if mode not in MODES:
        ctx.fail(
            f"parameter '{name}': mode \"{mode}\" is unknown",
            node.where("mode"),
            "JUBE knows text, python, perl, shell, env and tag",
        )
    if update_mode not in UPDATE_MODES:
        ctx.fail(
            f"parameter '{name}': update_mode \"{update_mode}\" is unknown",
            node.where("update_mode"),
            f"use one of {', '.join(UPDATE_MODES)}",
        )
    if duplicate not in ("replace", "concat", "error", "none"):
        ctx.fail(
            f"parameter '{name}': duplicate \"{duplicate}\" is unknown",
            node.where("duplicate"),
            "use none (the default), replace, concat or error",
        )
    if separator and mode == "text" and text.count(separator) >= MAX_LISTED:
        ctx.errors.append(too_long(text.count(separator) + 1, node.loc))
        return None
    pieces = [v.strip() for v in text.split(separator)] if separator and mode == "text" else [text]
    return RawParameter(
        name,
        text,
        pieces,
        mode,
        kind,
        separator,
        ctx.flag(node, "export"),
        node.get("unit", "") or "",
        update_mode,
        duplicate,
        node.loc,
    )


def known_type(ctx: Context, kind: str, what: str, loc: Loc) -> str:
    """A type JUBE does not know is a string to JUBE (it converts only int and float)."""
    if kind in TYPES:
        return kind
    ctx.warn(
        f'{what}: type "{kind}" is not one JUBE knows; its values are strings, as in JUBE',
        loc,
        "JUBE knows string, int and float",
    )
    return "string"


def add_parameter(ctx: Context, into: RawSet, new: RawParameter) -> None:
    """JUBE's ``duplicate`` rules: the parameter's own, else its set's."""
    old = into.parameters.get(new.name)
    if old is None:
        into.parameters[new.name] = new
        return
    if old.duplicate != new.duplicate:
        ctx.fail(
            f"parameter '{new.name}' is given twice with different duplicate options "
            f"({old.duplicate}, {new.duplicate})",
            new.loc,
            "JUBE calls this undefined; give both the same duplicate option",
        )
        return
    rule = new.duplicate if new.duplicate != "none" else into.duplicate
    if rule == "error":
        ctx.fail(f"parameter '{new.name}' is defined twice and duplicate says error", new.loc)
    elif rule == "concat":
        into.parameters[new.name] = _concat(ctx, old, new)
    else:
        into.parameters[new.name] = new


def _concat(ctx: Context, old: RawParameter, new: RawParameter) -> RawParameter:
    if (old.separator, old.type, old.update_mode) != (new.separator, new.type, new.update_mode):
        ctx.fail(
            f"parameter '{new.name}': duplicate concat needs the same separator, type and "
            "update_mode in both definitions",
            new.loc,
        )
    if old.mode != "text" or new.mode != "text":
        ctx.fail(f"parameter '{new.name}': duplicate concat joins text values only", new.loc)
    if old.values == new.values:
        return new
    values = sorted(set(old.values + new.values))
    return replace(new, values=values, text=new.separator.join(values))


def model_parameter(p: RawParameter, mode: str, values: tuple[str, ...]) -> Parameter:
    return Parameter(
        p.name,
        values,
        type=TYPES.get(p.type, "auto"),
        mode=mode,
        separator=p.separator if mode in DERIVED_MODES else None,
        export=p.export,
        unit=p.unit,
        update_mode=p.update_mode,
        loc=p.loc,
    )
