"""The LSF and Flux backends on outputs in their documented forms (tests/data/lsf and
tests/data/flux; SOURCES.md there says where each comes from: no LSF or Flux runs here),
their command lines on stand-in clients that log what they were called with."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from jubex.engine.arrays import INDEX
from jubex.platform.load import load_platform
from jubex.schedulers.base import JobSpec, JobState, SchedulerError
from jubex.schedulers.flux import FluxScheduler, parse_jobs
from jubex.schedulers.flux import submit_arguments as flux_arguments
from jubex.schedulers.lsf import LSFScheduler, parse_bjobs
from jubex.schedulers.lsf import submit_arguments as lsf_arguments
from jubex.schedulers.registry import scheduler_for

DATA = Path(__file__).resolve().parents[1] / "data"


def data(kind: str, name: str) -> str:
    return (DATA / kind / name).read_text()


def stand_in(tmp_path: Path, name: str, out: str = "", err: str = "", code: int = 0) -> str:
    """A client that logs its arguments and standard input, then answers as given."""
    path = tmp_path / name
    log = tmp_path / f"{name}.log"
    path.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$*" >> {shlex.quote(str(log))}\n'
        f"[ -t 0 ] || cat >> {shlex.quote(str(log))}.stdin\n"
        f"printf %s {shlex.quote(out)}\nprintf %s {shlex.quote(err)} >&2\nexit {code}\n"
    )
    path.chmod(0o755)
    return str(path)


def job(tmp_path: Path, **extra: object) -> JobSpec:
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\n#BSUB -J x\necho hi\n")
    spec = JobSpec("jx-1", script, tmp_path, tmp_path / "o", tmp_path / "e")
    return JobSpec(**{**spec.__dict__, **extra})


# ------------------------------------------------------------------------------- LSF


def test_bjobs_states_exit_codes_reasons_and_array_elements() -> None:
    found = parse_bjobs(data("lsf", "bjobs-mixed.txt"))
    assert {k: (v.state, v.exit_code) for k, v in found.items()} == {
        "4101": (JobState.PENDING, None),
        "4102": (JobState.RUNNING, None),
        "4103": (JobState.COMPLETED, 0),
        "4104": (JobState.FAILED, 3),
        "4105": (JobState.TIMEOUT, 140),
        "4106": (JobState.CANCELLED, 130),
        "4107": (JobState.PENDING, None),
        "4108": (JobState.UNKNOWN, None),
        "1[1]": (JobState.COMPLETED, 0),
        "1[2]": (JobState.RUNNING, None),
        "1[3]": (JobState.PENDING, None),
        "1[4]": (JobState.PENDING, None),
    }
    assert "TERM_RUNLIMIT" in found["4105"].reason


def test_bsub_reads_the_script_on_stdin_and_gives_the_id(tmp_path: Path) -> None:
    bsub = stand_in(tmp_path, "bsub", data("lsf", "bsub-submitted.stdout"))
    spec = job(tmp_path, depends_on=("41", "42"), time_limit_s=3601)
    assert LSFScheduler(bsub=bsub).submit(spec) == "9148559"
    argv = (tmp_path / "bsub.log").read_text()
    assert "-J jx-1 -o" in argv and "-w done(41) && done(42)" in argv and "-W 61" in argv
    assert (tmp_path / "bsub.log.stdin").read_text() == spec.script.read_text()
    array = stand_in(tmp_path, "bsub2", data("lsf", "bsub-array.stdout"))
    assert LSFScheduler(bsub=array).submit(job(tmp_path, array_size=4)) == "1"
    assert "-J jx-1[1-4]" in (tmp_path / "bsub2.log").read_text()
    assert LSFScheduler().array_task_id("1", 0) == "1[1]"


def test_one_bjobs_for_many_and_forgotten_ids_are_absent(tmp_path: Path) -> None:
    bjobs = stand_in(
        tmp_path,
        "bjobs",
        data("lsf", "bjobs-mixed.txt"),
        data("lsf", "bjobs-not-found.stderr"),
        255,
    )
    found = LSFScheduler(bjobs=bjobs).poll(["4102", "4105", "1[3]", "4199"])
    assert set(found) == {"4102", "4105", "1[3]"}
    (call,) = (tmp_path / "bjobs.log").read_text().splitlines()
    assert call.endswith("4102 4105 1 4199"), "an array is asked for once, by its id"


def test_lsf_down_is_transient_a_threshold_a_limit_and_finished_jobs_no_error(
    tmp_path: Path,
) -> None:
    down = stand_in(tmp_path, "bjobs", err=data("lsf", "bjobs-daemon-down.stderr"), code=255)
    with pytest.raises(SchedulerError) as caught:
        LSFScheduler(bjobs=down).poll(["1"])
    assert caught.value.transient
    full = stand_in(tmp_path, "bsub", err=data("lsf", "bsub-threshold.stderr"), code=255)
    with pytest.raises(SchedulerError) as caught:
        LSFScheduler(bsub=full).submit(job(tmp_path))
    assert caught.value.limit
    bkill = stand_in(tmp_path, "bkill", err=data("lsf", "bkill-mixed.txt"), code=255)
    LSFScheduler(bkill=bkill).cancel(["4102", "4103"])
    assert (tmp_path / "bkill.log").read_text() == "4102 4103\n"


# ------------------------------------------------------------------------------ Flux


def test_flux_jobs_status_and_returncode() -> None:
    found = parse_jobs(data("flux", "jobs-mixed.txt"))
    assert {k: (v.state, v.exit_code) for k, v in found.items()} == {
        "ƒ3croSDd": (JobState.PENDING, None),
        "ƒ3ctHRVy": (JobState.RUNNING, None),
        "ƒAiVi2Sj": (JobState.PENDING, None),
        "ƒuAsjAo": (JobState.COMPLETED, 0),
        "ƒcbUvuHDCiB": (JobState.FAILED, 42),
        "ƒ2DxUgXQ": (JobState.FAILED, 1),
        "ƒ2FmDYDm": (JobState.CANCELLED, 143),
        "ƒ2GuKPgK": (JobState.TIMEOUT, 256),
        "ƒ2JVbHCh": (JobState.RUNNING, None),
    }


def test_flux_batch_polls_in_one_call_and_cancels_what_is_left(tmp_path: Path) -> None:
    flux = stand_in(tmp_path, "flux", data("flux", "batch-submitted.stdout"))
    spec = job(tmp_path, depends_on=("ƒuAsjAo",), time_limit_s=59)
    assert FluxScheduler(flux=flux).submit(spec) == "ƒcbUvuHDCiB"
    argv = (tmp_path / "flux.log").read_text()
    assert argv.startswith("batch --job-name=jx-1 ") and "--dependency=afterok:ƒuAsjAo" in argv
    assert "--time-limit=1m" in argv and argv.rstrip().endswith(str(spec.script))
    jobs = stand_in(tmp_path, "flux2", data("flux", "jobs-mixed.txt"))
    found = FluxScheduler(flux=jobs).poll(["ƒ3ctHRVy", "ƒ2GuKPgK", "ƒnone"])
    assert set(found) == {"ƒ3ctHRVy", "ƒ2GuKPgK"}
    assert FluxScheduler(flux=jobs).find(["jx1-4", "other"]) == {"jx1-4": "ƒcbUvuHDCiB"}
    gone = stand_in(tmp_path, "flux3", err=data("flux", "cancel-inactive.stderr"), code=1)
    FluxScheduler(flux=gone).cancel(["ƒuAsjAo"])
    down = stand_in(tmp_path, "flux4", err=data("flux", "jobs-no-broker.stderr"), code=1)
    with pytest.raises(SchedulerError) as caught:
        FluxScheduler(flux=down).poll(["ƒ3ctHRVy"])
    assert caught.value.transient


# ------------------------------------------------------------------------ platforms


@pytest.mark.parametrize(("name", "directive"), [("lsf", "#BSUB"), ("flux", "#FLUX:")])
def test_the_shipped_platforms_write_their_directives(name: str, directive: str) -> None:
    platform = load_platform(name)
    assert scheduler_for(platform).name == name
    text = platform.job_script(
        name="jx-9",
        body="echo hi",
        resolved=platform.resolve({"time": "1:30:00", "partition": "pbatch"}),
        workdir=Path("/w"),
        stdout=Path("/w/o"),
        stderr=Path("/w/e"),
    )
    lines = text.splitlines()
    assert any(line.startswith(f"{directive} ") and "jx-9" in line for line in lines)
    assert any(line.startswith(directive) and "90" in line for line in lines), "the time"
    assert any(line.startswith(directive) and "pbatch" in line for line in lines)


def test_an_lsf_array_task_finds_its_workpackage_from_lsb_jobindex(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run(
        ["/bin/sh", "-c", f'echo "{INDEX}"'],
        env={"LSB_JOBINDEX": "3", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "2\n"


def test_an_exclusive_job_asks_for_whole_nodes() -> None:
    """LSF's -x and Flux's --exclusive: no other job shares the job's nodes."""
    job = JobSpec("wp-1", Path("job.sh"), Path("."), Path("o"), Path("e"), exclusive=True)
    assert "-x" in lsf_arguments(job) and "-x" not in lsf_arguments(replace(job, exclusive=False))
    assert "--exclusive" in flux_arguments(job)
    assert "--exclusive" not in flux_arguments(replace(job, exclusive=False))
