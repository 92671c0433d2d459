"""Packs: up to ``pack: N`` ready workpackages of a step run in one job, one after another
or, in a pack of ``nodes``, side by side as many as fit.

A pack costs one submission and one allocation instead of N, which is what a site's
submission limits and a scheduler's per-job start-up ask for. Its script (in
``<run>/packs/``) is the platform's job script around a loop that runs each member's own
wrapper in turn (in lanes side by side when the pack has nodes for several members, each
member's launcher taking its own nodes of the allocation), output beside the member as a
job of its own would write it. The wrapper's
claim keeps exactly-once: a pack that ends early (its time limit, a failed node) leaves the
members it never started unclaimed, and the engine queues those again; a member that a
second copy of the pack finds claimed is skipped (status 97) and the loop goes on.

Members share a step, resolved resources and the jobs they wait for, as array tasks do. The
pack asks for the members' time limit once per member (capped at the partition's
``max_time``), or for the step's ``pack: {time: ...}``. Beside the script a manifest lists
the members, written before submission, so that after a crash ``reconcile`` finds the
members of a pack it finds by name.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from jubex.definition.model import Step
from jubex.engine.batches import batches, read_manifests, write_job
from jubex.errors import Loc
from jubex.language.values import Duration
from jubex.platform.model import Platform, duration
from jubex.schedulers.base import JobSpec
from jubex.workdir.render import Rendered
from jubex.workdir.script import ALREADY_CLAIMED, BODY, admin_dir

PACKS = "packs"
#: seconds a pack's loop waits after a failed member for a signal ending the job: the
#: scheduler signals the job's processes one by one, the loop's shell maybe last
SETTLE = 1


def pack_name(uid: str, members: Sequence[Rendered]) -> str:
    """The job name by which ``reconcile`` finds a pack after a crash."""
    return f"jx{uid}-p{members[0].wp.id}"


def groups(ready: Iterable[Rendered], size: Mapping[str, int]) -> list[list[Rendered]]:
    """Workpackages that can share one pack, in id order, at most their step's size each."""
    return batches(ready, size.__getitem__)


def lanes(members: Sequence[Rendered], nodes: int) -> int:
    """How many members of a pack of ``nodes`` nodes run at once: as many as their own
    nodes fit in (one at a time without ``nodes``, or when one member needs them all)."""
    each = members[0].resources.get("nodes")
    if not nodes or not isinstance(each, int) or each < 1:
        return 1
    return max(1, min(len(members), nodes // each))


def loop(members: Sequence[Rendered], width: int = 1) -> str:
    """The body of a pack script: each member's wrapper in turn, whatever the last one did;
    ``width`` lanes side by side, member i in lane i mod ``width``.

    A scheduler ending the job (its time limit) signals every process of it: the member
    running then ends, and no further member starts in the grace time before the kill, also
    when the member's end is seen before the loop's own signal arrives. A member ended by
    TERM (status 143) stops the loop at once; a member that failed otherwise may have been
    ended by the same signal (a command that turns it into a status of its own, ``sleep
    600 || exit 1``), so the loop gives its own signal :data:`SETTLE` seconds to arrive
    before the next member. A member that exits 143 by itself only sends the rest to a new
    pack.
    """
    if width <= 1:
        return (
            "trap 'jubex_stop=1' TERM\n"
            + _lane([admin_dir(m.wp_dir) for m in members])
            + "\nexit 0"
        )
    text = "trap 'jubex_stop=1' TERM\n"
    for lane in range(width):
        own = [admin_dir(m.wp_dir) for m in members[lane::width]]
        text += f"(\ntrap 'jubex_stop=1' TERM\n{_lane(own)}\n) &\n"
    # a trapped TERM ends the first wait early: the lanes stop after their members
    return text + 'wait\n[ -z "$jubex_stop" ] || { wait; exit 143; }\nexit 0'


def _lane(admins: Sequence[Path]) -> str:
    dirs = " ".join(shlex.quote(str(admin)) for admin in admins)
    return (
        f"for jubex_admin in {dirs}; do\n"
        '  [ -z "$jubex_stop" ] || exit 143\n'
        f'  /bin/sh "$jubex_admin/{BODY}" >"$jubex_admin/job.out" 2>"$jubex_admin/job.err"\n'
        "  jubex_rc=$?\n"
        # a member ended by TERM: the job is ending, though this shell's TERM may come later
        "  [ $jubex_rc -ne 143 ] || jubex_stop=1\n"
        # a member that failed (not claimed elsewhere: 97) may have been ended by the TERM too
        f'  [ $jubex_rc -eq 0 ] || [ $jubex_rc -eq {ALREADY_CLAIMED} ] || [ -n "$jubex_stop" ]'
        f" || sleep {SETTLE}\n"
        "done"
    )


def pack_resources(
    platform: Platform,
    members: Sequence[Rendered],
    time: str | None = None,
    loc: Loc | None = None,
    nodes: int = 0,
) -> dict[str, object]:
    """The members' resources for all of them: the nodes and tasks of the members that run
    side by side in a pack of ``nodes`` nodes, the time of one lane's members in turn, within
    the partition's limit; ``time`` (the step's ``pack: {time: ...}``, written at ``loc``)
    instead when given."""
    resources = dict(members[0].resources)
    width = lanes(members, nodes)
    for key in ("nodes", "tasks"):
        if isinstance(count := resources.get(key), int):
            resources[key] = count * width
    if time is not None:
        total = duration(time, loc, "pack.time")
        resources.update(time=total, walltime=total.hms)
        return resources
    each = resources.get("time")
    if not isinstance(each, (int, float)):
        return resources
    seconds = float(each) * -(-len(members) // width)
    partition = platform.partitions.get(str(resources.get("partition")))
    if partition is not None and partition.max_time:
        seconds = min(seconds, duration(partition.max_time, partition.loc, "max_time"))
    total = Duration(seconds)
    resources.update(time=total, walltime=total.hms)
    return resources


def write_pack(
    run_dir: Path,
    platform: Platform,
    name: str,
    members: Sequence[Rendered],
    step: Step | None = None,
) -> JobSpec:
    """Write the manifest and the pack script; the spec of the pack job."""
    directory = run_dir / PACKS
    stdout, stderr = directory / f"{name}.out", directory / f"{name}.err"
    script = directory / f"{name}.sh"
    nodes = step.pack_nodes if step is not None else 0
    if step is None:
        resources = pack_resources(platform, members)
    else:
        resources = pack_resources(platform, members, step.pack_time, step.loc, nodes)
    text = platform.job_script(
        name=name,
        body=loop(members, lanes(members, nodes)),
        resolved=resources,
        workdir=directory,
        stdout=stdout,
        stderr=stderr,
    )
    write_job(script, text, members, "pack")
    time = resources.get("time")
    return JobSpec(
        name=name,
        script=script,
        workdir=directory,
        stdout=stdout,
        stderr=stderr,
        depends_on=members[0].depends,
        time_limit_s=float(time) if isinstance(time, (int, float)) else None,
        exclusive=any(member.resources.get("exclusive") for member in members),
    )


def manifests(run_dir: Path) -> dict[int, str]:
    """Workpackage id -> pack name, from every manifest, the newest winning."""
    return {wp: name for wp, (name, _) in read_manifests(run_dir / PACKS).items()}
