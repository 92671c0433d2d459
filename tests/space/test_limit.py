"""The work a run would make, counted without listing it, and the limit it must keep."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jubex.api import validate
from jubex.definition.load import load
from jubex.errors import DefinitionError
from jubex.space.limit import DEFAULT_LIMIT, check_work, count_work
from jubex.space.plan import plan, step_space

CROSS = "name: big\nparameters:\n" + "".join(
    f"  {n}: {{range: {{start: 0, stop: 99, step: 1}}}}\n" for n in "abcdefghij"
)


def write(tmp_path: Path, text: str, name: str = "b.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def jubex(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], capture_output=True, text=True, timeout=120
    )


def test_counts_follow_the_plan_for_parents_iterations_and_shared_steps(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\nparametersets:\n  build: {cc: [gcc, clang]}\n  run: {n: [1, 2, 3]}\n"
        "steps:\n  build: {use: [build], iterations: 2, do: make}\n"
        "  run: {use: [run], depend: [build], iterations: 3, cycles: 2,"
        " shared: sh, do: [{cmd: x, shared: true}]}\n",
    )
    b = load(path)
    work = {s.step: s for s in count_work(b)}
    listed = list(plan(b))
    for step in ("build", "run"):
        assert work[step].workpackages == sum(1 for wp in listed if wp.step == step)
    assert work["run"].work == work["run"].workpackages * 2
    assert all(s.exact for s in work.values())


def test_constraints_make_the_count_an_upper_bound(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\nparameters: {n: [1, 2, 3, 4]}\nwhere: ['n > 2']\nsteps:\n  run: {do: x}\n",
    )
    (work,) = count_work(load(path))
    assert (work.points, work.exact) == (4, False)


def test_above_the_limit_is_refused_with_the_count_and_how_to_raise_it(tmp_path: Path) -> None:
    b = load(write(tmp_path, CROSS + "steps:\n  run: {do: x}\n"))
    with pytest.raises(DefinitionError) as caught:
        check_work(b)
    assert "about 10^20" in caught.value.message
    assert f"{DEFAULT_LIMIT:,}" in caught.value.message
    assert "--max-workpackages" in caught.value.hint


def test_the_command_line_wins_over_the_definition(tmp_path: Path) -> None:
    b = load(
        write(
            tmp_path,
            "name: b\nmax_workpackages: 10\nparameters: {n: [1, 2, 3, 4]}\n"
            "steps:\n  run: {iterations: 5, do: x}\n",
        )
    )
    with pytest.raises(DefinitionError, match=r"20 workpackage cycles.*limit of 10"):
        check_work(b)
    check_work(b, limit=20)
    with pytest.raises(DefinitionError, match="limit of 19"):
        check_work(b, limit=19)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        (CROSS + "steps:\n  run: {do: x}\n", "about 10^20"),
        (
            "name: b\nparameters: {a: 1}\nsteps:\n  run: {iterations: 1000000000000, do: x}\n",
            "1,000,000,000,000",
        ),
        (
            "name: b\nparameters: {a: 1}\nsteps:\n  run: {cycles: 1000000000000, do: x}\n",
            "1,000,000,000,000",
        ),
    ],
)
@pytest.mark.parametrize("command", [["validate"], ["run", "--dry-run"]])
def test_unbounded_runs_are_refused_at_once(
    tmp_path: Path, text: str, count: str, command: list[str]
) -> None:
    path = write(tmp_path, text)
    done = jubex(*command, str(path))
    assert done.returncode == 2
    assert f"{path}:1:1: error: the run would make {count} workpackage cycles" in done.stdout + (
        done.stderr
    )
    assert "Traceback" not in done.stderr


def test_info_answers_for_any_size_and_says_a_run_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, CROSS + "steps:\n  run: {iterations: 1000, do: x}\n")
    done = jubex("info", str(path))
    assert done.returncode == 0, done.stderr
    assert "parameter space: about 10^20 point(s)" in done.stdout
    assert "step run: about 10^23 workpackage(s)" in done.stdout
    assert "a run is refused" in done.stdout


def test_the_flag_raises_the_limit_for_validate(tmp_path: Path) -> None:
    path = write(
        tmp_path, "name: b\nparameters: {a: 1}\nsteps:\n  run: {iterations: 2000000, do: x}\n"
    )
    assert jubex("validate", str(path)).returncode == 2
    assert jubex("validate", "--max-workpackages", "2000000", str(path)).returncode == 0
    bad = jubex("validate", "--max-workpackages", "0", str(path))
    assert bad.returncode == 2
    assert "expected a positive whole number" in bad.stderr


def test_a_range_of_the_documented_maximum_validates_fast(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\nparameters:\n  a: {range: {start: 1, stop: 1000000, step: 1}}\n"
        "steps:\n  run: {do: x}\n",
    )
    assert validate([path]) == []


def test_info_looks_at_a_bounded_part_of_a_sparse_constrained_space(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\nparameters:\n"
        + "".join(f"  {n}: {{range: {{start: 0, stop: 999, step: 1}}}}\n" for n in "abc")
        + "where: ['a > 990 and b > 990']\nsteps:\n  run: {do: x}\n",
    )
    done = jubex("info", "--max-workpackages", "1000000000", str(path))
    assert done.returncode == 0, done.stderr
    assert "parameter space: at most 1,000,000,000 point(s)" in done.stdout
    assert "points listed from the first 100,000 of 1,000,000,000 combinations" in done.stdout


def test_points_stops_after_the_combinations_it_may_try(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: b\nparameters: {n: [1, 2, 3, 4]}\nwhere: ['n > 2']\nsteps:\n  run: {do: x}\n",
    )
    b = load(path)
    space = step_space(b, b.steps["run"])
    assert [p["n"] for p in space.points(3)] == [3]
    assert list(space.points(2)) == []  # no error: the look was bounded, not the space empty
    assert [p["n"] for p in space] == [3, 4]
