"""Portable bundles of runs: one ``.tar.gz`` that another site unpacks and tabulates.

A bundle holds, per run, what re-tabulating and reproducing it needs: the store (a
consistent copy, taken with SQLite's backup), the frozen definition and platform, the
provenance, the definition's copy and the result files, and unless left out the
workpackages' outputs; and a manifest with the sha256 of every file. Import checks the
whole bundle in a private directory first (every path relative and inside, no device,
no link leading out even through other links, every checksum right, no file missing or
extra, members streamed and their total bounded by the bundle's size), copies each store
into jubex's own schema (:mod:`jubex.store.imported`), and only then moves the runs into
place: a bundle that is truncated or tampered with leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import sys
import tarfile
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from jubex.errors import JubexError
from jubex.store.imported import UntrustedStore, copy_store
from jubex.store.rundir import (
    DEFINITION,
    LOCK,
    PLATFORM,
    SPEC,
    STORE,
    Run,
    list_runs,
    next_run_dir,
)
from jubex.store.store import Store, drop_summaries
from jubex.version import __version__

MANIFEST = "manifest.json"
FORMAT, FORMAT_VERSION = "jubex-bundle", 1
#: files of a run directory that are never bundled (SQLite's side files: the store is
#: copied whole; the lock belongs to the machine that drives the run)
_SKIPPED = {LOCK, f"{STORE}-wal", f"{STORE}-shm"}
#: what import unpacks at most: MAX_RATIO times the bundle's size, past MIN_UNPACKED bytes
MAX_RATIO, MIN_UNPACKED = 100, 256 << 20
#: what of a run directory is jubex's own (``--no-outputs`` bundles only these)
_RUN_RECORDS = {SPEC, DEFINITION, PLATFORM, "provenance.json", "report.html"}
_RECORD_FOLDERS = {"source", "result", "plots"}
MAX_MEMBERS = 2_000_000
MAX_MANIFEST = 256 << 20
#: bytes of a run's own records that every command reads whole: its store, and each of
#: spec.json, the definition's and platform's copies and provenance.json
MAX_STORE, MAX_RECORD = 1 << 30, 16 << 20
_READ_WHOLE = {STORE, SPEC, DEFINITION, PLATFORM, "provenance.json"}


class BundleError(JubexError):
    """A bundle that cannot be read or trusted; nothing was written."""

    exit_code = 2  # bad input


def export_runs(runs: Sequence[Run], target: Path, *, outputs: bool = True) -> dict[str, int]:
    """Write ``runs`` into the bundle ``target`` (a temporary file first, then renamed).

    Returns counts: runs, files, bytes, and links left out because they lead out of their
    run (a workpackage's link to an executable elsewhere).
    """
    counts = {"runs": len(runs), "files": 0, "bytes": 0, "links_left_out": 0}
    names = _member_names(runs)
    part = target.with_name(f".{target.name}.part")
    entries: list[dict[str, str]] = []
    files: dict[str, str] = {}
    try:
        with tarfile.open(part, "w:gz", compresslevel=1, format=tarfile.GNU_FORMAT) as tar:
            for run, name in zip(runs, names, strict=True):
                for member, data, link in _run_members(run, outputs, counts):
                    path = f"{name}/{member}"
                    if link is not None:
                        _add_link(tar, path, link)
                        files[path] = f"link:{link}"
                    else:
                        _add_bytes(tar, path, data)
                        files[path] = hashlib.sha256(data).hexdigest()
                        counts["files"] += 1
                        counts["bytes"] += len(data)
                entries.append({"name": name, "id": run.id, "source": str(run.dir)})
            manifest = {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "jubex_version": __version__,
                "created": f"{time.time():.3f}",
                "runs": entries,
                "outputs": outputs,
                "files": files,
            }
            _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=1).encode())
        os.replace(part, target)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise JubexError(f"cannot write the bundle {target}: {exc.strerror or exc}") from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return counts


def _member_names(runs: Sequence[Run]) -> list[str]:
    """A folder name per run inside the bundle: its id, made unique with its outpath."""
    names = [run.id for run in runs]
    if len(set(names)) < len(names):
        names = [f"{run.dir.parent.name}-{run.id}" for run in runs]
    if len(set(names)) < len(names):
        names = [f"{i:03d}-{run.id}" for i, run in enumerate(runs)]
    return names


def _run_members(
    run: Run, outputs: bool, counts: dict[str, int]
) -> Iterator[tuple[str, bytes, str | None]]:
    """(path inside the run, content, link target or None) of every file to bundle."""
    yield STORE, _store_copy(run.dir / STORE), None
    records = None if outputs else _records(run)
    for member, entry in _walk(run.dir, "", _SKIPPED | {STORE}):
        if records is not None and not records(member):
            continue
        if entry.is_symlink():
            target = os.readlink(entry.path)
            if _inside(PurePosixPath(member).parent, target):
                yield member, b"", target
            else:
                counts["links_left_out"] += 1
        elif entry.is_file(follow_symlinks=False):
            with open(entry.path, "rb") as handle:
                yield member, handle.read(), None


def _records(run: Run) -> Callable[[str], bool]:
    """Whether a path of the run is one of jubex's own records: the frozen run, the
    definition's copy, results, plots and report, and of each workpackage its scripts,
    exit status and the commands' stdout, stderr and do log; never a file the benchmark
    wrote (its data files, a shared directory)."""
    wps = {wp.dir_name for wp in run.store.workpackages()}
    logs = {"stdout", "stderr"}
    for step in run.benchmark.steps.values():
        logs |= {name for do in step.do for name in (do.stdout, do.stderr) if name}
        logs |= {step.do_log_file} if step.do_log_file else set()

    def kept(member: str) -> bool:
        top, _, rest = member.partition("/")
        if not rest:
            return top in _RUN_RECORDS
        if top in _RECORD_FOLDERS:
            return True
        if top not in wps:
            return False
        folder, _, name = rest.partition("/")
        return not name if folder != "work" else name in logs

    return kept


def _walk(folder: Path | str, prefix: str, skipped: set[str]) -> Iterator[tuple[str, os.DirEntry]]:
    """(path below the run, entry) of the files and links below ``folder``, in a stable
    order, links not followed; the file type comes from the directory itself (no stat)."""
    with os.scandir(folder) as entries:
        found = sorted(entries, key=lambda e: e.name)
    for entry in found:
        if entry.name in skipped:
            continue
        member = f"{prefix}{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(entry.path, f"{member}/", set())
        else:
            yield member, entry


def _store_copy(path: Path) -> bytes:
    """The store as one consistent file (its WAL folded in), via SQLite's backup."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / STORE
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        target = sqlite3.connect(copy)
        try:
            source.backup(target)
            drop_summaries(target)
            target.commit()
        finally:
            source.close()
            target.close()
        return copy.read_bytes()


def _add_bytes(tar: tarfile.TarFile, path: str, data: bytes) -> None:
    info = tarfile.TarInfo(path)
    info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
    tar.addfile(info, io.BytesIO(data))


def _add_link(tar: tarfile.TarFile, path: str, target: str) -> None:
    info = tarfile.TarInfo(path)
    info.type, info.linkname, info.mtime = tarfile.SYMTYPE, target, int(time.time())
    tar.addfile(info)


def _inside(folder: PurePosixPath, target: str) -> bool:
    """Whether a relative link from ``folder`` (inside a run) stays inside the run."""
    if target.startswith("/"):
        return False
    depth = len(folder.parts)
    for part in PurePosixPath(target).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return False
    return True


def bundle_hash(bundle: Path) -> str:
    """The sha256 of a bundle's bytes: the same bundle imported again is known by it."""
    digest = hashlib.sha256()
    with open(bundle, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def imported_as(bundle: Path, outpath: Path) -> list[Path]:
    """The runs below ``outpath`` imported from a bundle of the same content (none: new)."""
    digest = bundle_hash(bundle)
    found = []
    for run_dir in list_runs(outpath):
        store = Store(run_dir / STORE)
        try:
            if store.meta().get("imported_sha256") == digest:
                found.append(run_dir)
        finally:
            store.close()
    return found


def import_bundle(bundle: Path, outpath: Path) -> list[Path]:
    """Unpack the runs of ``bundle`` below ``outpath`` (each with the next free id) and
    return their directories; refuse the whole bundle, writing nothing, if any part of it
    cannot be trusted."""
    try:
        outpath.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=outpath))
    except OSError as exc:
        raise JubexError(f"cannot import into '{outpath}': {exc.strerror or exc}") from None
    try:
        manifest = _unpack_checked(bundle, staging)
        for entry in manifest["runs"]:
            _fresh_store(bundle, staging / entry["name"])
            _mark_imported(staging / entry["name"], bundle, entry, manifest.get("outputs", True))
        return [_move_into_place(staging / e["name"], outpath) for e in manifest["runs"]]
    except (OSError, sqlite3.Error) as exc:
        raise BundleError(
            f"cannot import the bundle {bundle}: {exc}; nothing was imported"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fresh_store(bundle: Path, run_dir: Path) -> None:
    """Replace the bundled store by a copy into jubex's own schema (:mod:`imported`)."""
    fresh = run_dir / f"{STORE}.fresh"
    try:
        copy_store(run_dir / STORE, fresh)
    except UntrustedStore as exc:
        raise BundleError(
            f"the bundle {bundle}: the store of its run '{run_dir.name}' {exc.message}; "
            "nothing was imported"
        ) from None
    os.replace(fresh, run_dir / STORE)


def _unpack_checked(bundle: Path, staging: Path) -> dict:
    """Every member checked and written below ``staging``, links checked once all are made;
    then the manifest checked against what was found."""
    seen: dict[str, str] = {}
    manifest: dict | None = None
    budget = _Budget(bundle)
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            for info in tar:
                # tarfile keeps every header it read: a million members would all stay
                tar.members = []  # type: ignore[attr-defined]
                budget.take(bundle, info)
                name = _checked_name(bundle, info.name, seen)
                _check_record_size(bundle, name, info.size)
                if name == MANIFEST and info.isfile():
                    manifest = _read_manifest(bundle, _read(bundle, tar, info))
                elif info.issym():
                    seen[name] = _unpack_link(bundle, staging, name, info.linkname)
                elif info.isfile():
                    seen[name] = _unpack_file(tar, info, staging / name)
                elif not info.isdir():
                    raise BundleError(
                        f"the bundle {bundle} holds '{name}', which is neither a file, a "
                        "folder nor a link (a device, a pipe or a hard link)"
                    )
            _read_to_the_end(tar)
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise BundleError(
            f"cannot read the bundle {bundle}: {exc}",
            hint="it is cut short, damaged or not a jubex bundle; export it again",
        ) from None
    except OSError as exc:
        raise BundleError(
            f"cannot read the bundle {bundle}: {exc.strerror or exc}",
            hint="it is cut short, damaged or not a jubex bundle; export it again",
        ) from None
    if manifest is None:
        raise BundleError(
            f"the bundle {bundle} has no {MANIFEST}: it is cut short or not a jubex bundle"
        )
    _check_links(bundle, staging, [n for n, d in seen.items() if d.startswith("link:")])
    _check_files(bundle, manifest, seen)
    return manifest


class _Budget:
    """What unpacking may write: at most :data:`MAX_RATIO` times the bundle's own size
    (past :data:`MIN_UNPACKED`), and :data:`MAX_MEMBERS` members, counted from each
    member's header before any of it is written (a 3 MB bundle of a 3 GiB file of zeros
    is refused before it takes the disk)."""

    def __init__(self, bundle: Path) -> None:
        self.limit = max(MIN_UNPACKED, MAX_RATIO * bundle.stat().st_size)
        self.used = 0
        self.members = 0

    def take(self, bundle: Path, info: tarfile.TarInfo) -> None:
        self.used += info.size + tarfile.BLOCKSIZE
        self.members += 1
        if self.used > self.limit:
            raise BundleError(
                f"the bundle {bundle} unpacks to more than {self.limit:,} bytes (at "
                f"'{info.name[:80]}'), over {MAX_RATIO} times its own size: a compression "
                "bomb or not a jubex bundle; nothing was imported"
            )
        if self.members > MAX_MEMBERS:
            raise BundleError(
                f"the bundle {bundle} holds more than {MAX_MEMBERS:,} members; nothing was imported"
            )


def _check_record_size(bundle: Path, name: str, size: int) -> None:
    """A run's store and records are read whole by every command: bounded, refused from the
    member's header before any of it is written."""
    parts = PurePosixPath(name).parts
    if len(parts) != 2 or parts[1] not in _READ_WHOLE:
        return
    limit = MAX_STORE if parts[1] == STORE else MAX_RECORD
    if size > limit:
        raise BundleError(
            f"the bundle {bundle} holds '{name}' of {size:,} bytes, more than the {limit:,} "
            "jubex accepts for a run's store or record; nothing was imported"
        )


def _unpack_file(tar: tarfile.TarFile, info: tarfile.TarInfo, path: Path) -> str:
    """Stream one member into a new file (never through one already there); its sha256."""
    digest = hashlib.sha256()
    handle = tar.extractfile(info)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "xb") as out:
        while handle is not None and (chunk := handle.read(1 << 20)):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _check_links(bundle: Path, staging: Path, links: list[str]) -> None:
    """Every link, followed through the links made beside it, ends inside its run: a chain
    of links each harmless as text (``l1 -> ..``, ``l2 -> l1/..``) is refused as a whole."""
    for name in links:
        run = os.path.realpath(staging / PurePosixPath(name).parts[0])
        target = os.path.realpath(staging / name)
        if os.path.commonpath([run, target]) != run:
            raise BundleError(
                f"the bundle {bundle} holds '{name}', a link that leads out of its run "
                f"through the links beside it ('{os.readlink(staging / name)}'); "
                "nothing was imported"
            )


def _read_to_the_end(tar: tarfile.TarFile) -> None:
    """Read what follows the last member, so that gzip checks its length and CRC: a bundle
    cut in its last bytes is refused as well."""
    stream = tar.fileobj
    while stream is not None and stream.read(1 << 20):
        pass


def _checked_name(bundle: Path, name: str, seen: dict[str, str]) -> str:
    """A member's path, refused when absolute, with ``..``, given twice, or below a link."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\0" in name:
        raise BundleError(
            f"the bundle {bundle} holds the path '{name}', which would be written outside "
            "the runs directory (absolute or with '..'); nothing was imported"
        )
    clean = path.as_posix()
    if clean in seen:
        raise BundleError(f"the bundle {bundle} holds '{clean}' twice; nothing was imported")
    for parent in path.parents:
        if seen.get(parent.as_posix(), "").startswith("link:"):
            raise BundleError(
                f"the bundle {bundle} holds '{clean}' below the link '{parent}': a link "
                "may not lead other files somewhere else; nothing was imported"
            )
    return clean


def _unpack_link(bundle: Path, staging: Path, name: str, target: str) -> str:
    """A link, made only when it stays inside its run (relative, not above the run)."""
    parts = PurePosixPath(name).parts
    if len(parts) < 2 or not _inside(PurePosixPath(*parts[1:-1]), target):
        raise BundleError(
            f"the bundle {bundle} holds '{name}', a link leading out of its run "
            f"('{target}'); nothing was imported"
        )
    (staging / name).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, staging / name)
    return f"link:{target}"


def _read(bundle: Path, tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    if info.size > MAX_MANIFEST:
        raise BundleError(
            f"the bundle {bundle} has a {MANIFEST} of {info.size:,} bytes, more than "
            f"{MAX_MANIFEST:,}: not a jubex bundle; nothing was imported"
        )
    handle = tar.extractfile(info)
    return handle.read() if handle is not None else b""


def _read_manifest(bundle: Path, data: bytes) -> dict:
    """The manifest, checked for its format, its version and the runs it names."""
    try:
        manifest = json.loads(data)
    except RecursionError:
        raise BundleError(
            f"the bundle {bundle} has a {MANIFEST} nested deeper than Python reads "
            f"({sys.getrecursionlimit()} levels; a manifest has 3): not a jubex bundle"
        ) from None
    except ValueError:
        manifest = None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"the bundle {bundle} is not a jubex bundle (its {MANIFEST} is not)")
    version = manifest.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise BundleError(
            f"the bundle {bundle} was written by a newer jubex "
            f"({manifest.get('jubex_version', '?')}, bundle format {version}); this jubex "
            f"{__version__} reads format {FORMAT_VERSION}",
            hint="upgrade jubex to import it",
        )
    runs, files = manifest.get("runs"), manifest.get("files")
    names_ok = isinstance(runs, list) and all(
        isinstance(r, dict)
        and isinstance(r.get("name"), str)
        and "/" not in r["name"]
        and r["name"] not in ("", ".", "..", MANIFEST)
        for r in runs
    )
    names_ok = names_ok and len({r["name"] for r in runs or ()}) == len(runs or ())
    files_ok = isinstance(files, dict) and all(isinstance(v, str) for v in files.values())
    if not names_ok or not files_ok:
        raise BundleError(f"the bundle {bundle} has a damaged {MANIFEST}")
    return manifest


def _check_files(bundle: Path, manifest: dict, seen: dict[str, str]) -> None:
    """What was unpacked is exactly what the manifest lists, byte for byte."""
    listed: dict[str, str] = manifest["files"]
    missing = sorted(set(listed) - set(seen))
    if missing:
        raise BundleError(
            f"the bundle {bundle} lacks {len(missing)} file(s) its manifest lists "
            f"(first: {missing[0]}): it is cut short; nothing was imported"
        )
    extra = sorted(set(seen) - set(listed))
    if extra:
        raise BundleError(
            f"the bundle {bundle} holds {len(extra)} file(s) its manifest does not list "
            f"(first: {extra[0]}); nothing was imported"
        )
    wrong = sorted(name for name in listed if listed[name] != seen[name])
    if wrong:
        raise BundleError(
            f"the bundle {bundle}: the checksum of {len(wrong)} file(s) does not match its "
            f"manifest (first: {wrong[0]}): it was changed or damaged; nothing was imported"
        )
    for entry in manifest["runs"]:
        if f"{entry['name']}/{STORE}" not in seen:
            raise BundleError(
                f"the bundle {bundle} names the run '{entry['name']}' but holds no store "
                "for it; nothing was imported"
            )


def _mark_imported(run_dir: Path, bundle: Path, entry: dict, outputs: object) -> None:
    """Note in the store where the run came from (its id there, the bundle, when, and
    whether its outputs came along)."""
    store = Store(run_dir / STORE)
    try:
        store.set_meta(
            {
                "imported_from": str(bundle.resolve()),
                "imported_id": str(entry.get("id", "")),
                "imported_source": str(entry.get("source", "")),
                "imported": f"{time.time():.3f}",
                "imported_outputs": "yes" if outputs is not False else "no",
                "imported_sha256": bundle_hash(bundle),
            }
        )
    finally:
        store.close()


def _move_into_place(run_dir: Path, outpath: Path) -> Path:
    """Rename the checked run to the next free id (atomic; another run may take an id
    meanwhile, then the next one)."""
    while True:
        target = next_run_dir(outpath)
        try:
            os.rename(run_dir, target)
            return target
        except OSError as exc:
            if not target.exists():
                raise JubexError(f"cannot import into '{outpath}': {exc.strerror}") from None
