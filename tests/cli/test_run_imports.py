"""``jubex run`` imports SQLAlchemy only to publish and rich only to draw its bar: with a
pipe for output and no ``publish: true``, 1,000 trivial workpackages cost the engine about
3 s of CPU, and the two imports were 0.75 s of it. Checked by which modules a real process
holds at its end, not timed."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_startup_imports import _imported

#: a study without result tables (a table's report is drawn with rich, run or result alike)
STUDY = """
name: trivial
parameters:
  i: [1, 2, 3]
patterns:
  bw:
    bw: {regex: "bw: $jube_pat_fp MiB/s", type: float, unit: MiB/s}
steps:
  work:
    do: 'echo "bw: $i.4 MiB/s"'
    analyse: [bw]
"""


def test_a_run_that_publishes_nothing_imports_neither_sqlalchemy_nor_rich(
    tmp_path: Path,
) -> None:
    (tmp_path / "tiny.yaml").write_text(STUDY)
    found = _imported("run", "tiny.yaml", "-q", "--no-result", "--outpath", "runs", cwd=tmp_path)
    assert (tmp_path / "runs" / "000000" / "run.json").is_file()
    assert "sqlalchemy" not in found and "rich" not in found, found
