"""Bundles: runs exported, imported elsewhere and tabulated alike; hostile or damaged
bundles refused whole, with nothing written (real runs, real tar files, the real CLI)."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    iterations: 2
    do: |
      echo "bw $n.5"
      head -c 4096 /dev/zero > IOR_file.00000001
      ln -s ../work/stdout inside
      ln -s /etc/hostname outside
    analyse: [bw]
results:
  speed:
    group_by: [n]
    columns: [n, {name: bw, stats: [n, mean, std]}]
"""


def jubex(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert not check or done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A finished run, its bundle, and its table as CSV."""
    home = tmp_path_factory.mktemp("site")
    (home / "b.yaml").write_text(DEFINITION)
    jubex(home, "run", "b.yaml", "-q", "--no-result")
    table = jubex(home, "result", "runs/000000", "-f", "csv").stdout
    out = jubex(home, "export", "runs/000000", "-o", "study.tar.gz").stdout
    assert "1 run(s)" in out and "4 link(s) leading out of their run left out" in out
    return home / "runs" / "000000", home / "study.tar.gz", table


def nothing_written(outpath: Path) -> bool:
    return not outpath.exists() or not list(outpath.iterdir())


def test_an_imported_run_tabulates_as_the_original(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    run, bundle, table = exported
    out = jubex(tmp_path, "import", str(bundle)).stdout
    assert out == "imported runs/000000\n"
    assert jubex(tmp_path, "result", "runs/000000", "-f", "csv").stdout == table
    imported = tmp_path / "runs" / "000000"
    assert (imported / "provenance.json").read_text() == (run / "provenance.json").read_text()
    assert (imported / "run.json").read_text() == (run / "run.json").read_text()
    stdout = next(imported.glob("000000_work*/work/stdout"))
    assert stdout.read_text() == "bw 1.5\n"
    link = stdout.parent / "inside"
    assert link.is_symlink() and link.read_text() == "bw 1.5\n"
    assert not (stdout.parent / "outside").exists()
    info = json.loads(jubex(tmp_path, "info", "runs/000000", "-f", "json").stdout)
    assert info["imported_from"] == str(bundle) and info["imported_id"] == "000000"


def test_an_imported_run_is_not_continued(exported: tuple[Path, Path, str], tmp_path: Path) -> None:
    jubex(tmp_path, "import", str(exported[1]))
    done = jubex(tmp_path, "continue", "runs/000000", check=False)
    assert done.returncode == 1
    assert "was imported from" in done.stderr and "not continued" in done.stderr


def test_without_outputs_the_store_still_gives_the_tables(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    run, _, table = exported
    jubex(run.parent.parent, "export", "runs/000000", "--no-outputs", "-o", str(tmp_path / "b.tgz"))
    with tarfile.open(tmp_path / "b.tgz") as tar:
        names = tar.getnames()
    assert not [n for n in names if "IOR_file" in n or n.endswith("/inside")]
    for record in ("jubex.sqlite", "run.json", "provenance.json", "source/b.yaml"):
        assert f"000000/{record}" in names
    wp = next(n for n in names if "_work" in n).split("/")[1]
    for record in ("body.sh", "exit", "work/stdout", "work/stderr"):
        assert f"000000/{wp}/{record}" in names
    jubex(tmp_path, "import", "b.tgz")
    assert jubex(tmp_path, "result", "runs/000000", "-f", "csv").stdout == table


def test_a_bundle_imported_twice_says_so_unless_again(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    bundle = exported[1]
    assert jubex(tmp_path, "import", str(bundle)).stdout == "imported runs/000000\n"
    twice = jubex(tmp_path, "import", str(bundle)).stdout
    assert f"{bundle} is already imported as run 000000 in runs" in twice
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["000000"]
    copy = tmp_path / "copy.tar.gz"
    shutil.copy(bundle, copy)  # the same content under another name
    assert "already imported as run 000000" in jubex(tmp_path, "import", str(copy)).stdout
    again = jubex(tmp_path, "import", str(bundle), "--again").stdout
    assert again == "imported runs/000001\n"


# -------------------------------------------------------------- hostile bundles


def members(bundle: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(bundle) as tar:
        return [
            (info, (tar.extractfile(info) or io.BytesIO()).read() if info.isfile() else b"")
            for info in tar
        ]


def rewrite(
    bundle: Path,
    target: Path,
    change: Callable[[list[tuple[tarfile.TarInfo, bytes]]], list[tuple[tarfile.TarInfo, bytes]]],
    *,
    fix_manifest: bool = True,
) -> Path:
    """A copy of ``bundle`` with its members changed; the manifest made to agree unless not
    asked (so each test shows the one check it is about)."""
    found = change(members(bundle))
    if fix_manifest:
        manifest = json.loads(next(d for i, d in found if i.name == MANIFEST))
        manifest["files"] = {
            i.name: f"link:{i.linkname}" if i.issym() else hashlib.sha256(d).hexdigest()
            for i, d in found
            if i.name != MANIFEST and (i.isfile() or i.issym())
        }
        found = [(i, d) for i, d in found if i.name != MANIFEST]
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo(MANIFEST)
        info.size = len(data)
        found.append((info, data))
    with tarfile.open(target, "w:gz") as tar:
        for info, data in found:
            if info.isfile():
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return target


def extra(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", data: bytes = b"x"):
    def change(found: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, link
        return [*found, (info, data if kind == tarfile.REGTYPE else b"")]

    return change


HOSTILE = {
    "absolute path": (extra("/tmp/evil"), "outside the runs directory"),
    "dot-dot": (extra("000000/../../evil"), "outside the runs directory"),
    "link leading out": (extra("000000/l", tarfile.SYMTYPE, "../../etc"), "link leading out"),
    "absolute link": (extra("000000/l", tarfile.SYMTYPE, "/etc"), "link leading out"),
    "device": (extra("000000/dev", tarfile.CHRTYPE), "neither a file"),
    "fifo": (extra("000000/fifo", tarfile.FIFOTYPE), "neither a file"),
    "hard link": (extra("000000/h", tarfile.LNKTYPE, "/etc/passwd"), "neither a file"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_bundle_is_refused_and_nothing_is_written(
    case: str, exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    change, message = HOSTILE[case]
    bundle = rewrite(exported[1], tmp_path / "bad.tar.gz", change)
    done = jubex(tmp_path, "import", "bad.tar.gz", check=False)
    assert done.returncode == 2, done.stdout
    assert message in done.stderr and "Traceback" not in done.stderr
    assert nothing_written(tmp_path / "runs")
    assert not Path("/tmp/evil").exists()
    assert bundle.exists()


def test_a_file_written_through_a_link_inside_is_refused(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    def change(found: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
        found = extra("000000/a/l", tarfile.SYMTYPE, "..")(found)
        return extra("000000/a/l/x")(found)

    rewrite(exported[1], tmp_path / "bad.tgz", change)
    with pytest.raises(BundleError, match="below the link"):
        import_bundle(tmp_path / "bad.tgz", tmp_path / "runs")
    assert nothing_written(tmp_path / "runs")


def test_a_changed_file_fails_its_checksum(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    def change(found: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
        return [(i, b"tampered" if i.name.endswith("run.json") else d) for i, d in found]

    rewrite(exported[1], tmp_path / "bad.tgz", change, fix_manifest=False)
    with pytest.raises(BundleError, match=r"checksum of 1 file.*run\.json"):
        import_bundle(tmp_path / "bad.tgz", tmp_path / "runs")
    assert nothing_written(tmp_path / "runs")


def test_a_bundle_of_a_newer_jubex_says_so(
    exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    def change(found: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
        out = []
        for info, data in found:
            if info.name == MANIFEST:
                manifest = json.loads(data)
                manifest.update(version=99, jubex_version="9.0")
                data = json.dumps(manifest).encode()
            out.append((info, data))
        return out

    rewrite(exported[1], tmp_path / "new.tgz", change, fix_manifest=False)
    with pytest.raises(BundleError, match=r"newer jubex \(9.0, bundle format 99\)"):
        import_bundle(tmp_path / "new.tgz", tmp_path / "runs")


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.999])
def test_a_truncated_bundle_is_refused(
    keep: float, exported: tuple[Path, Path, str], tmp_path: Path
) -> None:
    data = exported[1].read_bytes()
    (tmp_path / "cut.tgz").write_bytes(data[: int(len(data) * keep)])
    done = jubex(tmp_path, "import", "cut.tgz", check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cut short" in done.stderr
    assert nothing_written(tmp_path / "runs")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_any_damaged_byte_is_refused_or_changes_nothing(
    exported: tuple[Path, Path, str], tmp_path: Path, data: st.DataObject
) -> None:
    original = bytearray(exported[1].read_bytes())
    at = data.draw(st.integers(0, len(original) - 1))
    original[at] ^= data.draw(st.integers(1, 255))
    target = tmp_path / "fuzz"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    (target / "b.tgz").write_bytes(bytes(original))
    try:
        (made,) = import_bundle(target / "b.tgz", target / "runs")
    except BundleError:
        assert nothing_written(target / "runs")
        return
    for path in exported[0].rglob("*"):
        if (
            path.is_file()
            and not path.is_symlink()
            and path.name not in ("jubex.sqlite", "jubex.lock")
        ):
            assert (made / path.relative_to(exported[0])).read_bytes() == path.read_bytes()
