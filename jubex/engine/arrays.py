"""Job arrays: the ready workpackages of an ``array: true`` step submitted as one job.

One array script per array, in ``<run>/arrays/``: the platform's job script around a
dispatch that runs the wrapper of the workpackage of its task index. Workpackages share an
array only when they share a step, resolved resources and the jobs they wait for, since an
array has one resource request and one dependency. Beside the script, a manifest lists the
array's workpackages in index order; it is written before the array is submitted, so that
after a crash ``reconcile`` can tell which task of an array found by name is which
workpackage.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

from jubex.engine.batches import batches, read_manifests, write_job
from jubex.platform.model import Platform
from jubex.schedulers.base import JobSpec
from jubex.workdir.render import Rendered
from jubex.workdir.script import BODY, admin_dir

ARRAYS = "arrays"
#: most tasks per array; Slurm's default MaxArraySize (1001) allows indices 0..1000
MAX_TASKS = 1000
#: the task's index, whichever scheduler started it (Slurm, PBS Pro, Torque; Grid Engine and
#: LSF number their tasks from 1)
INDEX = (
    "${SLURM_ARRAY_TASK_ID:-${PBS_ARRAY_INDEX:-${PBS_ARRAYID:-"
    "$((${SGE_TASK_ID:-${LSB_JOBINDEX:-1}} - 1))}}}"
)
#: how each scheduler spells "this task's index" in an output path
OUTPUT_INDEX = {"slurm": "%a", "pbs": "^array_index^", "sge": "$TASK_ID", "lsf": "%I"}


def array_name(uid: str, members: Sequence[Rendered]) -> str:
    """The job name by which ``reconcile`` finds an array after a crash."""
    return f"jx{uid}-a{members[0].wp.id}"


def groups(ready: Iterable[Rendered]) -> list[list[Rendered]]:
    """Workpackages that can share one array job, in id order, at most MAX_TASKS each."""
    return batches(ready, lambda _step: MAX_TASKS)


def dispatch(members: Sequence[Rendered]) -> str:
    """The body of an array script: run the wrapper of this task's workpackage.

    Each task writes its job output beside its workpackage, like a job of its own would.
    """
    cases = "".join(
        f"{i}) jubex_admin={shlex.quote(str(admin_dir(m.wp_dir)))} ;;\n"
        for i, m in enumerate(members)
    )
    return (
        f'case "{INDEX}" in\n{cases}'
        f'*) echo "jubex: no workpackage for array task {INDEX}" >&2; exit 2 ;;\n'
        "esac\n"
        f'exec /bin/sh "$jubex_admin/{BODY}" >"$jubex_admin/job.out" 2>"$jubex_admin/job.err"'
    )


def write_array(
    run_dir: Path, platform: Platform, name: str, members: Sequence[Rendered]
) -> JobSpec:
    """Write the manifest and the array script; the spec of the array job."""
    directory = run_dir / ARRAYS
    index = OUTPUT_INDEX.get(platform.scheduler, "")
    stdout = directory / f"{name}.{index}.out" if index else directory / f"{name}.out"
    stderr = stdout.with_suffix(".err")
    script = directory / f"{name}.sh"
    text = platform.job_script(
        name=name,
        body=dispatch(members),
        resolved=members[0].resources,
        workdir=directory,
        stdout=stdout,
        stderr=stderr,
        array=len(members),
    )
    write_job(script, text, members, "array")
    return JobSpec(
        name=name,
        script=script,
        workdir=directory,
        stdout=stdout,
        stderr=stderr,
        depends_on=members[0].depends,
        array_size=len(members),
        time_limit_s=members[0].time_limit_s,
        exclusive=any(member.resources.get("exclusive") for member in members),
    )


def manifests(run_dir: Path) -> dict[int, tuple[str, int]]:
    """Workpackage id -> (array name, task index), from every manifest, the newest winning."""
    return read_manifests(run_dir / ARRAYS)
