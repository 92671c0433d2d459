"""Expansion benchmark: 100,000 points and one command rendered per point.

The space has four parameters (200,000 combinations), one derived parameter and one
constraint that keeps half of the combinations. Every run happens in a fresh interpreter so
that peak memory (``ru_maxrss``) belongs to that run alone; the median of the runs is
reported. Usage::

    python bench/bench_expand.py [--runs 5] [--scale 1]

``--scale 10`` makes it 1,000,000 points, to show that memory does not grow with the space.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time

COMMAND = "srun -N $nodes -n $tasks ior -a $api -t $transfer -b 1GiB -o /scratch/ior.$tasks.dat"


def expand_once(scale: int) -> dict[str, float]:
    """Build the space, iterate it and render the command for every point."""
    from jubex.definition.model import Constraint, Parameter, ParameterSet
    from jubex.language.ranges import geometric, linear
    from jubex.language.template import Template
    from jubex.space.expand import Space

    params = {
        "nodes": linear("1", str(50 * scale)),
        "ppn": linear("1", "40"),
        "transfer": geometric("4KiB", "2MiB"),
        "api": ["POSIX", "MPIIO", "HDF5", "NCMPI", "MMAP", "DFS", "HDFS", "S3", "RADOS", "AIO"][
            :10
        ],
    }
    parameters = {n: Parameter(n, tuple(v)) for n, v in params.items()}
    parameters["tasks"] = Parameter("tasks", ("${nodes * ppn}",))
    start, cpu_start = time.perf_counter(), time.process_time()
    space = Space([ParameterSet("sweep", parameters)], [Constraint("(nodes + ppn) % 2 == 0")])
    command = Template(COMMAND)
    points = 0
    for point in space:
        command.render(point)
        points += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "points": points,
        "upper_bound": space.upper_bound(),
        "seconds": elapsed,
        "cpu": cpu,
        "peak_mb": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=int, default=1, help="multiply the number of points")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(expand_once(args.scale)))
        return
    runs = []
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--scale", str(args.scale)],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    seconds = [r["seconds"] for r in runs]
    cpu = [r["cpu"] for r in runs]
    peaks = [r["peak_mb"] for r in runs]
    print(
        f"python {platform.python_version()}, {runs[0]['points']:,} points "
        f"of {runs[0]['upper_bound']:,}, {args.runs} runs"
    )
    print(
        f"wall time: median {statistics.median(seconds):.2f} s "
        f"(min {min(seconds):.2f}, max {max(seconds):.2f})"
    )
    print(f"CPU time:  median {statistics.median(cpu):.2f} s (of the expanding process)")
    print(
        f"peak RSS:  median {statistics.median(peaks):.0f} MB "
        f"(min {min(peaks):.0f}, max {max(peaks):.0f})"
    )
    print(f"rate:      {runs[0]['points'] / statistics.median(seconds):,.0f} points/s")


if __name__ == "__main__":
    main()
