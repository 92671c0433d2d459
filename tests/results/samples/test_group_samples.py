"""A group's samples, read once per name, are those of :func:`samples_of`, row by row."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.samples.rows import GroupSamples, samples_of

_VALUE = st.none() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=3)
_SAMPLES = st.lists(_VALUE, max_size=4) | st.tuples(_VALUE, _VALUE)
_ROW = st.fixed_dictionaries(
    {"bw": _VALUE},
    optional={
        "samples": st.none()
        | st.dictionaries(st.sampled_from(["bw", "other"]), _SAMPLES, max_size=2)
        | st.builds(
            MappingProxyType, st.dictionaries(st.sampled_from(["bw"]), _SAMPLES, max_size=1)
        )
    },
)


@settings(deadline=None)
@given(st.lists(_ROW, max_size=6), st.permutations(["bw", "other", "held by none"]))
def test_the_values_of_samples_of_in_order(rows: list[dict[str, object]], names) -> None:
    group = GroupSamples(rows)
    for name in names:  # in any order: the samples are looked up once for all of them
        oracle = [value for row in rows for value in samples_of(row, name)]
        assert group.flat(name) == oracle
        assert all(a is b for a, b in zip(group.flat(name), oracle, strict=True))
        assert group.per_row(name) == [
            samples.get(name) if isinstance(samples := row.get("samples"), Mapping) else None
            for row in rows
        ]


def test_a_row_without_samples_gives_its_own_value() -> None:
    rows = [{"bw": 1.5}, {"bw": 2.0, "samples": {"bw": [3.0, 4.0]}}, {"bw": None}]
    assert GroupSamples(rows).flat("bw") == [1.5, 3.0, 4.0, None]


def test_each_name_is_read_once_and_what_is_given_out_is_a_copy() -> None:
    rows = [{"bw": 1.0, "samples": {"bw": (2.0, 3.0)}}, {"bw": 4.0, "samples": {"bw": (5.0,)}}]
    group = GroupSamples(rows)
    assert group.per_row("bw") is group.per_row("bw")
    flat = group.flat("bw")
    flat.append(9.0)
    assert group.flat("bw") == [2.0, 3.0, 5.0]
    assert not group.split()
    assert GroupSamples([*rows, {"bw": 1.0, "executions": {"bw": ((0, 1),)}}]).split()
