"""Running detection: which scheduler answers here, its commands run with a time limit."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

from jubex.errors import JubexError
from jubex.platform.detect import machine, pbs, sge, slurm
from jubex.platform.detect.model import Detected

#: seconds one scheduler command may take
TIMEOUT = 30
#: the command that tells each scheduler is here, in the order they are tried
PROBES = {"slurm": "scontrol", "sge": "qconf", "pbs": "pbsnodes"}


def command(argv: list[str]) -> str:
    """A scheduler command's output; its failure is an error naming it and what it said."""
    what = " ".join(argv)
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise JubexError(f"`{what}`: {argv[0]} is not on PATH") from None
    except subprocess.TimeoutExpired:
        raise JubexError(f"`{what}` did not answer within {TIMEOUT} s") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise JubexError(
            f"`{what}` failed (exit status {done.returncode})" + (f": {said[-1]}" if said else "")
        )
    return done.stdout


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
