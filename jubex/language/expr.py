"""The safe expression language of derived parameters, constraints and ``${...}``.

The text is parsed with :func:`ast.parse`, every node is checked against a whitelist and
turned once into a tree of Python closures; evaluating is then a chain of calls on typed
values, with no AST walk, no ``eval`` and no way to reach attributes, modules or dunders.
See ``docs/expressions.md`` for what users may write.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping
from functools import lru_cache
from types import GeneratorType

from jubex.errors import ExpressionError, JubexError, Loc, did_you_mean
from jubex.language import builtins as safe
from jubex.language.compiler import Compiler, Fn, Scope, Unknown, known


class Expr:
    """A compiled expression: ``names`` it reads, ``evaluate(env)`` any number of times.

    ``names`` are the free names, without comprehension variables and without built-in
    functions that are called. A built-in's name used as a plain value (``size * 2``) is a
    name too: a parameter called ``size`` wins over the function.
    """

    __slots__ = ("_fn", "_loops", "loc", "names", "text")

    def __init__(self, text: str, fn: Fn, names: frozenset[str], loops: bool, loc: Loc | None):
        self.text = text
        self.loc = loc
        self.names = names
        self._fn = fn
        self._loops = loops

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"

    def evaluate(self, env: Mapping[str, object]) -> object:
        """The value for these names; an ExpressionError naming the expression on failure."""
        try:
            if self._loops:
                env = Scope(env, [safe.MAX_ITEMS])
            value = self._fn(env)
            return list(value) if isinstance(value, GeneratorType) else value
        except Unknown as exc:
            raise ExpressionError(
                f"unknown name '{exc.name}' in '{self.text}'",
                self.loc,
                did_you_mean(exc.name, known(exc.env)),
            ) from None
        except safe.Refused as exc:
            raise ExpressionError(f"'{self.text}' is refused: {exc}", self.loc) from None
        except JubexError as exc:
            raise ExpressionError(f"'{self.text}' failed: {exc.message}", self.loc, exc.hint).at(
                exc.loc
            ) from None
        except RecursionError:
            raise ExpressionError(f"'{self.text}' nests too deeply", self.loc) from None
        except Exception as exc:
            raise ExpressionError(
                f"'{self.text}' failed: {_describe(exc)}{self._values(env)}", self.loc
            ) from None

    def _values(self, env: Mapping[str, object]) -> str:
        shown = []
        for name in sorted(self.names):
            try:
                text = str(env[name])
            except Exception:
                continue
            shown.append(f"{name}={text[:40] + '...' if len(text) > 40 else text}")
        return f" (with {', '.join(shown)})" if shown else ""


def _describe(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, KeyError):
        return f"no key {exc.args[0]!r}" if exc.args else "missing key"
    return str(exc) or type(exc).__name__


def compile_expr(text: str, loc: Loc | None = None) -> Expr:
    """Check and compile once; an ExpressionError names a refused construct and the rewrite."""
    try:
        fn, names, loops = _compile(text)
    except JubexError as exc:
        raise exc.at(loc) from None
    return Expr(text, fn, names, loops, loc)


def _what_is_wrong(text: str, exc: SyntaxError) -> str:
    """Python's "invalid syntax" as a person reads it: where, and what was expected."""
    if exc.msg != "invalid syntax":
        return f"{exc.msg} (column {exc.offset or 0})"
    start = (exc.offset or 0) - 1
    if not text.split():
        return "it is empty; expected a value"
    if start < 0 or start >= len(text):
        return f"it ends after '{text.split()[-1]}', where a value was expected"
    end = max((exc.end_offset or 0) - 1, start + 1)
    found = text[start:end]
    if found == "=":
        return f"'=' at column {start + 1} assigns; expected a comparison, '=='"
    return f"unexpected '{found}' at column {start + 1}"


@lru_cache(maxsize=4096)
def _compile(text: str) -> tuple[Fn, frozenset[str], bool]:
    stripped = text.strip()
    if stripped.split(None, 1)[:1] in (["import"], ["from"]):
        raise ExpressionError(
            f"'{text}': imports are not allowed in expressions",
            hint="only the functions `jubex help expressions` lists are available",
        )
    try:
        with warnings.catch_warnings():
            # Python's own remarks (``1if x``) would reach the user's terminal; the text
            # either parses or gets jubex's error
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(
            f"'{text}' is not a valid expression: {_what_is_wrong(stripped, exc)}",
            hint="expressions use Python syntax without statements (=, if:, for:, import);"
            " jubex help expressions",
        ) from None
    except (ValueError, RecursionError, MemoryError):
        raise ExpressionError(f"'{text}' is not a valid expression (too deeply nested?)") from None
    compiler = Compiler(stripped)
    try:
        fn = compiler.compile(tree.body, frozenset())
    except RecursionError:
        raise ExpressionError(f"'{text}' nests too deeply") from None
    return fn, frozenset(compiler.names), compiler.loops
