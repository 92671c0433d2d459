"""The library: the stages composed as the CLI composes them.

Each stage checks what it alone knows (the load stage the definition's own names, the
expand stage its spaces, the analyse stage its analysers, the tabulate stage its tables);
these functions run all of them, so a library user gets what ``jubex`` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from jubex.analysis.run import analyse_run, analyse_runs
from jubex.errors import DefinitionWarning, ErrorList, JubexError
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import tabulate
from jubex.space.plan import HELD
from jubex.store.rundir import Run, each_once, open_run, resolve_run
from jubex.store.store import PLANNED, QUEUED, SUBMITTED

if TYPE_CHECKING:
    from jubex.definition.model import Benchmark
    from jubex.engine.driver import Options
    from jubex.platform.model import Platform
    from jubex.results.comparison.compare import Comparison
    from jubex.space.spec import RunSpec
    from jubex.workdir.render import Rendered

# Loading, planning, rendering and running are imported where they are used: ``jubex
# result`` and ``jubex compare`` start in a fraction of the time without them.


def later_checks(benchmark: Benchmark) -> list[JubexError]:
    """What the stages after loading find wrong with a benchmark (warnings included)."""
    from jubex.analysis.check import check_analysers
    from jubex.results.tables.check import check_tables

    if benchmark.dialect != "jubex":
        return []
    return [*check_analysers(benchmark), *check_tables(benchmark)]


def load(
    path: str | Path,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
) -> Benchmark:
    """The benchmark a definition file describes (of a JUBE file holding several, the one
    named ``benchmark``, else the first); raises every error found (not warnings)."""
    from jubex.definition import load as loading

    loaded = loading.load(path, tags=tags, include_path=include_path, benchmark=benchmark)
    errors = [p for p in later_checks(loaded) if not isinstance(p, DefinitionWarning)]
    if errors:
        raise errors[0] if len(errors) == 1 else ErrorList(errors)
    return loaded


@dataclass(frozen=True)
class Selection:
    """What ``jubex run`` is told besides the file, so that ``validate`` checks the same
    run: the platform, ``-p`` values, include directories and the benchmark of a file."""

    platform: str | None = None
    overrides: Mapping[str, Sequence[str]] = field(default_factory=dict)
    include_path: Sequence[str | Path] = ()
    benchmark: str | None = None


#: workpackages validate renders as the run would (the rest are counted, not rendered)
VALIDATE_RENDERED = 1_000


def validate(
    paths: Iterable[str | Path],
    tags: Sequence[str] = (),
    *,
    max_workpackages: int | None = None,
    selection: Selection | None = None,
) -> list[JubexError]:
    """Every problem of every file, warnings included (they have ``exit_code`` 0); a run
    larger than ``max_workpackages`` (else the definition's limit) is one of them. A file
    with no error is then resolved and planned as ``run`` would with ``selection``, its
    workpackages rendered as the dry run renders them (the first
    :data:`VALIDATE_RENDERED`; when :func:`_rendered_checks` finds anything to see), so
    that validate refuses what run refuses."""
    from jubex.definition import load as loading
    from jubex.space.check import check_spaces

    selection = selection or Selection()
    problems: list[JubexError] = []
    for path in paths:
        if _is_platform_file(Path(path)):
            problems += _platform_problems(str(path))
            continue
        first = loading.problems_of(path, tags, selection.benchmark)
        # a JUBE file holding several benchmarks: each is checked, as jubex run runs each
        others = first.benchmark.file_benchmarks[1:] if first.benchmark else ()
        others = () if selection.benchmark else others
        for reading in [first, *(loading.problems_of(path, tags, n) for n in others)]:
            before = len(problems)
            problems += reading.problems
            benchmark = reading.benchmark
            if benchmark is None:
                continue
            problems += reading.own(later_checks(benchmark))
            if benchmark.dialect == "jubex" and reading.sound:
                spaces = reading.own(check_spaces(benchmark, tags))
                problems += spaces
                if not reading.removed and all(isinstance(p, DefinitionWarning) for p in spaces):
                    problems += _work_problems(benchmark, tags, max_workpackages)
                problems += reading.own(_with_platform(benchmark, tags, selection.platform))
            problems += _outpath_problems(benchmark)
            if not any(p.exit_code for p in problems[before:]) and _rendered_checks(
                benchmark, selection
            ):
                problems += _as_run_would(path, benchmark, tags, max_workpackages, selection)
    files: dict[str, int] = {}  # each file's problems together, in the order of their lines
    return sorted(
        {str(p): p for p in problems}.values(),
        key=lambda p: (files.setdefault(p.loc.file, len(files)), p.loc.line) if p.loc else (-1, 0),
    )


def _rendered_checks(benchmark: Benchmark, selection: Selection) -> bool:
    """Whether the run could refuse what the checks of the written file cannot see: a
    selection from the command line, code allowed to run, or a suffix, file, substitution
    or resource made of values. Else planning again is only time (a range of a million
    values read twice, a JUBE file of a thousand benchmarks read a thousand times more)."""
    from jubex.definition.model import CODE_MODES
    from jubex.language.inspection import inspecting

    if selection != Selection():
        return True
    params = [p for s in benchmark.parametersets.values() for p in s.parameters.values()]
    if not inspecting() and any(p.mode in CODE_MODES for p in params):
        return True  # code allowed to run: what it gives is only known by running it
    made = [step.suffix for step in benchmark.steps.values()]
    made += [repr(step.resources) for step in benchmark.steps.values()]
    made += [repr(s) for s in (*benchmark.filesets.values(), *benchmark.substitutesets.values())]
    return any("$" in text for text in made)


def _as_run_would(
    path: str | Path,
    benchmark: Benchmark,
    tags: Sequence[str],
    limit: int | None,
    selection: Selection,
) -> list[JubexError]:
    """What ``run`` (and its dry run) refuses of the benchmark with the same choices: the
    platform, the ``-p`` values, a suffix or a file target made of values. A problem that
    only a value left unevaluated made (code a look does not run) is none."""
    from jubex.language.inspection import NOT_EVALUATED

    name = benchmark.name if benchmark.file_benchmarks else None
    try:
        spec = resolve(
            path,
            tags=tags,
            platform=selection.platform,
            overrides=selection.overrides,
            include_path=selection.include_path,
            benchmark=selection.benchmark or name,
        )
        planned = dry_run(spec, max_workpackages=limit)
        for _ in islice(planned, VALIDATE_RENDERED):
            pass
        if next(planned, None) is not None:
            return [
                DefinitionWarning(
                    f"validate rendered the first {VALIDATE_RENDERED:,} workpackages as run "
                    "would; the others were counted, not rendered",
                    hint=f"jubex run {path} --dry-run --all renders every one",
                )
            ]
    except JubexError as exc:
        errors = list(exc.errors) if isinstance(exc, ErrorList) else [exc]
        return [e for e in errors if NOT_EVALUATED not in str(e)]
    return []


def _outpath_problems(benchmark: Benchmark) -> list[JubexError]:
    """An outpath the system cannot take, as ``run`` refuses it."""
    from jubex.space.spec import check_outpath_length

    home = Path(benchmark.file).parent if benchmark.file else Path.cwd()
    try:
        check_outpath_length(
            (home / benchmark.outpath).absolute(), given=False, benchmark=benchmark
        )
    except JubexError as exc:
        return [exc]
    return []


def _is_platform_file(path: Path) -> bool:
    """A platform file, which validate checks as a run would load it."""
    from jubex.definition.load import is_platform
    from jubex.platform.read import read_file

    try:
        data, _ = read_file(path)
    except JubexError:
        return False
    return is_platform(data)


def _platform_problems(name_or_path: str) -> list[JubexError]:
    """Every problem of a platform (its parents merged in), as a run would find them."""
    from jubex.platform.load import load_platform
    from jubex.schedulers.registry import unknown_scheduler

    try:
        platform = load_platform(name_or_path)
    except ErrorList as exc:
        return list(exc.errors)
    except JubexError as exc:
        return [exc]
    problem = unknown_scheduler(platform)
    return [problem] if problem else []


def _with_platform(
    benchmark: Benchmark, tags: Sequence[str], chosen: str | None = None
) -> list[JubexError]:
    """The definition's platform must exist and be valid, and the commands' ``$name``s
    must be parameters, the platform's values or set by a command (as ``run`` checks)."""
    from jubex.definition.shell_names import check_shell_names
    from jubex.definition.tags import apply_tags
    from jubex.platform.load import load_platform

    try:
        platform = load_platform(chosen or benchmark.platform)
    except JubexError as exc:
        errors = list(exc.errors) if isinstance(exc, ErrorList) else [exc]
        for error in errors:
            if error.loc is None:
                error.message = f"platform: {error.message}"
                error.at(benchmark.loc)
        return errors
    from jubex.schedulers.registry import unknown_scheduler

    problem = unknown_scheduler(platform)
    given = [*platform.parameters, *platform.environment]
    return [
        *([problem] if problem else []),
        *_darshan_problems(benchmark, platform),
        *check_shell_names(apply_tags(benchmark, tuple(tags)), given),
    ]


def _darshan_problems(benchmark: Benchmark, platform: Platform) -> list[JubexError]:
    """Each step that is to run under Darshan must know where Darshan comes from."""
    from jubex.workdir.render import step_darshan

    problems: list[JubexError] = []
    for step in benchmark.steps.values():
        try:
            step_darshan(benchmark, step, platform)
        except JubexError as exc:
            problems.append(exc)
    return problems


def _work_problems(
    benchmark: Benchmark, tags: Sequence[str], limit: int | None
) -> list[JubexError]:
    from jubex.space.limit import check_work

    try:
        check_work(benchmark, limit=limit, tags=tags)
    except JubexError as exc:
        return [exc]
    return []


def drive(run: Run, options: Options, *, retry_failed: bool = False) -> dict[str, int]:
    """Run (or continue) a run until done, analysing each workpackage as it finishes."""
    from jubex.analysis.run import Batched, RunAnalysis
    from jubex.engine.driver import drive as drive_engine
    from jubex.results.repetitions.repeat import Round, next_round

    analysis = Batched(RunAnalysis(run))
    while True:
        counts = drive_engine(run, options, retry_failed=retry_failed, on_finished=analysis.add)
        analysis.flush()
        if not counts.get(HELD) or not options.wait or _under_way(counts):
            return counts
        analyse_run(run)  # what finished while no jubex watched is judged too
        if next_round(run) == Round():
            return counts
        retry_failed = False


def _under_way(counts: Mapping[str, int]) -> bool:
    """Whether workpackages are still to run (a stopped or interrupted drive)."""
    return any(counts.get(state) for state in (PLANNED, QUEUED, SUBMITTED))


def resolve(
    definition: str | Path,
    *,
    tags: Iterable[str] = (),
    platform: str | None = None,
    overrides: Mapping[str, Sequence[str]] | None = None,
    include_path: Sequence[str | Path] = (),
    outpath: str | Path | None = None,
    benchmark: str | None = None,
    templates: bool = True,
) -> RunSpec:
    """The one way from a definition file (and the command line's choices) to a run; of a
    JUBE file holding several benchmarks, the one named ``benchmark`` (else the first:
    ``spec.benchmark.file_benchmarks`` names them all). ``templates=False``: the platform's
    templates are not compiled (for a command that renders no job: see ``load_platform``)."""
    from jubex.language import python
    from jubex.platform.load import load_platform
    from jubex.space.spec import resolve_spec

    tags = tuple(tags)
    paths = [Path(p) for p in include_path]
    # A JUBE file's platform is the given one (else local): known before reading, so that
    # its python: false refuses the snippets reading works out.
    first = load_platform(platform, templates=templates) if platform else _local_platform(templates)
    python.refuse_for_platform(None if first is None or first.python else first.name)
    loaded = load(definition, tags=tags, include_path=paths, benchmark=benchmark)
    chosen = first if first and (platform or not loaded.platform) else None
    chosen = chosen or load_platform(platform or loaded.platform, templates=templates)
    python.refuse_for_platform(None if chosen.python else chosen.name)
    return resolve_spec(
        loaded, chosen, tags=tags, overrides=overrides, include_path=paths, outpath=outpath
    )


def _local_platform(templates: bool) -> Platform | None:
    """The platform of a definition that names none, if it loads (else it is not needed
    before the definition names its own)."""
    from jubex.platform.load import load_platform

    try:
        return load_platform(None, templates=templates)
    except JubexError:
        return None


def run(
    spec: RunSpec, options: Options | None = None, *, max_workpackages: int | None = None
) -> tuple[Run, dict[str, int]]:
    """Make a run of a spec and drive it: the run and how many workpackages are in each state.

    A run larger than ``max_workpackages`` (else the definition's limit) is refused first."""
    from jubex.engine.driver import Options, new_run
    from jubex.space.limit import check_work

    check_work(spec.benchmark, limit=max_workpackages, overrides=spec.overrides, tags=spec.tags)
    made = new_run(spec)
    return made, drive(made, options or Options())


def start(
    spec: RunSpec, options: Options | None = None, *, max_workpackages: int | None = None
) -> tuple[Run, int]:
    """Make a run of a spec and leave its driving to a process of its own, which runs it to
    the end (``jubex run --no-wait`` on the local platform): the run and that process's id.
    ``jubex status`` shows how far it is; its output is in ``RUN/driver.log``."""
    from jubex.engine.driver import Options, detach, new_run
    from jubex.space.limit import check_work

    check_work(spec.benchmark, limit=max_workpackages, overrides=spec.overrides, tags=spec.tags)
    made = new_run(spec)
    return made, detach(made, options or Options())


@dataclass
class DryWorkpackage:
    """What a run would make of one workpackage: rendered, with every file effect listed."""

    rendered: Rendered
    #: one line per directory, link, copy, prepare command, substitution and script
    actions: list[str]
    #: the wrapper (and, on a batch platform, the job script) as they would be written
    scripts: dict[Path, str]
    #: what the run would warn about first at this workpackage (more processes than cores)
    warnings: tuple[str, ...] = ()


def dry_run(
    spec: RunSpec, *, max_workpackages: int | None = None, earlier: int = 0
) -> Iterator[DryWorkpackage]:
    """Every workpackage a run of the spec would make, rendered exactly as the run renders
    it (the same function), in the run directory it would get (after ``earlier`` runs made
    in its outpath first: the other benchmarks of its file); nothing is written. A run
    larger than ``max_workpackages`` (else the definition's limit) is refused, as by run."""
    from jubex.schedulers.registry import scheduler_for
    from jubex.space.limit import check_work
    from jubex.space.plan import Workpackage, plan
    from jubex.store.rundir import next_run_dir
    from jubex.workdir.render import Renderer, constants_for
    from jubex.workdir.writer import DryWriter

    check_work(spec.benchmark, limit=max_workpackages, overrides=spec.overrides, tags=spec.tags)
    run_dir = next_run_dir(Path(spec.outpath).resolve(), earlier)
    scheduler = scheduler_for(spec.platform)
    renderer = Renderer(spec, run_dir, local=scheduler.local)
    planned: dict[int, Workpackage] = {}
    constants = constants_for(spec, run_dir)
    for wp in plan(spec.benchmark, overrides=spec.overrides, tags=spec.tags, constants=constants):
        planned[wp.id] = wp
        writer = DryWriter()
        rendered = renderer.render(wp, [planned[p] for p in wp.parents], writer)
        if not scheduler.local:
            renderer.job_script(rendered, f"jx{run_dir.name}-{wp.id}", writer)
        warnings, renderer.warnings = tuple(renderer.warnings), []
        yield DryWorkpackage(rendered, writer.actions, writer.files, warnings)


def open_runs(runs: Run | str | Path | Sequence[Run | str | Path]) -> list[Run]:
    """Runs given as opened runs, run directories, or JUBE's ids and ``last`` (as the CLI),
    each once."""
    items = [runs] if isinstance(runs, (Run, str, Path)) else list(runs)
    return each_once(
        r if isinstance(r, Run) else open_run(resolve_run(str(r)), follow=False) for r in items
    )


def result(
    runs: Run | str | Path | Sequence[Run | str | Path],
    tables: Sequence[str] | None = None,
    *,
    include_failed: bool = False,
    analyse: bool = True,
    pivot_by: str | None = None,
    by: Sequence[str] | None = None,
) -> list[ResultTable]:
    """The result tables of one run or several (in one table each), as ``jubex result``
    shows them: each with its columns' units and better directions, its rows and notes.

    ``analyse`` first reads the outputs not analysed yet, as ``jubex result`` does unless
    ``--no-analyse``. ``pivot_by`` puts the values of that key side by side (``site``).
    Whatever differs between several runs is a column of every table; ``by`` names the
    keys instead (``["run"]``: never pool), ``[]`` pools them (``--by``, ``--pool``).
    Nothing is written besides the store's analysis: render the tables with
    :func:`jubex.results.render`.
    """
    opened = open_runs(runs)
    if analyse:
        analyse_runs(opened)
    return tabulate(opened, tables, include_failed=include_failed, pivot_by=pivot_by, by=by)


def compare(
    baseline: Run | str | Path,
    candidate: Run | str | Path,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    table: str | None = None,
    tolerance: float = 0.05,
    alpha: float = 0.05,
    test: str = "moderated",
    correction: str = "holm",
    all_metrics: bool = False,
    analyse: bool = True,
    allow_inconclusive: bool = False,
    strict: bool = False,
) -> Comparison:
    """Is ``candidate`` worse than ``baseline`` beyond the noise and the tolerance?

    As ``jubex compare``: both runs are analysed first; keys and metrics left out are taken
    from ``table``, else from the runs. ``Comparison.failed`` is the verdict, ``status``
    the exit status of ``jubex compare`` (4: inconclusive; ``strict`` makes that a failure,
    ``allow_inconclusive`` a pass).
    """
    from jubex.results.comparison.compare_runs import compare_runs  # its tests: compare only

    (base,), (cand,) = open_runs(baseline), open_runs(candidate)
    if analyse:
        analyse_runs([base, cand])
    return compare_runs(
        base,
        cand,
        keys=keys,
        metrics=metrics,
        table=table,
        tolerance=tolerance,
        alpha=alpha,
        test=test,
        correction=correction,
        all_metrics=all_metrics,
        allow_inconclusive=allow_inconclusive,
        strict=strict,
    )
