"""A history made from the runs' kept columns against the one made from their rows: the
same table, cell for cell, on real runs (failed workpackages, iterations at a point, a
setting that changed, typed parameters) and on random cells."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.results.samples.kept import summary_key, thaw, thaw_columns
from jubex.results.tables.columns import Row
from jubex.results.trends import history as history_module
from jubex.results.trends.cells import Cells, cells_of
from jubex.results.trends.columns import RunColumns, cells_of_columns
from jubex.results.trends.history import RunRows, history_of_runs
from jubex.results.trends.steps import numbers_at
from jubex.store.rundir import list_runs, open_run

DEFINITION = r"""
name: hcol
outpath: runs
parameters:
  x: [1, 2, 3]
  size: [1MiB, 4MiB]
  level_file: LEVEL
  mode: MODE
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
    lat: {regex: '^lat: $jube_pat_fp', type: float}
steps:
  run:
    iterations: 2
    do:
      - "test $x != 3 -o $jube_wp_iteration != 1 || exit 1"
      - "echo bw: $(( $(cat $level_file) + $jube_wp_iteration * $x )) MiB/s; echo lat: $x"
    analyse: [bw]
"""


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four runs: the system slower at the third, the setting ``mode`` changed at the
    fourth; the second iteration of x=3 fails in each."""
    base = tmp_path_factory.mktemp("columns")
    level = base / "level.txt"
    for value, mode in (("1000", "a"), ("1001", "a"), ("700", "a"), ("700", "b")):
        path = base / "hcol.yaml"
        path.write_text(DEFINITION.replace("LEVEL", str(level)).replace("MODE", mode))
        level.write_text(value)
        main(["run", str(path), "-q", "--no-result"])
    return base / "runs"


def _both(runs_dir: Path, monkeypatch: pytest.MonkeyPatch, **options: object) -> tuple[str, str]:
    """The history of the runs from their columns, then from their rows (the column path
    switched off), as JSON tables."""
    from jubex.results.tables.formats import render

    def opened() -> list:
        return [open_run(path, follow=False) for path in list_runs(runs_dir)]

    history_of_runs(opened(), **options)  # type: ignore[arg-type]  # the rows kept
    taken: list[bool] = []
    columns_path = history_module._history_of_columns

    def watched(*args: object, **kwargs: object) -> object:
        table = columns_path(*args, **kwargs)  # type: ignore[arg-type]
        taken.append(table is not None)
        return table

    monkeypatch.setattr(history_module, "_history_of_columns", watched)
    from_columns = render(history_of_runs(opened(), **options), "json")  # type: ignore[arg-type]
    assert taken == [True]  # the columns answered: no rows were read
    monkeypatch.setattr(history_module, "_history_of_columns", lambda *a, **k: None)
    from_rows = render(history_of_runs(opened(), **options), "json")  # type: ignore[arg-type]
    return from_columns, from_rows


@pytest.mark.parametrize(
    "options",
    [
        {"metrics": ["bw"]},
        {"metrics": ["bw", "lat"], "keys": ["x"]},
        {"metrics": ["bw"], "keys": ["size"], "by": ["mode"]},
        {"metrics": ["lat"], "keys": ["x", "jube_wp_iteration"]},
    ],
)
def test_the_columns_give_the_table_the_rows_give(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, object]
) -> None:
    from_columns, from_rows = _both(runs_dir, monkeypatch, **options)
    assert from_columns == from_rows
    assert "failed workpackage(s)" in from_rows and "change point(s)" in from_rows


def test_a_metric_in_no_run_is_the_rows_error(runs_dir: Path) -> None:
    from jubex.errors import UsageError

    runs = [open_run(path, follow=False) for path in list_runs(runs_dir)]
    with pytest.raises(UsageError, match="metric 'bww' is in none of the runs"):
        history_of_runs(runs, metrics=["bww"])


def test_kept_columns_are_the_kept_rows(runs_dir: Path) -> None:
    # the rows kept by a history of their own: this test may be the first of the module
    # its process runs (the runs' fixture made anew)
    history_of_runs([open_run(path, follow=False) for path in list_runs(runs_dir)], metrics=["bw"])
    for path in list_runs(runs_dir):
        run = open_run(path, follow=False)
        data = run.store.summary(summary_key({"bw"}, True))
        assert data is not None
        rows = thaw(run, data, None)
        (columns,) = thaw_columns(run, data, None) or [None]
        assert rows is not None and columns is not None
        by_name = columns.pop("samples")
        made = [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]
        assert [{k: v for k, v in row.items() if k != "samples"} for row in rows] == made
        assert [row["samples"] for row in rows] == [
            {name: found[i] for name, found in by_name.items() if found[i]}
            for i in range(len(rows))
        ]
        assert thaw_columns(run, data.replace('"ok"', '"ko"'), None) is None  # as thaw


def test_a_value_that_is_no_finite_float_is_left_to_the_rows() -> None:
    columns = {"ok": [True], "x": [1], "m": [float("nan")], "samples": {}}
    assert cells_of_columns([RunColumns("r", 0.0, columns, 1)], ["x"], [], ["m"]) is None
    columns["m"] = [None]  # a value the run lacks at a point: the rows' note says so
    assert cells_of_columns([RunColumns("r", 0.0, columns, 1)], ["x"], [], ["m"]) is None


#: a run's rows of one shape: the keys every row holds, and the rows' values
_VALUES = st.sampled_from([1, 2, "a", 1.5])
_SAMPLES = st.lists(st.floats(-1e6, 1e6), max_size=3).map(tuple)


@st.composite
def _runs(draw: st.DrawFn) -> list[tuple[list[Row], dict[str, object]]]:
    """Runs as rows and as the columns of those rows."""
    found = []
    for _ in range(draw(st.integers(0, 4))):
        names = draw(st.lists(st.sampled_from(["a", "b", "c", "platform", "site"]), unique=True))
        size = draw(st.integers(0, 5))
        rows: list[Row] = []
        for _ in range(size):
            row: dict[str, object] = {name: draw(_VALUES) for name in names}
            row["ok"] = draw(st.booleans())
            row["m"] = draw(st.floats(-1e6, 1e6))
            row["samples"] = {"m": draw(_SAMPLES)}
            rows.append(row)
        columns: dict[str, object] = {
            key: [row[key] for row in rows] for key in [*names, "ok", "m"]
        }
        columns["samples"] = {"m": [row["samples"]["m"] for row in rows]}  # type: ignore[index]
        found.append((rows, columns))
    return found


def _cells_both_ways(
    runs: Sequence[tuple[list[Row], dict[str, object], str]], keys: list[str]
) -> tuple[Cells, Cells, dict[str, list[Sequence[float]]]]:
    """The cells of the runs (rows, columns, definition) made from their rows and from
    their columns, checked to be the same, and the samples the columns give."""
    by_rows = [RunRows(f"r{i}", float(i), rows, d) for i, (rows, _, d) in enumerate(runs)]
    by_columns = [
        RunColumns(f"r{i}", float(i), columns, len(rows), d)
        for i, (rows, columns, d) in enumerate(runs)
    ]
    others = [name for name in ("a", "b", "c") if name not in keys]
    expected = cells_of(by_rows, keys, others)
    made = cells_of_columns(by_columns, keys, others, ["m"])
    assert made is not None
    cells, samples = made
    assert (cells.run, cells.point, cells.at) == (expected.run, expected.point, expected.at)
    assert (cells.setting, cells.points) == (expected.setting, expected.points)
    assert (cells.settings, cells.notes) == (expected.settings, expected.notes)
    return expected, cells, samples


@settings(max_examples=80, deadline=None)
@given(_runs(), st.lists(st.sampled_from(["a", "b"]), unique=True))
def test_cells_of_columns_are_the_cells_of_rows(
    runs: Sequence[tuple[list[Row], dict[str, object]]], keys: list[str]
) -> None:
    expected, _, samples = _cells_both_ways(
        [(rows, columns, "d" * 64) for rows, columns in runs], keys
    )
    ((kept, numbers, errors, flat),) = numbers_at(expected.rows, ["m"])
    assert (kept, errors) == (list(range(len(expected.rows))), [])
    assert [list(found) for found in samples["m"]] == [list(found) for found in numbers]
    assert flat is None or flat.tolist() == [v for found in numbers for v in found]


_EQUAL = {1: [1, 1.0, True], 2: [2, 2.0], "a": ["a"], 1.5: [1.5]}


@st.composite
def _repeated_runs(draw: st.DrawFn) -> list[tuple[list[Row], dict[str, object], str]]:
    """Runs of which many repeat the points of the run before them, with samples of their
    own, values that are equal but are other types (1, 1.0, True: other texts), other
    ``ok`` or another definition: a history of one study, and what may tell its runs apart."""
    found: list[tuple[list[Row], dict[str, object], str]] = []
    for rows, _ in draw(_runs()):
        found.append((rows, {}, draw(st.sampled_from(["d" * 64, "e" * 64]))))
        for _ in range(draw(st.integers(0, 3))):
            earlier, _, definition = found[-1]
            copied = [
                {
                    **row,
                    **{
                        key: draw(st.sampled_from(_EQUAL[value]))
                        for key, value in row.items()
                        if key in ("a", "b", "c") and draw(st.integers(0, 4)) == 0
                    },
                    "ok": row["ok"] if draw(st.integers(0, 4)) else not row["ok"],
                    "samples": {"m": draw(_SAMPLES)},
                }
                for row in earlier
            ]
            if draw(st.integers(0, 4)) == 0:
                definition = draw(st.sampled_from(["d" * 64, "e" * 64]))
            found.append((copied, {}, definition))
    return [
        (rows, {**_columns_of(rows), "samples": {"m": [r["samples"]["m"] for r in rows]}}, d)  # type: ignore[index]
        for rows, _, d in found
    ]


def _columns_of(rows: list[Row]) -> dict[str, object]:
    keys = dict.fromkeys(key for row in rows for key in row if key != "samples")
    return {key: [row[key] for row in rows] for key in keys}


@settings(max_examples=120, deadline=None)
@given(_repeated_runs(), st.lists(st.sampled_from(["a", "b"]), unique=True))
def test_runs_repeating_the_one_before_have_the_cells_of_their_rows(
    runs: Sequence[tuple[list[Row], dict[str, object], str]], keys: list[str]
) -> None:
    expected, cells, _ = _cells_both_ways(runs, keys)
    assert [list(map(type, p)) for p in cells.point] == [list(map(type, p)) for p in expected.point]


_META = {
    "jube_wp_id": st.integers(0, 9),
    "jube_step_name": st.just("run"),
    "jube_wp_iteration": st.integers(0, 2),
    "run": st.just("000000"),
    "platform": st.just("local"),
    "site": st.sampled_from(["a", "b"]),
    "ok": st.booleans(),
    "reason": st.just(""),
    "finished": st.booleans(),
    "reduced": st.just(False),
    "executions": st.just({}),
    "concurrent": st.integers(0, 3),
}
_FLOATS = st.lists(st.floats(-1e9, 1e9), min_size=1, max_size=3)


@st.composite
def _kept(draw: st.DrawFn) -> list[object]:
    """Kept segments as :func:`~jubex.results.samples.kept.freeze` writes them: samples a
    row at a time (their names varying) or packed, floats as values or as their bytes."""
    from jubex.results.samples.kept import _bytes_text

    segments: list[object] = []
    for _ in range(draw(st.integers(0, 2))):
        size = draw(st.integers(1, 4))
        keys = [*_META, "samples", "m"]
        columns: list[object] = [[draw(st.sampled_from(["1", "2", "4"])) for _ in range(size)]]
        columns += [[draw(_META[key]) for _ in range(size)] for key in _META]
        if draw(st.booleans()):
            names = ["m", "m_1"]
            counts = [[draw(st.integers(0, 2)) for _ in range(size)] for _ in names]
            values = [_bytes_text([1.5 * i for i in range(sum(c))]) for c in counts]
            columns.append({"names": names, "sizes": counts, "values": values})
        else:
            names = ["m", "m_1", "q"]
            columns.append(
                [
                    {n: draw(_FLOATS) for n in draw(st.lists(st.sampled_from(names), unique=True))}
                    for _ in range(size)
                ]
            )
        m = [draw(st.floats(-1e9, 1e9)) for _ in range(size)]
        columns.append(_bytes_text(m) if draw(st.booleans()) else m)
        segments.append([["x"], keys, columns])
    return segments


@settings(max_examples=60, deadline=None)
@given(segments=_kept())
def test_kept_columns_are_the_kept_rows_whatever_their_shape(
    runs_dir: Path, segments: list[object]
) -> None:
    import json

    run = open_run(list_runs(runs_dir)[0], follow=False)
    data = json.dumps(segments)
    rows = thaw(run, data, None)
    found = thaw_columns(run, data, None)
    assert rows is not None and found is not None
    made: list[Row] = []
    for columns in found:
        by_name: dict[str, list[tuple[float, ...]]] = columns["samples"]  # type: ignore[assignment]
        for i in range(len(columns["ok"])):  # type: ignore[arg-type]
            made.append(  # in the rows' order of keys
                {
                    key: {n: s[i] for n, s in by_name.items() if s[i]}
                    if key == "samples"
                    else column[i]  # type: ignore[index]
                    for key, column in columns.items()
                }
            )
    assert [list(row) for row in rows] == [list(row) for row in made]
    for row in rows:
        row["samples"] = {n: s for n, s in row["samples"].items() if s}  # type: ignore[attr-defined]
    assert rows == made
