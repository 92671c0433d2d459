"""Tag expressions, as JUBE writes them: ``a``, ``!a``, ``a+b`` (and), ``a|b`` (or),
``a^b`` (xor), parentheses; a comma is an or. Names are the tags given with ``--tag``."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from jubex.definition.model import Benchmark
from jubex.errors import DefinitionError, Loc

Test = Callable[[frozenset[str]], bool]
#: '(' and '!' a tag expression may nest: deeper would exhaust the parser's stack
MAX_DEPTH = 100
_TOKEN = re.compile(r"([A-Za-z0-9_.\-]+)|(\S)")


def tag_matches(expr: str, tags: Iterable[str], loc: Loc | None = None) -> bool:
    """Whether the tag expression holds for the given tags."""
    return _compile(expr, loc)(frozenset(tags))


@lru_cache(maxsize=1024)
def _compile(expr: str, loc: Loc | None) -> Test:
    # read token by token: a long expression wrong near its start costs nothing more
    stream = _TOKEN.finditer(expr)
    current: tuple[str, str] | None = None  # (name, ""), ("", operator), None at the end

    def advance() -> None:
        nonlocal current
        found = next(stream, None)
        current = (found.group(1) or "", found.group(2) or "") if found else None

    def error(what: str) -> DefinitionError:
        shown = expr if len(expr) <= 80 else expr[:80] + "..."
        return DefinitionError(
            f"tag expression '{shown}': {what}",
            loc,
            hint="write tags as a, !a, a+b (and), a|b (or), a^b (xor) with parentheses",
        )

    def peek() -> str | None:
        return current[1] if current else None

    def atom(depth: int = 0) -> Test:
        if current is None:
            raise error("ends too early")
        if depth > MAX_DEPTH:
            raise error(f"nests deeper than {MAX_DEPTH} levels of '(' and '!'")
        name, op = current
        advance()
        if name:
            return lambda t: name in t
        if op == "!":
            inner = atom(depth + 1)
            return lambda t: not inner(t)
        if op == "(":
            inner = disjunction(depth + 1)
            if peek() != ")":
                raise error("a '(' is not closed")
            advance()
            return inner
        raise error(f"unexpected '{op}'")

    def binary(
        sub: Callable[[int], Test], ops: set[str], combine: Callable[[list[Test]], Test]
    ) -> Callable[[int], Test]:
        """A chain of ``sub`` joined by ``ops``, combined at once: a long chain must not
        become as many nested calls."""

        def parse(depth: int) -> Test:
            parts = [sub(depth)]
            while peek() in ops:
                advance()
                parts.append(sub(depth))
            return parts[0] if len(parts) == 1 else combine(parts)

        return parse

    conjunction = binary(atom, {"+", "&"}, lambda ps: lambda t: all(p(t) for p in ps))
    exclusive = binary(conjunction, {"^"}, lambda ps: lambda t: sum(p(t) for p in ps) % 2 == 1)
    disjunction = binary(exclusive, {"|", ","}, lambda ps: lambda t: any(p(t) for p in ps))
    advance()
    result = disjunction(0)
    if current is not None:
        raise error(f"unexpected '{current[0] or current[1]}'")
    return result


def apply_tags(benchmark: Benchmark, tags: Iterable[str]) -> Benchmark:
    """The benchmark as the tags select it: tagged-off steps, operations, files, analysers
    and tables are gone (and so are dependencies on steps that are gone).

    Parameters and constraints keep their tags: the space decides about them, since a
    tagged parameter may replace another of the same name.
    """
    tags = frozenset(tags)

    def on(element: object) -> bool:
        tag = getattr(element, "tag", None)
        return not tag or tag_matches(tag, tags, getattr(element, "loc", None))

    names = benchmark.file_benchmarks  # shared, not copied: N names for each of N benchmarks
    result = copy.deepcopy(benchmark, {id(names): names})
    result.steps = {name: step for name, step in result.steps.items() if on(step)}
    for step in result.steps.values():
        step.depend = tuple(d for d in step.depend if d in result.steps or d not in benchmark.steps)
        step.do = [do for do in step.do if on(do)]
    for fileset in result.filesets.values():
        fileset.ops = [op for op in fileset.ops if on(op)]
    result.analysers = {k: a for k, a in result.analysers.items() if on(a)}
    result.tables = {k: t for k, t in result.tables.items() if on(t)}
    result.plots = {k: p for k, p in result.plots.items() if on(p)}
    return result
