"""JUBE's filesets, substitutesets and patternsets into the model, ``init_with`` included.

A set that starts from another file's set takes that set's entries first: files of a
fileset keep pointing where they pointed from the other file; iofiles are replaced by
``out``, subs by ``source``, patterns by name.
"""

from __future__ import annotations

import os
from pathlib import Path

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node
from jubex.definition.jube.parameters import TYPES, find_set, known_type
from jubex.definition.jube.python_mode import (
    Known,
    compile_snippet,
    mode_of,
    rewrite,
    text_expression,
)
from jubex.definition.model import FileOp, FileSet, IOFile, Pattern, PatternSet, Sub, SubstituteSet
from jubex.errors import DefinitionError
from jubex.language.shell import perl_command


def condition(text: str | None, known: Known) -> str:
    """An ``active`` attribute as an expression of the safe language (``$n > 1`` → ``n > 1``)."""
    text = (text or "true").strip()
    return rewrite(text, known) if "$" in text else text


def _base(ctx: Context, node: Node, kind: str, seen: frozenset[int]) -> Node | None:
    """The set ``init_with`` names (searched in that file); a set met again is a cycle."""
    reference = node.get("init_with")
    if not reference:
        return None
    file, _, other = reference.partition(":")
    loc = node.where("init_with")
    root, _ = ctx.sources.external(file.strip(), loc, Path(node.loc.file).parent)
    found = find_set(ctx, root, kind, (other or node.get("name") or "").strip(), loc)
    if found is not None and (found is node or id(found) in seen):
        ctx.fail(f'<{kind} name="{node.get("name")}"> is initialised from itself', loc)
        return None
    return found


def fileset(ctx: Context, node: Node, known: Known, seen: frozenset[int] = frozenset()) -> FileSet:
    ctx.check(node, ("copy", "link", "prepare"))
    name = ctx.required(node, "name")
    base = _base(ctx, node, "fileset", seen)
    ops = fileset(ctx, base, known, seen | {id(node)}).ops if base is not None else []
    home = Path(ctx.path).resolve().parent
    for child in node.children:
        if child.tag == "prepare":
            ops.append(_prepare(ctx, child, known))
        else:
            ops += _copies(ctx, child, known, home)
    return FileSet(name, ops, loc=node.loc)


def _prepare(ctx: Context, node: Node, known: Known) -> FileOp:
    ctx.check(node)
    return FileOp(
        "prepare",
        node.value,
        directory=node.get("work_dir"),
        active=condition(node.get("active"), known),
        stdout=node.get("stdout"),
        stderr=node.get("stderr"),
        loc=node.loc,
    )


def _copies(ctx: Context, node: Node, known: Known, home: Path) -> list[FileOp]:
    """One operation per file of the list; relative sources re-based onto the main file."""
    ctx.check(node)
    separator = node.attrs.get("separator", ",")
    files = [f.strip() for f in (node.value.split(separator) if separator else [node.value])]
    if not node.value:
        ctx.fail(f"<{node.tag}> names no file", node.loc)
        return []
    names = [n.strip() for n in name.split(",")] if (name := node.get("name")) else None
    if names is not None and len(names) != len(files):
        ctx.fail(f"<{node.tag}>: name lists {len(names)} names for {len(files)} files", node.loc)
        names = None
    internal = node.get("rel_path_ref", "external") == "internal"
    source_dir = node.get("source_dir", node.get("directory"))
    if not internal:
        where = Path(node.loc.file).resolve().parent
        own = expanded(node.get("file_path_ref") or ".")
        source_dir = rebased(source_dir, where, home, own, ctx.file_path_ref)
    return [
        FileOp(
            node.tag,
            file,
            target=names[i] if names else None,
            rel_path_ref="workdir" if internal else "definition",
            source_dir=source_dir or None,
            target_dir=node.get("target_dir") or None,
            active=condition(node.get("active"), known),
            loc=node.loc,
        )
        for i, file in enumerate(files)
    ]


def rebased(
    source_dir: str | None, where: Path, home: Path, own_ref: str = ".", bench_ref: str = "."
) -> str | None:
    """A copy's source directory seen from the main file's directory, as JUBE builds it: the
    benchmark's ``file_path_ref``, then the directory of the file the fileset stands in with
    the copy's own ``file_path_ref``, then ``source_dir`` (an absolute part starts anew)."""
    if source_dir and source_dir.startswith(("/", "$", "~")):
        return source_dir
    # joined as text: ``..`` past the file system's root must not be lost before the
    # benchmark's ``file_path_ref`` goes in front (JUBE joins the whole path first)
    own = own_ref if os.path.isabs(own_ref) else os.path.join(os.path.relpath(where, home), own_ref)
    prefix = [part for part in (bench_ref, own) if os.path.normpath(part) != "."]
    if not prefix:
        return source_dir
    joined = os.path.normpath(os.path.join(*prefix, source_dir or ""))
    return None if joined == "." else joined


def expanded(path: str) -> str:
    """A path attribute as JUBE reads it: ``~`` and environment variables expanded."""
    return os.path.expandvars(os.path.expanduser(path.strip()))


def substituteset(ctx: Context, node: Node, seen: frozenset[int] = frozenset()) -> SubstituteSet:
    ctx.check(node, ("iofile", "sub"))
    name = ctx.required(node, "name")
    base = _base(ctx, node, "substituteset", seen)
    result = substituteset(ctx, base, seen | {id(node)}) if base else SubstituteSet(name)
    result.name, result.loc = name, node.loc
    for child in node.children:
        ctx.check(child)
        if child.tag == "iofile":
            mode = child.get("out_mode", "w") or "w"
            if mode not in ("w", "a"):
                ctx.fail("<iofile> out_mode must be w or a", child.where("out_mode"))
            item = IOFile(ctx.required(child, "in"), ctx.required(child, "out"), mode, child.loc)
            result.iofiles = [f for f in result.iofiles if f.target != item.target] + [item]
            continue
        mode = child.get("mode", "text") or "text"
        if mode not in ("text", "regex"):
            ctx.fail(f'<sub> mode "{mode}" is unknown; JUBE knows text and regex', child.loc)
        dest = child.attrs["dest"].strip() if "dest" in child.attrs else child.value
        sub = Sub(ctx.required(child, "source"), dest, mode, child.loc)
        result.subs = [s for s in result.subs if s.source != sub.source] + [sub]
    return result


def patternset(
    ctx: Context, node: Node, known: Known, seen: frozenset[int] = frozenset()
) -> PatternSet:
    ctx.check(node, ("pattern",))
    name = ctx.required(node, "name")
    base = _base(ctx, node, "patternset", seen)
    result = patternset(ctx, base, known, seen | {id(node)}) if base else PatternSet(name)
    result.name, result.loc = name, node.loc
    for child in node.children:
        pattern = _pattern(ctx, child, known)
        if pattern is not None:
            result.patterns[pattern.name] = pattern
    return result


def _pattern(ctx: Context, node: Node, known: Known) -> Pattern | None:
    ctx.check(node)
    name = ctx.required(node, "name")
    mode = node.get("mode", "pattern") or "pattern"
    scripted = mode in ("python", "perl", "shell")
    kind = node.get("type", "string") or "string"
    kind = known_type(ctx, kind, f"pattern '{name}'", node.where("type"))
    text, what = node.value, f"pattern '{name}'"
    if mode in ("perl", "shell"):
        text = perl_command(text) if mode == "perl" else text
    elif mode == "text":
        text = text_expression(text, known)
    elif mode == "python":
        try:
            text, compiled = compile_snippet(text, known, node.loc, what)
        except DefinitionError as exc:
            ctx.errors.append(exc)
            return None
        mode = mode_of(compiled)
    elif mode != "pattern":
        ctx.fail(
            f'{what}: mode "{mode}" is unknown',
            node.where("mode"),
            "JUBE knows pattern, text, python, perl and shell",
        )
        return None
    type_ = "str" if TYPES.get(kind, "auto") == "auto" else TYPES[kind]
    default = node.get("default")
    if default is None and scripted and type_ in ("int", "float"):
        default = "nan"  # JUBE's value of a computed number it cannot compute
    return Pattern(
        name,
        text,
        type=type_,
        unit=node.get("unit", "") or "",
        default=default,
        mode={"pattern": "pattern", "perl": "shell", "shell": "shell", "python": "python"}.get(
            mode, "expr"
        ),
        dotall=ctx.flag(node, "dotall"),
        loc=node.loc,
    )
