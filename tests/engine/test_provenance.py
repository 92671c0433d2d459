"""A run's provenance: recorded when the run is made, from real files and commands."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jubex.engine import provenance

MOUNTINFO = (
    "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "30 22 0:26 / /scratch rw shared:5 - lustre 10.0.0.1@tcp:/scratch rw\n"
    "31 30 0:27 / /scratch/my\\040data rw shared:6 - tmpfs none\\040x rw\n"
    "bad line without separator\n"
)


@pytest.mark.parametrize(
    ("path", "mount", "kind", "source"),
    [
        ("/home/u", "/", "ext4", "/dev/vda"),
        ("/scratch", "/scratch", "lustre", "10.0.0.1@tcp:/scratch"),
        ("/scratch/u/runs", "/scratch", "lustre", "10.0.0.1@tcp:/scratch"),
        ("/scratch/my data/x", "/scratch/my data", "tmpfs", "none x"),
        ("/scratchy", "/", "ext4", "/dev/vda"),
    ],
)
def test_mount_is_the_longest_mount_point_above_the_path(
    path: str, mount: str, kind: str, source: str
) -> None:
    assert provenance.mount_of(Path(path), MOUNTINFO) == {
        "mount": mount,
        "type": kind,
        "source": source,
    }


def test_no_mount_table_gives_no_mount() -> None:
    assert provenance.mount_of(Path("/x"), "") is None


def test_loaded_modules_come_from_the_module_system() -> None:
    assert provenance.loaded_modules({"LOADEDMODULES": "gcc/13:openmpi/4.1::ior/4"}) == [
        "gcc/13",
        "openmpi/4.1",
        "ior/4",
    ]
    assert provenance.loaded_modules({}) == []


def test_machine_facts_describe_this_machine() -> None:
    facts = provenance.machine_facts()
    assert facts["cpus"] == os.cpu_count()
    assert facts["python"] == ".".join(map(str, sys.version_info[:3]))
    assert str(facts["kernel"]).startswith("Linux ")
    assert int(str(facts["memory_bytes"])) > 2**20


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_definition_in_a_repository_has_its_revision_and_dirty_flag(tmp_path: Path) -> None:
    definition = tmp_path / "b.yaml"
    definition.write_text("name: b\n")

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.email=u@h", "-c", "user.name=u", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    git("init", "-q")
    git("add", "b.yaml")
    git("commit", "-qm", "first")
    clean = provenance.definition_facts(definition)
    assert clean["git_revision"] == git("rev-parse", "HEAD")
    assert clean["git_dirty"] is False
    assert clean["sha256"] == hashlib.sha256(b"name: b\n").hexdigest()
    definition.write_text("name: b2\n")
    assert provenance.definition_facts(definition)["git_dirty"] is True


def test_definition_outside_a_repository_has_only_its_hash(tmp_path: Path) -> None:
    definition = tmp_path / "b.yaml"
    definition.write_text("name: b\n")
    facts = provenance.definition_facts(definition)
    assert set(facts) == {"file", "sha256"}


def test_written_facts_read_back_and_a_damaged_file_reads_as_none(tmp_path: Path) -> None:
    provenance.write(tmp_path, {"machine": {"cpus": 2}})
    assert provenance.read(tmp_path) == {"machine": {"cpus": 2}}
    assert not list(tmp_path.glob("*.part"))
    (tmp_path / provenance.PROVENANCE).write_text("[1, 2")
    assert provenance.read(tmp_path) == {}
    provenance.write(tmp_path, {"machine": {"host": "nœud-7"}})  # UTF-8 beyond ASCII
    assert provenance.read(tmp_path) == {"machine": {"host": "nœud-7"}}
    for damaged in (b"\xff\xfe{", b"[" * 100_000, b"[1]"):  # not UTF-8, too deep, no facts
        (tmp_path / provenance.PROVENANCE).write_bytes(damaged)
        assert provenance.read(tmp_path) == {}


def test_a_run_records_and_info_shows_its_provenance(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(
        "name: prov\nparameters:\n  x: [1, 2]\nsteps:\n  run:\n    do: echo $x\n"
    )

    def jubex(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "jubex", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "LOADEDMODULES": "gcc/13:ior/4"},
        )
        return done.stdout

    jubex("run", "b.yaml")
    facts = json.loads((tmp_path / "runs" / "000000" / provenance.PROVENANCE).read_text())
    assert facts["modules"] == ["gcc/13", "ior/4"]
    assert facts["filesystem"]["path"] == str(tmp_path / "runs" / "000000")
    shown = jubex("info", "runs/000000", "--parametrisation")
    assert f"definition: {tmp_path / 'b.yaml'} (sha256 " in shown
    assert "machine: " in shown and "file system: " in shown
    assert "modules: gcc/13 ior/4" in shown
    assert "started: " in shown and "finished: " in shown
    header = next(line for line in shown.splitlines() if line.startswith("id "))
    assert header.split() == ["id", "step", "iteration", "state", "job", "nodes", "elapsed", "x"]
    as_json = json.loads(jubex("info", "runs/000000", "-f", "json"))
    assert as_json["provenance"]["modules"] == ["gcc/13", "ior/4"]


def test_a_run_made_in_ci_records_its_pipeline_and_nothing_else_of_the_job() -> None:
    from jubex.engine.provenance import ci_facts

    gitlab = {
        "CI_SERVER_URL": "https://gitlab.example.org",
        "CI_PIPELINE_URL": "https://gitlab.example.org/c/b/-/pipelines/7",
        "CI_COMMIT_SHA": "a" * 40,
        "CI_COMMIT_REF_NAME": "main",
        "CI_RUNNER_DESCRIPTION": "juwels-login",
        "CI_JOB_TOKEN": "glcbt-secret",
        "JUBEX_RESULTS_DB": "postgresql://u:pw@db/bench",
    }
    facts = ci_facts(gitlab)
    assert facts == {
        "system": "gitlab",
        "pipeline_url": "https://gitlab.example.org/c/b/-/pipelines/7",
        "commit": "a" * 40,
        "branch": "main",
        "runner": "juwels-login",
    }
    github = {"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "c/b", "GITHUB_RUN_ID": "9"}
    assert ci_facts(github)["pipeline_url"] == "https://github.com/c/b/actions/runs/9"
    assert ci_facts({"CI": "true"}) == {}
