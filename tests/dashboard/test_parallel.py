"""The site's groups on several processes: results in the items' order, Ctrl-C the parent's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.dashboard.parallel import in_order
from jubex.errors import UsageError


def square_in(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def interrupt_handler(_: int) -> bool:
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_results_come_in_the_items_order_from_other_processes() -> None:
    made = list(in_order(square_in, list(range(40)), 2))
    assert [value for value, _ in made] == [i * i for i in range(40)]
    assert os.getpid() not in {pid for _, pid in made}


def large(item: int) -> bytes:
    """More than a pipe holds, from workers that end in the reverse order."""
    time.sleep(0.05 * (4 - item))
    return bytes([item]) * 3_000_000


def test_results_larger_than_a_pipe_come_back_whole_in_order() -> None:
    made = list(in_order(large, [0, 1, 2, 3], 2))
    assert [(len(m), m[:1]) for m in made] == [(3_000_000, bytes([i])) for i in range(4)]


def refused_at(item: int) -> int:
    if item == 2:
        raise UsageError(f"item {item} refused")
    return item


def test_an_error_is_raised_here_in_its_item_s_turn_with_where_it_happened() -> None:
    """A group's error (the runs changed while they were read) is the build's own, after
    the groups before it; where it happened in the worker is its cause."""
    made: list[int] = []
    with pytest.raises(UsageError, match="item 2 refused") as raised:
        for value in in_order(refused_at, [0, 1, 2, 3], 2):
            made.append(value)
    assert made == [0, 1]
    assert "refused_at" in str(raised.value.__cause__)


def killed_at(item: int) -> int:
    if item == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return item


def test_a_killed_worker_ends_the_whole_with_an_error_not_a_wait() -> None:
    """The out-of-memory killer takes a worker: the item it had can never come back."""
    code = (
        "from jubex.dashboard.parallel import in_order\n"
        "from tests.dashboard.test_parallel import killed_at\n"
        "print(list(in_order(killed_at, [0, 1, 2, 3], 2)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    ran = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 1, ran.stderr
    assert "a process building the site ended without its result" in ran.stderr
    assert not ran.stdout


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler in this process, whatever the test runner set (its
    workers may ignore SIGINT), and the runner's back afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_one_job_works_in_this_process_and_keeps_its_ctrl_c(ctrl_c: None) -> None:
    made = list(in_order(square_in, [1, 2, 3], 1))
    assert {pid for _, pid in made} == {os.getpid()}
    assert list(in_order(interrupt_handler, [1], 1)) == [False]


def test_a_worker_leaves_ctrl_c_to_the_parent(ctrl_c: None) -> None:
    """A terminal's Ctrl-C reaches every process of the group: the parent ends the build
    and says so once, the workers print no traceback of their own."""
    assert list(in_order(interrupt_handler, [1, 2], 2)) == [True, True]


def test_an_interrupted_command_that_drives_no_run_does_not_offer_continue(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("jubex.dashboard.build.build", interrupted)
    assert main(["site", "db:", "-o", "out", "--database", "sqlite:///none.sqlite"]) == 130
    assert capsys.readouterr().err == "interrupted\n"
    assert not any(tmp_path.iterdir())
