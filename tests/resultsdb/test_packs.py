"""A point's samples packed into one row (``sample_packs``) and read back: the same samples
as ``samples`` holds, in the same order, whatever the values; a damaged pack is refused by
name; the migration packs what an older database holds."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import PackError, Unpacker, pack
from jubex.resultsdb.sql import PACK_COLUMNS
from tests.resultsdb.test_every_sample import _at

samples = st.lists(
    st.tuples(
        st.sampled_from(["bw", "iops", "wr_bw_1", "é"]),
        st.integers(0, 3),  # repetition
        st.integers(0, 4),  # iteration
        st.none() | st.floats(allow_nan=False),
        st.sampled_from(["MiB/s", "s", ""]),
        st.sampled_from([None, False, True]),
    ),
    min_size=1,
    max_size=30,
    unique_by=lambda s: s[:3],
)

#: each metric's samples its repetitions 0, 1, ... of one iteration each (the rule, whose
#: places a pack leaves out)
dense = st.dictionaries(
    st.sampled_from(["bw", "iops", "wr_bw_1"]),
    st.tuples(
        st.lists(st.none() | st.floats(allow_nan=False), min_size=1, max_size=5),
        st.sampled_from(["MiB/s", "s"]),
        st.sampled_from([None, True]),
    ),
    min_size=1,
).map(
    lambda by_metric: [
        (metric, repetition, 0, value, unit, better)
        for metric, (values, unit, better) in by_metric.items()
        for repetition, value in enumerate(values)
    ]
)


def unpacked(point: int, taken: list[tuple[Any, ...]]) -> Any:
    packed = pack(point, 1, taken)
    return read(packed)


def read(packed: dict[str, Any], wanted: Any = ()) -> Any:
    """A pack as the database would give it back, its layout the database's first."""
    row = (packed["point"], *(1 if c == "layout" else packed[c] for c in PACK_COLUMNS))
    return Unpacker({1: packed["layout"]}, wanted)(row)


def same(a: object, b: object) -> bool:
    """Equal, and of a float the same sign (a negative zero stays one)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@settings(max_examples=300, deadline=None)
@given(taken=samples | dense)
def test_a_pack_gives_back_every_sample_by_metric_repetition_and_iteration(taken):
    found = unpacked(7, taken)
    regular = all(s[2] == 0 for s in taken) and all(
        sorted(s[1] for s in taken if s[0] == m) == list(range(sum(s[0] == m for s in taken)))
        for m in {s[0] for s in taken}
    )
    assert (found.repetitions is None) == regular  # the rule's places are left out
    expected = sorted(taken, key=lambda s: s[:3])
    units = {}
    for s in expected:  # a metric's unit and direction: its first sample's
        units.setdefault(s[0], (s[4], s[5]))
    rows = found.rows()
    assert [r[:4] for r in rows] == [(7, *s[:3]) for s in expected]
    assert all(same(r[4], s[3]) for r, s in zip(rows, expected, strict=True))
    assert [r[5:] for r in rows] == [units[s[0]] for s in expected]
    assert list(found.metrics) == list(units)


@settings(max_examples=300, deadline=None)
@given(taken=samples | dense, wanted=st.sets(st.sampled_from(["bw", "iops", "wr_bw_1", "nothing"])))
def test_a_pack_read_for_some_metrics_holds_theirs_alone(taken, wanted):
    packed = pack(3, 1, taken)
    chosen = read(packed, wanted)
    expected = [r for r in unpacked(3, taken).rows() if not wanted or r[1] in wanted]
    if not expected:
        assert chosen is None
    else:
        assert chosen.rows() == expected
        assert chosen.first_number(0, chosen.counts[0]) == unpacked(
            3, [s for s in taken if s[0] == chosen.metrics[0]]
        ).first_number(0, chosen.counts[0])


@settings(max_examples=200, deadline=None)
@given(taken=samples | dense)
def test_a_metrics_shown_value_is_the_first_number_that_begins_a_repetition(taken):
    found = unpacked(1, taken)
    for _, metric, start, end in found.slices():
        rows = [r for r in found.rows() if r[1] == metric]
        firsts = [r[4] for r in rows if r[3] == min(q[3] for q in rows if q[2] == r[2])]
        expected = next((v for v in firsts if v is not None), None)
        assert same(found.first_number(start, end), expected)


damages = st.sampled_from(PACK_COLUMNS).flatmap(
    lambda column: st.tuples(
        st.just(column),
        st.none()
        | st.integers(-5, 5)
        | st.text(max_size=12)
        | st.binary(max_size=24)
        | st.sampled_from(
            [
                '[["bw"],[1],["s"],[true]]',
                '[["bw"],[2],["s"],[null]]',
                '[["bw","bw"],[1,1],["s","s"],[null,null]]',
                '[["bw"],[0],["s"],[null]]',
                '[["bw"],[true],["s"],[null]]',
                '[["bw"],[1],[1],[null]]',
                '[["bw"],[1],["s"]]',
                "[[],[],[],[]]",
                "{}",
            ]
        ),
    )
)


@settings(max_examples=400, deadline=None)
@given(taken=samples | dense, damage=st.lists(damages, min_size=1, max_size=3))
def test_a_damaged_pack_is_refused_or_read_never_a_bug(taken, damage):
    packed = pack(5, 1, taken)
    for column, value in damage:
        packed[column] = value
    try:
        found = read(packed)
    except PackError:
        return
    rows = found.rows()  # what was taken is whole: a value and place for each count
    assert len(rows) == sum(found.counts) == len(found.values)


def test_a_pack_of_too_few_numbers_is_refused():
    packed = pack(5, 1, [("bw", 0, 0, 1.0, "MiB/s", True), ("bw", 1, 0, 2.0, "MiB/s", True)])
    packed["numbers"] = packed["numbers"][:8]
    with pytest.raises(PackError, match="arrays of other lengths"):
        read(packed)


def _packs_and_samples(url: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every pack expanded into rows, and ``samples``' rows in the packs' order."""
    engine = sa.create_engine(Database(url).url)
    with engine.connect() as connection:
        packs = connection.execute(
            sa.text(f"SELECT point, {', '.join(PACK_COLUMNS)} FROM sample_packs ORDER BY point")
        ).all()
        layouts = dict(connection.execute(sa.text("SELECT id, body FROM sample_layouts")).all())
        rows = connection.execute(
            sa.text(
                "SELECT point, metric, repetition, iteration, value, unit, higher_is_better"
                " FROM samples"
            )
        ).all()
    engine.dispose()
    unpack = Unpacker(layouts)
    from_packs = [row for p in packs for row in unpack(tuple(p)).rows()]
    from_samples = sorted(
        [(*r[:6], None if r[6] is None else bool(r[6])) for r in rows],
        key=lambda r: (r[0], r[1], r[2], r[3]),
    )
    return from_packs, from_samples


def test_a_published_run_packs_every_sample_it_holds(database, repeated, capsys):
    main(["publish", str(repeated / "000000"), str(repeated / "000001"), "--database", database])
    capsys.readouterr()
    from_packs, from_samples = _packs_and_samples(database)
    assert len(from_samples) > 100
    assert from_packs == from_samples


def test_the_migration_packs_the_samples_an_older_database_holds(database, repeated, capsys):
    main(["publish", str(repeated / "000000"), str(repeated / "000001"), "--database", database])
    query = ["query", "write_bw", "db:", "--database", database, "-f", "json"]
    main(query)
    capsys.readouterr()
    main(query)
    before = json.loads(capsys.readouterr().out)
    published, _ = _packs_and_samples(database)
    _at(database, "0003", "downgrade")  # no packs
    Database(database).ensure_schema()  # migrated again: packed from the samples
    again, from_samples = _packs_and_samples(database)
    assert again == published == from_samples
    main(query)
    assert json.loads(capsys.readouterr().out) == before


def test_a_damaged_pack_in_a_database_is_one_paragraph(tmp_path: Path, repeated, capsys):
    url = str(tmp_path / "results.sqlite")
    main(["publish", str(repeated / "000000"), "--database", url])
    engine = sa.create_engine(Database(url).url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE sample_packs SET numbers = x'0000'"))
    engine.dispose()
    capsys.readouterr()
    assert main(["query", "write_bw", "db:", "--database", url]) == 2
    err = capsys.readouterr().err
    assert "holds a damaged sample pack" in err and "arrays of other lengths" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("change", ["value = 'fast'", "unit = x'00ff'", "higher_is_better = 7"])
def test_a_sample_the_migration_cannot_pack_is_one_paragraph_and_nothing_changes(
    tmp_path: Path, repeated, capsys, change: str
):
    url = str(tmp_path / "results.sqlite")
    main(["publish", str(repeated / "000000"), "--database", url])
    _at(url, "0003", "downgrade")
    engine = sa.create_engine(Database(url).url)
    with engine.begin() as connection:
        connection.execute(sa.text(f"UPDATE samples SET {change} WHERE repetition = 1"))
    engine.dispose()
    capsys.readouterr()
    assert main(["query", "write_bw", "db:", "--database", url]) == 2
    err = capsys.readouterr().err
    assert "holds a sample jubex cannot read" in err and "Traceback" not in err
    engine = sa.create_engine(Database(url).url)
    with engine.connect() as connection:  # the migration's transaction rolled back
        assert connection.execute(sa.text("SELECT version_num FROM alembic_version")).all() == [
            ("0003",)
        ]
    engine.dispose()
