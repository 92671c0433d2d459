"""JUBE's python mode as JUBE 2.7.1 runs it: lists built from derived values, imports,
``$jube_step_name`` per step, python patterns at analysis time, and the ``--no-python`` switch.

Every expectation below is what ``jube run`` of the same file gives (checked by hand with
JUBE 2.7.1: ``jube --debug run`` then ``jube info -c``, or ``jube result``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from jubex.api import load
from jubex.cli.main import main
from jubex.errors import DefinitionError, JubexError
from jubex.language import python
from jubex.space.plan import plan

LISTS = """<jube><benchmark name="lists" outpath="runs">
  <parameterset name="sys">
    <parameter name="systemname" mode="shell">printf "%s" booster</parameter>
  </parameterset>
  <parameterset name="p">
    <parameter name="i" type="int">0,1</parameter>
    <parameter name="nodes" type="int" mode="python">[1,2][$i]</parameter>
    <parameter name="k" type="int" mode="python">"0,1,2" if ${nodes} == 1 else "0"</parameter>
    <parameter name="nnodes" type="int" mode="python">{"booster":"4,8"}["${systemname}"]</parameter>
    <parameter name="total" type="int" mode="python">$nnodes * 10 + $k</parameter>
  </parameterset>
  <step name="s"><use>sys</use><use>p</use><do>echo $k</do></step>
</benchmark></jube>"""

HALF = 'exec("from fractions import Fraction") or str(Fraction($tasks, 8))'
MEM = '{"juwels": "96", "booster": "512"}.get("${sys}","256")'
IMPORTS = f"""<jube><benchmark name="imp" outpath="runs">
  <parameterset name="p">
    <parameter name="tasks" type="int">4,6,12</parameter>
    <parameter name="half" mode="python">{HALF}</parameter>
    <parameter name="mem" type="int" mode="python">{MEM}</parameter>
    <parameter name="sys">booster</parameter>
  </parameterset>
  <step name="s"><use>p</use><do>echo $half $mem</do></step>
</benchmark></jube>"""

STEP_NAME = """name: stepname
outpath: runs
parameterset:
  - name: p
    parameter:
      - name: executable
        mode: python
        update_mode: step
        _: "{'first': 'run-a', 'second': 'run-b'}['$jube_step_name']"
      - {name: n, type: int, _: "1,2"}
step:
  - {name: first, use: p, do: echo $executable}
  - {name: second, depend: first, do: echo $executable $n}
"""

VERIFIED = (
    '["wrong","correct"][int(all([i, 0, 0.5, 0.5] == list(map(float,line.split())) '
    'for i,line in enumerate("""$expectations""".strip().splitlines())))]'
)
PATTERNS = f"""<jube><benchmark name="b" outpath="runs">
<parameterset name="p"><parameter name="n" type="int">2,3</parameter>
<parameter name="expectations">0 0 0.5 0.5
1 0 0.5 0.5</parameter></parameterset>
<patternset name="pats">
  <pattern name="v" type="int">^v=$jube_pat_int$</pattern>
  <pattern name="double" mode="python" type="int">(lambda x: x * 2)($v)</pattern>
  <pattern name="verified" mode="python">{VERIFIED}</pattern>
</patternset>
<step name="s"><use>p</use><do>echo v=$n > out.txt</do></step>
<analyser name="a"><use>pats</use><analyse step="s"><file>out.txt</file></analyse></analyser>
<result><use>a</use><table name="t" style="csv">
  <column>n</column><column>double</column><column>verified</column>
</table></result>
</benchmark></jube>"""


@pytest.fixture(autouse=True)
def _python_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUBEX_NO_PYTHON", raising=False)


def _planned(
    tmp_path: Path, text: str, name: str = "bench.xml"
) -> list[tuple[str, dict[str, str]]]:
    path = tmp_path / name
    path.write_text(text)
    return [(wp.step, {k: str(v) for k, v in wp.point.items()}) for wp in plan(load(path))]


def test_a_snippet_whose_text_holds_the_separator_is_several_typed_values(
    tmp_path: Path,
) -> None:
    rows = [
        (p["i"], p["nodes"], p["k"], p["nnodes"], p["total"]) for _, p in _planned(tmp_path, LISTS)
    ]
    assert rows == [
        ("0", "1", "0", "4", "40"),
        ("0", "1", "0", "8", "80"),
        ("0", "1", "1", "4", "41"),
        ("0", "1", "1", "8", "81"),
        ("0", "1", "2", "4", "42"),
        ("0", "1", "2", "8", "82"),
        ("1", "2", "0", "4", "40"),
        ("1", "2", "0", "8", "80"),
    ]


# The stream suite's software stack: a list built from values that read another value.
STACK = """<jube><benchmark name="stack" outpath="runs">
  <parameterset name="modules">
    <parameter name="stage">2022</parameter>
    <parameter name="g">${stage}-gcc</parameter>
    <parameter name="i">${stage}-intel</parameter>
    <parameter name="nv"></parameter>
    <parameter name="software_stack" mode="python"
      >",".join([i for i in "${g} ${i} ${nv}".split(" ") if len(i) > 0])</parameter>
    <parameter name="modules" mode="python"
      >{"${stage}-gcc": "GCC", "${stage}-intel": "Intel"}.get("${software_stack}", "-")</parameter>
  </parameterset>
  <parameterset name="sizes"><parameter name="n">1,2</parameter></parameterset>
  <step name="compile"><use>modules</use><use>sizes</use><do>echo $modules $n</do></step>
</benchmark></jube>"""


def test_a_list_built_from_values_reading_other_values_is_split_per_point_as_jube_does(
    tmp_path: Path,
) -> None:
    rows = [(p["software_stack"], p["modules"], p["n"]) for _, p in _planned(tmp_path, STACK)]
    assert rows == [  # workpackages 0 to 3 of JUBE 2.7.1
        ("2022-gcc", "GCC", "1"),
        ("2022-intel", "Intel", "1"),
        ("2022-gcc", "GCC", "2"),
        ("2022-intel", "Intel", "2"),
    ]


OTHER_SET = """<jube><benchmark name="b" outpath="runs">
  <parameterset name="base"><parameter name="n">1,2</parameter></parameterset>
  <parameterset name="derived">
    <parameter name="m" mode="python">",".join(str($n * k) for k in range(2))</parameter>
  </parameterset>
  <step name="s"><use>base,derived</use><do>echo $m</do></step>
</benchmark></jube>"""


def test_a_list_built_from_another_sets_values_is_split_per_point_as_jube_does(
    tmp_path: Path,
) -> None:
    rows = [(p["n"], p["m"]) for _, p in _planned(tmp_path, OTHER_SET)]
    assert rows == [("1", "0"), ("1", "1"), ("2", "0"), ("2", "2")]  # JUBE 2.7.1's 0 to 3


def test_an_import_runs_in_the_separate_interpreter_and_dict_get_in_the_safe_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [(p["half"], p["mem"]) for _, p in _planned(tmp_path, IMPORTS)]
    assert rows == [("1/2", "512"), ("3/4", "512"), ("3/2", "512")]
    warned = capsys.readouterr().err
    assert "bench.xml:4: warning: parameter 'half'" in warned and "separate Python" in warned
    assert "'mem'" not in warned


def test_jube_step_name_is_each_steps_own_in_a_parameter_updated_per_step(
    tmp_path: Path,
) -> None:
    planned = _planned(tmp_path, STEP_NAME, "bench.yaml")
    assert [(step, p["executable"], p["n"]) for step, p in planned] == [
        ("first", "run-a", "1"),
        ("first", "run-a", "2"),
        ("second", "run-b", "1"),
        ("second", "run-b", "2"),
    ]


def test_python_patterns_are_evaluated_at_analysis_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(PATTERNS)
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    out = capsys.readouterr().out.split()
    start = out.index("n,double,verified")
    assert out[start : start + 3] == ["n,double,verified", "2,4,correct", "3,6,correct"]


@pytest.mark.parametrize(
    ("switch", "env", "said"),
    [
        (["--no-python"], None, "--no-python"),
        ([], "1", "JUBEX_NO_PYTHON"),
        (["--platform", "strict.yaml"], None, "platform 'strict' (python: false)"),
        ([], None, "config.yaml (python: false)"),
    ],
    ids=["flag", "environment", "platform", "user config"],
)
def test_the_switch_refuses_real_python_naming_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    switch: list[str],
    env: str | None,
    said: str,
) -> None:
    if env:
        monkeypatch.setenv("JUBEX_NO_PYTHON", env)
    (tmp_path / "strict.yaml").write_text("extends: local\npython: false\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    if not switch and not env:
        (tmp_path / "config" / "jubex").mkdir(parents=True)
        (tmp_path / "config" / "jubex" / "config.yaml").write_text("python: false\n")
    python.config_allows.cache_clear()
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "bench.xml"
    path.write_text(IMPORTS)
    assert main(["run", "--dry-run", *switch, str(path)]) != 0
    python.config_allows.cache_clear()
    error = capsys.readouterr().err
    assert "bench.xml:4: error: parameter 'half'" in error
    assert f"{said} refuses real Python" in error and "Traceback" not in error


def test_the_switch_of_one_command_is_gone_when_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench.xml").write_text(IMPORTS)
    assert main(["run", "--dry-run", "--no-python", "bench.xml"]) != 0
    halves = [p["half"] for _, p in _planned(tmp_path, IMPORTS)]
    assert halves == ["1/2", "3/4", "3/2"]


def test_the_switch_leaves_what_the_safe_language_expresses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUBEX_NO_PYTHON", "1")
    rows = [(p["nodes"], p["k"]) for _, p in _planned(tmp_path, LISTS)]
    assert rows[:3] == [("1", "0"), ("1", "0"), ("1", "1")]
    with pytest.raises(DefinitionError) as caught:
        _planned(tmp_path, IMPORTS)
    assert caught.value.loc is not None and caught.value.loc.line == 4


def test_jubexs_own_expressions_are_never_split_nor_real_python(tmp_path: Path) -> None:
    own = "name: own\nparameters:\n  n: [1, 2]\n  s: {expr: \"'a,' + str(n)\"}\nsteps:\n"
    own += "  run: {do: echo $s}\n"
    assert [p["s"] for _, p in _planned(tmp_path, own, "own.yaml")] == ["a,1", "a,2"]
    refused = own.replace("\"'a,' + str(n)\"", '"(lambda: 1)()"')
    with pytest.raises(JubexError) as caught:
        _planned(tmp_path, refused, "own.yaml")
    assert "is not allowed in expressions" in caught.value.message


def test_a_converted_file_keeps_real_python_and_plans_the_same_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(IMPORTS)
    out = tmp_path / "out.yaml"
    assert main(["convert", str(path), "-o", str(out)]) == 0
    converted = out.read_text()
    half = yaml.safe_load(converted)["parametersets"]["p"]["half"]
    assert half == {"python": HALF.replace("$tasks", "tasks"), "separator": ","}
    assert _planned(tmp_path, converted, "again.yaml") == _planned(tmp_path, IMPORTS)
    capsys.readouterr()
    monkeypatch.setenv("JUBEX_NO_PYTHON", "1")
    assert main(["validate", str(out)]) == 2
    error = "".join(capsys.readouterr())
    line = next(n for n, t in enumerate(converted.splitlines(), 1) if "python: " in t)
    assert f"out.yaml:{line}:" in error and "parameter 'half'" in error
    assert "JUBEX_NO_PYTHON refuses" in error and "Traceback" not in error


def test_a_child_step_inheriting_a_value_that_names_the_step_keeps_its_parents(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(
        '<jube><benchmark name="b" outpath="runs">'
        '<parameterset name="p"><parameter name="n">1,2</parameter>'
        '<parameter name="job">b_${jube_step_name}_$n</parameter></parameterset>'
        '<step name="compile"><use>p</use><do>echo $job</do></step>'
        '<step name="run" depend="compile"><do>echo $job</do></step>'
        "</benchmark></jube>"
    )
    planned = list(plan(load(path)))
    assert [(wp.step, str(wp.point["n"]), wp.parents) for wp in planned] == [
        ("compile", "1", ()),
        ("compile", "2", ()),
        ("run", "1", (0,)),
        ("run", "2", (1,)),
    ]


def test_a_snippet_failing_in_python_is_an_error_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(
        '<jube><benchmark name="b" outpath="runs">\n'
        '<parameterset name="p"><parameter name="n" type="int">0,1</parameter>\n'
        '<parameter name="x" mode="python">(lambda k: 1 // k)($n)</parameter>\n'
        '</parameterset><step name="s"><use>p</use><do>echo $x</do></step>'
        "</benchmark></jube>"
    )
    assert main(["run", "--dry-run", "--allow-code", str(path)]) != 0
    error = capsys.readouterr().err
    assert "bench.xml:3: error:" in error and "ZeroDivisionError" in error
    assert "Traceback" not in error


def test_a_subscripted_reference_reads_the_text_as_the_literal_jube_substitutes(
    tmp_path: Path,
) -> None:
    planned = _planned(
        tmp_path,
        '<jube><benchmark name="b" outpath="runs"><parameterset name="p">'
        '<parameter name="pq" separator=";">(2,2);(4,1)</parameter>'
        '<parameter name="p" mode="python" type="int">${pq}[0]</parameter>'
        '<parameter name="q" mode="python" type="int">${pq}[1] * 10</parameter>'
        '<parameter name="r" mode="python" type="int">'
        'exec("import math") or math.prod(${pq}[0:2])</parameter>'
        '</parameterset><step name="s"><use>p</use><do>echo $p</do></step>'
        "</benchmark></jube>",
    )
    assert [(p["pq"], p["p"], p["q"], p["r"]) for _, p in planned] == [
        ("(2,2)", "2", "20", "4"),
        ("(4,1)", "4", "10", "4"),
    ]
