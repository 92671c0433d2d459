"""Rendering a workpackage: the values its templates see, its files, wrapper and job script.

One function, :meth:`Renderer.render`, for the real run and the dry run alike: the run hands
it a writer that makes the files, the dry run one that records them, so the two cannot
drift. What a step compiles (templates, conditions, file operations) is compiled once per
step; what a platform resolves (resources, launcher) once per distinct request.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from jubex.definition.darshan import Darshan, effective
from jubex.definition.model import Benchmark, Step
from jubex.errors import DefinitionError, Loc
from jubex.language.confine import control_character
from jubex.language.template import template
from jubex.language.values import parse_value
from jubex.platform.model import Platform
from jubex.shipped import shipped
from jubex.space.expand import Space
from jubex.space.plan import SHARED, Workpackage, step_space
from jubex.space.spec import RunSpec
from jubex.space.wp_values import builtins, environment
from jubex.workdir.prepare import Prepared, StepPreparer
from jubex.workdir.script import JOB, admin_dir
from jubex.workdir.writer import Writer

KERNELS = shipped("kernels")
#: where a benchmark writes on a platform that names no file system: its work directory
NO_TARGET = {"jubex_fs": "", "jubex_fs_path": "."}


def constants_for(spec: RunSpec, run_dir: Path) -> dict[str, object]:
    """Names every template of a run may use besides its parameters (JUBE's ``jube_*``)."""
    return {
        **{k: parse_value(str(v)) for k, v in spec.platform.parameters.items()},
        "jube_benchmark_name": spec.benchmark.name,
        "jube_benchmark_id": int(run_dir.name) if run_dir.name.isdigit() else run_dir.name,
        "jube_benchmark_padid": run_dir.name,
        "jube_benchmark_home": spec.home,
        "jube_benchmark_rundir": str(run_dir),
        "jubex_kernels": str(KERNELS),
        **target_names(spec.platform),
    }


def target_names(platform: Platform) -> dict[str, str]:
    """``$jubex_fs``, ``$jubex_fs_path``: the file system benchmarks write to — the platform's
    default one, else the workpackage's work directory (``.``) on whatever it lies."""
    target = platform.target_filesystem
    return {"jubex_fs": target.name, "jubex_fs_path": target.path} if target else dict(NO_TARGET)


@dataclass
class Rendered:
    """A workpackage rendered: where it lives, what it runs, what the platform gave it."""

    wp: Workpackage
    wp_dir: Path
    prepared: Prepared
    #: every value its templates saw (the first cycle's)
    values: dict[str, object]
    #: its resources as the platform resolved them
    resources: dict[str, object]
    #: job ids of parents still in the queue: the scheduler holds the job until they succeed
    depends: tuple[str, ...] = ()

    @property
    def time_limit_s(self) -> float | None:
        time = self.resources.get("time")
        return float(time) if isinstance(time, (int, float, str)) and time else None


class Renderer:
    """Renders the workpackages of one run (or of a dry run of it).

    ``local``: the scheduler runs jobs directly, without a job template, so the wrapper
    itself exports the platform's environment and enforces the time limit.
    """

    def __init__(self, spec: RunSpec, run_dir: Path, *, local: bool) -> None:
        self.spec = spec
        self.run_dir = run_dir
        self.local = local
        self.constants = constants_for(spec, run_dir)
        self.preparers: dict[tuple[str, bool], StepPreparer] = {}
        self.resolved: dict[tuple, tuple[dict[str, object], str]] = {}
        self.platform_envs: dict[tuple, dict[str, str]] = {}
        self.exports: dict[str, list[str]] = {}
        self.darshans: dict[str, Darshan | None] = {}
        #: what the user should hear once (more processes per node than cores), not yet said
        self.warnings: list[str] = []
        self.said: set[str] = set()

    def render(
        self,
        wp: Workpackage,
        parents: Sequence[Workpackage],
        writer: Writer,
        *,
        depends: tuple[str, ...] = (),
    ) -> Rendered:
        """Render one workpackage through ``writer``; ``parents`` are its parent workpackages."""
        step = self.spec.benchmark.steps[wp.step]
        shared = wp.kind == SHARED
        wp_dir = self.run_dir / wp.dir_name
        values, resources = self.values(wp, step, parents)
        parent_works = [
            (p.step, self.run_dir / p.dir_name / "work") for p in parents if p.kind != SHARED
        ]
        shared_dir = self.run_dir / f"shared_{wp.step}" if any(d.shared for d in step.do) else None
        prepared = self.preparer(step, shared).prepare(
            wp.id,
            wp_dir,
            values,
            parent_works,
            writer,
            time_limit_s=self.time_limit(wp) if self.local else None,
            shared_dir=shared_dir,
            platform_environment=self._platform_environment(resources),
            local=self.local,
            darshan=self.darshan(step),
        )
        return Rendered(wp, wp_dir, prepared, values, resources, depends)

    def values(
        self, wp: Workpackage, step: Step, parents: Sequence[Workpackage]
    ) -> tuple[dict[str, object], dict[str, object]]:
        """Everything a workpackage's templates see, and its resources resolved by the platform."""
        env: dict[str, object] = {**self.constants, **wp.point}
        requested = {
            k: template(str(v), step.loc).render_value(env)
            for k, v in vars(step.resources).items()
            if v is not None and k != "extra"
        }
        requested.update(
            {k: template(v, step.loc).render_value(env) for k, v in step.resources.extra.items()}
        )
        self._check_resources(step, requested, wp.point)
        if step.exclusive and not self.local:  # the scheduler is asked for whole nodes
            requested["exclusive"] = True
        resources, launcher = self._resolve(requested)
        env.update(
            builtins(
                wp.id,
                step,
                wp.iteration,
                wp.dir_name,
                {p.step: p.id for p in parents if p.kind != SHARED},
                self.constants,
            )
        )
        env["launcher"] = launcher
        env.update(environment(wp.point, self.exported(step)))
        for name, value in list(env.items()):
            if isinstance(value, str) and "$" in value and "jube_" in value:
                env[name] = _late(value, env, step)
        return env, resources

    def darshan(self, step: Step) -> Darshan | None:
        """How a step runs under Darshan (None: without), worked out once per step."""
        if step.name not in self.darshans:
            self.darshans[step.name] = step_darshan(self.spec.benchmark, step, self.spec.platform)
        return self.darshans[step.name]

    def exported(self, step: Step) -> list[str]:
        """The parameters a step exports (JUBE's ``jube_wp_envstr``), worked out once."""
        found = self.exports.get(step.name)
        if found is None:
            found = self.exports[step.name] = [
                n for n, p in self._space(step).parameters.items() if p.export
            ]
        return found

    def time_limit(self, wp: Workpackage) -> float | None:
        """A workpackage's own time limit: its step's, or locally its requested time."""
        step = self.spec.benchmark.steps[wp.step]
        text = step.time_limit or (step.resources.time if self.local else None)
        if not text:
            return None
        env = {**self.constants, **wp.point}
        limit = parse_value(template(text, step.loc).render(env), "duration", step.loc)
        assert isinstance(limit, float)  # a duration is a float of seconds
        return float(limit)

    def job_script(self, rendered: Rendered, name: str, writer: Writer) -> Path:
        """The job script of a workpackage's own batch job (a batch platform's template)."""
        admin = admin_dir(rendered.wp_dir)
        script = admin / JOB
        text = self.spec.platform.job_script(
            name=name,
            body=f"exec /bin/sh {shlex.quote(str(rendered.prepared.body))}",
            resolved=rendered.resources,
            workdir=rendered.prepared.workdir,
            stdout=admin / "job.out",
            stderr=admin / "job.err",
        )
        writer.write(script, text)
        return script

    def _check_resources(
        self, step: Step, requested: Mapping[str, object], point: Mapping[str, object]
    ) -> None:
        """Refuse a resource that would break a line of a job script, naming where it came
        from: the step, and the parameter (set in the definition or by ``-p``) it reads."""
        for key, given_value in requested.items():
            value = str(given_value)
            what = control_character(value)
            if not what:
                continue
            sources = [
                f"-p {name}"
                if name in self.spec.overrides
                else f"parameter '{name}'"
                + (f" ({loc})" if (loc := self._parameter_loc(name)) else "")
                for name, given in point.items()
                if control_character(str(given)) and str(given) in value
            ]
            raise DefinitionError(
                f"resource '{key}' of step '{step.name}' holds {what}: {value!r}"
                + (f"; it comes from {', '.join(sources)}" if sources else ""),
                step.loc,
                "a job-script directive value cannot be quoted; it must be one line of "
                "printable text",
            )

    def _parameter_loc(self, name: str) -> Loc | None:
        for parameterset in self.spec.benchmark.parametersets.values():
            if name in parameterset.parameters:
                return parameterset.parameters[name].loc
        return None

    def preparer(self, step: Step, shared: bool) -> StepPreparer:
        found = self.preparers.get((step.name, shared))
        if found is None:
            found = self.preparers[(step.name, shared)] = StepPreparer(
                self.spec.benchmark,
                step,
                home=Path(self.spec.home),
                shared=shared,
                space_of=self._space,
            )
        return found

    def _space(self, step: Step) -> Space:
        """A step's parameter space as it was planned (the run's tags and overrides)."""
        return step_space(
            self.spec.benchmark,
            step,
            overrides=self.spec.overrides,
            tags=self.spec.tags,
            constants=self.constants,
        )

    def _resolve(self, requested: Mapping[str, object]) -> tuple[dict[str, object], str]:
        """The resolved resources (a copy the caller may keep) and the launcher command.

        Many workpackages ask for the same resources; each distinct request is resolved and
        its launcher rendered once (both are pure functions of the request). A resource
        given as one value (``nodes: $nodes``) reaches the platform typed, not as text.
        """
        key = tuple(sorted((k, type(v).__name__, str(v)) for k, v in requested.items()))
        found = self.resolved.get(key)
        if found is None:
            platform = self.spec.platform
            resolved = platform.resolve(requested)
            found = self.resolved[key] = (resolved, platform.launcher_command(resolved))
            warning = platform.oversubscribed(resolved)
            if warning and warning not in self.said:
                self.said.add(warning)
                self.warnings.append(warning)
        return dict(found[0]), found[1]

    def _platform_environment(self, resolved: Mapping[str, object]) -> dict[str, str]:
        """Locally the wrapper runs without the job template, so it exports these itself."""
        platform = self.spec.platform
        if not self.local or not platform.environment:
            return {}
        key = tuple(sorted((k, str(v)) for k, v in resolved.items()))
        found = self.platform_envs.get(key)
        if found is None:
            found = self.platform_envs[key] = platform.environment_for(resolved)
        return found


def step_darshan(benchmark: Benchmark, step: Step, platform: Platform) -> Darshan | None:
    """The Darshan a step runs under: its own setting, else its study's, else the platform's."""
    return effective(step.darshan, benchmark.darshan, platform.darshan, f"step '{step.name}'")


def _late(value: str, env: Mapping[str, object], step: Step) -> str:
    """Values that name a workpackage's own ``$jube_*`` variables, known only now (as JUBE,
    up to five passes, for values that refer to such values)."""
    for _ in range(5):
        rendered = template(value, step.loc).render(env)
        if rendered == value:
            break
        value = rendered
    return value
