"""Running detection: which scheduler answers here, its commands run with a time limit."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from typing import IO

from jubex.errors import JubexError
from jubex.platform.detect import machine, pbs, sge, slurm
from jubex.platform.detect.check import shown_text
from jubex.platform.detect.model import Detected

#: seconds one scheduler command may take
TIMEOUT = 30
#: bytes of one command's output read at most
MAX_OUTPUT = 256 << 20
#: the command that tells each scheduler is here, in the order they are tried
PROBES = {"slurm": "scontrol", "sge": "qconf", "pbs": "pbsnodes"}


def command(argv: list[str]) -> str:
    """A scheduler command's output; its failure is an error naming it and what it said.
    Both streams go to files, not memory: stdout is refused past MAX_OUTPUT bytes, and of
    stderr only the last line is shown, escape sequences escaped."""
    what = " ".join(argv)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            done = subprocess.run(
                argv, stdout=out, stderr=err, timeout=TIMEOUT, stdin=subprocess.DEVNULL
            )
        except FileNotFoundError:
            raise JubexError(f"`{what}`: {argv[0]} is not on PATH") from None
        except subprocess.TimeoutExpired:
            raise JubexError(f"`{what}` did not answer within {TIMEOUT} s") from None
        if done.returncode != 0:
            said = _tail(err) or _tail(out)
            raise JubexError(
                f"`{what}` failed (exit status {done.returncode})" + (f": {said}" if said else "")
            )
        size = out.seek(0, os.SEEK_END)
        if size > MAX_OUTPUT:
            raise JubexError(
                f"`{what}` printed {size:,} bytes, more than the {MAX_OUTPUT:,} detection reads"
            )
        out.seek(0)
        return out.read().decode("utf-8", errors="replace")


def _tail(stream: IO[bytes]) -> str:
    """The last line of a stream (read from its end: it may hold gigabytes), made safe for a
    terminal."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(max(0, size - 4096))
    lines = stream.read().decode("utf-8", errors="replace").strip().splitlines()
    return shown_text(lines[-1].strip()) if lines else ""


def which_scheduler() -> str:
    """The first scheduler whose client is on PATH."""
    for name, probe in PROBES.items():
        if shutil.which(probe):
            return name
    raise JubexError(
        "no scheduler found: none of scontrol (Slurm), qconf (Grid Engine) or pbsnodes (PBS) "
        "is on PATH; name one with --scheduler"
    )


def detect(scheduler: str | None = None, run: Callable[[list[str]], str] = command) -> Detected:
    """What the live scheduler and this machine say, for a platform file."""
    name = scheduler or which_scheduler()
    if name == "slurm":
        found = slurm.detect(*(run(argv) for argv in slurm.COMMANDS))
    elif name == "sge":
        found = sge.detect(run)
    elif name == "pbs":
        found = pbs.detect(*(run(argv) for argv in pbs.COMMANDS))
    else:
        raise JubexError(f"detect knows slurm, sge and pbs, not {name!r}")
    found.cpu_model = machine.cpu_model(machine.read("/proc/cpuinfo"))
    found.filesystems = machine.filesystems(machine.read("/proc/self/mountinfo"))
    found.sources += ["/proc/cpuinfo", "/proc/self/mountinfo"]
    return found
