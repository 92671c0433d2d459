"""A selection's samples made into rows a point (:func:`sample_rows`): the rows of the
points' samples (their packs) taken one at a time (the reference below), on generated
selections: points of no sample, missing values, several iterations, metrics missing from
some repetitions, units and directions that differ between samples of a metric."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.model import Benchmark
from jubex.platform.model import Platform
from jubex.resultsdb.packs import PointSet, as_set
from jubex.resultsdb.samples import Samples, sample_rows
from jubex.resultsdb.sql import RunRow, direction
from jubex.space.spec import RunSpec
from jubex.store.store import Decoder


def reference(
    found: Samples, wide: list[tuple[Any, ...]]
) -> tuple[dict[int, Any], dict[str, str], dict[str, Any]]:
    """Each sample in turn, with its point's run, step and parameters (``wide``: a row of
    no sample for a point that holds none): a new point a row, a repetition's first
    sample its value where the row has none yet, every sample in its metric's list."""
    decode = Decoder(found.latest_spec.benchmark.parameter_types())
    runs = {run.id: run for run in found.runs}
    by_run: dict[int, dict[str, Any]] = {}
    units: dict[str, str] = {}
    directions: dict[str, bool | None] = {}
    last_point = last_sample = None
    row: dict[str, Any] = {}
    for run_id, point, step, text, metric, repetition, _, value, unit, better in wide:
        if point != last_point:
            last_point, last_sample, run = point, None, runs[run_id]
            values = json.loads(text)
            made = by_run.setdefault(run_id, {"held": [], "bare": [], "names": set()})
            made["names"].update(values)
            row = {
                **decode(values),
                "jube_step_name": step,
                "platform": run.platform,
                "site": run.site,
            }
            made["bare" if metric is None else "held"].append(row)
            if metric is None:
                continue
            row["samples"] = {}
        if (repetition, metric) != last_sample:
            last_sample = (repetition, metric)
            if row.get(metric) is None:
                row[metric] = value
        row["samples"].setdefault(metric, []).append(value)
        if metric not in units:
            units[metric] = unit
            directions[metric] = direction(better)
    return by_run, units, directions


def run_row(run: int) -> RunRow:
    fields = {name: f"{name}{run}" for name in RunRow._fields}
    return RunRow(**{**fields, "id": run, "created": float(run), "every_sample": True})  # type: ignore[arg-type]


point_samples = st.lists(
    st.tuples(
        st.sampled_from(["m1", "m2", "m3"]),
        st.integers(0, 2),  # repetition
        st.integers(0, 1),  # iteration
        st.none() | st.floats(allow_nan=False) | st.integers(-3, 3),
        st.sampled_from(["MiB/s", "s"]),
        st.sampled_from([None, 0, 1]),
    ),
    max_size=8,
    unique_by=lambda s: s[:3],
)


@settings(max_examples=300, deadline=None)
@given(
    runs=st.lists(
        st.lists(
            st.tuples(st.sampled_from(['{"a": "1"}', '{"a": "2", "b": "x"}']), point_samples),
            min_size=1,
            max_size=3,
        ),
        min_size=1,
        max_size=3,
    )
)
def test_the_rows_are_those_of_each_sample_in_turn(
    runs: list[list[tuple[str, list[tuple[Any, ...]]]]],
) -> None:
    points: list[tuple[Any, ...]] = []
    sets: list[PointSet] = []
    wide: list[tuple[Any, ...]] = []  # as one query of the points and their samples
    point = 0
    for run, of_run in enumerate(runs, 1):
        for parameters, samples in of_run:
            point += 1
            points.append((run, point, "s", parameters))
            if not samples:
                wide.append((run, point, "s", parameters, *(None,) * 6))
            else:
                sets.append(as_set(point, [(point, *sample) for sample in samples]))
            # in a pack's order: by metric, repetition, iteration
            for sample in sorted(samples):
                wide.append((run, point, "s", parameters, *sample))
    spec = RunSpec(Benchmark(name="b"), Platform(name="p"))
    found = Samples([run_row(run) for run in range(1, len(runs) + 1)], points, sets, spec)
    made = sample_rows(found)
    by_run, units, directions = reference(found, wide)
    assert made.units == units and made.directions == directions
    assert set(made.by_run) == set(by_run)
    for run, expected in by_run.items():
        got = made.by_run[run]
        assert got.names == expected["names"]
        for kind in ("held", "bare"):
            mine, theirs = getattr(got, kind), expected[kind]
            assert [list(r.items()) for r in mine] == [list(r.items()) for r in theirs]
