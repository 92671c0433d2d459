"""A history's points as text (written once per point where that shows every cell as it
is), and its keys chosen from a few rows of each run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.language.values import Bool, Size
from jubex.results.tables.keys import default_keys
from jubex.results.trends.cells import Cells
from jubex.results.trends.columns import RunColumns, parameter_rows
from jubex.results.trends.history import _texts

#: values of a key, equal ones among them written differently (0.0 and -0.0, 1 and True)
VALUES = [
    st.sampled_from(["a", "b", "1"]),
    st.integers(0, 1),
    st.booleans(),
    st.none(),
    st.sampled_from([0.0, -0.0, 1.0]),
    st.sampled_from([Size(1024, "1KiB"), Size(1024, "1024"), Size(2048, "2KiB")]),
    st.sampled_from([Bool(True, "yes"), Bool(True, "true"), Bool(False, "no")]),
]


@st.composite
def _cells(draw: st.DrawFn) -> Cells:
    """Cells whose points are tuples of keys, each key's values of one or several kinds."""
    columns = [
        st.one_of(*draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=3)))
        for _ in range(draw(st.integers(1, 3)))
    ]
    cells = Cells()
    ids: dict[tuple[object, ...], int] = {}
    for point in draw(st.lists(st.tuples(*columns), min_size=1, max_size=30)):
        at = ids.setdefault(point, len(ids))
        if at == len(cells.points):
            cells.points.append(point)
        cells.point.append(point)
        cells.at.append(at)
    return cells


@settings(max_examples=300)
@given(_cells())
def test_each_cell_is_its_own_point_as_text(cells: Cells) -> None:
    assert _texts(cells) == [str(point) for point in cells.point]


@st.composite
def _runs(draw: st.DrawFn) -> list[RunColumns]:
    """Runs as columns of parameters (``p``, ``q``; ``x`` no parameter), some of them
    holding equal values written differently."""
    runs = []
    for i in range(draw(st.integers(1, 4))):
        size = draw(st.integers(0, 6))
        names = draw(st.permutations(["p", "q", "x"]))
        columns: dict[str, object] = {}
        for name in names[: draw(st.integers(0, 3))]:
            kind = st.one_of(*draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=2)))
            columns[name] = draw(st.lists(kind, min_size=size, max_size=size))
        runs.append(RunColumns(str(i), float(i), columns, size))
    return runs


@settings(max_examples=300)
@given(_runs())
def test_the_rows_of_parameters_choose_the_keys_all_rows_choose(runs: list[RunColumns]) -> None:
    parameters = {"p", "q"}
    every = [
        [{n: c[i] for n, c in run.columns.items() if n in parameters} for i in range(run.size)]
        for run in runs
    ]
    chosen = default_keys(parameter_rows(runs, parameters), parameters)
    assert chosen == default_keys(every, parameters)
