"""Portable bundles of runs: one ``.tar.gz`` that another site unpacks and tabulates.

A bundle holds, per run, what re-tabulating and reproducing it needs: the store (a
consistent copy, taken with SQLite's backup), the frozen definition and platform, the
provenance, the definition's copy and the result files, and unless left out the
workpackages' outputs; and a manifest with the sha256 of every file. Import checks the
whole bundle in a private directory first (every path relative and inside, no device,
no link leading out, every checksum right, no file missing or extra) and only then moves
the runs into place: a bundle that is truncated or tampered with leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
import time
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from jubex.errors import JubexError
from jubex.store.rundir import LOCK, STORE, Run, next_run_dir
from jubex.store.store import Store
from jubex.version import __version__

MANIFEST = "manifest.json"
FORMAT, FORMAT_VERSION = "jubex-bundle", 1
#: files of a run directory that are never bundled (SQLite's side files: the store is
#: copied whole; the lock belongs to the machine that drives the run)
_SKIPPED = {LOCK, f"{STORE}-wal", f"{STORE}-shm"}


class BundleError(JubexError):
    """A bundle that cannot be read or trusted; nothing was written."""


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
    outputs_of = {wp.dir_name for wp in run.store.workpackages()}
    skipped = _SKIPPED | {STORE} | (set() if outputs else outputs_of)
    for member, entry in _walk(run.dir, "", skipped):
        if entry.is_symlink():
            target = os.readlink(entry.path)
            if _inside(PurePosixPath(member).parent, target):
                yield member, b"", target
            else:
                counts["links_left_out"] += 1
        elif entry.is_file(follow_symlinks=False):
            with open(entry.path, "rb") as handle:
                yield member, handle.read(), None


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
            _mark_imported(staging / entry["name"], bundle, entry, manifest.get("outputs", True))
        return [_move_into_place(staging / e["name"], outpath) for e in manifest["runs"]]
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unpack_checked(bundle: Path, staging: Path) -> dict:
    """Every member checked and written below ``staging``; then the manifest checked
    against what was found."""
    seen: dict[str, str] = {}
    manifest: dict | None = None
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            for info in tar:
                name = _checked_name(bundle, info.name, seen)
                if name == MANIFEST and info.isfile():
                    manifest = _read_manifest(bundle, _read(tar, info))
                elif info.issym():
                    seen[name] = _unpack_link(bundle, staging, name, info.linkname)
                elif info.isfile():
                    data = _read(tar, info)
                    (staging / name).parent.mkdir(parents=True, exist_ok=True)
                    (staging / name).write_bytes(data)
                    seen[name] = hashlib.sha256(data).hexdigest()
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
    _check_files(bundle, manifest, seen)
    return manifest


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


def _read(tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(info)
    return handle.read() if handle is not None else b""


def _read_manifest(bundle: Path, data: bytes) -> dict:
    """The manifest, checked for its format, its version and the runs it names."""
    try:
        manifest = json.loads(data)
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
        and r["name"] not in ("", ".", "..")
        for r in runs
    )
    if not names_ok or not isinstance(files, dict):
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
