"""Apply a step's analysers to one work directory: the ``analyse`` stage's unit of work.

What a step is analysed with: each name in ``Step.analyse`` (a built-in analyser such as
``ior``, a patternset -- its patterns read ``stdout`` -- or an analyser of the definition),
plus every analyser whose ``step`` is this step. Everything is resolved and compiled once
per step; :meth:`Harvester.harvest` then only reads files and matches.

As in JUBE, a pattern's matches from all files of one work directory are pooled before the
statistics are taken, and derived patterns are computed last, from everything found. With
an analyser's ``reduce`` (JUBE's default), :meth:`Harvester.merge` pools the matches of all
iterations of one parameter point the same way, from what each iteration stored.
"""

from __future__ import annotations

import glob
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from jubex.analysis import builtin
from jubex.analysis.measurement import BuiltinAnalyser, ParseResult
from jubex.analysis.patterns import Matches, PatternEngine, Stored, reductions
from jubex.definition.model import (
    CODE_MODES,
    STATISTICS,
    AnalyseFile,
    Analyser,
    Benchmark,
    Pattern,
)
from jubex.errors import DefinitionError, JubexError, Loc, did_you_mean
from jubex.language.template import Template
from jubex.store.measurement import Measurement, Value

_STDOUT = "stdout"
_STDERR = "stderr"
_REPEATED: dict[str, frozenset[str]] = {}
_STATISTIC_UNITS: dict[tuple[str, str], list[tuple[str, str]]] = {}
_NUMBERS = frozenset({int, float})


@dataclass
class _FileRule:
    """A file (name or glob, may hold ``$param``) and what reads it.

    A built-in analyser's default files are alternatives: the first that exists is read.
    """

    path: Template
    patterns: frozenset[str] = frozenset()
    builtin: BuiltinAnalyser | None = None
    alternatives: tuple[str, ...] | None = None


class Harvester:
    """Compiled once per step; applied to many work directories."""

    def __init__(self, benchmark: Benchmark, step: str) -> None:
        if step not in benchmark.steps:
            raise DefinitionError(
                f"no step '{step}' to analyse", benchmark.loc, did_you_mean(step, benchmark.steps)
            )
        self._benchmark = benchmark
        self._file = benchmark.file
        self._step = benchmark.steps[step]
        self._patterns: dict[str, tuple[Pattern, str]] = {}
        self._rules: list[_FileRule] = []
        for name in self._step.analyse:
            self._add_source(name)
        for analyser in benchmark.analysers.values():
            if analyser.step == step and analyser.name not in self._step.analyse:
                self._add_analyser(analyser)
        self._engine = PatternEngine([p for p, _ in self._patterns.values()], self._file)
        builtins = {rule.builtin.name: rule.builtin for rule in self._rules if rule.builtin}
        self._builtins = list(builtins.values())
        self._repeated = frozenset().union(*(_repeated(b) for b in self._builtins))

    def code_patterns(self) -> list[Pattern]:
        """The patterns that run code to give their value (a shell command, real Python)."""
        return [p for p, _ in self._patterns.values() if p.mode in CODE_MODES]

    def harvest(self, workdir: Path, params: Mapping[str, object]) -> ParseResult:
        """Everything the step's analysers find in ``workdir``; never raises for bad output."""
        matches: dict[str, Matches] = {}
        builtins: list[Measurement] = []
        reasons: list[str] = []
        for rule in self._rules:
            paths, missing = self._paths(workdir, rule, params)
            if missing:
                reasons.append(missing)
            for path in paths:
                if rule.builtin is not None and rule.builtin.read is not None:
                    found = rule.builtin.read(path, params)
                    builtins.extend(found.measurements)
                    if not found.ok:
                        reasons.append(f"{rule.builtin.name}: {found.reason}")
                    continue
                text, problem = _read(path)
                if problem:
                    reasons.append(problem)
                    continue
                relative = path.relative_to(workdir).as_posix()
                if rule.builtin is not None:
                    found = rule.builtin.parse(text + _stderr_of(path))
                    builtins.extend(found.measurements)  # statistics: see computes()
                    if not found.ok:
                        explain = rule.builtin.explain
                        why = (explain(path, found.reason) if explain else "") or found.reason
                        reasons.append(f"{rule.builtin.name}: {relative}: {why}")
                else:
                    for name, got in self._engine.scan(text, params, rule.patterns).items():
                        matches.setdefault(name, Matches(unit=got.unit)).extend(got)
        for name in self._patterns:
            matches.setdefault(name, Matches())
        measurements = self._engine.measure(matches, params) + builtins
        return ParseResult(measurements, ok=not reasons, reason="; ".join(reasons))

    def merge(
        self, iterations: Sequence[Sequence[Stored]], params: Mapping[str, object]
    ) -> list[tuple[str, int, object]]:
        """What a result row shows of one parameter point -- the first value of each name, per
        record -- from what its iterations stored, in iteration order, as if one work
        directory held all their files (JUBE's reduce).

        Statistics run over the matches of all iterations, a default applies only when no
        iteration matched, and derived patterns are computed once, from the pooled values;
        a pattern no iteration stored (none was analysed, or it was not read) is left out.
        Of a built-in analyser's values, those it gives once per program iteration are pooled
        as well (with their statistics); any other value is the first iteration's.
        """
        matches: dict[str, Matches] = {}
        builtins: list[Measurement] = []
        seen: set[tuple[int, str]] = set()
        for stored in iterations:
            for name, got in self._engine.matches_of(stored).items():
                matches.setdefault(name, Matches(unit=got.unit)).extend(got)
            if self._builtins:
                builtins += self._builtin_values(stored, seen)
        row = [(name, 0, value) for name, value in self._engine.summary(matches, params).items()]
        firsts: dict[tuple[str, int], object] = {}
        for m in builtins + [s for b in self._builtins for s in statistics(b, builtins)]:
            firsts.setdefault((m.name, m.record), m.value)
        return row + [(name, record, value) for (name, record), value in firsts.items()]

    @property
    def repeated(self) -> frozenset[str]:
        """The names the step's built-in analysers give once per program iteration."""
        return self._repeated

    def computes(self, names: Collection[str] | None) -> bool:
        """Whether reading ``names`` (None: every value) needs :meth:`merge`: the statistics
        of a built-in analyser's per-iteration values (``write_bw_avg``) are not stored --
        two thirds of an IOR output's values, which few tables ask for -- but worked out
        from the stored values when asked for."""
        if not self._repeated:
            return False
        return names is None or any(_statistic(n, self._repeated) for n in names)

    def inputs(self, names: Collection[str]) -> tuple[set[str], set[str]]:
        """The stored names :meth:`merge` reads to give ``names``: those of which it needs
        every value, and those of which the first is enough."""
        every, firsts = self._engine.inputs(names)
        every |= {n for n in names if n not in self._engine.names}
        every |= {n.rpartition("_")[0] for n in names if _statistic(n, self._repeated)}
        return every, firsts

    def _builtin_values(
        self, stored: Sequence[Stored], seen: set[tuple[int, str]]
    ) -> list[Measurement]:
        """An iteration's built-in values to pool: every per-iteration value, and the others
        when no earlier iteration gave them (``seen``); statistics are taken afresh."""
        out = []
        own: set[tuple[int, str]] = set()
        for name, record, value, unit in stored:
            if name in self._engine.names or _statistic(name, self._repeated):
                continue
            if name in self._repeated or (record, name) not in seen:
                out.append(Measurement(name, value, unit, record))
                own.add((record, name))
        seen |= own
        return out

    def _add_source(self, name: str) -> None:
        benchmark = self._benchmark
        if name in benchmark.analysers:
            self._add_analyser(benchmark.analysers[name])
        elif name in benchmark.patternsets:
            names = self._add_patternsets((name,), benchmark.patternsets[name].loc)
            self._add_rule(_FileRule(self._template(_STDOUT, self._step.loc), names))
        elif builtin.is_builtin(name):
            self._add_builtin(builtin.get(name), ())
        else:
            known = [*builtin.names(), *benchmark.patternsets, *benchmark.analysers]
            raise DefinitionError(
                f"step '{self._step.name}' is analysed with '{name}', which is neither a "
                "built-in analyser, a patternset nor an analyser of this definition",
                self._step.loc,
                did_you_mean(name, known),
            )

    def _add_analyser(self, analyser: Analyser) -> None:
        if analyser.builtin is not None:
            try:
                found = builtin.get(analyser.builtin)
            except JubexError as exc:
                raise exc.at(analyser.loc) from None
            self._add_builtin(found, tuple(f.path for f in analyser.files))
            if not analyser.use:
                return
        files = analyser.files or [AnalyseFile(_STDOUT, loc=analyser.loc)]
        shared = self._add_patternsets(analyser.use, analyser.loc)
        for item in files:
            names = shared | self._add_patternsets(item.use, item.loc or analyser.loc)
            self._add_rule(_FileRule(self._template(item.path, item.loc or analyser.loc), names))

    def _add_builtin(self, analyser: BuiltinAnalyser, files: tuple[str, ...]) -> None:
        if files:
            for path in files:
                self._add_rule(_FileRule(self._template(path, self._step.loc), builtin=analyser))
            return
        first, *others = analyser.default_files
        template = self._template(first, self._step.loc)
        self._add_rule(_FileRule(template, builtin=analyser, alternatives=tuple(others)))

    def _add_rule(self, rule: _FileRule) -> None:
        """A file read twice would count its matches twice: one rule per file and reader."""
        for known in self._rules:
            same = (known.path.text, known.builtin, known.alternatives)
            if same == (rule.path.text, rule.builtin, rule.alternatives):
                known.patterns |= rule.patterns
                return
        self._rules.append(rule)

    def _add_patternsets(self, names: tuple[str, ...], loc: Loc | None) -> frozenset[str]:
        """Register the patterns of these sets; a name defined twice differently is an error."""
        added: set[str] = set()
        for set_name in names:
            patternset = self._benchmark.patternsets.get(set_name)
            if patternset is None:
                raise DefinitionError(
                    f"no patternset '{set_name}'",
                    loc,
                    did_you_mean(set_name, self._benchmark.patternsets),
                )
            for pattern in patternset.patterns.values():
                known = self._patterns.get(pattern.name)
                if known is not None and _differs(known[0], pattern):
                    raise DefinitionError(
                        f"pattern '{pattern.name}' of patternset '{set_name}' differs from the "
                        f"one of patternset '{known[1]}', and both analyse step "
                        f"'{self._step.name}'",
                        pattern.loc or loc,
                        "rename one of them",
                    )
                self._patterns.setdefault(pattern.name, (pattern, set_name))
                added.add(pattern.name)
        return frozenset(added)

    def _template(self, text: str, loc: Loc | None) -> Template:
        return Template(text, loc or Loc(self._file), shell=False)

    def _paths(
        self, workdir: Path, rule: _FileRule, params: Mapping[str, object]
    ) -> tuple[list[Path], str]:
        """The files a rule reads, and a reason when there are none."""
        tried = [rule.path.render(params), *(rule.alternatives or ())]
        base = glob.escape(str(workdir))
        for text in tried:
            if glob.has_magic(text):
                found = [Path(p) for p in sorted(glob.glob(f"{base}/{text}")) if Path(p).is_file()]
            else:
                found = [workdir / text] if (workdir / text).is_file() else []
            if found:
                return (found if rule.alternatives is None else found[:1]), ""
        return [], f"{' or '.join(tried)}: no such file in {workdir}"


def statistics(analyser: BuiltinAnalyser, measurements: list[Measurement]) -> list[Measurement]:
    """Per record, the statistics of a built-in's per-iteration values.

    ``write_bw`` once per IOR iteration gives ``write_bw_first`` ... ``write_bw_std``, named
    and computed as for patterns, so tables treat both alike.
    """
    names = _repeated(analyser)
    repeated: dict[tuple[int, str], list[Value]] = {}
    for m in measurements:
        if m.name in names:
            repeated.setdefault((m.record, m.name), []).append(m.value)
    out: list[Measurement] = []
    for (record, name), values in repeated.items():
        keys = _statistic_units(analyser, name)
        if set(map(type, values)) <= _NUMBERS:
            stats = _numeric_statistics(values)
        else:
            found = reductions(name, values, numeric=True)
            stats = [found[key] for key, _ in keys]
        out += [
            Measurement(key, value, unit, record)
            for (key, unit), value in zip(keys, stats, strict=True)
        ]
    return out


def _numeric_statistics(values: list[Value]) -> list[Value]:
    """The :data:`STATISTICS` of numbers, in order, as :func:`reductions` gives them."""
    numbers = cast(list[float], values)
    n = len(numbers)
    total = math.fsum(numbers) if float in set(map(type, numbers)) else sum(numbers)
    mean = total / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in numbers) / (n - 1)) if n > 1 else 0.0
    return [numbers[0], numbers[-1], min(numbers), max(numbers), mean, total, n, std]


def _statistic_units(analyser: BuiltinAnalyser, name: str) -> list[tuple[str, str]]:
    """The statistics of a repeated value in order, with their units (a count has none)."""
    found = _STATISTIC_UNITS.get((analyser.name, name))
    if found is None:
        unit = analyser.metrics[name].unit
        found = [(f"{name}_{stat}", "" if stat == "cnt" else unit) for stat in STATISTICS]
        _STATISTIC_UNITS[analyser.name, name] = found
    return found


def with_statistics(
    analyser: BuiltinAnalyser, measurements: list[Measurement]
) -> list[Measurement]:
    """A built-in's measurements followed by their :func:`statistics`."""
    return measurements + statistics(analyser, measurements)


def _statistic(name: str, repeated: frozenset[str]) -> bool:
    """Whether ``name`` is a statistic of a value given once per program iteration."""
    base, _, stat = name.rpartition("_")
    return stat in STATISTICS and base in repeated


def _repeated(analyser: BuiltinAnalyser) -> frozenset[str]:
    """The names a built-in analyser gives once per iteration (always numbers)."""
    names = _REPEATED.get(analyser.name)
    if names is None:
        names = frozenset(name for name, metric in analyser.metrics.items() if metric.repeated)
        _REPEATED[analyser.name] = names
    return names


def _differs(a: Pattern, b: Pattern) -> bool:
    keys = ("regex", "type", "unit", "default", "mode", "dotall", "reduce", "json_path")
    return any(getattr(a, k) != getattr(b, k) for k in keys)


def _read(path: Path) -> tuple[str, str]:
    """The text of a file, and the problem when it cannot be read."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace"), ""
    except OSError as exc:
        return "", f"{path.name}: cannot be read ({exc.strerror or exc})"


def _stderr_of(path: Path) -> str:
    """A job's stderr next to its stdout: MPI and the program report failures there."""
    if path.name != _STDOUT:
        return ""
    stderr = path.with_name(_STDERR)
    text, problem = _read(stderr) if stderr.is_file() else ("", "")
    return "\n" + text if text and not problem else ""
