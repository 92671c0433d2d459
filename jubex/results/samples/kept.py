"""A run's result rows kept in its store, so that reading them again costs one query.

Reading the rows of a run (its workpackages, values, samples, verdicts and neighbours) costs
about 150 µs a row; a history over 1,000 runs reads them all each time. The rows read are
kept, per set of names read, in the store's ``summary`` table (:meth:`Store.snapshot`),
which triggers empty at any change of what they were made of: a re-analysis, a new state,
a changed parameter or meta value. Only rows of plain values are kept, so that they read
back exactly as read the first time (typed parameters come back through the store's
decoder, from the texts it stores); anything else is read the slow way each time.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from collections.abc import Collection, Mapping, Sequence
from functools import cache, lru_cache
from itertools import accumulate, repeat
from pathlib import Path
from typing import Any

from jubex.store.rundir import Run
from jubex.version import __version__

#: the layout of kept rows; a change of it must change this (rows kept in another layout
#: are under another key: never read, made again)
FORMAT = 3

#: the modules that make a row: rows kept by another text of them are not read
_MAKERS = (
    "jubex.results.samples.rows",
    "jubex.results.samples.kept",
    "jubex.results.samples.concurrency",
    "jubex.analysis.harvest",
    "jubex.analysis.run",
    "jubex.store.store",
    "jubex.store.packed",
)

_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)
_TEXTS = frozenset({str})

#: the type every kept row's value of these keys has (as :func:`result_rows` makes them)
_META_TYPES = {
    "jube_wp_id": frozenset({int}),
    "jube_step_name": _TEXTS,
    "jube_wp_iteration": frozenset({int}),
    "platform": _TEXTS,
    "site": _TEXTS,
    "ok": frozenset({bool}),
    "reason": _TEXTS,
    "finished": frozenset({bool}),
    "reduced": frozenset({bool}),
    "concurrent": frozenset({int}),
}
#: keys every kept row has (besides those of :data:`_META_TYPES`), of which ``run`` is
#: given again by the reader
_NEEDED = ("run", "samples", "executions")
_EVERY_ROW = frozenset(_META_TYPES) | frozenset(_NEEDED)
_INTS = frozenset({int})
_DICTS = frozenset({dict})

#: kept rows: segments of consecutive rows of one shape, each its parameters' names, the
#: other keys, and a column per name then per key (parameters as their stored texts; a
#: column packed as :func:`_packed` packs it)
Segment = tuple[list[str], list[str], list[list[object]]]


class _Unlike(ValueError):
    """Kept data that is not rows as :func:`freeze` keeps them."""


def summary_key(names: Collection[str] | None, per_iteration: bool) -> str:
    """The key of the rows read of these names: also the code that read them."""
    return _summary_key(None if names is None else frozenset(names), per_iteration, _code())


@lru_cache(maxsize=64)
def _summary_key(names: frozenset[str] | None, per_iteration: bool, code: str) -> str:
    """:func:`summary_key`, worked out once per set of names and code (a table of 1,000
    runs asks it of each)."""
    wanted = None if names is None else sorted(names)
    return json.dumps(["rows", FORMAT, __version__, code, per_iteration, wanted])


@cache
def _code() -> str:
    """A digest of the modules that make rows, once a process: a changed jubex (a version
    not renamed, a checkout of another commit) never reads the rows another one kept."""
    digest = hashlib.blake2b(digest_size=8)
    for name in _MAKERS:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        try:
            digest.update(Path(path).read_bytes() if path else name.encode())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()


def freeze(run: Run, rows: Sequence[Mapping[str, object]], meta: Collection[str]) -> str | None:
    """The rows as kept (see :data:`Segment`): of each row its workpackage's stored
    parameter texts and the rest of the row (the ``meta`` keys always, as they replace a
    parameter of their name), a column per name, so that reading them back is one JSON
    parse of names given once; ``None`` when a row holds anything JSON does not give back
    as it was."""
    texts = dict(run.store.db.execute("SELECT id, params FROM workpackage"))
    segments: list[Segment] = []
    shape: tuple[list[str], list[str]] | None = None
    columns: list[list[object]] = []
    for row in rows:
        params = texts.get(row.get("jube_wp_id"))
        if params is None:
            return None
        point = json.loads(params)
        if not isinstance(point, dict) or not all(type(v) is str for v in point.values()):
            return None
        rest = {k: v for k, v in row.items() if k not in point or k in meta}
        if not all(_plain(k, v) for k, v in rest.items()) or not set(rest) >= _EVERY_ROW:
            return None
        if shape != (list(point), list(rest)):
            shape = (list(point), list(rest))
            columns = [[] for _ in range(len(point) + len(rest))]
            segments.append((*shape, columns))
        for column, value in zip(columns, [*point.values(), *rest.values()], strict=True):
            column.append(value)
    packed = [(names, keys, _packed(names, keys, columns)) for names, keys, columns in segments]
    return json.dumps(packed, separators=(",", ":"))


def _packed(names: list[str], keys: list[str], columns: list[list[Any]]) -> list[object]:
    """A segment's columns as kept: a column of floats as the text of their bytes (JSON
    spends most of a kept run's reading on parsing decimal floats), samples of one set of
    names that are all floats as a text per name (see :func:`_samples_by_name`), a column
    of one value (of one type) for every row as ``{"same": value}`` (a run's step, site,
    platform, verdicts: most of its columns, and most of what JSON parses of them)."""
    found: list[object] = list(columns[: len(names)])
    for key, column in zip(keys, columns[len(names) :], strict=True):
        if key == "samples":
            found.append(_packed_samples(column))
        elif key != "executions" and column and all(type(v) is float for v in column):
            found.append(_bytes_text(column))
        elif key not in _NEEDED and _one_value(column):
            found.append({"same": column[0]})
        else:
            found.append(column)
    return found


def _one_value(column: list[Any]) -> bool:
    """Whether a column holds one value of one type in every row (``1`` and ``True`` are
    two)."""
    first = column[0] if column else None
    kind = type(first)
    return bool(column) and all(type(v) is kind and v == first for v in column)


def _packed_samples(column: list[dict[str, tuple[Any, ...]]]) -> object:
    """Samples kept a row at a time, or, where every row has the same names and only
    floats, as ``{"names": [...], "sizes": [[count per row] per name], "values": [text of
    the floats per name]}``."""
    names = list(column[0]) if column else []
    if not names or any(list(found) != names for found in column):
        return column
    if not all(type(x) is float for found in column for v in found.values() for x in v):
        return column
    return {
        "names": names,
        "sizes": [[len(found[name]) for found in column] for name in names],
        "values": [_bytes_text([x for found in column for x in found[name]]) for name in names],
    }


def _bytes_text(values: Sequence[float]) -> str:
    """Floats as the hexadecimal text of their bytes (little-endian IEEE doubles): exact,
    NaN and infinities included, and read back without parsing a decimal."""
    return struct.pack(f"<{len(values)}d", *values).hex()


def _floats(text: object) -> tuple[float, ...]:
    """The floats :func:`_bytes_text` wrote."""
    if type(text) is not str or len(text) % 16:
        raise _Unlike
    return struct.unpack(f"<{len(text) // 16}d", bytes.fromhex(text))


def thaw(run: Run, data: str, label: str | None) -> list[dict[str, object]] | None:
    """The rows kept as ``data``, as :func:`freeze` was given them (``label``: the run's
    name in the ``run`` key); ``None`` when ``data`` is not rows as it keeps them (a
    damaged or a hostile store): the rows are read the slow way instead.

    Every value is checked to be of a type a row of its key has: a store is a file anyone
    may have edited, and a list where a number belongs must not reach a table."""
    try:
        segments = json.loads(data)
        if type(segments) is not list:
            raise _Unlike
        name = label or run.id
        return [row for segment in segments for row in _segment(run, segment, name)]
    except (_Unlike, ValueError, RecursionError):
        return None


def thaw_columns(run: Run, data: str, label: str | None) -> list[dict[str, object]] | None:
    """The rows kept as ``data`` as columns: of each segment of rows of one shape, a column
    per key (a row's dict would hold the same keys in the same order), checked as
    :func:`thaw` checks them; ``samples`` is each name's samples a row (an empty tuple
    where a row has none). ``None`` where :func:`thaw` gives ``None``. A history of 1,000
    runs reads a few of the columns, and a dict a row is most of what :func:`thaw` costs."""
    try:
        segments = json.loads(data)
        if type(segments) is not list:
            raise _Unlike
        name = label or run.id
        found: list[dict[str, object]] = []
        for segment in segments:
            every, values = _segment_columns(run, segment, name, by_name=True)
            found.append(dict(zip(every, values, strict=True)))
        return found
    except (_Unlike, ValueError, RecursionError):
        return None


def _segment(run: Run, segment: object, label: str) -> list[dict[str, object]]:
    """The rows of one kept segment (see :data:`Segment`)."""
    every, values = _segment_columns(run, segment, label, by_name=False)
    return _dicts(every, values)


def _dicts(keys: Sequence[str], columns: Sequence[Sequence[object]]) -> list[dict[str, object]]:
    """A dict a row of these (checked, equally long) ``columns``, as ``dict(zip(keys,
    row))`` makes it (a later one of a key repeated wins, at the first one's place): copies
    of one dict of the keys, set a column at a time. Half the time of a dict per zipped
    row, which makes a tuple and a zip for each: 20,000 rows of 22 keys take 20 ms."""
    if not columns:
        return []
    rows = list(map(dict.copy, repeat(dict.fromkeys(keys), len(columns[0]))))
    for key, column in zip(keys, columns, strict=True):
        for row, value in zip(rows, column, strict=True):
            row[key] = value
    return rows


def _segment_columns(
    run: Run, segment: object, label: str, *, by_name: bool
) -> tuple[list[str], list[Sequence[object]]]:
    """The keys of one kept segment and a checked column per key; ``by_name``: the samples
    as a dict of each name's samples a row, else a dict of a row's samples a row."""
    if type(segment) is not list or len(segment) != 3:
        raise _Unlike
    names, keys, columns = segment
    if type(names) is not list or type(keys) is not list or type(columns) is not list:
        raise _Unlike
    every = names + keys
    if not _TEXTS.issuperset(map(type, every)) or not set(keys) >= _EVERY_ROW:
        raise _Unlike
    if len(columns) != len(every):
        raise _Unlike
    executions = columns[len(names) + keys.index("executions")]
    if type(executions) is not list:
        raise _Unlike
    size = len(executions)
    values: list[Sequence[object]] = []
    for name, column in zip(names, columns, strict=False):
        if type(column) is not list or not _TEXTS.issuperset(map(type, column)):
            raise _Unlike
        if len(column) != size:
            raise _Unlike
        values.append(run.store.decode.column(name, column))
    for key, column in zip(keys, columns[len(names) :], strict=True):
        if key == "samples" and type(column) is dict:
            names_of, per_name = _samples_by_name(column, size)
            if by_name:
                values.append(dict(zip(names_of, per_name, strict=True)))  # type: ignore[arg-type]
                continue
            column = _dicts(names_of, per_name)
        elif type(column) is str and key not in _META_TYPES and key not in _NEEDED:
            column = _floats(column)
        elif type(column) is dict and key not in _NEEDED:
            column = _same(key, column, size)
        elif type(column) is not list:
            raise _Unlike
        elif key == "run":
            column = [label] * len(column)
        elif key == "samples":
            column = [_samples(found) for found in column]
            if by_name:
                if len(column) != size:
                    raise _Unlike
                known = dict.fromkeys(name for found in column for name in found)
                values.append({n: [found.get(n, ()) for found in column] for n in known})  # type: ignore[arg-type]
                continue
        elif key == "executions":
            if not _DICTS.issuperset(map(type, column)) or any(column):  # most: all empty
                column = [_executions(found) for found in column]
        elif not _META_TYPES.get(key, _SCALAR_TYPES).issuperset(map(type, column)):
            raise _Unlike
        if len(column) != size:
            raise _Unlike
        values.append(column)
    return every, values


def _samples_by_name(
    found: dict[str, Any], size: int
) -> tuple[list[str], list[list[tuple[float, ...]]]]:
    """The names of samples kept by :func:`_packed_samples`, and each name's samples a row."""
    if set(found) != {"names", "sizes", "values"}:
        raise _Unlike
    names, sizes, texts = found["names"], found["sizes"], found["values"]
    if type(names) is not list or not names or not _TEXTS.issuperset(map(type, names)):
        raise _Unlike
    if type(sizes) is not list or type(texts) is not list:
        raise _Unlike
    per_name = []
    for counts, text in zip(sizes, texts, strict=True):
        values = _floats(text)
        if type(counts) is not list or len(counts) != size:
            raise _Unlike
        if not _INTS.issuperset(map(type, counts)) or sum(counts) != len(values):
            raise _Unlike
        if min(counts, default=0) < 0:
            raise _Unlike
        if counts and counts.count(counts[0]) == size and counts[0]:
            per_name.append(list(zip(*[iter(values)] * counts[0], strict=True)))
        else:
            starts = zip(accumulate(counts, initial=0), counts, strict=False)
            per_name.append([values[start : start + n] for start, n in starts])
    if len(per_name) != len(names):
        raise _Unlike
    return names, per_name


def _same(key: str, found: dict[str, object], size: int) -> list[object]:
    """A column kept as one value for every row (see :func:`_packed`), checked."""
    if len(found) != 1 or "same" not in found:
        raise _Unlike
    value = found["same"]
    if type(value) not in _META_TYPES.get(key, _SCALAR_TYPES):
        raise _Unlike
    return [value] * size


def _samples(found: object) -> dict[str, tuple[object, ...]]:
    """A row's samples as kept: each name's plain values, as a tuple."""
    if type(found) is not dict:
        raise _Unlike
    samples = {}
    for name, values in found.items():
        if type(values) is not list or not _SCALAR_TYPES.issuperset(map(type, values)):
            raise _Unlike
        samples[name] = tuple(values)
    return samples


def _executions(found: object) -> dict[str, tuple[tuple[int, int], ...]]:
    """A row's executions as kept: each name's (iteration, count) pairs, as tuples."""
    if type(found) is not dict:
        raise _Unlike
    executions = {}
    for name, pairs in found.items():
        if type(pairs) is not list:
            raise _Unlike
        split = []
        for pair in pairs:
            if type(pair) is not list or len(pair) != 2 or {type(x) for x in pair} != {int}:
                raise _Unlike
            split.append((pair[0], pair[1]))
        executions[name] = tuple(split)
    return executions


def _plain(key: str, value: object) -> bool:
    """Whether JSON gives ``value`` back as it is (samples and executions: as tuples)."""
    if key == "samples":
        return isinstance(value, dict) and all(
            type(v) is tuple and all(type(x) in _SCALARS for x in v) for v in value.values()
        )
    if key == "executions":
        return isinstance(value, dict) and all(
            type(v) is tuple and all(type(p) is tuple and all(type(x) is int for x in p) for p in v)
            for v in value.values()
        )
    return type(value) in _SCALARS
