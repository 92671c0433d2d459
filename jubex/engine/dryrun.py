"""``jubex run --dry-run``: every workpackage and the exact commands, nothing written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from jubex.definition.model import Benchmark, Step
from jubex.definition.tags import apply_tags
from jubex.engine.driver import apply_platform_overrides
from jubex.engine.support import check_supported
from jubex.engine.workpackages import Resolutions, constants_for, wp_environment
from jubex.language.template import Template
from jubex.platform.model import Platform
from jubex.space.conditions import Condition
from jubex.space.expand import Space
from jubex.space.plan import SHARED, check_overrides, plan, step_space
from jubex.workdir.prepare import StepPreparer, wp_dir_name


def dry_run(
    benchmark: Benchmark,
    platform: Platform,
    *,
    tags: Sequence[str] = (),
    overrides: Mapping[str, Sequence[str]] | None = None,
    out=print,  # type: ignore[no-untyped-def]
) -> int:
    platform, overrides = apply_platform_overrides(platform, overrides, benchmark, tags)
    if overrides:
        check_overrides(benchmark, overrides)
    benchmark = apply_tags(benchmark, tags)
    check_supported(benchmark)
    run_dir = Path(benchmark.outpath) / "NEXT"
    constants = constants_for(run_dir, benchmark, platform.parameters)
    steps: dict[int, str] = {}
    resolutions = Resolutions(platform)
    preparers: dict[tuple[str, bool], StepPreparer] = {}

    def space_of(step: Step) -> Space:
        return step_space(benchmark, step, overrides=overrides, tags=tags, constants=constants)

    count = 0
    for wp in plan(benchmark, overrides=overrides, tags=tags, constants=constants):
        steps[wp.id] = wp.step
        step = benchmark.steps[wp.step]
        parents = {steps[p]: p for p in wp.parents}
        env, _resolved = wp_environment(
            step,
            resolutions,
            {**constants, **wp.point},
            wp_id=wp.id,
            iteration=wp.iteration,
            wp_dir=run_dir / wp_dir_name(wp.id, wp.step, step.suffix),
            parent_ids=parents,
        )
        shared = wp.kind == SHARED
        label = " ".join(f"{k}={v}" for k, v in wp.point.items())
        out(
            f"wp {wp.id} {wp.step}{' (shared)' if shared else ''} iteration {wp.iteration}  {label}"
        )
        preparer = preparers.get((wp.step, shared))
        if preparer is None:
            preparer = preparers[(wp.step, shared)] = StepPreparer(
                benchmark, step, shared=shared, space_of=space_of
            )
        cycles = preparer.cycles(env)
        for cycle, values in enumerate(cycles):
            if len(cycles) > 1:
                out(f"  cycle {cycle}:")
            for do in step.do:
                if do.shared == shared and Condition(do.active, do.loc).holds(values):
                    text = Template(do.command, do.loc).render(values)
                    out("  $ " + text.replace("\n", "\n    "))
        count += 1
    out(f"{count} workpackage(s) would run on platform '{platform.name}'; nothing was written")
    return 0
