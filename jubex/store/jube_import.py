"""A run directory JUBE made, brought in as a jubex run: ``jubex import-jube DIR``.

The new run holds JUBE's benchmark (``configuration.xml``, read as ``jubex run`` reads a
JUBE file), each workpackage with the values its parameters took and its state (done,
failed with JUBE's message, unfinished, never started), and what JUBE's analysers found
(``analyse.xml``, statistics included, as JUBE computed them). Its tables are therefore
JUBE's own: a reducing analyser's row is the workpackage JUBE chose for the group, with
JUBE's statistics over the iterations, and nothing is analysed again (JUBE's files keep the
statistics, not the matches they came from, and its shell and python patterns are code).

Everything is read and checked before anything is written, and all that is written is the
new run directory below the outpath (and jubex's note of where runs were made from).
"""

from __future__ import annotations

import json
import math
import shutil
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from jubex.definition.model import STATISTICS, Analyser, Benchmark
from jubex.errors import JubexError, Loc
from jubex.language.values import parse_value
from jubex.platform.model import Platform
from jubex.space.spec import RunSpec, resolve_spec
from jubex.space.workpackage import Workpackage
from jubex.store.jube_dir import (
    CONFIGURATION,
    DONE,
    ERROR,
    OPEN,
    WAITING,
    JubeAnalysis,
    JubeRun,
    JubeRunError,
    JubeWorkpackage,
    plain_name,
    read_jube_run,
    read_root,
    table_files,
    whole_number,
)
from jubex.store.jube_origin import JubeOrigin, read_origin
from jubex.store.measurement import Measurement
from jubex.store.rundir import JUBE_ROWS, RUN_OWN, STORE, Run, create_run, list_runs, user_name
from jubex.store.store import DONE as DONE_STATE
from jubex.store.store import FAILED, PLANNED, SUBMITTED, Store

#: the longest chain of dependent workpackages read (JUBE's have one per step)
MAX_CHAIN = 200
_STATES = {DONE: DONE_STATE, ERROR: FAILED, WAITING: SUBMITTED, OPEN: PLANNED}
#: elements of a JUBE file that read other files; JUBE writes configuration.xml without them
_READING_ELSEWHERE = ("include", "include-path")
#: the platform of an imported run: JUBE records no platform, scheduler or host
JUBE_PLATFORM = "jube"
#: the longest ``--site`` name
MAX_SITE = 100
#: where an imported run keeps JUBE's own tables (``result/*.dat``), as JUBE wrote them
JUBE_RESULT = "jube-result"
#: the store meta key of the sentences saying which of JUBE's tables were not kept
JUBE_TABLES_LEFT_OUT = "jube_tables_left_out"


def jube_run_dirs(path: Path, ids: Sequence[str]) -> list[Path]:
    """The JUBE run directories ``path`` names: itself, or of a benchmark's outpath
    (``bench_run``) the runs of ``ids`` (``all``, or none given: every run in it)."""
    if (path / CONFIGURATION).is_file():
        if ids:
            raise JubeRunError(f"'{path}' is one run's directory; -i chooses runs of an outpath")
        return [path]
    try:
        found = sorted(
            p for p in path.iterdir() if p.name.isdigit() and (p / CONFIGURATION).is_file()
        )
    except OSError as exc:
        raise JubeRunError(f"cannot read '{path}': {exc.strerror or exc}") from None
    if not found:
        raise JubeRunError(
            f"'{path}' is neither a JUBE run directory (no {CONFIGURATION}) nor a benchmark's "
            "outpath holding some (no 000000/ ... with one)",
        )
    if not ids or "all" in ids:
        return found
    by_id = {int(p.name): p for p in found}
    chosen = []
    for given in ids:
        number = whole_number(given)
        if number is None or number not in by_id:
            known = ", ".join(str(i) for i in sorted(by_id))
            raise JubeRunError(f"'{path}' holds no run of id '{given[:40]}' (it holds {known})")
        chosen.append(by_id[number])
    return chosen


def imported_jube(path: Path, outpath: Path) -> list[Path]:
    """The runs below ``outpath`` imported from the JUBE run directory ``path``."""
    where = str(path.resolve())
    found = []
    for run_dir in list_runs(outpath):
        try:
            store = Store(run_dir / STORE)
        except JubexError:
            continue
        try:
            if store.meta().get("imported_from") == where and JUBE_ROWS in store.meta():
                found.append(run_dir)
        finally:
            store.close()
    return found


def import_jube(path: Path, outpath: Path, *, site: str = "") -> Run:
    """Make a jubex run below ``outpath`` of the JUBE run directory ``path``; ``site``:
    the system it ran on, as the one importing it says (JUBE does not record it)."""
    if site and not (plain_name(site) and len(site) <= MAX_SITE):
        raise JubeRunError(
            f"--site {site[:80]!r}: expected a system's name (one plain name of at most "
            f"{MAX_SITE} characters)"
        )
    source = read_jube_run(path)
    benchmark = _benchmark(source)
    wps = _workpackages(source, benchmark)
    values = _values(source, benchmark)
    rows = _rows(source, benchmark)
    origin = read_origin(
        path,
        read_root(source.configuration).get("version", ""),
        [path / wp.dir_name for wp in source.workpackages if wp.state == ERROR],
    )
    spec = _spec(benchmark, outpath, _tags(source), origin, site)
    tables, left_out = table_files(path)
    run = create_run(spec)
    try:
        _keep_tables(tables, run.dir / JUBE_RESULT)
        run.store.add_workpackages(wps)
        run.store.set_states((wp.id, wp.state, None, None, wp.reason) for wp in wps)
        states = {wp.id: wp for wp in wps}
        run.store.store_analysis(
            (wp, states[wp].state == DONE_STATE, states[wp].reason, "jube", found)
            for wp, found in values.items()
        )
        run.store.set_meta(
            {
                **_provenance(path, origin, site),
                JUBE_TABLES_LEFT_OUT: json.dumps(left_out),
                JUBE_ROWS: json.dumps(rows, separators=(",", ":")),
            }
        )
    except BaseException:
        run.store.close()
        shutil.rmtree(run.dir, ignore_errors=True)
        raise
    return run


def _keep_tables(tables: Sequence[Path], folder: Path) -> None:
    """Copies of JUBE's tables, read-only: what ``jube result`` showed stays to be seen."""
    if not tables:
        return
    folder.mkdir()
    for table in tables:
        target = folder / table.name
        shutil.copyfile(table, target)
        target.chmod(0o444)


def _benchmark(source: JubeRun) -> Benchmark:
    """JUBE's benchmark as it ran, read as jubex reads a JUBE file (no code runs: nothing
    is planned), refusing a file that would make jubex read other files."""
    from jubex.definition import load as loading

    root = read_root(source.configuration)
    for element in root.iter():
        if element.tag in _READING_ELSEWHERE or element.get("from") is not None:
            raise JubeRunError(
                f"<{element.tag!s}> reads another file, which a configuration.xml JUBE "
                "wrote never does (it holds the benchmark whole)",
                Loc(str(source.configuration), element.sourceline or 0),
            )
    benchmark = loading.load(source.configuration)
    if benchmark.dialect != "jube":
        raise JubeRunError("is not a JUBE file (no root <jube>)", Loc(str(source.configuration), 1))
    for parameterset in benchmark.parametersets.values():
        for parameter in parameterset.parameters.values():
            if parameter.type == "auto":  # JUBE's type="string": a text, sorted as one
                parameter.type = "str"
    return benchmark


def _spec(
    benchmark: Benchmark, outpath: Path, tags: Sequence[str], origin: JubeOrigin, site: str
) -> RunSpec:
    """The run's spec: JUBE's benchmark, a platform that says only that the run came from
    JUBE (JUBE records no platform, scheduler or host) and the site it was said to run at,
    and the tags JUBE ran it with (already applied: they are only noted)."""
    ran = f"JUBE {origin.version}".strip()
    where = f" in {origin.directory}" if origin.directory else ""
    platform = Platform(
        name=JUBE_PLATFORM,
        scheduler="",
        description=f"a run {ran} made{where}; JUBE records no platform, scheduler or host",
        site=site,
        python=False,
    )
    return resolve_spec(benchmark, platform, tags=tags, outpath=outpath)


def _provenance(path: Path, origin: JubeOrigin, site: str) -> dict[str, str]:
    """The run's meta: where JUBE ran it as far as its files say ('' where they do not:
    the host and the user are never recorded), the site the importer named, and who
    imported it where and when."""
    return {
        "imported_from": str(path.resolve()),
        "imported": f"{time.time():.3f}",
        "imported_outputs": "no",
        "imported_on": socket.gethostname(),
        "imported_by": user_name(),
        "import_command": " ".join(sys.argv),
        "created": f"{origin.started or (path / CONFIGURATION).stat().st_mtime:.3f}",
        "jube_version": origin.version,
        "jube_command": origin.command,
        "jube_directory": origin.directory,
        "jube_directory_from": origin.directory_from,
        "jube_site": site,
        "scheduler": "",
        "host": "",
        "user": "",
        "cwd": "",
        "command": origin.command,
    }


def _tags(source: JubeRun) -> list[str]:
    """The tags JUBE ran with: configuration.xml's ``<selection><tag>``."""
    root = read_root(source.configuration)
    return [t.text.strip() for t in root.iterfind("selection/tag") if t.text and t.text.strip()]


def _workpackages(source: JubeRun, benchmark: Benchmark) -> list[Workpackage]:
    """jubex's workpackages: a dependent one's values are its parents' and its own, as
    JUBE's tables show them."""
    by_id = {wp.id: wp for wp in source.workpackages}
    points: dict[int, dict[str, object]] = {}

    visiting: set[int] = set()

    def point(wp: JubeWorkpackage) -> dict[str, object]:
        if wp.id not in points:
            if wp.id in visiting or len(visiting) > MAX_CHAIN:
                raise JubeRunError(
                    f"workpackage {wp.id} depends on itself, or on a chain of more than "
                    f"{MAX_CHAIN} workpackages",
                    _loc(source),
                )
            visiting.add(wp.id)
            merged: dict[str, object] = {}
            for parent in wp.parents:
                merged.update(point(by_id[parent]))
            merged.update(wp.params)
            points[wp.id] = merged
            visiting.discard(wp.id)
        return points[wp.id]

    types = benchmark.parameter_types()
    wps = []
    for wp in source.workpackages:
        if wp.step not in benchmark.steps:
            raise JubeRunError(
                f"workpackage {wp.id} is of the step '{wp.step}', which configuration.xml "
                "does not define",
                _loc(source),
            )
        if not plain_name(wp.dir_name) or wp.dir_name in RUN_OWN:
            raise JubeRunError(f"workpackage {wp.id}'s directory is not one plain name")
        _check_values(wp, types, source)
        wps.append(
            Workpackage(
                id=wp.id,
                step=wp.step,
                iteration=wp.iteration,
                point=point(wp),
                parents=wp.parents,
                dir_name=wp.dir_name,
                state=_STATES[wp.state],
                reason=wp.reason,
            )
        )
    return wps


def _check_values(wp: JubeWorkpackage, types: dict[str, str], source: JubeRun) -> None:
    """Each value reads back as its parameter's type (tables decode them so)."""
    for name, text in wp.params.items():
        try:
            parse_value(text, types.get(name, "str"))
        except JubexError as exc:
            raise JubeRunError(
                f"workpackage {wp.id}: the parameter '{name}' holds {text[:80]!r}, "
                f"not a value of its type {types.get(name)} ({exc.message})",
                _loc(source),
            ) from None


def _loc(source: JubeRun) -> Loc:
    return Loc(str(source.dir / "workpackages.xml"))


def _values(source: JubeRun, benchmark: Benchmark) -> dict[int, list[Measurement]]:
    """Each analysed workpackage's values with their units (a statistic has its pattern's,
    a count none); a name two analysers give keeps the first analyser's value. A pattern
    of the analyser that JUBE stored nothing of (it matched nothing, no default) is there
    without a value, as in a run of jubex's, so that a table's column of it is empty."""
    patterns = {
        pattern.name: pattern
        for patternset in benchmark.patternsets.values()
        for pattern in patternset.patterns.values()
    }
    units = {name: pattern.unit for name, pattern in patterns.items()}
    found: dict[int, dict[str, Measurement]] = {}
    for analysis in source.analyses:
        values = found.setdefault(analysis.wp, {})
        for name, value in analysis.values:
            if isinstance(value, float) and math.isnan(value):
                value = "nan"  # JUBE's mark of a value it could not compute, shown as JUBE shows it
            values.setdefault(name, Measurement(name, value, _unit(name, units)))  # type: ignore[arg-type]
        analyser = _analyser(source, benchmark, analysis)
        sets = [*analyser.use, *(name for file in analyser.files for name in file.use)]
        for name in sets:
            for pattern in (
                benchmark.patternsets[name].patterns.values()
                if name in benchmark.patternsets
                else ()
            ):
                values.setdefault(pattern.name, Measurement(pattern.name, None, pattern.unit))
    return {wp: list(values.values()) for wp, values in found.items()}


def _analyser(source: JubeRun, benchmark: Benchmark, analysis: JubeAnalysis) -> Analyser:
    """The analyser of configuration.xml that analyse.xml names (jubex splits an analyser
    of several steps into one per step, ``name.step``)."""
    analyser = benchmark.analysers.get(analysis.analyser) or benchmark.analysers.get(
        f"{analysis.analyser}.{analysis.step}"
    )
    if analyser is None:
        raise JubeRunError(
            f"analyse.xml names the analyser '{analysis.analyser[:80]}', which "
            "configuration.xml does not define",
            Loc(str(source.dir / "analyse.xml")),
        )
    return analyser


def _unit(name: str, units: dict[str, str]) -> str:
    if name in units:
        return units[name]
    base, _, stat = name.rpartition("_")
    if stat in (*STATISTICS, "sum2") and base in units:
        return "" if stat == "cnt" else units[base]
    return ""


def _rows(source: JubeRun, benchmark: Benchmark) -> dict[str, list[int]]:
    """The workpackages JUBE's analysers gave rows for: per reducing analyser the one JUBE
    chose for each group of iterations, per other analyser each."""
    rows: dict[str, list[int]] = {"reduced": [], "kept": []}
    for analysis in source.analyses:
        analyser = _analyser(source, benchmark, analysis)
        kind = rows["reduced" if analyser.reduce else "kept"]
        if analysis.wp not in kind:
            kind.append(analysis.wp)
    return {kind: sorted(ids) for kind, ids in rows.items()}
