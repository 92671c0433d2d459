"""`jubex analyse` and `jubex result` on a run of N finished workpackages with IOR output.

The run is made by jubex's own planner; instead of executing N copies of IOR, each work
directory gets a real IOR 4 output (~5 kB: two captured runs of IOR in one file, 6 iterations)
and its workpackage is marked done with an exit-status file, as the wrapper would leave it.
Then, each in a fresh process: `jubex analyse --force` (read everything), `jubex analyse`
(nothing changed: incremental), `jubex result` (a grouped table with mean, std, min, max of
two values over N rows) and `jubex result --format pretty` of a table of 1,000 groups
(at N = 10,000). Median of RUNS, wall and CPU (user + system of the child).

    python bench/bench_analyse_result.py --n 10000 --runs 5 [--analyser bw] [--reduce 2]

``--reduce K`` runs the step K iterations and merges them into one row per point (JUBE's
analyser ``reduce``): the rows of ``jubex result`` are then merged from every match stored.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from timing import JUBEX, timed_cpu

from jubex.api import load
from jubex.engine.driver import new_run
from jubex.platform.load import load_platform
from jubex.space.plan import wp_dir_name
from jubex.space.spec import resolve_spec
from jubex.store.store import DONE

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "tests/data/outputs/ior/posix_fpp_t1m_b16m_np4.txt"
DEFINITION = """
name: ior-analysis
parameters:
  transfer: [4KiB, 64KiB, 1MiB, 4MiB]
  tasks: [1, 2, 4, 8, 16]
  rep: {{range: {{start: 1, stop: {reps}, step: 1}}}}
  block: {{expr: "rep % 50"}}
patterns:
  bw:
    write_bw: {{regex: "^write +$jube_pat_fp", type: float, unit: MiB/s}}
    read_bw: {{regex: "^read +$jube_pat_fp", type: float, unit: MiB/s}}
    max_write: {{regex: "Max Write: $jube_pat_fp MiB/sec", type: float, unit: MiB/s}}
steps:
  ior:
    do: ior
    iterations: {iterations}
    analyse: [{analyser}]
analysers:
  merged: {{use: [bw], reduce: true}}
results:
  bandwidth:
    group_by: [transfer, tasks]
    columns: [transfer, tasks, {{name: write_bw, stats: [n, mean, std, min, max]}},
              {{name: read_bw, stats: [mean, std]}}]
  groups:
    group_by: [transfer, tasks, block]
    columns: [transfer, tasks, block, {{name: write_bw, stats: [n, mean, min, max]}}]
"""


def make_run(work: Path, n: int, analyser: str, iterations: int, extra: str = "") -> Path:
    """A run of N done workpackages; ``extra`` is appended to the definition (plots:)."""
    definition = work / "ior.yaml"
    reps = n // 20 // iterations + 1
    text = DEFINITION.format(reps=reps, analyser=analyser, iterations=iterations)
    definition.write_text(text + extra)
    run = new_run(resolve_spec(load(definition), load_platform("local"), outpath=work / "runs"))
    text = SAMPLE.read_text() * 2
    wps = run.store.workpackages()
    for wp in wps:
        wp_dir = run.dir / wp_dir_name(wp.id, wp.step)
        (wp_dir / "work").mkdir(parents=True)
        (wp_dir / "work" / "stdout").write_text(text)
        (wp_dir / "exit").write_text("0\n")
    run.store.set_states((wp.id, DONE, None, 0, "") for wp in wps)
    return run.dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--analyser",
        choices=("ior", "bw"),
        default="ior",
        help="the built-in IOR analyser (every IOR value), or a patternset of three patterns",
    )
    parser.add_argument(
        "--reduce",
        type=int,
        default=0,
        metavar="K",
        help="K iterations per point, merged into one row by a reducing analyser of the patternset",
    )
    args = parser.parse_args()
    analyser = "merged" if args.reduce else args.analyser
    run = [*JUBEX]
    commands = {
        "analyse --force": ["analyse", "--force"],
        "analyse (incremental)": ["analyse"],
        "result": ["result", "--no-analyse", "-T", "bandwidth"],
        "result -t groups --format pretty": [
            *("result", "--no-analyse", "-T", "groups", "--format", "pretty")
        ],
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = make_run(Path(tmp), args.n, analyser, max(1, args.reduce))
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(timed_cpu([*run, cmd[0], str(run_dir), *cmd[1:]], Path(tmp)))
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print(f"N = {args.n}, {analyser}, median of {args.runs}:")
    for name, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(f"  jubex {name:34} {wall:7.2f} s wall {cpu:7.2f} s CPU")


if __name__ == "__main__":
    main()
