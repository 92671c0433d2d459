"""Values against what the platform can deliver: a share of a peak, and values above it.

A platform file may state its peaks (``peaks: {storage_bandwidth: 350GB/s}``); a table
column with ``peak: storage_bandwidth`` then shows its value also as a share of that peak.
A value above 100 % cannot be what the hardware delivered: most often the benchmark
measured a cache (the page cache of a node, a controller's memory), and the table flags it.
The peak is an expression, so that per-node peaks scale with the row's node count
(``memory_bandwidth_per_node * nodes``); peaks enter it in base units (B/s, ops/s).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from jubex.definition.model import Column, Table
from jubex.errors import DefinitionError, ExpressionError, did_you_mean
from jubex.plain import dataclass
from jubex.platform.model import Platform
from jubex.results.samples.units import UnitError, parse_unit
from jubex.results.tables.columns import Header, Row

if TYPE_CHECKING:
    from jubex.language.expr import Expr

#: the peaks a platform file may state (its schema lists them with their meaning)
PEAKS = (
    "network_bandwidth_per_node",
    "network_bandwidth",
    "storage_bandwidth",
    "storage_iops",
    "memory_bandwidth_per_node",
    # the published peaks of the file system the run's benchmarks wrote to (its ``filesystems``
    # entry marked default); read and write fall back to its one ``bandwidth``
    "filesystem_read_bandwidth",
    "filesystem_write_bandwidth",
)
_PEAK = re.compile(r"^\s*(?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*(?P<unit>\S+)\s*$")


def platform_peaks(platform: Platform) -> dict[str, float]:
    """The platform's peaks in base units (B/s, ops/s); an error names the key that is bad."""
    found: dict[str, float] = {}
    for name, text, key in _stated(platform):
        match = _PEAK.match(text)
        try:
            if match is None:
                raise UnitError(f"'{text}' is no number with a unit")
            unit = parse_unit(match["unit"])
        except UnitError:
            raise DefinitionError(
                f"peak '{name}' of platform '{platform.name}' is '{text}'; expected a "
                "bandwidth such as 350GB/s or a rate such as 2000000IOPS",
                platform.where(key),
            ) from None
        if unit.kind not in ("bandwidth", "rate"):
            raise DefinitionError(
                f"peak '{name}' of platform '{platform.name}' is a {unit.kind} ('{text}'); "
                "expected a bandwidth or a rate",
                platform.where(key),
            )
        found[name] = float(match["number"]) * unit.factor
    return found


def _stated(platform: Platform) -> list[tuple[str, str, str]]:
    """(peak, text, key of the platform file) of every peak the platform states."""
    stated = [(name, text, f"peaks.{name}") for name, text in platform.peaks.items()]
    target = platform.target_filesystem
    if target is not None:
        for way in ("read", "write"):
            text = getattr(target, f"{way}_bandwidth") or target.bandwidth
            if text:
                stated.append((f"filesystem_{way}_bandwidth", text, f"filesystems.{target.name}"))
    return stated


@dataclass(frozen=True, slots=True)
class PeakColumn:
    """One ``% of peak`` column: which cell it reads, how to bring it to base units."""

    header: Header
    source: int
    factor: float
    expr: Expr
    text: str
    #: the peaks it needs that the platform does not state (its cells stay missing)
    absent: tuple[str, ...] = ()


def plan_peaks(
    table: Table, headers: Sequence[Header], peaks: Mapping[str, float], known: Mapping[str, object]
) -> list[PeakColumn]:
    """A column per table column with a ``peak``, reading its first value that is no count."""
    planned = []
    for column in table.columns:
        if not column.peak:
            continue
        from jubex.language.expr import compile_expr  # only for a column with a peak

        expr = compile_expr(column.peak, column.loc)
        unknown_name = peak_names_problem(table, column, expr, known)
        if unknown_name:
            raise unknown_name
        source = _source(column, headers)
        if source is None:
            raise DefinitionError(
                f"column '{column.name}' of table '{table.name}' has a peak but no value "
                "with a unit to set against it",
                column.loc,
            )
        try:
            unit = parse_unit(headers[source].unit)
        except UnitError as error:
            raise DefinitionError(str(error), column.loc) from None
        mismatch = peak_kind_problem(table, column, expr, unit.kind, unit.text)
        if mismatch:
            raise mismatch
        name, title = headers[source].name, headers[source].title
        header = Header(f"{name}_peak", f"{title} of peak", "", ".1%")
        absent = tuple(n for n in sorted(expr.names) if n in PEAKS and n not in peaks)
        planned.append(PeakColumn(header, source, unit.factor, expr, column.peak, absent))
    return planned


def peak_names_problem(
    table: Table, column: Column, expr: Expr, known: Mapping[str, object] | set[str]
) -> DefinitionError | None:
    """A name in a column's peak that is neither a peak nor a value of the rows."""
    for name in sorted(expr.names):
        if name not in PEAKS and name not in known:
            return DefinitionError(
                f"the peak of column '{column.name}' of table '{table.name}' uses "
                f"'{name}', which is neither a peak ({', '.join(PEAKS)}) nor a value of "
                "the rows",
                column.loc,
                did_you_mean(name, [*PEAKS, *known]),
            )
    return None


def peak_kind_problem(
    table: Table, column: Column, expr: Expr, kind: str, unit: str
) -> DefinitionError | None:
    """A bandwidth set against the IOPS peak, or a rate against a bandwidth peak."""
    for name in sorted(expr.names & set(PEAKS)):
        wanted = "rate" if name == "storage_iops" else "bandwidth"
        if kind != wanted:
            return DefinitionError(
                f"column '{column.name}' of table '{table.name}' is a {kind} "
                f"({unit}), its peak '{name}' a {wanted}: they do not compare",
                column.loc,
            )
    return None


def _source(column: Column, headers: Sequence[Header]) -> int | None:
    """The column's first output cell that is a value with a unit (its mean, say)."""
    names = [f"{column.name}_{stat}" for stat in column.stats] or [column.name]
    index = {header.name: i for i, header in enumerate(headers)}
    found = [index[n] for n in names if n in index and headers[index[n]].unit]
    return found[0] if found else None


def share(
    column: PeakColumn, cells: Sequence[object], row: Row, peaks: Mapping[str, float]
) -> float | None:
    """The value as a share of its peak (1.0 = 100 %); None when either is missing."""
    value = cells[column.source]
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    env = {name: peaks.get(name, row.get(name)) for name in column.expr.names}
    if any(v is None for v in env.values()):
        return None
    try:
        peak = column.expr.evaluate(env)
    except ExpressionError:
        return None
    if not isinstance(peak, int | float) or peak <= 0:
        return None
    return value * column.factor / peak


def above_peak(column: PeakColumn, value: float) -> str:
    """The flag of a value beyond what the hardware can deliver."""
    name = column.header.name.removesuffix("_peak")
    return f"above peak: {name} {value:.0%} of {column.text} (likely a cache effect)"
