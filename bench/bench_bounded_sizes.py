"""Inspection of hostile sizes: wall time and peak memory of ``jubex validate``, ``info`` and
``run --dry-run`` on a JUBE file of N benchmarks, a literal list and a range of 10^6 values,
a JUBE parameter of 10^6 comma-separated values, a list just under the limit of 10,000,
100,000 parameters, ten lists of 9,999 values, a range starting at 1e-9999999 and 100,000
XML attributes (median of --runs runs each).

    python bench/bench_bounded_sizes.py --runs 3 [--timeout 120] [--only list_1e6]

The bound to meet is 2 s and 500 MB per command, or a refusal naming the count and the limit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import ENV, JUBEX

JUBE_BENCHMARK = """  <benchmark name="b{i}" outpath="runs">
    <parameterset name="p"><parameter name="n">1</parameter></parameterset>
    <step name="s"><use>p</use><do>echo $n</do></step>
  </benchmark>
"""
RANGE = "{range: {start: 1, stop: 1000000, step: 1}}"
STEPS = "steps:\n  s:\n    do: echo $p0\n"
YAML = "name: d\nparameters:\n  p: {values}\nsteps:\n  s:\n    do: echo $p\n"


def jube_file(n: int) -> tuple[str, str]:
    body = "".join(JUBE_BENCHMARK.format(i=i) for i in range(n))
    return "d.xml", f'<?xml version="1.0"?>\n<jube>\n{body}</jube>\n'


def jube_comma(n: int) -> tuple[str, str]:
    """One JUBE benchmark whose parameter holds ``0,1,...,n-1``."""
    _, text = jube_file(1)
    values = ",".join(map(str, range(n)))
    return "d.xml", text.replace('name="n">1<', f'name="n">{values}<')


def many_parameters(n: int) -> str:
    """A definition of ``n`` one-value parameters."""
    return "name: d\nparameters:\n" + "".join(f"  p{i}: 1\n" for i in range(n)) + STEPS


def many_lists(n: int, length: int) -> str:
    """A definition of ``n`` parameters, each a list of ``length`` values."""
    values = list(range(length))
    return "name: d\nparameters:\n" + "".join(f"  p{i}: {values}\n" for i in range(n)) + STEPS


def attributes(n: int) -> tuple[str, str]:
    attrs = " ".join(f'a{i}="x"' for i in range(n))
    return "d.xml", f'<?xml version="1.0"?>\n<jube>\n{JUBE_BENCHMARK.format(i=0)}</jube>\n'.replace(
        'outpath="runs"', f'outpath="runs" {attrs}'
    )


CASES = {
    "jube_250": lambda: jube_file(250),
    "jube_500": lambda: jube_file(500),
    "jube_1000": lambda: jube_file(1000),
    "list_1e6": lambda: ("d.yaml", YAML.format(values=list(range(10**6)))),
    "list_9999": lambda: ("d.yaml", YAML.format(values=list(range(9_999)))),
    "jube_comma_1e6": lambda: jube_comma(10**6),
    "params_1e5": lambda: ("d.yaml", many_parameters(100_000)),
    "lists_10x9999": lambda: ("d.yaml", many_lists(10, 9_999)),
    "range_1e6": lambda: ("d.yaml", YAML.format(values=RANGE)),
    "tiny_start": lambda: (
        "d.yaml",
        YAML.format(values="{range: {start: '1e-9999999', stop: 1, factor: 2}}"),
    ),
    "attrs_1e5": lambda: attributes(100_000),
}
COMMANDS = {"validate": ["validate"], "info": ["info"], "dry run": ["run", "--dry-run"]}


def measure(cmd: list[str], cwd: Path, timeout: float) -> tuple[float, float, int | None]:
    """Wall seconds, peak resident MB and exit status (None: killed at the timeout).

    The peak is the process's own high-water mark (``VmHWM``), read as it runs: the
    kernel's count for a child also holds what this process had resident when it forked
    (the inputs it made)."""
    began = time.perf_counter()
    peak = 0
    with subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL) as child:  # fmt: skip
        while True:
            pid, status, _ = os.wait4(child.pid, os.WNOHANG)
            if pid:
                child.returncode = os.waitstatus_to_exitcode(status)
                return time.perf_counter() - began, peak / 1024, child.returncode
            peak = max(peak, _high_water(child.pid))
            if time.perf_counter() - began > timeout:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                return timeout, peak / 1024, None
            time.sleep(0.005)


def _high_water(pid: int) -> int:
    """The process's peak resident memory so far, in kB (0 once it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--only", nargs="*", choices=CASES, default=list(CASES))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; median of {args.runs} run(s)", flush=True)
    print(f"{'input':<14} {'command':<9} {'wall s':>8} {'peak MB':>8}  exit")
    for name in args.only:
        with tempfile.TemporaryDirectory() as scratch:
            where = Path(scratch)
            file, text = CASES[name]()
            (where / file).write_text(text)
            for label, command in COMMANDS.items():
                got = [measure([*JUBEX, *command, file], where, args.timeout)
                       for _ in range(args.runs)]  # fmt: skip
                wall = statistics.median(g[0] for g in got)
                peak = statistics.median(g[1] for g in got)
                code = got[-1][2]
                shown = f">{args.timeout:.0f}" if code is None else f"{wall:.2f}"
                print(f"{name:<14} {label:<9} {shown:>8} {peak:>8.0f}  {code}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
