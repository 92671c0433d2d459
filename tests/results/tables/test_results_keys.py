"""The keys that pair points: the independent parameters that vary within a side."""

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.model import Benchmark, Parameter, ParameterSet
from jubex.language.values import Size
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


def _keys_reference(rows, parameters, derived):
    """The keys as first written: every row's every name, a set of texts per name."""
    keys: dict[str, None] = {}
    for side in rows:
        for name in dict.fromkeys(k for row in side for k in row if k in parameters):
            if name not in derived and len({str(row.get(name)) for row in side}) > 1:
                keys[name] = None
    return list(keys)


_VALUES = st.sampled_from([1, 1.0, True, "1", None, 2, "a", Size(1024, "1KiB"), Size(1024, "1k")])


@settings(deadline=None)
@given(
    st.lists(
        st.lists(
            st.dictionaries(st.sampled_from(["a", "b", "c", "d", "v"]), _VALUES, max_size=5),
            max_size=6,
        ),
        max_size=4,
    ),
    st.sets(st.sampled_from(["a", "b", "c", "d"])),
)
def test_default_keys_are_those_of_every_name_and_row(rows, parameters):
    """Names in any order of appearance, values equal yet written differently (1, 1.0,
    True; 1KiB and 1k), names some rows lack: the keys found a row at a time, stopping
    at the first other text, are the keys of every text of every row."""
    derived = derived_parameters([starter()])
    assert default_keys(rows, parameters, [starter()]) == _keys_reference(rows, parameters, derived)
