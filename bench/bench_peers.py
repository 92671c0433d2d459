"""The same sweep of N trivial workpackages under jubex, JUBE 2.7 and ReFrame 4: CPU seconds
(user + system of the tool and everything it started) to run it and to tabulate it.

jubex and JUBE run bench_jube_sweep.py's XML file unchanged (``jubex run`` + ``jubex
result``; ``jube run`` + ``jube result``); ReFrame runs one parameterised run-only test of
N cases (``echo``, a sanity pattern, one performance variable) with its local scheduler.
JUBE is taken from ``--jube`` (a ``jube`` executable, e.g. in a virtual environment of its
own); ReFrame from ``--reframe`` (default: ``reframe`` on PATH). Median of RUNS.

    python bench/bench_peers.py --n 100 300 --runs 3 --jube /tmp/jube-venv/bin/jube
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench_jube_sweep import SWEEP
from suite import _run
from timing import JUBEX

CHECK = """
import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import parameter, performance_function, run_after, sanity_function


@rfm.simple_test
class Sweep(rfm.RunOnlyRegressionTest):
    i = parameter(range({n}))
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    executable = "echo"

    @run_after("init")
    def set_args(self):
        self.executable_opts = [f"bw: {{self.i}}.4 MiB/s"]

    @sanity_function
    def found(self):
        return sn.assert_found(r"bw: \\S+ MiB/s", self.stdout)

    @performance_function("MiB/s")
    def bw(self):
        return sn.extractsingle(r"bw: (\\S+) MiB/s", self.stdout, 1, float)
"""


def jubex(n: int, work: Path) -> tuple[float, float]:
    (work / "sweep.xml").write_text(SWEEP.format(n=n))
    run = _run([*JUBEX, "run", "sweep.xml", "-q", "--no-result"], work, 1)[1]
    return run, _run([*JUBEX, "result", "runs/000000", "-f", "csv"], work, 1)[1]


def jube(exe: str, n: int, work: Path) -> tuple[float, float]:
    (work / "sweep.xml").write_text(SWEEP.format(n=n))
    run = _run([exe, "run", "sweep.xml", "--hide-animation"], work, 1)[1]
    return run, _run([exe, "result", "-a", "runs"], work, 1)[1]


def reframe(exe: str, n: int, work: Path) -> tuple[float, float]:
    (work / "sweep.py").write_text(CHECK.format(n=n))
    cmd = [exe, "-c", "sweep.py", "-r", "--prefix", str(work / "rfm"), "--exec-policy=async"]
    return _run(cmd, work, 1)[1], 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[100, 300])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jube", help="the jube executable (JUBE 2.7)")
    parser.add_argument("--reframe", default=shutil.which("reframe"))
    args = parser.parse_args()
    tools = {"jubex": jubex}
    if args.jube:
        tools["jube"] = lambda n, w: jube(args.jube, n, w)
    if args.reframe:
        tools["reframe"] = lambda n, w: reframe(args.reframe, n, w)
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print("| N | tool | run (s CPU) | result (s CPU) | total (s CPU) | CPU per workpackage (ms) |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as root:
        for n in args.n:
            for name, tool in tools.items():
                found = []
                for i in range(args.runs):
                    work = Path(root) / f"{name}-{n}-{i}"
                    work.mkdir()
                    found.append(tool(n, work))
                run = statistics.median(r for r, _ in found)
                result = statistics.median(r for _, r in found)
                total = statistics.median(r + t for r, t in found)
                print(
                    f"| {n:,} | {name} | {run:.2f} | {result:.2f} | {total:.2f} "
                    f"| {1000 * total / n:.1f} |",
                    flush=True,
                )
            print(f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
