"""What JUBE 2.7.1 plans for constructs that choose steps and sets (each planned value below
is what ``jube run --debug`` plans for the same file), and jubex's errors around them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from jubex.api import dry_run, resolve
from jubex.cli.main import main
from jubex.definition.jube.convert import convert_file
from jubex.errors import DefinitionError
from jubex.space.plan import SHARED


def planned(tmp_path: Path, text: str, *tags: str) -> list[tuple[str, dict[str, str]]]:
    """Each workpackage's step and values (as text) of a dry run of a JUBE file."""
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{text}</benchmark></jube>')
    return [
        (item.rendered.wp.step, {k: str(v) for k, v in item.rendered.wp.point.items()})
        for item in dry_run(resolve(path, tags=list(tags)))
        if item.rendered.wp.kind != SHARED
    ]


SHARED_STEP = """
<parameterset name="p"><parameter name="x">1,2</parameter></parameterset>
<step name="a" shared="sh"><use>p</use><do>echo $x</do><do shared="true">echo all</do></step>
"""


def test_info_counts_no_shared_operation_as_a_workpackage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{SHARED_STEP}</benchmark></jube>')
    assert main(["info", str(path)]) == 0
    assert "step a: 2 workpackage(s)" in capsys.readouterr().out


CHOSEN = """
<parameterset name="p">
  <parameter name="index" type="int">0,1</parameter>
  <parameter name="text" mode="python">["hello","world"][$index]</parameter>
</parameterset>
<parameterset name="set0"><parameter name="number" type="int">3,5</parameter></parameterset>
<parameterset name="set1"><parameter name="number" type="int">1</parameter></parameterset>
<parameterset name="r"><parameter name="out">${text}_$number</parameter></parameterset>
<step name="op"><use>p</use><use>set$index</use><do>echo $text $number</do></step>
<step name="post" depend="op"><use>r</use><do>echo $out</do></step>
"""


def test_a_set_chosen_by_a_parameter_with_several_values_is_chosen_per_point(
    tmp_path: Path,
) -> None:
    wps = planned(tmp_path, CHOSEN)
    assert [(v["index"], v["text"], v["number"]) for step, v in wps if step == "op"] == [
        ("0", "hello", "3"),
        ("0", "hello", "5"),
        ("1", "world", "1"),
    ]
    assert [v["out"] for step, v in wps if step == "post"] == ["hello_3", "hello_5", "world_1"]


def test_a_set_chosen_from_another_file_per_point(tmp_path: Path) -> None:
    (tmp_path / "more.xml").write_text(
        '<jube><parameterset name="set0"><parameter name="extra">10</parameter></parameterset>'
        '<parameterset name="set1"><parameter name="extra">20</parameter></parameterset></jube>'
    )
    wps = planned(
        tmp_path,
        CHOSEN.replace(
            "<use>set$index</use>",
            '<use>set$index</use><use from="more.xml:set0:set1">set$index</use>',
        ),
    )
    assert [(v["number"], v["extra"]) for step, v in wps if step == "op"] == [
        ("3", "10"),
        ("5", "10"),
        ("1", "20"),
    ]


def test_a_chosen_name_that_is_no_set_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DefinitionError, match="'set2', which is no parameterset"):
        planned(tmp_path, CHOSEN.replace('["hello","world"][$index]', '"x"').replace("0,1", "0,2"))


TAGGED = """
<parameterset name="sys"><parameter name="n">1,2</parameter></parameterset>
<parameterset name="args"><parameter name="mode">mpi</parameter></parameterset>
<parameterset name="job">
  <parameter name="jobname">${jube_step_name}_${jube_wp_id}</parameter>
  <parameter name="args_exec">--mode $mode -n $n</parameter>
</parameterset>
<step name="compile"><use>sys</use><do>make</do></step>
<step name="report" tag="pdf"><use>sys,job</use><do>pip install</do></step>
<step name="test" depend="compile,report" tag="pdf"><use>args,job</use><do>run</do></step>
<step name="test" depend="compile" tag="!pdf"><use>args,job</use><do>run</do></step>
"""


def test_same_named_steps_chosen_by_complementary_tags_plan_like_jube(tmp_path: Path) -> None:
    wps = planned(tmp_path, TAGGED, "pdf")
    assert [step for step, _ in wps] == ["compile"] * 2 + ["report"] * 2 + ["test"] * 2
    assert [v["args_exec"] for step, v in wps if step == "report"] == [
        "--mode $mode -n 1",
        "--mode $mode -n 2",
    ]
    # the parent's value still read $mode, which the dependent step knows: worked out there
    assert [(v["jobname"], v["args_exec"]) for step, v in wps if step == "test"] == [
        ("report_2", "--mode mpi -n 1"),
        ("report_3", "--mode mpi -n 2"),
    ]


def test_the_other_step_of_the_name_without_the_tag(tmp_path: Path) -> None:
    wps = planned(tmp_path, TAGGED)
    assert [(v["jobname"], v["args_exec"]) for step, v in wps if step == "test"] == [
        ("test_2", "--mode mpi -n 1"),
        ("test_3", "--mode mpi -n 2"),
    ]


def test_a_set_chosen_per_point_converts_into_a_use_that_names_it(tmp_path: Path) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{CHOSEN}</benchmark></jube>')
    out = tmp_path / "out.yaml"
    out.write_text(convert_file(path, out))
    converted = yaml.safe_load(out.read_text())
    assert converted["steps"]["op"]["use"] == ["p", "set$index"]
    again = [
        (item.rendered.wp.step, {k: str(v) for k, v in item.rendered.wp.point.items()})
        for item in dry_run(resolve(out))
    ]
    assert again == planned(tmp_path, CHOSEN)


def test_a_chosen_set_that_does_not_exist_is_an_error_naming_the_step(tmp_path: Path) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(
        "name: b\nparametersets:\n  p: {i: [0, 1]}\n  s0: {n: 1}\n"
        "steps:\n  op: {use: [p, s$i], do: echo $n}\n"
    )
    with pytest.raises(
        DefinitionError, match="uses 's\\$i', that is 's1', which is no parameterset"
    ):
        list(dry_run(resolve(path)))
