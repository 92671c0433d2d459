"""A point's samples packed into one row of ``sample_packs``, as jubex reads them back.

``samples`` keeps one number a row, for a person's SQL. Reading a history back a row a
number makes a Python tuple, a text and an integer of each number: a benchmark of 10,000
runs of 50 metrics and 5 repetitions is 2.5 million rows, seconds before any work is done.
Publishing writes each point's samples a second time, in the same transaction, as one row
(its metrics, their counts, units and directions as JSON, its numbers, repetitions and
iterations as arrays of little-endian binary; the repetitions and iterations left out
where each metric's samples are its repetitions 0, 1, ... of one iteration each, the
rule), and reading takes a point's numbers in one call. The two hold the same samples in
the same order (by metric, repetition, iteration): the packs are made from the very rows
``samples`` gets.

A database is untrusted input: a pack is checked (its arrays' lengths, its JSON's types,
its counts' sum) before it is read, and a damaged one is refused by name.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from jubex.resultsdb.sql import PACK_COLUMNS, direction

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

#: a sample as a pack is made of it: metric, repetition, iteration, value (None: missing),
#: unit, higher is better
Taken = tuple[str, int, int, "float | None", str, "bool | None"]

_BIG = sys.byteorder == "big"  # the arrays are stored little-endian


class PackError(ValueError):
    """A pack that is not as jubex writes one (a damaged or foreign database)."""


class PointSet(NamedTuple):
    """A point's samples as read from its pack: each metric's count, unit and direction,
    and the values of all of them one after another (by metric, repetition, iteration)."""

    point: int
    metrics: Sequence[str]
    counts: Sequence[int]
    units: Sequence[str]
    directions: Sequence[bool | None]
    values: list[float | None]
    #: the repetition and iteration of each value, as stored (read only where asked for);
    #: None: each metric's values are its repetitions 0, 1, ... of one iteration each
    repetitions: bytes | None
    iterations: bytes | None

    def slices(self) -> Iterator[tuple[int, str, int, int]]:
        """Each metric's index, name and the start and end of its values."""
        start = 0
        for index, (metric, count) in enumerate(zip(self.metrics, self.counts, strict=True)):
            yield index, metric, start, start + count
            start += count

    def rows(self) -> list[tuple[Any, ...]]:
        """The samples a row each, laid out as :class:`~jubex.resultsdb.sql.PointSample`:
        point, metric, repetition, iteration, value, unit, higher is better."""
        repetitions, iterations = self._places()
        return [
            (self.point, metric, repetitions[i], iterations[i], self.values[i],
             self.units[index], self.directions[index])
            for index, metric, start, end in self.slices()
            for i in range(start, end)
        ]  # fmt: skip

    def first_number(self, start: int, end: int) -> float | None:
        """Of one metric's values (``start`` to ``end``), the first that begins a repetition
        and is not missing: the value a row of the point shows."""
        if self.repetitions is None:  # each value begins a repetition
            return next((v for v in self.values[start:end] if v is not None), None)
        repetitions = _ints(self.repetitions)
        last = None
        for i in range(start, end):
            if repetitions[i] != last:
                last = repetitions[i]
                value = self.values[i]
                if value is not None:
                    return value
        return None

    def _places(self) -> tuple[Sequence[int], Sequence[int]]:
        """Each value's repetition and iteration."""
        if self.repetitions is None or self.iterations is None:
            return [i for count in self.counts for i in range(count)], [0] * len(self.values)
        return _ints(self.repetitions), _ints(self.iterations)


def pack(point: int, run: int, taken: Iterable[Taken]) -> dict[str, Any]:
    """The row of ``sample_packs`` of a point's samples (in any order: they are put in the
    order a reader wants them, by metric, repetition and iteration), its ``layout`` the
    text of its layout (:func:`with_layout_ids` makes it the layout's id)."""
    ordered = sorted(taken, key=_ORDER)
    metrics, counts, units, directions = [], [], [], []
    dense = True  # each metric's repetitions 0, 1, ... of one iteration each: not stored
    for metric, group in groupby(ordered, _METRIC):
        of_metric = list(group)
        metrics.append(metric)
        units.append(of_metric[0][4])
        directions.append(of_metric[0][5])
        counts.append(len(of_metric))
        dense = dense and all(s[1] == i and s[2] == 0 for i, s in enumerate(of_metric))
    values = [s[3] for s in ordered]
    missing = None
    if None in values:
        missing = bytes(v is None for v in values)
        values = [float("nan") if v is None else v for v in values]
    return {
        "point": point,
        "run": run,
        "layout": json.dumps([metrics, counts, units, directions], separators=(",", ":")),
        "numbers": _bytes(array("d", values)),
        "missing": missing,
        "repetitions": None if dense else _bytes(array("i", [s[1] for s in ordered])),
        "iterations": None if dense else _bytes(array("i", [s[2] for s in ordered])),
    }


_ORDER = itemgetter(0, 1, 2)
_METRIC = _FIRST = itemgetter(0)
_KEY = itemgetter(0, 2, 3, 4)  # a sample's point, metric, repetition and iteration


def as_set(point: int, samples: Iterable[Sequence[Any]]) -> PointSet:
    """A point's samples, rows laid out as ``samples`` has them (point, metric, repetition,
    iteration, value, unit, higher is better), as the set their pack gives."""
    packed = pack(point, 0, [(*s[1:6], direction(s[6])) for s in samples])
    row = (point, *(0 if c == "layout" else packed[c] for c in PACK_COLUMNS))
    found = Unpacker({0: packed["layout"]})(row)
    if found is None:
        raise ValueError(f"point {point} has no samples")
    return found


class Unpacker:
    """Reads packs, of every metric or of the ones ``wanted``, their layouts (``texts``:
    by id) each read and checked once, and only the wanted metrics' numbers made Python
    floats."""

    def __init__(self, texts: Mapping[object, object], wanted: Collection[str] = ()) -> None:
        self._texts = texts
        self._wanted = set(wanted)
        self._layouts: dict[object, _Layout] = {}

    def __call__(self, row: Sequence[Any]) -> PointSet | None:
        """A :class:`PointSet` of a row (the point's id, then ``PACK_COLUMNS``); None: it
        holds none of the metrics wanted."""
        point, layout_id, numbers, missing, repetitions, iterations = row
        layout = self._layouts.get(layout_id)
        if layout is None:
            text = self._texts.get(layout_id)
            if text is None:
                raise PackError(f"the pack of point {point} names a layout the database lacks")
            layout = self._layouts[layout_id] = _layout(text, self._wanted)
        total = layout.total
        numbers = _blob(numbers)
        if len(numbers) != 8 * total:
            raise PackError(f"the pack of point {point} holds arrays of other lengths")
        if (repetitions is None) != (iterations is None):
            raise PackError(f"the pack of point {point} holds repetitions or iterations alone")
        if repetitions is not None:
            repetitions, iterations = _blob(repetitions), _blob(iterations)
            if len(repetitions) != 4 * total or len(iterations) != 4 * total:
                raise PackError(f"the pack of point {point} holds arrays of other lengths")
        marks = None if missing is None else _blob(missing)
        if marks is not None and len(marks) != total:
            raise PackError(f"the pack of point {point} marks another number of values")
        if layout.ranges is not None:  # some of its metrics
            if not layout.ranges:
                return None
            numbers = _picked(numbers, 8, layout.ranges)
            if repetitions is not None:
                repetitions = _picked(repetitions, 4, layout.ranges)
                iterations = _picked(iterations, 4, layout.ranges)
            if marks is not None:
                marks = _picked(marks, 1, layout.ranges)
        values: list[float | None] = _array("d", numbers).tolist()
        if marks is not None:
            values = [None if mark else v for v, mark in zip(values, marks, strict=True)]
        return PointSet(
            point, layout.names, layout.sizes, layout.units, layout.directions, values,
            repetitions, iterations,
        )  # fmt: skip


class _Layout(NamedTuple):
    """What a pack's JSON and counts say: its number of samples, and of the metrics read
    their names, counts, units and directions, and where their samples are (None: all)."""

    total: int
    names: list[str]
    sizes: list[int]
    units: list[str]
    directions: list[bool | None]
    ranges: list[tuple[int, int]] | None


def _layout(text: object, wanted: set[str]) -> _Layout:
    names, sizes, unit_of, direction_of = _names(text)
    total = sum(sizes)
    if not wanted or wanted.issuperset(names):
        return _Layout(total, names, sizes, unit_of, direction_of, None)
    ends = list(accumulate(sizes))
    kept = [i for i, name in enumerate(names) if name in wanted]
    ranges: list[tuple[int, int]] = []
    for i in kept:
        start, end = ends[i] - sizes[i], ends[i]
        if ranges and ranges[-1][1] == start:  # next to the last: one range
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return _Layout(
        total,
        [names[i] for i in kept],
        [sizes[i] for i in kept],
        [unit_of[i] for i in kept],
        [direction_of[i] for i in kept],
        ranges,
    )


#: a pack's metrics, their counts, units and directions
_Names = tuple[list[str], list[int], list[str], list[bool | None]]


def _names(text: object) -> _Names:
    """A layout's text, checked: a metric, a count, a unit and a direction each."""
    if type(text) is not str:
        raise PackError("a layout of samples is not a text")
    try:
        found = json.loads(text)
    except ValueError as exc:
        raise PackError(f"a layout of samples is not JSON ({exc})") from None
    if not (type(found) is list and len(found) == 4 and all(type(f) is list for f in found)):
        raise PackError("a layout of samples is not four lists")
    names, sizes, unit_of, direction_of = found
    if not (
        len(names) == len(unit_of) == len(direction_of) == len(sizes) > 0
        and all(type(n) is str for n in names)
        and len(set(names)) == len(names)
        and all(type(u) is str for u in unit_of)
        and all(d is None or type(d) is bool for d in direction_of)
        and all(type(s) is int and s > 0 for s in sizes)
    ):
        raise PackError("a layout's metrics, counts, units and directions do not match")
    return names, sizes, unit_of, direction_of


def _picked(data: bytes, size: int, ranges: list[tuple[int, int]]) -> bytes:
    """The items of ``size`` bytes of these ranges, one after another."""
    return b"".join(data[size * a : size * b] for a, b in ranges)


def _blob(value: object) -> bytes:
    """A pack's binary column as bytes (PostgreSQL's driver may give a memoryview)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise PackError(f"a pack holds {type(value).__name__} where binary data belongs")


def _ints(data: bytes) -> array[int]:
    return _array("i", data)


def _array(typecode: str, data: bytes) -> array[Any]:
    """A stored little-endian array as this machine's."""
    found = array(typecode)
    found.frombytes(data)
    if _BIG:
        found.byteswap()
    return found


def _bytes(numbers: array[Any]) -> bytes:
    if _BIG:
        numbers = array(numbers.typecode, numbers)
        numbers.byteswap()
    return numbers.tobytes()


def pack_stored(connection: Connection, first_run: int = 0, batch: int = 2_000) -> int:
    """Packs of the points whose samples ``samples`` holds and ``sample_packs`` does not,
    of the runs from ``first_run`` on (a database migrated to packs; a benchmark's
    database filled by SQL), a batch of points a statement; the number packed."""
    import sqlalchemy as sa

    from jubex.resultsdb import schema

    made = 0
    last = 0
    while True:
        points = (
            connection.execute(
                sa.text(
                    "SELECT DISTINCT s.point FROM samples s WHERE s.run >= :run AND s.point > :last"
                    " AND NOT EXISTS (SELECT 1 FROM sample_packs k WHERE k.point = s.point)"
                    " ORDER BY s.point LIMIT :batch"
                ),
                {"run": first_run, "last": last, "batch": batch},
            )
            .scalars()
            .all()
        )
        if not points:
            return made
        found = connection.execute(
            sa.text(
                "SELECT point, run, metric, repetition, iteration, value, unit, higher_is_better"
                " FROM samples WHERE point IN :points"
            ).bindparams(sa.bindparam("points", expanding=True)),
            {"points": points},
        ).all()
        checked = [_stored(tuple(row), connection) for row in found]
        rows = [
            pack(point, of_point[0][1], [s[2:] for s in of_point])
            for point, of_point in (
                (p, list(g)) for p, g in groupby(sorted(checked, key=_KEY), _FIRST)
            )
        ]
        connection.execute(schema.sample_packs.insert(), with_layout_ids(connection, rows))
        made += len(rows)
        last = points[-1]


def _stored(row: tuple[Any, ...], connection: Connection) -> tuple[Any, ...]:
    """A row of ``samples`` as a pack takes it (its direction a bool), checked: a database
    from elsewhere may hold anything in any column of SQLite's."""
    point, run, metric, repetition, iteration, value, unit, better = row
    number = value is None or (type(value) in (int, float))
    if not (
        all(type(n) is int for n in (point, run, repetition, iteration))
        and type(metric) is str
        and number
        and type(unit) is str
        and better in (None, 0, 1)
    ):
        from jubex.errors import UsageError
        from jubex.resultsdb.connect import masked_url

        raise UsageError(
            f"the results database {masked_url(str(connection.engine.url))} holds a sample"
            f" jubex cannot read (point {point!r}, metric {str(metric)[:40]!r}: value"
            f" {str(value)[:20]!r}, unit {str(unit)[:20]!r}): it is left as it was",
            hint="give a results database jubex made (docs/database.md)",
        )
    return (point, run, metric, repetition, iteration, value, unit, direction(better))


def with_layout_ids(
    connection: Connection, packs: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Packs (:func:`pack`) whose layout texts are made the ids of their rows of
    ``sample_layouts``, added where the database lacks them (a concurrent writer's same
    layout is taken, not added twice): the rows to write to ``sample_packs``."""
    import sqlalchemy as sa

    if not packs:
        return []
    texts = {p["layout"] for p in packs}
    digests = {hashlib.sha256(text.encode()).hexdigest(): text for text in texts}
    connection.execute(
        sa.text(
            "INSERT INTO sample_layouts (digest, body) VALUES (:digest, :body)"
            " ON CONFLICT (digest) DO NOTHING"
        ),
        [{"digest": d, "body": text} for d, text in digests.items()],
    )
    found = connection.execute(
        sa.text("SELECT digest, id FROM sample_layouts WHERE digest IN :digests").bindparams(
            sa.bindparam("digests", expanding=True)
        ),
        {"digests": list(digests)},
    ).all()
    ids = {digests[digest]: id_ for digest, id_ in found}
    return [{**p, "layout": ids[p["layout"]]} for p in packs]
