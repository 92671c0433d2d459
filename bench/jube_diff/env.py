"""Running both tools as on a JSC login node, and reading their error messages."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

TIMEOUT = 600


class Namespace:
    """Runs commands as on a JSC login node: ``/etc/FZJ/systemname`` and ``$SYSTEMNAME``.

    The file is provided by an overlay mount on ``/etc`` inside a private mount namespace
    (``unshare -m``), so the host's ``/etc`` is never written. Without the privilege to do so
    the commands run unwrapped and only ``$SYSTEMNAME`` is set.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.usable = shutil.which("unshare") is not None and _probe_overlay(scratch)

    def command(self, system: str, argv: Sequence[str]) -> list[str]:
        if not self.usable:
            return list(argv)
        layer = Path(tempfile.mkdtemp(prefix=f"etc-{system}-", dir=self.scratch))
        (layer / "upper" / "FZJ").mkdir(parents=True)
        (layer / "work").mkdir()
        (layer / "upper" / "FZJ" / "systemname").write_text(system + "\n")
        mount = (
            "mount -t overlay overlay "
            f"-o lowerdir=/etc,upperdir={layer / 'upper'},workdir={layer / 'work'} /etc"
        )
        script = f'{mount} && exec "$@"'
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *argv]

    def env(self, system: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ, SYSTEMNAME=system, **(extra or {}))
        return env


def _probe_overlay(scratch: Path) -> bool:
    probe = Path(tempfile.mkdtemp(prefix="probe-", dir=scratch))
    (probe / "upper").mkdir()
    (probe / "work").mkdir()
    opts = f"lowerdir=/etc,upperdir={probe / 'upper'},workdir={probe / 'work'}"
    script = f"mount -t overlay overlay -o {opts} /etc"
    try:
        done = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def run(
    argv: Sequence[str], *, env: dict[str, str], cwd: Path, timeout: int = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """ARGV's exit code and output; a time-out reads as exit 124."""
    try:
        return subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"timed out after {timeout} s")


def first_error(text: str) -> str:
    """The line that says what went wrong, not the traceback's first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        if re.search(r"\berror\b|Error|refus|invalid|not found|unknown|cannot", line) and not (
            line.startswith("Traceback") or line.startswith("File ")
        ):
            return line[:300]
    return (lines[-1] if lines else "")[:300]


def jube_error(text: str) -> str:
    """JUBE ends with its error message; progress bars and boxes come before it."""
    noise = re.compile(r"^(#|\.{5}|Running workpackages|\(|\d+ *\|)|^[=\-]+$")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not noise.match(ln.strip())]
    return (lines[-1] if lines else "")[:300]
