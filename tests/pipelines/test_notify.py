"""What a gate tells the team: the regressions, their confidence, where to look; posted to
a real HTTP server on loopback, the URL's secret never printed."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

from jubex.pipelines.notify import gate_text, pipeline_url, post

COMPARISON = {
    "verdict": "failed",
    "exit_status": 1,
    "summary": "FAILED: 1 regression(s) beyond the noise and the tolerance",
    "keys": ["tasks", "transfer"],
    "rows": [
        {"tasks": 2, "transfer": "1m", "metric": "write_bw", "unit": "MiB/s",
         "change": -12.34, "p_adjusted": 0.0031, "verdict": "worse"},
        {"tasks": 1, "transfer": "1m", "metric": "write_bw", "unit": "MiB/s",
         "change": -1.0, "p_adjusted": 0.6, "verdict": "same"},
    ],
}  # fmt: skip


def test_the_text_names_each_regression_with_its_change_and_confidence() -> None:
    text = gate_text("ior-juwels", COMPARISON, run_url="https://ci/j/1", history_url="https://p")
    assert text.splitlines() == [
        "jubex gate FAILED: ior-juwels",
        "- write_bw [MiB/s] at tasks=2, transfer=1m: -12.3%, p adj 0.0031",
        "FAILED: 1 regression(s) beyond the noise and the tolerance",
        "history: https://p",
        "run: https://ci/j/1",
    ]


def test_the_pipeline_is_named_by_the_ci_that_runs_it() -> None:
    assert pipeline_url({"CI_JOB_URL": "https://gl/j/7"}) == "https://gl/j/7"
    github = {"GITHUB_RUN_ID": "9", "GITHUB_REPOSITORY": "c/b"}
    assert pipeline_url(github) == "https://github.com/c/b/actions/runs/9"
    assert pipeline_url({}) == ""


class _Hook(BaseHTTPRequestHandler):
    received: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        _Hook.received.append({"path": self.path, "body": json.loads(self.rfile.read(length))})
        self.send_response(200 if "good" in self.path else 403)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


def test_a_message_is_posted_as_chats_take_it_and_the_secret_never_said() -> None:
    server = HTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        said = post(f"{base}/hooks/good-s3cr3t", "jubex gate FAILED: x")
        refused = post(f"{base}/hooks/bad-s3cr3t?token=s3cr3t", "jubex gate FAILED: y")
    finally:
        server.shutdown()
    assert said == "posted to 127.0.0.1 (200)"
    assert refused == "not posted: 127.0.0.1 answered 403"
    assert _Hook.received[0] == {
        "path": "/hooks/good-s3cr3t",
        "body": {"text": "jubex gate FAILED: x"},
    }
    unreachable = post("http://127.0.0.1:9/hooks/s3cr3t", "x")
    assert unreachable.startswith("not posted: 127.0.0.1 could not be reached")
    assert all("s3cr3t" not in text for text in (said, refused, unreachable))
    assert (
        post("file:///etc/passwd", "x") == "not posted: the webhook variable holds no http(s) URL"
    )
