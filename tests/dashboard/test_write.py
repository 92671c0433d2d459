"""The site's writer: new files in place, replaced files renamed into place, unchanged ones
left alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jubex.dashboard import write
from jubex.dashboard.write import SiteWriter


@pytest.fixture
def renames(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the writer renamed into place."""
    done: list[str] = []
    original = os.replace

    def replace(source: str | Path, target: str | Path) -> None:
        done.append(Path(target).name)
        original(source, target)

    monkeypatch.setattr(write.os, "replace", replace)
    return done


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*.tmp"))


def test_a_new_file_is_written_where_it_belongs(tmp_path: Path, renames: list[str]) -> None:
    """No temporary file and no rename: nothing links to a new file before it is whole."""
    writer = SiteWriter.open(tmp_path / "site")
    writer.put("runs/1.html", "<p>one</p>")
    writer.put("runs/2.html", b"<p>two</p>")
    writer.close()
    assert (tmp_path / "site/runs/1.html").read_text() == "<p>one</p>"
    assert (tmp_path / "site/runs/2.html").read_bytes() == b"<p>two</p>"
    assert (writer.written, writer.unchanged) == (2, 0)
    assert _leftovers(tmp_path) == []
    assert renames == []


def test_a_changed_file_is_replaced_whole(tmp_path: Path, renames: list[str]) -> None:
    """A reader that opened the old file reads all of it: the new one is renamed into
    place, never written over the old one's bytes."""
    root = tmp_path / "site"
    first = SiteWriter.open(root)
    first.put("history/a.html", "old " * 1000)
    first.close()
    with (root / "history/a.html").open() as reading:
        again = SiteWriter.open(root)
        again.put("history/a.html", "new")
        again.close()
        assert reading.read() == "old " * 1000
    assert (root / "history/a.html").read_text() == "new"
    assert (again.written, again.unchanged) == (1, 0)
    assert renames == ["a.html"]
    assert _leftovers(root) == []


def test_a_file_the_manifest_does_not_know_is_replaced(tmp_path: Path) -> None:
    """A file left by a build that ended before its manifest (killed): this build's
    content replaces it, as a file it did not make."""
    root = tmp_path / "site"
    first = SiteWriter.open(root)
    first.put("index.html", "index")
    first.close()
    (root / "runs").mkdir()
    (root / "runs/7.html").write_text("half a pa")
    again = SiteWriter.open(root)
    again.put("index.html", "index")
    again.put("runs/7.html", "half a page no more")
    again.close()
    assert (root / "runs/7.html").read_text() == "half a page no more"
    assert (again.written, again.unchanged) == (1, 1)


def test_an_unchanged_file_is_not_written(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first = SiteWriter.open(root)
    first.put("feed.xml", "<feed/>")
    first.close()
    before = (root / "feed.xml").stat()
    again = SiteWriter.open(root)
    again.put("feed.xml", "<feed/>")
    again.close()
    after = (root / "feed.xml").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (again.written, again.unchanged) == (0, 1)
