"""The line that explains a failure, picked from a workpackage's outputs."""

from __future__ import annotations

from jubex.engine.failures import WIDTH, explaining_line, id_list
from jubex.language.messages import masked


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
    assert len(line) == WIDTH and line.endswith("...")


def test_ids_stay_one_line() -> None:
    assert id_list([5, 3, 4]) == "3, 4, 5"
    assert id_list(list(range(36))) == "0, 1, 2, 3, 4, 5, 6, 7 and 28 more"


def test_a_launchers_ignored_warning_explains_nothing() -> None:
    stderr = ["srun: error: SLURMD_DEBUG=verbose invalid. ignoring...", "ior: not found"]
    assert explaining_line(stderr) == "ior: not found"


def test_a_full_file_system_explains_before_the_error_after_it() -> None:
    stderr = [
        "WARNING: write(4) failed, errno 28, No space left on device",
        "ERROR: cannot write, (ior.c:1010)",
    ]
    assert explaining_line(stderr) == stderr[0]


def test_a_wrapped_sentence_is_quoted_whole() -> None:
    stderr = [
        "mpiexec was unable to find the specified executable file, and therefore",
        "did not launch the job.",
        "NOTE: A common cause for this problem is a typo",
    ]
    assert explaining_line(stderr) == " ".join(stderr[:2])


def test_causes_that_differ_in_paths_and_numbers_mask_alike() -> None:
    one = "error could not create directory '/scratch/a/#test-dir.0-0/mdtest_tree.4.0/'"
    two = "error could not create directory '/scratch/b/#test-dir.0-0/mdtest_tree.17.0/'"
    assert masked(one) == masked(two) == "error could not create directory PATH"
    assert masked("srun: error: node042: task 17: Killed") == masked(
        "srun: error: node7: task 3: Killed"
    )
    assert masked("ior: not found") != masked("mdtest: not found")
