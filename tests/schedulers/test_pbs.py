"""The PBS backend on captured outputs of real servers, and its command lines on real processes.

No PBS server runs here. The parsers read the captured outputs in tests/data/pbs (see
SOURCES.md there); the backend runs stand-in qsub/qstat/qdel executables that print those
outputs; and, with the test Slurm up, Slurm's Torque-style wrappers take its real commands.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.platform.load import load_platform
from jubex.schedulers.base import JobSpec, JobState, JobStatus, SchedulerError
from jubex.schedulers.pbs import (
    PBSScheduler,
    job_status,
    match,
    parse_json,
    parse_text,
    submit_arguments,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "pbs"


def captured(name: str) -> str:
    return (DATA / name).read_text()


def test_running_two_node_job_from_pbs_pro_19_json() -> None:
    jobs = parse_json(captured("pbspro-19.0-running-2nodes.json"))
    (job_id,) = jobs
    assert job_id == "12860476.meta-pbs.metacentrum.cz"
    assert job_status(job_id, jobs[job_id]).state is JobState.RUNNING


def test_finished_job_from_pbs_pro_2022_json_completes_with_exit_0() -> None:
    jobs = parse_json(captured("pbspro-2022-finished.json"))
    job_id = "2154.edtb-01.mcp.alcf.anl.gov"
    assert job_status(job_id, jobs[job_id]) == JobStatus(
        job_id, JobState.COMPLETED, 0, jobs[job_id]["comment"]
    )


def test_json_without_jobs_means_no_job_known() -> None:
    assert parse_json(captured("pbspro-2024-finished-without-x.json")) == {}


def test_broken_json_is_a_clear_error_not_a_traceback() -> None:
    with pytest.raises(SchedulerError, match="qsub -V"):
        # a raw line break inside a string, as qstat prints exported shell functions
        parse_json('{"Jobs": {"4.s": {"Variable_List": {"BASH_FUNC_m%%": "() {  echo\n}"}}}}')


def test_pbs_pro_text_and_torque_text_read_alike() -> None:
    pro = parse_text(captured("pbspro-19.1-running.txt"))
    assert pro["4.scheduler"]["Resource_List.select"] == "1"
    assert job_status("4.scheduler", pro["4.scheduler"]).state is JobState.RUNNING
    torque = parse_text(captured("torque-completed-exit1.txt"))
    assert job_status("621804", torque["621804"]) == JobStatus("621804", JobState.FAILED, 1, "")


def test_slurm_wrapper_text_with_tabs_and_no_exit_status() -> None:
    jobs = parse_text(captured("slurm-torque-wrapper-qstat-f.txt"))
    assert job_status("235", jobs["235"]).state is JobState.RUNNING
    assert job_status("236", jobs["236"]) == JobStatus(
        "236", JobState.COMPLETED, None, "no exit status reported"
    )


def test_wrapped_long_values_are_joined() -> None:
    # qstat -f wraps long values; continuation lines are indented deeper (synthetic sample
    # in the layout of openpbs/openpbs#2541)
    text = (
        "Job Id: 7.s\n    Variable_List = PBS_O_HOME=/home/a,\n\tPBS_O_LANG=C\n    job_state = Q\n"
    )
    job = parse_text(text)["7.s"]
    assert job["Variable_List"] == "PBS_O_HOME=/home/a,PBS_O_LANG=C"
    assert job["job_state"] == "Q"


@pytest.mark.parametrize(
    ("attributes", "state", "exit_code"),
    [
        ({"job_state": "Q"}, JobState.PENDING, None),
        ({"job_state": "H"}, JobState.PENDING, None),
        ({"job_state": "B"}, JobState.RUNNING, None),
        ({"job_state": "E", "Exit_status": 0}, JobState.RUNNING, None),
        ({"job_state": "F", "Exit_status": 0}, JobState.COMPLETED, 0),
        ({"job_state": "F", "Exit_status": 3}, JobState.FAILED, 3),
        ({"job_state": "X", "Exit_status": 2}, JobState.FAILED, 2),
        ({"job_state": "F", "Exit_status": -29}, JobState.TIMEOUT, None),
        ({"job_state": "C", "exit_status": "-11"}, JobState.TIMEOUT, None),
        ({"job_state": "F", "Exit_status": 271}, JobState.CANCELLED, 143),
        ({"job_state": "F", "Exit_status": 267}, JobState.FAILED, 139),
        ({"job_state": "F", "Exit_status": -3}, JobState.FAILED, None),
        ({"job_state": "F"}, JobState.CANCELLED, None),
        ({"job_state": "M"}, JobState.UNKNOWN, None),
    ],
)
def test_state_letters_and_exit_statuses(
    attributes: dict, state: JobState, exit_code: int | None
) -> None:
    status = job_status("1.s", attributes)
    assert (status.state, status.exit_code) == (state, exit_code)


@given(
    st.integers(1, 10**7),
    st.sampled_from(["", ".pbs01", ".srv.example.org"]),
    st.sampled_from(["", "[]", "[3]"]),
)
def test_ids_match_with_or_without_the_server_suffix(number: int, server: str, array: str) -> None:
    full = f"{number}{array}{server}"
    jobs = {full: {}, f"{number + 1}{array}{server}": {}}
    assert match(full, jobs) == full
    assert match(f"{number}{array}", jobs) == full
    assert match(f"{number + 2}{array}", jobs) is None


# ------------------------------------------------------- stand-in clients, real processes


def client(bin_dir: Path, name: str, script: str) -> str:
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text(f'#!/bin/sh\necho "$@" >> {bin_dir}/{name}.calls\n{script}\n')
    path.chmod(0o755)
    return str(path)


def calls(bin_dir: Path, name: str) -> list[str]:
    path = bin_dir / f"{name}.calls"
    return path.read_text().splitlines() if path.exists() else []


def test_pbs_pro_submit_uses_J_arrays_and_afterok(
    tmp_path: Path, spec: Callable[..., JobSpec]
) -> None:
    bin_dir = tmp_path / "bin"
    backend = PBSScheduler(
        qsub=client(bin_dir, "qsub", "echo 1234[].pbs01"),
        qstat=client(bin_dir, "qstat", "echo 'pbs_version = 2022.1.3'"),
        submit_args=["-l", "filesystems=home"],
    )
    job = spec(
        array_size=4,
        depends_on=("77.pbs01", "78.pbs01"),
        time_limit_s=3661,
        directives={"place": "scatter"},
    )
    assert backend.submit(job) == "1234[].pbs01"
    assert calls(bin_dir, "qsub") == [
        f"-N wp-1 -J 0-3 -W depend=afterok:77.pbs01:78.pbs01 -l walltime=01:01:01 "
        f"-l place=scatter -l filesystems=home {job.script}"
    ]


def test_torque_submit_uses_t_arrays(tmp_path: Path, spec: Callable[..., JobSpec]) -> None:
    bin_dir = tmp_path / "bin"
    backend = PBSScheduler(qsub=client(bin_dir, "qsub", "echo 99.torque"), flavour="torque")
    assert backend.submit(spec(array_size=2)) == "99.torque"
    assert calls(bin_dir, "qsub")[0].startswith("-N wp-1 -t 0-1 ")


def test_an_exclusive_job_asks_for_whole_nodes(
    tmp_path: Path, spec: Callable[..., JobSpec]
) -> None:
    """PBS Pro places it on nodes of its own (place=...:excl), Torque with -n."""
    bin_dir = tmp_path / "bin"
    pro = PBSScheduler(
        qsub=client(bin_dir, "qsub", "echo 1.pbs01"),
        qstat=client(bin_dir, "qstat", "echo 'pbs_version = 2022.1.3'"),
    )
    job = spec(exclusive=True)
    pro.submit(job)
    assert calls(bin_dir, "qsub") == [f"-N wp-1 -l place=scatter:excl {job.script}"]
    assert submit_arguments(job, "torque") == ["-N", "wp-1", "-n"]


def test_one_qstat_call_answers_for_known_and_unknown_ids(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    json_file = DATA / "pbspro-19.0-running-2nodes.json"
    qstat = client(
        bin_dir,
        "qstat",
        f"""case "$1" in --version) echo 'pbs_version = 19.0.0';;
    *) cat {json_file}; echo 'qstat: Unknown Job Id 5.meta-pbs.metacentrum.cz' >&2
       exit 153;; esac""",
    )
    backend = PBSScheduler(qstat=qstat)
    statuses = backend.poll(["12860476.meta-pbs.metacentrum.cz", "5.meta-pbs.metacentrum.cz"])
    assert list(statuses) == ["12860476.meta-pbs.metacentrum.cz"]
    assert statuses["12860476.meta-pbs.metacentrum.cz"].state is JobState.RUNNING
    assert calls(bin_dir, "qstat")[1].split() == [
        "-x",
        "-f",
        "-F",
        "json",
        "12860476.meta-pbs.metacentrum.cz",
        "5.meta-pbs.metacentrum.cz",
    ]


def test_a_server_without_json_falls_back_to_text_once(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    text_file = DATA / "pbspro-19.1-running.txt"
    qstat = client(
        bin_dir,
        "qstat",
        f"""case "$*" in --version) echo 'pbs_version = 13.1';;
    *json*) echo 'qstat: invalid option -- F' >&2; echo 'usage: qstat [-f]' >&2; exit 2;;
    *) cat {text_file};; esac""",
    )
    backend = PBSScheduler(qstat=qstat)
    assert backend.poll(["4.scheduler"])["4.scheduler"].state is JobState.RUNNING
    assert backend.poll(["4"])["4"].state is JobState.RUNNING
    assert [c for c in calls(bin_dir, "qstat") if "json" in c] == ["-x -f -F json 4.scheduler"]


def test_qdel_of_finished_jobs_is_not_an_error_but_a_refused_one_is(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    gone = client(bin_dir, "qdel", "echo 'qdel: Job has finished 5.s' >&2; exit 35")
    PBSScheduler(qdel=gone, flavour="pro").cancel(["5.s", "6.s"])
    assert calls(bin_dir, "qdel") == ["5.s 6.s"]
    refused = client(tmp_path / "b2", "qdel", "echo 'qdel: Unauthorized Request 5.s' >&2; exit 159")
    with pytest.raises(SchedulerError, match="Unauthorized"):
        PBSScheduler(qdel=refused, flavour="pro").cancel(["5.s"])


def test_connection_trouble_is_transient(tmp_path: Path, spec: Callable[..., JobSpec]) -> None:
    qsub = client(
        tmp_path / "bin",
        "qsub",
        "echo 'pbs_iff: cannot connect to host' >&2; echo 'qsub: Invalid credential' >&2; exit 171",
    )
    with pytest.raises(SchedulerError) as caught:
        PBSScheduler(qsub=qsub, flavour="torque").submit(spec())
    assert caught.value.transient


@pytest.mark.parametrize(
    ("message", "limit"),
    [
        ("qsub: would exceed queue generic's per-user limit", True),
        ("qsub: Maximum number of jobs already in queue", True),
        ("qsub: Maximum number of jobs for user alice already in queue batch", True),
        ("qsub: Job exceeds queue resource limits MSG=cannot satisfy queue max walltime", False),
    ],
)
def test_a_refusal_over_a_limit_of_jobs_is_told_apart(
    tmp_path: Path, spec: Callable[..., JobSpec], message: str, limit: bool
) -> None:
    qsub = client(tmp_path / "bin", "qsub", f'echo "{message}" >&2; exit 38')
    with pytest.raises(SchedulerError) as caught:
        PBSScheduler(qsub=qsub, flavour="pro").submit(spec())
    assert caught.value.limit is limit and not caught.value.transient


def test_find_selects_the_users_jobs_and_reads_their_names(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    backend = PBSScheduler(
        qselect=client(bin_dir, "qselect", "echo 12860476.meta-pbs.metacentrum.cz"),
        qstat=client(
            bin_dir,
            "qstat",
            f"""case "$1" in --version) echo 'pbs_version = 19.0.0';;
        *) cat {DATA / "pbspro-19.0-running-2nodes.json"};; esac""",
        ),
    )
    assert backend.find(["swrap_01", "other"]) == {"swrap_01": "12860476.meta-pbs.metacentrum.cz"}
    assert calls(bin_dir, "qselect")[0].endswith("-x")


# ------------------------------------------- Slurm's Torque-style wrappers (real Slurm)


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_commands_are_accepted_by_slurms_pbs_wrappers(tmp_path: Path) -> None:
    if shutil.which("qsub") is None and not os.environ.get("CI"):
        pytest.skip("Slurm's PBS wrappers are not installed (apt-get install slurm-wlm-torque)")
    platform = load_platform("pbs")
    resolved = platform.resolve({"time": "5m"})
    torque = platform.template.replace(
        "#PBS -l select={{ nodes }}:ncpus={{ tasks_per_node * threads }}:mpiprocs="
        "{{ tasks_per_node }}:ompthreads={{ threads }}{% if memory_mb %}:mem={{ memory_mb }}mb"
        "{% endif +%}\n#PBS -l place=scatter\n",
        "#PBS -l nodes={{ nodes }}:ppn={{ tasks_per_node }}\n",
    )
    assert torque != platform.template
    platform.template = torque
    backend = PBSScheduler(flavour="torque")
    ids = []
    for body in ("echo done", "sleep 300"):
        script = tmp_path / f"job{len(ids)}.sh"
        script.write_text(
            platform.job_script(
                name=f"jubex-pbs-{len(ids)}",
                body=body,
                resolved=resolved,
                workdir=tmp_path,
                stdout=tmp_path / "o",
                stderr=tmp_path / "e",
            )
        )
        ids.append(
            backend.submit(
                JobSpec(
                    name=f"jubex-pbs-{len(ids)}",
                    script=script,
                    workdir=tmp_path,
                    stdout=tmp_path / "o",
                    stderr=tmp_path / "e",
                )
            )
        )
    deadline = time.monotonic() + 60
    while (statuses := backend.poll(ids)) and not (
        statuses.get(ids[0], JobStatus("", JobState.UNKNOWN)).state.finished
        and statuses.get(ids[1], JobStatus("", JobState.UNKNOWN)).state is JobState.RUNNING
    ):
        assert time.monotonic() < deadline, statuses
        time.sleep(0.5)
    assert statuses[ids[0]].state is JobState.COMPLETED
    backend.cancel([ids[1]])
