"""The report's Darshan section: one access-size histogram per point, and its flags."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from jubex.analysis.builtin import darshan
from jubex.results.presentation.io_profile import BINS, FLAGS, NAMES, bin_name, profile_of

#: a study whose own patterns give the values the darshan analyser gives (the report reads
#: names, not analysers)
DEFINITION = """\
name: profiles
parameters:
  transfer: [4k, 1m]
patterns:
  darshan:
    posix_write_size_1k_10k: {regex: '^w1k10k $jube_pat_int', type: int}
    posix_write_size_1m_4m: {regex: '^w1m4m $jube_pat_int', type: int}
    posix_read_size_1m_4m: {regex: '^r1m4m $jube_pat_int', type: int}
    darshan_insights: {regex: '^flags (.*)$', type: str}
steps:
  run:
    do: >-
      if [ $transfer = 4k ]; then printf 'w1k10k 256\\nw1m4m 0\\nr1m4m 1\\n';
      printf '%s\\n' 'flags small-requests, transfer <b>mismatch</b>';
      else printf 'w1k10k 0\\nw1m4m 16\\nr1m4m 16\\n'; fi
    analyse: [darshan]
"""


def test_a_profile_scales_each_bin_to_the_largest() -> None:
    values = {
        bin_name("write", "1k_10k"): 256,
        bin_name("read", "1m_4m"): 64,
        "darshan_insights": "",
    }
    profile = profile_of(values, "run: transfer=4k")
    assert profile is not None and profile.flags == []
    bars = {bar.label: bar for bar in profile.bars}
    assert [bar.label for bar in profile.bars] == [label for _, label in BINS]
    assert (bars["≤ 10 KiB"].writes, bars["≤ 10 KiB"].write_share) == (256, 1.0)
    assert (bars["≤ 4 MiB"].reads, bars["≤ 4 MiB"].read_share) == (64, 0.25)
    assert profile_of({"write_bw": 3.0}, "no darshan") is None


def test_the_report_shows_each_points_histogram_and_flags_escaped(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(DEFINITION)
    for args in (["run", "p.yaml", "-q"], ["report", "-o", "p.html", "runs/000000"]):
        done = subprocess.run(
            [sys.executable, "-m", "jubex", *args], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "p.html").read_text()
    section = html[html.index('<section id="darshan">') : html.index('<section id="noise">')]
    assert section.count('class="profile"') == 2
    assert '<span class="flag">small-requests</span>' in section
    assert "transfer &lt;b&gt;mismatch&lt;/b&gt;" in section and "<b>" not in section
    assert '<div class="bar write" style="width: 100.0%">' in section
    assert ">256 / 0<" not in section and ">0 / 256<" in section  # reads / writes
    assert section.count("no flags") == 1
    assert "<h3>run 0: transfer=4k</h3>" in section  # the parameters that differ


def test_the_report_reads_the_names_the_darshan_analyser_gives() -> None:
    assert [key for key, _ in BINS] == [b.lower() for b in darshan.BINS]
    given = set(darshan.METRICS)
    assert given >= NAMES, NAMES - given
    assert FLAGS == "darshan_insights"
