"""The pretty table's frame without rich is the frame rich draws, character for character."""

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from jubex.language.values import Size
from jubex.results.tables import formats
from jubex.results.tables.frame import NARROW, framed
from jubex.results.tables.table import Header, PlusMinus, ResultTable

#: cells as tables hold them, and some that only rich may lay out (wide, combining, tab)
CELL = st.text(alphabet=st.sampled_from([*"aZ09 .-+|[]%", *NARROW, "漢", "\u0301", "\t", "\n"]))


def _by_rich(table: ResultTable) -> str:
    """The table as rich draws it (the frame written by hand switched off)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats, "framed", lambda *args: None)
        return formats.render(table, "pretty", width=0)


@settings(max_examples=200, deadline=None)
@given(
    name=st.text(alphabet="abc xyz", min_size=1, max_size=60),
    labels=st.lists(CELL, min_size=1, max_size=5),
    cells=st.lists(st.lists(CELL, min_size=5, max_size=5), min_size=1, max_size=8),
    notes=st.lists(st.text(alphabet="ab ", max_size=10), max_size=2),
)
@example(name="aaaa ", labels=[""], cells=[[""] * 5, ["0000", *[""] * 4]], notes=[])
def test_the_frame_is_what_rich_draws(name, labels, cells, notes) -> None:
    headers = [Header(f"c{i}", label) for i, label in enumerate(labels)]
    rows = [row[: len(labels)] for row in cells]
    table = ResultTable(name, headers, rows, notes)
    assert formats.render(table, "pretty", width=0) == _by_rich(table)


#: typed cells as result tables hold them: numbers, sizes, pairs, missing values, text
TYPED = st.one_of(
    st.none(),
    st.integers(-1000, 10**6),
    st.floats(-1e6, 1e6) | st.sampled_from([math.nan, math.inf, 0.0, -0.0]),
    st.builds(Size, st.integers(0, 2**30), st.sampled_from(["1MiB", "4KiB"])),
    st.builds(PlusMinus, st.none() | st.floats(0, 1e4), st.none() | st.floats(0, 100)),
    CELL,
)


@settings(max_examples=150, deadline=None)
@given(
    formats_=st.lists(st.sampled_from([None, ".2f", "+.1f", ".3g"]), min_size=1, max_size=5),
    cells=st.lists(st.lists(TYPED, min_size=5, max_size=5), min_size=1, max_size=8),
    transpose=st.booleans(),
)
def test_typed_columns_are_framed_as_rich_frames_them(formats_, cells, transpose) -> None:
    """Each column's texts worked out at once, numbers right-aligned: as rich lays them out."""
    headers = [Header(f"c{i}", f"c{i}", format=spec) for i, spec in enumerate(formats_)]
    rows = [row[: len(headers)] for row in cells]
    table = ResultTable("typed", headers, rows, ["a note"], transpose=transpose)
    assert formats.render(table, "pretty", width=0) == _by_rich(table)


def test_numbers_are_right_aligned_as_rich_aligns_them() -> None:
    table = ResultTable(
        "history", [Header("run", "run"), Header("mean", "mean")], [["000001", 1.5], ["2", 1020]]
    )
    text = formats.render(table, "pretty", width=0)
    assert text == _by_rich(table)
    assert text.splitlines()[3:] == [" 000001    1.5", " 2        1020"]


def test_what_rich_must_measure_is_left_to_rich() -> None:
    assert framed("t", ["a"], [["漢"]], [False]) is None  # two columns wide
    assert framed("t", ["a"], [["x\ty"]], [False]) is None
    assert framed("a long title", ["a"], [["x"]], [False]) is None  # rich widens the columns
    assert framed("t", ["a"], [[]], [False]) is None
    assert framed("t", ["ab"], [["x—"]], [True]) == [" t", " ab", "────", " x—"]
    # the body comes a column at a time
    assert framed("t", ["a", "b"], [["1", "22"], ["x", "y"]], [True, False]) == [
        "   t",
        "  a   b",
        "────────",
        "  1   x",
        " 22   y",
    ]
