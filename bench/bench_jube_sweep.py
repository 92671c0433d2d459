"""A JUBE-format sweep run by jubex end to end: N trivial workpackages, one pattern, one table.

The same XML file runs unchanged under JUBE 2.7 (`jube run sweep.xml; jube result`); here it
is run with `jubex run` (expand, execute, analyse) and `jubex result` (tabulate), each in a
fresh process. Reports the median of RUNS wall times.

    python bench/bench_jube_sweep.py --n 1000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from timing import JUBEX, timed

SWEEP = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="sweep" outpath="runs">
    <comment>N trivial workpackages, one pattern, one table</comment>
    <parameterset name="points">
      <parameter name="i" type="int" mode="python">",".join(str(i) for i in range({n}))</parameter>
    </parameterset>
    <patternset name="bw">
      <pattern name="bw" type="float" unit="MiB/s">bw: $jube_pat_fp MiB/s</pattern>
    </patternset>
    <step name="work">
      <use>points</use>
      <do>echo "bw: $i.4 MiB/s"</do>
    </step>
    <analyser name="read">
      <use>bw</use>
      <analyse step="work"><file>stdout</file></analyse>
    </analyser>
    <result>
      <use>read</use>
      <table name="bandwidth" style="csv" sort="i">
        <column>i</column>
        <column>bw</column>
      </table>
    </result>
  </benchmark>
</jube>
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    jubex = JUBEX
    runs, results = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            (work / "sweep.xml").write_text(SWEEP.format(n=args.n))
            runs.append(timed([*jubex, "run", "sweep.xml", "-q", "--no-result"], work))
            results.append(timed([*jubex, "result", "runs/000000", "-f", "csv"], work))
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print(
        f"N = {args.n}: jubex run {statistics.median(runs):.2f} s, "
        f"jubex result {statistics.median(results):.2f} s (median of {args.runs})"
    )


if __name__ == "__main__":
    main()
