"""The benchmarks that guard jubex's speed: what ``bench/run`` measures, one case at a time.

Each case prepares its input once (not timed), then measures one command in a fresh
process per repetition: CPU seconds (user + system of the process and its children), the
figure a shared machine disturbs least, and wall seconds beside it. The cases use the
bench scripts' own builders, so that a script whose builder rots fails here too.
"""

from __future__ import annotations

import os
import platform
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench_analyse_result import make_run
from bench_bounded_sizes import jube_file
from bench_engine_local import DEFINITION as TRIVIAL
from timing import ENV, JUBEX

REPO = Path(__file__).resolve().parent.parent

#: one measurement: wall and CPU seconds
Measure = Callable[[], tuple[float, float]]


@dataclass(frozen=True)
class Case:
    """A benchmark of the gate: its name, what it measures, and its sizes (full and smoke)."""

    name: str
    what: str
    size: int
    smoke: int
    prepare: Callable[[Path, int, int], Measure]


def _run(cmd: list[str] | str, cwd: Path, times: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``times`` runs of one command (output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for _ in range(times):
        subprocess.run(
            cmd,
            cwd=cwd,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            shell=isinstance(cmd, str),
            env=ENV,
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _command(cmd: list[str]) -> Callable[[Path, int, int], Measure]:
    """A case that runs a jubex command needing no input."""

    def prepare(work: Path, n: int, times: int) -> Measure:
        return lambda: _run([*JUBEX, *cmd], work, times)

    return prepare


def _result(work: Path, n: int, times: int) -> Measure:
    run = make_run(work, n, "ior", 1)
    _run([*JUBEX, "analyse", str(run)], work, 1)
    return lambda: _run(
        [*JUBEX, "result", "--no-analyse", str(run), "-T", "bandwidth"], work, times
    )


def _analyse(work: Path, n: int, times: int) -> Measure:
    run = make_run(work, n, "ior", 1)
    return lambda: _run([*JUBEX, "analyse", "--force", str(run)], work, times)


def _fresh(work: Path) -> Callable[[], Path]:
    """A new directory under ``work`` for each call: nothing is deleted while measuring (on
    ext4 without a journal, freed inodes slow the next file creations)."""
    count = iter(range(1 << 30))

    def made() -> Path:
        path = work / f"{next(count):04d}"
        path.mkdir()
        return path

    return made


def _engine(work: Path, n: int, times: int) -> Measure:
    fresh = _fresh(work)
    definition = work / "trivial.yaml"
    definition.write_text(TRIVIAL.format(last=n - 1))
    cmd = [*JUBEX, "run", str(definition), "--outpath", "runs", "-q", "--no-result"]

    def measure() -> tuple[float, float]:
        found = [_run(cmd, fresh(), 1) for _ in range(times)]
        return sum(w for w, _ in found), sum(c for _, c in found)

    return measure


def _xargs(work: Path, n: int, times: int) -> Measure:
    fresh = _fresh(work)
    script = 'mkdir -p "w/$1" && echo "bw: $1.4 MiB/s" > "w/$1/stdout"'
    cmd = f"seq 0 {n - 1} | xargs -P {os.cpu_count()} -I{{}} sh -c '{script}' _ {{}}"
    return lambda: _run(cmd, fresh(), times)


def _jube(*args: str) -> Callable[[Path, int, int], Measure]:
    def prepare(work: Path, n: int, times: int) -> Measure:
        (work / "d.xml").write_text(jube_file(n)[1])
        fresh = _fresh(work)
        return lambda: _run([*JUBEX, *args, str(work / "d.xml")], fresh(), times)

    return prepare


CASES = (
    Case("startup", "`jubex --version`", 1, 1, _command(["--version"])),
    Case(
        "result",
        "`jubex result --no-analyse RUN -T bandwidth`, N IOR rows in 20 groups",
        1000,
        40,
        _result,
    ),
    Case("analyse", "`jubex analyse --force RUN`, N IOR outputs", 200, 20, _analyse),
    Case("engine", "`jubex run` of N trivial workpackages, local platform", 500, 10, _engine),
    Case("xargs_floor", "`xargs -P cores` doing the same N commands (the floor)", 500, 10, _xargs),
    Case(
        "jube_validate",
        "`jubex validate` of a JUBE file of N benchmarks",
        1000,
        5,
        _jube("validate"),
    ),
    Case(
        "jube_dry_run",
        "`jubex run --dry-run` of a JUBE file of N benchmarks",
        500,
        5,
        _jube("run", "--outpath", "runs", "--dry-run"),
    ),
)


def machine() -> dict[str, str]:
    """What the figures depend on besides the code: processor, cores, Python, load."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_model": model,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
    }


def commit() -> str:
    """The measured checkout's commit, ``+changes`` when its files differ from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def measure_all(
    work: Path,
    repetitions: int,
    smoke: bool,
    plant: str | None,
    say: Callable[[str], None],
    only: frozenset[str] = frozenset(),
) -> dict[str, list[tuple[float, float]]]:
    """Every case's (wall, CPU) per repetition, the cases interleaved so that the machine's
    drift hits them alike. ``plant`` names a case whose command runs twice per measurement:
    a real 2x slowdown, to show that the gate catches one. ``only``: these cases alone."""
    measures: dict[str, Measure] = {}
    for case in CASES:
        if only and case.name not in only:
            continue
        folder = work / case.name
        folder.mkdir()
        times = 2 if case.name == plant else 1
        measures[case.name] = case.prepare(folder, case.smoke if smoke else case.size, times)
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in measures}
    for rep in range(repetitions):
        for name, measure in measures.items():
            found[name].append(measure())
        say(f"repetition {rep + 1} of {repetitions} done, load {os.getloadavg()[0]:.1f}")
    return found


def record(
    found: dict[str, list[tuple[float, float]]],
    smoke: bool,
    plant: str | None,
    loads: tuple[float, float],
    started: tuple[float, str],
) -> dict[str, object]:
    """The figures as a ``jubex-record/1`` (docs/record.md), with the machine they came from;
    ``started``: when, and at which commit (taken before measuring, not after)."""
    provenance = {
        **machine(),
        "commit": started[1],
        "load_before": f"{loads[0]:.2f}",
        "load_after": f"{loads[1]:.2f}",
        "sizes": "smoke" if smoke else "full",
    }
    if plant:
        provenance["planted_slowdown"] = f"{plant} runs its command twice per measurement"
    sizes = {c.name: c.smoke if smoke else c.size for c in CASES}
    return {
        "format": "jubex-record/1",
        "benchmark": "jubex_bench",
        "site": "bench",
        "platform": "local",
        "harness": {
            "name": "jubex bench/run",
            "version": provenance["commit"],
            "command": " ".join(["bench/run", *sys.argv[1:]]),
            "host": socket.gethostname(),
            "directory": str(REPO),
        },
        "created": started[0],
        "provenance": provenance,
        "metrics": {
            "cpu": {"unit": "s", "better": "lower"},
            "wall": {"unit": "s", "better": "lower"},
        },
        "points": [
            {
                "parameters": {"bench": name, "n": sizes[name]},
                "repetitions": [{"values": {"wall": w, "cpu": c}} for w, c in times],
            }
            for name, times in found.items()
        ],
    }
