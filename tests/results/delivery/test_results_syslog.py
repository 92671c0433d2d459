"""Tables sent to a syslog daemon: a real socket listens, the lines are JUBE's."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.model import Syslog
from jubex.errors import JubexError
from jubex.results.delivery.syslog import lines, send
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable


def table(rows: list[list[object]]) -> ResultTable:
    headers = [Header("api", "API"), Header("bw", "bw", "MiB/s", ".1f"), Header("n", "n")]
    return ResultTable("speed", headers, rows)


@pytest.fixture
def daemon() -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(5)
    yield sock
    sock.close()


def test_each_row_is_one_line_of_names_and_shown_values() -> None:
    rows = [["POSIX", 1234.56, 4], ["MPIIO", None, 8]]
    assert lines(table(rows)) == ["api=POSIX bw=1234.6 n=4", "api=MPIIO bw= n=8"]


@given(st.lists(st.tuples(st.text("abc", max_size=3), st.integers(0, 99)), max_size=5))
def test_lines_keep_row_order_and_every_column(rows: list[tuple[str, int]]) -> None:
    got = lines(table([[api, None, n] for api, n in rows]))
    assert got == [f"api={api} bw= n={n}" for api, n in rows]


def test_lines_reach_a_udp_daemon_as_jube_logs_them(daemon: socket.socket) -> None:
    port = daemon.getsockname()[1]
    target = Syslog(host="127.0.0.1", port=port)
    assert send(table([["POSIX", 2.0, 4], ["MPIIO", 3.0, 8]]), target) == 2
    received = [daemon.recv(4096).decode() for _ in range(2)]
    pid = os.getpid()
    # priority 14: facility user (1) * 8 + severity info (6)
    assert received == [
        f"<14>jube[{pid}]: api=POSIX bw=2.0 n=4\x00",
        f"<14>jube[{pid}]: api=MPIIO bw=3.0 n=8\x00",
    ]


def test_a_format_of_ones_own(daemon: socket.socket) -> None:
    target = Syslog(host="127.0.0.1", port=daemon.getsockname()[1], format="bench %(message)s")
    send(table([["POSIX", 1.0, 1]]), target)
    assert daemon.recv(4096) == b"<14>bench api=POSIX bw=1.0 n=1\x00"


def test_a_unix_socket_address(tmp_path: Path) -> None:
    path = tmp_path / "log"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(5)
        send(table([["POSIX", 1.0, 1]]), Syslog(address=str(path)))
        assert sock.recv(4096).endswith(b": api=POSIX bw=1.0 n=1\x00")


def test_an_unreachable_daemon_or_a_bad_format_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(
        JubexError, match=r"cannot send table 'speed' to the syslog daemon .*nowhere"
    ):
        send(table([["a", 1.0, 1]]), Syslog(address=str(tmp_path / "nowhere")))
    with pytest.raises(JubexError, match="does not format a line"):
        send(table([["a", 1.0, 1]]), Syslog(host="127.0.0.1", port=9, format="%(nothing)s"))
