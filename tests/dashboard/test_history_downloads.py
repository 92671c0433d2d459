"""A history's downloads: the rows of its page's listing, every run, written as :mod:`csv`
and :mod:`json` write them (the reference below), on generated series: non-finite values
and means, single and missing repetitions, marks, labels CSV must quote, runs shared by
the series of a group."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.dashboard import pages
from jubex.dashboard.build import RunStarts, _history_downloads
from jubex.dashboard.model import Dashboard, Entry, RunInfo, Series


class Kept:
    """A writer that keeps what it is given."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def put(self, path: str, content: str) -> None:
        self.files[path] = content


def reference(site: Dashboard, series: Series) -> dict[str, str]:
    """The downloads as the csv and json modules write the listing's rows, newest first."""
    columns = list(pages.HISTORY_COLUMNS)
    text = io.StringIO()
    table = csv.writer(text, lineterminator="\n")
    table.writerow(columns)
    records = []
    for e in reversed(series.entries):
        head = [site.runs[e.run].label, pages.date(e.created), len(e.values)]
        numbers = [e.mean, e.std, e.change, e.p_adjusted]
        table.writerow([*head, *numbers, e.mark or "", " ".join(map(repr, e.values))])
        row = [*head, *map(pages.finite, numbers), e.mark or "", list(map(pages.finite, e.values))]
        records.append(dict(zip(columns, row, strict=True)))
    stem = f"data/history/{Path(series.page).stem}"
    return {
        f"{stem}.csv": text.getvalue(),
        f"{stem}.json": json.dumps(records, separators=(",", ":"), allow_nan=False),
    }


numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 5)
maybe = st.none() | st.floats(allow_nan=True, allow_infinity=True)
texts = st.text(alphabet='ab,"\n <é>', max_size=6)
entries = st.tuples(
    st.integers(0, 3),  # the run
    st.lists(numbers, max_size=4),  # its repetitions: none, one, several
    st.tuples(maybe, maybe, maybe, maybe),  # mean, std, change, adjusted p
    st.sampled_from([None, "", "worse", "better", 'a,"b']),  # the mark
)


@settings(max_examples=300, deadline=None)
@given(
    labels=st.lists(texts, min_size=4, max_size=4),
    groups=st.lists(st.lists(entries, max_size=6), min_size=1, max_size=3),
)
def test_the_downloads_are_the_listing_as_csv_and_json_write_it(
    labels: list[str], groups: list[list[tuple[object, ...]]]
) -> None:
    runs = {
        i: RunInfo(i, label, "b", "s", "l", 1.0e9 + i * 7e4, {}, {})
        for i, label in enumerate(labels)
    }
    site = Dashboard("db:", runs, [], [], {}, {}, [])
    made, expected = Kept(), {}
    starts: dict[int, RunStarts] = {}  # shared by the series of the group, as a build does
    for n, found in enumerate(groups):
        series = Series("b", "s", "l", f'm"{n}', "MiB/s", True, {})
        series.entries = [
            Entry(run, runs[run].created, list(values), *figures, mark=mark)  # type: ignore[arg-type,misc]
            for run, values, figures, mark in found
        ]
        _history_downloads(made, site, series, starts)  # type: ignore[arg-type]
        expected.update(reference(site, series))
    assert made.files == expected
