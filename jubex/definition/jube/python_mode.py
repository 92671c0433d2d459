"""JUBE's ``mode="python"`` snippets as expressions of jubex's safe language.

JUBE substitutes ``$x`` and ``${x}`` as *text* and then calls Python's ``eval``. jubex
rewrites the snippet so that the parameter is read as a value instead:
``$n * 2`` becomes ``n * 2``, and a reference inside a string literal, ``"$api".lower()``,
becomes ``(str(api)).lower()``. Only names that are parameters (or patterns, or JUBE's
``jube_*`` variables) are rewritten; any other ``$NAME`` stays as JUBE would leave it.
``$$`` is a literal ``$``, as in JUBE. The result compiles with :mod:`jubex.language.expr`;
what the safe language cannot express runs in a separate Python interpreter
(:mod:`jubex.language.python`), unless real Python is refused (``--no-python``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping

from jubex.errors import DefinitionError, JubexError, Loc
from jubex.language import python
from jubex.language.expr import Expr, compile_expr
from jubex.language.python import PythonExpr

Known = Callable[[str], bool]
_REF = re.compile(r"\$\$|\$\{(\w+)\}|\$(\w+)")
_PREFIX = "rRbBuUfF"
_ESCAPES_HINT = 'read environment variables with mode="env" and command output with mode="shell"'


def rewrite(text: str, known: Known) -> str:
    """The snippet with every known ``$name`` read as a name (see the module's rules)."""
    result, last = [], 0
    for start, end in _literals(text):
        result.append(_outside(text[last:start], known))
        result.append(_literal(text[start:end], known))
        last = end
    result.append(_outside(text[last:], known))
    return "".join(result)


def text_expression(text: str, known: Known) -> str:
    """A text with ``$name`` references as an expression: ``"n=" + str(n)``."""
    parts = _pieces(text, known)
    if not parts:
        return repr("")
    return " + ".join(repr(p) if isinstance(p, str) else f"str({p[0]})" for p in parts)


def compile_snippet(
    text: str, known: Known, loc: Loc | None, what: str
) -> tuple[str, Expr | PythonExpr]:
    """Rewritten and compiled: in the safe language if it can express the snippet, else for
    the separate Python interpreter (announced); with Python refused, a DefinitionError."""
    expression = rewrite(text, known).strip()
    try:
        return expression, compile_expr(expression, loc)
    except JubexError as exc:
        refusal = exc
    if not python.allowed():
        hint = _ESCAPES_HINT if re.search(r"\b(os|subprocess|sys)\.|open\(", text) else refusal.hint
        raise DefinitionError(
            f"{what}: the python snippet '{text.strip()}' is outside jubex's safe expression "
            f"language ({refusal.message}), and {python.refused_by()} refuses real Python",
            refusal.loc or loc,
            hint,
        ) from None
    try:
        compiled = PythonExpr(expression, loc)
    except JubexError as exc:
        raise DefinitionError(f"{what}: {exc.message}", exc.loc or loc, exc.hint) from None
    python.announce(expression, loc, what)
    return expression, compiled


def mode_of(compiled: Expr | PythonExpr) -> str:
    """The model's mode for a compiled snippet: ``expr`` (safe language) or ``python``."""
    return "python" if isinstance(compiled, PythonExpr) else "expr"


def evaluate(
    expr: Expr | PythonExpr, env: Mapping[str, object], separator: str, loc: Loc | None
) -> list[str]:
    """JUBE's reading of a snippet's result: its text, split where it holds the separator."""
    try:
        text = str(expr.evaluate(env))
    except JubexError as exc:
        raise DefinitionError(exc.message, exc.loc or loc, exc.hint) from None
    if separator and separator in text:
        return [part.strip() for part in text.split(separator)]
    return [text]


def _outside(code: str, known: Known) -> str:
    """References in code; one that is subscripted (``${pq}[0]``) is code to JUBE, so a text
    holding a Python literal (``(2,2)``) is read as that literal: ``literal(pq)[0]``."""

    def name(match: re.Match[str]) -> str:
        found = match.group(1) or match.group(2)
        if not (found and known(found)):
            return match.group(0)
        return f"literal({found})" if code[match.end() : match.end() + 1] == "[" else found

    return _REF.sub(name, code)


def _literal(token: str, known: Known) -> str:
    """A string literal whose text refers to names, as an expression yielding that text."""
    prefix = token[: len(token) - len(token.lstrip(_PREFIX))].lower()
    if "b" in prefix or not _REF.search(token):
        return token
    if "f" in prefix:
        token = re.sub(r"\{\s*\$\{?(\w+)\}?\s*\}", lambda m: _braced(m, known), token)
        return _REF.sub(lambda m: _f_field(m, known), token)
    try:
        value = ast.literal_eval(token)
    except (SyntaxError, ValueError):
        return token
    parts = _pieces(value, known)
    if len(parts) == 1 and isinstance(parts[0], str):
        return repr(parts[0])
    return "(" + text_expression(value, known) + ")"


def _braced(match: re.Match[str], known: Known) -> str:
    """``{$x}`` in an f-string: the reference is the field's expression."""
    return "{" + match.group(1) + "}" if known(match.group(1)) else match.group(0)


def _f_field(match: re.Match[str], known: Known) -> str:
    found = match.group(1) or match.group(2)
    if match.group(0) == "$$":
        return "$"
    return "{" + found + "}" if found and known(found) else match.group(0)


def _pieces(text: str, known: Known) -> list[str | tuple[str]]:
    """Literal texts and ``(name,)`` references, ``$$`` read as ``$``, neighbours joined."""
    parts: list[str | tuple[str]] = []

    def add(piece: str | tuple[str]) -> None:
        if isinstance(piece, str) and parts and isinstance(parts[-1], str):
            parts[-1] += piece
        elif piece:
            parts.append(piece)

    last = 0
    for match in _REF.finditer(text):
        add(text[last : match.start()])
        found = match.group(1) or match.group(2)
        if match.group(0) == "$$":
            add("$")
        elif found and known(found):
            add((found,))
        else:
            add(match.group(0))
        last = match.end()
    add(text[last:])
    return parts


def _literals(text: str) -> list[tuple[int, int]]:
    """Start and end of each string literal (with its prefix) in Python-like code."""
    spans, i = [], 0
    while i < len(text):
        char = text[i]
        if char not in "'\"":
            i += 1
            continue
        start = i
        while start > 0 and text[start - 1] in _PREFIX and i - start < 2:
            start -= 1
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start = i
        quote = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else char
        j = i + len(quote)
        while j < len(text) and not text.startswith(quote, j):
            j += 2 if text[j] == "\\" else 1
        end = min(j + len(quote), len(text))
        spans.append((start, end))
        i = end
    return spans
