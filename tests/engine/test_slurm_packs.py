"""Packed steps through ``jubex run`` on the real test Slurm: one job, many workpackages.

Executions are counted by a side effect of the workpackages themselves and ``sbatch`` calls
by a wrapper first on PATH, so "ran once" is checked from outside jubex.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from test_slurm_runs import (
    calls,
    definition,
    executions,
    jubex,
    no_job_left_behind,
    rows,
    run_args,
    squeue,
    start,
    until,
    wrappers,
)

pytestmark = [pytest.mark.slurm, pytest.mark.usefixtures("slurm")]
__all__ = ["no_job_left_behind"]

PACKED = """\
name: packed
parameters:
  n: {{range: {{start: 0, stop: {last}, step: 1}}}}
steps:
  work:
    pack: {size}
    do: {wait}echo "work$n" >> {executions}; echo "value $n job $SLURM_JOB_ID"
"""


EXCLUSIVE = """\
name: slurm-test
extends: slurm
scheduler_options: {poll_interval: 0.5, poll_max_interval: 2, submit_args: [--exclusive]}
"""


def packed(tmp_path: Path, size: int, count: int, wait: str = "") -> str:
    text = PACKED.format(last=count - 1, size=size, wait=wait, executions=tmp_path / "executions")
    return definition(tmp_path, text)


def test_a_packed_step_is_one_sbatch_per_pack_and_each_member_runs_once(
    tmp_path: Path,
) -> None:
    env = wrappers(tmp_path, {"sbatch": ""})
    done = jubex(tmp_path, *run_args(packed(tmp_path, 4, 10)), env=env)
    assert done.returncode == 0, done.stderr
    assert len(calls(tmp_path, "sbatch")) == 3
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["done"] * 10
    job_ids = [r[3] for r in found]
    assert job_ids[0:4] == [job_ids[0]] * 4 and job_ids[4:8] == [job_ids[4]] * 4
    assert job_ids[8:] == [job_ids[8]] * 2 and len(set(job_ids)) == 3
    assert executions(tmp_path) == sorted(f"work{n}" for n in range(10))
    for wp_id, _, _, job_id, _, _, params in found:
        out = tmp_path / f"runs/000000/{wp_id:06d}_work/work/stdout"
        assert out.read_text() == f"value {params['n']} job {job_id}\n"
    listed = jubex(tmp_path, "info", "runs/000000", "--parametrisation", "-f", "csv")
    assert listed.stdout.splitlines()[1].split(",")[:5] == ["0", "work", "0", "done", job_ids[0]]


def test_kill_minus_nine_while_packs_run_then_continue_runs_each_member_once(
    tmp_path: Path,
) -> None:
    go = tmp_path / "go"
    name = packed(tmp_path, 3, 9, wait=f"while [ ! -e {go} ]; do sleep 0.2; done; ")
    env = wrappers(tmp_path, {"sbatch": 'sleep 0.5; "$real" "$@"'})
    proc = start(tmp_path, *run_args(name), env=env)
    until(lambda: len(calls(tmp_path, "sbatch")) == 2, what="the second pack's sbatch")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    until(lambda: len(calls(tmp_path, "sbatch", "end")) == 2, what="sbatch in flight")
    settled = jubex(tmp_path, "continue", "runs/000000", "--no-wait", "-q", env=env)
    assert settled.returncode == 0, settled.stderr
    assert len(calls(tmp_path, "sbatch")) == 3  # the pack in flight was found, not repeated
    job_ids = [r[3] for r in rows(tmp_path)]
    assert len(set(job_ids)) == 3 and all(job_ids)
    go.touch()
    finished = jubex(tmp_path, "continue", "runs/000000", "-q", env=env)
    assert finished.returncode == 0, finished.stderr
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 9
    assert len(calls(tmp_path, "sbatch")) == 3
    assert executions(tmp_path) == sorted(f"work{n}" for n in range(9))


@pytest.mark.slow
@pytest.mark.waits
def test_a_pack_killed_by_its_time_limit_queues_its_unstarted_members_again(
    tmp_path: Path,
) -> None:
    """The first member hangs; the limit ends the pack; the other two run in a new pack.

    The scheduler signals the job's processes one by one: a member's command may turn the
    TERM into a status of its own (``sleep 600 || exit 1``, an MPI launcher whose ranks
    were killed) and its wrapper write that status before its own TERM comes. The member
    here writes it so itself, every time: its reason is still the time limit."""
    exit_file = tmp_path / "runs/000000/000000_work/exit"
    # ended by the limit before it records its execution
    hang = f'if [ "$n" = 0 ]; then trap "echo 1 > {exit_file}; exit 1" TERM; sleep 600 & wait; fi; '
    name = packed(tmp_path, 3, 3, wait=hang)
    env = wrappers(tmp_path, {"sbatch": ""})
    proc = start(tmp_path, *run_args(name), env=env)
    claim = tmp_path / "runs/000000/000000_work/claim"
    until(lambda: claim.exists() and claim.read_text().endswith("\n"), what="the first member")
    job_id = claim.read_text().strip()
    subprocess.run(["scontrol", "update", f"jobid={job_id}", "timelimit=0:01"], check=True)
    assert proc.wait(timeout=240) == 1
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["failed", "done", "done"]
    assert found[0][3] == job_id and found[1][3] == found[2][3] != job_id
    assert found[0][5] == f"time limit exceeded: the scheduler killed job {job_id}"
    assert squeue([job_id]) == {job_id: "TIMEOUT"}
    assert len(calls(tmp_path, "sbatch")) == 2
    assert executions(tmp_path) == ["work1", "work2"]


@pytest.mark.slow
@pytest.mark.waits
def test_a_node_lost_under_a_pack_runs_no_member_twice(tmp_path: Path) -> None:
    """Slurm kills the pack on the downed node and starts it again elsewhere (requeue)."""
    go = tmp_path / "go"
    name = packed(tmp_path, 3, 3, wait=f"while [ ! -e {go} ]; do sleep 0.2; done; ")
    # a node of its own, so that downing it ends no other test's job
    (tmp_path / "slurm-test.yaml").write_text(EXCLUSIVE)
    proc = start(tmp_path, *run_args(name), env=wrappers(tmp_path, {"sbatch": ""}))
    claim = tmp_path / "runs/000000/000000_work/claim"
    until(lambda: claim.exists() and claim.read_text().endswith("\n"), what="the first member")
    job_id = claim.read_text().strip()
    node = subprocess.run(
        ["squeue", "-h", "-j", job_id, "-o", "%N"], capture_output=True, text=True, check=True
    ).stdout.strip()
    down = ["scontrol", "update", f"nodename={node}", "state=down", "reason=jubex-test"]
    subprocess.run(down, check=True)
    try:
        until(lambda: squeue([job_id])[job_id] != "RUNNING", what="the pack to be killed")
        go.touch()
        assert proc.wait(timeout=240) == 1
    finally:
        resume = ["scontrol", "update", f"nodename={node}", "state=resume"]
        subprocess.run(resume, check=False)
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["failed", "done", "done"]
    # the member the node's loss interrupted: killed before or after its wrapper's last word
    assert found[0][5] == "exit status 143" or "without writing an exit status" in found[0][5]
    assert executions(tmp_path) == ["work1", "work2"]
    assert len(calls(tmp_path, "sbatch")) == 1


def test_a_pack_whose_sbatch_reply_was_lost_is_found_not_submitted_again(
    tmp_path: Path,
) -> None:
    """1st call: the pack got in but the reply was lost; 2nd: refused; then all is well."""
    flaky = (
        'n=$(grep -c "^start" "$0.log")\n'
        'if [ "$n" = 1 ]; then "$real" "$@" >/dev/null; fi\n'
        'if [ "$n" -le 2 ]; then\n'
        "  echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv' >&2\n"
        "  false\n"
        'else "$real" "$@"; fi'
    )
    env = wrappers(tmp_path, {"sbatch": flaky})
    done = jubex(tmp_path, *run_args(packed(tmp_path, 4, 8)), env=env)
    assert done.returncode == 0, done.stderr
    assert len(calls(tmp_path, "sbatch")) == 3  # the first pack once, the second twice
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["done"] * 8 and len({r[3] for r in found}) == 2
    assert executions(tmp_path) == sorted(f"work{n}" for n in range(8))


def test_a_node_drained_under_a_pack_lets_it_finish_and_each_member_runs_once(
    tmp_path: Path,
) -> None:
    go = tmp_path / "go"
    name = packed(tmp_path, 3, 6, wait=f"while [ ! -e {go} ]; do sleep 0.2; done; ")
    proc = start(tmp_path, *run_args(name), env=wrappers(tmp_path, {"sbatch": ""}))
    claim = tmp_path / "runs/000000/000000_work/claim"
    until(lambda: claim.exists() and claim.read_text().endswith("\n"), what="the first member")
    job_id = claim.read_text().strip()
    node = subprocess.run(
        ["squeue", "-h", "-j", job_id, "-o", "%N"], capture_output=True, text=True, check=True
    ).stdout.strip()
    drain = ["scontrol", "update", f"nodename={node}", "state=drain", "reason=jubex-test"]
    subprocess.run(drain, check=True)
    try:
        go.touch()
        assert proc.wait(timeout=120) == 0
    finally:
        resume = ["scontrol", "update", f"nodename={node}", "state=resume"]
        subprocess.run(resume, check=False)
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["done"] * 6 and found[0][3] == job_id
    assert executions(tmp_path) == sorted(f"work{n}" for n in range(6))
    assert len(calls(tmp_path, "sbatch")) == 2


def test_a_packed_step_s_shared_command_runs_once_after_every_member(tmp_path: Path) -> None:
    log = tmp_path / "executions"
    text = (
        "name: shared\nparameters:\n  n: [0, 1, 2, 3]\nsteps:\n  work:\n    pack: 3\n"
        "    shared: common\n"
        f"    do:\n      - echo work$n >> {log}\n"
        f"      - {{cmd: 'echo shared >> {log}', shared: true}}\n"
    )
    env = wrappers(tmp_path, {"sbatch": ""})
    done = jubex(tmp_path, *run_args(definition(tmp_path, text)), env=env)
    assert done.returncode == 0, done.stderr
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 5
    assert log.read_text().split()[-1] == "shared"
    assert executions(tmp_path) == ["shared", "work0", "work1", "work2", "work3"]
    assert len(calls(tmp_path, "sbatch")) == 3  # two packs, and the shared one's own job


@pytest.mark.slow
@pytest.mark.waits
def test_a_job_requeued_after_its_node_was_lost_fails_once_and_is_not_followed_forever(
    tmp_path: Path,
) -> None:
    """The requeued job finds its own claim (status 97): its first run was lost."""
    go, shell = tmp_path / "go", tmp_path / "shell"
    text = (
        f"name: requeued\nsteps:\n  run:\n"
        f"    do: sh -c 'echo $PPID' > {shell}; while [ ! -e {go} ]; do sleep 0.2; done; "
        f"echo ran >> {tmp_path / 'executions'}\n"
    )
    definition(tmp_path, text)
    (tmp_path / "slurm-test.yaml").write_text(EXCLUSIVE)
    proc = start(tmp_path, *run_args("def.yaml"), env=wrappers(tmp_path, {"sbatch": ""}))
    claim = tmp_path / "runs/000000/000000_run/claim"
    until(lambda: claim.exists() and claim.read_text().endswith("\n"), what="the job to start")
    job_id = claim.read_text().strip()
    node = subprocess.run(
        ["squeue", "-h", "-j", job_id, "-o", "%N"], capture_output=True, text=True, check=True
    ).stdout.strip()
    down = ["scontrol", "update", f"nodename={node}", "state=down", "reason=jubex-test"]
    subprocess.run(down, check=True)
    try:
        until(lambda: squeue([job_id])[job_id] != "RUNNING", what="the job to be killed")
        # Slurm may list the job as requeued while its first run's shell still lives (a
        # loaded machine): that run must be gone before it is let through
        until(lambda: shell.exists() and shell.read_text().endswith("\n"), what="the shell")
        first = int(shell.read_text())
        until(lambda: not _alive(first), what="the first run's shell to end")
        go.touch()
        assert proc.wait(timeout=240) == 1
    finally:
        resume = ["scontrol", "update", f"nodename={node}", "state=resume"]
        subprocess.run(resume, check=False)
    ((_, _, state, _, _, reason, _),) = rows(tmp_path)
    assert state == "failed"
    # the requeued job finds its claim; or, when jubex reads the killed first run's
    # status (SIGTERM, 143) before Slurm requeues it, that is the reason: failed either way
    assert reason in (
        f"job {job_id} was requeued after it had started; its first run was lost",
        "exit status 143",
    )
    assert executions(tmp_path) == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


SIDE_BY_SIDE = """\
name: lanes
parameters:
  n: [0, 1, 2, 3]
steps:
  work:
    pack: {{size: 4, nodes: 2}}
    do: |
      echo "work$n" >> {executions}
      echo "$n $(date +%s.%N) $SLURM_JOB_NUM_NODES" >> {times}
      $launcher sleep 2
      echo "$n $(date +%s.%N) end" >> {times}
"""


def test_a_pack_with_nodes_runs_its_members_side_by_side_in_one_allocation(
    tmp_path: Path,
) -> None:
    times = tmp_path / "times"
    text = SIDE_BY_SIDE.format(executions=tmp_path / "executions", times=times)
    env = wrappers(tmp_path, {"sbatch": ""})
    done = jubex(tmp_path, *run_args(definition(tmp_path, text)), env=env)
    assert done.returncode == 0, done.stderr
    assert len(calls(tmp_path, "sbatch")) == 1
    assert executions(tmp_path) == [f"work{n}" for n in range(4)]
    assert len({r[3] for r in rows(tmp_path)}) == 1, "one job for all four"
    spans: dict[str, list[float]] = {}
    for line in times.read_text().splitlines():
        member, moment, extra = line.split()
        spans.setdefault(member, []).append(float(moment))
        if extra != "end":
            assert extra == "2", "the pack's allocation has the nodes of two members"
    (first, first_end), (second, _) = spans["0"], spans["1"]
    assert second < first_end and first < spans["1"][1], "members 0 and 1 ran side by side"
    assert spans["2"][0] >= min(first_end, spans["1"][1]) - 0.5, "a lane runs its members in turn"
