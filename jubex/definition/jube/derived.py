"""Scripted parameters: JUBE's ``python`` mode, ``tag`` mode, and templates built by scripts.

A python snippet becomes a derived parameter (``mode="expr"``) of the model. JUBE also
lets a snippet *build a template*: when its result holds the separator, each piece is a
value of its own (``",".join(str(2**i) for i in range(4))`` gives four points). Planning
splits such a snippet per point, in JUBE's order (:mod:`jubex.space.jube_order`). For
``jubex convert``, so that the converted file shows the values, jubex works it out while
loading, when everything it reads is a plain value of the same set: the pieces become
values, and the parameters it read are zipped with it so that each point keeps the
combination JUBE would give it (its id may differ: a list is crossed first). ``tag`` mode
is settled by the given tags.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from itertools import product

from jubex.definition.jube.context import Context
from jubex.definition.jube.parameters import TYPES, RawParameter, RawSet, model_parameter
from jubex.definition.jube.python_mode import (
    Known,
    compile_snippet,
    evaluate,
    mode_of,
)
from jubex.definition.model import Parameter, ParameterSet
from jubex.errors import DefinitionError
from jubex.language.inspection import inspecting
from jubex.language.python import PythonExpr
from jubex.language.shell import perl_command
from jubex.language.values import parse_value


@dataclass
class _Group:
    """Parameters that vary together, and their rows of values (texts)."""

    members: list[str]
    rows: list[dict[str, str]]


class SetConverter:
    """Turns one resolved JUBE set into the model's set, scripts included."""

    def __init__(self, ctx: Context, raw: RawSet, known: Known, tags: Collection[str]) -> None:
        self.ctx, self.raw, self.known, self.tags = ctx, raw, known, tags
        self.params: dict[str, Parameter] = {}
        self.plain: dict[str, list[str]] = {}
        self.groups: list[_Group] = []

    def convert(self) -> ParameterSet:
        for p in self.raw.parameters.values():
            if p.mode == "python":
                self.python(p)
                continue
            if p.mode == "tag":
                value = p.text if p.text in self.tags else ""
                self.params[p.name] = model_parameter(p, "text", (value,))
            elif p.mode == "perl":
                self.params[p.name] = model_parameter(p, "shell", (perl_command(p.text),))
            else:
                self.params[p.name] = model_parameter(p, p.mode, tuple(p.values))
            if p.mode in ("text", "tag") and not any("$" in v for v in self.params[p.name].values):
                self.plain[p.name] = list(self.params[p.name].values)
        result = ParameterSet(self.raw.name, {}, loc=self.raw.loc)
        for group in self.groups:
            for name in group.members:
                values = tuple(row[name] for row in group.rows)
                self.params[name] = replace(self.params[name], values=values, mode="text")
            result.zips.append(tuple(n for n in self.params if n in group.members))
        result.parameters = {n: self.params[n] for n in self.raw.parameters if n in self.params}
        return result

    def python(self, p: RawParameter) -> None:
        what = f"parameter '{p.name}'"
        try:
            expression, expr = compile_snippet(p.text, self.known, p.loc, what)
        except DefinitionError as exc:
            self.ctx.errors.append(exc)
            return
        self.params[p.name] = model_parameter(p, mode_of(expr), (expression,))
        names = {n for n in expr.names if self.known(n) and n != p.name}
        if not self.ctx.work_out:
            return  # split per point while planning, in JUBE's order
        if any(n not in self.plain and self._group(n) is None for n in names):
            return  # worked out per point while planning, split there as JUBE splits it
        if inspecting() and isinstance(expr, PythonExpr):
            return  # left to the expansion, which shows it as not evaluated
        rows = self._rows(sorted(names))
        try:
            outputs = [evaluate(expr, self._typed(row), p.separator, p.loc) for row in rows]
        except DefinitionError as exc:
            self.ctx.errors.append(DefinitionError(f"{what}: {exc.message}", exc.loc, exc.hint))
            return
        if all(len(out) == 1 for out in outputs):
            return
        self.ctx.note(
            "parametersets",
            self.raw.name,
            f"{p.name}: values worked out from the python snippet {p.text.strip()}",
        )
        if not names:
            self.params[p.name] = model_parameter(p, "text", tuple(outputs[0]))
            self.plain[p.name] = outputs[0]
            return
        self._expand(p.name, sorted(names), rows, outputs)

    def _group(self, name: str) -> _Group | None:
        return next((g for g in self.groups if name in g.members), None)

    def _rows(self, names: list[str]) -> list[dict[str, str]]:
        """Every combination of the values the names take (zipped ones together)."""
        groups = list({id(g): g for g in map(self._group, names) if g is not None}.values())
        loose = [n for n in names if self._group(n) is None]
        choices = [g.rows for g in groups] + [[{n: v} for v in self.plain[n]] for n in loose]
        return [{k: v for part in combo for k, v in part.items()} for combo in product(*choices)]

    def _typed(self, row: dict[str, str]) -> dict[str, object]:
        raw = self.raw.parameters
        return {
            n: parse_value(text, TYPES.get(raw[n].type, "auto"), raw[n].loc)
            for n, text in row.items()
        }

    def _expand(
        self, name: str, names: list[str], rows: list[dict[str, str]], outputs: list[list[str]]
    ) -> None:
        involved = [g for g in self.groups if set(g.members) & set(names)]
        members = [m for g in involved for m in g.members]
        members += [n for n in names if n not in members] + [name]
        self.groups = [g for g in self.groups if g not in involved]
        expanded = [
            {**row, name: piece} for row, out in zip(rows, outputs, strict=True) for piece in out
        ]
        self.groups.append(_Group(members, expanded))
        for n in names:
            self.plain.pop(n, None)
