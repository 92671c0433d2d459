import itertools
import os
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.model import Constraint, Parameter, ParameterSet
from jubex.errors import DefinitionError, ExpressionError, Loc, UsageError
from jubex.language.values import Size
from jubex.space.expand import Space


def pset(
    name: str = "set", zips: list[tuple[str, ...]] | None = None, **params: object
) -> ParameterSet:
    """A parameterset from keyword arguments: a list of texts, one text, or a Parameter."""
    made = {}
    for key, value in params.items():
        if isinstance(value, Parameter):
            made[key] = value
        else:
            texts = tuple(value) if isinstance(value, list) else (str(value),)
            made[key] = Parameter(key, texts, loc=Loc("bench.yaml", len(made) + 2))
    return ParameterSet(name, made, zips=zips or [], loc=Loc("bench.yaml", 1))


def ior() -> ParameterSet:
    return pset(
        "ior",
        zips=[("nodes", "ppn", "block")],
        api=["POSIX", "MPIIO"],
        transfer=["4KiB", "32KiB", "1MiB", "4MiB", "3MiB"],
        nodes=["256", "256", "256"],
        ppn=["1", "2", "4"],
        block=["4GiB", "2GiB", "1GiB"],
        tasks="${nodes * ppn}",
        out="ior.$api.$tasks.${transfer}",
    )


def test_design_example_crosses_zips_and_derives() -> None:
    space = Space([ior()], [Constraint("block % transfer == 0")])
    assert space.names == ("api", "transfer", "nodes", "ppn", "block", "tasks", "out")
    assert space.varying == ("api", "transfer", "nodes", "ppn", "block")
    assert space.upper_bound() == 2 * 5 * 3
    points = list(space)
    assert len(points) == 2 * 4 * 3 == space.count()
    first = points[0]
    assert first == {
        "api": "POSIX",
        "transfer": 4096,
        "nodes": 256,
        "ppn": 1,
        "block": 4 * 1024**3,
        "tasks": 256,
        "out": "ior.POSIX.256.4KiB",
    }
    assert list(first) == list(space.names)
    assert isinstance(first["transfer"], Size) and str(first["transfer"]) == "4KiB"
    assert type(first["tasks"]) is int
    assert {(p["ppn"], str(p["block"])) for p in points} == {(1, "4GiB"), (2, "2GiB"), (4, "1GiB")}


def test_the_first_parameter_varies_slowest() -> None:
    points = list(Space([pset(a=["1", "2"], b=["x", "y"])]))
    assert [(p["a"], p["b"]) for p in points] == [(1, "x"), (1, "y"), (2, "x"), (2, "y")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4))
def test_size_of_a_cross_product_is_the_product_of_lengths(lengths: list[int]) -> None:
    params = {f"p{i}": [f"v{i}_{j}" for j in range(n)] for i, n in enumerate(lengths)}
    space = Space([pset(**params)])
    expected = list(itertools.product(*params.values()))
    assert space.upper_bound() == len(expected)
    assert [tuple(p.values()) for p in space] == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))
def test_zip_needs_equal_lengths(len_a: int, len_b: int, len_c: int) -> None:
    sets = [
        pset(
            zips=[("a", "b")],
            a=[str(i) for i in range(len_a)],
            b=[str(10 + i) for i in range(len_b)],
            c=[str(i) for i in range(len_c)],
        )
    ]
    if len_a != len_b:
        with pytest.raises(DefinitionError) as caught:
            Space(sets)
        assert f"a has {len_a}, b has {len_b}" in caught.value.message
        assert caught.value.loc == Loc("bench.yaml", 1)
        return
    points = list(Space(sets))
    assert len(points) == len_a * len_c
    assert all(p["b"] == p["a"] + 10 for p in points)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True),
    st.lists(st.integers(-5, 5), min_size=1, max_size=4, unique=True),
    st.integers(-8, 8),
)
def test_where_keeps_exactly_the_points_that_satisfy_it(
    a_values: list[int], b_values: list[int], threshold: int
) -> None:
    sets = [pset(a=[str(v) for v in a_values], b=[str(v) for v in b_values])]
    space = Space(sets, [Constraint(f"a + b > {threshold}", loc=Loc("bench.yaml", 30))])
    expected = [(a, b) for a, b in itertools.product(a_values, b_values) if a + b > threshold]
    if not expected:
        with pytest.raises(DefinitionError) as caught:
            list(space)
        assert f"'a + b > {threshold}'" in caught.value.message
        assert caught.value.loc == Loc("bench.yaml", 30)
        return
    assert [(p["a"], p["b"]) for p in space] == expected


def test_constraints_apply_before_derived_values_they_do_not_read() -> None:
    sets = [pset(n=["1", "2", "3"], inv=Parameter("inv", ("1 / (n - 1)",), mode="expr"))]
    assert [p["inv"] for p in Space(sets, [Constraint("n != 1")])] == [1.0, 0.5]


def test_constraints_on_names_outside_the_space_are_skipped() -> None:
    space = Space([pset(a=["1", "2"])], [Constraint("other > 1"), Constraint("a > 1")])
    assert [p["a"] for p in space] == [2]


def test_duplicate_rules_replace_concat_and_error() -> None:
    first = pset("one", a=["1", "2"], b="x")
    assert [p["a"] for p in Space([first, pset("two", a=["3"])])] == [3]
    concat = ParameterSet("two", {"a": Parameter("a", ("3",), duplicate="concat")})
    assert [p["a"] for p in Space([first, concat])] == [1, 2, 3]
    by_set = ParameterSet("two", {"a": Parameter("a", ("3",))}, duplicate="concat")
    assert [p["a"] for p in Space([first, by_set])] == [1, 2, 3]
    error = ParameterSet(
        "two", {"a": Parameter("a", ("3",), loc=Loc("b.yaml", 9))}, duplicate="error"
    )
    with pytest.raises(DefinitionError) as caught:
        Space([first, error])
    assert "defined twice" in caught.value.message and caught.value.loc == Loc("b.yaml", 9)
    assert "bench.yaml:2" in caught.value.hint


def test_tags_select_parameters_and_constraints() -> None:
    sets = [
        pset(
            a=["1", "2"],
            big=Parameter("a", ("10", "20"), tag="large"),
            small=Parameter("small", ("yes",), tag="!large"),
        )
    ]
    where = [Constraint("a > 10", tag="large")]
    plain = list(Space(sets, where))
    assert [p["a"] for p in plain] == [1, 2] and plain[0]["small"] == "yes"
    tagged = list(Space(sets, where, tags=["large"]))
    assert [p["a"] for p in tagged] == [20] and "small" not in tagged[0]


def test_tag_mode_gives_the_tag_only_when_set() -> None:
    sets = [pset(debug=Parameter("debug", ("debug",), mode="tag"))]
    assert next(iter(Space(sets)))["debug"] == ""
    assert next(iter(Space(sets, tags=["debug"])))["debug"] == "debug"


def test_overrides_replace_values_and_flatten_derived_parameters() -> None:
    space = Space([ior()], overrides={"transfer": ["1m", "4m"], "tasks": ["7"]})
    points = list(space)
    assert {str(p["transfer"]) for p in points} == {"1m", "4m"}
    assert {p["tasks"] for p in points} == {7}
    assert len(points) == 2 * 2 * 3


def test_an_override_of_an_unknown_parameter_suggests_one() -> None:
    with pytest.raises(UsageError) as caught:
        Space([ior()], overrides={"tranfer": ["1m"]})
    assert "tranfer" in caught.value.message and caught.value.hint == "did you mean 'transfer'?"


def test_constants_are_visible_but_are_not_parameters() -> None:
    sets = [pset(n=["1", "2"], label="$jube_platform-$n", twice="${n * scale}")]
    points = list(
        Space(
            sets,
            [Constraint("n < limit")],
            constants={"jube_platform": "x86", "scale": 2, "limit": 2},
        )
    )
    assert points == [{"n": 1, "label": "x86-1", "twice": 2}]


def test_separator_splits_one_text_into_values() -> None:
    sets = [pset(n=Parameter("n", ("1, 2,4",), separator=","))]
    assert [p["n"] for p in Space(sets)] == [1, 2, 4]


def test_derived_values_keep_their_type_or_take_the_declared_one() -> None:
    sets = [
        pset(
            nodes=["2"],
            ppn=["4"],
            tasks="${nodes * ppn}",
            ratio=Parameter("ratio", ("nodes / ppn",), mode="expr"),
            block=Parameter("block", ("${nodes}MiB",)),
            mem=Parameter("mem", ("${nodes * 1024}",), type="size"),
            label=Parameter("label", ("${nodes}",), type="str"),
            time=Parameter("time", ("${nodes * 30}m",), type="duration"),
        )
    ]
    point = next(iter(Space(sets)))
    assert point["tasks"] == 8 and type(point["tasks"]) is int
    assert point["ratio"] == 0.5
    assert isinstance(point["block"], Size) and point["block"] == 2 * 1024**2
    assert isinstance(point["mem"], Size) and point["mem"] == 2048
    assert point["label"] == "2"
    assert point["time"] == 3600 and point["time"].slurm == "01:00:00"


def test_derived_parameters_follow_their_dependencies() -> None:
    sets = [pset(c="${b + 1}", b="${a * 2}", a=["1", "2"], text="$c-$b-$HOME")]
    assert [(p["a"], p["b"], p["c"], p["text"]) for p in Space(sets)] == [
        (1, 2, 3, "3-2-$HOME"),
        (2, 4, 5, "5-4-$HOME"),
    ]


def test_a_dependency_cycle_is_named() -> None:
    sets = [pset(a="${b}", b="${c + 1}", c="$a", d="1")]
    with pytest.raises(DefinitionError) as caught:
        Space(sets)
    assert "a -> b -> c -> a" in caught.value.message
    assert caught.value.loc == Loc("bench.yaml", 2)


def test_an_expression_reading_an_unknown_name_is_a_definition_error() -> None:
    sets = [
        pset(nodes=["1"], tasks=Parameter("tasks", ("nodse * 2",), mode="expr", loc=Loc("b", 3)))
    ]
    with pytest.raises(DefinitionError) as caught:
        Space(sets)
    assert "'nodse'" in caught.value.message and caught.value.hint == "did you mean 'nodes'?"


def test_evaluation_errors_carry_the_parameter_location() -> None:
    sets = [pset(n=["0", "1"], inv=Parameter("inv", ("1 / n",), mode="expr", loc=Loc("b.yaml", 8)))]
    with pytest.raises(ExpressionError) as caught:
        list(Space(sets))
    assert "division by zero" in caught.value.message and caught.value.loc == Loc("b.yaml", 8)


def test_shell_parameters_run_once_per_distinct_command(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    command = f"echo $n >> {log}; echo value-$n"
    sets = [pset(n=["1", "2"], m=["a", "b", "c"], out=Parameter("out", (command,), mode="shell"))]
    points = list(Space(sets, file=str(tmp_path / "bench.yaml")))
    assert [p["out"] for p in points] == ["value-1"] * 3 + ["value-2"] * 3
    assert log.read_text().split() == ["1", "2"]


def test_shell_parameters_run_in_the_definition_directory(tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text("node01\n")
    sets = [pset(host=Parameter("host", ("cat hosts",), mode="shell"))]
    assert next(iter(Space(sets, file=str(tmp_path / "bench.yaml"))))["host"] == "node01"


def test_a_failing_shell_command_is_named() -> None:
    sets = [pset(x=Parameter("x", ("echo oops >&2; exit 3",), mode="shell", loc=Loc("b.yaml", 4)))]
    with pytest.raises(DefinitionError) as caught:
        list(Space(sets))
    assert "exit status 3" in caught.value.message and "echo oops" in caught.value.message
    assert "exit status 3: oops" in caught.value.message and caught.value.loc == Loc("b.yaml", 4)


def test_env_parameters_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_TEST_NODES", "16")
    sets = [pset(nodes=Parameter("nodes", ("JUBEX_TEST_NODES",), mode="env"))]
    assert next(iter(Space(sets)))["nodes"] == 16
    monkeypatch.delenv("JUBEX_TEST_NODES")
    space = Space(sets)
    with pytest.raises(DefinitionError) as caught:
        list(space)
    assert "JUBEX_TEST_NODES" in caught.value.message and "not set" in caught.value.message
    assert "JUBEX_TEST_NODES" not in os.environ


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ([pset(a=[])], "has no values"),
        ([pset(a=Parameter("a", ("1", "2"), mode="expr"))], "exactly one value"),
        ([pset(a=Parameter("a", ("1",), mode="perl"))], "unknown mode"),
        ([pset(zips=[("a", "zz")], a=["1"])], "does not define"),
        (
            [
                pset(a="1"),
                ParameterSet("t", {"a": Parameter("a", ("x",), mode="expr", duplicate="concat")}),
            ],
            "concat",
        ),
    ],
)
def test_malformed_parametersets_are_definition_errors(
    sets: list[ParameterSet], expected: str
) -> None:
    with pytest.raises(DefinitionError) as caught:
        Space(sets)
    assert expected in caught.value.message


def test_the_space_is_a_stream() -> None:
    params = {name: [str(i) for i in range(1000)] for name in ("a", "b", "c")}
    space = Space([pset(**params, d="${a + b + c}")])
    assert space.upper_bound() == 10**9
    tracemalloc.start()
    first = list(itertools.islice(space, 1000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert first[-1] == {"a": 0, "b": 0, "c": 999, "d": 999}
    assert peak < 5 * 1024**2


def test_a_step_without_parameters_has_one_empty_point() -> None:
    space = Space([])
    assert space.names == () and space.upper_bound() == 1 and list(space) == [{}]
