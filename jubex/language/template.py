"""``$name`` / ``${expression}`` substitution in commands, file names and file contents.

A text is split once into literal pieces and substitutions; rendering is a join. In shell
mode (commands) names jubex does not know pass through to the shell untouched (``$HOME``,
``${SLURM_PROCID}``, ``${VAR:-default}``), because they are the shell's; elsewhere an
unknown name is an error. ``$$`` is a literal ``$`` in both modes.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from jubex.errors import ExpressionError, JubexError, Loc, did_you_mean
from jubex.language.expr import Expr, compile_expr

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: a parsed piece: literal text, or (name or compiled expression, the text as written)
_Piece = str | tuple[str | Expr, str]


def _closing(text: str, start: int) -> int:
    """Index of the ``}`` closing a ``${`` whose content starts at ``start``; -1 if none.

    Braces inside quoted strings do not count, so ``${"}".join(xs)}`` works; when quotes do
    not pair up (shell text such as ``${VAR:-it's}``) the first ``}`` closes.
    """
    depth, quote, i = 1, "", start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return text.find("}", start)


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@lru_cache(maxsize=4096)
def _parse(text: str, shell: bool) -> tuple[_Piece, ...]:
    pieces: list[_Piece] = []
    literal: list[str] = []
    pos = 0

    def substitution(what: str | Expr, raw: str) -> None:
        if "".join(literal):
            pieces.append("".join(literal))
        literal.clear()
        pieces.append((what, raw))

    while (i := text.find("$", pos)) >= 0:
        literal.append(text[pos:i])
        follower = text[i + 1 : i + 2]
        name = _NAME.match(text, i + 1)
        if follower == "$":
            literal.append("$")
            pos = i + 2
        elif follower == "{":
            end = _closing(text, i + 2)
            if end < 0:
                if not shell:
                    raise ExpressionError(f"'${{' without a closing '}}' in '{text}'")
                literal.append(text[i:])
                pos = len(text)
                continue
            content, raw, pos = text[i + 2 : end].strip(), text[i : end + 1], end + 1
            if _NAME.fullmatch(content):
                substitution(content, raw)
            elif _is_expression(content):
                substitution(compile_expr(content), raw)
            elif shell:
                literal.append(raw)
            else:
                compile_expr(content)
        elif name:
            substitution(name.group(), text[i : name.end()])
            pos = name.end()
        else:
            literal.append("$")
            pos = i + 1
    literal.append(text[pos:])
    if "".join(literal):
        pieces.append("".join(literal))
    return tuple(pieces)


class Template:
    """A text with substitutions, compiled once; ``names`` lists every name it reads.

    Rendering is one ``str.format`` call: when every substitution is a plain name, straight
    from the mapping (``format_map``); otherwise over the values of the substitutions.
    """

    __slots__ = ("_by_name", "_literal", "_positional", "_subs", "loc", "names", "shell", "text")

    def __init__(self, text: str, loc: Loc | None = None, shell: bool = True) -> None:
        self.text = text
        self.loc = loc
        self.shell = shell
        try:
            pieces = _parse(text, shell)
        except JubexError as exc:
            raise exc.at(loc) from None
        names: set[str] = set()
        subs: list[Callable[[Mapping[str, object]], object]] = []
        positional: list[str] = []
        by_name: list[str] | None = []
        for piece in pieces:
            if isinstance(piece, str):
                escaped = piece.replace("{", "{{").replace("}", "}}")
                positional.append(escaped)
                by_name = None if by_name is None else [*by_name, escaped]
                continue
            positional.append(f"{{{len(subs)}}}")
            what, raw = piece
            if isinstance(what, Expr):
                names |= what.names
                subs.append(self._expression(what))
                by_name = None
            else:
                names.add(what)
                subs.append(self._name(what, raw))
                by_name = None if by_name is None else [*by_name, f"{{{what}}}"]
        self.names = frozenset(names)
        self._subs = tuple(subs)
        self._positional = "".join(positional)
        self._by_name = None if by_name is None or not subs else "".join(by_name)
        self._literal = "".join(p for p in pieces if isinstance(p, str))

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    @property
    def is_literal(self) -> bool:
        """Whether rendering always gives ``text`` itself (no ``$`` substitution at all)."""
        return not self._subs and self._literal == self.text

    @property
    def is_single(self) -> bool:
        """Whether the text is exactly one substitution, whose value can keep its type."""
        return len(self._subs) == 1 and not self._literal

    def render(self, env: Mapping[str, object]) -> str:
        """The text with every substitution replaced by ``str()`` of its value."""
        if not self._subs:
            return self._literal
        if self._by_name is not None:
            try:
                return self._by_name.format_map(env)
            except KeyError:
                pass
        return self._positional.format(*[sub(env) for sub in self._subs])

    def render_value(self, env: Mapping[str, object]) -> object:
        """The value itself when the text is one substitution (``$n``, ``${a*b}``), else text."""
        if len(self._subs) == 1 and not self._literal:
            return self._subs[0](env)
        return self.render(env)

    def _name(self, name: str, raw: str) -> Callable[[Mapping[str, object]], object]:
        shell, text, loc = self.shell, self.text, self.loc

        def lookup(env: Mapping[str, object]) -> object:
            try:
                return env[name]
            except KeyError:
                if shell:
                    return raw
                raise ExpressionError(
                    f"unknown name '{raw}' in '{text}'", loc, did_you_mean(name, list(env))
                ) from None

        return lookup

    def _expression(self, expr: Expr) -> Callable[[Mapping[str, object]], object]:
        loc, shell = self.loc, self.shell

        def evaluate(env: Mapping[str, object]) -> object:
            try:
                return expr.evaluate(env)
            except ExpressionError as exc:
                if shell and not exc.hint and any(n not in env for n in expr.names):
                    exc.hint = "write $${...} to leave it to the shell"
                raise exc.at(loc) from None

        return evaluate


def shell_lookalikes(template: Template, known_names: Iterable[str]) -> list[tuple[str, str]]:
    """Names left to the shell that look like a misspelt parameter: ``(name, parameter)``."""
    known = list(known_names)
    folded = {k.lower(): k for k in known}
    found: dict[str, str] = {}
    for piece in _parse(template.text, template.shell):
        if isinstance(piece, str) or isinstance(piece[0], Expr):
            continue
        name = piece[0]
        if name in known or name in found:
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        match = close[0] if close else folded.get(name.lower())
        if match:
            found[name] = match
    return list(found.items())


@lru_cache(maxsize=4096)
def template(text: str, loc: Loc | None = None, shell: bool = True) -> Template:
    """A compiled template, shared: per-workpackage code renders the same texts thousands of
    times and should not parse them again each time."""
    return Template(text, loc, shell)
