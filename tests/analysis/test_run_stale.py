"""The up-to-date check before reading a run: a workpackage whose exit-status file changed
(size, time, or gone) since it was analysed is read again, and only such a one."""

from __future__ import annotations

import os
from pathlib import Path

from jubex.analysis.run import RunAnalysis, analyse_run
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
