"""The XML reader: same tree as the YAML spelling, and a parser that refuses entities."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.api import load
from jubex.definition.tree import split_top
from jubex.definition.xml_spelling import parse_xml, read_xml
from jubex.errors import DefinitionError, JubexError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def read(text: str) -> tuple:
    return read_xml(parse_xml(text.encode(), "f.xml"), "f.xml")


def test_parameters_steps_and_tables_read_into_the_yaml_shape() -> None:
    tree, errors = read(
        """<jubex name="t">
  <parameters>
    <parameter name="api">POSIX, MPIIO</parameter>
    <parameter name="m">${max(a, b)}</parameter>
    <parameter name="seg" mode="expr">total // tasks</parameter>
    <parameter name="n"><range start="1" stop="8" factor="2"/></parameter>
    <zip name="layout"><parameter name="a">1,2</parameter><parameter name="b">3,4</parameter></zip>
  </parameters>
  <where tag="small">a &lt; 4</where>
  <step name="run" iterations="3" depend="a, b" array="true">
    <do>echo $api</do>
    <do active="a == 1" shared="true">echo shared</do>
  </step>
  <table name="t" sort="api, -a"><column>api</column><column stats="n mean">bw</column></table>
</jubex>"""
    )
    assert errors == []
    assert tree["parameters"] == {
        "api": {"values": ["POSIX", "MPIIO"]},
        "m": "${max(a, b)}",
        "seg": {"expr": "total // tasks"},
        "n": {"range": {"start": 1, "stop": 8, "factor": 2}},
        "layout": {"zip": {"a": {"values": ["1", "2"]}, "b": {"values": ["3", "4"]}}},
    }
    assert tree["where"] == [{"tag": "small", "expr": "a < 4"}]
    assert tree["steps"]["run"] == {
        "iterations": 3,
        "depend": ["a", "b"],
        "array": True,
        "do": ["echo $api", {"active": "a == 1", "shared": True, "cmd": "echo shared"}],
    }
    assert tree["results"]["t"]["columns"] == ["api", {"stats": ["n", "mean"], "name": "bw"}]
    assert tree["steps"].key_loc("run").line == 10


def test_unknown_elements_and_attributes_are_errors_with_a_suggestion() -> None:
    _, errors = read('<jubex name="t">\n<step name="s" iteratons="2"/>\n<paramters/>\n</jubex>')
    assert [str(e) for e in errors] == [
        "f.xml:2: error: <step> has no attribute 'iteratons' (did you mean 'iterations'?)",
        "f.xml:3: error: unknown element <paramters> inside <jubex> (did you mean 'parameters'?)",
    ]


def test_a_number_that_is_not_one_stays_text_for_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "b.xml"
    path.write_text('<jubex name="t">\n  <step name="run" iterations="three"/>\n</jubex>\n')
    with pytest.raises(DefinitionError) as caught:
        load(path)
    assert str(caught.value) == (
        f"{path}:2: error: steps.run.iterations: expected a positive integer, "
        "or {min, max, until}, got 'three'"
    )


def test_external_entity_is_refused_and_nothing_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    data = (
        f'<?xml version="1.0"?><!DOCTYPE jubex [<!ENTITY x SYSTEM "file://{secret}">]>'
        '<jubex name="t"><comment>&x;</comment></jubex>'
    ).encode()
    with pytest.raises(DefinitionError) as caught:
        parse_xml(data, "x.xml")
    assert "entity declarations is refused" in str(caught.value)
    assert "TOP-SECRET" not in str(caught.value)


def test_entity_expansion_bomb_is_refused_quickly() -> None:
    levels = ['<!ENTITY l0 "lol">'] + [
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    ]
    for use in ('<jubex name="&l9;"/>', '<jubex name="t"><comment>&l9;</comment></jubex>'):
        data = f"<!DOCTYPE jubex [{''.join(levels)}]>{use}".encode()
        with pytest.raises(DefinitionError, match=r"(?i)entity"):
            parse_xml(data, "bomb.xml")


def test_xml_syntax_error_has_line_and_column() -> None:
    with pytest.raises(DefinitionError) as caught:
        parse_xml(b'<jubex name="t">\n  <step name="a">\n</jubex>', "s.xml")
    assert str(caught.value).startswith("s.xml:3:")
    assert "XML syntax" in str(caught.value)


def test_xml_twin_of_the_ska_example_loads_into_the_same_model() -> None:
    from_yaml, from_xml = load(EXAMPLES / "ska-ior.yaml"), load(EXAMPLES / "ska-ior.xml")
    for kind in ("parametersets", "steps", "tables", "where"):
        assert _without_places(getattr(from_yaml, kind)) == _without_places(getattr(from_xml, kind))


def _without_places(value: object) -> object:
    from dataclasses import fields, is_dataclass

    if is_dataclass(value):
        return {
            f.name: _without_places(getattr(value, f.name))
            for f in fields(value)
            if f.name not in ("loc", "locs")
        }
    if isinstance(value, dict):
        return {k: _without_places(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_without_places(v) for v in value]
    return value


parts = st.lists(
    st.one_of(
        st.text(string.ascii_letters + string.digits + " ._", min_size=1, max_size=6),
        st.builds(lambda a, b: f"${{max({a}, {b})}}", st.integers(0, 9), st.integers(0, 9)),
        st.builds(lambda a: f"'{a},x'", st.integers(0, 9)),
    ),
    min_size=1,
    max_size=6,
).map(lambda xs: [x.strip() for x in xs if x.strip()] or ["v"])


@given(parts)
def test_split_top_keeps_commas_inside_expressions_and_quotes(values: list[str]) -> None:
    assert split_top(", ".join(values), ",") == values


def test_a_name_given_twice_is_an_error_as_in_yaml() -> None:
    _, errors = read(
        '<jubex name="t">\n<step name="a"/>\n<parameters>\n<parameter name="x">1</parameter>\n'
        '<parameter name="x">2</parameter>\n</parameters>\n<step name="a"/>\n</jubex>'
    )
    assert [str(e) for e in errors] == [
        'f.xml:5: error: <parameter name="x"> given twice (first at line 4)',
        'f.xml:7: error: <step name="a"> given twice (first at line 2)',
    ]


def test_a_repetition_target_reads_as_the_yaml_mapping(tmp_path: Path) -> None:
    step = "<do>echo bw 1</do>"
    (tmp_path / "t.xml").write_text(
        f'<jubex name="t"><step name="run"><iterations min="3" max="30" '
        f'until="ci95(bw) &lt;= 2%"/>{step}</step>'
        '<patternset name="p"><pattern name="bw">bw $jube_pat_fp</pattern></patternset></jubex>'
    )
    (tmp_path / "t.yaml").write_text(
        "name: t\nsteps:\n  run:\n    iterations: {min: 3, max: 30, until: 'ci95(bw) <= 2%'}\n"
        "    do: echo bw 1\npatterns:\n  p:\n    bw: 'bw $jube_pat_fp'\n"
    )
    xml, yaml = (load(tmp_path / n).steps["run"] for n in ("t.xml", "t.yaml"))
    assert xml.iterations == yaml.iterations == 30
    assert xml.until is not None and yaml.until is not None
    assert (xml.until.stat, xml.until.limit, xml.until.minimum, xml.until.metrics) == (
        "ci95",
        0.02,
        3,
        ("bw",),
    )
    assert (xml.until.stat, xml.until.limit, xml.until.metrics) == (
        yaml.until.stat,
        yaml.until.limit,
        yaml.until.metrics,
    )


def refusal(path: Path, parameters: str) -> str:
    """The error of loading a jubex XML file with these parameters."""
    path.write_text(
        f'<jubex name="d"><parameters>{parameters}</parameters>'
        '<step name="s"><do>echo $p0</do></step></jubex>'
    )
    with pytest.raises(JubexError) as caught:
        load(path)
    return str(caught.value)


@pytest.mark.parametrize(
    "values",
    [",".join(map(str, range(20_000))), "".join(f"<value>{i}</value>" for i in range(20_000))],
)
def test_a_list_written_out_past_the_limit_is_refused_with_the_count(
    tmp_path: Path, values: str
) -> None:
    said = refusal(tmp_path / "d.xml", f'<parameter name="p0">{values}</parameter>')
    assert "a list of 20,000 values, more than the 10,000 a list written out may hold" in said


def test_a_set_of_more_than_a_thousand_parameters_is_refused(tmp_path: Path) -> None:
    """10,000 parameters took validate 2.8 s and info 4.1 s, as a YAML mapping of them does."""
    params = "".join(f'<parameter name="p{i}">1</parameter>' for i in range(10_000))
    said = refusal(tmp_path / "d.xml", params)
    assert "<parameters> holds 10,000 elements, more than the 1,000 a set may hold" in said
