"""Run directories: ``<outpath>/<id>/`` with the store, the frozen definition and platform.

A run holds everything needed to understand and reproduce it; ``jubex status`` years later
reads the frozen JSON, not the (possibly changed) definition file.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from jubex.definition.frozen import from_json, to_json
from jubex.definition.model import Benchmark
from jubex.errors import JubexError, UsageError
from jubex.platform.model import Platform
from jubex.store.store import Store, WorkpackageRow
from jubex.version import __version__
from jubex.workdir.prepare import wp_dir_name

STORE, DEFINITION, PLATFORM, LOCK = "jubex.sqlite", "definition.json", "platform.json", "jubex.lock"


@dataclass
class Run:
    dir: Path
    store: Store
    benchmark: Benchmark
    platform: Platform

    @property
    def id(self) -> str:
        return self.dir.name

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


def create_run(
    benchmark: Benchmark,
    platform: Platform,
    outpath: Path,
    *,
    tags: Sequence[str] = (),
    overrides: Mapping[str, Sequence[str]] | None = None,
) -> Run:
    """Make a new run directory with the next free id and an empty store."""
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
        (run_dir / DEFINITION).write_text(to_json(benchmark))
        (run_dir / PLATFORM).write_text(to_json(platform))
        if benchmark.file and Path(benchmark.file).is_file():
            (run_dir / "source").mkdir()
            shutil.copy2(benchmark.file, run_dir / "source" / Path(benchmark.file).name)
    except OSError as exc:
        raise JubexError(
            f"cannot create a run directory in '{outpath}': {exc.strerror}",
            hint="choose another place with --outpath",
        ) from None
    store = Store(run_dir / STORE, create=True)
    store.set_meta(
        {
            "name": benchmark.name,
            "comment": benchmark.comment,
            "uid": uuid.uuid4().hex[:8],
            "created": f"{time.time():.3f}",
            "definition": str(Path(benchmark.file).resolve()) if benchmark.file else "",
            "platform": platform.name,
            "scheduler": platform.scheduler,
            "jubex_version": __version__,
            "python": sys.version.split()[0],
            "host": socket.gethostname(),
            "user": _user(),
            "cwd": os.getcwd(),
            "command": " ".join(sys.argv),
            "tags": json.dumps(list(tags)),
            "overrides": json.dumps({k: list(v) for k, v in (overrides or {}).items()}),
        }
    )
    remember(run_dir)
    return Run(run_dir, store, benchmark, platform)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())


def open_run(run_dir: Path) -> Run:
    """Open an existing run from its frozen files."""
    store = Store(run_dir / STORE)
    try:
        benchmark = from_json(Benchmark, (run_dir / DEFINITION).read_text())
        platform = from_json(Platform, (run_dir / PLATFORM).read_text())
    except (OSError, ValueError, TypeError) as exc:
        raise JubexError(f"the run {run_dir} is damaged: {exc}") from None
    return Run(run_dir, store, benchmark, platform)


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


def wp_dir_of(run_dir: Path, wp: WorkpackageRow) -> Path:
    """Where a stored workpackage lives (its name is kept in the store since planning)."""
    return run_dir / (wp.workdir or wp_dir_name(wp.id, wp.step))
