"""``jubex run --dry-run``: every workpackage as the run renders it, nothing written.

The dry run and the run share one render function; these tests hold them to it by comparing
what a dry run says with what a real run then makes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from jubex.api import dry_run, resolve
from jubex.cli.dryrun import show_dry_run

Jubex = Callable[..., CompletedProcess[str]]

CYCLES = """<jube><benchmark name="c" outpath="runs">
  <parameterset name="p">
    <parameter name="n">1,2</parameter>
    <parameter name="x" mode="python" update_mode="cycle">${jube_wp_cycle} * 10 + $n</parameter>
  </parameterset>
  <step name="loop" cycles="3"><use>p</use><do>echo $x</do></step>
</benchmark></jube>
"""

SUFFIXED = """\
name: suffixed
parameters:
  x: [1, 2]
  size: [4k]
files:
  inputs: [{copy: input.txt}]
steps:
  build:
    suffix: _n$x
    files: [inputs]
    do: echo $jube_wp_relpath $jube_wp_abspath $size > where
  run:
    depend: [build]
    suffix: _r$x
    do: cat build/where
"""


def test_each_cycle_is_shown_with_its_own_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.xml"
    path.write_text(CYCLES)
    assert show_dry_run(resolve(path), "pretty") == 2  # the workpackages it showed
    lines = capsys.readouterr().out.splitlines()
    first = lines[: lines.index(next(line for line in lines if line.startswith("wp 1 ")))]
    assert first[2:] == [
        "  cycle 0:",
        "  $ echo 1",
        "  cycle 1:",
        "  $ echo 11",
        "  cycle 2:",
        "  $ echo 21",
    ]
    assert lines[-1].startswith("2 workpackage(s) would run")
    assert not (tmp_path / "runs").exists()


def test_the_dry_run_names_the_directories_and_writes_the_scripts_the_run_makes(
    jubex: Jubex,
    tmp_path: Path,
) -> None:
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "d.yaml").write_text(SUFFIXED)
    (tmp_path / "study" / "input.txt").write_text("in\n")
    shown = jubex(tmp_path, "run", "study/d.yaml", "--dry-run", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    planned = json.loads(shown.stdout)["workpackages"]
    assert not (tmp_path / "study" / "runs").exists()
    spec = resolve(tmp_path / "study" / "d.yaml")
    scripts = {path: text for item in dry_run(spec) for path, text in item.scripts.items()}
    done = jubex(tmp_path, "run", "study/d.yaml", "-q", "--no-result")
    assert done.returncode == 0, done.stderr
    run_dir = (tmp_path / "study" / "runs" / "000000").resolve()
    made = sorted(p.name for p in run_dir.iterdir() if p.name[:6].isdigit())
    assert made == ["000000_build_n1", "000001_build_n2", "000002_run_r1", "000003_run_r2"]
    assert [Path(wp["work_dir"]) for wp in planned] == [run_dir / name / "work" for name in made]
    assert [wp["parameters"]["x"] for wp in planned] == ["1", "2", "1", "2"]
    assert (run_dir / "000001_build_n2" / "work" / "where").read_text() == (
        f"runs/000000/000001_build_n2/work {run_dir}/000001_build_n2/work 4k\n"
    )
    assert sorted(p.parent.name for p in scripts if p.name == "body.sh") == made
    for path, text in scripts.items():
        assert path.read_text() == text, path


def test_a_batch_dry_run_shows_the_job_script(jubex: Jubex, tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(
        "name: b\nsteps:\n  s:\n    resources: {nodes: 2, time: 5m}\n    do: hostname\n"
    )
    shown = jubex(tmp_path, "run", "d.yaml", "--dry-run", "-P", "slurm", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    (wp,) = json.loads(shown.stdout)["workpackages"]
    assert "#SBATCH --nodes=2" in wp["job_script"]
    assert wp["commands"] == ["hostname"]


def test_a_missing_source_is_noted_by_the_dry_run_and_stops_the_run(
    jubex: Jubex, tmp_path: Path
) -> None:
    (tmp_path / "d.yaml").write_text(
        "name: m\nfiles:\n  inputs: [{copy: absent.txt}]\n"
        "steps:\n  s: {files: [inputs], do: 'true'}\n"
    )
    shown = jubex(tmp_path, "run", "d.yaml", "--dry-run")
    assert shown.returncode == 0, shown.stderr
    assert f"  ! copy: no file matches '{tmp_path}/absent.txt' (a run stops here)" in shown.stdout
    ran = jubex(tmp_path, "run", "d.yaml", "-q", "--no-result")
    assert ran.returncode == 1
    assert "no file matches" in jubex(tmp_path, "status").stdout
