"""What the file system saw of each point, as Darshan recorded it: the access-size histogram
of its reads and writes and the insights the ``darshan`` analyser flagged.

The report shows one profile per workpackage that has Darshan's values, beside the tables
of the benchmark's own numbers, so that a bandwidth that surprises can be read against the
requests that made it (a 1 MiB transfer that reached the file system as 4 KiB requests).
The values are the analysed ones of the store: nothing here reads a log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jubex.store.rundir import Run
from jubex.store.store import DONE

#: Darshan's access-size bins (its POSIX_SIZE_* counters), as the analyser names them; a
#: bin holds the sizes up to its bound (1 MiB requests count in 100K_1M: "≤ 1 MiB")
BINS = (
    ("0_100", "≤ 100 B"),
    ("100_1k", "≤ 1 KiB"),
    ("1k_10k", "≤ 10 KiB"),
    ("10k_100k", "≤ 100 KiB"),
    ("100k_1m", "≤ 1 MiB"),
    ("1m_4m", "≤ 4 MiB"),
    ("4m_10m", "≤ 10 MiB"),
    ("10m_100m", "≤ 100 MiB"),
    ("100m_1g", "≤ 1 GiB"),
    ("1g_plus", "> 1 GiB"),
)
OPERATIONS = ("read", "write")
#: the analyser's flags of a workpackage, one text, comma-separated
FLAGS = "darshan_insights"
#: profiles a report shows; more are one command away (jubex result)
MAX_PROFILES = 200


def bin_name(operation: str, key: str) -> str:
    """The analysed value of one bin: requests of that size, summed over the ranks."""
    return f"posix_{operation}_size_{key}"


NAMES = frozenset({FLAGS, *(bin_name(op, key) for op in OPERATIONS for key, _ in BINS)})


@dataclass
class Bar:
    """One bin of a histogram: its label, its reads and writes and their share of the
    point's largest bin (the width the report draws)."""

    label: str
    reads: int
    writes: int
    read_share: float
    write_share: float


@dataclass
class Profile:
    """One workpackage's access sizes and flags."""

    title: str
    bars: list[Bar]
    flags: list[str]


def io_profiles(run: Run, limit: int = MAX_PROFILES) -> list[Profile]:
    """The profiles of a run's finished workpackages that Darshan's values describe."""
    done = run.store.workpackages(states=[DONE])
    values = run.store.values_of([wp.id for wp in done], NAMES)
    done = [wp for wp in done if values.get(wp.id)]
    varying = _varying([wp.point for wp in done])
    found = []
    for wp in done:
        point = {k: v for k, v in wp.point.items() if k in varying}
        profile = profile_of(_firsts(values[wp.id]), _title(wp.step, wp.id, point))
        if profile is not None:
            found.append(profile)
            if len(found) == limit:
                break
    return found


def profile_of(values: Mapping[str, object], title: str) -> Profile | None:
    """A profile from one workpackage's values (name to first value); None without any bin."""
    counts = {
        (op, key): _count(values.get(bin_name(op, key))) for op in OPERATIONS for key, _ in BINS
    }
    if all(count is None for count in counts.values()):
        return None
    largest = max((c for c in counts.values() if c is not None), default=0) or 1
    bars = []
    for key, label in BINS:
        reads, writes = counts["read", key] or 0, counts["write", key] or 0
        bars.append(Bar(label, reads, writes, reads / largest, writes / largest))
    flags = str(values.get(FLAGS) or "")
    return Profile(title, bars, [f.strip() for f in flags.split(",") if f.strip()])


def _firsts(rows: Sequence[tuple[str, int, object, str]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, record, value, _ in rows:
        if record == 0:
            found.setdefault(name, value)
    return found


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _varying(points: Sequence[Mapping[str, object]]) -> set[str]:
    """The parameters whose values differ between the points: the rest names none of them."""
    seen: dict[str, set[str]] = {}
    for point in points:
        for key, value in point.items():
            seen.setdefault(key, set()).add(str(value))
    return {key for key, values in seen.items() if len(values) > 1}


def _title(step: str, wp_id: int, point: Mapping[str, object]) -> str:
    return (
        f"{step} {wp_id}"
        + (": " if point else "")
        + ", ".join(f"{k}={v}" for k, v in point.items())
    )
