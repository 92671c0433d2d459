"""Patterns: typed regular expressions over benchmark output, with JUBE's semantics.

JUBE's rules are kept so that an existing patternset gives the same numbers here:

* a regex runs with ``MULTILINE`` (plus ``DOTALL`` on request) over the whole file, and every
  match counts; with one group the group is the value, with several groups every non-empty
  group of every match is a value, in order (so alternatives ``(a)|(b)`` give one value per
  match); a match that does not convert to the pattern's type is dropped;
* the plain name is the first match; ``_std`` is the sample standard deviation (n - 1),
  0 for a single match; min, max, avg, sum and std exist for numeric patterns only;
* a pattern that never matches takes its ``default`` (count 0, std 0, the other statistics
  the default), and without a default it is *missing*: ``None``, never a zero;
* with an analyser's ``reduce``, the iterations of one parameter point share one pool of
  matches: :meth:`PatternEngine.matches_of` gives back what each iteration stored, and
  :meth:`PatternEngine.measure` takes the statistics over the pool.

jubex adds ``$jubex_pat_size`` (a size such as ``16 MiB``, typed as bytes), ``$jubex_pat_rate``
(a rate such as ``1.5 GiB/s`` whose unit is captured and normalised), patterns that pick
values from a JSON file (``json_path``) and derived patterns (``mode: expr``) computed by the
safe expression language from other patterns and parameters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

from jubex.analysis import jsonpath, typed, units
from jubex.analysis.derived import DerivedPattern, ExprPattern, ordered, typed_default
from jubex.analysis.scripted import ShellPattern
from jubex.definition.model import STATISTICS, Pattern
from jubex.errors import DefinitionError, JubexError, Loc, did_you_mean
from jubex.language.builtins import FUNCTIONS
from jubex.language.template import Template
from jubex.store.measurement import Measurement, Value

_FP = r"[+-]?(?:\d*\.?\d+(?:[eE][-+]?\d+)?|\d+\.)"
_UFP = r"(?:\d*\.?\d+(?:[eE][-+]?\d+)?|\d+\.)"
_SIZE_UNIT = r"(?:[kKMGTPE]i?B|[kKMGTPE]|B|bytes?)(?![\w/])"
_RATE_UNIT = (
    r"(?:(?:[kKMGTPE]i?)?B/(?:sec|s)|[kKMGTPE]?(?:ops|op|files|items)/(?:sec|s)"
    r"|[kKMGTPE]?(?:IOPS|iops))(?![\w/])"
)

#: ``$name`` -> regex text; JUBE's seven with JUBE's exact regexes, then jubex's own
BUILTIN_PATTERNS: dict[str, str] = {
    "jube_pat_int": r"([+-]?\d+)",
    "jube_pat_nint": r"(?:[+-]?\d+)",
    "jube_pat_fp": rf"({_FP})",
    "jube_pat_nfp": rf"(?:{_FP})",
    "jube_pat_wrd": r"(\S+)",
    "jube_pat_nwrd": r"(?:\S+)",
    "jube_pat_bl": r"(?:\s+)",
    "jubex_pat_size": rf"({_UFP} ?{_SIZE_UNIT})",
    "jubex_pat_rate": rf"({_FP} ?{_RATE_UNIT})",
}
_BUILTIN_REF = re.compile(r"\$(?:\{(jubex?_pat_\w+)\}|(jubex?_pat_\w+))")
_RATE_PARTS = re.compile(rf"^({_FP}) ?(\S+)$")
_NUMERIC_TYPES = ("int", "float", "size", "duration")
_BASE_UNIT = {"size": "B", "duration": "s"}
_LITERAL_START = re.compile(r"\^[A-Za-z0-9_ :=,#/-]")


#: a value as the run store gives it back: name, record, value, unit
Stored = tuple[str, int, Value, str]


@dataclass(slots=True)
class Matches:
    """The typed values one pattern matched, all in one unit (rates are converted into it)."""

    values: list[Value] = field(default_factory=list)
    unit: str = ""

    def extend(self, other: Matches) -> None:
        """Add another file's matches, converting rates into this unit."""
        if other.values and self.unit and other.unit and other.unit != self.unit:
            other = Matches(_convert_all(other.values, other.unit, self.unit), self.unit)
        self.values.extend(other.values)
        self.unit = self.unit or other.unit


def reductions(
    name: str,
    values: Sequence[Value],
    stats: Sequence[str] = STATISTICS,
    numeric: bool | None = None,
) -> dict[str, Value]:
    """``name`` (the first value) and ``name_<stat>``; all ``None`` but ``_cnt`` when empty.

    ``numeric``: whether the values are numbers (min, max, avg, sum, std exist only then);
    ``None`` looks at the values.
    """
    n = len(values)
    if numeric is None:
        numeric = bool(values) and all(_is_number(v) for v in values)
    first, last = (values[0], values[-1]) if n else (None, None)
    table: dict[str, Value] = {"first": first, "last": last, "cnt": n}
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if numeric and n and len(numbers) == n:
        total = _sum(numbers)
        mean = total / n
        std = _sample_std(numbers, mean) if n > 1 else 0.0
        table |= {"min": min(numbers), "max": max(numbers), "sum": total, "avg": mean, "std": std}
    elif numeric:
        table |= dict.fromkeys(("min", "max", "sum", "avg", "std"))
    out: dict[str, Value] = {name: first}
    out.update((f"{name}_{stat}", table[stat]) for stat in stats if stat in table)
    return out


class PatternEngine:
    """Patterns compiled once, applied to many outputs.

    Regexes without parameters compile here; regexes with ``$param`` compile once per
    distinct text after substitution. Derived patterns are ordered by their dependencies here.
    """

    def __init__(self, patterns: Sequence[Pattern], file: str = "") -> None:
        self._file = file
        derived = ("expr", "python", "shell")
        self._scanners = [_Scanner(p, file) for p in patterns if p.mode not in derived]
        self._derived = ordered(
            [
                ShellPattern(p, file) if p.mode == "shell" else ExprPattern(p, file)
                for p in patterns
                if p.mode in derived
            ]
        )
        self._regex_cache: dict[tuple[str, bool], _Regex] = {}
        self._by_name = {s.pattern.name: s for s in self._scanners}
        self.names = {f"{n}_{stat}" for n in self._by_name for stat in STATISTICS}
        self.names |= self._by_name.keys() | {d.pattern.name for d in self._derived}
        for item in self._derived:
            if item.pattern.mode == "python":  # what else it reads, it imports itself
                item.names &= self.names
            else:  # a function passed as a value (map(float, xs)) is no missing pattern
                item.names -= FUNCTIONS.keys() - self.names

    def scan(
        self, text: str, params: Mapping[str, object], only: Collection[str] | None = None
    ) -> dict[str, Matches]:
        """Typed matches per (scanned) pattern name; ``only`` restricts to some names."""
        found: dict[str, Matches] = {}
        document: object = _UNPARSED
        lined = ""
        for scanner in self._scanners:
            if only is not None and scanner.pattern.name not in only:
                continue
            if scanner.json_path is not None:
                if document is _UNPARSED:
                    document = jsonpath.load(text)
                raw = jsonpath.pick(document, scanner.json_path)
            else:
                regex = self._regex(scanner, params)
                if regex.lined and not lined:
                    lined = "\n" + text
                raw = _findall(regex.regex, lined if regex.lined else text)
            found[scanner.pattern.name] = scanner.typed(raw)
        return found

    def measure(
        self, matches: Mapping[str, Matches], params: Mapping[str, object]
    ) -> list[Measurement]:
        """Raw matches (one measurement each), their statistics, then derived patterns."""
        out: list[Measurement] = []
        values: dict[str, object] = {}
        for scanner in self._scanners:
            name = scanner.pattern.name
            got = matches.get(name)
            if got is None:
                continue
            unit = got.unit or scanner.unit
            stats = scanner.statistics(got.values)
            values.update(stats)
            raw = got.values or [stats[name]]
            out.extend([Measurement(name, v, unit) for v in raw])
            out.extend(
                Measurement(key, v, "" if key.endswith("_cnt") else unit)
                for key, v in stats.items()
                if key != name
            )
        for derived, value in self._derive(values, params):
            out.append(Measurement(derived.pattern.name, value, derived.pattern.unit))
        return out

    def summary(
        self, matches: Mapping[str, Matches], params: Mapping[str, object]
    ) -> dict[str, object]:
        """What a result row shows of :meth:`measure`: each pattern's first value and its
        statistics, and the derived patterns (not the single matches)."""
        values: dict[str, object] = {}
        for scanner in self._scanners:
            got = matches.get(scanner.pattern.name)
            if got is not None:
                values.update(scanner.statistics(got.values))
        for derived, value in self._derive(values, params):
            values[derived.pattern.name] = value
        return values

    def _derive(
        self, values: Mapping[str, object], params: Mapping[str, object]
    ) -> Iterator[tuple[DerivedPattern, Value]]:
        """Each derived pattern and its value, from the patterns' values and the parameters."""
        env = {**params, **values}
        for derived in self._derived:
            value = derived.evaluate(env)
            env[derived.pattern.name] = value
            yield derived, _plain(value)

    def matches_of(self, stored: Iterable[Stored]) -> dict[str, Matches]:
        """The matches behind what :meth:`measure` gave for one work directory, per pattern.

        The stand-in value of a pattern that matched nothing (its default, or ``None``) is no
        match; the stored count tells the two apart (it is kept for patterns with a default).
        """
        values: dict[str, list[Stored]] = {}
        counts: dict[str, object] = {}
        by_name = self._by_name
        for (name, record), rows in groupby(stored, itemgetter(0, 1)):
            if record:
                continue
            if name in by_name:
                values.setdefault(name, []).extend(rows)
            elif name.endswith("_cnt") and name[:-4] in by_name:
                counts[name[:-4]] = next(rows)[2]
        found: dict[str, Matches] = {}
        for name, kept in values.items():
            got = [row[2] for row in kept]
            count = counts.get(name)
            if count == 0 or (count is None and got == [None]):
                found[name] = Matches()
                continue
            if by_name[name].type == "bool":  # the store keeps a bool as its word
                got = [typed.convert(v, "bool") for v in got]
            found[name] = Matches(got, kept[0][3])
        return found

    def inputs(self, names: Collection[str]) -> tuple[set[str], set[str]]:
        """What :meth:`matches_of` must read so that :meth:`summary` gives ``names`` right:
        the stored names of which every value is needed, and those of which the first is
        enough (a pattern only shown as its first match). Derived patterns need what they use.
        """
        derived = {d.pattern.name: d for d in self._derived}
        wanted = set(names)
        todo = [n for n in wanted if n in derived]
        while todo:
            for used in derived[todo.pop()].names - wanted:
                wanted.add(used)
                if used in derived:
                    todo.append(used)
        stats: dict[str, set[str]] = {}
        for name in wanted:
            base, _, stat = name.rpartition("_")
            if name in self._by_name:
                stats.setdefault(name, set()).add("first")
            if stat in STATISTICS and base in self._by_name:
                stats.setdefault(base, set()).add(stat)
        every = {f"{name}_cnt" for name in stats}
        every |= {name for name, used in stats.items() if used - {"first"}}
        return every, stats.keys() - every

    def _regex(self, scanner: _Scanner, params: Mapping[str, object]) -> _Regex:
        if scanner.regex is not None:
            return scanner.regex
        text = scanner.render(params)
        key = (text, scanner.pattern.dotall)
        regex = self._regex_cache.get(key)
        if regex is None:
            regex = self._regex_cache[key] = _compile(text, scanner.pattern, self._file)
        return regex


class _Scanner:
    """One regex or JSON pattern: its text with built-ins substituted, and how to type it."""

    def __init__(self, pattern: Pattern, file: str) -> None:
        self.pattern = pattern
        self.loc = pattern.loc or Loc(file)
        self.rate = _uses(pattern.regex, "jubex_pat_rate")
        self.type = pattern.type
        if self.type == "str" and _uses(pattern.regex, "jubex_pat_size"):
            self.type = "size"
        self.unit = pattern.unit or _BASE_UNIT.get(self.type, "")
        self._check_unit()
        # typed values are numbers by construction; JSON values of a str pattern may be too
        numeric = self.rate or self.type in _NUMERIC_TYPES
        self.numeric = True if numeric else (None if pattern.json_path else False)
        self.default = self._typed_default()
        # with a default, the count tells a match of the default's value from no match
        self.stats = pattern.reduce
        if self.default is not None and "cnt" not in self.stats:
            self.stats = (*self.stats, "cnt")
        self.json_path = _json_path(pattern, self.loc) if pattern.json_path else None
        self.regex: _Regex | None = None
        self._template: Template | None = None
        if self.json_path is None:
            text = _substitute_builtins(pattern.regex, self.loc)
            self._template = Template(text, self.loc, shell=False)
            if not self._template.names:
                self.regex = _compile(self._template.render({}), pattern, file)

    def render(self, params: Mapping[str, object]) -> str:
        assert self._template is not None
        try:
            return self._template.render(params)
        except JubexError as exc:
            raise exc.at(self.loc) from None

    def typed(self, raw: list[object]) -> Matches:
        if self.rate:
            return _typed_rates(raw, self.pattern.unit)
        values = []
        for item in raw:
            try:
                values.append(self._typed_value(item))
            except (ValueError, OverflowError, JubexError):
                continue
        return Matches(values, self.unit)

    def statistics(self, values: list[Value]) -> dict[str, Value]:
        name, stats = self.pattern.name, self.stats
        if values or self.default is None:
            return reductions(name, values, stats, self.numeric)
        out = reductions(name, [self.default], stats, self.numeric)
        if f"{name}_cnt" in out:
            out[f"{name}_cnt"] = 0
        return out

    def _typed_value(self, item: object) -> Value:
        value = typed.convert(item, self.type)
        if self.type in _BASE_UNIT and self.unit != _BASE_UNIT[self.type]:
            return units.convert(_as_float(value), _BASE_UNIT[self.type], self.unit)
        return value

    def _typed_default(self) -> Value:
        if self.pattern.default is None:
            return None
        return typed_default(self.pattern, self._convert_default, self.loc)

    def _convert_default(self, item: object) -> Value:
        return _as_float(item) if self.rate else self._typed_value(item)

    def _check_unit(self) -> None:
        if not self.pattern.unit or not (self.rate or self.type in _BASE_UNIT):
            return
        try:
            units.parse_unit(self.pattern.unit)
            if self.type in _BASE_UNIT and not self.rate:
                units.convert(1.0, _BASE_UNIT[self.type], self.pattern.unit)
        except ValueError as exc:
            raise DefinitionError(
                f"pattern '{self.pattern.name}': {exc}; expected a unit of its type "
                f"{'rate' if self.rate else self.type}",
                self.loc,
            ) from None


def _uses(regex: str, builtin: str) -> bool:
    return f"${builtin}" in regex or f"${{{builtin}}}" in regex


def _substitute_builtins(regex: str, loc: Loc) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if name not in BUILTIN_PATTERNS:
            hint = did_you_mean(name, BUILTIN_PATTERNS)
            raise DefinitionError(f"unknown built-in pattern '${name}'", loc, hint)
        return BUILTIN_PATTERNS[name]

    return _BUILTIN_REF.sub(replace, regex)


class _Regex(NamedTuple):
    """A compiled regex; ``lined``: it runs over the text with a newline put in front."""

    regex: re.Pattern[str]
    lined: bool


def _compile(text: str, pattern: Pattern, file: str) -> _Regex:
    """Compile once; ``^word...`` becomes ``\nword...`` over ``"\n" + text``.

    Both find the same groups (``^`` matches after every newline, and the added one stands
    for the start of the text), but Python's engine scans for a literal start several times
    faster than it tries ``^`` at every position. Patterns without groups stay as written,
    since their value is the whole match.
    """
    flags = re.MULTILINE | (re.DOTALL if pattern.dotall else 0)
    try:
        if _LITERAL_START.match(text):
            lined = re.compile("\n" + text[1:], flags)
            if lined.groups:
                return _Regex(lined, True)
        return _Regex(re.compile(text, flags), False)
    except re.error as exc:
        raise DefinitionError(
            f"pattern '{pattern.name}' is not a valid regular expression ({exc}): {text}",
            pattern.loc or Loc(file),
        ) from None


def _findall(regex: re.Pattern[str], text: str) -> list[object]:
    found = regex.findall(text)
    if regex.groups > 1:
        return [group for groups in found for group in groups if group]
    return [item for item in found if item]


def _typed_rates(raw: list[object], unit: str) -> Matches:
    out = Matches([], units.canonical(unit) if unit else "")
    for item in raw:
        match = _RATE_PARTS.match(str(item).strip())
        if not match:
            continue
        value, matched_unit = float(match[1]), units.canonical(match[2])
        if not out.unit:
            out.unit = matched_unit
        try:
            out.values.append(units.convert(value, matched_unit, out.unit))
        except ValueError:
            continue
    return out


def _json_path(pattern: Pattern, loc: Loc) -> list[jsonpath.Step]:
    try:
        return jsonpath.parse_path(pattern.json_path or "")
    except ValueError as exc:
        raise DefinitionError(
            f"json_path '{pattern.json_path}' of pattern '{pattern.name}' is not a dotted path "
            f"({exc})",
            loc,
        ) from None


_UNPARSED = object()


def _convert_all(values: list[Value], from_unit: str, to_unit: str) -> list[Value]:
    try:
        return [units.convert(_as_float(v), from_unit, to_unit) for v in values]
    except (ValueError, TypeError):
        return []


def _as_float(value: object) -> float:
    """A number, or the text of one, as a float; TypeError for anything else."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"not a number: {value!r}")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sum(values: Sequence[float | int]) -> float | int:
    """Integers add exactly; a float among them makes it an exactly rounded float sum."""
    if any(isinstance(v, float) for v in values):
        return math.fsum(values)
    return sum(values)


def _sample_std(values: Sequence[float], mean: float) -> float:
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


def _plain(value: object) -> float | int | str | bool | None:
    """A value a Measurement can hold (JSON strings stay strings, other objects become text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
