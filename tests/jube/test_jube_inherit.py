"""The values a dependent step inherits and JUBE's ``jube_wp_*`` built-ins, as JUBE 2.7.1
plans them (each expectation below is what ``jube run --debug`` gives for the same file)."""

from __future__ import annotations

from pathlib import Path

from jubex.api import dry_run, resolve

INHERIT = """<jube><benchmark name="b" outpath="runs">
<parameterset name="p">
  <parameter name="n">1,2</parameter>
  <parameter name="job">${jube_step_name}_${jube_wp_id}</parameter>
  <parameter name="exe">${jube_wp_abspath}/bin/app</parameter>
  <parameter name="rel">${jube_wp_relpath}</parameter>
  <parameter name="stepname" update_mode="step">${jube_step_name}</parameter>
  <parameter name="OMP_NUM_THREADS" export="true">$n</parameter>
  <parameter name="A_VAR" export="true">a "b"</parameter>
</parameterset>
<parameterset name="q">
  <parameter name="cmd">run $exe</parameter>
  <parameter name="env">$jube_wp_envstr</parameter>
  <parameter name="envl">$jube_wp_envlist</parameter>
</parameterset>
<step name="compile"><use>p</use><do>echo a</do></step>
<step name="execute" depend="compile"><use>q</use><do>echo t</do></step>
</benchmark></jube>
"""


def planned(tmp_path: Path, text: str, *tags: str) -> list[tuple[str, dict[str, str]]]:
    """Each workpackage's step and values (as text) of a dry run of a JUBE file."""
    path = tmp_path / "bench.xml"
    path.write_text(text)
    return [
        (item.rendered.wp.step, {k: str(v) for k, v in item.rendered.wp.point.items()})
        for item in dry_run(resolve(path, tags=list(tags)))
    ]


def test_a_dependent_step_keeps_its_parents_values(tmp_path: Path) -> None:
    wps = planned(tmp_path, INHERIT)
    run = (tmp_path / "runs" / "000000").resolve()
    compiled = [v for step, v in wps if step == "compile"]
    executed = [v for step, v in wps if step == "execute"]
    assert [v["job"] for v in compiled] == ["compile_0", "compile_1"]
    assert [v["job"] for v in executed] == ["compile_0", "compile_1"]
    assert [v["exe"] for v in executed] == [
        f"{run}/000000_compile/work/bin/app",
        f"{run}/000001_compile/work/bin/app",
    ]
    assert [v["cmd"] for v in executed] == [
        f"run {run}/000000_compile/work/bin/app",
        f"run {run}/000001_compile/work/bin/app",
    ]
    assert [v["rel"] for v in executed] == [
        "runs/000000/000000_compile/work",
        "runs/000000/000001_compile/work",
    ]


def test_a_parameter_of_update_mode_step_is_worked_out_again(tmp_path: Path) -> None:
    wps = planned(tmp_path, INHERIT)
    assert [v["stepname"] for _, v in wps] == ["compile", "compile", "execute", "execute"]


def test_the_environment_built_ins_export_the_exported_parameters(tmp_path: Path) -> None:
    executed = [v for step, v in planned(tmp_path, INHERIT) if step == "execute"]
    assert [v["env"] for v in executed] == [
        'export A_VAR="a \\"b\\""\nexport OMP_NUM_THREADS="1"',
        'export A_VAR="a \\"b\\""\nexport OMP_NUM_THREADS="2"',
    ]
    assert {v["envl"] for v in executed} == {"A_VAR,OMP_NUM_THREADS"}


STEP_NAME = """<jube><benchmark name="b" outpath="runs">
<parameterset name="p">
  <parameter name="n">1,2</parameter>
  <parameter name="exe" mode="python" update_mode="step"
    >{'build': 'make', 'run': './app'}['$jube_step_name']</parameter>
  <parameter name="first" mode="python">'$jube_step_name' + '_x'</parameter>
  <parameter name="tag">${jube_step_name}</parameter>
</parameterset>
<step name="build"><use>p</use><do>$exe</do></step>
<step name="run" depend="build"><do>$exe</do></step>
</benchmark></jube>
"""


def test_the_step_name_is_known_while_planning_and_kept_unless_updated(tmp_path: Path) -> None:
    wps = planned(tmp_path, STEP_NAME)
    assert [(step, v["n"], v["exe"], v["first"], v["tag"]) for step, v in wps] == [
        ("build", "1", "make", "build_x", "build"),
        ("build", "2", "make", "build_x", "build"),
        ("run", "1", "./app", "build_x", "build"),
        ("run", "2", "./app", "build_x", "build"),
    ]
