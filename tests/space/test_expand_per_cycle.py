"""Parameters evaluated again in every cycle: planned with the first cycle's value, then
recomputed from the values they read, each after those it depends on."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.model import Parameter, ParameterSet
from jubex.space.expand import CYCLE, Space


def param(name: str, *values: str, mode: str = "text", update: str = "never") -> Parameter:
    return Parameter(name, values, mode=mode, update_mode=update)


def space(*params: Parameter, **options: object) -> Space:
    return Space([ParameterSet("s", {p.name: p for p in params})], **options)  # type: ignore[arg-type]


def cycle_values(s: Space, point: Mapping[str, object], cycle: int) -> dict[str, object]:
    values = {**point, CYCLE: cycle}
    for name, evaluate in s.per_cycle():
        values[name] = evaluate(values)
    return values


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(0, 20))
def test_values_are_computed_for_the_cycle_asked(scale: int, offset: int, cycle: int) -> None:
    s = space(
        param("b", str(offset)),
        param("y", "x + b", mode="expr", update="always"),
        param("x", f"{scale} * jube_wp_cycle", mode="expr", update="cycle"),
    )
    (point,) = s
    assert (point["x"], point["y"]) == (0, offset)
    got = cycle_values(s, point, cycle)
    assert (got["x"], got["y"]) == (scale * cycle, scale * cycle + offset)


def test_only_cycle_and_always_parameters_with_one_computed_value_are_listed() -> None:
    s = space(
        param("n", "1", "2"),
        param("listed", "1", "2", update="cycle"),
        param("plain", "7", update="cycle"),
        param("never", "${n + jube_wp_cycle}"),
        param("use", "${n + jube_wp_cycle}", update="use"),
        param("step", "${n + jube_wp_cycle}", update="step"),
        param("text", "n$n.c$jube_wp_cycle", update="cycle"),
        param("expr", "n * 100 + jube_wp_cycle", mode="expr", update="always"),
    )
    assert [name for name, _ in s.per_cycle()] == ["text", "expr"]
    point = list(s)[-1]
    assert (point["never"], point["text"], point["expr"]) == (2, "n2.c0", 200)
    got = cycle_values(s, point, 3)
    assert (got["never"], got["step"], got["text"], got["expr"]) == (2, 2, "n2.c3", 203)


def test_a_value_given_on_the_command_line_is_not_computed_again() -> None:
    s = space(param("x", "jube_wp_cycle", mode="expr", update="cycle"), overrides={"x": ["9"]})
    assert s.per_cycle() == []
    assert list(s) == [{"x": 9}]


def test_a_constant_given_for_the_cycle_wins_over_the_first_cycle() -> None:
    s = space(param("x", "${jube_wp_cycle}"), constants={CYCLE: 4})
    assert list(s) == [{"x": 4}]
