"""``--serve`` answers on the loopback interface only; ``annotate`` refuses a bad date."""

from __future__ import annotations

import threading
import urllib.request
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.dashboard.serve import server


def test_the_site_is_served_on_loopback_only(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<p>jubex</p>")
    serving = server(tmp_path)
    threading.Thread(target=serving.serve_forever, daemon=True).start()
    try:
        host, port = serving.server_address[:2]
        assert host == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html") as answer:
            assert answer.read() == b"<p>jubex</p>"
    finally:
        serving.shutdown()
        serving.server_close()


def test_an_annotation_with_a_bad_date_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "results.sqlite")
    assert main(["annotate", "juwels", "last tuesday", "upgrade", "--database", database]) == 2
    assert "'last tuesday' is no date: expected YYYY-MM-DD" in capsys.readouterr().err
