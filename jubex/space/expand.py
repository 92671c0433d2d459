"""The parameter space of a step: parametersets merged, crossed, zipped, derived, filtered.

A :class:`Space` is built once from the model (cheap, no side effects) and iterated as a
stream: the lists crossed (:mod:`jubex.space.lazy`: a range's values typed as a point reads
them), derived parameters evaluated in a fixed dependency order, constraints applied, one
dict per point. Nothing proportional to the number of points is ever held in memory.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from pathlib import Path

from jubex.definition.model import CODE_MODES, Constraint, Parameter, ParameterSet
from jubex.definition.tags import tag_matches
from jubex.errors import DefinitionError, Loc, UsageError, did_you_mean
from jubex.language.builtins import FUNCTIONS
from jubex.language.expr import Expr, compile_expr
from jubex.language.inspection import NOT_EVALUATED, inspecting
from jubex.language.python import PythonExpr
from jubex.language.ranges import Linear
from jubex.language.shell import run_snippet
from jubex.language.template import Template
from jubex.language.values import coerce, parse_value
from jubex.space.jube_order import JubeOrder
from jubex.space.lazy import Rows, Typed, crossed
from jubex.space.point import Derived, Point, splitting

#: update modes whose parameters are evaluated again at the start of every cycle (JUBE)
PER_CYCLE = ("cycle", "always")
#: the cycle a workpackage is in; planning sees the first one's, as JUBE creates workpackages
CYCLE = "jube_wp_cycle"
#: the name of the step a space belongs to (planning offers it to each step's space)
STEP_NAME = "jube_step_name"
#: modes whose result, worked out per point, is several values where it holds the separator
SPLITTING = ("expr", "python", "shell", "env")


class Space:
    """The points of a step: a cross product of parameter lists, zips varying together."""

    def __init__(
        self,
        sets: Sequence[ParameterSet],
        where: Sequence[Constraint] = (),
        overrides: Mapping[str, Sequence[str]] | None = None,
        tags: Iterable[str] = (),
        constants: Mapping[str, object] | None = None,
        file: str = "",
        *,
        shell_in_cwd: bool = False,
        levels: Mapping[str, int] | None = None,
    ) -> None:
        self._file = file
        # how deep in the chain of steps each set is (a parent's 0, its child's 1, ...):
        # JUBE makes a parent's workpackages before their children vary anything of theirs
        self._set_levels = dict(levels or {})
        self._levels: dict[str, int] = {}
        # a JUBE file's shell parameters run where JUBE runs them: in the directory it was
        # started from; jubex's own in the definition's directory
        self._shell_in_cwd = shell_in_cwd
        self._tags = frozenset(tags)
        self._constants = {CYCLE: 0, **(constants or {})}
        params, zips = self._merge(sets)
        self._apply(params, overrides or {})
        self.names: tuple[str, ...] = tuple(params)
        self._params = params
        self._values = {name: self._producers(p) for name, p in params.items()}
        self._groups = self._group(zips)
        self.varying: tuple[str, ...] = tuple(
            n for n in self.names if len(self._values[n]) > 1 or self._zipped_length(n) > 1
        )
        self._order = self._dependency_order()
        #: parameters a command that only looks leaves unevaluated: code, and what reads it
        self.unevaluated = self._not_evaluated() if inspecting() else frozenset()
        #: parameters whose value is the step's own (an update mode other than never, or
        #: reading $jube_step_name, or reading such a one): a child's value may differ from
        #: its parent's, so they do not tell which parent a child belongs to
        self.updated = self._per_step()
        self._where = self._constraints(where)
        #: whether a value worked out per point may split into several (a JUBE snippet)
        self.splits = any(
            p.separator and p.mode in SPLITTING and name not in self.unevaluated
            for name, p in params.items()
        )
        #: whether the points may be fewer (constraints drop some) or more (values split)
        #: than :meth:`upper_bound`: then only walking them counts them
        self.constrained = bool(self._where) or bool(where and self.unevaluated) or self.splits
        self._shell_cache: dict[str, str] = {}
        self._prepared: tuple[Point, list[str]] | None = None

    # -- building -------------------------------------------------------------------------

    def _loc(self, loc: Loc | None) -> Loc | None:
        return loc or (Loc(self._file) if self._file else None)

    def _merge(
        self, sets: Sequence[ParameterSet]
    ) -> tuple[dict[str, Parameter], list[tuple[list[str], Loc | None]]]:
        """Parameters of all sets in order, by their ``duplicate`` rules; zip groups."""
        params: dict[str, Parameter] = {}
        zips: list[tuple[list[str], Loc | None]] = []
        for pset in sets:
            for p in pset.parameters.values():
                if p.tag and not tag_matches(p.tag, self._tags, p.loc):
                    continue
                old = params.get(p.name)
                self._levels.setdefault(p.name, self._set_levels.get(pset.name, 0))
                rule = p.duplicate if p.duplicate not in ("none", "replace") else pset.duplicate
                if old is None or rule in ("replace", "none"):
                    params[p.name] = p
                elif rule == "error":
                    raise DefinitionError(
                        f"parameter '{p.name}' is defined twice and its set says duplicate: error",
                        self._loc(p.loc),
                        f"the first definition is at {old.loc}" if old.loc else "",
                    )
                elif p.mode != "text" or old.mode != "text":
                    raise DefinitionError(
                        f"parameter '{p.name}': duplicate: concat joins value lists, "
                        f"not mode {p.mode if p.mode != 'text' else old.mode}",
                        self._loc(p.loc),
                    )
                else:
                    params[p.name] = dataclasses.replace(
                        p, values=(*self._texts(old), *self._texts(p)), separator=None
                    )
            for group in pset.zips:
                unknown = [n for n in group if n not in pset.parameters]
                if unknown:
                    raise DefinitionError(
                        f"zip of parameterset '{pset.name}' names '{unknown[0]}', which the set "
                        "does not define",
                        self._loc(pset.loc),
                        did_you_mean(unknown[0], pset.parameters),
                    )
                zips.append(([n for n in group if n in params], pset.loc))
        return params, zips

    def _apply(self, params: dict[str, Parameter], overrides: Mapping[str, Sequence[str]]) -> None:
        """Command-line values replace a parameter's list (a derived one becomes a list)."""
        for name, texts in overrides.items():
            if name not in params:
                raise UsageError(
                    f"-p {name}=...: there is no parameter '{name}' here",
                    hint=did_you_mean(name, params),
                )
            if not texts:
                raise UsageError(f"-p {name}=...: give at least one value")
            params[name] = dataclasses.replace(
                params[name], values=tuple(texts), mode="text", separator=None
            )

    @staticmethod
    def _texts(p: Parameter) -> Sequence[str]:
        if p.mode != "text" or not p.separator or isinstance(p.values, Linear):
            return p.values
        return tuple(piece.strip() for text in p.values for piece in text.split(p.separator))

    def _producers(self, p: Parameter) -> Sequence[object]:
        """One entry per value: the typed value itself, or a :class:`Derived`; a range's
        values are typed when a point reads them."""
        loc = self._loc(p.loc)
        texts = self._texts(p)
        if not texts:
            raise DefinitionError(f"parameter '{p.name}' has no values", loc)
        if isinstance(texts, Linear) and p.mode == "text":
            return Typed(texts, p.type, loc)
        if p.mode != "text" and len(texts) != 1:
            raise DefinitionError(
                f"parameter '{p.name}' of mode {p.mode} needs exactly one value, has {len(texts)}",
                loc,
            )
        make = {
            "text": self._text,
            "expr": self._expr,
            "python": self._python,
            "shell": self._shell,
            "env": self._env,
            "tag": self._tag,
        }.get(p.mode)
        if make is None:
            raise DefinitionError(
                f"parameter '{p.name}' has unknown mode '{p.mode}'",
                loc,
                "use text, expr, shell, env or tag",
            )
        return [make(p, text, loc) for text in texts]

    def _text(self, p: Parameter, text: str, loc: Loc | None) -> object:
        if "$" not in text:  # no substitution: a range's million values need no template
            return parse_value(text, p.type, loc)
        template, kind = Template(text, loc, shell=True), p.type
        if template.is_literal:
            return parse_value(text, kind, loc)
        deps = self._deps(template.names)
        if template.is_single and kind == "auto":
            return Derived(template.render_value, deps)
        if template.is_single:
            return Derived(lambda env: coerce(template.render_value(env), kind, loc), deps)
        return Derived(lambda env: parse_value(template.render(env), kind, loc), deps)

    def _expr(self, p: Parameter, text: str, loc: Loc | None) -> object:
        expr = compile_expr(text, loc)
        self._check_names(p.name, expr, loc)
        if p.separator:
            return Derived(splitting(expr.evaluate, p, loc), self._deps(expr.names), True)
        kind = p.type
        return Derived(lambda env: coerce(expr.evaluate(env), kind, loc), self._deps(expr.names))

    def _python(self, p: Parameter, text: str, loc: Loc | None) -> object:
        expr = PythonExpr(text, loc)
        return Derived(splitting(expr.evaluate, p, loc), self._deps(expr.names), bool(p.separator))

    def _shell(self, p: Parameter, text: str, loc: Loc | None) -> object:
        template, name = Template(text, loc, shell=True), p.name
        return self._read_text(
            p, lambda env: self._run(name, template.render(env), loc), template.names, loc
        )

    def _env(self, p: Parameter, text: str, loc: Loc | None) -> object:
        variable, name = text.strip().lstrip("$"), p.name

        def read(env: Mapping[str, object]) -> str:
            if variable not in os.environ:
                raise DefinitionError(
                    f"parameter '{name}' reads the environment variable {variable}, "
                    "which is not set",
                    loc,
                    f"export {variable}=... before running",
                )
            return os.environ[variable]

        return self._read_text(p, read, (), loc)

    def _read_text(
        self,
        p: Parameter,
        read: Callable[[Mapping[str, object]], str],
        names: Iterable[str],
        loc: Loc | None,
    ) -> Derived:
        """A value read as text (a command's output, a variable); with a separator, a text
        holding it is several values, as JUBE makes a template of it."""
        if p.separator:
            return Derived(splitting(read, p, loc, text=True), self._deps(names), True)
        kind = p.type
        return Derived(lambda env: parse_value(read(env), kind, loc), self._deps(names))

    def _tag(self, p: Parameter, text: str, loc: Loc | None) -> object:
        return parse_value(text, p.type, loc) if tag_matches(text, self._tags, loc) else ""

    def _deps(self, names: Iterable[str]) -> frozenset[str]:
        return frozenset(n for n in names if n in self._params)

    def _check_names(self, owner: str, expr: Expr, loc: Loc | None) -> None:
        known = set(self._params) | set(self._constants)
        for name in sorted(expr.names - known - set(FUNCTIONS)):
            raise DefinitionError(
                f"parameter '{owner}': '{expr.text}' uses '{name}', which is neither a "
                "parameter of this step nor a built-in value",
                loc,
                did_you_mean(name, known),
            )

    def _group(
        self, zips: list[tuple[list[str], Loc | None]]
    ) -> list[tuple[list[str], Loc | None]]:
        """Zip groups with shared members merged, members in definition order, equal lengths."""
        merged: list[tuple[set[str], Loc | None]] = []
        for names, loc in zips:
            members = set(names)
            for other in [m for m in merged if m[0] & members]:
                merged.remove(other)
                members |= other[0]
                loc = loc or other[1]
            merged.append((members, loc))
        groups = []
        for members, loc in merged:
            ordered = [n for n in self.names if n in members]
            lengths = {n: len(self._values[n]) for n in ordered}
            if len(set(lengths.values())) > 1:
                raise DefinitionError(
                    f"zip ({', '.join(ordered)}) needs lists of equal length: "
                    + ", ".join(f"{n} has {k}" for n, k in lengths.items()),
                    self._loc(loc) or self._loc(self._params[ordered[0]].loc),
                    "zipped parameters vary together, value by value",
                )
            groups.append((ordered, loc))
        return groups

    def _zipped_length(self, name: str) -> int:
        for members, _ in self._groups:
            if name in members:
                return len(self._values[name])
        return 0

    def _dependency_order(self) -> list[str]:
        """Derived parameters, each after the parameters it reads; a cycle is an error."""
        deps = {
            name: frozenset().union(*(v.deps for v in derived))
            for name, values in self._values.items()
            if (derived := _derived(values))
        }
        order: list[str] = []
        state: dict[str, bool] = {}

        def visit(name: str, path: list[str]) -> None:
            if state.get(name) is True:
                return
            if state.get(name) is False:
                cycle = [*path[path.index(name) :], name]
                raise DefinitionError(
                    f"parameters depend on each other in a cycle: {' -> '.join(cycle)}",
                    self._loc(self._params[name].loc),
                    "one of them must be given values instead of derived",
                )
            state[name] = False
            for dep in sorted(deps.get(name, ()), key=self.names.index):
                visit(dep, [*path, name])
            state[name] = True
            if name in deps:
                order.append(name)

        for name in self.names:
            visit(name, [])
        return order

    def _per_step(self) -> frozenset[str]:
        """Names whose values a step computes for itself (see ``updated``)."""
        found = {
            name
            for name, p in self._params.items()
            if p.update_mode != "never" or any(STEP_NAME in text for text in p.written)
        }
        for name in self._order:
            if self._derived_deps(name) & found:
                found.add(name)
        return frozenset(found)

    def _constraints(self, where: Sequence[Constraint]) -> list[tuple[Constraint, Expr]]:
        """Constraints that apply: tag on, and every name they read known in this space."""
        known = set(self._params) | set(self._constants) | set(FUNCTIONS)
        kept = []
        for c in where:
            if c.tag and not tag_matches(c.tag, self._tags, c.loc):
                continue
            expr = compile_expr(c.expr, self._loc(c.loc))
            if expr.names <= known and not expr.names & self.unevaluated:
                kept.append((c, expr))
        return kept

    def _not_evaluated(self) -> frozenset[str]:
        """Shell and python parameters, and those reading them, each made the one value
        :data:`NOT_EVALUATED` (as many times as it has values: the count stays)."""
        found: set[str] = set()
        for name in self._order:
            if self._params[name].mode in CODE_MODES or self._derived_deps(name) & found:
                found.add(name)
                self._values[name] = [NOT_EVALUATED] * len(self._values[name])
        return frozenset(found)

    def per_cycle(self) -> list[tuple[str, Callable[[Mapping[str, object]], object]]]:
        """Parameters evaluated again at the start of every cycle (update mode ``cycle`` or
        ``always``), in dependency order, each with what computes it from the values it reads.

        Only one-value parameters are listed: a list of plain values keeps the value its point
        chose, and a list whose values are computed is refused before a run starts.
        """
        return [
            (name, value.fn)
            for name in self._order
            if self._params[name].update_mode in PER_CYCLE
            and len(self._values[name]) == 1
            and isinstance(value := self._values[name][0], Derived)
        ]

    @property
    def parameters(self) -> Mapping[str, Parameter]:
        """The parameters of the space by name, as merged from its sets."""
        return self._params

    def recompute(
        self, point: Mapping[str, object], changed: Iterable[str], keep: frozenset[str]
    ) -> dict[str, object]:
        """The point with the one-value derived parameters that read a ``changed`` value,
        directly or not, worked out again, except those in ``keep`` (a dependent step's
        values from its parent workpackage's)."""
        result = Point(point)
        result.constants = self._constants
        touched = set(changed)
        for name in self._order:
            value = self._values[name][0]
            if (
                name not in keep
                and len(self._values[name]) == 1
                and isinstance(value, Derived)
                and value.deps & touched
            ):
                result[name] = value.fn(result)
                touched.add(name)
        return dict(result)

    # -- iterating ------------------------------------------------------------------------

    def _dimensions(self) -> list[Rows]:
        """The lists that are crossed: one per zip group and per parameter with > 1 value."""
        return [rows for _, _, rows in self._lists()]

    def _lists(self) -> list[tuple[int, str, Rows]]:
        """The lists that are crossed, each with its position and its first name, in
        definition order."""
        dims: list[tuple[int, str, Rows]] = []
        zipped = set()
        for members, _ in self._groups:
            zipped.update(members)
            rows = Rows({n: self._values[n] for n in members})
            dims.append((self.names.index(members[0]), members[0], rows))
        for position, name in enumerate(self.names):
            if name not in zipped:
                dims.append((position, name, Rows({name: self._values[name]})))
        return [d for d in sorted(dims, key=lambda d: d[0]) if len(d[2]) > 1]

    def upper_bound(self) -> int:
        """Points before constraints: the product of the list lengths, counted, not listed
        (a zip group is one list); exact when the space has no constraints."""
        zipped = {n for members, _ in self._groups for n in members}
        lengths = [len(self._values[members[0]]) for members, _ in self._groups]
        lengths += [len(self._values[n]) for n in self.names if n not in zipped]
        return math.prod(lengths)

    def _static(self) -> tuple[Point, list[str]]:
        """Values fixed for every point, evaluated once; the parameters left per point."""
        if self._prepared is None:
            static = Point()
            static.constants = self._constants
            varying = set(self.varying)
            for name in self.names:
                static[name] = None if name in varying else self._values[name][0]
            per_point: list[str] = []
            for name in self._order:
                fixed = name not in varying and not any(
                    d in per_point or d in varying for d in self._derived_deps(name)
                )
                fixed = fixed and not any(v.splits for v in _derived(self._values[name]))
                if not fixed:
                    per_point.append(name)
                elif isinstance(value := static[name], Derived):
                    static[name] = value.fn(static)
            self._prepared = (static, per_point)
        return self._prepared

    def _derived_deps(self, name: str) -> frozenset[str]:
        return frozenset().union(*(v.deps for v in _derived(self._values[name])))

    def _steps(self, per_point: list[str]) -> list[tuple[str, Expr | None]]:
        """Per-point work in order: each constraint as soon as what it reads is known."""
        steps: list[tuple[str, Expr | None]] = []
        waiting = [expr for _, expr in self._where]
        for position in range(-1, len(per_point)):
            if position >= 0:
                steps.append((per_point[position], None))
            pending = set(per_point[position + 1 :])
            steps += [("", expr) for expr in waiting if not expr.names & pending]
            waiting = [expr for expr in waiting if expr.names & pending]
        return steps

    def __iter__(self) -> Iterator[dict[str, object]]:
        """One dict per point, parameters in definition order, values typed."""
        return self.points()

    def points(self, tried: int | None = None) -> Iterator[dict[str, object]]:
        """The points; with ``tried``, those among the first ``tried`` combinations only, so
        that a look at a space whose constraints drop nearly every point ends in time."""
        static, per_point = self._static()
        steps = self._steps(per_point)
        splits = bool(self._splitting(per_point))
        found = (
            islice(self._jube_points(static, per_point), tried)
            if splits
            else self._crossed(static, tried)
        )
        kept = 0
        for point in found:
            if self._finished(point, steps):
                kept += 1
                yield dict(point)
        if not kept and self._where and tried is None:
            first = self._where[0][0]
            raise DefinitionError(
                f"the constraints leave none of the {self.upper_bound():,} points: "
                + ", ".join(f"'{c.expr}'" for c, _ in self._where),
                self._loc(first.loc),
                "check the where clauses against the parameter values",
            )

    def _splitting(self, per_point: list[str]) -> list[str]:
        """The parameters of a point that may split into several values (JUBE snippets)."""
        values = self._values
        return [n for n in per_point if any(type(v) is Derived and v.splits for v in values[n])]

    def _crossed(self, static: Point, tried: int | None) -> Iterator[Point]:
        """The lists crossed in definition order, the first one varying slowest."""
        for combo in islice(crossed(self._dimensions()), tried):
            point = Point(static)
            point.constants = self._constants
            for row in combo:
                point.update(row)
            yield point

    @staticmethod
    def _finished(point: Point, steps: list[tuple[str, Expr | None]]) -> bool:
        """Work out the point's values left; False if a constraint drops it."""
        for name, check in steps:
            if check is None:
                value = point[name]
                if type(value) is Derived:
                    point[name] = value.fn(point)
            elif not check.evaluate(point):
                return False
        return True

    def _jube_points(self, static: Point, per_point: list[str]) -> Iterator[Point]:
        """The points of a space whose snippets split, in the order JUBE makes them."""
        root = Point(static)
        root.constants = self._constants
        deps = {name: self._derived_deps(name) for name in per_point}
        positions = {name: i for i, name in enumerate(self.names)}
        lists = [(at, name, list(rows)) for at, name, rows in self._lists()]
        order = JubeOrder(lists, per_point, deps, self._levels, positions)
        return order.points(root)

    def count(self) -> int:
        """Points after constraints (iterates the space)."""
        return sum(1 for _ in self)

    def _run(self, name: str, command: str, loc: Loc | None) -> str:
        """The output of a shell-mode parameter's command, run once per distinct command."""
        if command not in self._shell_cache:
            home = Path(self._file).resolve().parent if self._file else None
            where = None if self._shell_in_cwd else home
            output = run_snippet(command, f"parameter '{name}'", loc, where)
            self._shell_cache[command] = output.strip()
        return self._shell_cache[command]


def _derived(values: Sequence[object]) -> list[Derived]:
    """The derived values of a parameter (a range's typed values are none)."""
    if isinstance(values, (Typed, Linear)):
        return []
    return [v for v in values if isinstance(v, Derived)]
