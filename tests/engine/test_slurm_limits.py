"""A site's limit of queued jobs, on the real test Slurm: jubex waits instead of failing.

``sbatch`` is wrapped by a script first on PATH that refuses, with Slurm's own message, any
submission while this test already has ``LIMIT`` jobs in the queue, as a QOS with
``MaxSubmitJobsPerUser`` would.
"""

from __future__ import annotations

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
    wrappers,
)

pytestmark = [pytest.mark.slurm, pytest.mark.usefixtures("slurm")]
__all__ = ["no_job_left_behind"]

LIMIT = 3
REFUSE = """\
n=$(squeue -h -t pending,running,completing,configuring -o %Z | grep -c {where})
if [ "$n" -ge {limit} ]; then
  echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2
  echo "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy \
(job submit limit, user's size and/or time limits)" >&2
  exit 1
fi
"$real" "$@"
"""


def test_a_refused_submission_waits_for_jobs_to_end_and_runs_once(tmp_path: Path) -> None:
    env = wrappers(tmp_path, {"sbatch": REFUSE.format(where=tmp_path, limit=LIMIT)})
    text = (
        "name: limited\nparameters:\n  n: {range: {start: 0, stop: 9, step: 1}}\nsteps:\n"
        f"  work:\n    do: sleep 1; echo work$n >> {tmp_path / 'executions'}\n"
    )
    done = jubex(tmp_path, *run_args(definition(tmp_path, text))[:-1], env=env)
    assert done.returncode == 0, done.stderr
    assert "limit of jobs is reached" in done.stdout + done.stderr
    assert [r[2] for r in rows(tmp_path)] == ["done"] * 10
    assert executions(tmp_path) == sorted(f"work{n}" for n in range(10))
    assert len(calls(tmp_path, "sbatch")) > 10  # some were refused, and tried again later
