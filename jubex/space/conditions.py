"""``active`` conditions of steps, operations and files.

A condition is ``true``/``false``, or a template such as ``$use_gpu`` that renders to one,
or an expression of the safe language (``api != 'MPIIO' or nodes > 1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from jubex.errors import DefinitionError, JubexError, Loc
from jubex.language.expr import Expr, compile_expr
from jubex.language.template import Template

_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False, "": True}


@lru_cache(maxsize=1024)
def condition(text: str, loc: Loc | None = None) -> Condition:
    """A compiled condition, shared between the workpackages that test it."""
    return Condition(text, loc)


class Condition:
    """Compiled once, evaluated per point."""

    def __init__(self, text: str, loc: Loc | None = None) -> None:
        self.text = text
        self.loc = loc
        self.constant = _WORDS.get(text.strip().lower())
        self.template = None if self.constant is not None else Template(text, loc, shell=False)
        self.compiled: dict[str, Expr] = {}

    def holds(
        self, point: Mapping[str, object], constants: Mapping[str, object] | None = None
    ) -> bool:
        if self.template is None:
            return bool(self.constant)
        env = {**(constants or {}), **point} if constants else point
        try:
            text = self.template.render(env).strip()
            word = _WORDS.get(text.lower())
            if word is not None:
                return word
            expr = self.compiled.get(text)
            if expr is None:
                expr = self.compiled[text] = compile_expr(text, self.loc)
            return bool(expr.evaluate(env))
        except JubexError as exc:
            raise DefinitionError(
                f"condition '{self.text}' cannot be evaluated: {exc.message}", self.loc, exc.hint
            ) from None
