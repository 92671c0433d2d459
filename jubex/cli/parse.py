"""``jubex parse``: apply an analyser to any output file and show what it extracts.

Without ``--definition`` the analyser is a built-in one (``ior``, ``mdtest``, ``fio``,
``io500``); with it, also a patternset or an analyser of that definition. The exit status
is 1 when a file is a failed run, after everything found in it has been printed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from rich.console import Console
from rich.table import Table

from jubex.analysis import builtin
from jubex.analysis.harvest import with_statistics
from jubex.analysis.measurement import BuiltinAnalyser, ParseResult
from jubex.analysis.patterns import PatternEngine
from jubex.api import load
from jubex.cli.common import REPORT_FORMATS, add_format
from jubex.definition.model import Benchmark, Pattern
from jubex.errors import JubexError, UsageError, did_you_mean, no_such_file
from jubex.results.tables.cells import column_spec, format_value
from jubex.results.tables.formats import render
from jubex.results.tables.table import Header, ResultTable
from jubex.store.measurement import Measurement

#: the summary cuts texts longer than this (``--all`` shows them whole)
LONG = 60

#: output text -> what an analyser finds in it
_Parse = Callable[[str], ParseResult]


#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex parse ior ior.out", "IOR's numbers of any output file"),
    ("jubex parse mdtest mdtest.out -a", "every value found, and its statistics"),
    ("jubex parse fio run.json -f json", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "analyser",
        metavar="ANALYSER",
        help="a built-in analyser, or a patternset or analyser of the --definition",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="output files to read")
    add_format(parser, REPORT_FORMATS, "pretty")
    parser.add_argument(
        "-a",
        "--all",
        action="store_true",
        help="list every value found and the statistics over iterations, not a summary "
        "(JSON always has everything)",
    )
    parser.add_argument(
        "-d",
        "--definition",
        metavar="FILE",
        help="definition whose patternsets and analysers may be named",
    )


def handle(args: argparse.Namespace) -> int:
    everything = args.all or args.format == "json"
    reader = _path_reader(args.analyser, args.definition)
    if reader is not None:
        results = [(name, reader(_existing(name), {})) for name in args.files]
    else:
        parse = _parser(args.analyser, args.definition, statistics=everything)
        results = [(name, parse(_read(name))) for name in args.files]
    if args.format == "json":
        json.dump(_document(results), sys.stdout, indent=2)
        print()
    elif args.all:
        _tables(results)
    else:
        _summaries(results)
    return 0 if all(result.ok for _, result in results) else 1


def _path_reader(
    name: str, definition: str | None
) -> Callable[[Path, Mapping[str, object]], ParseResult] | None:
    """The reader of a built-in that reads binary files by path (``darshan``), else None."""
    if definition is not None or not builtin.is_builtin(name):
        return None
    return builtin.get(name).read


def _existing(name: str) -> Path:
    path = Path(name)
    if not path.is_file():
        raise no_such_file(name)
    return path


def _parser(name: str, definition: str | None, *, statistics: bool = True) -> _Parse:
    """A function from output text to ParseResult for the analyser named on the command line.

    With ``statistics``, a built-in's values per iteration are followed by their statistics.
    """
    if definition is None:
        try:
            return _builtin_parser(builtin.get(name), statistics)
        except JubexError as exc:
            raise UsageError(exc.message, hint=exc.hint) from None
    benchmark = load(definition)
    patterns = _patterns(benchmark, name)
    analyser = benchmark.analysers.get(name)
    if analyser is not None and analyser.builtin:
        return _combined(_builtin_parser(builtin.get(analyser.builtin), statistics), patterns)
    if patterns is not None:
        return _combined(None, patterns)
    if builtin.is_builtin(name):
        return _builtin_parser(builtin.get(name), statistics)
    known = [*builtin.names(), *benchmark.patternsets, *benchmark.analysers]
    raise UsageError(
        f"'{name}' is neither a built-in analyser nor a patternset or analyser of {definition}",
        hint=did_you_mean(name, known),
    )


def _patterns(benchmark: Benchmark, name: str) -> list[Pattern] | None:
    """The patterns a patternset or an analyser (all its files' sets) brings, or None."""
    if name in benchmark.patternsets:
        sets = [name]
    elif name in benchmark.analysers:
        analyser = benchmark.analysers[name]
        sets = [*analyser.use, *(s for f in analyser.files for s in f.use)]
        if not sets:
            return None
    else:
        return None
    found: dict[str, Pattern] = {}
    for set_name in sets:
        if set_name not in benchmark.patternsets:
            raise UsageError(f"analyser '{name}' uses an unknown patternset '{set_name}'")
        found.update(benchmark.patternsets[set_name].patterns)
    return list(found.values())


def _builtin_parser(analyser: BuiltinAnalyser, statistics: bool) -> _Parse:
    def parse(text: str) -> ParseResult:
        result = analyser.parse(text)
        if not statistics:
            return result
        return ParseResult(with_statistics(analyser, result.measurements), result.ok, result.reason)

    return parse


def _combined(first: _Parse | None, patterns: list[Pattern] | None) -> _Parse:
    engine = PatternEngine(patterns or [])

    def parse(text: str) -> ParseResult:
        result = first(text) if first is not None else ParseResult()
        found = engine.measure(engine.scan(text, {}), {}) if patterns else []
        return ParseResult(found + result.measurements, result.ok, result.reason)

    return parse


def _read(name: str) -> str:
    try:
        return Path(name).read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise no_such_file(name) from None
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


def _plain(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _document(results: list[tuple[str, ParseResult]]) -> dict[str, list[dict[str, object]]]:
    return {
        "measurements": [
            {
                "file": name,
                "record": m.record,
                "name": m.name,
                "value": _plain(m.value),
                "unit": m.unit,
            }
            for name, result in results
            for m in result.measurements
        ],
        "files": [{"file": name, "ok": r.ok, "reason": r.reason} for name, r in results],
    }


def _tables(results: list[tuple[str, ParseResult]]) -> None:
    console = Console(highlight=False)
    for name, result in results:
        records: dict[int, list[Measurement]] = {}
        for m in result.measurements:
            records.setdefault(m.record, []).append(m)
        for record, measurements in sorted(records.items()):
            title = name if len(records) == 1 else f"{name} (record {record})"
            table = Table("name", "value", "unit", title=title, title_justify="left")
            for m in measurements:
                table.add_row(m.name, "missing" if m.value is None else str(m.value), m.unit)
            console.print(table)
        if not result.measurements:
            console.print(f"{name}: nothing found")
        if not result.ok:
            console.print(f"{name}: failed run: {result.reason}")


def _summaries(results: list[tuple[str, ParseResult]]) -> None:
    """A table per file and record, a row per name: a repeated value as its mean, n, range."""
    for name, result in results:
        records: dict[int, list[Measurement]] = {}
        for m in result.measurements:
            records.setdefault(m.record, []).append(m)
        for record, measurements in sorted(records.items()):
            title = name if len(records) == 1 else f"{name} (record {record})"
            print(render(_summary(title, measurements), "pretty"), end="")
        if not result.measurements:
            print(f"{name}: nothing found")
        if not result.ok:
            print(f"{name}: failed run: {result.reason}")


def _summary(title: str, measurements: list[Measurement]) -> ResultTable:
    by_name: dict[str, list[Measurement]] = {}
    for m in measurements:
        by_name.setdefault(m.name, []).append(m)
    rows: list[list[object]] = []
    for key, found in by_name.items():
        values = [m.value for m in found]
        numbers = [
            float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        if len(values) > 1 and len(numbers) == len(values):
            mean = _short(sum(numbers) / len(numbers))
            shown = f"{mean} (n={len(numbers)}, {_short(min(numbers))} … {_short(max(numbers))})"
        else:
            shown = ", ".join(_short(v) for v in values)
        rows.append([key, shown, found[0].unit])
    notes = []
    if any(len(found) > 1 for found in by_name.values()):
        notes = ["a value found once per iteration: its mean (n, min … max); -a: every value"]
    return ResultTable(title, [Header(h, h) for h in ("name", "value", "unit")], rows, notes)


def _short(value: object) -> str:
    """A value as a person reads it: about four significant digits, a long text cut short."""
    text = format_value(value, column_spec([value]), "missing", floats_only=True)
    return text if len(text) <= LONG else text[: LONG - 1] + "…"
