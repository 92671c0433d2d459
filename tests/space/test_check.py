"""Parameters evaluated again every cycle must be single values: refused by name and place."""

from __future__ import annotations

import pytest

from jubex.definition.model import Benchmark, Parameter, ParameterSet, Step
from jubex.errors import DefinitionError, ErrorList, Loc
from jubex.space.check import check_cycle_updates


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
    check_cycle_updates(with_params(param))


def test_a_plain_benchmark_passes() -> None:
    check_cycle_updates(Benchmark("b", steps={"s": Step("s")}))
