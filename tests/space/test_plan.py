"""JUBE's pairing of dependent steps, iterations and shared operations."""

from __future__ import annotations

import pytest

from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Step, Until
from jubex.definition.order import step_order
from jubex.errors import DefinitionError
from jubex.space.plan import plan


def pset(name: str, **values: list[str]) -> ParameterSet:
    return ParameterSet(name, {k: Parameter(k, tuple(v)) for k, v in values.items()})


def bench(*steps: Step, **sets: ParameterSet) -> Benchmark:
    return Benchmark("b", parametersets=dict(sets), steps={s.name: s for s in steps})


def test_compile_once_run_per_point_pairs_with_its_parent() -> None:
    b = bench(
        Step("build", use=("compiler",), do=[Do("make")]),
        Step("run", depend=("build",), use=("sizes",), iterations=2, do=[Do("run")]),
        compiler=pset("compiler", cc=["gcc"]),
        sizes=pset("sizes", n=["1", "2", "3"]),
    )
    wps = list(plan(b))
    builds = [w for w in wps if w.step == "build"]
    runs = [w for w in wps if w.step == "run"]
    assert len(builds) == 1
    assert len(runs) == 6
    assert all(w.parents == (builds[0].id,) for w in runs)
    assert sorted((str(w.point["n"]), w.iteration) for w in runs) == [
        (n, i) for n in ("1", "2", "3") for i in (0, 1)
    ]
    assert all(str(w.point["cc"]) == "gcc" for w in runs)


def test_child_sharing_a_parameter_pairs_only_with_the_matching_parent() -> None:
    b = bench(
        Step("build", use=("opt",)),
        Step("run", depend=("build",), use=("opt", "n")),
        opt=pset("opt", o=["O2", "O3"]),
        n=pset("n", n=["1", "2"]),
    )
    wps = list(plan(b))
    by_id = {w.id: w for w in wps}
    runs = [w for w in wps if w.step == "run"]
    assert len(runs) == 4
    for w in runs:
        (parent,) = w.parents
        assert str(by_id[parent].point["o"]) == str(w.point["o"])


def test_iterations_of_parent_multiply() -> None:
    b = bench(Step("a", iterations=3), Step("b", depend=("a",), iterations=2), s=pset("s", x=["1"]))
    wps = list(plan(b))
    assert [w.step for w in wps].count("b") == 6


def test_shared_operation_is_one_workpackage_after_all() -> None:
    b = bench(
        Step("run", do=[Do("work"), Do("collect", shared=True)]),
        s=pset("s", x=["1", "2", "3"]),
    )
    wps = list(plan(b))
    shared = [w for w in wps if w.kind == "shared"]
    assert len(shared) == 1
    assert set(shared[0].parents) == {w.id for w in wps if w.kind == "wp"}


def test_inactive_points_make_no_workpackage() -> None:
    b = bench(Step("run", active="x != 2"), s=pset("s", x=["1", "2", "3"]))
    assert sorted(int(str(w.point["x"])) for w in plan(b)) == [1, 3]


def test_cycles_are_reported_by_name() -> None:
    b = bench(Step("a", depend=("b",)), Step("b", depend=("a",)))
    with pytest.raises(DefinitionError, match=r"a -> b -> a|b -> a -> b"):
        step_order(b)


def test_unknown_parent_is_reported() -> None:
    b = bench(Step("a", depend=("nope",)))
    with pytest.raises(DefinitionError, match="unknown step 'nope'"):
        step_order(b)


def test_child_iterations_are_numbered_across_parent_iterations() -> None:
    b = bench(Step("a", iterations=2), Step("b", depend=("a",), iterations=3), s=pset("s", x=["1"]))
    numbers = sorted(w.iteration for w in plan(b) if w.step == "b")
    assert numbers == [0, 1, 2, 3, 4, 5]


def test_iterations_beyond_a_targets_minimum_are_held_per_point() -> None:
    """Every point (here each of two parent iterations times two sizes) runs its first
    ``min`` iterations; the rest are planned held, numbered as any iteration."""
    until = Until("ci95", 0.02, 2, (), "ci95 <= 2%")
    b = bench(
        Step("build", iterations=2, do=[Do("make")]),
        Step("run", depend=("build",), use=("sizes",), iterations=5, until=until),
        sizes=pset("sizes", n=["1", "2"]),
    )
    runs = [w for w in plan(b) if w.step == "run"]
    assert len(runs) == 2 * 2 * 5
    assert [w.state for w in runs[:5]] == ["planned", "planned", "held", "held", "held"]
    assert sorted(w.iteration for w in runs if w.state == "planned") == [0, 0, 1, 1, 5, 5, 6, 6]
    assert all(w.state == "planned" for w in plan(b) if w.step == "build")
