"""Output that fits: tables within the terminal, one number per field, scripts as scripts."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

DEFINITION = """
name: fits
parameters:
  x: [1, 2]
patterns:
  bw:
    bw: {regex: "bw: $jube_pat_fp MiB/s", type: float, unit: MiB/s, better: higher}
steps:
  work:
    iterations: 3
    do: 'echo "bw: $(( $x * 100 + $jube_wp_iteration * 7 )).123456 MiB/s"'
    analyse: [bw]
results:
  speed:
    group_by: [x]
    columns: [x, {name: bw, stats: [n, mean±std, min, max]}]
  raw:
    columns: [x, jube_wp_iteration, bw]
"""


def jubex(cwd: Path, *args: str, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CONFIG_HOME": str(cwd / "config")}
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("fits")
    (home / "d.yaml").write_text(DEFINITION)
    done = jubex(home, "run", "d.yaml", "-q", "--no-result", "-j", "1")
    assert done.returncode == 0, done.stderr
    return home


def test_a_wide_table_fits_the_terminal_as_blocks(home: Path) -> None:
    wide = jubex(home, "result", "runs/000000", "-T", "speed", columns=200).stdout
    assert "-[ 1 ]" not in wide and "bw_mean±std [MiB/s]" in wide
    narrow = jubex(home, "result", "runs/000000", "-T", "speed", columns=40).stdout
    lines = narrow.splitlines()
    blocks = [line for line in lines if not line.startswith(("flags:", "[", "#"))]
    assert all(len(line) <= 40 for line in blocks)  # notes are lines the terminal wraps
    assert lines[1].startswith("-[ 1 ]") and "bw_mean±std [MiB/s]  107.1 ± 7.0" in lines


def test_csv_and_json_keep_mean_and_std_apart(home: Path) -> None:
    text = jubex(home, "result", "runs/000000", "-T", "speed", "-f", "csv").stdout
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "x",
        "bw_n",
        "bw_mean [MiB/s]",
        "bw_std [MiB/s]",
        "bw_min [MiB/s]",
        "bw_max [MiB/s]",
        "flags",  # 7 in 107 is a cv of 6.5 %: noisy
    ]
    assert rows[1][-1] == "noisy: bw cv 6.5%"
    assert rows[1][:4] == ["1", "3", "107.12345599999999", "7.0"]  # in full
    document = json.loads(jubex(home, "result", "runs/000000", "-T", "speed", "-f", "json").stdout)
    pair = document["rows"][0]["bw_mean±std"]
    assert pair == {"mean": pytest.approx(107.123456), "std": pytest.approx(7.0)}


def test_numbers_get_the_same_decimals_in_a_column(home: Path) -> None:
    text = jubex(home, "result", "runs/000000", "-T", "raw", "-f", "aligned").stdout
    cells = [line.split()[-1] for line in text.splitlines()[2:]]
    assert cells == ["100.1", "107.1", "114.1", "200.1", "207.1", "214.1"]


def test_markdown_gives_each_table_a_title(home: Path) -> None:
    text = jubex(home, "result", "runs/000000", "-f", "markdown").stdout
    assert [line for line in text.splitlines() if line.startswith("#")] == [
        "### speed",
        "### raw",
    ]


def test_platform_resources_print_the_job_script_as_a_script(tmp_path: Path) -> None:
    done = jubex(tmp_path, "platform", "slurm", "-r", "nodes=2", "-r", "time=1h")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#!/bin/bash\n#SBATCH --job-name=NAME\n")
    assert "#SBATCH --time=01:00:00" in done.stdout and done.stdout.endswith("BODY\n")
    assert "# launcher: srun -N 2" in done.stderr
    as_json = json.loads(jubex(tmp_path, "platform", "slurm", "-r", "nodes=2", "-f", "json").stdout)
    assert as_json["job_script"].startswith("#!/bin/bash")
    assert jubex(tmp_path, "platform", "slurm", "-f", "script").returncode == 2


def test_a_batch_dry_run_prints_the_job_script(home: Path) -> None:
    done = jubex(home, "run", "d.yaml", "--dry-run", "-P", "slurm")
    assert done.returncode == 0, done.stderr
    assert "  job script " in done.stdout and "    #SBATCH --nodes=1" in done.stdout


def test_a_table_written_to_a_file_keeps_its_layout_at_any_terminal_width(home: Path) -> None:
    out = home / "speed.txt"
    jubex(home, "result", "runs/000000", "-T", "speed", "-o", str(out), columns=40)
    text = out.read_text()
    assert "-[ 1 ]" not in text and "bw_mean±std [MiB/s]" in text.splitlines()[1]


def test_info_takes_a_lone_p_before_or_after_the_run(home: Path) -> None:
    before = jubex(home, "info", "-p", "runs/000000", columns=200)
    after = jubex(home, "info", "runs/000000", "-p", columns=200)
    assert before.returncode == 0, before.stderr
    assert before.stdout == after.stdout
    header = next(line for line in before.stdout.splitlines() if line.startswith("id "))
    assert header.split()[:4] == ["id", "step", "iteration", "state"]
