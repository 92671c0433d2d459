"""A metric over runs: changes from run to run, marked where beyond noise and tolerance."""

import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.trends.history import RunRows, history_figures, setting_of

#: five repetitions with a relative spread of about 1.2 %
OFFSETS = (-1.5, -0.5, 0.0, 0.5, 1.5)


def run(label, created, level, spread=0.01):
    rows = [{"p": "a", "bw": level * (1 + spread * o), "ok": True} for o in OFFSETS]
    return RunRows(label, created, rows)


def follow(runs, **options):
    table = history_figures(
        runs, keys=["p"], metrics=["bw"], directions={"bw": True}, units={"bw": "MiB/s"}, **options
    ).table()
    return table, [(r["run"], r["change_point"]) for r in table.records()]


def test_a_step_down_and_back_up_are_the_change_points():
    runs = [
        run("0", 1, 100),
        run("1", 2, 101),
        run("2", 3, 80),
        run("3", 4, 80.5),
        run("4", 5, 100),
    ]
    table, marks = follow(runs)
    assert marks == [("0", None), ("1", None), ("2", "worse"), ("3", None), ("4", "better")]
    changes = table.column("change")
    assert changes[0] is None and changes[2] == pytest.approx(-100 * 21 / 101)
    assert table.notes[-1].startswith("2 change point(s)") and "over 4 test(s)" in table.notes[-1]


def test_runs_are_shown_oldest_first_whatever_the_order_given():
    _, marks = follow([run("b", 20, 100), run("a", 10, 100)])
    assert [label for label, _ in marks] == ["a", "b"]


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["block", "rep", "platform", "site", "other"]),
        st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3)),
    )
)
def test_a_point_of_one_row_has_the_setting_of_that_row_twice(row: dict[str, object]) -> None:
    """A point of one row (most points) is told without the pass over rows a point of
    several makes; two copies of the row make that pass and give the same setting."""
    run = RunRows("r", 0.0, [], "abcdef0123456789")
    others = ["block", "rep"]
    assert setting_of(run, [row], others) == setting_of(run, [row, dict(row)], others)


def test_a_change_within_the_tolerance_or_the_noise_is_no_change_point():
    _, marks = follow([run("0", 1, 100), run("1", 2, 97)])  # beyond the noise, within 5 %
    assert marks[1] == ("1", None)
    _, marks = follow([run("0", 1, 100, 0.2), run("1", 2, 90, 0.2)])  # within the noise
    assert marks[1] == ("1", None)


def test_a_long_unchanged_history_marks_nothing():
    rng = random.Random(5)
    runs = [
        RunRows(str(i), i, [{"p": "a", "bw": rng.gauss(100, 5)} for _ in range(5)])
        for i in range(40)
    ]
    _, marks = follow(runs)
    assert not [label for label, mark in marks if mark]


def test_the_change_points_are_found_without_importing_scipy():
    """scipy.special takes half a second to import, more than a history's tests: the t
    distribution of the change points is jubex's own."""
    probe = (
        "import sys\n"
        "from jubex.results.trends.history import RunRows, history_figures\n"
        "runs = [RunRows(str(i), i, [{'p': 'a', 'bw': v, 'samples': {'bw': v}}])\n"
        "        for i, v in enumerate([[1.0, 2.0, 3.0], [1.5, 2.5, 3.5], [9.0, 9.5, 10.0]])]\n"
        "t = history_figures(runs, keys=['p'], metrics=['bw'], directions={}, units={}).table()\n"
        "p = t.column('p_adjusted')\n"
        "assert p[0] is None and 0 < p[2] < p[1] <= 1, p\n"
        "print(sorted(m for m in sys.modules if m.startswith('scipy')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
