"""The library: the stages composed as the CLI composes them.

Each stage checks what it alone knows (the load stage the definition's own names, the
expand stage its spaces, the analyse stage its analysers, the tabulate stage its tables);
these functions run all of them, so a library user gets what ``jubex`` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from jubex.analysis.check import check_analysers
from jubex.analysis.run import Batched, RunAnalysis, analyse_run
from jubex.definition import load as loading
from jubex.definition.model import Benchmark
from jubex.engine.driver import Options
from jubex.engine.driver import drive as drive_engine
from jubex.errors import DefinitionWarning, ErrorList, JubexError
from jubex.results.check import check_tables
from jubex.results.compare import Comparison, compare_runs
from jubex.results.table import ResultTable
from jubex.results.tabulate import tabulate
from jubex.space.check import check_spaces
from jubex.store.rundir import Run


def later_checks(benchmark: Benchmark) -> list[JubexError]:
    """What the stages after loading find wrong with a benchmark (warnings included)."""
    if benchmark.dialect != "jubex":
        return []
    return [*check_analysers(benchmark), *check_tables(benchmark)]


def load(
    path: str | Path, *, tags: Iterable[str] = (), include_path: Sequence[Path] = ()
) -> Benchmark:
    """The benchmark a definition file describes; raises every error found (not warnings)."""
    benchmark = loading.load(path, tags=tags, include_path=include_path)
    errors = [p for p in later_checks(benchmark) if not isinstance(p, DefinitionWarning)]
    if errors:
        raise errors[0] if len(errors) == 1 else ErrorList(errors)
    return benchmark


def validate(paths: Iterable[str | Path], tags: Sequence[str] = ()) -> list[JubexError]:
    """Every problem of every file, warnings included (they have ``exit_code`` 0)."""
    problems: list[JubexError] = []
    for path in paths:
        benchmark, found = loading.problems_of(path, tags)
        problems += found
        if benchmark is None:
            continue
        problems += later_checks(benchmark)
        if benchmark.dialect == "jubex" and all(isinstance(p, DefinitionWarning) for p in found):
            problems += check_spaces(benchmark, tags)
    return problems


def drive(run: Run, options: Options, *, retry_failed: bool = False) -> dict[str, int]:
    """Run (or continue) a run until done, analysing each workpackage as it finishes."""
    analysis = Batched(RunAnalysis(run))
    counts = drive_engine(run, options, retry_failed=retry_failed, on_finished=analysis.add)
    analysis.flush()
    return counts


def analyse_runs(runs: Iterable[Run]) -> None:
    """Read the outputs of the runs' workpackages that are not analysed yet."""
    for run in runs:
        analyse_run(run)


def result(
    runs: Run | Sequence[Run],
    tables: Sequence[str] | None = None,
    *,
    include_failed: bool = False,
    analyse: bool = True,
) -> list[ResultTable]:
    """The result tables of one run or several (in one table each), as ``jubex result``
    shows them: each with its columns' units and better directions, its rows and notes.

    ``analyse`` first reads the outputs not analysed yet, as ``jubex result`` does unless
    ``--no-analyse``. Nothing is written besides the store's analysis: render the tables
    with :func:`jubex.results.render`.
    """
    runs = [runs] if isinstance(runs, Run) else list(runs)
    if analyse:
        analyse_runs(runs)
    return tabulate(runs, tables, include_failed=include_failed)


def compare(
    baseline: Run,
    candidate: Run,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    table: str | None = None,
    tolerance: float = 0.05,
    alpha: float = 0.05,
    analyse: bool = True,
) -> Comparison:
    """Is ``candidate`` worse than ``baseline`` beyond the noise and the tolerance?

    As ``jubex compare``: both runs are analysed first; keys and metrics left out are taken
    from ``table``, else from the runs. ``Comparison.failed`` is the verdict.
    """
    if analyse:
        analyse_runs([baseline, candidate])
    return compare_runs(
        baseline,
        candidate,
        keys=keys,
        metrics=metrics,
        table=table,
        tolerance=tolerance,
        alpha=alpha,
    )
