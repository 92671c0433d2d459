"""Whole benchmarks through ``jubex run -P <slurm platform>`` on the real test Slurm.

Every test drives the real CLI in a subprocess against the cluster of
``ci/start-local-slurm.sh``. Client commands are counted by wrappers first on PATH, and
executions by a side effect of the jobs themselves, so "submitted once, ran once" is checked
from outside jubex.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slurm, pytest.mark.usefixtures("slurm")]

#: the shipped slurm platform, polled often enough for tests
PLATFORM = """\
name: slurm-test
extends: slurm
scheduler_options: {poll_interval: 0.5, poll_max_interval: 2}
"""


@pytest.fixture(autouse=True)
def no_job_left_behind(tmp_path: Path) -> Iterator[None]:
    """Whatever a test asserted, its jobs must not wait on in the shared cluster."""
    yield
    (tmp_path / "go").touch()
    if (tmp_path / "runs" / "000000" / "jubex.sqlite").exists():
        job_ids = [r[3] for r in rows(tmp_path) if r[3] and r[2] in ("queued", "submitted")]
        if job_ids:
            subprocess.run(["scancel", *job_ids], capture_output=True, check=False)


def jubex(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "jubex", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def definition(tmp_path: Path, text: str) -> str:
    (tmp_path / "slurm-test.yaml").write_text(PLATFORM)
    (tmp_path / "def.yaml").write_text(text)
    return "def.yaml"


def run_args(name: str, *extra: str) -> list[str]:
    return ["run", name, "-P", "slurm-test.yaml", "--outpath", "runs", "-q", *extra]


def wrappers(tmp_path: Path, body: dict[str, str]) -> dict[str, str]:
    """Client commands first on PATH that log each call (``start``/``end`` with arguments).

    ``body`` holds, per command, shell text run instead of the plain ``exec`` of the real
    command; it sees the real command as ``$real``.
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    plain = '"$real" "$@"'
    for command, text in body.items():
        real = next(
            Path(p) / command
            for p in os.environ["PATH"].split(":")
            if (Path(p) / command).exists() and Path(p) != bin_dir
        )
        log = bin_dir / f"{command}.log"
        (bin_dir / command).write_text(
            f'#!/bin/sh\nreal={real}\necho "start $*" >> {log}\n'
            f"{text or plain}\nrc=$?\n"
            f'echo "end $*" >> {log}\nexit $rc\n'
        )
        (bin_dir / command).chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def calls(tmp_path: Path, command: str, kind: str = "start") -> list[str]:
    log = tmp_path / "bin" / f"{command}.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if line.startswith(f"{kind} ")]


def store(tmp_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(tmp_path / "runs" / "000000" / "jubex.sqlite")


def rows(tmp_path: Path) -> list[tuple[int, str, str, str | None, int | None, str, dict]]:
    """(id, step, state, job_id, exit_code, reason, params) of every workpackage."""
    with store(tmp_path) as db:
        found = db.execute(
            "SELECT id, step, state, job_id, exit_code, reason, params FROM workpackage ORDER BY id"
        ).fetchall()
    return [(*row[:6], json.loads(row[6])) for row in found]


def events(tmp_path: Path) -> list[tuple[int, float, str, str]]:
    with store(tmp_path) as db:
        return db.execute("SELECT wp, time, state, detail FROM event ORDER BY id").fetchall()


def squeue(job_ids: list[str]) -> dict[str, str]:
    """Slurm's own view of some jobs: id -> state."""
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-j", ",".join(job_ids), "-O", "JobArrayID:|,State:"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return dict(line.strip().split("|") for line in out.splitlines() if "|" in line)


def until(condition: Callable[[], bool], timeout: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def executions(tmp_path: Path) -> list[str]:
    path = tmp_path / "executions"
    return sorted(path.read_text().split()) if path.exists() else []


# ------------------------------------------------------------------------------ tests


def test_a_two_node_workpackage_starts_its_tasks_on_two_nodes(tmp_path: Path) -> None:
    name = definition(
        tmp_path,
        "name: nodes\nsteps:\n  run:\n    resources: {nodes: 2, tasks_per_node: 2}\n"
        "    do: $launcher sh -c 'echo $SLURMD_NODENAME'\n",
    )
    done = jubex(tmp_path, *run_args(name))
    assert done.returncode == 0, done.stderr
    ((_, _, state, job_id, code, _, _),) = rows(tmp_path)
    assert (state, code) == ("done", 0) and job_id and job_id.isdigit()
    lines = (tmp_path / "runs/000000/000000_run/work/stdout").read_text().split()
    assert len(lines) == 4 and len(set(lines)) == 2
    info = json.loads(jubex(tmp_path, "info", "runs/000000", "-f", "json").stdout)
    (row,) = info["rows"]
    record = dict(zip(info["columns"], row, strict=True))
    assert record["job"] == job_id
    assert re.fullmatch(r"n\[\d[-,]\d\]", record["nodes"]), record
    assert record["elapsed"].count(":") == 2


ARRAY = """\
name: array
parameters:
  n: {range: {start: 0, stop: 11, step: 1}}
patterns:
  out:
    value: {regex: 'value $jube_pat_int', type: int}
steps:
  work:
    array: true
    do: echo "value ${n}0 task $SLURM_ARRAY_TASK_ID"
    analyse: [out]
results:
  values:
    group_by: [n]
    columns: [n, value]
"""


def test_an_array_step_is_one_sbatch_and_every_task_is_one_workpackage(tmp_path: Path) -> None:
    env = wrappers(tmp_path, {"sbatch": ""})
    done = jubex(tmp_path, *run_args(definition(tmp_path, ARRAY)), env=env)
    assert done.returncode == 0, done.stderr
    (call,) = calls(tmp_path, "sbatch")
    assert "--array=0-11" in call and "--job-name=jx" in call
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["done"] * 12
    array_id = found[0][3].split("_")[0]  # type: ignore[union-attr]
    assert [r[3] for r in found] == [f"{array_id}_{i}" for i in range(12)]
    for wp_id, _, _, job_id, _, _, params in found:
        work = tmp_path / f"runs/000000/{wp_id:06d}_work"
        task = job_id.split("_")[1]  # type: ignore[union-attr]
        assert (work / "work/stdout").read_text() == f"value {params['n']}0 task {task}\n"
        assert (work / "claim").read_text().strip() == job_id
    table = jubex(tmp_path, "result", "runs/000000", "-f", "csv")
    values = {r["n"]: r["value"] for r in csv.DictReader(io.StringIO(table.stdout))}
    assert values == {str(n): str(n * 10) for n in range(12)}


CHAIN = """\
name: chain
parameters:
  n: [1, 2, 3]
steps:
  a:
    do: ["sleep 2", '[ "$n" != 2 ] || exit 3', "echo a$n > out"]
  b:
    depend: [a]
    do: ["cat a/out > out"]
  c:
    depend: [b]
    do: ["cat b/out"]
"""


def test_a_chain_is_submitted_at_once_and_a_failed_parent_skips_its_children(
    tmp_path: Path,
) -> None:
    env = wrappers(tmp_path, {"sbatch": ""})
    done = jubex(tmp_path, *run_args(definition(tmp_path, CHAIN)), env=env)
    assert done.returncode == 1, done.stderr  # a workpackage failed
    assert len(calls(tmp_path, "sbatch")) == 9
    dependent = [c for c in calls(tmp_path, "sbatch") if "--dependency=afterok:" in c]
    assert len(dependent) == 6
    log = events(tmp_path)
    first_done = min(t for _, t, s, _ in log if s in ("done", "failed"))
    assert all(t < first_done for _, t, s, _ in log if s == "submitted"), "not submitted at once"
    by = {(r[1], r[6]["n"]): r for r in rows(tmp_path)}
    a2, b2, c2 = by[("a", "2")], by[("b", "2")], by[("c", "2")]
    assert (a2[2], a2[4], a2[5]) == ("failed", 3, "exit status 3")
    assert (b2[2], b2[5]) == ("skipped", f"parent {a2[0]} (a) failed")
    assert (c2[2], c2[5]) == ("skipped", f"parent {b2[0]} (b) skipped")
    assert set(squeue([b2[3], c2[3]]).values()) == {"CANCELLED"}  # type: ignore[list-item]
    for n in ("1", "3"):
        assert [by[(s, n)][2] for s in "abc"] == ["done"] * 3
        stdout = tmp_path / f"runs/000000/{by[('c', n)][0]:06d}_c/work/stdout"
        assert stdout.read_text() == f"a{n}\n"


WAIT = """\
name: wait
parameters:
  n: [0, 1, 2, 3]
steps:
  first:
    use: []
    do: while [ ! -e {go} ]; do sleep 0.2; done; echo first >> {executions}
  second:
    depend: [first]
    array: true
    do: echo second$n >> {executions}
  third:
    depend: [second]
    do: echo third$n >> {executions}
"""
EVERY = sorted(["first"] + [f"{s}{n}" for s in ("second", "third") for n in range(4)])


def test_no_wait_submits_everything_and_continue_finishes(tmp_path: Path) -> None:
    text = WAIT.format(go=tmp_path / "go", executions=tmp_path / "executions")
    name = definition(tmp_path, text)
    env = wrappers(tmp_path, {"sbatch": ""})
    submitted = jubex(tmp_path, *run_args(name, "--no-wait"), env=env)
    assert submitted.returncode == 0, submitted.stderr
    assert "9 workpackage(s) still to finish: jubex continue" in submitted.stdout
    assert [r[2] for r in rows(tmp_path)] == ["submitted"] * 9
    sbatch = calls(tmp_path, "sbatch")
    # one job, one array of four behind it, four jobs behind the array's tasks
    assert len(sbatch) == 6
    assert "--array=0-3" in sbatch[1] and "--dependency=afterok:" in sbatch[1]
    status = jubex(tmp_path, "status", "runs/000000")
    assert "second: 4 submitted" in status.stdout and "third: 4 submitted" in status.stdout
    (tmp_path / "go").touch()
    finished = jubex(tmp_path, "continue", "runs/000000", "-q", env=env)
    assert finished.returncode == 0, finished.stderr
    assert "9 done" in finished.stdout
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 9
    assert len(calls(tmp_path, "sbatch")) == 6
    assert executions(tmp_path) == EVERY


def test_cancel_is_one_scancel_for_every_job(tmp_path: Path) -> None:
    text = WAIT.format(go=tmp_path / "go", executions=tmp_path / "executions")
    env = wrappers(tmp_path, {"scancel": ""})
    submitted = jubex(tmp_path, *run_args(definition(tmp_path, text), "--no-wait"), env=env)
    assert submitted.returncode == 0, submitted.stderr
    job_ids = [r[3] for r in rows(tmp_path)]
    cancelled = jubex(tmp_path, "cancel", "runs/000000", env=env)
    assert cancelled.returncode == 0, cancelled.stderr
    assert "9 workpackage(s) cancelled" in cancelled.stdout
    (call,) = calls(tmp_path, "scancel")
    assert all(job_id in call.split() for job_id in job_ids)  # type: ignore[operator]
    assert [r[2] for r in rows(tmp_path)] == ["cancelled"] * 9
    until(
        lambda: set(squeue(job_ids).values()) == {"CANCELLED"},  # type: ignore[arg-type]
        what="Slurm to cancel the jobs",
    )
    (tmp_path / "go").touch()
    again = jubex(tmp_path, "continue", "runs/000000", "-q", "--no-result")
    assert again.returncode == 0 and executions(tmp_path) == []


def test_transient_sbatch_errors_are_retried_without_a_second_submission(
    tmp_path: Path,
) -> None:
    """1st call: the job got in but the reply was lost; 2nd: refused; then the scheduler is fine."""
    flaky = (
        'n=$(grep -c "^start" "$0.log")\n'
        'if [ "$n" = 1 ] || [ "$n" = 4 ]; then "$real" "$@" >/dev/null; fi\n'
        'if [ "$n" = 1 ] || [ "$n" = 2 ] || [ "$n" = 4 ]; then\n'
        "  echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv' >&2\n"
        "  false\n"
        'else "$real" "$@"; fi'
    )
    env = wrappers(tmp_path, {"sbatch": flaky})
    text = (
        f"name: flaky\nparameters:\n  n: [0, 1]\nsteps:\n"
        f"  single:\n    do: echo single$n >> {tmp_path / 'executions'}\n"
        f"  many:\n    array: true\n    do: echo many$n >> {tmp_path / 'executions'}\n"
    )
    done = jubex(tmp_path, "run", definition(tmp_path, text), "-P", "slurm-test.yaml",
                 "--outpath", "runs", env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("scheduler busy") == 3
    assert len(calls(tmp_path, "sbatch")) == 4
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 4
    assert executions(tmp_path) == ["many0", "many1", "single0", "single1"]


KILL = """\
name: kill
parameters:
  n: {{range: {{start: 0, stop: 9, step: 1}}}}
patterns:
  out:
    value: {{regex: 'value $jube_pat_int', type: int}}
steps:
  single:
    do: while [ ! -e {go} ]; do sleep 0.2; done; echo single$n >> {executions}; echo value $n
    analyse: [out]
  many:
    array: true
    do: while [ ! -e {go} ]; do sleep 0.2; done; echo many$n >> {executions}; echo value $n
    analyse: [out]
"""


def test_kill_minus_nine_while_submitting_then_continue_submits_each_job_once(
    tmp_path: Path,
) -> None:
    text = KILL.format(go=tmp_path / "go", executions=tmp_path / "executions")
    name = definition(tmp_path, text)
    env = wrappers(tmp_path, {"sbatch": 'sleep 0.5; "$real" "$@"'})

    def kill_when(condition: Callable[[list[str]], bool], *args: str) -> None:
        proc = start(tmp_path, *args, env=env)
        until(lambda: condition(calls(tmp_path, "sbatch")), what="the submission to kill")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        # the sbatch in flight lives on: it must be found, not repeated
        until(lambda: len(calls(tmp_path, "sbatch", "end")) == len(calls(tmp_path, "sbatch")))

    kill_when(lambda c: len(c) == 5, *run_args(name))
    assert "submitted" not in {r[2] for r in rows(tmp_path)}  # ids of a batch come at its end
    kill_when(lambda c: any("--array" in call for call in c), "continue", "runs/000000")
    settled = jubex(tmp_path, "continue", "runs/000000", "--no-wait", "-q", env=env)
    assert settled.returncode == 0, settled.stderr
    assert len(calls(tmp_path, "sbatch")) == 11  # ten jobs and one array, none twice
    found = rows(tmp_path)
    assert [r[2] for r in found] == ["submitted"] * 20
    job_ids = [r[3] for r in found]
    assert len(set(job_ids)) == 20
    why = {(wp, detail) for wp, _, _, detail in events(tmp_path)}
    # an sbatch was in flight at each kill: the fifth single job's, then the array's
    assert {wp for wp, d in why if d == "found in the queue"} == set(range(20))
    assert {wp for wp, d in why if d == "never reached the scheduler"} >= set(range(10, 20))
    assert set(squeue(job_ids).values()) <= {"PENDING", "RUNNING"}  # type: ignore[arg-type]
    (tmp_path / "go").touch()
    finished = jubex(tmp_path, "continue", "runs/000000", "-q", env=env)
    assert finished.returncode == 0, finished.stderr
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 20
    assert len(calls(tmp_path, "sbatch")) == 11
    assert executions(tmp_path) == sorted(f"{s}{n}" for s in ("many", "single") for n in range(10))
    with store(tmp_path) as db:
        values = db.execute(
            """SELECT wp, json_extract(data, '$."value"[1]') FROM packed"""
        ).fetchall()
    assert sorted(values) == [(i, i % 10) for i in range(20)]


@pytest.mark.slow
@pytest.mark.waits
def test_the_time_limit_kills_a_workpackage_and_says_so(tmp_path: Path) -> None:
    name = definition(
        tmp_path, "name: limit\nsteps:\n  run:\n    resources: {time: 1m}\n    do: sleep 600\n"
    )
    done = jubex(tmp_path, *run_args(name), timeout=300)
    assert done.returncode == 1
    ((_, _, state, job_id, _, reason, _),) = rows(tmp_path)
    assert state == "failed", done.stderr
    assert reason == f"time limit exceeded: the scheduler killed job {job_id}"
    assert squeue([job_id]) == {job_id: "TIMEOUT"}  # type: ignore[list-item]


def test_an_exclusive_step_gets_its_node_and_the_cpus_its_task_runs(tmp_path: Path) -> None:
    """``exclusive: true`` asks Slurm for the node (it once shared it), and a step whose one
    task starts 2 processes asks for 2 CPUs (it once asked for 1); a step that is not
    exclusive still shares its node."""
    show = (
        "    resources: {threads: 2}\n"
        "    do: scontrol show job $SLURM_JOB_ID | grep -o 'OverSubscribe=[A-Z]*';"
        " echo cpus $SLURM_CPUS_PER_TASK\n"
    )
    text = f"name: alone\nsteps:\n  alone:\n    exclusive: true\n{show}  shared:\n{show}"
    done = jubex(tmp_path, *run_args(definition(tmp_path, text)))
    assert done.returncode == 0, done.stderr
    out = [
        (tmp_path / f"runs/000000/00000{i}_{step}/work/stdout").read_text()
        for i, step in enumerate(("alone", "shared"))
    ]
    assert out == ["OverSubscribe=NO\ncpus 2\n", "OverSubscribe=OK\ncpus 2\n"]
