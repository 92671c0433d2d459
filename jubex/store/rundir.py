"""Run directories: ``<outpath>/<id>/`` with the store, the frozen definition and platform.

A run holds everything needed to understand and reproduce it; ``jubex status`` years later
reads the frozen JSON, not the (possibly changed) definition file.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
import os
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from jubex.definition.frozen import from_json, to_json
from jubex.definition.model import Benchmark
from jubex.errors import JubexError, UsageError
from jubex.platform.model import Platform
from jubex.space.plan import Workpackage
from jubex.space.spec import RunSpec
from jubex.store.store import Store
from jubex.version import __version__

STORE, SPEC, LOCK = "jubex.sqlite", "run.json", "jubex.lock"
#: what runs of earlier versions kept instead of run.json
DEFINITION, PLATFORM = "definition.json", "platform.json"


@dataclass
class Run:
    """A run directory: its store and the resolved run it was made from."""

    dir: Path
    store: Store
    spec: RunSpec

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


def _state_file() -> Path:
    return platformdirs.user_state_path("jubex") / "last_run"


def remember(run_dir: Path) -> None:
    """Note the newest run so that commands without RUN find it from anywhere."""
    try:
        path = _state_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(run_dir.resolve()))
    except OSError:
        pass


def next_run_dir(outpath: Path) -> Path:
    """The directory the next run below ``outpath`` would get (nothing is made)."""
    try:
        ids = [int(p.name) for p in outpath.iterdir() if p.name.isdigit()]
    except OSError:
        ids = []
    return outpath / f"{max(ids, default=-1) + 1:06d}"


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
        (run_dir / SPEC).write_text(to_json(spec))
        if spec.definition and Path(spec.definition).is_file():
            (run_dir / "source").mkdir()
            shutil.copy2(spec.definition, run_dir / "source" / Path(spec.definition).name)
    except OSError as exc:
        raise JubexError(
            f"cannot create a run directory in '{outpath}': {exc.strerror}",
            hint="choose another place with --outpath",
        ) from None
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
            "user": _user(),
            "cwd": os.getcwd(),
            "command": " ".join(sys.argv),
            "tags": json.dumps(list(spec.tags)),
            "overrides": json.dumps({k: list(v) for k, v in spec.overrides.items()}),
        }
    )
    remember(run_dir)
    return Run(run_dir, store, spec)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def open_run(run_dir: Path) -> Run:
    """Open an existing run from its frozen files (its paths are absolute: any directory)."""
    store = Store(run_dir / STORE)
    try:
        if (run_dir / SPEC).exists():
            spec = from_json(RunSpec, (run_dir / SPEC).read_text())
        else:
            spec = _earlier_spec(run_dir, store.meta())
    except (OSError, ValueError, TypeError) as exc:
        raise JubexError(f"the run {run_dir} is damaged: {exc}") from None
    store.decode.types.update(spec.benchmark.parameter_types())
    return Run(run_dir, store, spec)


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


def list_runs(outpath: Path) -> list[Path]:
    """Run directories below an outpath, oldest first."""
    if not outpath.is_dir():
        return []
    return sorted(p for p in outpath.iterdir() if p.name.isdigit() and (p / STORE).exists())


def resolve_run(spec: str | None, outpath: str | None = None) -> Path:
    """Find a run from a path, an outpath, an id, ``last`` or a negative index (JUBE's habits)."""
    if spec:
        path = Path(spec)
        if (path / STORE).exists():
            return path
        if outpath is None and path.is_dir() and list_runs(path):
            return list_runs(path)[-1]
        if "/" in spec or path.exists():
            raise UsageError(f"'{spec}' is not a run directory (it has no {STORE})")
    if outpath:
        base = Path(outpath)
    else:
        last = _last_run()
        if spec in (None, "last", "-1") and last is not None:
            return last
        base = last.parent if last is not None else Path("runs")
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


def _last_run() -> Path | None:
    try:
        path = Path(_state_file().read_text().strip())
    except OSError:
        return None
    return path if (path / STORE).exists() else None


def wp_dir_of(run_dir: Path, wp: Workpackage) -> Path:
    """Where a stored workpackage lives (its name is kept in the store since planning)."""
    return run_dir / wp.dir_name
