"""A generated pipeline, run for real by gitlab-ci-local on the local platform: three
nights of a study published to the real PostgreSQL, gated against the night before; the
third is slower and fails its gate, with a JUnit report and a message to a webhook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import sqlalchemy as sa
from junitparser import JUnitXml

REPO = Path(__file__).resolve().parents[2]
#: a study whose numbers are known: repetition i prints (1000 + 10 i) / SLOWDOWN MiB/s
STUDY = """\
name: nightly
parameters:
  point: [a, b]
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 5
    do: >-
      awk -v s="$${SLOWDOWN:-1}"
      'BEGIN {print "bw:", (1000 + 10 * $jube_wp_iteration) / s, "MiB/s"}'
    analyse: [bw]
results:
  bandwidth:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean±std]}]
"""


def _tool() -> str:
    found = shutil.which("gitlab-ci-local")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("gitlab-ci-local is not installed: .ci/run installs it with npm")
        pytest.skip("gitlab-ci-local is not installed (npm install -g gitlab-ci-local@4.60.0)")
    return found


class _Hook(BaseHTTPRequestHandler):
    received: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Hook.received.append(json.loads(body)["text"])
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def hook() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hooks/s3cr3t"
    server.shutdown()


@pytest.fixture
def database(postgres: str) -> Iterator[str]:
    """A new database on the test PostgreSQL server, dropped afterwards."""
    name = f"ci_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(postgres.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    yield sa.engine.make_url(postgres).set(database=name).render_as_string(hide_password=False)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.dispose()


def _night(project: Path, tool: str, database: str, hook: str, slowdown: str) -> str:
    done = subprocess.run(
        [
            tool,
            "--variable", f"JUBEX={sys.executable} -m jubex",
            "--variable", f"JUBEX_RESULTS_DB={database}",
            "--variable", f"JUBEX_WEBHOOK_URL={hook}",
            "--variable", f"SLOWDOWN={slowdown}",
        ],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )  # fmt: skip
    return done.stdout + done.stderr


def test_three_nights_publish_and_the_slow_one_fails_its_gate(
    tmp_path: Path, database: str, hook: str
) -> None:
    tool = _tool()
    project = tmp_path / "bench"
    project.mkdir()
    (project / "nightly.yaml").write_text(STUDY)
    written = subprocess.run(
        [sys.executable, "-m", "jubex", "ci", "gitlab", "nightly.yaml", "-P", "local",
         "--no-pages", "-o", ".gitlab-ci.yml"],
        cwd=project, env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "nightly"]):
        subprocess.run(
            ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *argv],
            cwd=project, check=True,
        )  # fmt: skip
    first = _night(project, tool, database, hook, "1")
    assert "no baseline yet" in first
    assert " PASS  publish:nightly-local" in first and "FAIL" not in first, first[-3000:]
    second = _night(project, tool, database, hook, "1")
    assert "PASSED" in second and "FAIL" not in second, second[-3000:]
    third = _night(project, tool, database, hook, "2")
    assert " FAIL  gate:nightly-local" in third, third[-3000:]
    assert " PASS  publish:nightly-local" in third  # a regression still reaches history
    report = JUnitXml.fromfile(str(project / "gate-nightly-local.xml"))
    cases = [case for suite in report for case in suite]
    assert len(cases) == 2 and all(not case.is_passed for case in cases)
    [message] = _Hook.received
    assert message.startswith("jubex gate FAILED: nightly-local")
    assert "- bw [MiB/s] at point=a: -50.0%" in message
    assert "s3cr3t" not in third
    engine = sa.create_engine(database.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT provenance FROM runs ORDER BY id").all()
    engine.dispose()
    assert len(rows) == 3
    assert all(json.loads(row[0])["ci"]["system"] == "gitlab" for row in rows)
