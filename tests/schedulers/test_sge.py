"""The Grid Engine backend: its parsers on outputs of a real Grid Engine (tests/data/sge,
captured on the one ``ci/start-local-sge.sh`` starts), its command lines and error handling
on scripted clients, and real jobs on that Grid Engine."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.platform.load import load_platform
from jubex.schedulers.base import JobSpec, JobState, JobStatus, SchedulerError
from jubex.schedulers.registry import scheduler_for
from jubex.schedulers.sge import (
    SGEScheduler,
    accounted_status,
    parse_qacct,
    parse_qstat,
    submit_arguments,
    task_ids,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "sge"


def read(name: str) -> str:
    return (DATA / name).read_text()


def test_running_jobs_are_running() -> None:
    found = parse_qstat(read("qstat-running.xml"))
    assert {k: v.state for k, v in found.items()} == {
        "4": JobState.RUNNING,
        "5": JobState.RUNNING,
        "6": JobState.RUNNING,
    }


def test_array_tasks_running_and_pending_held_and_waiting_jobs() -> None:
    found = parse_qstat(read("qstat-array-held-pending.xml"))
    assert {k: v.state for k, v in found.items()} == {
        "7.1": JobState.RUNNING,
        "7.2": JobState.RUNNING,
        "7.3": JobState.RUNNING,
        "7.4": JobState.RUNNING,
        "7.5": JobState.PENDING,
        "7.6": JobState.PENDING,
        "9": JobState.PENDING,
        "8": JobState.PENDING,  # hqw: held
    }


def test_a_job_in_error_state_is_failed_with_its_state() -> None:
    text = read("qstat-running.xml").replace("<state>r</state>", "<state>Eqw</state>", 1)
    status = parse_qstat(text)["4"]
    assert status.state is JobState.FAILED and status.reason == "Grid Engine state Eqw"


@given(st.lists(st.tuples(st.integers(1, 50), st.integers(0, 20), st.integers(1, 4)), max_size=5))
def test_task_ranges_expand_as_grid_engine_writes_them(spans: list[tuple[int, int, int]]) -> None:
    text = ",".join(f"{a}-{a + n}:{s}" if n else str(a) for a, n, s in spans)
    expected = [t for a, n, s in spans for t in range(a, a + n + 1, s)]
    assert list(task_ids(text)) == expected


def test_qacct_says_how_a_job_without_exit_status_ended() -> None:
    killed = accounted_status("4", parse_qacct(read("qacct-h_rt-killed.txt"))[0])
    assert killed.state is JobState.TIMEOUT and "h_rt" in killed.reason
    deleted = accounted_status("5", parse_qacct(read("qacct-deleted.txt"))[0])
    assert deleted.state is JobState.CANCELLED
    failed = accounted_status("3", parse_qacct(read("qacct-exit-3.txt"))[0])
    assert (failed.state, failed.exit_code) == (JobState.FAILED, 3)
    tasks = parse_qacct(read("qacct-array.txt"))
    assert sorted(r["taskid"] for r in tasks) == ["1", "2", "3"]
    assert {accounted_status("2", r).state for r in tasks} == {JobState.COMPLETED}


def test_command_line_of_a_job_and_of_an_array(tmp_path: Path) -> None:
    job = JobSpec("jx-1", tmp_path / "job.sh", tmp_path, tmp_path / "o", tmp_path / "e")
    argv = submit_arguments(job)
    assert argv[:3] == ["-terse", "-N", "jx-1"] and ["-wd", str(tmp_path)] == argv[7:9]
    array = JobSpec(
        "jx-a", tmp_path / "a.sh", tmp_path, tmp_path / "o", tmp_path / "e",
        array_size=5, time_limit_s=3661.5,
    )  # fmt: skip
    argv = submit_arguments(array)
    assert argv[argv.index("-t") + 1] == "1-5" and argv[argv.index("-l") + 1] == "h_rt=1:01:02"
    assert SGEScheduler().array_task_id("42", 0) == "42.1"


def test_an_exclusive_job_requests_the_complex_the_platform_names(tmp_path: Path) -> None:
    job = JobSpec(
        "jx-x", tmp_path / "x.sh", tmp_path, tmp_path / "o", tmp_path / "e", exclusive=True
    )
    assert "exclusive=true" not in submit_arguments(job)  # no standard flag: nothing to guess
    argv = submit_arguments(job, "excl_host")
    assert argv[argv.index("-l") + 1] == "excl_host=true"
    shared = JobSpec("jx-s", tmp_path / "s.sh", tmp_path, tmp_path / "o", tmp_path / "e")
    assert "-l" not in submit_arguments(shared, "excl_host")
    data = {"name": "site", "extends": "sge", "scheduler_options": {"exclusive_complex": "excl"}}
    (tmp_path / "site.yaml").write_text(json.dumps(data))
    backend = scheduler_for(load_platform(str(tmp_path / "site.yaml")))
    assert isinstance(backend, SGEScheduler) and backend.exclusive_complex == "excl"


def script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{text}\n")
    path.chmod(0o755)
    return str(path)


def test_a_qmaster_that_does_not_answer_is_transient_and_a_user_limit_a_limit(
    tmp_path: Path,
) -> None:
    down = read("qstat-no-qmaster.stderr")
    qstat = script(tmp_path, "qstat", f"cat >&2 <<'EOF'\n{down}EOF\nexit 1")
    with pytest.raises(SchedulerError) as caught:
        SGEScheduler(qstat=qstat).poll(["1"])
    assert caught.value.transient and not caught.value.limit
    limit = read("qsub-max-u-jobs.stderr")
    qsub = script(tmp_path, "qsub", f"cat >&2 <<'EOF'\n{limit}EOF\nexit 25")
    job = JobSpec("jx-1", tmp_path / "job.sh", tmp_path, tmp_path / "o", tmp_path / "e")
    with pytest.raises(SchedulerError) as caught:
        SGEScheduler(qsub=qsub).submit(job)
    assert caught.value.limit and not caught.value.transient


def test_the_shipped_platform_names_the_backend_and_writes_directives() -> None:
    platform = load_platform("sge")
    assert isinstance(scheduler_for(platform), SGEScheduler)
    text = platform.job_script(
        name="jx-9",
        body="echo hi",
        resolved=platform.resolve({"time": "1:30:00", "partition": "long"}),
        workdir=Path("/w"),
        stdout=Path("/w/o"),
        stderr=Path("/w/e"),
    )
    assert "#$ -N jx-9\n" in text and "#$ -l h_rt=01:30:00\n" in text and "#$ -q long\n" in text
    assert "#$ -wd /w\n" in text and text.rstrip().endswith("echo hi")


# ------------------------------------------------------------------ the real Grid Engine


@pytest.mark.sge
def test_real_jobs_run_fail_and_are_deleted(sge: Path, tmp_path: Path) -> None:
    backend = SGEScheduler(**{k: str(sge / k) for k in ("qsub", "qstat", "qdel", "qacct")})

    def submit(name: str, body: str, **extra: object) -> str:
        path = Path(script(tmp_path, f"{name}.sh", body))
        spec = JobSpec(name, path, tmp_path, tmp_path / f"{name}.o", tmp_path / f"{name}.e")
        return backend.submit(JobSpec(**{**spec.__dict__, **extra}))

    ok = submit("ok", "echo done")
    bad = submit("bad", "exit 3")
    # far longer than the test, and cancelled only once its script runs: a qdel that lands
    # while Grid Engine still hands the job to its host is lost (the job stays "dr", then
    # runs to its end and is accounted as exit 0), and a short job may end before the qdel
    started = tmp_path / "slow.started"
    slow = submit("slow", f"touch {started}; sleep 600")
    array = submit("arr", "echo task $SGE_TASK_ID", array_size=3, stdout=tmp_path / "arr.$TASK_ID")
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not started.exists():
            time.sleep(0.5)
        backend.cancel([slow])
        tasks = [f"{array}.{task}" for task in (1, 2, 3)]
        ended: dict[str, JobStatus] = {}
        # until qacct has the deleted job (qstat's "dr" has no reason)
        while time.monotonic() < deadline and not (len(ended) == 6 and ended[slow].reason):
            for job_id, status in backend.poll([ok, bad, slow, *tasks]).items():
                if status.state.finished:
                    ended[job_id] = status
            time.sleep(1)
    finally:
        subprocess.run([str(sge / "qdel"), slow], capture_output=True, check=False)
    assert started.exists() and ended[slow].reason == "deleted (qdel)"
    assert {job_id: status.state for job_id, status in ended.items()} == {
        ok: JobState.COMPLETED,
        bad: JobState.FAILED,
        slow: JobState.CANCELLED,
        **dict.fromkeys(tasks, JobState.COMPLETED),
    }
    assert (tmp_path / "ok.o").read_text() == "done\n"
    assert [(tmp_path / f"arr.{task}").read_text() for task in (1, 2, 3)] == [
        "task 1\n",
        "task 2\n",
        "task 3\n",
    ]
    # deleting jobs that are gone (finished, deleted, never known: qdel exits 1) is no error,
    # and changes no outcome
    backend.cancel([ok, slow, "999999"])
    again = {job_id: status.state for job_id, status in backend.poll([ok, slow]).items()}
    assert again == {ok: JobState.COMPLETED, slow: JobState.CANCELLED}
    assert backend.find(["ok", "nothing"]) == {}
    assert os.environ["SGE_ROOT"]


@pytest.mark.sge
def test_real_exclusive_job_keeps_the_host_to_itself(sge: Path, tmp_path: Path) -> None:
    """ci/start-local-sge.sh defines the EXCL complex ``exclusive`` on its one host. A
    first job waits (at most 10 s) for a second one submitted while it runs: beside a
    shared job it starts, beside an exclusive one it does not until the first has ended."""
    clients = {k: str(sge / k) for k in ("qsub", "qstat", "qdel", "qacct")}
    backend = SGEScheduler(**clients, exclusive_complex="exclusive")

    def pair(exclusive: bool) -> str:
        first, second = tmp_path / f"first-{exclusive}", tmp_path / f"second-{exclusive}"
        wait = (
            f"touch {first}.started; i=0\n"
            f"while [ ! -e {second} ] && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done\n"
            f"if [ -e {second} ]; then echo shared; else echo alone; fi"
        )
        jobs = [
            JobSpec(f"first{exclusive:d}", Path(script(tmp_path, f"f{exclusive}.sh", wait)),
                    tmp_path, Path(f"{first}.o"), Path(f"{first}.e"), exclusive=exclusive),
        ]  # fmt: skip
        ids = [backend.submit(jobs[0])]
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not Path(f"{first}.started").exists():
            time.sleep(0.5)
        body = f"touch {second}"
        ids.append(backend.submit(JobSpec(f"second{exclusive:d}",
            Path(script(tmp_path, f"s{exclusive}.sh", body)), tmp_path,
            Path(f"{second}.o"), Path(f"{second}.e"))))  # fmt: skip
        while time.monotonic() < deadline and not second.exists():
            time.sleep(0.5)
        assert second.exists() and Path(f"{first}.started").exists()
        while time.monotonic() < deadline and not Path(f"{first}.o").read_text():
            time.sleep(0.5)
        return Path(f"{first}.o").read_text().strip()

    assert pair(exclusive=False) == "shared"
    assert pair(exclusive=True) == "alone"
