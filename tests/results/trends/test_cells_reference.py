"""The cells of a history against the row-by-row grouping they replaced: the same points,
rows and notes, whatever the rows hold (failed, ``ok`` missing or falsy but not False,
keys missing, points of several rows, equal values of other types)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.tables.columns import Row
from jubex.results.trends.cells import cells_of
from jubex.results.trends.history import RunRows


def _grouped(rows: Sequence[Row], keys: Sequence[str]) -> tuple[dict, int]:
    """The grouping as first written: a row at a time."""
    local: dict[tuple[object, ...], list[Row]] = {}
    failed = 0
    for row in rows:
        if row.get("ok", True) is False:
            failed += 1
            continue
        local.setdefault(tuple(row.get(key) for key in keys), []).append(row)
    return local, failed


_ROW = st.fixed_dictionaries(
    {},
    optional={
        "p": st.sampled_from([1, 1.0, True, 2, "1", None]),
        "q": st.sampled_from(["a", "b"]),
        "ok": st.sampled_from([True, False, 0, None]),
        "platform": st.just("local"),
        "site": st.sampled_from(["x", "y"]),
    },
)


@settings(deadline=None)
@given(
    st.lists(st.lists(_ROW, max_size=6), min_size=1, max_size=4),
    st.sampled_from([["p"], ["p", "q"], [], ["q"]]),
)
def test_cells_group_as_row_by_row(sides, keys):
    runs = [RunRows(str(i), float(i), rows, "0123456789abcdef") for i, rows in enumerate(sides)]
    cells = cells_of(runs, keys, [])
    expected_points, expected_rows, expected_notes = [], [], []
    for run in runs:
        local, failed = _grouped(run.rows, keys)
        expected_points += list(local)
        expected_rows += list(local.values())
        left = f"{failed} failed workpackage(s) of the run {run.label} left out"
        expected_notes.append([left] if failed else [])
    assert cells.point == expected_points
    assert [[id(row) for row in rows] for rows in cells.rows] == [
        [id(row) for row in rows] for rows in expected_rows
    ]
    assert cells.notes == expected_notes
