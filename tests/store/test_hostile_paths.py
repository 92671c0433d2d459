"""Paths and numbers a store, a bundle or a JUBE run names are kept inside their run: nothing
outside it is deleted, no workpackage deletes another's directory or the run's own files,
and a hostile one is exit 2 in one paragraph (real runs, the real CLI)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data" / "jube_runs"
DEFINITION = """\
name: paths
parameters:
  n: [1, 2, 3]
steps:
  work:
    do: echo "n $n" > out.txt
"""


def jubex(cwd: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    return done


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of three workpackages, and its bundle beside it."""
    home = tmp_path_factory.mktemp("paths")
    (home / "p.yaml").write_text(DEFINITION)
    jubex(home, "run", "p.yaml", "-q", "--no-result")
    jubex(home, "export", "runs/000000", "-o", "paths.tar.gz")
    return home


def fresh_run(made: Path, tmp_path: Path) -> Path:
    shutil.copytree(made / "runs", tmp_path / "runs", symlinks=True)
    return tmp_path / "runs" / "000000"


def set_workdir(run: Path, wp: int, name: str) -> None:
    db = sqlite3.connect(run / "jubex.sqlite")
    db.execute("UPDATE workpackage SET workdir = ? WHERE id = ?", (name, wp))
    db.commit()
    db.close()


def test_remove_never_follows_a_relative_workdir_out_of_the_run(made, tmp_path):
    run = fresh_run(made, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    set_workdir(run, 0, "../../elsewhere")
    done = jubex(tmp_path, "remove", "runs/000000", "-w", "0", "-y", code=2)
    assert "not a workpackage's directory inside the run" in done.stderr
    assert (elsewhere / "keep").is_dir()
    assert len(list(run.glob("00000*_work"))) == 3  # and nothing of the run went


@pytest.mark.parametrize("name", ["source", ".", "000001_work", "000001_work/work", "jubex.sqlite"])
def test_remove_never_deletes_the_runs_own_files_or_another_workpackages(made, tmp_path, name):
    run = fresh_run(made, tmp_path)
    set_workdir(run, 0, name)
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    jubex(tmp_path, "remove", "runs/000000", "-w", "0", "-y", code=2)
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before


def test_remove_of_a_workpackage_still_removes_its_own_directory(made, tmp_path):
    run = fresh_run(made, tmp_path)
    jubex(tmp_path, "remove", "runs/000000", "-w", "1", "-y")
    assert sorted(p.name for p in run.glob("00000*_work")) == ["000000_work", "000002_work"]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("000001_work", "in '000001_work', the directory of workpackage 0"),
        ("source", "the run's own"),
    ],
)
def test_a_bundle_naming_another_workpackages_directory_is_refused(made, tmp_path, name, said):
    from tests.store.test_bundle_untrusted import rebuilt, store_changed

    change = store_changed(f"UPDATE workpackage SET workdir = '{name}' WHERE id = 0;")
    bad = rebuilt(made / "paths.tar.gz", tmp_path / "bad.tgz", change)
    done = jubex(tmp_path, "import", str(bad), code=2)
    assert said in done.stderr, done.stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def copy_jube_run(tmp_path: Path) -> Path:
    run = tmp_path / "jube" / "000000"
    shutil.copytree(DATA / "io_study" / "bench_run" / "000000", run, symlinks=True)
    return run


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('id="3"', f'id="{"9" * 5000}"'),
        ("<parents>0</parents>", f"<parents>{'1' * 5000}</parents>"),
    ],
    ids=["id", "parent"],
)
def test_a_5000_digit_workpackage_id_in_a_jube_run_is_exit_2(tmp_path, old, new):
    run = copy_jube_run(tmp_path)
    path = run / "workpackages.xml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    done = jubex(tmp_path, "import-jube", str(run), code=2)
    assert "whole number" in done.stderr or "ids separated by commas" in done.stderr


def test_a_fifo_named_workpackages_xml_is_not_a_regular_file_and_never_blocks(tmp_path):
    run = copy_jube_run(tmp_path)
    (run / "workpackages.xml").unlink()
    os.mkfifo(run / "workpackages.xml")
    done = jubex(tmp_path, "import-jube", str(run), code=2)
    assert "workpackages.xml' is not a regular file" in done.stderr, done.stderr


def test_import_jube_never_says_a_python_value_is_evaluated(tmp_path, monkeypatch):
    run = copy_jube_run(tmp_path)
    path = run / "configuration.xml"
    path.write_text(path.read_text().replace('mode="python">', 'mode="python">(lambda: 1)() * ', 1))
    for allowed in ("0", "1"):
        monkeypatch.setenv("JUBEX_ALLOW_CODE", allowed)
        done = jubex(tmp_path, "import-jube", str(run), "--again")
        assert "is evaluated" not in done.stderr and "not evaluated" in done.stderr, done.stderr
