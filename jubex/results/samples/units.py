"""Conversion between units of one kind, for table columns that ask for another unit.

The units themselves (spellings, prefixes, kinds) are those the analysers normalise to, read
by :func:`jubex.analysis.units.parse_unit`, so that a table converts exactly what an analyser
produced: binary prefixes (Ki, Mi, Gi, ...) are powers of 1024, decimal ones (k, M, G, ...)
powers of 1000. Every unit is a multiple of its kind's base unit (B, B/s, ops/s, s), so a
conversion is one multiplication and applies to spreads (std, confidence intervals) as well.
"""

from __future__ import annotations

from jubex.analysis.units import parse_unit as _parse_unit
from jubex.errors import JubexError, Loc, did_you_mean
from jubex.plain import dataclass

#: spellings offered when a unit is not recognised
COMMON_UNITS = (
    *("B", "KiB", "MiB", "GiB", "TiB", "kB", "MB", "GB", "TB"),
    *("B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "kB/s", "MB/s", "GB/s", "TB/s"),
    *("ops/s", "kops/s", "Mops/s", "IOPS", "kIOPS"),
    *("ns", "us", "ms", "s", "min", "h"),
)


class UnitError(JubexError):
    """A unit is unknown, or a conversion between units of different kinds was asked for."""

    exit_code = 2  # bad input


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit as a multiple of its kind's base unit."""

    text: str
    kind: str
    factor: float


def parse_unit(text: str, loc: Loc | None = None) -> Unit:
    """The unit spelled ``text`` (``MiB/sec`` and ``MiB/s`` are the same unit)."""
    try:
        canonical, kind, factor_ = _parse_unit(text)
    except ValueError:
        raise UnitError(
            f"unknown unit '{text}'; expected a size (B, KiB, MB, ...), a bandwidth "
            "(MiB/s, GB/s, ...), a rate (ops/s, kIOPS, ...) or a time (ns, us, ms, s, min, h)",
            loc,
            did_you_mean(text.strip(), COMMON_UNITS),
        ) from None
    return Unit(canonical, kind, factor_)


def factor(from_unit: str, to_unit: str, loc: Loc | None = None) -> float:
    """The number a value in ``from_unit`` is multiplied by to be in ``to_unit``."""
    if from_unit.strip() == to_unit.strip():
        return 1.0
    source, target = parse_unit(from_unit, loc), parse_unit(to_unit, loc)
    if source.kind != target.kind:
        raise UnitError(
            f"cannot convert {source.kind} '{from_unit}' to {target.kind} '{to_unit}': "
            "only units of the same kind convert into each other",
            loc,
        )
    return source.factor / target.factor


def convert(value: float, from_unit: str, to_unit: str, loc: Loc | None = None) -> float:
    """``value`` given in ``from_unit``, expressed in ``to_unit``."""
    return value * factor(from_unit, to_unit, loc)


def direction_of_unit(text: str) -> bool | None:
    """Whether higher is better, as a unit says: rates (anything per second) higher, times
    lower; None for sizes, counts and units that say nothing."""
    try:
        kind = parse_unit(text).kind
    except UnitError:
        unit = text.strip()
        return True if unit.endswith(("/s", "/sec", "/second")) else None
    return {"bandwidth": True, "rate": True, "time": False}.get(kind)
