"""Packed values: one JSON text per workpackage that SQLite can read first values from."""

from __future__ import annotations

import math
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from jubex.store.measurement import Measurement
from jubex.store.packed import key, name_record, pack, unpack

NAMES = st.one_of(
    st.sampled_from(["bw", "bw_max", "api", "t", "n_cnt", "a@b", "a@1", 'q"u']),
    st.text(min_size=1, max_size=6),
)
VALUES = st.one_of(
    st.none(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)
MEASUREMENTS = st.lists(
    st.builds(Measurement, NAMES, VALUES, st.sampled_from(["", "s"]), st.integers(0, 3)),
    max_size=30,
)


def grouped(measurements: list[Measurement]) -> list[Measurement]:
    """What unpack gives: grouped by name and record in the order first found, each in
    order, with the unit of the group's first value."""
    groups: dict[tuple[str, int], list[Measurement]] = {}
    for m in measurements:
        groups.setdefault((m.name, m.record), []).append(m)
    return [m._replace(unit=found[0].unit) for found in groups.values() for m in found]


@given(MEASUREMENTS)
def test_values_come_back_grouped_in_order(measurements: list[Measurement]) -> None:
    found = pack(measurements)
    assert list(unpack(found.data)) == grouped(measurements)
    assert found.found == len(measurements)
    assert found.keys == tuple(dict.fromkeys(key(m.name, m.record) for m in measurements))
    assert [name_record(k) for k in found.keys] == list(
        dict.fromkeys((m.name, m.record) for m in measurements)
    )


def test_nan_is_missing_infinities_stay_and_a_bool_keeps_its_word() -> None:
    found = pack(
        [
            Measurement("a", math.nan),
            Measurement("b", math.inf, "s"),
            Measurement("c", -math.inf),
            Measurement("d", True),
        ]
    )
    values = [m.value for m in unpack(found.data)]
    assert values[0] is None and values[1:3] == [math.inf, -math.inf] and values[3] == "True"
    assert found.units == {"b": "s"}
    db = sqlite3.connect(":memory:")  # SQLite reads the text as JSON, infinities included
    assert db.execute("SELECT json_extract(?, '$.\"b\"[1]')", (found.data,)).fetchone() == (
        math.inf,
    )


def test_records_are_keys_of_their_own() -> None:
    found = pack([Measurement("bw", 1.0, "MiB/s", 0), Measurement("bw", 2.0, "MiB/s", 1)])
    assert found.data == '{"bw":["MiB/s",1.0],"bw@1":["MiB/s",2.0]}'
