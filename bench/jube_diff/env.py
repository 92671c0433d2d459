"""Running both tools as on a JSC login node, and reading their error messages."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

TIMEOUT = 600

# JSC's partitions as their login nodes' ``sinfo`` shows a node: sockets (JSC counts NUMA
# domains), cores per socket, threads per core. The stream suite asks for them.
PARTITIONS = {
    "booster": (8, 6, 2),  # JUWELS Booster: 2 x AMD EPYC 7402, 4 NUMA domains each
    "batch": (2, 24, 2),  # JUWELS Cluster: 2 x Intel Xeon Platinum 8168
    "dc-cpu": (8, 16, 2),  # JURECA-DC: 2 x AMD EPYC 7742, 4 NUMA domains each
}
# A stand-in for ``sinfo -p PARTITION -o FORMAT`` answering %X, %Y, %Z and %c from PARTITIONS.
SINFO = rf"""#!{sys.executable}
import re, sys
PARTITIONS = {PARTITIONS!r}
args = sys.argv[1:]
part = args[args.index("-p") + 1] if "-p" in args else "booster"
fmt = next((a for a in args if "%" in a), "%P")
x, y, z = PARTITIONS.get(part, PARTITIONS["booster"])
values = {{"X": x, "Y": y, "Z": z, "c": x * y * z, "P": part}}
line = re.sub(r"%\.?(\d*)([A-Za-z])",
              lambda m: str(values.get(m.group(2), "")).rjust(int(m.group(1) or 0)), fmt)
if not any(a.startswith("-h") or a == "--noheader" for a in args):
    print(re.sub(r"%\.?(\d*)([A-Za-z])", lambda m: m.group(2).rjust(int(m.group(1) or 0)), fmt))
print(line)
"""


class Namespace:
    """Runs commands as on a JSC login node: ``/etc/FZJ/systemname``, ``$SYSTEMNAME`` and
    ``sinfo`` answering for JSC's partitions.

    The file is provided by an overlay mount on ``/etc`` inside a private mount namespace
    (``unshare -m``), so the host's ``/etc`` is never written. Without the privilege to do so
    the commands run unwrapped and only ``$SYSTEMNAME`` is set.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.usable = shutil.which("unshare") is not None and _probe_overlay(scratch)
        self.bin = scratch / "bin"
        self.bin.mkdir(exist_ok=True)
        (self.bin / "sinfo").write_text(SINFO)
        (self.bin / "sinfo").chmod(0o755)

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
        """The environment of a login node: ``$SYSTEMNAME``, and a ``sinfo`` that knows
        JSC's partitions first on the path (the host's Slurm, if any, knows others)."""
        path = f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"
        return dict(os.environ, SYSTEMNAME=system, PATH=path, **(extra or {}))


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
