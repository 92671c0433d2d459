"""A results database of 1,000 published runs with a planted step, real runs beside them
(one with a failed repetition), an annotation, and the site jubex builds of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.resultsdb.connect import Database
from jubex.resultsdb.publish import publish
from jubex.store.rundir import open_run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from resultsdb_fill import fill, template_of

#: a study of two points; point b's second repetition fails, and says why on stderr
DEFINITION = r"""
name: sitestudy
parameters:
  point: [a, b]
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 2
    do: |
      echo bw: ${1000 + jube_wp_iteration} MiB/s
      if [ $point = b ] && [ $jube_wp_iteration = 1 ]; then
        echo 'disk quota exceeded' >&2; exit 3
      fi
    analyse: [bw]
"""
#: the annotation of the planted step's site, with markup that must stay text
NOTE = "Lustre 2.15 upgrade <script>alert(1)</script>"
#: the run (its id) of the planted step: the 600th of the series
STEP_RUN = "000600"


@pytest.fixture(scope="session")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The SQLite file: a real run, 1,000 synthetic runs with m00 20 % lower from run 600
    on, and a note of their site."""
    home = tmp_path_factory.mktemp("dashboard")
    (home / "sitestudy.yaml").write_text(DEFINITION)
    out = home / "runs"
    main(["run", str(home / "sitestudy.yaml"), "--outpath", str(out), "-q", "--no-result"])
    path = str(home / "results.sqlite")
    db = Database(path)
    publish(db, open_run(out / "000000"))
    fill(db, template_of(db), runs=1000, series=1, metrics=3, reps=5, step_at=600)
    assert main(["annotate", "site00", "2026-01-20", NOTE, "--database", path]) == 0
    return path


@pytest.fixture(scope="session")
def site(database: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of every run of the database."""
    root = tmp_path_factory.mktemp("site") / "site"
    assert main(["site", "db:", "-o", str(root), "--database", database]) == 0
    return root
