"""Workpackage ids as JUBE 2.7.1 gives them: a step's shared operation takes none, so the
ids, directories and ``$jube_wp_id`` of the steps after it are JUBE's (ICON's
``000001_execute``); the last workpackage of the step runs it and is done first, so JUBE
makes its children first (checked with ``jube --debug run`` and ``jube info`` under
``PYTHONHASHSEED`` 0, 1, 2, 3 and 42, which all gave the ids and points below)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import load
from jubex.cli.main import main
from jubex.space.plan import plan
from jubex.store.rundir import open_run

BENCHMARK = """<jube><benchmark name="shared" outpath="runs">
  <parameterset name="p"><parameter name="n">1,2</parameter></parameterset>
  <parameterset name="q">
    <parameter name="jobname">${jube_benchmark_name}_${jube_step_name}_${jube_wp_id}</parameter>
  </parameterset>
  <step name="compile" shared="shared">
    <use>p</use><do>echo $n</do><do shared="true">echo all</do>
  </step>
  <step name="execute" depend="compile"><use>q</use><do>echo $jobname</do></step>
</benchmark></jube>"""


def test_a_shared_operation_takes_no_id_from_the_steps_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shared.xml"
    path.write_text(BENCHMARK)
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--outpath", str(runs), "-q", "--no-result"]) == 0
    run_dir = runs / "000000"
    # jube run shared.xml: 000000_compile 000001_compile 000002_execute 000003_execute
    numbered = sorted(p.name for p in run_dir.glob("0*_*"))
    assert numbered == ["000000_compile", "000001_compile", "000002_execute", "000003_execute"]
    executes = [w for w in open_run(run_dir).store.workpackages() if w.step == "execute"]
    # JUBE: the last compile (n=2) runs the shared operation, so its child is made first
    assert sorted((str(w.point["jobname"]), str(w.point["n"])) for w in executes) == [
        ("shared_execute_2", "2"),
        ("shared_execute_3", "1"),
    ]
    assert (run_dir / "shared_compile" / "stdout").read_text() == "all\n"


def test_after_a_shared_operation_the_last_parents_children_come_first(tmp_path: Path) -> None:
    path = tmp_path / "shared.xml"
    path.write_text(BENCHMARK.replace(">1,2<", ">1,2,3<"))
    planned = [(w.id, w.step, str(w.point["n"])) for w in plan(load(path)) if w.kind == "wp"]
    assert planned == [
        (0, "compile", "1"),
        (1, "compile", "2"),
        (2, "compile", "3"),
        (3, "execute", "3"),
        (4, "execute", "1"),
        (5, "execute", "2"),
    ]
