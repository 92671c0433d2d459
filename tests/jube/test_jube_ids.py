"""Workpackage ids as JUBE 2.7.1 gives them: a step's shared operation takes none, so the
ids, directories and ``$jube_wp_id`` of the steps after it are JUBE's (ICON's
``000001_execute``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main
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
    assert sorted(str(w.point["jobname"]) for w in executes) == [
        "shared_execute_2",
        "shared_execute_3",
    ]
    assert (run_dir / "shared_compile" / "stdout").read_text() == "all\n"
