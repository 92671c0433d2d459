"""The pattern engine: JUBE's built-ins and semantics, jubex's typed extensions."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.analysis import patterns as patterns_module
from jubex.analysis.patterns import BUILTIN_PATTERNS, PatternEngine, reductions
from jubex.definition.model import STATISTICS, Pattern
from jubex.errors import DefinitionError, ExpressionError, Loc

FINITE = st.floats(allow_nan=False, allow_infinity=False)


def one(pattern: Pattern, text: str, params: dict[str, object] | None = None) -> list[object]:
    return PatternEngine([pattern]).scan(text, params or {})[pattern.name].values


def measured(patterns: list[Pattern], text: str, params=None) -> dict[str, list[object]]:
    engine = PatternEngine(patterns)
    found: dict[str, list[object]] = {}
    for m in engine.measure(engine.scan(text, params or {}), params or {}):
        found.setdefault(m.name, []).append(m.value)
    return found


def test_jube_builtins_are_jubes_exact_regexes():
    # as in JUBE's jube/pattern.py, get_jube_pattern()
    fp = r"[+-]?(?:\d*\.?\d+(?:[eE][-+]?\d+)?|\d+\.)"
    assert BUILTIN_PATTERNS["jube_pat_int"] == r"([+-]?\d+)"
    assert BUILTIN_PATTERNS["jube_pat_nint"] == r"(?:[+-]?\d+)"
    assert BUILTIN_PATTERNS["jube_pat_fp"] == f"({fp})"
    assert BUILTIN_PATTERNS["jube_pat_nfp"] == f"(?:{fp})"
    assert BUILTIN_PATTERNS["jube_pat_wrd"] == r"(\S+)"
    assert BUILTIN_PATTERNS["jube_pat_nwrd"] == r"(?:\S+)"
    assert BUILTIN_PATTERNS["jube_pat_bl"] == r"(?:\s+)"


@given(FINITE)
def test_fp_matches_every_float_python_prints(value):
    match = re.fullmatch(BUILTIN_PATTERNS["jube_pat_fp"], repr(value))
    assert match is not None
    assert float(match[1]) == value


@given(st.integers())
def test_int_matches_every_int(value):
    match = re.fullmatch(BUILTIN_PATTERNS["jube_pat_int"], str(value))
    assert match is not None and int(match[1]) == value


@given(st.lists(FINITE.filter(lambda v: abs(v) < 1e150), min_size=1, max_size=50))
def test_reductions_equal_numpy_with_sample_std(values):
    got = reductions("x", values)
    array = np.array(values)
    assert got["x"] == got["x_first"] == values[0]
    assert got["x_last"] == values[-1]
    assert got["x_cnt"] == len(values)
    assert got["x_min"] == array.min() and got["x_max"] == array.max()
    scale = max(1.0, float(np.abs(array).max()))
    assert got["x_sum"] == pytest.approx(array.sum(), rel=1e-9, abs=1e-9 * scale * len(values))
    assert got["x_avg"] == pytest.approx(array.mean(), rel=1e-9, abs=1e-9 * scale)
    expected_std = array.std(ddof=1) if len(values) > 1 else 0.0  # JUBE: sample std, 0 for one
    assert got["x_std"] == pytest.approx(expected_std, rel=1e-7, abs=1e-7 * scale)


def test_reductions_of_nothing_are_missing_but_counted():
    got = reductions("x", [])
    assert got["x_cnt"] == 0
    assert all(got[k] is None for k in got if k != "x_cnt")


def test_reductions_of_strings_have_no_arithmetic():
    assert reductions("x", ["a", "b"], numeric=False) == {
        "x": "a",
        "x_first": "a",
        "x_last": "b",
        "x_cnt": 2,
    }


@given(st.lists(FINITE, max_size=30))
def test_scan_finds_every_value_of_an_ior_like_log(values):
    text = "".join(f"write   {v!r}   1024.00   0.5\nnoise line {i}\n" for i, v in enumerate(values))
    pattern = Pattern("bw", r"^write\s+$jube_pat_fp", type="float")
    assert one(pattern, text) == values


def test_several_groups_give_every_non_empty_group_in_order():
    pattern = Pattern("v", r"^(?:a=(\d+)|b=(\d+))$", type="int")
    assert one(pattern, "a=1\nb=2\nc=3\na=4\n") == [1, 2, 4]
    pair = Pattern("p", r"^(\w+) (\w+)$")
    assert one(pair, "x y\nz w\n") == ["x", "y", "z", "w"]


def test_no_group_gives_the_whole_match_and_multiline_is_on():
    assert one(Pattern("w", r"^\w+$"), "abc\nd e\nfg\n") == ["abc", "fg"]


def test_types_follow_jube():
    assert one(Pattern("i", r"n=$jube_pat_fp", type="int"), "n=3.0 n=7 n=2e2") == [3, 7, 200]
    assert one(Pattern("f", r"n=$jube_pat_wrd", type="float"), "n=1.5 n=oops n=2") == [1.5, 2.0]
    assert one(Pattern("b", r"ok=$jube_pat_wrd", type="bool"), "ok=yes ok=False ok=x") == [
        True,
        False,
    ]
    assert one(Pattern("s", r"n=$jube_pat_int"), "n=5") == ["5"]


def test_dotall_lets_dot_cross_lines():
    text = "Summary:\nfirst line\nbw 12.5\n"
    assert one(Pattern("a", r"Summary:.*bw $jube_pat_fp", type="float"), text) == []
    assert one(Pattern("a", r"Summary:.*bw $jube_pat_fp", type="float", dotall=True), text) == [
        12.5
    ]


def test_missing_pattern_is_none_with_count_zero():
    got = measured([Pattern("bw", r"^bw $jube_pat_fp", type="float")], "nothing here\n")
    assert got["bw"] == [None]
    assert got["bw_cnt"] == [0]
    assert got["bw_max"] == got["bw_std"] == [None]


def test_default_when_nothing_matches_as_jube():
    got = measured([Pattern("bw", r"^bw $jube_pat_fp", type="float", default="0.5")], "none\n")
    assert got["bw"] == got["bw_first"] == got["bw_max"] == got["bw_sum"] == [0.5]
    assert got["bw_cnt"] == [0]
    assert got["bw_std"] == [0.0]


def test_a_default_that_is_not_of_the_type_is_a_definition_error():
    with pytest.raises(DefinitionError, match="default 'fast' of pattern 'bw' is not a float"):
        PatternEngine([Pattern("bw", r"(\d+)", type="float", default="fast", loc=Loc("d.yaml", 7))])


def test_measure_lists_raw_matches_then_the_chosen_statistics():
    pattern = Pattern("t", r"t=$jube_pat_fp", type="float", unit="s", reduce=("max", "cnt"))
    engine = PatternEngine([pattern])
    out = engine.measure(engine.scan("t=1 t=3 t=2", {}), {})
    assert [(m.name, m.value, m.unit) for m in out] == [
        ("t", 1.0, "s"),
        ("t", 3.0, "s"),
        ("t", 2.0, "s"),
        ("t_max", 3.0, "s"),
        ("t_cnt", 3, ""),
    ]


def test_parameters_are_substituted_and_each_text_compiled_once(monkeypatch):
    compiled: list[str] = []
    real = patterns_module._compile
    monkeypatch.setattr(
        patterns_module, "_compile", lambda text, *a: compiled.append(text) or real(text, *a)
    )
    engine = PatternEngine([Pattern("v", r"^$op\s+$jube_pat_fp", type="float")])
    text = "write 1\nread 2\nwrite 3\n"
    assert engine.scan(text, {"op": "write"})["v"].values == [1.0, 3.0]
    assert engine.scan(text, {"op": "read"})["v"].values == [2.0]
    assert engine.scan(text, {"op": "write"})["v"].values == [1.0, 3.0]
    assert len(compiled) == 2


def test_static_regexes_compile_when_the_engine_is_built(monkeypatch):
    engine = PatternEngine([Pattern("v", r"^x $jube_pat_int$", type="int")])
    monkeypatch.setattr(patterns_module, "_compile", lambda *a: pytest.fail("compiled again"))
    assert engine.scan("x 4\nx 5 y\n", {})["v"].values == [4]  # the final $ stays an anchor


def test_unknown_parameter_names_the_pattern_location():
    engine = PatternEngine([Pattern("v", r"^$nodes (\d+)", loc=Loc("bench.yaml", 12))])
    with pytest.raises(ExpressionError) as info:
        engine.scan("4 5", {"node": 4})
    assert "bench.yaml:12" in str(info.value)
    assert "did you mean 'node'?" in str(info.value)


def test_unknown_builtin_and_bad_regex_are_definition_errors():
    with pytest.raises(DefinitionError, match=r"unknown built-in pattern '\$jube_pat_float'"):
        PatternEngine([Pattern("v", r"$jube_pat_float")])
    with pytest.raises(DefinitionError, match="pattern 'v' is not a valid regular expression"):
        PatternEngine([Pattern("v", r"(unclosed")])


def test_size_pattern_gives_bytes():
    text = "xfersize : 1 MiB\nblocksize : 47008 bytes\nagg : 8.76 GiB\nt: 4k\nbw: 3 MiB/s\n"
    assert one(Pattern("s", r": $jubex_pat_size"), text) == [
        2**20,
        47008,
        round(8.76 * 2**30),
        4096,
    ]
    in_mib = Pattern("s", r"xfersize : $jubex_pat_size", unit="MiB")
    assert one(in_mib, text) == [1.0]


def test_rate_pattern_captures_and_normalises_the_unit():
    text = "Max Write: 1144.64 MiB/sec\nMax Read: 8.17 GiB/s\n"
    engine = PatternEngine([Pattern("bw", r"Max \w+:\s+$jubex_pat_rate")])
    found = engine.scan(text, {})["bw"]
    assert found.unit == "MiB/s"
    assert found.values == [1144.64, pytest.approx(8.17 * 1024)]
    in_gb = Pattern("bw", r"Max \w+:\s+$jubex_pat_rate", unit="GB/s")
    assert one(in_gb, text)[0] == pytest.approx(1144.64 * 2**20 / 1e9)
    assert one(Pattern("r", r"r=$jubex_pat_rate"), "r=12.5 kIOPS r=3 ops/s") == [12.5, 0.003]


def test_json_path_picks_values():
    text = (
        'fio-3.33 prints this first\n{"jobs": [{"write": {"bw": 10, "lat_ns": {"percentile": '
        '{"99.000000": 7}}}}, {"write": {"bw": 20}}], "x y": {"a.b": [1, 2]}}'
    )
    assert one(Pattern("bw", "", json_path="jobs[*].write.bw"), text) == [10, 20]
    assert one(Pattern("bw", "", json_path="jobs[1].write.bw", type="float"), text) == [20.0]
    assert one(
        Pattern("p", "", json_path='jobs[0].write.lat_ns.percentile["99.000000"]'), text
    ) == [7]
    assert one(Pattern("l", "", json_path='x y["a.b"]'), text) == [1, 2]
    assert one(Pattern("n", "", json_path="jobs[5].write.bw"), text) == []
    assert one(Pattern("n", "", json_path="jobs.write"), "not json at all") == []


def test_a_bad_json_path_is_a_definition_error():
    with pytest.raises(DefinitionError, match=r"json_path 'jobs\[x\]'"):
        PatternEngine([Pattern("bw", "", json_path="jobs[x]")])


def test_derived_patterns_in_dependency_order():
    found = measured(
        [
            Pattern("per_node", "total / nodes", mode="expr", type="float", unit="MiB/s"),
            Pattern("total", "bw_sum * 2", mode="expr"),
            Pattern("bw", r"bw=$jube_pat_fp", type="float"),
        ],
        "bw=1 bw=2 bw=3",
        {"nodes": 4},
    )
    assert found["total"] == [12.0]
    assert found["per_node"] == [3.0]


def test_derived_from_a_missing_value_is_missing_or_its_default():
    patterns = [
        Pattern("bw", r"bw=$jube_pat_fp", type="float"),
        Pattern("half", "bw / 2", mode="expr"),
        Pattern("ratio", "bw / zero", mode="expr", type="float", default="-1"),
    ]
    assert measured(patterns, "no bw", {"zero": 0})["half"] == [None]
    assert measured(patterns, "bw=4", {"zero": 0})["ratio"] == [-1.0]  # division by zero


def test_nan_is_a_default_of_either_number_type_as_in_jube():
    patterns = [
        Pattern("bw", r"bw=$jube_pat_fp", type="float"),
        Pattern("twice", "bw * 2", mode="expr", type="int", default="nan"),
    ]
    assert measured(patterns, "no bw", {})["twice"] == ["nan"]  # the word, as JUBE shows it
    assert measured(patterns, "bw=4", {})["twice"] == [8]
    with pytest.raises(DefinitionError, match="not a int"):
        PatternEngine([Pattern("s", "1", mode="expr", type="int", default="nanx")])


def test_derived_cycle_is_a_definition_error():
    with pytest.raises(DefinitionError, match="cycle: a -> b -> a"):
        PatternEngine([Pattern("a", "b + 1", mode="expr"), Pattern("b", "a + 1", mode="expr")])


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=2, max_size=20))
def test_defaults_never_mix_with_matches(values):
    text = " ".join(f"v={v!r}" for v in values)
    got = measured([Pattern("v", r"v=$jube_pat_fp", type="float", default="-1")], text)
    assert got["v"] == values
    assert got["v_cnt"] == [len(values)]
    assert math.isclose(got["v_max"][0], max(values))


def test_statistics_names_are_the_models():
    assert set(reductions("x", [1.0])) == {"x", *(f"x_{s}" for s in STATISTICS)}


@given(
    st.text(alphabet="ab 12.:\n", max_size=200),
    st.sampled_from([r"^a\s*(\d+)", r"^b(.*)$", r"^ab?(\d)|^(b)", r"^1(\S+) (\d*)", r"^a"]),
)
def test_line_start_patterns_match_as_plain_python_regexes(text, regex):
    compiled = re.compile(regex, re.MULTILINE)
    expected = compiled.findall(text)
    if compiled.groups > 1:
        expected = [group for groups in expected for group in groups]
    assert one(Pattern("p", regex), text) == [item for item in expected if item]
