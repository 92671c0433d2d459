"""Hostile bundles for the fuzz campaign (``bench/fuzz_inputs.py --targets bundle``).

A bundle is made once from a real run (a small definition run and exported in the
campaign's directory); each input is that bundle with one to three hostile changes at the
level of its members and its store: links and chains of links leading out, devices, pipes,
hard links, duplicated or absolute members, lying or huge member sizes, a store with a
trigger, a view, a dropped table, a computed column, a foreign workdir, mistyped values or
a hostile schema version, a manifest nested deep or damaged, and flipped bytes. Half of the
inputs get a manifest that agrees with their members, so that the checks after the
checksums are reached too.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import sqlite3
import tarfile
import tempfile
from pathlib import Path

from jubex.cli.main import main

DEFINITION = """\
name: shared
parameters:
  n: [1, 2]
patterns:
  bw:
    bw: {regex: "bw $jube_pat_fp", type: float, unit: MiB/s}
steps:
  work:
    do: |
      echo "bw $n.5"
      ln -s ../work/stdout inside
    analyse: [bw]
results:
  speed:
    group_by: [n]
    columns: [n, bw]
"""
Members = list[tuple[tarfile.TarInfo, bytes]]
STORE_CHANGES = [
    "CREATE TRIGGER t AFTER INSERT ON meta BEGIN WITH RECURSIVE c(x) AS "
    "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c; END;",
    "DROP TABLE unit; CREATE VIEW unit AS WITH RECURSIVE c(x) AS "
    "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS name, x AS unit FROM c;",
    "DROP TABLE analysed;",
    "DROP TABLE workpackage;",
    "UPDATE meta SET value = '9' || hex(zeroblob(50)) WHERE key = 'schema_version';",
    "UPDATE meta SET value = '3' WHERE key = 'schema_version';",
    "UPDATE workpackage SET workdir = 'VICTIM';",
    "UPDATE workpackage SET workdir = '..';",
    "UPDATE workpackage SET workdir = '';",
    "UPDATE workpackage SET iteration = 'many';",
    "UPDATE workpackage SET params = '{}],[{}';",
    "UPDATE workpackage SET params = '[1, 2]';",
    'UPDATE packed SET data = \'{"bw": "x"}\';',
    "UPDATE packed SET data = '" + "[" * 5000 + "]" * 5000 + "';",
    "ALTER TABLE unit ADD COLUMN b AS (length(name) * 2);",
    "CREATE VIRTUAL TABLE v USING fts5(x);",
    "DELETE FROM meta;",
    "INSERT INTO parent VALUES (0, 99);",
]
LINKS = ["..", "../..", "/", "/etc", "l1/..", "l1/../..", "x/../..", "l2/etc", ".", "nowhere"]
#: a directory outside every run that no input may delete or change (set by the campaign)
VICTIM = Path("/nonexistent")


def seed_bundle(work: Path) -> Path:
    """A real run of a small definition, exported: the seed of every input."""
    (work / "b.yaml").write_text(DEFINITION)
    main(["run", str(work / "b.yaml"), "-q", "--no-result", "--outpath", str(work / "runs")])
    main(["export", str(work / "runs" / "000000"), "-o", str(work / "seed.tar.gz")])
    return work / "seed.tar.gz"


def _members(data: bytes) -> Members:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return [
            (i, (tar.extractfile(i) or io.BytesIO()).read() if i.isfile() else b"") for i in tar
        ]


def _packed(found: Members, fix: bool) -> bytes:
    if fix and any(i.name == "manifest.json" for i, _ in found):
        try:
            manifest = json.loads(next(d for i, d in found if i.name == "manifest.json"))
            manifest["files"] = {
                i.name: f"link:{i.linkname}" if i.issym() else hashlib.sha256(d).hexdigest()
                for i, d in found
                if i.name != "manifest.json" and (i.isfile() or i.issym())
            }
            text = json.dumps(manifest).encode()
            found = [(i, text if i.name == "manifest.json" else d) for i, d in found]
        except (ValueError, TypeError, AttributeError, RecursionError):
            pass
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", compresslevel=1) as tar:
        for info, data in found:
            if info.name.endswith("/huge"):  # a header that lies about its size, as written
                header = info.tobuf(tar.format, tar.encoding, tar.errors)
                tar.fileobj.write(header + data)  # type: ignore[union-attr]
                tar.offset += len(header) + len(data)  # type: ignore[attr-defined]
                continue
            if info.isfile():
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return out.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


def _store(found: Members, sql: str) -> Members:
    out = []
    for info, data in found:
        if info.name.endswith("/jubex.sqlite"):
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "s.sqlite"
                path.write_bytes(data)
                db = sqlite3.connect(path)
                with contextlib.suppress(sqlite3.Error):
                    db.executescript(sql)
                db.close()
                data = path.read_bytes()
        out.append((info, data))
    return out


def _change(found: Members, rng: random.Random) -> tuple[Members, str]:
    kind = rng.choice(
        ["link", "chain", "store", "store", "store", "special", "path", "dup", "size", "zeros",
         "manifest", "manifest"]
    )  # fmt: skip
    run = "000000"
    if kind == "link":
        target = rng.choice(LINKS)
        return [*found, (_member(f"{run}/d/l{rng.randint(1, 3)}", tarfile.SYMTYPE, target), b"")], (
            f"link -> {target}"
        )
    if kind == "chain":
        chain = [("l1", ".."), ("l2", "l1/.."), ("l3", "l2/.."), ("x", ".."), ("y", "x/../..")]
        rng.shuffle(chain)
        added = [(_member(f"{run}/d/{n}", tarfile.SYMTYPE, t), b"") for n, t in chain]
        return [*found, *added], "chain of links"
    if kind == "store":
        sql = rng.choice(STORE_CHANGES)
        return _store(found, sql.replace("VICTIM", str(VICTIM))), f"store: {sql[:40]}"
    if kind == "special":
        which = rng.choice([tarfile.CHRTYPE, tarfile.FIFOTYPE, tarfile.LNKTYPE, tarfile.BLKTYPE])
        return [*found, (_member(f"{run}/special", which, "/etc/passwd"), b"")], "special member"
    if kind == "path":
        name = rng.choice(["/tmp/evil", f"{run}/../../evil", "", f"{run}/a\0b", "manifest.json/x"])
        return [*found, (_member(name), b"x")], f"path {name!r}"
    if kind == "dup":
        info, data = rng.choice(found)
        return [*found, (info, data)], f"duplicate {info.name}"
    if kind == "size":
        info = _member(f"{run}/huge")
        info.size = 3 << 30
        return [*found, (info, b"\0" * 1024)], "a member claiming 3 GiB"
    if kind == "zeros":
        return [*found, (_member(f"{run}/zeros"), bytes(rng.choice([1, 8, 32]) << 20))], "zeros"
    text = rng.choice(
        [b"[" * 200_000 + b"]" * 200_000, b"{}", b"null", b'{"format": "jubex-bundle"}',
         b'{"format": "jubex-bundle", "version": 1, "runs": [{"name": ".."}], "files": {}}',
         b'{"format": "jubex-bundle", "version": "1", "runs": 7, "files": []}', b"\xff\xfe"]
    )  # fmt: skip
    return [(i, text if i.name == "manifest.json" else d) for i, d in found], "manifest"


def mutate_bundle(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three hostile changes of the bundle ``data``, and their names."""
    found = _members(data)
    names = []
    for _ in range(rng.randint(1, 3)):
        found, name = _change(found, rng)
        names.append(name)
    packed = _packed(found, fix=rng.random() < 0.5)
    if rng.random() < 0.1:
        flipped = bytearray(packed)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        packed, names = bytes(flipped), [*names, "flip"]
    return packed, ", ".join(names)


def escaped() -> str | None:
    """What an input did outside its runs: the victim directory gone or changed."""
    if sorted(p.name for p in VICTIM.iterdir()) != ["keep"] if VICTIM.is_dir() else True:
        return f"{VICTIM} was changed"
    return None


def commands(path: Path) -> list[list[str]]:
    """Import, then every command that reads or changes an imported run."""
    run = str(path.parent / "runs" / "000000")
    return [
        ["import", str(path), "--outpath", str(path.parent / "runs")],
        ["info", run],
        ["status", run],
        ["result", run],
        ["analyse", run, "--force"],
        ["export", run, "-o", str(path.parent / "again.tar.gz")],
        ["remove", run, "-w", "0", "-y"],
    ]
