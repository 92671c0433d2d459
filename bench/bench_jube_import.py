"""Importing a large JUBE run: wall time and peak memory of ``jubex import-jube`` and of
``jubex result -f csv`` on a run of N workpackages (median of --runs runs each).

The run is JUBE's io_study run of tests/data/jube_runs grown to N ``ior`` workpackages
(two iterations a point, each pair analysed as JUBE analyses it), its ``mdtest`` and
``archive`` steps left out, and a workpackages.xml past the size limit for the refusal.

    python bench/bench_jube_import.py --runs 3 [--sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import tempfile
from pathlib import Path

from bench_bounded_sizes import measure
from timing import JUBEX

SOURCE = Path(__file__).parent.parent / "tests" / "data" / "jube_runs" / "io_study"
RUN = SOURCE / "bench_run" / "000000"


def grown(folder: Path, n: int) -> Path:
    """The io_study run with ``n`` ior workpackages, as JUBE would have written it."""
    run = folder / "bench_run" / "000000"
    run.mkdir(parents=True)
    shutil.copy(RUN / "configuration.xml", run)
    shutil.copy(RUN / "timestamps", run)
    wps = (RUN / "workpackages.xml").read_text()
    one = re.search(r'  <workpackage id="0">.*?</workpackage>\n', wps, re.DOTALL)
    analyse = (RUN / "analyse.xml").read_text()
    analysed = re.search(r'      <workpackage id="\d+">.*?</workpackage>\n', analyse, re.DOTALL)
    assert one and analysed
    body, found = [], []
    for i in range(n):
        wp = one.group(0).replace('id="0"', f'id="{i}"')
        wp = wp.replace('iteration="0"', f'iteration="{i % 2}"')
        wp = wp.replace('idx="0">1m<', f'idx="0">m{i // 2}<')
        body.append(wp)
        if i % 2 == 0:
            found.append(re.sub(r'id="\d+"', f'id="{i}"', analysed.group(0), count=1))
        folder_i = run / f"{i:06d}_ior"
        folder_i.mkdir()
        (folder_i / "done").touch()
    (run / "workpackages.xml").write_text(f"<workpackages>\n{''.join(body)}</workpackages>\n")
    (run / "analyse.xml").write_text(
        '<analyse>\n  <analyser name="ior_analyser">\n    <step name="ior">\n'
        f"{''.join(found)}    </step>\n  </analyser>\n</analyse>\n"
    )
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'workpackages':>12} {'XML MB':>7} {'command':<16} {'wall s':>7} {'peak MB':>8}")
    for n in (int(size) for size in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            run = grown(home, n)
            size = (run / "workpackages.xml").stat().st_size / 1e6
            for name, cmd in (
                ("import-jube", [*JUBEX, "import-jube", str(run), "--again"]),
                ("result -f csv", [*JUBEX, "result", "-f", "csv"]),
            ):
                taken = [measure(cmd, home, args.timeout) for _ in range(args.runs)]
                assert all(code == 0 for _, _, code in taken), (name, taken)
                wall = statistics.median(t for t, _, _ in taken)
                peak = statistics.median(m for _, m, _ in taken)
                print(f"{n:>12,} {size:>7.1f} {name:<16} {wall:>7.2f} {peak:>8.0f}")


if __name__ == "__main__":
    main()
