"""How fast the Slurm backend submits and tracks many trivial jobs on the local test cluster.

Needs the cluster of ci/start-local-slurm.sh (SLURM_CONF is taken from its env.sh when not
set). For N trivial jobs, submitted either as a loop of sbatch calls or as one array, it
measures jobs submitted per second and the wall time from the first submit until one poll
sees every job finished; and, for 10, 100 and N ids, how many scheduler commands one poll
cycle runs and how long it takes. Each figure is the median of --runs runs.

    python bench/bench_slurm.py [--jobs 500] [--runs 3] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from jubex.engine.runner import TRANSIENT_RETRIES
from jubex.platform.load import load_platform
from jubex.schedulers.base import JobSpec, JobStatus, SchedulerError
from jubex.schedulers.slurm import SlurmScheduler


def counting_squeue(directory: Path) -> tuple[str, Path]:
    """An squeue wrapper that counts its calls (the figure the engine cares about)."""
    counter = directory / "squeue.count"
    wrapper = directory / "squeue"
    wrapper.write_text(f'#!/bin/sh\necho x >> {counter}\nexec squeue "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper), counter


def job_spec(directory: Path, name: str) -> JobSpec:
    platform = load_platform("slurm")
    resolved = platform.resolve({"time": "5m"})
    script = directory / "job.sh"
    script.write_text(
        platform.job_script(
            name=name,
            body="true",
            resolved=resolved,
            workdir=directory,
            stdout=Path("/dev/null"),
            stderr=Path("/dev/null"),
        )
    )
    return JobSpec(
        name=name,
        script=script,
        workdir=directory,
        stdout=Path("/dev/null"),
        stderr=Path("/dev/null"),
    )


def poll(backend: SlurmScheduler, ids: list[str]) -> dict[str, JobStatus]:
    """One poll, retried on transient errors with the engine's back-off."""
    for delay in (*TRANSIENT_RETRIES, None):
        try:
            return backend.poll(ids)
        except SchedulerError as error:
            if not error.transient or delay is None:
                raise
            print(f"transient: {error}; retrying in {delay:g} s")
            time.sleep(delay)
    raise AssertionError("unreachable")


def one_run(jobs: int, mode: str, directory: Path) -> tuple[dict[str, float], list[str]]:
    squeue, counter = counting_squeue(directory)
    backend = SlurmScheduler(squeue=squeue)
    spec = job_spec(directory, f"bench-{mode}")
    start = time.perf_counter()
    if mode == "loop":
        ids = [backend.submit(spec) for _ in range(jobs)]
    else:
        array = backend.submit(JobSpec(**{**vars(spec), "array_size": jobs}))
        ids = [f"{array}_{i}" for i in range(jobs)]
    submitted = time.perf_counter() - start
    cycles = 0
    while True:
        cycles += 1
        statuses = poll(backend, ids)
        if len(statuses) >= jobs and all(s.state.finished for s in statuses.values()):
            break
        time.sleep(0.5)
    finished = time.perf_counter() - start
    calls = len(counter.read_text().splitlines())
    figures = {
        "submit_s": submitted,
        "jobs_per_s": jobs / submitted,
        "all_finished_s": finished,
        "squeue_per_cycle": calls / cycles,
    }
    return figures, ids


def poll_cost(ids: list[str], directory: Path, runs: int) -> dict[int, dict[str, float]]:
    """Commands and seconds of one poll cycle for 10, 100 and all ids (all still known;
    only as many as there are)."""
    squeue, counter = counting_squeue(directory)
    backend = SlurmScheduler(squeue=squeue)
    cost: dict[int, dict[str, float]] = {}
    for count in sorted({*(c for c in (10, 100) if c < len(ids)), len(ids)}):
        times = []
        counter.write_text("")
        for _ in range(runs):
            begin = time.perf_counter()
            answered = poll(backend, ids[:count])
            times.append(time.perf_counter() - begin)
            assert len(answered) == count, f"{len(answered)} of {count} ids answered"
        cost[count] = {
            "commands": len(counter.read_text().splitlines()) / runs,
            "seconds": statistics.median(times),
        }
    return cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    env = Path(os.environ.get("JUBEX_SLURM_DIR", "/tmp/jubex-slurm")) / "etc" / "slurm.conf"
    os.environ.setdefault("SLURM_CONF", str(env))
    modes: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ids: list[str] = []
        for mode in ("loop", "array"):
            runs = []
            for index in range(args.runs):
                directory = Path(tmp) / f"{mode}{index}"
                directory.mkdir()
                figures, ids = one_run(args.jobs, mode, directory)
                runs.append(figures)
            modes[mode] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        poll = poll_cost(ids, Path(tmp), args.runs)
    print(f"{args.jobs} trivial jobs, median of {args.runs} runs")
    print("| mode | submit (s) | jobs/s submitted | all finished (s) | squeue calls per poll |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for mode, r in modes.items():
        print(
            f"| {mode} | {r['submit_s']:.2f} | {r['jobs_per_s']:.0f} | "
            f"{r['all_finished_s']:.1f} | {r['squeue_per_cycle']:.0f} |"
        )
    print("\n| ids polled | scheduler commands per poll | seconds per poll |")
    print("| ---: | ---: | ---: |")
    for count, cost in poll.items():
        print(f"| {count} | {cost['commands']:.0f} | {cost['seconds']:.3f} |")
    if args.json:
        results = {"jobs": args.jobs, "runs": args.runs, **modes, "poll": poll}
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
