"""The engine's in-memory view of a run's workpackages, indexed so each loop is cheap.

States are kept in per-state sets and readiness in per-workpackage counters of unfinished
parents, so that a loop over 10,000 workpackages costs O(changes), not O(workpackages).
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from jubex.definition.model import Benchmark, Step
from jubex.errors import JubexError
from jubex.language.template import template
from jubex.language.values import parse_value
from jubex.platform.model import Platform
from jubex.schedulers.base import JobSpec
from jubex.schedulers.local import job_id_of
from jubex.space.expand import Space
from jubex.space.plan import SHARED, step_space
from jubex.store.rundir import Run, wp_dir_of
from jubex.store.store import (
    DONE,
    FINAL_STATES,
    PLANNED,
    QUEUED,
    STATES,
    SUBMITTED,
    WorkpackageRow,
)
from jubex.workdir.prepare import Prepared, StepPreparer
from jubex.workdir.script import JOB, admin_dir, is_waiting

KERNELS = Path(__file__).resolve().parent.parent / "data" / "kernels"


def constants_for(run_dir: Path, benchmark: Benchmark, platform_parameters: dict) -> dict:
    """Names every template of a run may use besides its parameters (JUBE's ``jube_*``)."""
    home = Path(benchmark.file).resolve().parent if benchmark.file else Path.cwd()
    return {
        **{k: parse_value(str(v)) for k, v in platform_parameters.items()},
        "jube_benchmark_name": benchmark.name,
        "jube_benchmark_id": int(run_dir.name) if run_dir.name.isdigit() else run_dir.name,
        "jube_benchmark_padid": run_dir.name,
        "jube_benchmark_home": str(home),
        "jube_benchmark_rundir": str(run_dir.resolve()),
        "jubex_kernels": str(KERNELS),
    }


class Resolutions:
    """A platform's answers to the resource requests of a run's steps.

    Many workpackages ask for the same resources; each distinct request is resolved and
    its launcher rendered once (both are pure functions of the request).
    """

    def __init__(self, platform: Platform) -> None:
        self.platform = platform
        self.known: dict[tuple, tuple[dict[str, object], str]] = {}

    def resolve(self, requested: Mapping[str, str]) -> tuple[dict[str, object], str]:
        """The resolved resources (a copy the caller may keep) and the launcher command."""
        key = tuple(sorted(requested.items()))
        found = self.known.get(key)
        if found is None:
            resolved = self.platform.resolve(requested)
            found = self.known[key] = (resolved, self.platform.launcher_command(resolved))
        return dict(found[0]), found[1]


def wp_environment(
    step: Step,
    resolutions: Resolutions,
    env: dict[str, object],
    *,
    wp_id: int,
    iteration: int,
    wp_dir: Path,
    parent_ids: Mapping[str, int],
) -> tuple[dict[str, object], dict[str, object]]:
    """Everything a workpackage's templates see, and its resources resolved by the platform."""
    requested = {
        k: template(str(v), step.loc).render(env)
        for k, v in vars(step.resources).items()
        if v is not None and k != "extra"
    }
    requested.update(
        {k: template(v, step.loc).render(env) for k, v in step.resources.extra.items()}
    )
    resolved, launcher = resolutions.resolve(requested)
    env.update(
        {
            "jube_step_name": step.name,
            "jube_wp_id": wp_id,
            "jube_wp_padid": f"{wp_id:06d}",
            "jube_wp_iteration": iteration,
            "jube_wp_abspath": str(wp_dir / "work"),
            "jube_wp_relpath": f"{wp_dir.name}/work",
            "launcher": launcher,
            **{f"jube_wp_parent_{name}_id": i for name, i in parent_ids.items()},
        }
    )
    for name, value in list(env.items()):
        if isinstance(value, str) and "$" in value and "jube_" in value:
            env[name] = _late(value, env, step)
    return env, resolved


def _late(value: str, env: Mapping[str, object], step: Step) -> str:
    """Values that name a workpackage's own ``$jube_*`` variables, known only now (as JUBE,
    up to five passes, for values that refer to such values)."""
    for _ in range(5):
        rendered = template(value, step.loc).render(env)
        if rendered == value:
            break
        value = rendered
    return value


class Workpackages:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.run_dir = run.dir.resolve()
        self.rows: dict[int, WorkpackageRow] = {wp.id: wp for wp in run.store.workpackages()}
        self.parents = run.store.parents()
        self.children: dict[int, list[int]] = {}
        for child, parents in self.parents.items():
            for p in parents:
                self.children.setdefault(p, []).append(child)
        self.by_state: dict[str, set[int]] = {s: set() for s in STATES}
        for wp in self.rows.values():
            self.by_state[wp.state].add(wp.id)
        self.waiting = {
            i: sum(self.rows[p].state != DONE for p in self.parents.get(i, ()))
            for i in self.by_state[PLANNED]
        }
        self.ready_heap = [i for i, n in self.waiting.items() if n == 0]
        heapq.heapify(self.ready_heap)
        #: planned workpackages with a parent that ended without success (kept up to date)
        self.doomed = {i for i in self.by_state[PLANNED] if self.failed_parent(self.rows[i])}
        self.types = run.benchmark.parameter_types()
        self.constants = constants_for(run.dir, run.benchmark, run.platform.parameters)
        self.preparers: dict[tuple[str, bool], StepPreparer] = {}
        self.staged: dict[int, Ready] = {}
        self.platform_envs: dict[tuple, dict[str, str]] = {}
        self.resolutions = Resolutions(run.platform)
        #: each workpackage's directory, built once (the loop asks for it several times)
        self.dirs: dict[int, Path] = {}
        #: steps with a command that waits for a done file
        self.marked = {n for n, s in run.benchmark.steps.items() if any(d.done_file for d in s.do)}

    # -- queries ------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return {s: len(ids) for s, ids in self.by_state.items()}

    def in_states(self, *states: str) -> list[WorkpackageRow]:
        return [self.rows[i] for s in states for i in sorted(self.by_state[s])]

    def count(self, *states: str) -> int:
        return sum(len(self.by_state[s]) for s in states)

    def awaiting_done_files(self) -> int:
        """Running workpackages that only wait for a done file (a batch job they submitted,
        a server they started): on the local platform they hold none of the ``-j`` slots."""
        if not self.marked:
            return 0
        return sum(
            1
            for i in self.by_state[SUBMITTED]
            if self.rows[i].step in self.marked and is_waiting(admin_dir(self.wp_dir(self.rows[i])))
        )

    def rows_of(self, ids: Iterable[int]) -> list[WorkpackageRow]:
        return [self.rows[i] for i in ids]

    def has_ready(self) -> bool:
        while self.ready_heap and self.rows[self.ready_heap[0]].state != PLANNED:
            heapq.heappop(self.ready_heap)
        for i in [i for i in self.staged if self.rows[i].state != PLANNED]:
            del self.staged[i]
        return bool(self.ready_heap) or bool(self.staged) or bool(self.orphans())

    def prefetch(self, limit: int) -> None:
        """Prepare the next ready workpackages while jobs run, so that a finished job is
        followed by the next one at once (what the local platform spends its time on).

        Only files in the run directory are written; the workpackages stay planned until
        they are submitted, so a crash meanwhile just prepares them again."""
        while len(self.staged) < limit and self.ready_heap:
            i = heapq.heappop(self.ready_heap)
            if self.rows[i].state != PLANNED or i in self.staged:
                continue
            try:
                self.staged[i] = self.prepare(self.rows[i])
            except JubexError:
                heapq.heappush(self.ready_heap, i)
                return

    def take_prepared(self, wp: WorkpackageRow) -> Ready:
        """The workpackage prepared ahead, or prepared now."""
        staged = self.staged.pop(wp.id, None)
        return staged if staged is not None else self.prepare(wp)

    def ready(self, limit: int, use_dependencies: bool = False) -> list[WorkpackageRow]:
        """Up to ``limit`` planned workpackages whose parents are done (or queued, with deps)."""
        found: list[WorkpackageRow] = []
        room = self._step_room()
        deferred = []
        staged = sorted(self.staged)
        while (staged or self.ready_heap) and len(found) < limit:
            i = staged.pop(0) if staged else heapq.heappop(self.ready_heap)
            wp = self.rows[i]
            if wp.state != PLANNED:
                self.staged.pop(i, None)
                continue
            if room.get(wp.step, 1) <= 0:
                deferred.append(i)
                continue
            if wp.step in room:
                room[wp.step] -= 1
            found.append(wp)
        for i in deferred:
            if i not in self.staged:
                heapq.heappush(self.ready_heap, i)
        if use_dependencies and len(found) < limit:
            for i in sorted(self.by_state[PLANNED]):
                if len(found) >= limit:
                    break
                parents = [self.rows[p] for p in self.parents.get(i, ())]
                if self.waiting.get(i) and all(
                    p.state == DONE or (p.state == SUBMITTED and p.job_id) for p in parents
                ):
                    found.append(self.rows[i])
        return found

    def _step_room(self) -> dict[str, int]:
        """How many more workpackages each capped step may have queued or running.

        A step's ``max_async`` (JUBE) or ``procs`` above 1 caps it; 0 and 1 leave it to
        the run's capacity (``--jobs`` or the platform's ``max_queued``).
        """
        caps = {}
        for name, step in self.run.benchmark.steps.items():
            limits = [n for n in (step.max_async, step.procs if step.procs > 1 else 0) if n > 0]
            if limits:
                caps[name] = min(limits)
        if not caps:
            return {}
        for i in self.by_state[QUEUED] | self.by_state[SUBMITTED]:
            step = self.rows[i].step
            if step in caps:
                caps[step] -= 1
        return caps

    def orphans(self) -> list[tuple[int, str]]:
        """Planned workpackages that can never run because a parent did not succeed."""
        self.doomed &= self.by_state[PLANNED]
        return [(i, self.failed_parent(self.rows[i]) or "") for i in sorted(self.doomed)]

    def failed_parent(self, wp: WorkpackageRow) -> str | None:
        """Why a workpackage cannot run any more: a parent that ended without success."""
        for p in self.parents.get(wp.id, ()):
            parent = self.rows[p]
            if parent.state in FINAL_STATES and parent.state != DONE:
                return f"parent {p} ({parent.step}) {parent.state}"
        return None

    def wp_dir(self, wp: WorkpackageRow) -> Path:
        found = self.dirs.get(wp.id)
        if found is None:
            found = self.dirs[wp.id] = wp_dir_of(self.run_dir, wp)
        return found

    def time_limit(self, wp: WorkpackageRow) -> float | None:
        step = self.run.benchmark.steps[wp.step]
        text = step.time_limit or (
            step.resources.time if self.run.platform.scheduler == "local" else None
        )
        if not text:
            return None
        env = {**self.constants, **self.point(wp)}
        return float(parse_value(template(text, step.loc).render(env), "duration"))

    def owner_job_id(self, owner: str) -> str:
        """The job id of the copy that claimed a workpackage (a pid on the local platform)."""
        if self.run.platform.scheduler == "local" and owner.isdigit():
            return job_id_of(int(owner))
        return owner

    def point(self, wp: WorkpackageRow) -> dict[str, object]:
        return {k: parse_value(v, self.types.get(k, "auto")) for k, v in wp.params.items()}

    # -- changes ------------------------------------------------------------------------

    def apply(self, changes: Sequence[tuple]) -> None:
        for wp_id, state, job_id, code, reason in changes:
            wp = self.rows[wp_id]
            self.by_state[wp.state].discard(wp_id)
            self.by_state[state].add(wp_id)
            was_done = wp.state == DONE
            wp.state, wp.exit_code, wp.reason = state, code, reason
            if job_id is not None:
                wp.job_id = job_id
            if state in (PLANNED, QUEUED):
                wp.job_id = job_id
            if state == PLANNED and self.waiting.get(wp_id, 0) == 0:
                heapq.heappush(self.ready_heap, wp_id)
            if state in FINAL_STATES and state != DONE:
                self.doomed.update(
                    c for c in self.children.get(wp_id, ()) if self.rows[c].state == PLANNED
                )
            if state == DONE and not was_done:
                for child in self.children.get(wp_id, ()):
                    if child in self.waiting:
                        self.waiting[child] -= 1
                        if self.waiting[child] == 0:
                            heapq.heappush(self.ready_heap, child)

    # -- preparation --------------------------------------------------------------------

    def _platform_environment(self, resolved: Mapping[str, object]) -> dict[str, str]:
        """Locally the wrapper runs without the job template, so it exports these itself."""
        if self.run.platform.scheduler != "local" or not self.run.platform.environment:
            return {}
        key = tuple(sorted((k, str(v)) for k, v in resolved.items()))
        found = self.platform_envs.get(key)
        if found is None:
            found = self.platform_envs[key] = self.run.platform.environment_for(resolved)
        return found

    def in_array(self, wp: WorkpackageRow) -> bool:
        """Whether a workpackage goes into a job array: its step asks, a batch platform allows."""
        platform = self.run.platform
        return (
            self.run.benchmark.steps[wp.step].array
            and wp.kind != SHARED
            and platform.scheduler != "local"
            and bool(platform.scheduler_options.get("array", True))
        )

    def prepare(self, wp: WorkpackageRow) -> Ready:
        """Prepare the work directory and wrapper of a workpackage for submission."""
        step = self.run.benchmark.steps[wp.step]
        shared = wp.kind == SHARED
        preparer = self.preparers.get((wp.step, shared))
        if preparer is None:
            preparer = self.preparers[(wp.step, shared)] = StepPreparer(
                self.run.benchmark, step, shared=shared, space_of=self.space
            )
        platform = self.run.platform
        wp_dir = self.wp_dir(wp)
        parent_ids = {self.rows[p].step: p for p in self.parents.get(wp.id, ())}
        env, resolved = wp_environment(
            step,
            self.resolutions,
            {**self.constants, **self.point(wp)},
            wp_id=wp.id,
            iteration=wp.iteration,
            wp_dir=wp_dir,
            parent_ids=parent_ids,
        )
        parents = [
            (self.rows[p].step, self.wp_dir(self.rows[p]) / "work")
            for p in self.parents.get(wp.id, ())
            if self.rows[p].kind != SHARED
        ]
        shared_dir = self.run_dir / f"shared_{wp.step}" if any(d.shared for d in step.do) else None
        prepared = preparer.prepare(
            wp.id,
            self.run_dir,
            wp_dir,
            env,
            parents,
            time_limit_s=self.time_limit(wp) if platform.scheduler == "local" else None,
            shared_dir=shared_dir,
            platform_environment=self._platform_environment(resolved),
            local=platform.scheduler == "local",
        )
        if prepared.params:
            wp.params = {**wp.params, **prepared.params}
            self.run.store.set_params([(wp.id, wp.params)])
        depends = tuple(
            self.rows[p].job_id  # type: ignore[misc]
            for p in self.parents.get(wp.id, ())
            if self.rows[p].state == SUBMITTED and self.rows[p].job_id
        )
        return Ready(wp, prepared, resolved, depends)

    def space(self, step: Step) -> Space:
        """A step's parameter space as it was planned (the run's tags and overrides)."""
        meta = self.run.meta
        return step_space(
            self.run.benchmark,
            step,
            overrides=json.loads(meta.get("overrides") or "{}"),
            tags=json.loads(meta.get("tags") or "[]"),
            constants=self.constants,
        )

    def job_spec(self, ready: Ready, name: str) -> JobSpec:
        """The spec of one workpackage's own job (a batch platform gets a job script)."""
        platform = self.run.platform
        prepared = ready.prepared
        admin = admin_dir(prepared.wp_dir)
        script = prepared.body
        if platform.scheduler != "local":
            script = admin / JOB
            text = platform.job_script(
                name=name,
                body=f"exec /bin/sh {prepared.body}",
                resolved=ready.resolved,
                workdir=prepared.workdir,
                stdout=admin / "job.out",
                stderr=admin / "job.err",
            )
            try:
                script.write_text(text)
            except OSError as exc:
                raise JubexError(f"cannot write the job script {script}: {exc.strerror}") from None
        return JobSpec(
            name=name,
            script=script,
            workdir=prepared.workdir,
            stdout=admin / "job.out",
            stderr=admin / "job.err",
            depends_on=ready.depends,
            time_limit_s=ready.time_limit_s,
        )


@dataclass
class Ready:
    """A prepared workpackage, about to be submitted alone or as one task of an array."""

    wp: WorkpackageRow
    prepared: Prepared
    resolved: dict[str, object]
    #: job ids of parents still in the queue: the scheduler holds the job until they succeed
    depends: tuple[str, ...]

    @property
    def time_limit_s(self) -> float | None:
        time = self.resolved.get("time")
        return float(time) if time else None  # type: ignore[arg-type]
