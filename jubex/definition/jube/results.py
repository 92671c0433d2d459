"""JUBE's analysers and results into the model.

An analyser of JUBE may read several steps (one ``<analyse step>`` each); the model's
analyser reads one, so such an analyser becomes one per step (``NAME``, ``NAME.STEP``...)
and the tables that use it use all of them. A ``<database>`` is a table with a database.
"""

from __future__ import annotations

import os
from dataclasses import replace

from jubex.definition.jube.context import Context
from jubex.definition.jube.nodes import Node, split_list
from jubex.definition.jube.python_mode import Known
from jubex.definition.jube.sets import condition, expanded
from jubex.definition.jube.steps import uses
from jubex.definition.jube.syslog import column, syslog
from jubex.definition.model import AnalyseFile, Analyser, Column, Table

STYLES = ("csv", "pretty", "aligned")


def analysers(ctx: Context, node: Node) -> list[Analyser]:
    """One model analyser per analysed step; the first keeps the JUBE name."""
    ctx.check(node, ("use", "analyse"))
    name = ctx.required(node, "name")
    patternsets = tuple(uses(ctx, node))
    by_step: dict[str, list[AnalyseFile]] = {}
    for analyse in node.all("analyse"):
        ctx.check(analyse, ("file",))
        files = by_step.setdefault(ctx.required(analyse, "step"), [])
        for file in analyse.children:
            ctx.check(file)
            if not file.value:
                ctx.fail("<file> in <analyse> names no file", file.loc)
            extra = tuple(split_list(file.get("use")))
            files += [AnalyseFile(path, extra, file.loc) for path in split_list(file.value)]
    if not by_step:
        ctx.fail(f"analyser '{name}' analyses no step", node.loc, 'add <analyse step="...">')
    result = []
    for index, (step, files) in enumerate(by_step.items()):
        label = name if index == 0 else f"{name}.{step}"
        if index:
            ctx.note("analysers", label, f"JUBE's analyser '{name}' reads step '{step}' too")
        reduce = ctx.flag(node, "reduce", default=True)
        result.append(Analyser(label, patternsets, step, files, reduce=reduce, loc=node.loc))
    return result


def results(ctx: Context, node: Node, known: Known, split: dict[str, list[str]]) -> list[Table]:
    """The tables (and databases) of one ``<result>``, each using its analysers."""
    ctx.check(node, ("use", "table", "database", "syslog"))
    used = tuple(
        name for jube_name in uses(ctx, node) for name in split.get(jube_name, [jube_name])
    )
    for name in used:
        if not any(name in names for names in split.values()):
            ctx.fail(f"<result> uses '{name}', which is no analyser", node.loc)
    tables = []
    for child in node.children:
        if child.tag == "table":
            tables.append(_table(ctx, child, known, used))
        elif child.tag == "database":
            tables.append(_database(ctx, child, known, used))
        elif child.tag == "syslog":
            tables.append(syslog(ctx, child, known, used))
    result_dir = node.get("result_dir")
    if result_dir:
        for table in (t for t in tables if t.syslog is None):
            table.result_dir = os.path.normpath(
                os.path.join(ctx.file_path_ref, expanded(result_dir))
            )
    return tables


def _table(ctx: Context, node: Node, known: Known, used: tuple[str, ...]) -> Table:
    ctx.check(node, ("column",))
    name = ctx.required(node, "name")
    style = node.get("style", "csv") or "csv"
    if style not in STYLES:
        ctx.fail(
            f"table '{name}': style \"{style}\" is unknown",
            node.where("style"),
            "JUBE knows csv, pretty and aligned",
        )
    columns = []
    for child in node.children:
        columns.append(column(ctx, child, f"table '{name}'"))
        if child.get("colw"):
            ctx.note(
                "results",
                name,
                f"column {child.value}: width {child.get('colw')} is "
                "not kept; jubex sizes columns itself",
            )
    return Table(
        name,
        columns=_shown(ctx, name, columns, known),
        use=used,
        sort=_sorting(ctx, name, split_list(node.get("sort")), known),
        filter=_filter(node, known),
        style=style,
        transpose=ctx.flag(node, "transpose"),
        separator=node.attrs.get("separator", ","),
        loc=node.loc,
    )


def _database(ctx: Context, node: Node, known: Known, used: tuple[str, ...]) -> Table:
    ctx.check(node, ("key",))
    name = ctx.required(node, "name")
    keys = split_list((node.get("primekeys") or "").translate(str.maketrans("", "", "[]'")))
    columns = []
    for child in node.children:
        key = column(ctx, child, f"database '{name}'")
        columns.append(key)
        # Primary keys name a key by its column in the database: its title, else its name.
        if ctx.flag(child, "primekey") and (key.title or key.name) not in keys:
            keys.append(key.title or key.name)
    names = {c.name for c in columns} | {c.title for c in columns if c.title}
    for key_name in keys:
        if key_name not in names:
            ctx.fail(f"database '{name}': primekey '{key_name}' is not one of its keys", node.loc)
    return Table(
        name,
        columns=_shown(ctx, name, columns, known),
        use=used,
        filter=_filter(node, known),
        style="csv",
        database=node.get("file") or f"{name}.dat",
        primekeys=tuple(keys),
        loc=node.loc,
    )


def _shown(ctx: Context, table: str, columns: list[Column], known: Known) -> list[Column]:
    """The columns, those naming nothing as JUBE shows them: empty (an expression of no
    value; jubex's own format refuses a column naming nothing)."""
    shown = []
    for item in columns:
        if item.expr is None and not known(item.name):
            ctx.note("results", table, f"column '{item.name}' names nothing: empty, as in JUBE")
            item = replace(item, expr="None")
        shown.append(item)
    return shown


def _sorting(ctx: Context, table: str, keys: list[str], known: Known) -> tuple[str, ...]:
    """The sort keys JUBE sorts by: those before the first naming nothing. JUBE compares
    rows by the keys in turn, and a value nobody has compares neither less nor equal, so
    from that key on the rows keep their order."""
    for index, key in enumerate(keys):
        if not known(key):
            ctx.note(
                "results",
                table,
                f"sort key '{key}' names nothing: it and the keys after it leave the rows "
                "in their order, as in JUBE",
            )
            return tuple(keys[:index])
    return tuple(keys)


def _filter(node: Node, known: Known) -> str | None:
    text = node.get("filter")
    return condition(text, known) if text else None
