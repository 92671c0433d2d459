"""examples/ska-ior-darshan.yaml: the SKA IOR sweep under Darshan, as docs/darshan.md runs it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "ska-ior-darshan.yaml"


def _jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )


def test_every_point_logs_into_its_own_directory_and_one_is_misconfigured(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libdarshan.so").write_bytes(b"")
    (tmp_path / "here.yaml").write_text("extends: local\ndarshan: lib/libdarshan.so\n")
    alone = _jubex(tmp_path, "validate", str(EXAMPLE))
    assert (
        alone.returncode == 2 and "names a Darshan module or library" in alone.stdout + alone.stderr
    )
    assert _jubex(tmp_path, "validate", str(EXAMPLE), "-P", "./here.yaml").returncode == 0
    done = _jubex(
        tmp_path, "run", str(EXAMPLE), "-P", "./here.yaml", "--dry-run", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)["workpackages"]
    assert len(items) == 10
    for item in items:
        work = item["work_dir"]
        assert f"export DARSHAN_LOGFILE={shlex.quote(work + '/darshan.log')}" in item["darshan"]
        preload = f"export LD_PRELOAD={tmp_path / 'lib' / 'libdarshan.so'}"
        assert any(line.startswith(preload) for line in item["darshan"])
    wrong = [
        i["parameters"] for i in items if i["parameters"]["transfer"] != i["parameters"]["t_option"]
    ]
    assert [(p["transfer"], p["t_option"]) for p in wrong] == [("1m", "4k"), ("1m", "4k")]
