"""The up-to-date check before reading a run: a workpackage whose exit-status file changed
(size, time, or gone) since it was analysed is read again, and only such a one."""

from __future__ import annotations

import os
from pathlib import Path

from jubex.analysis.run import RunAnalysis, _opened, _signature_of, analyse_run
from jubex.results.samples.kept import summary_key
from jubex.results.samples.rows import result_rows
from jubex.space.plan import wp_dir_name
from jubex.store.rundir import open_run
from tests.analysis.test_run_parallel import make_run


def test_only_workpackages_whose_exit_file_changed_are_read_again(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r")
    assert analyse_run(run) == 24  # range 0..23
    assert RunAnalysis(run).stale() == []
    assert analyse_run(open_run(run.dir)) == 0
    list(result_rows(run, {"write_bw"}))
    assert run.store.summary(summary_key({"write_bw"}, False)) is not None

    def exit_file(wp: int) -> Path:
        return run.dir / wp_dir_name(wp, "ior") / "exit"

    exit_file(4).write_text("0\n\n")  # another size
    stat = exit_file(7).stat()
    os.utime(exit_file(7), ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # 1 ns later
    exit_file(8).unlink()  # gone
    reopened = open_run(run.dir)
    assert RunAnalysis(reopened).stale() == [4, 7, 8]
    assert analyse_run(reopened) == 3
    assert run.store.summary(summary_key({"write_bw"}, False)) is None  # rows made again
    assert RunAnalysis(open_run(run.dir)).stale() == []


def test_an_exit_file_found_from_the_opened_run_is_the_one_its_path_names(
    tmp_path: Path,
) -> None:
    """Below the run, through a link, climbing out with ``..`` (a JUBE suffix may) or gone:
    the signature is the same whichever way the file is found."""
    run_dir = tmp_path / "runs" / "000000"
    (run_dir / "a").mkdir(parents=True)
    (run_dir / "a" / "exit").write_text("0\n")
    (tmp_path / "runs" / "b").mkdir()
    (tmp_path / "runs" / "b" / "exit").write_text("1\n\n")
    (run_dir / "link").symlink_to(run_dir / "a")
    fd = os.open(run_dir, os.O_RDONLY)
    try:
        for name in ("a", "link", "../b", "missing"):
            by_path = _signature_of(run_dir, 1, name, "done")
            assert _signature_of(run_dir, 1, name, "done", at=fd) == by_path
            assert (by_path == "done") == (name == "missing")
    finally:
        os.close(fd)


def test_a_run_directory_that_cannot_be_opened_is_read_by_paths(tmp_path: Path) -> None:
    with _opened(os.fspath(tmp_path / "gone")) as at:
        assert at is None
    with _opened(os.fspath(tmp_path)) as at:
        assert at is not None and os.stat(".", dir_fd=at).st_ino == tmp_path.stat().st_ino
