"""What a series keeps once its pages are written (:meth:`Series.slim`): its latest runs
with a mean and its change points, in order, without their repetitions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jubex.dashboard.model import Entry, Series


@given(
    st.lists(st.tuples(st.none() | st.floats(allow_nan=False), st.sampled_from([None, "worse"]))),
    st.integers(1, 7),
)
def test_a_slim_series_keeps_its_latest_measured_runs_and_its_change_points(
    figures: list[tuple[float | None, str | None]], latest: int
) -> None:
    series = Series("b", "s", "l", "bw", "MiB/s", True, {})
    series.entries = [
        Entry(i, float(i), [1.0, 2.0], mean, None, mark=mark)
        for i, (mean, mark) in enumerate(figures)
    ]
    measured = [e.run for e in series.entries if e.mean is not None][-latest:]
    expected = [e.run for e in series.entries if e.run in measured or e.mark]
    series.slim(latest)
    assert [e.run for e in series.entries] == expected
    assert series.count == len(figures)
    assert all(e.values == [] for e in series.entries)
