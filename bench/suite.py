"""The benchmarks that guard jubex's speed: what ``bench/run`` measures, one case at a time.

Each case prepares its input once (not timed), then measures one command in a fresh
process per repetition: CPU seconds (user + system of the process and its children), the
figure a shared machine disturbs least, and wall seconds beside it. The cases use the
bench scripts' own builders, so that a script whose builder rots fails here too.

A :class:`Side` is a checkout whose jubex the commands run: bench/run measures its own,
and with ``--against REV`` a checkout of REV beside it, both through these cases (the
inputs of each side are built by its own jubex, in a process of their own).
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

from bench_bounded_sizes import jube_file
from bench_engine_local import DEFINITION as TRIVIAL
from timing import ENV, JUBEX

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: one measurement: wall and CPU seconds
Measure = Callable[[], tuple[float, float]]


@dataclass(frozen=True)
class Case:
    """A benchmark of the gate: its name, what it measures, and its sizes (full and smoke)."""

    name: str
    what: str
    size: int
    smoke: int
    prepare: Callable[[Path, int, int, dict[str, str]], Measure]


@dataclass(frozen=True)
class Side:
    """A checkout whose jubex is measured: its name, its root, the environment of its
    commands (its root first on PYTHONPATH)."""

    name: str
    root: Path
    env: dict[str, str]


def side(name: str, root: Path) -> Side:
    """The side of the checkout at ``root``: its commands import jubex from there."""
    rest = [p for p in ENV.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p) != REPO]
    return Side(name, root, {**ENV, "PYTHONPATH": os.pathsep.join([str(root), *rest])})


def _run(
    cmd: list[str] | str, cwd: Path, times: int, env: dict[str, str] = ENV
) -> tuple[float, float]:
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
            env=env,
        )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _command(cmd: list[str]) -> Callable[[Path, int, int, dict[str, str]], Measure]:
    """A case that runs a jubex command needing no input."""

    def prepare(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
        return lambda: _run([*JUBEX, *cmd], work, times, env)

    return prepare


def _ior_run(work: Path, n: int, env: dict[str, str]) -> Path:
    """A run of n done IOR workpackages, made by the side's own jubex in a process of its own
    (bench_analyse_result's builder)."""
    code = (
        f"import sys; sys.path.insert(0, {str(HERE)!r}); from pathlib import Path; "
        "from bench_analyse_result import make_run; "
        f"print(make_run(Path({str(work)!r}), {n}, 'ior', 1))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"building a run of {n} IOR workpackages failed:\n{done.stderr}")
    return Path(done.stdout.strip())


def _result(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
    run = _ior_run(work, n, env)
    _run([*JUBEX, "analyse", str(run)], work, 1, env)
    command = [*JUBEX, "result", "--no-analyse", str(run), "-T", "bandwidth"]
    # once untimed: the first reading keeps the run's rows in its store, as a user's first
    # `jubex result` of a run does; the figure is of every later one
    _run(command, work, 1, env)
    return lambda: _run(command, work, times, env)


def _analyse(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
    run = _ior_run(work, n, env)
    return lambda: _run([*JUBEX, "analyse", "--force", str(run)], work, times, env)


def _fresh(work: Path) -> Callable[[], Path]:
    """A new directory under ``work`` for each call: nothing is deleted while measuring (on
    ext4 without a journal, freed inodes slow the next file creations)."""
    count = iter(range(1 << 30))

    def made() -> Path:
        path = work / f"{next(count):04d}"
        path.mkdir()
        return path

    return made


def _engine(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
    fresh = _fresh(work)
    definition = work / "trivial.yaml"
    definition.write_text(TRIVIAL.format(last=n - 1))
    cmd = [*JUBEX, "run", str(definition), "--outpath", "runs", "-q", "--no-result"]

    def measure() -> tuple[float, float]:
        found = [_run(cmd, fresh(), 1, env) for _ in range(times)]
        return sum(w for w, _ in found), sum(c for _, c in found)

    return measure


def _xargs(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
    fresh = _fresh(work)
    script = 'mkdir -p "w/$1" && echo "bw: $1.4 MiB/s" > "w/$1/stdout"'
    cmd = f"seq 0 {n - 1} | xargs -P {os.cpu_count()} -I{{}} sh -c '{script}' _ {{}}"
    return lambda: _run(cmd, fresh(), times)


def _jube(*args: str) -> Callable[[Path, int, int, dict[str, str]], Measure]:
    def prepare(work: Path, n: int, times: int, env: dict[str, str]) -> Measure:
        (work / "d.xml").write_text(jube_file(n)[1])
        fresh = _fresh(work)
        return lambda: _run([*JUBEX, *args, str(work / "d.xml")], fresh(), times, env)

    return prepare


CASES = (
    Case("startup", "`jubex --version`", 1, 1, _command(["--version"])),
    Case(
        "result",
        "`jubex result --no-analyse RUN -T bandwidth`, N IOR rows in 20 groups",
        10000,
        40,
        _result,
    ),
    Case(
        "result_small",
        "`jubex result --no-analyse RUN -T bandwidth` of a small run (start-up included)",
        10,
        10,
        _result,
    ),
    Case("analyse", "`jubex analyse --force RUN`, N IOR outputs", 200, 20, _analyse),
    Case("engine", "`jubex run` of N trivial workpackages, local platform", 1000, 10, _engine),
    Case("xargs_floor", "`xargs -P cores` doing the same N commands (the floor)", 1000, 10, _xargs),
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
    """What the figures depend on besides the code: processor, cores, Python (and the
    ``.pth`` files its ``site`` runs at every start: an editable install's finder or a
    host's certificate hook costs a small command 10-30 ms), load."""
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
        "interpreter": sys.executable,
        "startup_hooks": ", ".join(_startup_hooks()) or "none",
        "system": f"{platform.system()} {platform.release()}",
    }


def _startup_hooks() -> list[str]:
    """The ``.pth`` files of the interpreter's site directories that import code."""
    import site

    found = []
    for directory in {*site.getsitepackages(), site.getusersitepackages()}:
        for path in sorted(Path(directory).glob("*.pth")):
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            if any(line.startswith(("import ", "import\t")) for line in text.splitlines()):
                found.append(path.name)
    return sorted(found)


def commit(root: Path = REPO) -> str:
    """The commit of the checkout at ``root``, ``+changes`` when its files differ from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain", "--untracked-files=no") else "")


Figures = dict[str, list[tuple[float, float]]]


def measure_all(
    work: Path,
    sides: list[Side],
    repetitions: int,
    smoke: bool,
    plant: str | None,
    say: Callable[[str], None],
    only: frozenset[str] = frozenset(),
) -> dict[str, Figures]:
    """Every side's figures: each case's (wall, CPU) per repetition. The cases are
    interleaved, and the sides case by case (which side goes first alternates with each
    repetition), so that the machine's drift hits them alike. ``plant`` names a case whose
    command runs twice per measurement on the first side: a real 2x slowdown, to show that
    the gate catches one. ``only``: these cases alone."""
    measures: dict[tuple[str, str], Measure] = {}
    names = [c.name for c in CASES if not only or c.name in only]
    for case in CASES:
        if case.name not in names:
            continue
        for index, one in enumerate(sides):
            folder = work / one.name / case.name
            folder.mkdir(parents=True)
            times = 2 if case.name == plant and index == 0 else 1
            n = case.smoke if smoke else case.size
            measures[one.name, case.name] = case.prepare(folder, n, times, one.env)
    found: dict[str, Figures] = {one.name: {name: [] for name in names} for one in sides}
    for rep in range(repetitions):
        order = sides if rep % 2 == 0 else sides[::-1]
        for name in names:
            for one in order:
                found[one.name][name].append(measures[one.name, name]())
        say(f"repetition {rep + 1} of {repetitions} done, load {os.getloadavg()[0]:.1f}")
    return found


def record(
    found: Figures,
    smoke: bool,
    plant: str | None,
    loads: tuple[float, float],
    started: tuple[float, str],
    root: Path = REPO,
) -> dict[str, object]:
    """The figures as a ``jubex-record/1`` (docs/record.md), with the machine they came from;
    ``started``: when, and at which commit (taken before measuring, not after); ``root``:
    the checkout measured."""
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
            "directory": str(root),
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
