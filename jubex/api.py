"""The library: the stages composed as the CLI composes them.

Each stage checks what it alone knows (the load stage the definition's own names, the
expand stage its spaces, the analyse stage its analysers, the tabulate stage its tables);
these functions run all of them, so a library user gets what ``jubex`` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from jubex.analysis.check import check_analysers
from jubex.analysis.run import Batched, RunAnalysis
from jubex.definition import load as loading
from jubex.definition.model import Benchmark
from jubex.engine.driver import Options
from jubex.engine.driver import drive as drive_engine
from jubex.errors import DefinitionWarning, ErrorList, JubexError
from jubex.results.check import check_tables
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
