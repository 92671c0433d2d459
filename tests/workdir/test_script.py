"""The wrapper script, run by a real /bin/sh."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from jubex.workdir.script import (
    ALREADY_CLAIMED,
    CLAIM,
    EXIT,
    Command,
    read_exit,
    read_owner,
    release,
    reset,
    wrapper,
)


def write_wrapper(tmp_path: Path, *commands: str, local: bool = True) -> Path:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    text, _ = wrapper(
        wp_id=7,
        step="run",
        workdir=work,
        admin=tmp_path,
        commands=[Command(c) for c in commands],
        environment={"GREETING": "hello world"},
        local=local,
    )
    script = tmp_path / "body.sh"
    script.write_text(text)
    return script


def run(script: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(script)], capture_output=True, text=True, env=env or {}, check=False
    )


def test_a_wrapper_claims_runs_and_records_its_status(tmp_path: Path) -> None:
    script = write_wrapper(tmp_path, 'echo "$GREETING"', "echo second >&2")
    done = run(script)
    assert done.returncode == 0
    assert (tmp_path / EXIT).read_text() == "0\n"
    assert read_exit(tmp_path) == 0
    owner = read_owner(tmp_path)
    assert owner is not None and owner.isdigit()
    assert (tmp_path / "work" / "stdout").read_text() == "hello world\n"
    assert (tmp_path / "work" / "stderr").read_text() == "second\n"


def test_the_wrapper_needs_no_program_but_the_shell(tmp_path: Path) -> None:
    """With an empty PATH nothing but shell built-ins can run: claim and status still work."""
    done = run(write_wrapper(tmp_path, "echo ok"), env={"PATH": ""})
    assert done.returncode == 0, done.stderr
    assert read_exit(tmp_path) == 0
    assert (tmp_path / "work" / "stdout").read_text() == "ok\n"


def test_a_second_copy_finds_the_claim_taken_and_changes_nothing(tmp_path: Path) -> None:
    script = write_wrapper(tmp_path, "echo ran >> count")
    assert run(script).returncode == 0
    owner = read_owner(tmp_path)
    again = run(script)
    assert again.returncode == ALREADY_CLAIMED
    assert again.stderr == ""
    assert (tmp_path / "work" / "count").read_text() == "ran\n"
    assert read_owner(tmp_path) == owner
    assert read_exit(tmp_path) == 0


def test_the_first_failure_stops_the_commands_and_is_the_status(tmp_path: Path) -> None:
    script = write_wrapper(tmp_path, "echo one", "exit 5", "echo never")
    assert run(script).returncode == 5
    assert read_exit(tmp_path) == 5
    assert (tmp_path / "work" / "stdout").read_text() == "one\n"


def test_a_batch_wrapper_names_the_job_as_owner(tmp_path: Path) -> None:
    script = write_wrapper(tmp_path, "true", local=False)
    assert run(script, env={"SLURM_JOB_ID": "4242"}).returncode == 0
    assert read_owner(tmp_path) == "4242"
    reset(tmp_path)
    env = {"SLURM_JOB_ID": "99", "SLURM_ARRAY_JOB_ID": "90", "SLURM_ARRAY_TASK_ID": "3"}
    assert run(script, env=env).returncode == 0
    assert read_owner(tmp_path) == "90_3"


@pytest.mark.parametrize(
    ("text", "status"), [("", None), ("13", None), ("137\n", 137), ("x\n", None), ("0\n", 0)]
)
def test_a_status_counts_only_once_its_line_is_complete(
    tmp_path: Path, text: str, status: int | None
) -> None:
    (tmp_path / EXIT).write_text(text)
    assert read_exit(tmp_path) == status


def test_release_frees_a_workpackage_never_prepared(tmp_path: Path) -> None:
    assert release(tmp_path / "000007_run") is True
    assert not (tmp_path / "000007_run").exists()


def test_release_frees_only_an_unclaimed_workpackage(tmp_path: Path) -> None:
    (tmp_path / EXIT).write_text("")
    assert release(tmp_path) is True
    assert not (tmp_path / CLAIM).exists() and not (tmp_path / EXIT).exists()
    (tmp_path / CLAIM).write_text("1234\n")
    assert release(tmp_path) is False
    assert read_owner(tmp_path) == "1234"


def test_a_reset_workpackage_runs_again(tmp_path: Path) -> None:
    script = write_wrapper(tmp_path, "echo ran >> count")
    run(script)
    reset(tmp_path)
    assert run(script).returncode == 0
    assert (tmp_path / "work" / "count").read_text() == "ran\nran\n"
