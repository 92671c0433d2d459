"""Getting started: jubex init and shell completion, as a user calls them."""

from __future__ import annotations

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
