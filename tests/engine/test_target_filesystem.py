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
