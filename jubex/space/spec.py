"""The resolved run: what a run is made from, frozen and absolute.

Run, dry run, info, continue, analyse, result and compare all start from this one value, and
a run keeps it (``run.json``), so they see exactly what the run ran from any directory and
whatever happens to the files later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path

from jubex.definition.model import Benchmark
from jubex.errors import DefinitionError, DefinitionWarning, ErrorList, UsageError
from jubex.plain import dataclass
from jubex.platform.model import Platform


@dataclass(frozen=True)
class RunSpec:
    """A definition resolved for one run: tags applied, ``-p`` overrides placed, paths absolute.

    ``home`` is the definition's directory (JUBE's benchmark home: relative paths of files
    and work directories start there); ``outpath`` is where the run directory is made.
    """

    benchmark: Benchmark
    platform: Platform
    definition: str = ""
    home: str = ""
    outpath: str = ""
    tags: tuple[str, ...] = ()
    overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    include_path: tuple[str, ...] = ()
    #: where each parameter's values come from (command line, platform file, definition)
    sources: dict[str, str] = field(default_factory=dict)


def resolve_spec(
    benchmark: Benchmark,
    platform: Platform,
    *,
    tags: Iterable[str] = (),
    overrides: Mapping[str, Sequence[str]] | None = None,
    include_path: Iterable[str | Path] = (),
    outpath: str | Path | None = None,
) -> RunSpec:
    """The run a benchmark, a platform, tags and overrides make; every path absolute."""
    # what resolving checks, imported here: a run read back (``run.json``) is a RunSpec
    # already, and reading one needs neither the planner nor the expression language
    from jubex.definition.tags import apply_tags
    from jubex.space.check import check_cycle_updates
    from jubex.space.plan import check_overrides
    from jubex.space.sources import platform_values

    tags = tuple(tags)
    platform, rest = _platform_overrides(platform, overrides, benchmark, tags)
    if rest:
        check_overrides(benchmark, rest)
    benchmark, sources = platform_values(
        apply_tags(benchmark, tags), platform, set(overrides or {}) - {TARGET}, tags
    )
    check_cycle_updates(benchmark)
    _check_shell_names(benchmark, platform)
    definition = Path(benchmark.file).resolve() if benchmark.file else None
    home = definition.parent if definition else Path.cwd()
    out = Path(outpath) if outpath is not None else home / benchmark.outpath
    check_outpath_length(out.absolute(), given=outpath is not None, benchmark=benchmark)
    return RunSpec(
        benchmark=dataclasses.replace(benchmark, file=str(definition or "")),
        platform=platform,
        definition=str(definition or ""),
        home=str(home),
        outpath=str(out.absolute()),
        tags=tags,
        overrides={k: tuple(v) for k, v in rest.items()},
        include_path=tuple(str(Path(p).resolve()) for p in include_path),
        sources=sources,
    )


def _check_shell_names(benchmark: Benchmark, platform: Platform) -> None:
    """A ``$name`` no parameter, platform value or command gives is refused before a run."""
    if benchmark.dialect != "jubex":
        return
    from jubex.definition.shell_names import check_shell_names

    given = [*platform.parameters, *platform.environment]
    errors = [
        p for p in check_shell_names(benchmark, given) if not isinstance(p, DefinitionWarning)
    ]
    if errors:
        raise errors[0] if len(errors) == 1 else ErrorList(errors)


def check_outpath_length(out: Path, *, given: bool, benchmark: Benchmark) -> None:
    """Refuse an outpath the system cannot take before anything resolves it, part by part."""
    from jubex.language.confine import too_long

    reason = too_long(out)
    if reason is None:
        return
    message = f"the outpath {str(out)[:60]}... {reason}"
    if given:
        raise UsageError(message, hint="give a shorter --outpath")
    raise DefinitionError(message, benchmark.loc, "give a shorter outpath")


#: ``-p jubex_fs=NAME``: the platform's file system a run's benchmarks write to
TARGET = "jubex_fs"


def _target(platform: Platform, values: Sequence[str]) -> Platform:
    """The platform with the file system ``-p jubex_fs=NAME`` names as its target."""
    if len(values) != 1:
        raise UsageError(f"-p {TARGET}=...: name one file system of platform '{platform.name}'")
    try:
        return platform.with_target(values[0])
    except DefinitionError as exc:
        raise UsageError(f"-p {TARGET}={values[0]}: {exc.message}", hint=exc.hint) from None


def _platform_overrides(
    platform: Platform,
    overrides: Mapping[str, Sequence[str]] | None,
    benchmark: Benchmark,
    tags: tuple[str, ...],
) -> tuple[Platform, dict[str, Sequence[str]]]:
    """``-p ior=/opt/ior/bin/ior`` sets a platform parameter (one value) for this run.

    A parameter the definition defines itself (under these tags) shadows the platform's, so
    ``-p`` changes the definition's then; otherwise the override would reach a value no
    command sees.
    """
    from jubex.definition.tags import tag_matches

    rest = dict(overrides or {})
    if TARGET in rest:
        platform = _target(platform, rest.pop(TARGET))
    own = {
        p.name
        for s in benchmark.parametersets.values()
        for p in s.parameters.values()
        if not p.tag or tag_matches(p.tag, tags, p.loc)
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
