"""Units of what benchmarks print: sizes, rates and times, and conversion between them.

Benchmarks print the same quantity in many spellings (``MiB/sec``, ``MiB/s``; ``usec``,
``us``; ``kiops``, ``kIOPS``). Analysers normalise them here so that every value leaves
with one canonical unit, and values matched in different units can be combined.
Binary prefixes (``Ki``, ``Mi``...) are powers of 1024; SI prefixes (``k``/``K``, ``M``...)
are powers of 1000.
"""

from __future__ import annotations

import re
from fractions import Fraction

# exact factors, so that converting 255 usec to us gives 255.0 and not 254.99999999999997
_PREFIXES = {"": Fraction(1), "k": Fraction(10**3), "K": Fraction(10**3)}
_PREFIXES |= {p: Fraction(10 ** (3 * i)) for i, p in enumerate("MGTPE", start=2)}
_PREFIXES |= {f"{p}i": Fraction(2 ** (10 * i)) for i, p in enumerate("KMGTPE", start=1)}
_TIMES = {"ns": Fraction(1, 10**9), "nsec": Fraction(1, 10**9), "us": Fraction(1, 10**6)}
_TIMES |= {"usec": Fraction(1, 10**6), "µs": Fraction(1, 10**6), "ms": Fraction(1, 1000)}
_TIMES |= {"msec": Fraction(1, 1000), "s": Fraction(1), "sec": Fraction(1), "seconds": Fraction(1)}
_TIMES |= {"min": Fraction(60), "h": Fraction(3600)}
_CANONICAL_TIMES = {
    "nsec": "ns",
    "usec": "us",
    "µs": "us",
    "msec": "ms",
    "sec": "s",
    "seconds": "s",
}
_PREFIX = r"(?P<prefix>[KMGTPE]i|[kKMGTPE])?"
_BYTES = re.compile(rf"^{_PREFIX}(?P<base>B|bytes?)(?P<per>/(?:s|sec))?$")
_OPS = re.compile(
    r"^(?P<prefix>[kKMGTPE])?(?P<base>ops|op|IOPS|iops|files|items)(?P<per>/(?:s|sec))?$"
)

#: the quantity a canonical unit measures, used to refuse converting MiB/s into ops/s
SIZE, BANDWIDTH, RATE, TIME = "size", "bandwidth", "rate", "time"


def parse_unit(unit: str) -> tuple[str, str, float]:
    """``(canonical spelling, quantity, factor to the quantity's base unit)``.

    Base units: bytes, bytes/s, ops/s, seconds. Raises :class:`ValueError` for a unit
    that is not a size, bandwidth, operation rate or time.
    """
    name, quantity, factor = _parse(unit)
    return name, quantity, float(factor)


def _parse(unit: str) -> tuple[str, str, Fraction]:
    text = unit.strip()
    if text in _TIMES:
        return _CANONICAL_TIMES.get(text, text), TIME, _TIMES[text]
    match = _BYTES.match(text)
    if match:
        prefix = match["prefix"] or ""
        if match["per"]:
            return f"{prefix}B/s", BANDWIDTH, _PREFIXES[prefix]
        return f"{prefix}B", SIZE, _PREFIXES[prefix]
    match = _OPS.match(text)
    if match and (match["per"] or match["base"].lower() == "iops"):
        prefix = match["prefix"] or ""
        name = f"{prefix}IOPS" if match["base"].lower() == "iops" else f"{prefix}ops/s"
        return name, RATE, _PREFIXES[prefix]
    raise ValueError(f"unknown unit '{unit}'")


def canonical(unit: str) -> str:
    """The one spelling jubex uses for a unit (``MiB/sec`` -> ``MiB/s``); unknown units as given."""
    try:
        return _parse(unit)[0]
    except ValueError:
        return unit


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``; ValueError across quantities."""
    if from_unit == to_unit:
        return value
    _, quantity, factor = _parse(from_unit)
    _, target_quantity, target_factor = _parse(to_unit)
    if quantity != target_quantity:
        raise ValueError(
            f"cannot convert {from_unit} ({quantity}) to {to_unit} ({target_quantity})"
        )
    ratio = factor / target_factor
    return value * float(ratio) if ratio >= 1 else value / float(1 / ratio)
