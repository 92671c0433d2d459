"""Checks that need the expression language, for ``jubex validate``.

Every expression must compile, every template must parse, names in constraints must be
parameters (the expand stage checks that each space has a point). Shell
``$NAME``s close to a parameter's name are reported as warnings, since a shell variable
with that name is legal but a misspelt parameter is the likelier story.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from jubex.definition.model import Benchmark, Constraint, place
from jubex.definition.references import BUILTIN_PREFIXES
from jubex.definition.shell_names import set_names
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, did_you_mean
from jubex.language.builtins import FUNCTIONS
from jubex.language.expr import compile_expr
from jubex.language.template import Template, shell_lookalikes
from jubex.language.values import misspelt_size

#: names the platform gives every step (``$launcher`` is ``srun -N ...`` or ``mpiexec ...``)
PLATFORM_NAMES = ("launcher",)


def check_consistency(benchmark: Benchmark) -> list[JubexError]:
    """Errors in expressions and templates, and warnings for likely misspellings."""
    parameters = {n for ps in benchmark.parametersets.values() for n in ps.parameters}
    return [
        *_sizes(benchmark),
        *_expressions(benchmark, parameters),
        *_templates(benchmark, parameters),
    ]


def _sizes(b: Benchmark) -> Iterator[JubexError]:
    """A literal value that is a size with a misspelt unit (``4kib``), at its parameter."""
    for pset in b.parametersets.values():
        for p in pset.parameters.values():
            if p.mode != "text" or p.type != "auto":
                continue
            for value in p.written:
                right = misspelt_size(value)
                if right is not None:
                    yield DefinitionError(
                        f"parameter '{p.name}': '{value}' is not a size: jubex spells the "
                        f"unit {right.lstrip('0123456789.+-')} (1024-based)",
                        p.loc,
                        f"write {right}, or give the parameter type: str to keep the text",
                    )


def _compiled(text: str, loc: Loc | None, what: str) -> tuple[frozenset[str], list[JubexError]]:
    try:
        return frozenset(compile_expr(text, loc).names), []
    except JubexError as exc:
        return frozenset(), [_located(exc, loc, what)]


def _located(exc: JubexError, loc: Loc | None, what: str) -> JubexError:
    exc.at(loc)
    exc.message = f"{what}: {exc.message}"
    return exc


def _expressions(b: Benchmark, parameters: set[str]) -> Iterator[JubexError]:
    """Compile every expression; where parameters are meant, the names must be parameters."""
    named: list[tuple[str, Loc | None, str]] = [(c.expr, c.loc, "where") for c in b.where]
    for step in b.steps.values():
        named.append((step.active, step.loc, f"step '{step.name}' active"))
        named += [(do.active, do.loc, f"step '{step.name}' do active") for do in step.do]
    for fileset in b.filesets.values():
        named += [(op.active, op.loc, f"fileset '{fileset.name}' active") for op in fileset.ops]
    for pset in b.parametersets.values():
        named += [
            (p.values[0], p.loc, f"parameter '{p.name}'")
            for p in pset.parameters.values()
            if p.mode == "expr"
        ]
    known = parameters | set(PLATFORM_NAMES) | set(FUNCTIONS)
    for text, loc, what in named:
        if text.strip().lower() in ("true", "false"):
            continue
        names, errors = _compiled(text, loc, what)
        yield from errors
        for name in sorted(names - known):
            if not name.startswith(BUILTIN_PREFIXES):
                hint = did_you_mean(name, known)
                yield DefinitionError(f"{what}: '{name}' is not a parameter", loc, hint)
    free: list[tuple[str, Loc | None, str]] = []
    for table in b.tables.values():
        if table.filter:
            free.append((table.filter, place(table, "filter"), f"table '{table.name}' filter"))
        free += [(c.expr, c.loc, f"column '{c.name}'") for c in table.columns if c.expr]
    for patternset in b.patternsets.values():
        free += [
            (p.regex, p.loc, f"pattern '{p.name}'")
            for p in patternset.patterns.values()
            if p.mode == "expr"
        ]
    for text, loc, what in free:
        yield from _compiled(text, loc, what)[1]


def _templates(b: Benchmark, parameters: set[str]) -> Iterator[JubexError]:
    """Parse every template; in shell commands, warn of ``$NAME``s that look misspelt."""
    known = parameters | set(PLATFORM_NAMES)
    set_by = {n for step in b.steps.values() for do in step.do for n in set_names(do.command)}
    for pset in b.parametersets.values():
        for p in pset.parameters.values():
            if p.mode == "text":
                for value in p.written:
                    yield from _parse(value, p.loc, f"parameter '{p.name}'", known, shell=False)
    for step in b.steps.values():
        what = f"step '{step.name}'"
        for do in step.do:
            yield from _parse(do.command, do.loc, what, known, shell=True, set_by=set_by)
        texts = [*step.environment.values(), *step.resources.extra.values()]
        texts += [v for v in vars(step.resources).values() if isinstance(v, str)]
        for text in texts:
            yield from _parse(text, step.loc, what, known, shell=True)
    for text in b.environment.values():
        yield from _parse(text, b.loc, "environment", known, shell=True)


def _parse(
    text: str,
    loc: Loc | None,
    what: str,
    known: set[str],
    *,
    shell: bool,
    set_by: set[str] | None = None,
) -> Iterator[JubexError]:
    """A template's errors; with ``set_by`` (a ``do``), the warnings of the names
    check_shell_names does not refuse: upper case, or set by a command."""
    if "$" not in text:
        return
    try:
        template = Template(text, loc, shell=shell)
    except JubexError as exc:
        yield _located(exc, loc, what)
        return
    if shell:
        for name, suggestion in shell_lookalikes(template, known):
            if set_by is not None and name.upper() != name and name not in set_by:
                continue  # check_shell_names reports it as an error (with the platform)
            yield DefinitionWarning(
                f"{what}: ${name} is no parameter; a shell variable of that name is used",
                loc,
                f"did you mean ${suggestion}?",
            )


def applies(constraint: Constraint, names: Iterable[str]) -> bool:
    """Whether a constraint names only these parameters (it then restricts their space)."""
    try:
        return set(compile_expr(constraint.expr, constraint.loc).names) <= set(names)
    except JubexError:
        return False
