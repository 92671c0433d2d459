"""`jubex analyse` and `jubex result` on a run of N finished workpackages with IOR output.

The run is made by jubex's own planner; instead of executing N copies of IOR, each work
directory gets a real IOR 4 output (~5 kB: two captured runs of IOR in one file, 6 iterations)
and its workpackage is marked done with an exit-status file, as the wrapper would leave it.
Then, each in a fresh process: `jubex analyse --force` (read everything) and `jubex result`
(a grouped table with mean, std, min, max of two values). Median of RUNS.

    python bench/bench_analyse_result.py --n 10000 --runs 3 [--analyser bw] [--reduce 2]

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

from timing import JUBEX, timed

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
"""


def make_run(work: Path, n: int, analyser: str, iterations: int, extra: str = "") -> Path:
    """A run of N done workpackages; ``extra`` is appended to the definition (plots:)."""
    definition = work / "ior.yaml"
    reps = n // 20 // iterations
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
    jubex = JUBEX
    analyse, result = [], []
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = make_run(Path(tmp), args.n, analyser, max(1, args.reduce))
        for _ in range(args.runs):
            analyse.append(timed([*jubex, "analyse", str(run_dir), "--force"], Path(tmp)))
            result.append(timed([*jubex, "result", str(run_dir), "--no-analyse"], Path(tmp)))
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print(
        f"N = {args.n}, {analyser}: jubex analyse {statistics.median(analyse):.2f} s, "
        f"jubex result {statistics.median(result):.2f} s (median of {args.runs})"
    )


if __name__ == "__main__":
    main()
