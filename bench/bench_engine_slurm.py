"""``jubex run -P slurm`` of N trivial workpackages on the local test Slurm: jobs, arrays, packs.

Needs the cluster of ci/start-local-slurm.sh (SLURM_CONF is taken from JUBEX_SLURM_DIR's
etc/slurm.conf when not set). Each run is a fresh ``jubex run`` of one step of N
workpackages (``echo "value $n"``, read back by a pattern and tabulated) with the shipped
``slurm`` platform, as N jobs, with ``array: true`` and with ``pack: --pack`` (--modes
chooses). Wrappers first on PATH log
every ``sbatch``, ``squeue``, ``sacct`` and ``scancel`` call, so that the scheduler commands
of each poll cycle (from one ``squeue -j`` poll to the next) are counted from outside jubex.

Two passes, each the median of --runs runs. The first measures speed: wall time from
``jubex run`` to its exit (after the last result is analysed and the table printed) and
workpackages submitted per second (first ``queued`` to last ``submitted`` in the run's
store). In the second every job waits for a file that appears --hold seconds after the
start, so that jubex polls while all N jobs are in the queue: it counts poll cycles,
scheduler commands per cycle and job ids per poll. The machine's load average is recorded.

    python bench/bench_engine_slurm.py [--n 50 500] [--runs 3] [--hold 30] [--json FILE]
        [--modes jobs array pack] [--pack 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFINITION = """\
name: trivial
parameters:
  n: {{range: {{start: 0, stop: {last}, step: 1}}}}
patterns:
  out:
    value: {{regex: "value $jube_pat_int", type: int}}
steps:
  work:
    {how}
    do: while [ ! -e {go} ]; do sleep 0.5; done; echo "value $n"
    analyse: [out]
results:
  values:
    columns: [{{name: value, stats: [n, sum]}}]
"""
COMMANDS = ("sbatch", "squeue", "sacct", "scancel")


def wrappers(bin_dir: Path) -> dict[str, str]:
    """Client commands that log ``<time> <command> <args>`` and run the real one."""
    bin_dir.mkdir()
    log = bin_dir / "calls.log"
    for command in COMMANDS:
        real = shutil.which(command)
        assert real, f"{command} not found; is Slurm installed (ci/start-local-slurm.sh)?"
        (bin_dir / command).write_text(
            f'#!/bin/bash\necho "$EPOCHREALTIME {command} $*" >> {log}\nexec {real} "$@"\n'
        )
        (bin_dir / command).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def per_cycle(log: Path) -> tuple[int, int, int, int]:
    """sbatch calls, poll cycles, most scheduler commands in one cycle, most ids in one poll."""
    calls = [line.split()[1:] for line in log.read_text().splitlines()]
    sbatch = sum(command == "sbatch" for command, *_ in calls)
    cycles: list[int] = []
    ids = 0
    for command, *args in calls:
        if command == "squeue" and "-j" in args:
            cycles.append(0)
            ids = max(ids, len(args[args.index("-j") + 1].split(",")))
        if command != "sbatch" and cycles:
            cycles[-1] += 1
    return sbatch, len(cycles), max(cycles, default=0), ids


def submission_rate(run: Path, n: int) -> float:
    """Workpackages per second from the first intent to the last job id recorded."""
    with sqlite3.connect(run / "jubex.sqlite") as db:
        first = db.execute("SELECT MIN(time) FROM event WHERE state = 'queued'").fetchone()[0]
        last = db.execute("SELECT MAX(time) FROM event WHERE state = 'submitted'").fetchone()[0]
    return n / max(last - first, 1e-6)


#: the step's key for each way of submitting
HOW = {"jobs": "array: false", "array": "array: true", "pack": "pack: {pack}"}


def one_run(n: int, how: str, work: Path, hold: float) -> dict[str, float]:
    work.mkdir()
    go = work / "go"
    definition = DEFINITION.format(last=n - 1, how=how, go=go)
    (work / "trivial.yaml").write_text(definition)
    env = wrappers(work / "bin")
    if not hold:
        go.touch()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jubex", "run", "trivial.yaml", "-P", "slurm", "--outpath",
         "runs", "-q"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    if hold:
        time.sleep(hold)
        go.touch()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0 or f"{n} done" not in out:
        raise SystemExit(f"jubex run failed:\n{out}\n{err}")
    sbatch, cycles, most, ids = per_cycle(work / "bin" / "calls.log")
    return {
        "wall_s": wall,
        "submitted_per_s": submission_rate(work / "runs" / "000000", n),
        "sbatch": sbatch,
        "poll_cycles": cycles,
        "commands_per_cycle_max": most,
        "ids_per_poll_max": ids,
        "load_before": load,
        "load_after": os.getloadavg()[0],
    }


def table(results: dict[str, list[dict[str, float]]], hold: float) -> None:
    if hold:
        print(f"\njobs wait {hold:g} s for a file, so jubex polls while all are queued")
        print("| workpackages | submitted as | poll cycles | commands per cycle (max) "
              "| job ids in one poll (max) | load average |")  # fmt: skip
        print("| ---: | --- | ---: | ---: | ---: | --- |")
    else:
        print("| workpackages | submitted as | wall time | submitted per second | sbatch calls "
              "| poll cycles | commands per cycle (max) | load average |")  # fmt: skip
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for key, runs in results.items():
        n, mode = key.split()
        how = {"array": "one array", "jobs": "one job each"}.get(mode, mode)
        loads = ", ".join(f"{r['load_before']:.1f}/{r['load_after']:.1f}" for r in runs)

        def median(field: str, runs: list[dict[str, float]] = runs) -> float:
            return statistics.median(r[field] for r in runs)

        most = max(r["commands_per_cycle_max"] for r in runs)
        if hold:
            print(f"| {n} | {how} | {median('poll_cycles'):.0f} | {most:.0f} "
                  f"| {max(r['ids_per_poll_max'] for r in runs):.0f} | {loads} |")  # fmt: skip
        else:
            print(f"| {n} | {how} | {median('wall_s'):.1f} s | {median('submitted_per_s'):.0f} "
                  f"| {median('sbatch'):.0f} | {median('poll_cycles'):.0f} | {most:.0f} "
                  f"| {loads} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[50, 500])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hold", type=float, default=30, help="0: skip the polling pass")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--modes", nargs="+", choices=sorted(HOW), default=["jobs", "array"])
    parser.add_argument("--pack", type=int, default=100, help="workpackages per pack")
    args = parser.parse_args()
    conf = Path(os.environ.get("JUBEX_SLURM_DIR", "/tmp/jubex-slurm")) / "etc" / "slurm.conf"
    os.environ.setdefault("SLURM_CONF", str(conf))
    passes: dict[str, dict[str, list[dict[str, float]]]] = {}
    print(f"median of {args.runs} runs; load average: 1-minute load before/after each run")
    with tempfile.TemporaryDirectory() as tmp:
        for hold in (0, args.hold) if args.hold else (0,):
            results = passes.setdefault(f"hold {hold:g}", {})
            for n in args.n:
                for mode in args.modes:
                    key = f"{n} {mode if mode != 'pack' else f'packs-of-{args.pack}'}"
                    how = HOW[mode].format(pack=args.pack)
                    results[key] = [
                        one_run(n, how, Path(tmp) / f"{hold}-{n}-{mode}-{i}", hold)
                        for i in range(args.runs)
                    ]
                    print(f"hold {hold:g}, {key}: {results[key]}", file=sys.stderr)
            table(results, hold)
    if args.json:
        args.json.write_text(json.dumps(passes, indent=1))


if __name__ == "__main__":
    main()
