"""The walk-throughs' commands, run as written, in a copy of the repository's files.

A walk-through marks what runs on any machine as a ```bash block: those blocks run for real,
in order, in one shell, with the installed ``jubex`` (the kernels, tiny sizes). Blocks marked
```sh are commands for a site (Slurm, the site's IOR); each ``jubex run`` among them is
checked with ``--dry-run`` and each ``jubex info`` is run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
#: what a fresh clone holds that the walk-throughs use
COPIED = ["examples", "benchmarks", "tests/data/outputs/io500"]
DOCUMENTS = [
    *sorted(EXAMPLES.glob("*.md")),
    REPO / "benchmarks/README.md",
    REPO / "docs/benchmarks.md",
]

needs_cc = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("cc") is None,
    reason="the kernels need make and a C compiler",
)


def blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", path.read_text(), re.MULTILINE | re.DOTALL)


def command_lines(block: str) -> list[str]:
    """Lines of a block with ``\\`` continuations joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", "", block)
    return [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clone")
    for name in COPIED:
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns("runs"))
    return root


def shell(clone: Path, script: str, timeout: float = 240) -> str:
    """Run a script as a user would in the clone; its output, after asserting success."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    # a wide terminal, as the walk-throughs show their tables (narrower ones get blocks)
    env = {"USER": "user", "HOME": str(clone), **os.environ, "PATH": path, "COLUMNS": "250"}
    proc = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, f"{script}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc.stdout


def walk(clone: Path, name: str, timeout: float = 240) -> str:
    script = "\n".join(blocks(EXAMPLES / name, "bash"))
    assert script, f"{name} has no ```bash block"
    return shell(clone, script, timeout)


def test_every_walkthrough_shows_commands_to_run_here() -> None:
    assert {p.name for p in EXAMPLES.glob("*.md")} >= {
        "ska-sdp.md",
        "cori-ior.md",
        "lustre-clio.md",
        "io500.md",
    }
    assert all(blocks(p, "bash") for p in EXAMPLES.glob("*.md"))


@needs_cc
@pytest.mark.slow
def test_ska_sdp_runs_both_sweeps_scaled_down(clone: Path) -> None:
    out = walk(clone, "ska-sdp.md")
    assert "run runs/ska/000000: 25 done" in out  # build + 24 IOR points
    assert "run runs/ska/000001: 13 done" in out  # build + 12 mdtest points
    markdown = [line for line in out.splitlines() if line.startswith("| ")]
    assert markdown[0].startswith("| tasks | ppn | files | depth | creates n |")
    assert len(markdown) == 2 + 12
    assert not any("| — | — |" in row for row in markdown[2:])


@needs_cc
def test_cori_reads_follow_their_writes(clone: Path) -> None:
    out = walk(clone, "cori-ior.md")
    assert "run runs/cori/000000: 5 done" in out
    rows = re.findall(r"^ POSIX +(\d) +([wr]) +\d+ +\d+ +(\S+) +(\S+)$", out, re.MULTILINE)
    assert [(ppn, phase) for ppn, phase, _, _ in rows] == [
        ("2", "w"),
        ("2", "r"),
        ("4", "w"),
        ("4", "r"),
    ]
    for _, phase, write, read in rows:
        assert (write != "—", read != "—") == (phase == "w", phase == "r")
    report = (clone / "runs" / "cori" / "acceptance.html").read_text()
    assert "acceptance" in report and "provenance" in report.lower()
    assert "wrote runs/cori/acceptance.tar.gz: 1 run(s)" in out


@needs_cc
@pytest.mark.slow
@pytest.mark.waits
def test_lustre_clio_gate_catches_the_fsync_regression(
    clone: Path, browse: Callable[..., str]
) -> None:
    # three fsync-bound sweeps of -i 5: 80-240 s on 2 shared cores; the bound only stops a hang
    out = walk(clone, "lustre-clio.md", timeout=600)
    assert "exit status 1: the candidate fails the gate" in out
    # the candidate: write_bw worse (at both points on a quiet machine; with a noisy
    # baseline, Holm's correction may leave one of them "same"), read_bw compared too
    gate = out[: out.index("exit status 1: the candidate fails the gate")]
    worse = re.findall(r"^ +1 +(ssf|fpp) +write_bw .* worse( .*)?$", gate, re.MULTILINE)
    assert worse and {access for access, _ in worse} <= {"ssf", "fpp"}
    assert len(re.findall(r"^ +1 +(?:ssf|fpp) +read_bw ", gate, re.MULTILINE)) == 2
    # the report's -i 5: each side of a point has 5 runs x 5 IOR iterations, and the test
    # compares the 5 runs' means, as the notes say
    for row in re.findall(r"^ +1 +(?:ssf|fpp) +(?:write|read)_bw .*$", gate, re.MULTILINE):
        cells = row.split()
        assert (cells[7], cells[10]) == ("5", "5"), row
    assert "tested on the means of 5 and 5 executions (of 25 and 25 values)" in gate
    assert "baseline runs/clio/000000, candidate runs/clio/000001" in gate
    # the metadata side: 8 metrics at 2 points, whatever this machine's drift
    second = out.index("run runs/clio/000002")
    metadata = re.findall(r"^ +1 +(ssf|fpp) +(\w+) ", out[len(gate) : second], re.MULTILINE)
    assert len(metadata) == 2 * 8
    # baseline against a second baseline: one metric at two points
    assert "baseline runs/clio/000000, candidate runs/clio/000002" in out
    published = out.index("published to")
    baselines = out[second:published]
    assert len(re.findall(r"^ +1 +(?:ssf|fpp) +write_bw ", baselines, re.MULTILINE)) == 2
    # baseline and candidate published, then compared from the results database
    assert out.count("published to sqlite:///") == 2
    assert "exit status 1: the gate fails from the database too" in out
    # and shown as a website: the comparison of the two published runs, failed
    site = clone / "runs" / "clio" / "site"
    assert "2 run(s)" in out[published:] and (site / "feed.xml").is_file()
    assert 'class="verdict bad">FAILED' in next((site / "compare").glob("*.html")).read_text()
    # the report: the verdicts, each run's tables side by side, what changed
    dom = browse(clone / "runs" / "clio" / "report.html", "--dump-dom")
    compared = section(dom, "comparison")
    assert "000000 (baseline) → 000001" in compared and "FAILED" in compared
    assert "000000 (baseline) → 000002" in compared
    sides = section(dom, "sides")
    for run in ("000000", "000001", "000002"):
        assert f'aria-label="run {run}"' in sides
    assert sides.count('<table class="result">') == 3 * 2  # tables ior and mdtest each
    assert "store.overrides" in section(dom, "changed")


def section(dom: str, name: str) -> str:
    """A section of the report's rendered page, by its id."""
    start = dom.index(f'<section id="{name}">')
    return dom[start : dom.index("</section>", start)]


@needs_cc
def test_io500_scores_with_the_kernels_and_reads_the_harness(clone: Path) -> None:
    out = walk(clone, "io500.md")
    score = re.search(
        r"^ +2 +no: jubex kernels, not IOR and mdtest +3 +([\d.]+) ± [\d.]+ +([\d.]+) ± [\d.]+"
        r" +([\d.]+) ± [\d.]+",
        out,
        re.MULTILINE,
    )
    assert score, out
    bw, md, total = map(float, score.groups())
    assert bw > 0 and md > 0 and total > 0
    # the phases table as CSV: mean and std in fields of their own
    # (a number of its own each: the kernels' write rate here is 0.5 to 1.5 GiB/s)
    assert re.search(r"^ior-easy-write mean \[GiB/s\],\d+\.\d+$", out, re.MULTILINE)
    assert re.search(r"^ior-easy-write std \[GiB/s\],\d+\.\d+$", out, re.MULTILINE)
    assert re.search(r"^ score +17\.78$", out, re.MULTILINE)
    assert re.search(r"^ score_bw +1\.706 +GiB/s$", out, re.MULTILINE)
    assert '"name": "score_hash"' in out


SITE_COMMANDS = [
    (doc, line)
    for doc in DOCUMENTS
    for block in blocks(doc, "sh")
    for line in command_lines(block)
    if line.startswith(("jubex run ", "jubex info "))
]


def test_the_site_commands_are_found() -> None:
    assert len(SITE_COMMANDS) >= 12
    assert {doc.name for doc, _ in SITE_COMMANDS} == {p.name for p in DOCUMENTS}


@pytest.mark.parametrize(
    ("doc", "line"), SITE_COMMANDS, ids=[f"{d.name}:{i}" for i, (d, _) in enumerate(SITE_COMMANDS)]
)
def test_site_commands_plan_cleanly(clone: Path, doc: Path, line: str) -> None:
    dry = " --dry-run" if line.startswith("jubex run ") else ""
    out = shell(clone, line + dry, timeout=60)
    if dry:
        assert "would run on platform" in out
        assert re.search(r"^  \$ ", out, re.MULTILINE), f"{doc.name}: {line} plans nothing"
    assert shlex.split(line)[0] == "jubex"


def test_p_names_the_program_where_the_definition_defines_it_too(clone: Path) -> None:
    """cori-ior.yaml defines ``ior: IOR`` itself: ``-p ior=`` must reach that, not the platform."""
    out = shell(
        clone, "jubex run examples/cori-ior.yaml -P slurm -p ior=/opt/ior/bin/ior --dry-run"
    )
    runs = re.findall(r"^  \$ srun .*$", out, re.MULTILINE)
    assert len(runs) == 4
    assert all(" /opt/ior/bin/ior -" in line for line in runs)


@needs_cc
@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_two_sites_side_by_side_on_the_local_machine_and_slurm(
    clone: Path, browse: Callable[..., str]
) -> None:
    out = walk(clone, "ska-sites.md")
    assert "run runs/sites/laptop/000000: 13 done" in out
    assert "run runs/sites/cluster/000000: 13 done" in out
    header = next(line for line in out.splitlines() if line.startswith("| api |"))
    assert (
        "| laptop: write mean [MiB/s] |" in header and "| cluster: write mean [MiB/s] |" in header
    )
    rows = [line for line in out.splitlines() if line.startswith("| POSIX |")]
    assert len(rows) == 12 and not any("| — | — | — |" in row for row in rows)
    sites = clone / "runs" / "sites"
    assert "<svg" in (sites / "write.svg").read_text()
    dom = browse(sites / "report.html", "--dump-dom")
    side = section(dom, "sides")
    assert 'aria-label="site laptop"' in side and 'aria-label="site cluster"' in side
    assert side.count('<table class="result">') == 2  # the sweep's table, once per site
    assert "laptop/000000 (baseline) → cluster/000000" in section(dom, "comparison")
    assert "platform" in section(dom, "changed")
    assert "wrote runs/sites/ska-sites.tar.gz: 2 run(s)" in out
    info = shell(clone, "jubex info runs/sites/cluster/000000 --parametrisation")
    assert re.search(r"^1 +kernels +0 +done +\d+ +n\d ", info, re.MULTILINE), info


@needs_cc
def test_repetitions_run_until_the_mean_is_tight_or_the_most_allowed(clone: Path) -> None:
    out = walk(clone, "repetitions.md")
    # a point that reached its target has no flags: its line ends with its repetitions
    rows = re.findall(r"^ +(64KiB|1MiB) +(\S+) +(\S+) +\S+ +\S+ +(\d+)(?: |$)", out, re.MULTILINE)
    assert [transfer for transfer, *_ in rows] == ["64KiB", "1MiB"], out
    for _, mean, ci95, repetitions in rows:
        tight = float(ci95) <= 0.05 * float(mean)
        assert 3 <= int(repetitions) <= 12
        assert tight or int(repetitions) == 12, "a point stops short only at its target"
    assert "repetitions until ci95(write_bw) <= 5% (3 to 12 per point):" in out
    status = re.search(r"write: (\d+) done", out)
    assert status, out
    assert int(status.group(1)) == sum(int(r[3]) for r in rows), "what ran is what counts"
