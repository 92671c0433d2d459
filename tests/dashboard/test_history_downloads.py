"""A history's downloads laid out from pieces by slices: the same bytes as the rows
written one at a time (the reference below, the way they were written before), on
generated series: non-finite values and means, single and missing repetitions, marks,
labels CSV must quote, runs shared by the series of a group."""

from __future__ import annotations

import json
import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.dashboard import pages
from jubex.dashboard.build import RunStarts, _csv_cell, _csv_line, _history_downloads, _json
from jubex.dashboard.model import Dashboard, Entry, RunInfo, Series


class Kept:
    """A writer that keeps what it is given."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def put(self, path: str, content: str) -> None:
        self.files[path] = content


def reference(site: Dashboard, series: Series) -> dict[str, str]:
    """The downloads written a row at a time, each row a string of its own."""
    columns = ["run", "created", "repetition", series.metric, "unit", "mean", "change_point"]
    lines = [_csv_line(columns)]
    records: list[str] = []
    names = [json.dumps(c) for c in columns]
    unit, unit_cell = json.dumps(series.unit), _csv_cell(series.unit)
    for e in series.entries:
        label, created = site.runs[e.run].label, pages.date(e.created)
        head = f"{{{names[0]}:{json.dumps(label)},{names[1]}:{json.dumps(created)},{names[2]}:"
        first = f"{_csv_cell(label)},{_csv_cell(created)},"
        mark = (json.dumps(e.mark or ""), _csv_cell(e.mark or ""))
        tail = f",{names[4]}:{unit},{names[5]}:{_json(e.mean)},{names[6]}:{mark[0]}}}"
        mean = "" if e.mean is None else repr(e.mean)
        last = f",{unit_cell},{mean},{mark[1]}\n"
        for r, v in enumerate(e.values):
            shown = repr(v) if all(map(math.isfinite, e.values)) else _json(v)
            lines.append(f"{first}{r},{v!r}{last}")
            records.append(f"{head}{r},{names[3]}:{shown}{tail}")
    stem = f"data/history/{Path(series.page).stem}"
    return {f"{stem}.csv": "".join(lines), f"{stem}.json": f"[{','.join(records)}]"}


numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 5)
texts = st.text(alphabet='ab,"\n <é>', max_size=6)
entries = st.tuples(
    st.integers(0, 3),  # the run
    st.lists(numbers, max_size=4),  # its repetitions: none, one, several
    st.none() | st.floats(allow_nan=True, allow_infinity=True),  # the mean
    st.sampled_from([None, "", "worse", "better", 'a,"b']),  # the mark
)


@settings(max_examples=300, deadline=None)
@given(
    labels=st.lists(texts, min_size=4, max_size=4),
    units=st.lists(texts, min_size=1, max_size=3),
    groups=st.lists(st.lists(entries, max_size=6), min_size=1, max_size=3),
)
def test_the_downloads_are_the_rows_written_one_at_a_time(
    labels: list[str], units: list[str], groups: list[list[tuple[object, ...]]]
) -> None:
    runs = {
        i: RunInfo(i, label, "b", "s", "l", 1.0e9 + i * 7e4, {}, {})
        for i, label in enumerate(labels)
    }
    site = Dashboard("db:", runs, [], [], {}, {}, [])
    made, expected = Kept(), {}
    starts: dict[int, RunStarts] = {}  # shared by the series of the group, as a build does
    for n, found in enumerate(groups):
        series = Series("b", "s", "l", f'm"{n}', units[n % len(units)], True, {})
        series.entries = [
            Entry(run, runs[run].created, list(values), mean, None, mark=mark)  # type: ignore[arg-type]
            for run, values, mean, mark in found
        ]
        _history_downloads(made, site, series, starts)  # type: ignore[arg-type]
        expected.update(reference(site, series))
    assert made.files == expected
