"""Start, continue and cancel runs: the engine's entry points for the CLI and the library."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from jubex.definition.model import Benchmark
from jubex.definition.tags import apply_tags, tag_matches
from jubex.engine.progress import Progress
from jubex.engine.runner import Engine, Policy
from jubex.engine.support import check_supported
from jubex.engine.workpackages import constants_for
from jubex.errors import JubexError, UsageError
from jubex.language.template import Template
from jubex.platform.model import Platform
from jubex.schedulers.registry import scheduler_for
from jubex.space.plan import check_overrides, plan
from jubex.store.rundir import LOCK, Run, create_run, wp_dir_of
from jubex.store.store import CANCELLED, FAILED, PLANNED, SKIPPED, WorkpackageRow
from jubex.workdir.prepare import set_aside, wp_dir_name
from jubex.workdir.script import admin_dir, reset

PLAN_BATCH = 5000


@dataclass
class Options:
    """How to drive a run (the CLI's flags)."""

    jobs: int | None = None
    wait: bool = True
    progress: str | None = None
    fail_fast: bool = False


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """One jubex at a time per run: a second one refuses at once instead of corrupting it."""
    lock = FileLock(str(run_dir / LOCK), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise JubexError(
            f"the run {run_dir} is being driven by another jubex right now",
            hint="wait for it to finish, or stop it first; the run is not changed",
        ) from None
    except OSError as exc:
        raise JubexError(f"cannot lock the run {run_dir}: {exc.strerror}") from None
    try:
        yield
    finally:
        lock.release()


def new_run(
    benchmark: Benchmark,
    platform: Platform,
    outpath: Path,
    *,
    tags: Sequence[str] = (),
    overrides: Mapping[str, Sequence[str]] | None = None,
) -> Run:
    """Create the run directory and plan every workpackage into its store."""
    platform, overrides = apply_platform_overrides(platform, overrides, benchmark, tags)
    if overrides:
        check_overrides(benchmark, overrides)
    benchmark = apply_tags(benchmark, tags)
    check_supported(benchmark)
    run = create_run(benchmark, platform, outpath, tags=tags, overrides=overrides)
    _plan_into(run, tags, overrides)
    return run


def apply_platform_overrides(
    platform: Platform,
    overrides: Mapping[str, Sequence[str]] | None,
    benchmark: Benchmark | None = None,
    tags: Iterable[str] = (),
) -> tuple[Platform, dict[str, Sequence[str]]]:
    """``-p ior=/opt/ior/bin/ior`` sets a platform parameter (one value) for this run.

    A parameter the definition defines itself (under these tags) shadows the platform's, so
    ``-p`` changes the definition's then; otherwise the override would reach a value no
    command sees.
    """
    rest = dict(overrides or {})
    tags = tuple(tags)
    own = {
        p.name
        for s in (benchmark.parametersets.values() if benchmark else ())
        for p in s.parameters.values()
        if not p.tag or tag_matches(p.tag, tags)
    }
    mine = {k: v for k, v in rest.items() if k in platform.parameters and k not in own}
    for name, values in mine.items():
        if len(values) != 1:
            raise UsageError(f"-p {name}=...: the platform parameter '{name}' takes one value")
        del rest[name]
    if mine:
        platform = dataclasses.replace(
            platform, parameters={**platform.parameters, **{k: v[0] for k, v in mine.items()}}
        )
    return platform, rest


def _plan_into(
    run: Run, tags: Sequence[str], overrides: Mapping[str, Sequence[str]] | None
) -> None:
    """Plan in batches; the run counts as planned only once the last batch is in."""
    constants = constants_for(run.dir, run.benchmark, run.platform.parameters)
    suffixes = {n: Template(s.suffix, s.loc, shell=False) for n, s in run.benchmark.steps.items()}
    rows: list[tuple] = []
    edges: list[tuple[int, int]] = []
    for wp in plan(run.benchmark, overrides=overrides, tags=tags, constants=constants):
        params = {k: str(v) for k, v in wp.point.items()}
        name = wp_dir_name(wp.id, wp.step, suffixes[wp.step].render({**constants, **wp.point}))
        rows.append((wp.id, wp.step, wp.kind, wp.iteration, params, name))
        edges += [(wp.id, p) for p in wp.parents]
        if len(rows) >= PLAN_BATCH:
            run.store.add_workpackages(rows, edges)
            rows, edges = [], []
    run.store.add_workpackages(rows, edges)
    run.store.set_meta({"planned": "yes"})


def finish_planning(run: Run) -> None:
    """A run interrupted while it was being planned is planned again from its frozen files."""
    meta = run.store.meta()
    if meta.get("planned") == "yes":
        return
    run.store.delete_workpackages([wp.id for wp in run.store.workpackages()])
    _plan_into(run, json.loads(meta.get("tags", "[]")), json.loads(meta.get("overrides", "{}")))


def policy_for(platform: Platform, options: Options) -> Policy:
    opts = platform.scheduler_options
    if platform.scheduler == "local":
        capacity = options.jobs or os.cpu_count() or 1
    else:
        capacity = int(opts.get("max_queued", 1000))
        if options.jobs:
            capacity = min(capacity, options.jobs)
    return Policy(
        capacity=capacity,
        interval=float(opts.get("poll_interval", 0.05 if platform.scheduler == "local" else 2)),
        max_interval=float(opts.get("poll_max_interval", 30)),
        fail_fast=options.fail_fast,
        wait=options.wait,
        use_dependencies=platform.scheduler != "local" and bool(opts.get("dependencies", True)),
    )


def drive(
    run: Run,
    options: Options,
    *,
    retry_failed: bool = False,
    on_finished: Callable[[Iterable[WorkpackageRow]], None] | None = None,
) -> dict[str, int]:
    """Run (or continue) until done; ``on_finished`` hears of each workpackage that ends
    (the analyse stage hooks in here without the engine knowing it)."""
    with run_lock(run.dir):
        finish_planning(run)
        if retry_failed:
            _reset_failed(run)
        progress = Progress(run.benchmark.name, options.progress)
        engine = Engine(
            run,
            scheduler_for(run.platform),
            policy_for(run.platform, options),
            progress,
            on_finished,
        )
        return engine.go()


def cancel(run: Run) -> int:
    with run_lock(run.dir):
        engine = Engine(run, scheduler_for(run.platform), Policy(), Progress("", "quiet"))
        return engine.cancel()


def _reset_failed(run: Run) -> None:
    """Failed, cancelled and skipped workpackages go back to planned; the rest stays."""
    again = run.store.workpackages(states=[FAILED, CANCELLED, SKIPPED])
    for wp in again:
        wp_dir = wp_dir_of(run.dir, wp)
        reset(admin_dir(wp_dir))
        set_aside(wp_dir)
    run.store.set_states((wp.id, PLANNED, None, None, "retry") for wp in again)
