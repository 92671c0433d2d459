"""A group's samples gathered without a call per row are those of :func:`samples_of`."""

from __future__ import annotations

from types import MappingProxyType

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.samples.rows import samples_of
from jubex.results.tables.columns import group_samples

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
@given(st.lists(_ROW, max_size=6))
def test_the_values_of_samples_of_in_order(rows: list[dict[str, object]]) -> None:
    oracle = [value for row in rows for value in samples_of(row, "bw")]
    assert group_samples(rows, "bw") == oracle
    assert all(a is b for a, b in zip(group_samples(rows, "bw"), oracle, strict=True))


def test_a_row_without_samples_gives_its_own_value() -> None:
    rows = [{"bw": 1.5}, {"bw": 2.0, "samples": {"bw": [3.0, 4.0]}}, {"bw": None}]
    assert group_samples(rows, "bw") == [1.5, 3.0, 4.0, None]
