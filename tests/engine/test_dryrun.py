"""``jubex run --dry-run``: the commands each workpackage would run, nothing written."""

from __future__ import annotations

from pathlib import Path

from jubex.api import load
from jubex.engine.dryrun import dry_run
from jubex.platform.load import load_platform

CYCLES = """<jube><benchmark name="c" outpath="runs">
  <parameterset name="p">
    <parameter name="n">1,2</parameter>
    <parameter name="x" mode="python" update_mode="cycle">${jube_wp_cycle} * 10 + $n</parameter>
  </parameterset>
  <step name="loop" cycles="3"><use>p</use><do>echo $x</do></step>
</benchmark></jube>
"""


def test_each_cycle_is_shown_with_its_own_values(tmp_path: Path) -> None:
    path = tmp_path / "c.xml"
    path.write_text(CYCLES)
    lines: list[str] = []
    assert dry_run(load(path), load_platform("local"), out=lines.append) == 0
    first = lines[: lines.index(next(line for line in lines if line.startswith("wp 1 ")))]
    assert first[1:] == [
        "  cycle 0:",
        "  $ echo 1",
        "  cycle 1:",
        "  $ echo 11",
        "  cycle 2:",
        "  $ echo 21",
    ]
    assert lines[-1].startswith("2 workpackage(s) would run")
    assert not (tmp_path / "runs").exists()
