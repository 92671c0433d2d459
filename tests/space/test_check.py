"""Parameters evaluated again every cycle must be single values: refused by name and place."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex import api
from jubex.definition.model import Benchmark, Parameter, ParameterSet, Step
from jubex.errors import DefinitionError, ErrorList, Loc
from jubex.space.check import RUN_NAMES, check_cycle_updates
from jubex.space.plan import plan
from jubex.workdir.render import constants_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quickstart.yaml"


def with_params(*params: Parameter) -> Benchmark:
    return Benchmark("b", parametersets={"p": ParameterSet("p", {p.name: p for p in params})})


def test_every_list_of_computed_values_evaluated_per_cycle_is_listed() -> None:
    b = with_params(
        Parameter("x", ("a$jube_wp_cycle", "b"), update_mode="cycle"),
        Parameter("y", ("1,${n * 2}",), separator=",", update_mode="always"),
    )
    with pytest.raises(ErrorList) as err:
        check_cycle_updates(b)
    assert [e.message.split("'")[1] for e in err.value.errors] == ["x", "y"]


def test_the_refusal_names_the_place_and_a_way_around() -> None:
    loc = Loc("bench.xml", 7)
    b = with_params(Parameter("x", ("${n}", "2"), update_mode="cycle", loc=loc))
    with pytest.raises(DefinitionError) as err:
        check_cycle_updates(b)
    assert err.value.loc == loc
    assert 'update_mode "cycle"' in err.value.message and "one value" in err.value.hint


@pytest.mark.parametrize(
    "param",
    [
        Parameter("x", ("${jube_wp_cycle * 2}",), update_mode="cycle"),
        Parameter("x", ("jube_wp_cycle",), mode="expr", update_mode="always"),
        Parameter("x", ("1", "2", "4"), update_mode="cycle"),
        Parameter("x", ("a$n", "b"), update_mode="step"),
        Parameter("x", ("$$HOME", "b"), update_mode="cycle"),
    ],
)
def test_what_the_engine_carries_out_passes(param: Parameter) -> None:
    check_cycle_updates(with_params(param))  # accepted alone; beside a refused one, not named
    refused = Parameter("y", ("a$n", "b"), update_mode="cycle")
    with pytest.raises(DefinitionError) as caught:
        check_cycle_updates(with_params(param, refused))
    assert caught.value.message.startswith("parameter 'y': ")


def test_a_plain_benchmark_passes_and_plans() -> None:
    plain = Benchmark("b", steps={"s": Step("s")})
    check_cycle_updates(plain)
    assert [wp.step for wp in plan(plain)] == ["s"]


def test_a_step_s_space_holds_its_ancestors_sets_as_it_is_planned(tmp_path: Path) -> None:
    """A child's derived value may read a parameter of a set only its parent uses: validate
    checks the space the step is planned with, so it accepts what the run plans."""
    path = tmp_path / "d.yaml"
    path.write_text(
        "name: inherit\n"
        "parametersets:\n"
        "  machine: {system: booster}\n"
        "  job: {queue: {expr: \"{'booster': 'develbooster'}[system]\"}}\n"
        "steps:\n"
        "  build: {use: [machine], do: 'true'}\n"
        "  run: {use: [job], depend: [build], do: echo $queue}\n"
    )
    assert [p for p in api.validate([path]) if p.exit_code] == []
    spec = api.resolve(path, outpath=tmp_path / "runs")
    (item,) = [i for i in api.dry_run(spec) if i.rendered.wp.step == "run"]
    assert item.rendered.wp.point["queue"] == "develbooster"


def test_derived_values_may_read_the_names_planning_gives(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "name: names\n"
        "parameters:\n"
        "  exe: {expr: \"{'bench': 'a.out'}[jube_step_name]\"}\n"
        "  label: {expr: \"jube_benchmark_name + '-' + jube_benchmark_padid\"}\n"
        "steps:\n  bench: {do: echo $exe $label}\n"
    )
    assert [p for p in api.validate([path]) if p.exit_code] == []
    (item,) = api.dry_run(api.resolve(path, outpath=tmp_path / "runs"))
    assert (item.rendered.wp.point["exe"], item.rendered.wp.point["label"]) == (
        "a.out",
        "names-000000",
    )


def test_the_names_checked_are_the_names_a_run_gives(tmp_path: Path) -> None:
    spec = api.resolve(EXAMPLE, outpath=tmp_path / "runs")
    given = set(constants_for(spec, tmp_path / "runs" / "000000"))
    assert given - set(spec.platform.parameters) == set(RUN_NAMES)
