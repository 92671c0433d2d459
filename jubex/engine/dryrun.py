"""``jubex run --dry-run``: every workpackage and the exact commands, nothing written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from jubex.definition.model import Benchmark
from jubex.definition.tags import apply_tags
from jubex.engine.conditions import Condition
from jubex.engine.driver import apply_platform_overrides
from jubex.engine.plan import SHARED, check_overrides, plan
from jubex.engine.support import check_supported
from jubex.engine.workpackages import Resolutions, constants_for, wp_environment
from jubex.platform.model import Platform
from jubex.space.template import Template
from jubex.workdir.prepare import wp_dir_name


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
        for do in step.do:
            if do.shared == shared and Condition(do.active, do.loc).holds(env):
                out("  $ " + Template(do.command, do.loc).render(env).replace("\n", "\n    "))
        count += 1
    out(f"{count} workpackage(s) would run on platform '{platform.name}'; nothing was written")
    return 0
