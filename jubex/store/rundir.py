"""Run directories: ``<outpath>/<id>/`` with the store, the frozen definition and platform.

A run holds everything needed to understand and reproduce it; ``jubex status`` years later
reads the frozen JSON, not the (possibly changed) definition file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NoReturn

from jubex.definition.frozen import from_data, from_json, to_data, to_json
from jubex.definition.model import Benchmark
from jubex.errors import JubexError, UsageError
from jubex.plain import dataclass
from jubex.platform.model import Platform
from jubex.space.spec import RunSpec
from jubex.space.workpackage import Workpackage
from jubex.store.store import Store
from jubex.version import __version__

STORE, SPEC, LOCK = "jubex.sqlite", "run.json", "jubex.lock"
#: the key of run.json that keeps the definition's fingerprint
HASH = "definition_hash"
#: what runs of earlier versions kept instead of run.json
DEFINITION, PLATFORM = "definition.json", "platform.json"
#: what of a run directory is jubex's own, never a workpackage's directory
RUN_OWN = frozenset(
    {STORE, f"{STORE}-wal", f"{STORE}-shm", LOCK, SPEC, DEFINITION, PLATFORM}
    | {"provenance.json", "report.html", "source", "result", "plots"}
)
#: the store meta key of a run imported from JUBE naming the workpackages JUBE's analysers
#: gave rows for (``reduced``: JUBE's choice for a group of iterations; ``kept``: each)
JUBE_ROWS = "jube_rows"


@dataclass
class Run:
    """A run directory: its store and the resolved run it was made from (``stored_hash``:
    its definition's fingerprint as ``run.json`` keeps it, if it does)."""

    dir: Path
    store: Store
    spec: RunSpec
    stored_hash: str | None = None

    @cached_property
    def definition_hash(self) -> str:
        """The resolved definition's fingerprint (:func:`definition_hash`), worked out once
        for a run older than its record in ``run.json``."""
        return self.stored_hash or definition_hash(self.spec.benchmark)

    @property
    def id(self) -> str:
        return self.dir.name

    @property
    def benchmark(self) -> Benchmark:
        return self.spec.benchmark

    @property
    def platform(self) -> Platform:
        return self.spec.platform

    @property
    def meta(self) -> dict[str, str]:
        return self.store.meta()

    @property
    def identity(self) -> str:
        """Who the run is wherever it is read from: its directory, a copy, a bundle, an
        import or the results database (each keeps the run's own store)."""
        meta = self.meta
        return identity_of(meta) if meta.get("uid") else str(self.dir.resolve())


def identity_of(meta: Mapping[str, str]) -> str:
    """A run's identity: the hash of what made it unique where it was made (its random
    uid, the moment it was made, its host and benchmark)."""
    import hashlib  # OpenSSL's: not for a command that reads one run

    parts = [meta.get(k, "") for k in ("uid", "created", "host", "name")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _record_file() -> Path:
    import platformdirs  # only where runs are looked up by directory

    return platformdirs.user_state_path("jubex") / "runs_by_dir.json"


#: how many directories the record of where runs were made from remembers
RECORD_SIZE = 200


def remember(run_dir: Path, *origins: Path) -> None:
    """Note the newest run made from each of ``origins`` (the current directory, the
    definition's): a command without RUN run there again finds it, and only there."""
    path = _record_file()
    record = _read_record()
    for origin in origins:
        record.pop(str(origin.resolve()), None)
        record[str(origin.resolve())] = str(run_dir.resolve())
    kept = dict(list(record.items())[-RECORD_SIZE:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(kept, indent=0))
        os.replace(temporary, path)
    except OSError:
        pass


def _read_record() -> dict[str, str]:
    try:
        record = json.loads(_record_file().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    return {str(k): str(v) for k, v in record.items()}


def next_run_dir(outpath: Path, earlier: int = 0) -> Path:
    """The directory the next run below ``outpath`` would get (nothing is made), after
    ``earlier`` runs made there before it."""
    try:
        ids = [int(p.name) for p in outpath.iterdir() if p.name.isdigit()]
    except OSError:
        ids = []
    return outpath / f"{max(ids, default=-1) + 1 + earlier:06d}"


def definition_hash(benchmark: Benchmark) -> str:
    """The resolved definition's fingerprint (where its file lies left out): two runs of
    one definition, with the same tags and overrides, share it."""
    import hashlib

    benchmark = dataclasses.replace(benchmark, file="")
    return hashlib.sha256(to_json(benchmark).encode()).hexdigest()[:12]


def create_run(spec: RunSpec) -> Run:
    """Make a new run directory with the next free id below the spec's outpath."""
    outpath = Path(spec.outpath)
    try:
        outpath.mkdir(parents=True, exist_ok=True)
        ids = [int(p.name) for p in outpath.iterdir() if p.name.isdigit()]
        next_id = max(ids, default=-1) + 1
        while True:
            run_dir = outpath / f"{next_id:06d}"
            try:
                run_dir.mkdir()
                break
            except FileExistsError:
                next_id += 1
        fingerprint = definition_hash(spec.benchmark)
        # beside the spec's fields (a reader of the spec skips it): opening a run should
        # not turn the definition back into JSON to hash it
        frozen = {**to_data(spec), HASH: fingerprint}
        (run_dir / SPEC).write_text(json.dumps(frozen, indent=1))
        if spec.definition and Path(spec.definition).is_file():
            (run_dir / "source").mkdir()
            shutil.copy2(spec.definition, run_dir / "source" / Path(spec.definition).name)
    except OSError as exc:
        raise JubexError(
            f"cannot create a run directory in '{outpath}': {exc.strerror}",
            hint="choose another place with --outpath",
        ) from None
    import socket  # these three, only where a run is made: reading one needs none of them
    import uuid

    store = Store(run_dir / STORE, create=True, types=spec.benchmark.parameter_types())
    store.set_meta(
        {
            "name": spec.benchmark.name,
            "comment": spec.benchmark.comment,
            "uid": uuid.uuid4().hex[:8],
            "created": f"{time.time():.3f}",
            "definition": spec.definition,
            "platform": spec.platform.name,
            "scheduler": spec.platform.scheduler,
            "jubex_version": __version__,
            "python": sys.version.split()[0],
            "host": socket.gethostname(),
            "user": user_name(),
            "cwd": os.getcwd(),
            "command": " ".join(sys.argv),
            "tags": json.dumps(list(spec.tags)),
            "overrides": json.dumps({k: list(v) for k, v in spec.overrides.items()}),
        }
    )
    origins = [Path.cwd()] + ([Path(spec.definition).parent] if spec.definition else [])
    remember(run_dir, *origins)
    return Run(run_dir, store, spec, fingerprint)


def user_name() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def open_run(run_dir: Path, *, follow: bool = True) -> Run:
    """Open an existing run from its frozen files (its paths are absolute: any directory);
    ``follow=False`` for a command that reads it once (see :class:`Store`), which reads
    what the outpath's catalogue holds of a store at rest instead of opening it, and
    catalogues it when it was read (``catalogue.py``); a run directory not named as an
    outpath's runs are (a number) is read from its store, and nothing is written beside it."""
    if follow or not run_dir.name.isdigit():  # a run elsewhere than in an outpath: no
        store = Store(run_dir / STORE, follow=follow)  # catalogue is made beside it
    else:
        from jubex.store.catalogue import catalogue_of  # only where runs are read once

        catalogue = catalogue_of(run_dir.parent)
        store = Store(run_dir / STORE, follow=False, known=catalogue.known(run_dir))
        catalogue.learn(run_dir.name, store)
    stored = None
    try:
        try:
            with open(os.path.join(run_dir, SPEC), "rb") as file:  # JSON reads UTF-8 bytes
                raw = file.read()
        except FileNotFoundError:
            spec = _earlier_spec(run_dir, store.meta())
            types = spec.benchmark.parameter_types()
        else:
            spec, stored, types = _spec_of(raw)
    except (OSError, ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
        store.close()
        raise UsageError(f"the run {run_dir} is damaged: {str(exc)[:200]}") from None
    store.decode.types.update(types)
    return Run(run_dir, store, spec, stored if isinstance(stored, str) else None)


@lru_cache(maxsize=16)
def _spec_of(raw: bytes) -> tuple[RunSpec, object, dict[str, str]]:
    """A ``run.json``'s spec, the definition's fingerprint it keeps and the parameters'
    types, built once per text: runs of one definition keep the same text, and building
    the spec's ~90 objects was most of the cost of opening each of 1,000 runs. (Specs
    are read, never changed.)"""
    data = json.loads(raw)
    spec = from_data(RunSpec, data)
    return spec, data.get(HASH), spec.benchmark.parameter_types()


def _earlier_spec(run_dir: Path, meta: Mapping[str, str]) -> RunSpec:
    """The spec of a run made by an earlier version (definition.json, platform.json, meta)."""
    benchmark = from_json(Benchmark, (run_dir / DEFINITION).read_text())
    platform = from_json(Platform, (run_dir / PLATFORM).read_text())
    definition = meta.get("definition", "")
    overrides = json.loads(meta.get("overrides") or "{}")
    return RunSpec(
        benchmark=dataclasses.replace(benchmark, file=definition or benchmark.file),
        platform=platform,
        definition=definition,
        home=str(Path(definition).parent) if definition else meta.get("cwd", ""),
        outpath=str(run_dir.parent),
        tags=tuple(json.loads(meta.get("tags") or "[]")),
        overrides={k: tuple(v) for k, v in overrides.items()},
    )


def each_once(runs: Iterable[Run]) -> list[Run]:
    """The runs, each once however it was named (two paths, a link, a copy, a bundle, the
    results database: one :attr:`Run.identity`)."""
    found: dict[str, Run] = {}
    for run in runs:
        found.setdefault(run.identity, run)
    return list(found.values())


def list_runs(outpath: Path) -> list[Path]:
    """Run directories below an outpath, oldest first (by name, as paths of one directory
    sort; names and plain strings, not a path object each: 1,000 runs are read at once)."""
    if not outpath.is_dir():
        return []
    top = os.fspath(outpath)
    with os.scandir(top) as entries:
        names = sorted(entry.name for entry in entries if entry.name.isdigit())
    return [outpath / name for name in names if os.path.exists(f"{top}/{name}/{STORE}")]


def resolve_run(spec: str | None, outpath: str | None = None) -> Path:
    """Find a run from a path, an outpath, an id, ``last`` or a negative index (JUBE's habits);
    ids, ``last`` and -N count in ``outpath``, else in the current directory's runs."""
    if spec:
        path = Path(spec)
        if (path / STORE).exists():
            return path
        if outpath is None and path.is_dir() and list_runs(path):
            return list_runs(path)[-1]
        if "/" in spec or path.exists():
            raise UsageError(f"'{spec}' is not a run directory (it has no {STORE})")
    base = Path(outpath) if outpath else None
    if base is None:
        inside = _enclosing_run(Path.cwd())
        if inside is not None and spec in (None, "last"):
            return inside
        base = outpath_here()
    runs = list_runs(base)
    if not runs:
        raise UsageError(f"no runs found in '{base}'", hint="give a run directory or --outpath")
    if spec in (None, "last"):
        return runs[-1]
    if spec.lstrip("-").isdigit():
        number = int(spec)
        if number < 0:
            if -number > len(runs):
                raise UsageError(f"run {spec}: there are only {len(runs)} runs in '{base}'")
            return runs[number]
        for run in runs:
            if int(run.name) == number:
                return run
    raise UsageError(
        f"no run '{spec}' in '{base}'", hint=f"known: {', '.join(r.name for r in runs[-5:])}"
    )


def resolve_runs(
    specs: Sequence[str],
    outpath: str | None = None,
    last: int | None = None,
    ids: Sequence[str] = (),
) -> list[Path]:
    """Several runs, each once, as JUBE names them: RUN... as ``resolve_run`` finds each,
    ids (``-i``, ``all`` for every run) and the N ``last`` (``-n``) counted in the outpath:
    ``--outpath``, else the outpath RUN names (``runs -i 0`` is run 0 of runs), else this
    directory's; oldest first where an outpath gives several."""
    bases: list[str | None] = [s for s in specs if outpath is None and _is_outpath(Path(s))]
    named = [s for s in specs if s not in bases]
    if "all" in named:
        named.remove("all")
        ids = [*ids, "all"]
    found = [resolve_run(spec, outpath) for spec in named]
    if ids or last is not None:
        if last is not None and last < 1:
            raise UsageError(f"-n {last}: expected a number of runs of at least 1")
        for base in bases or [outpath]:
            found += _ids_in(base, ids, last)
    elif bases:
        found += [resolve_run(base) for base in bases]
    if not found:
        found = [resolve_run(None, outpath)]
    parents: dict[Path, Path] = {}
    return list({_real(path, parents): path for path in found}.values())


def _real(path: Path, parents: dict[Path, Path]) -> Path:
    """``path.resolve()``, with its directory resolved once for all the runs it holds
    (``parents``): the same path where its own name is no link, ``.`` or ``..``."""
    if path.name in ("", ".", "..") or path.is_symlink():
        return path.resolve()
    parent = parents.get(path.parent)
    if parent is None:
        parent = parents[path.parent] = path.parent.resolve()
    return parent / path.name


def _is_outpath(path: Path) -> bool:
    """A directory holding runs that is not a run itself."""
    return not (path / STORE).exists() and bool(list_runs(path))


def _ids_in(outpath: str | None, ids: Sequence[str], last: int | None) -> list[Path]:
    """The runs ``ids`` and the ``last`` N name in one outpath (this directory's without)."""
    base = Path(outpath) if outpath else outpath_here()
    every = list_runs(base)
    if not every:
        raise UsageError(f"no runs found in '{base}'", hint="give --outpath")
    if "all" in ids:
        return every
    chosen = [resolve_run(i, str(base)) for i in ids]
    return chosen + (every[-last:] if last is not None else [])


def outpath_here() -> Path:
    """The outpath whose runs a command without a run directory means, found from the
    current directory alone: the outpath of the run it is in, the directory itself when it
    holds runs, ``./runs`` when it holds runs (a definition's default outpath), else the
    outpath of the latest run made from here (or of a definition here)."""
    here = Path.cwd()
    inside = _enclosing_run(here)
    if inside is not None:
        return inside.parent
    if list_runs(here):
        return here
    if list_runs(Path("runs")):
        return Path("runs")
    made = _read_record().get(str(here.resolve()))
    if made and (Path(made) / STORE).exists():
        return _shown(Path(made).parent)
    raise UsageError(
        f"no runs for this directory ({here}): it is neither in a run nor an outpath, "
        "no run was made from here, and it has no runs/ with runs in it (runs made "
        "elsewhere are not used)",
        hint="name the run: a run directory (jubex status path/to/runs/000000), an outpath "
        "(jubex status path/to/runs), or an id with --outpath DIR",
    )


def _enclosing_run(path: Path) -> Path | None:
    """The run directory ``path`` is in (a work directory of it, say), if any."""
    for candidate in (path, *path.parents):
        if (candidate / STORE).exists() and candidate.name.isdigit():
            return candidate
    return None


def _shown(path: Path) -> Path:
    """Relative to the current directory when below it (as a person typed it), else as is."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def wp_dir_of(run_dir: Path, wp: Workpackage) -> Path:
    """Where a stored workpackage lives (its name is kept in the store since planning):
    below the run, never an absolute path a damaged store names (a JUBE file's suffix may
    climb out with ``..``, as in JUBE; an imported store may not, see ``imported``)."""
    return run_dir / checked_dir_name(run_dir, wp.id, wp.dir_name)


def checked_dir_name(run_dir: Path, wp_id: int, name: str) -> str:
    """A stored workpackage's directory name, refused where it is none inside the run (see
    :func:`wp_dir_of`); plain strings, for reads of every workpackage of many runs."""
    if not name or name in (".", "..") or name.startswith("/") or "\0" in name:
        raise UsageError(
            f"the run store {run_dir / STORE} places workpackage {wp_id} in '{name[:80]}', "
            "which is not a directory name inside the run"
        )
    return name


def owned_wp_dirs(run: Run, wps: list[Workpackage]) -> dict[int, Path]:
    """The directory of each of ``wps`` that jubex may delete or write, checked first for all:
    resolved (links followed), strictly inside the run, none of the run's own files or
    folders (``source/``, the store, ...) and no other workpackage's directory, nor above or
    below one. A store that names any other place (an edited or a hostile one) is refused,
    and nothing is touched."""
    top = run.dir.resolve()
    mine = {wp.id for wp in wps}
    others: dict[Path, int] = {}  # each other workpackage's directory
    above: dict[Path, int] = {}  # the folders above one, inside the run
    for wp in run.store.workpackages():
        if wp.id not in mine:
            path = _resolved(run.dir, wp)
            others.setdefault(path, wp.id)
            for folder in path.parents:
                if folder == top or not folder.is_relative_to(top):
                    break
                above.setdefault(folder, wp.id)
    found: dict[int, Path] = {}
    for wp in wps:
        where = _resolved(run.dir, wp)
        inside = where.relative_to(top).parts if where.is_relative_to(top) else ()
        if not inside or inside[0] in RUN_OWN:
            _not_owned(run, wp, where, "not a workpackage's directory inside the run")
        below = [where, *(p for p in where.parents if p.is_relative_to(top) and p != top)]
        clash = above.get(where, next((others[p] for p in below if p in others), None))
        if clash is not None:
            _not_owned(run, wp, where, f"workpackage {clash}'s directory, or above or below it")
        found[wp.id] = where
    return found


def _not_owned(run: Run, wp: Workpackage, where: Path, why: str) -> NoReturn:
    raise UsageError(
        f"the run store {run.dir / STORE} places workpackage {wp.id} in "
        f"'{wp.dir_name[:80]}' ({str(where)[:200]}), which is {why}; nothing was removed or "
        "written",
        hint="the store was edited or made elsewhere: remove the run as a whole",
    )


def _resolved(run_dir: Path, wp: Workpackage) -> Path:
    return wp_dir_of(run_dir, wp).resolve()
