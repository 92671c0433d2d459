"""The Slurm backend: parsers on real squeue/sacct text, and the backend against a real Slurm."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.platform.load import load_platform
from jubex.schedulers.base import JobSpec, JobState, JobStatus, SchedulerError
from jubex.schedulers.registry import get_scheduler
from jubex.schedulers.slurm import (
    SlurmScheduler,
    _expand,
    collect,
    parse_accounting,
    parse_sacct,
    parse_squeue,
)

# Output of `squeue -h -t all -j ... -O JobArrayID:|,State:|,Reason:|,exit_code:|,Name:`
# and `sacct -c -n -P -o JobID,State,ExitCode`, captured from Slurm 22.05 (ci/start-local-slurm.sh).
SQUEUE = """\
1|FAILED|NonZeroExitCode|768|wrap
2|COMPLETED|None|0|wrap
3_0|COMPLETED|None|0|wrap
3_3|COMPLETED|None|0|wrap
7_[4-9]|PENDING|JobHeldUser|0|wrap
10|CANCELLED|None|15|wrap
11|RUNNING|None|0|a|name with | bar
"""
SACCT = """\
1|FAILED|3:0
2|COMPLETED|0:0
5|CANCELLED by 0|0:15
6|TIMEOUT|0:15
6.batch|CANCELLED|0:15
8|OUT_OF_MEMORY|0:125
"""


# `sacct -c -n -P -o JobID,NodeList,Elapsed,State,ExitCode,Start,End` and squeue's lines of
# the same fields, captured from the same Slurm
ACCOUNTING = """\
1|n[1-2]|00:00:01|COMPLETED|0:0|2026-11-24T02:06:17|2026-11-24T02:06:18
1.batch|n1|00:00:01|COMPLETED|0:0|2026-11-24T02:06:17|2026-11-24T02:06:18
4_2|n3|00:01:05|FAILED|3:0|2026-11-24T02:07:00|2026-11-24T02:08:05
9|n4|0:01|COMPLETED|0|2026-11-24T02:06:17|2026-11-24T02:06:18
"""


def test_accounting_records_name_nodes_and_times_of_the_jobs_asked_for() -> None:
    records = parse_accounting(ACCOUNTING, {"1", "4_2", "5"})
    assert records == {
        "1": {
            "nodes": "n[1-2]",
            "elapsed": "00:00:01",
            "state": "COMPLETED",
            "exit_code": "0:0",
            "start": "2026-11-24T02:06:17",
            "end": "2026-11-24T02:06:18",
        },
        "4_2": {
            "nodes": "n3",
            "elapsed": "00:01:05",
            "state": "FAILED",
            "exit_code": "3:0",
            "start": "2026-11-24T02:07:00",
            "end": "2026-11-24T02:08:05",
        },
    }
    assert parse_accounting("1|n1|0:01\n", {"1"}) == {}


def test_squeue_lines_map_states_exit_codes_and_reasons() -> None:
    statuses = parse_squeue(SQUEUE)
    assert statuses["1"] == JobStatus("1", JobState.FAILED, 3, "NonZeroExitCode")
    assert statuses["2"] == JobStatus("2", JobState.COMPLETED, 0, "")
    assert statuses["10"].state is JobState.CANCELLED and statuses["10"].exit_code == 128 + 15
    assert statuses["11"] == JobStatus("11", JobState.RUNNING, None, "")
    assert [statuses[f"7_{i}"].state for i in range(4, 10)] == [JobState.PENDING] * 6
    assert statuses["7_4"].reason == "JobHeldUser"


def test_sacct_lines_include_cancelled_by_and_skip_steps() -> None:
    statuses = parse_sacct(SACCT)
    assert statuses["1"] == JobStatus("1", JobState.FAILED, 3, "")
    assert statuses["5"] == JobStatus("5", JobState.CANCELLED, 143, "by 0")
    assert statuses["6"].state is JobState.TIMEOUT
    assert statuses["8"] == JobStatus("8", JobState.FAILED, 0, "OUT_OF_MEMORY")
    assert "6.batch" not in statuses


def test_an_array_id_answers_with_a_summary_and_every_task() -> None:
    statuses = parse_squeue(SQUEUE)
    answer = collect(["3", "7", "99"], statuses)
    assert answer["3"].state is JobState.COMPLETED
    assert answer["7"].state is JobState.PENDING
    assert {"3_0", "3_3", "7_4", "7_9"} <= set(answer) and "99" not in answer
    failed = collect(
        ["1"],
        {
            "1_0": JobStatus("1_0", JobState.COMPLETED, 0),
            "1_1": JobStatus("1_1", JobState.FAILED, 2),
        },
    )
    assert failed["1"].state is JobState.FAILED and "1 task(s) failed" in failed["1"].reason


@given(
    st.integers(0, 10**6),
    st.lists(st.tuples(st.integers(0, 500), st.integers(0, 20)), min_size=1, max_size=5),
    st.sampled_from(["", "%2", "%10"]),
)
def test_array_ranges_expand_to_each_task(base: int, ranges: list, limit: str) -> None:
    spec = ",".join(f"{a}-{a + n}" if n else str(a) for a, n in ranges)
    expected = {f"{base}_{i}" for a, n in ranges for i in range(a, a + n + 1)}
    assert set(_expand(f"{base}_[{spec}{limit}]")) == expected
    assert _expand(f"{base}_{ranges[0][0]}") == [f"{base}_{ranges[0][0]}"]


@given(
    st.sampled_from(
        [
            "PENDING",
            "RUNNING",
            "COMPLETED",
            "FAILED",
            "TIMEOUT",
            "NODE_FAIL",
            "OUT_OF_MEMORY",
            "PREEMPTED",
            "BOOT_FAIL",
            "DEADLINE",
            "SUSPENDED",
            "REQUEUED",
            "RESIZING",
            "REVOKED",
            "SPECIAL_EXIT",
            "COMPLETING",
            "CONFIGURING",
            "CANCELLED",
        ]
    ),
    st.integers(0, 255),
    st.integers(0, 64),
)
def test_every_slurm_state_maps_and_exit_codes_only_when_finished(
    state: str, code: int, signal: int
) -> None:
    status = parse_squeue(f"5|{state}|None|{code << 8 | signal}|n\n")["5"]
    assert status.state is not JobState.UNKNOWN
    if not status.state.finished:
        assert status.exit_code is None
    else:
        assert status.exit_code == (128 + signal if signal else code)


def fake(tmp_path: Path, name: str, body: str) -> str:
    """A stand-in client command (a real executable) that records its arguments."""
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/{name}.calls\n{body}\n')
    path.chmod(0o755)
    return str(path)


def test_submit_assembles_array_dependency_time_and_directives(
    tmp_path: Path, spec: Callable[..., JobSpec]
) -> None:
    sbatch = fake(tmp_path, "sbatch", "echo '42;cluster'")
    backend = SlurmScheduler(sbatch=sbatch, submit_args=["--qos=short"])
    job = spec(
        array_size=10,
        depends_on=("7", "8"),
        time_limit_s=61,
        directives={"constraint": "gpu", "exclusive": ""},
    )
    assert backend.submit(job) == "42"
    args = (tmp_path / "sbatch.calls").read_text().split()
    assert args == [
        "--parsable",
        "--job-name=wp-1",
        "--array=0-9",
        "--dependency=afterok:7:8",
        "--kill-on-invalid-dep=yes",
        "--time=2",
        "--constraint=gpu",
        "--exclusive",
        "--qos=short",
        str(job.script),
    ]


@pytest.mark.parametrize(
    ("message", "transient"),
    [
        ("sbatch: error: Batch job submission failed: Socket timed out on send/recv", True),
        ("sbatch: error: Slurm temporarily unable to accept job, sleeping and retrying", True),
        ("sbatch: error: Batch job submission failed: Invalid partition name specified", False),
    ],
)
def test_submit_failures_say_whether_a_retry_may_help(
    tmp_path: Path, spec: Callable[..., JobSpec], message: str, transient: bool
) -> None:
    backend = SlurmScheduler(sbatch=fake(tmp_path, "sbatch", f"echo '{message}' >&2; exit 1"))
    with pytest.raises(SchedulerError) as caught:
        backend.submit(spec())
    assert caught.value.transient is transient and message.split(": ")[-1] in str(caught.value)


@pytest.mark.parametrize(
    ("message", "limit"),
    [
        (
            "sbatch: error: QOSMaxSubmitJobPerUserLimit\n"
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
            "(job submit limit, user's size and/or time limits)",
            True,
        ),
        (
            "sbatch: error: AssocMaxSubmitJobLimit\n"
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
            "(job submit limit, user's size and/or time limits)",
            True,
        ),
        ("sbatch: error: Batch job submission failed: Invalid account or account/partition", False),
    ],
)
def test_a_refusal_over_a_limit_of_jobs_is_told_apart(
    tmp_path: Path, spec: Callable[..., JobSpec], message: str, limit: bool
) -> None:
    backend = SlurmScheduler(sbatch=fake(tmp_path, "sbatch", f'echo "{message}" >&2; exit 1'))
    with pytest.raises(SchedulerError) as caught:
        backend.submit(spec())
    assert caught.value.limit is limit and not caught.value.transient


def test_an_unreachable_controller_is_transient_and_a_missing_client_is_not(tmp_path: Path) -> None:
    squeue = fake(
        tmp_path,
        "squeue",
        "echo 'slurm_load_jobs error: Unable to contact slurm "
        "controller (connect failure)' >&2; exit 1",
    )
    with pytest.raises(SchedulerError) as caught:
        SlurmScheduler(squeue=squeue).poll(["1"])
    assert caught.value.transient
    with pytest.raises(SchedulerError, match="not found") as missing:
        SlurmScheduler(squeue=str(tmp_path / "nowhere")).poll(["1"])
    assert not missing.value.transient


def test_the_registry_builds_the_backend_with_platform_options() -> None:
    backend = get_scheduler("slurm", sbatch="/opt/slurm/bin/sbatch", timeout=5)
    assert isinstance(backend, SlurmScheduler) and backend.commands["sbatch"].endswith("sbatch")


# --------------------------------------------------------------------- the real Slurm


def unique(prefix: str) -> str:
    return f"jubex-test-{prefix}-{uuid.uuid4().hex[:8]}"


def job(tmp_path: Path, body: str, name: str | None = None, **resources: object) -> JobSpec:
    """A job script rendered from the shipped slurm platform, as the engine writes it."""
    platform = load_platform("slurm")
    name = name or unique("job")
    workdir = tmp_path / name
    workdir.mkdir()
    resolved = platform.resolve({k: str(v) for k, v in resources.items()})
    body = body.replace("LAUNCHER", platform.launcher_command(resolved))
    script = workdir / "job.sh"
    script.write_text(
        platform.job_script(
            name=name,
            body=body,
            resolved=resolved,
            workdir=workdir,
            stdout=workdir / "stdout",
            stderr=workdir / "stderr",
        )
    )
    return JobSpec(
        name=name,
        script=script,
        workdir=workdir,
        stdout=workdir / "stdout",
        stderr=workdir / "stderr",
    )


def wait(backend: SlurmScheduler, ids: list[str], timeout: float = 90) -> dict[str, JobStatus]:
    deadline = time.monotonic() + timeout
    while True:
        statuses = backend.poll(ids)
        if all(i in statuses and statuses[i].state.finished for i in ids):
            return statuses
        assert time.monotonic() < deadline, f"jobs not finished after {timeout} s: {statuses}"
        time.sleep(0.5)


def counting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *commands: str) -> Path:
    """Wrappers first on PATH that count each call of the real commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for command in commands:
        real = next(p for p in os.environ["PATH"].split(":") if (Path(p) / command).exists())
        (bin_dir / command).write_text(
            f'#!/bin/sh\necho x >> {bin_dir}/{command}.count\nexec {real}/{command} "$@"\n'
        )
        (bin_dir / command).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return bin_dir


def calls(bin_dir: Path, command: str) -> int:
    path = bin_dir / f"{command}.count"
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_a_job_runs_to_completed_with_exit_code_0(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    spec_ = job(tmp_path, "echo hello from $SLURM_JOB_ID")
    job_id = backend.submit(spec_)
    status = wait(backend, [job_id])[job_id]
    assert status == JobStatus(job_id, JobState.COMPLETED, 0, "")
    assert (spec_.workdir / "stdout").read_text() == f"hello from {job_id}\n"


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_a_failing_job_keeps_its_exit_code(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    job_id = backend.submit(job(tmp_path, "exit 3"))
    status = wait(backend, [job_id])[job_id]
    assert (status.state, status.exit_code) == (JobState.FAILED, 3)


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_a_two_node_job_starts_tasks_on_two_nodes_through_the_launcher(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    spec_ = job(
        tmp_path,
        "LAUNCHER bash -c 'echo task $SLURM_PROCID on $SLURMD_NODENAME'",
        nodes=2,
        tasks_per_node=2,
    )
    job_id = backend.submit(spec_)
    assert wait(backend, [job_id])[job_id].state is JobState.COMPLETED
    lines = (spec_.workdir / "stdout").read_text().splitlines()
    assert sorted(line.split()[1] for line in lines) == ["0", "1", "2", "3"]
    assert len({line.split()[-1] for line in lines}) == 2


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_an_array_of_ten_reports_each_task_and_a_summary(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    base = job(tmp_path, "echo $SLURM_ARRAY_TASK_ID > task.$SLURM_ARRAY_TASK_ID")
    spec_ = JobSpec(**{**vars(base), "array_size": 10})
    job_id = backend.submit(spec_)
    statuses = wait(backend, [job_id])
    assert statuses[job_id].state is JobState.COMPLETED
    assert {f"{job_id}_{i}" for i in range(10)} <= set(statuses)
    assert sorted(p.name for p in spec_.workdir.glob("task.*")) == sorted(
        f"task.{i}" for i in range(10)
    )


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_a_child_runs_after_its_parent_and_is_cancelled_when_the_parent_fails(
    tmp_path: Path,
) -> None:
    backend = SlurmScheduler()
    parent = backend.submit(job(tmp_path, f"sleep 2; touch {tmp_path}/parent.done"))
    child_spec = job(tmp_path, f"test -e {tmp_path}/parent.done")
    child = backend.submit(JobSpec(**{**vars(child_spec), "depends_on": (parent,)}))
    bad = backend.submit(job(tmp_path, "exit 1"))
    orphan_spec = job(tmp_path, "true")
    orphan = backend.submit(JobSpec(**{**vars(orphan_spec), "depends_on": (bad,)}))
    statuses = wait(backend, [parent, child, bad, orphan])
    assert statuses[child].state is JobState.COMPLETED
    assert statuses[bad].state is JobState.FAILED
    assert statuses[orphan].state is JobState.CANCELLED


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_several_jobs_are_cancelled_with_one_scancel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = counting(tmp_path, monkeypatch, "scancel")
    backend = SlurmScheduler()
    ids = [backend.submit(job(tmp_path, "sleep 300")) for _ in range(3)]
    backend.cancel(ids)
    assert calls(bin_dir, "scancel") == 1
    statuses = wait(backend, ids, timeout=60)
    assert {s.state for s in statuses.values()} == {JobState.CANCELLED}


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_polling_200_jobs_is_one_squeue_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = SlurmScheduler()
    base = job(tmp_path, "true")
    array = backend.submit(JobSpec(**{**vars(base), "array_size": 200}))
    ids = [f"{array}_{i}" for i in range(200)]
    bin_dir = counting(tmp_path, monkeypatch, "squeue", "sacct")
    statuses = backend.poll(ids)
    assert calls(bin_dir, "squeue") == 1
    assert set(statuses) == set(ids)
    wait(backend, [array], timeout=120)


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_find_knows_jobs_by_name_and_unknown_ids_are_absent(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    name = unique("find")
    job_id = backend.submit(job(tmp_path, "sleep 1", name=name))
    assert backend.find([name, unique("nobody")]) == {name: job_id}
    assert backend.poll(["999999"]) == {}
    wait(backend, [job_id])


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_the_completion_log_answers_for_finished_jobs(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    job_id = backend.submit(job(tmp_path, "exit 4"))
    wait(backend, [job_id])
    assert backend._accounting() in ("sacct", "jobcomp")
    assert backend._sacct([job_id])[job_id] == JobStatus(job_id, JobState.FAILED, 4, "")


@pytest.mark.slurm
@pytest.mark.slow
@pytest.mark.usefixtures("slurm")
@pytest.mark.waits
def test_a_job_over_its_time_limit_ends_in_timeout(tmp_path: Path) -> None:
    backend = SlurmScheduler()
    job_id = backend.submit(job(tmp_path, "sleep 600", time="1m"))
    status = wait(backend, [job_id], timeout=200)[job_id]
    assert status.state is JobState.TIMEOUT


def test_a_client_that_hangs_is_a_transient_error(tmp_path: Path) -> None:
    squeue = fake(tmp_path, "squeue", "sleep 5")
    with pytest.raises(SchedulerError, match=r"did not answer within 0\.3 s") as caught:
        SlurmScheduler(squeue=squeue, timeout=0.3).poll(["1"])
    assert caught.value.transient
