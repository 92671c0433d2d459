"""The line that explains a failure, picked from a workpackage's outputs."""

from __future__ import annotations

from jubex.engine.failures import explaining_line, id_list


def test_the_error_line_of_stderr_not_its_tail() -> None:
    stderr = [
        "/tmp/run/000003_run/work/do.sh: 2: ior: not found",
        "Abort(1) on node 0: application called MPI_Abort",
    ]
    assert explaining_line(stderr) == "ior: not found"
    bash = ["bash: line 1: ior: command not found"]
    assert explaining_line(bash) == "ior: command not found"


def test_stdout_explains_when_stderr_does_not() -> None:
    stdout = ["IOR-3.3.0: MPI Coordinated Test", "Began: today", "ERROR: block size 0 invalid"]
    assert explaining_line(["trailer"], stdout) == "ERROR: block size 0 invalid"


def test_without_an_error_line_the_last_line_of_stderr() -> None:
    assert explaining_line(["", "first", "last", ""], ["fine"]) == "last"
    assert explaining_line([], ["all fine"]) == ""


def test_a_long_line_is_cut() -> None:
    line = explaining_line(["error: " + "x" * 500])
    assert len(line) == 200 and line.endswith("...")


def test_ids_stay_one_line() -> None:
    assert id_list([5, 3, 4]) == "3, 4, 5"
    assert id_list(list(range(36))) == "0, 1, 2, 3, 4, 5, 6, 7 and 28 more"
