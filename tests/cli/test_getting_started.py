"""Getting started: jubex init and shell completion, as a user calls them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jubex.cli.init import TEMPLATES

REPO = Path(__file__).resolve().parents[2]

needs_cc = pytest.mark.skipif(
    shutil.which("make") is None or shutil.which("cc") is None,
    reason="the kernels need make and a C compiler",
)


def jubex(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200", **(env or {})},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("template", list(TEMPLATES))
def test_init_writes_a_commented_definition_that_validates(tmp_path: Path, template: str) -> None:
    done = jubex(tmp_path, "init", template)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout
        == f"wrote {template}.yaml: jubex validate {template}.yaml; jubex run {template}.yaml\n"
    )
    text = (tmp_path / f"{template}.yaml").read_text()
    assert text.startswith("# ") and f"jubex init {template}" in text.replace(
        "jubex init`", f"jubex init {template}`"
    )
    checked = jubex(tmp_path, "validate", f"{template}.yaml")
    assert checked.stdout.endswith("1 file(s) valid: 0 error(s), 0 warning(s)\n"), checked.stdout


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("name: mine\n")
    refused = jubex(tmp_path, "init", "ior", "-o", "mine.yaml")
    assert refused.returncode == 2 and "'mine.yaml' exists; --force overwrites it" in refused.stderr
    assert (tmp_path / "mine.yaml").read_text() == "name: mine\n"
    assert jubex(tmp_path, "init", "ior", "-o", "mine.yaml", "--force").returncode == 0
    assert (tmp_path / "mine.yaml").read_text().startswith("# A starter IOR study")
    assert jubex(tmp_path, "init", "lustre").returncode == 2


def _runs(tmp_path: Path, template: str, rows: int) -> None:
    assert jubex(tmp_path, "init", template).returncode == 0
    done = jubex(tmp_path, "run", f"{template}.yaml", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    body = [line for line in done.stdout.splitlines() if line[:1] == " " and "─" not in line]
    assert len(body) == 2 + rows, done.stdout  # title, head and rows
    measured = [re.split(r"\s{2,}", line.strip()) for line in body[2:]]
    if body[1].split()[-1] == "flags":  # "—" there means "nothing flagged"
        measured = [cells[:-1] for cells in measured]
    assert all("—" not in cells for cells in measured), done.stdout  # every value is there


def test_the_generic_starter_runs_here(tmp_path: Path) -> None:
    _runs(tmp_path, "generic", 2)


@needs_cc
@pytest.mark.parametrize("template", ["ior", "mdtest"])
def test_the_kernel_starters_run_here(tmp_path: Path, template: str) -> None:
    _runs(tmp_path, template, 4)


@pytest.mark.skipif(shutil.which("fio") is None, reason="needs fio")
def test_the_fio_starter_runs_here(tmp_path: Path) -> None:
    assert jubex(tmp_path, "init", "fio").returncode == 0
    done = jubex(tmp_path, "run", "fio.yaml", "-q", "--no-result")
    assert done.returncode == 0, done.stdout + done.stderr
    table = jubex(tmp_path, "result", "runs", "-f", "csv").stdout.splitlines()
    assert table[0].startswith("rw,bs,write n,write mean [MiB/s],write std [MiB/s],read n")
    assert [line.split(",")[:3] for line in table[1:5]] == [
        ["write", "4k", "3"],
        ["write", "1m", "3"],
        ["read", "4k", "0"],
        ["read", "1m", "0"],
    ]
    # it measures the device, not the page cache, and leaves none of its 64 MiB files
    starter = (tmp_path / "fio.yaml").read_text()
    assert "--direct=$direct" in starter and "--end_fsync=1" in starter
    assert "larger than the caches" not in starter and "needs the file the write" not in starter
    left = sum(p.stat().st_size for p in (tmp_path / "runs").rglob("*") if p.is_file())
    assert left < 4 << 20, f"{left} bytes left behind"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_hook_for_the_shell(tmp_path: Path, shell: str) -> None:
    done = jubex(tmp_path, "completion", shell)
    assert done.returncode == 0
    hook = "__fish_jubex_complete" if shell == "fish" else "_python_argcomplete"
    assert hook in done.stdout and "jubex" in done.stdout
    if shell == "bash":
        assert "complete " in done.stdout


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("jubex ru", {"run", "runs"}),
        ("jubex result --ta", {"--table"}),
        ("jubex in", {"info", "init"}),
    ],
)
def test_completion_answers_from_the_parser(tmp_path: Path, line: str, expected: set[str]) -> None:
    out = tmp_path / "completions"
    env = {
        "_ARGCOMPLETE": "1",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
    }
    done = jubex(tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert {word.strip() for word in out.read_text().split("\x0b")} == expected


@needs_cc
@pytest.mark.slow
def test_a_run_with_another_block_compares_and_plots_point_by_point(tmp_path: Path) -> None:
    """The starter's ``options`` text holds ``$block``: derived, it is no key, so the run
    with ``-p block=32m`` meets the first at its 8 points (it once shared none: "16
    missing"), the headline names the block, and the plot draws a series per block."""
    assert jubex(tmp_path, "init", "ior").returncode == 0
    for extra in ((), ("-p", "block=32m")):
        done = jubex(tmp_path, "run", "ior.yaml", "-q", "--no-result", *extra)
        assert done.returncode == 0, done.stderr
    compared = jubex(tmp_path, "compare", "0", "1", "-f", "json")
    assert compared.returncode in (0, 1, 4), compared.stderr
    document = json.loads(compared.stdout)
    assert document["keys"] == ["tasks", "transfer"]
    assert len(document["rows"]) == 8 and "missing" not in document["counts"]
    assert document["notes"][0].endswith("; what differs: block 16m → 32m")
    plotted = jubex(tmp_path, "plot", "0", "1", "-x", "tasks", "-y", "write_bw", "-o", "p.svg")
    assert plotted.returncode == 0, plotted.stderr
    assert "differ in block: kept apart" in plotted.stderr and "options" not in plotted.stderr
    svg = (tmp_path / "p.svg").read_text()
    assert "<!-- 16m -->" in svg and "<!-- 32m -->" in svg


def test_the_kernel_starters_ask_a_batch_system_for_the_cpus_their_kernel_runs(
    tmp_path: Path,
) -> None:
    """jubex-bw -n 2 and jubex-md -N 2 start 2 processes in one task: the job asks for 2
    CPUs (it asked for 1, and the processes shared it)."""
    for template in ("ior", "mdtest"):
        assert jubex(tmp_path, "init", template).returncode == 0
        done = jubex(tmp_path, "run", f"{template}.yaml", "-P", "slurm", "--dry-run", "-f", "json")
        assert done.returncode == 0, done.stderr
        asked = {
            (wp["parameters"]["tasks"], *re.findall(r"--cpus-per-task=(\d+)", wp["job_script"]))
            for wp in json.loads(done.stdout)["workpackages"]
            if wp["step"] == "kernel"
        }
        assert asked == {("1", "1"), ("2", "2")}, done.stdout
