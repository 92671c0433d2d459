"""A column's texts, worked out a kind of value at a time, are the rule's text for each cell."""

import math

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jubex.language.values import Size
from jubex.results.tables.cells import (
    column_spec,
    column_texts,
    exact_texts,
    exact_value,
    format_value,
    printed_spec,
)
from jubex.results.tables.columns import PlusMinus

FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1020.09])
#: the values table cells hold: numbers, sizes, text, pairs, flags and missing ones
VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    FLOATS,
    st.text(max_size=4),
    st.builds(Size, st.integers(0, 2**40), st.sampled_from(["1MiB", "4KiB", "64k"])),
    st.builds(PlusMinus, st.none() | FLOATS, st.none() | FLOATS),
)
#: one kind of value per column, or a few mixed: as a real column holds them
COLUMN = st.one_of(
    st.lists(VALUE, max_size=12),
    st.lists(FLOATS | st.none(), max_size=12),
    st.lists(st.integers(0, 100), max_size=12),
    st.lists(st.builds(Size, st.integers(0, 2**20), st.just("1MiB")), max_size=5),
)
SPEC = st.sampled_from([None, "", ".2f", "+.1f", ".3g", ".4g", "d", ">8,.1f", "x", "{", "}"])


def _spec_of_column(values) -> str | None:
    """column_spec as it was written first, value by value: the reference."""
    sizes = [
        abs(x)
        for v in values
        for x in ([v.value] if isinstance(v, PlusMinus) else [v])
        if type(x) is float and math.isfinite(x) and x != 0
    ]
    if not sizes:
        return None
    big, small = max(sizes), min(sizes)
    if not 1e-4 <= big < 1e12:
        return ".4g"
    decimals = max(3 - math.floor(math.log10(big)), 1 - math.floor(math.log10(small)))
    decimals = min(max(decimals, 0), 6)
    shown = [f"{x:.{decimals}f}" for x in sizes]
    while decimals and all(text.endswith("0") for text in shown):
        decimals -= 1
        shown = [text[:-1] for text in shown]
    return f".{decimals}f"


@settings(max_examples=400, deadline=None)
@given(
    values=COLUMN,
    spec=SPEC,
    missing=st.sampled_from(["—", "", "--"]),
    floats_only=st.booleans(),
    printed=st.booleans(),
    unformatted=st.booleans(),
)
@example(
    values=[1, 2.5, None],
    spec="d",
    missing="—",
    floats_only=False,
    printed=False,
    unformatted=False,
)
@example(
    values=["a", 3], spec=".2f", missing="—", floats_only=False, printed=False, unformatted=False
)
def test_a_column_reads_as_its_cells_one_by_one(
    values, spec, missing, floats_only, printed, unformatted
) -> None:
    def by_cell(value: object) -> str:
        if unformatted and not spec and type(value) is float:
            return str(value)
        shown = printed_spec(spec, value) if printed else spec
        return format_value(value, shown, missing, floats_only=floats_only)

    texts = column_texts(
        values, spec, missing, floats_only=floats_only, printed=printed, unformatted=unformatted
    )
    assert texts == [by_cell(v) for v in values]


@settings(max_examples=300, deadline=None)
@given(values=COLUMN)
@example(values=[1.5, 2.5, math.nan, math.inf, -0.0])
@example(values=[1.0000001, 2.0])
def test_a_columns_decimals_and_exact_texts_are_the_cells_rule(values) -> None:
    assert column_spec(values) == _spec_of_column(values)
    assert column_spec(iter(values)) == _spec_of_column(values)
    assert exact_texts(values) == [exact_value(v) for v in values]
