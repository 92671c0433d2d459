"""A benchmark writes to its platform's target file system, and the run's provenance names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from jubex.engine import provenance

DEFINITION = (
    "name: target\nsteps:\n  run:\n    do: echo written > $jubex_fs_path/out.$jube_wp_padid\n"
)
PLATFORM = """\
extends: local
filesystems:
  home: {{path: {home}, kind: ext4, description: "not for benchmarks"}}
  scratch: {{path: {scratch}, kind: lustre, read_bandwidth: 5.5TB/s,
            write_bandwidth: 4.6TB/s, default: true}}
"""


def jubex(cwd: Path, *args: str) -> str:
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    env.pop("JUBEX_PLATFORM_PATH", None)
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_run_writes_to_the_target_file_system_and_provenance_names_it(tmp_path: Path) -> None:
    (tmp_path / "scratch").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "b.yaml").write_text(DEFINITION)
    site = tmp_path / "site.yaml"
    site.write_text(PLATFORM.format(home=tmp_path / "home", scratch=tmp_path / "scratch"))
    jubex(tmp_path, "run", "b.yaml", "-P", str(site))
    assert (tmp_path / "scratch" / "out.000000").read_text() == "written\n"
    facts = provenance.read(tmp_path / "runs" / "000000")
    assert facts["platform_filesystem"] == {
        "name": "scratch",
        "path": str(tmp_path / "scratch"),
        "kind": "lustre",
        "read_bandwidth": "5.5TB/s",
        "write_bandwidth": "4.6TB/s",
    }
    shown = jubex(tmp_path, "info", "runs/000000")
    assert (
        f"target file system: scratch at {tmp_path / 'scratch'} (lustre, read bandwidth " in shown
    )

    jubex(tmp_path, "run", "b.yaml", "-P", str(site), "-p", "jubex_fs=home")
    assert (tmp_path / "home" / "out.000000").read_text() == "written\n"
    run = json.loads((tmp_path / "runs" / "000001" / provenance.PROVENANCE).read_text())
    assert run["platform_filesystem"]["name"] == "home"


def test_without_file_systems_a_benchmark_writes_to_its_work_directory(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(DEFINITION)
    jubex(tmp_path, "run", "b.yaml")
    assert (tmp_path / "runs/000000/000000_run/work/out.000000").read_text() == "written\n"
    assert "platform_filesystem" not in provenance.read(tmp_path / "runs" / "000000")


def test_provenance_records_the_file_system_each_benchmark_writes_to(tmp_path: Path) -> None:
    # the run directory is on /tmp's file system; the benchmark writes to /dev/shm (tmpfs)
    shm = "/dev/shm/jubex-target-test"
    (tmp_path / "shm.yaml").write_text(
        f"name: shm\nparameters:\n  dir: [{shm}, .]\nsteps:\n  run:\n    do: echo $dir\n"
    )
    jubex(tmp_path, "run", "shm.yaml", "-q", "--outpath", "runs")
    facts = provenance.read(tmp_path / "runs" / "000000")
    targets = {t["path"]: t for t in facts["targets"]}
    assert targets[shm]["type"] == "tmpfs" and targets[shm]["mount"] == "/dev/shm"
    run_fs = facts["filesystem"]
    assert (targets["."]["type"], targets["."]["mount"]) == (run_fs["type"], run_fs["mount"])
    out = jubex(tmp_path, "info", "runs/000000")
    assert f"benchmarks write to: {shm} (tmpfs at /dev/shm" in out


def test_a_directory_the_job_expands_is_recorded_as_such(tmp_path: Path) -> None:
    (tmp_path / "var.yaml").write_text(
        "name: var\nparameters:\n  dir: $NOT_SET_HERE/io\nsteps:\n  run:\n    do: 'true'\n"
    )
    jubex(tmp_path, "run", "var.yaml", "-q", "--outpath", "runs")
    (target,) = provenance.read(tmp_path / "runs" / "000000")["targets"]
    assert target == {"path": "$NOT_SET_HERE/io", "unknown": "the job expands it"}
