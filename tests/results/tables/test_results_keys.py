"""The keys that pair points: the independent parameters that vary within a side."""

from jubex.definition.model import Benchmark, Parameter, ParameterSet
from jubex.results.tables.keys import default_keys, derived_parameters, sides_differ


def starter() -> Benchmark:
    """IOR's starter: two axes, a constant, a text derived from them, an expression."""
    parameters = [
        Parameter("tasks", ("1", "2")),
        Parameter("transfer", ("64k", "1m")),
        Parameter("block", ("16m",)),
        Parameter("options", ("-t ${quote(transfer)} -b ${quote(block)} -F",)),
        Parameter("total", ("tasks * 2",), mode="expr"),
    ]
    return Benchmark("ior", parametersets={"p": ParameterSet("p", {p.name: p for p in parameters})})


def side(block: str) -> list[dict[str, object]]:
    return [
        {
            "tasks": tasks,
            "transfer": transfer,
            "block": block,
            "options": f"-t {transfer} -b {block} -F",
            "total": tasks * 2,
        }
        for tasks in (1, 2)
        for transfer in ("64k", "1m")
    ]


def test_derived_parameters_are_templates_expressions_and_other_modes():
    assert derived_parameters([starter()]) == {"options", "total"}
    # a name another definition gives values of its own is independent there
    spanned = Benchmark(
        "b", parametersets={"q": ParameterSet("q", {"total": Parameter("total", ("1", "2"))})}
    )
    assert derived_parameters([starter(), spanned]) == {"options"}


def test_a_setting_changed_between_the_sides_pairs_by_the_axes_and_is_named():
    rows = [side("16m"), side("32m")]
    parameters = {"tasks", "transfer", "block", "options", "total"}
    assert default_keys(rows, parameters, [starter()]) == ["tasks", "transfer"]
    assert sides_differ(rows, parameters, [starter()]) == ["block 16m → 32m"]
    # without the definitions to tell what is derived, the options text was a key
    assert "options" in default_keys(rows, parameters)
