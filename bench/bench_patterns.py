"""Throughput of the analyse stage: the pattern engine on a large log, and harvesting many
work directories. Results are recorded in docs/performance.md ("Analysis").

    python bench/bench_patterns.py                  # 50 MB log, 10,000 work directories
    python bench/bench_patterns.py --size-mb 5 --dirs 1000 --repeat 3

Every figure is the median of ``--repeat`` runs; ``grep -E`` runs on the same file as a
yardstick (it counts matching lines, the engine also types and collects every value).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from jubex.analysis.harvest import Harvester
from jubex.analysis.patterns import PatternEngine
from jubex.definition.model import Benchmark, Pattern, PatternSet, Step

REAL = Path(__file__).resolve().parents[1] / "tests/data/outputs/ior/posix_fpp_t1m_b16m_np4.txt"
ROW_TAIL = "0.003940    16384      1024.00    0.013987   0.063102   0.000110   0.063257"
ROW = "{op:<9} {bw:<10.2f} {iops:<10.2f} " + ROW_TAIL + "   {i}\n"
PATTERNS = [
    Pattern("write_bw", r"^write\s+$jube_pat_fp", type="float", unit="MiB/s"),
    Pattern("read_bw", r"^read\s+$jube_pat_fp", type="float", unit="MiB/s"),
    Pattern("write_iops", r"^write\s+$jube_pat_nfp\s+$jube_pat_fp", type="float"),
    Pattern("tasks", r"^tasks\s*:\s*$jube_pat_int", type="int"),
    Pattern("xfer", r"^xfersize\s*:\s*$jubex_pat_size"),
    Pattern("api", r"^api\s*:\s*$jube_pat_wrd"),
]
GREP = r"^write\s+[0-9.]+"


def ior_output(reps: int) -> str:
    """A real IOR 4 output (np 4, three iterations) grown to ``reps`` iterations."""
    real = REAL.read_text()
    head = real[: real.index("write     1011.75")]
    head = head.replace("-i 3", f"-i {reps}").replace(": 3\n", f": {reps}\n")
    rows = [
        ROW.format(op=op, bw=1000 + 7.3 * i + (2500 if op == "read" else 0), iops=1014 + i, i=i)
        for i in range(reps)
        for op in ("write", "read")
    ]
    return head + "".join(rows) + real[real.index("\nSummary of all tests:") :]


def median_seconds(task: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall time and median CPU time (this process and its children) of a task.

    On a shared machine the wall time includes waiting for a core; the CPU time does not.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), _cpu()
        task()
        walls.append(time.perf_counter() - wall)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def bench_log(tmp: Path, size_mb: float, repeat: int) -> None:
    block = ior_output(reps=100)
    text = block * max(1, int(size_mb * 2**20 / len(block)))
    log = tmp / "ior.log"
    log.write_text(text)
    megabytes = len(text.encode()) / 1e6
    one = PatternEngine(PATTERNS[:1])
    every = PatternEngine(PATTERNS)
    found = len(one.scan(text, {})["write_bw"].values)
    grep = ["grep", "-E", "-c", GREP, str(log)]
    grep_count = int(subprocess.run(grep, capture_output=True, text=True, check=True).stdout)
    assert grep_count == found, (grep_count, found)
    results = {
        "grep -E -c, 1 regex (reads the file)": median_seconds(
            lambda: subprocess.run(grep, capture_output=True, check=True), repeat
        ),
        "engine, 1 pattern (in memory)": median_seconds(lambda: one.scan(text, {}), repeat),
        f"engine, {len(PATTERNS)} patterns (in memory)": median_seconds(
            lambda: every.scan(text, {}), repeat
        ),
        f"engine, {len(PATTERNS)} patterns + statistics": median_seconds(
            lambda: every.measure(every.scan(text, {}), {}), repeat
        ),
    }
    print(f"log: {megabytes:.1f} MB, {found} write rows; median of {repeat} (wall, CPU)")
    for name, (wall, cpu) in results.items():
        print(
            f"  {name:<42} {wall:7.3f} s {cpu:7.3f} s  "
            f"{megabytes / wall:7.1f} MB/s {megabytes / cpu:7.1f} MB/s"
        )


def job_stdout(reps: int, size: int = 5000) -> str:
    """What a batch job prints around IOR: its preamble (modules, environment) up to ``size``."""
    report = ior_output(reps)
    lines = ["+ module load openmpi/4.1.4 ior/4.1.0", "+ srun --mpi=pmix ior ..."]
    index = 0
    while len(report) + sum(len(line) + 1 for line in lines) < size:
        lines.insert(0, f"SLURM_VAR_{index:03d}=value-{index * 7919 % 10007}")
        index += 1
    return "\n".join(lines) + "\n" + report


def bench_harvest(tmp: Path, dirs: int, repeat: int, reps: int) -> None:
    text = job_stdout(reps)
    workdirs = []
    for index in range(dirs):
        workdir = tmp / f"{index:06d}_run" / "work"
        workdir.mkdir(parents=True)
        (workdir / "stdout").write_text(text)
        workdirs.append(workdir)
    benchmark = Benchmark("bench")
    benchmark.patternsets["ior_rows"] = PatternSet("ior_rows", {p.name: p for p in PATTERNS})
    benchmark.steps["builtin"] = Step("builtin", analyse=("ior",))
    benchmark.steps["patterns"] = Step("patterns", analyse=("ior_rows",))
    print(
        f"harvest: {dirs} work directories, stdout {len(text)} B each (IOR, {reps} iterations); "
        f"median of {repeat}"
    )
    for step in ("builtin", "patterns"):
        harvester = Harvester(benchmark, step)

        def harvest_all(harvester: Harvester = harvester) -> int:
            count = 0
            for workdir in workdirs:
                result = harvester.harvest(workdir, {})
                assert result.ok, result.reason
                count += len(result.measurements)
            return count

        count = harvest_all()
        wall, cpu = median_seconds(harvest_all, repeat)
        print(
            f"  {step:<9} wall {wall:7.3f} s  CPU {cpu:7.3f} s  {cpu / dirs * 1e6:6.1f} us/dir "
            f"(CPU)  {count / dirs:.0f} measurements/dir"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=50.0)
    parser.add_argument("--dirs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=3, help="IOR iterations per stdout")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="jubex-bench-"))
    try:
        bench_log(tmp, args.size_mb, args.repeat)
        bench_harvest(tmp, args.dirs, args.repeat, args.iterations)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
