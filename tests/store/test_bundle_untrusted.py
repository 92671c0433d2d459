"""A bundle is someone else's files: import follows no link out, runs nothing of its store,
reads no more than it may, and a run it made reaches nothing outside itself (real runs,
real tar files, real SQLite stores, the real CLI)."""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.store import bundle as bundle_module
from jubex.store.bundle import MANIFEST, BundleError, import_bundle

DEFINITION = """\
name: shared
parameters:
  n: [1, 2]
patterns:
  bw:
    bw: {regex: "bw $jube_pat_fp", type: float, unit: MiB/s}
steps:
  work:
    do: echo "bw $n.5"
    analyse: [bw]
results:
  speed:
    group_by: [n]
    columns: [n, bw]
    result_dir: sent
"""

Members = list[tuple[tarfile.TarInfo, bytes]]


def jubex(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert not check or done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("site")
    (home / "b.yaml").write_text(DEFINITION)
    jubex(home, "run", "b.yaml", "-q", "--no-result")
    jubex(home, "export", "runs/000000", "-o", "study.tar.gz")
    return home / "study.tar.gz"


def rebuilt(source: Path, target: Path, change: Callable[[Members], Members]) -> Path:
    """``source`` with its members changed and its manifest made to agree."""
    with tarfile.open(source) as tar:
        found = [
            (i, (tar.extractfile(i) or io.BytesIO()).read() if i.isfile() else b"") for i in tar
        ]
    found = change(found)
    manifest = json.loads(next(d for i, d in found if i.name == MANIFEST))
    manifest["files"] = {
        i.name: f"link:{i.linkname}" if i.issym() else hashlib.sha256(d).hexdigest()
        for i, d in found
        if i.name != MANIFEST and (i.isfile() or i.issym())
    }
    found = [(i, d) for i, d in found if i.name != MANIFEST]
    found.append((tarfile.TarInfo(MANIFEST), json.dumps(manifest).encode()))
    with tarfile.open(target, "w:gz") as tar:
        for info, data in found:
            if info.isfile():
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return target


def links(*pairs: tuple[str, str]) -> Callable[[Members], Members]:
    def change(found: Members) -> Members:
        for name, target in pairs:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            found.append((info, b""))
        return found

    return change


def store_changed(sql: str) -> Callable[[Members], Members]:
    """The bundled store with ``sql`` run on it (as a sender could)."""

    def change(found: Members) -> Members:
        out = []
        for info, data in found:
            if info.name.endswith("/jubex.sqlite"):
                path = Path(f"/tmp/jubex-test-{time.monotonic_ns()}.sqlite")
                path.write_bytes(data)
                db = sqlite3.connect(path)
                db.executescript(sql)
                db.close()
                data = path.read_bytes()
                path.unlink()
            out.append((info, data))
        return out

    return change


def refused(bad: Path, where: Path, message: str) -> None:
    done = jubex(where, "import", str(bad), check=False)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (where / "runs").exists() or not list((where / "runs").iterdir())


def test_a_chain_of_links_leading_out_is_refused(bundle: Path, tmp_path: Path) -> None:
    # each link stays inside as text; followed, l2 is the runs directory and l3 above it
    chain = links(
        ("000000/d/l1", ".."), ("000000/d/l2", "l1/.."), ("000000/d/l3", "l2/.."),
        ("000000/d/etc", "l3/etc"),
    )  # fmt: skip
    refused(rebuilt(bundle, tmp_path / "bad.tgz", chain), tmp_path, "leads out of its run")


def test_a_link_made_before_its_step_is_followed_in_the_end(bundle: Path, tmp_path: Path) -> None:
    # l goes through x, which does not exist yet when l is made, and is a link up later
    later = links(("000000/d/l", "x/../.."), ("000000/d/x", ".."))
    refused(rebuilt(bundle, tmp_path / "bad.tgz", later), tmp_path, "leads out of its run")


def test_links_inside_the_run_still_come_along(bundle: Path, tmp_path: Path) -> None:
    fine = links(("000000/d/l1", ".."), ("000000/d/l2", "l1/run.json"))
    (made,) = import_bundle(rebuilt(bundle, tmp_path / "ok.tgz", fine), tmp_path / "runs")
    assert (made / "d" / "l2").read_text() == (made / "run.json").read_text()


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "CREATE TRIGGER t AFTER INSERT ON meta BEGIN WITH RECURSIVE c(x) AS "
            "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c; END;",
            "holds the trigger 't'",
        ),
        (
            "DROP TABLE unit; CREATE VIEW unit AS WITH RECURSIVE c(x) AS "
            "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS name, x AS unit FROM c;",
            "holds the view 'unit'",
        ),
        ("DROP TABLE analysed;", "has no table 'analysed'"),
        ("UPDATE meta SET value = 'x' || hex(zeroblob(99)) WHERE key = 'schema_version';",
         "has the schema version"),
        ("UPDATE workpackage SET workdir = '/tmp' WHERE id = 0;", "which is not one name"),
        ("UPDATE workpackage SET workdir = '..' WHERE id = 0;", "which is not one name"),
        ("UPDATE workpackage SET iteration = 'many' WHERE id = 0;", "where jubex keeps integer"),
        ("UPDATE workpackage SET params = '{}],[{}' WHERE id = 0;", "cannot be read"),
        ("ALTER TABLE unit ADD COLUMN b AS (length(name) * 2);", "computes the column 'b'"),
        ("UPDATE workpackage SET params = json_object('n', hex(zeroblob(600000))) WHERE id = 0;",
         "holds a value of 1,200,0"),
        ("UPDATE event SET detail = hex(zeroblob(600000));", "in the column 'detail'"),
    ],
    ids=["trigger", "endless view", "missing table", "schema version", "absolute workdir",
         "dot-dot workdir", "mistyped column", "bad parameters", "generated column",
         "huge parameter value",
         "huge event detail"],
)  # fmt: skip
def test_a_hostile_store_is_refused_in_seconds(
    sql: str, message: str, bundle: Path, tmp_path: Path
) -> None:
    bad = rebuilt(bundle, tmp_path / "bad.tgz", store_changed(sql))
    refused(bad, tmp_path, message)


def test_the_imported_store_is_jubexs_own_schema(bundle: Path, tmp_path: Path) -> None:
    extra = store_changed("CREATE INDEX odd ON packed(data); CREATE TABLE notes (x TEXT);")
    (made,) = import_bundle(rebuilt(bundle, tmp_path / "b.tgz", extra), tmp_path / "runs")
    db = sqlite3.connect(made / "jubex.sqlite")
    names = {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
    assert "odd" not in names and "notes" not in names
    assert db.execute("SELECT count(*) FROM workpackage").fetchone() == (2,)
    assert json.loads(jubex(tmp_path, "result", "runs/000000", "-f", "json").stdout)


def test_an_imported_run_writes_nothing_where_its_definition_says(
    bundle: Path, tmp_path: Path
) -> None:
    import_bundle(bundle, tmp_path / "runs")
    jubex(tmp_path, "result", "runs/000000")
    assert not (bundle.parent / "sent").exists()  # the sender's result_dir
    assert (tmp_path / "runs" / "000000" / "result").is_dir()


def test_remove_never_deletes_a_directory_a_store_names_outside(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(DEFINITION)
    jubex(tmp_path, "run", "b.yaml", "-q", "--no-result")
    victim = tmp_path / "victim"
    victim.mkdir()
    db = sqlite3.connect(tmp_path / "runs" / "000000" / "jubex.sqlite")
    db.execute("UPDATE workpackage SET workdir = ? WHERE id = 0", (str(victim),))
    db.commit()
    db.close()
    done = jubex(tmp_path, "remove", "runs/000000", "-w", "0", "-y", check=False)
    assert done.returncode == 2 and "not a directory name inside the run" in done.stderr
    assert victim.is_dir()


def test_a_manifest_nested_deep_is_refused(bundle: Path, tmp_path: Path) -> None:
    def deep(found: Members) -> Members:
        return [(i, b"[" * 200_000 + b"]" * 200_000 if i.name == MANIFEST else d) for i, d in found]

    with tarfile.open(bundle) as tar, tarfile.open(tmp_path / "deep.tgz", "w:gz") as out:
        for info, data in deep([(i, (tar.extractfile(i) or io.BytesIO()).read()) for i in tar]):
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    refused(tmp_path / "deep.tgz", tmp_path, "nested deeper than")


def test_a_compression_bomb_is_refused_before_it_is_written(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zeros = 64 << 20

    def bomb(found: Members) -> Members:
        return [(tarfile.TarInfo("000000/zeros"), bytes(zeros)), *found]

    bad = rebuilt(bundle, tmp_path / "bomb.tgz", bomb)
    assert bad.stat().st_size * 100 < zeros  # gzip packs 64 MiB of zeros in under 640 KiB
    monkeypatch.setattr(bundle_module, "MIN_UNPACKED", 1 << 20)
    with pytest.raises(BundleError, match="compression bomb"):
        import_bundle(bad, tmp_path / "runs")
    assert not list((tmp_path / "runs").iterdir())


def test_a_record_read_whole_is_bounded_before_it_is_written(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def padded(found: Members) -> Members:
        return [(i, d + b" " * 5000 if i.name.endswith("/run.json") else d) for i, d in found]

    bad = rebuilt(bundle, tmp_path / "big.tgz", padded)
    monkeypatch.setattr(bundle_module, "MAX_RECORD", 4096)
    with pytest.raises(BundleError, match=r"run\.json' of \d[\d,]* bytes, more than the 4,096"):
        import_bundle(bad, tmp_path / "runs")
    assert not list((tmp_path / "runs").iterdir())


def test_an_imported_run_is_never_analysed_with_the_senders_code(tmp_path: Path) -> None:
    site, here = tmp_path / "site", tmp_path / "here"
    site.mkdir(), here.mkdir()
    marker = tmp_path / "RAN"
    definition = DEFINITION.replace(
        "unit: MiB/s}", f"unit: MiB/s}}\n    twice: {{shell: 'touch {marker}; echo 2'}}"
    )
    (site / "b.yaml").write_text(definition)
    jubex(site, "run", "b.yaml", "-q", "--no-result")
    jubex(site, "export", "runs/000000", "-o", str(tmp_path / "b.tgz"))
    marker.unlink()
    jubex(here, "import", str(tmp_path / "b.tgz"))
    done = jubex(here, "analyse", "runs/000000", "--force", check=False)
    assert done.returncode == 1 and "would run the sender's code" in done.stderr
    assert "shell pattern 'twice'" in done.stderr
    assert "Traceback" not in done.stderr
    assert jubex(here, "result", "runs/000000", "-f", "csv").stdout.count("\n") == 3
    assert not marker.exists()


def test_an_imported_run_is_analysed_again_with_declarative_patterns(
    bundle: Path, tmp_path: Path
) -> None:
    import_bundle(bundle, tmp_path / "runs")
    done = jubex(tmp_path, "analyse", "runs/000000", "--force")
    assert "2 workpackage(s) analysed" in done.stdout
