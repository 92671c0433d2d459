"""A study run under the real darshan-runtime: each workpackage's log in its own work
directory, telling what its program did (the bundled kernel without and with MPI, and fio).

Runs where ``JUBEX_DARSHAN_LIB`` names a libdarshan.so (docs/darshan.md); elsewhere it is
skipped saying so, the one skip CI keeps (tests/conftest.py, ``DARSHAN_ABSENT``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.requires_darshan_runtime, pytest.mark.slow]

STUDY = """\
name: under-darshan
darshan: {library}
parameters:
  transfer: [4k, 64k]
  declared_transfer: 64k
steps:
  build:
    darshan: false
    do: make -s -C $jubex_kernels OUT=$jube_wp_abspath
  kernel:
    depend: [build]
    do: build/jubex-bw -n 1 -t $transfer -b 1m -F -e -C -w -r -o bw.dat
    analyse: [ior, darshan]
  build_mpi:
    darshan: false
    use: []
    do: make -s -C $jubex_kernels OUT=$jube_wp_abspath CC=mpicc CFLAGS="-O2 -DJUBEX_MPI"
  mpi:
    depend: [build_mpi]
    use: []
    resources: {{nodes: 1, tasks_per_node: 2}}
    do: $launcher build_mpi/jubex-bw -t 32k -b 1m -F -e -C -w -r -o bw.dat
  fio:
    use: []
    do: {fio} --name=w --rw=write --bs=16k --size=256k --ioengine=psync --filename=fio.dat
results:
  seen:
    columns: [transfer, write_bw, posix_bytes_written, posix_writes, transfer_check]
"""


def test_each_workpackage_writes_its_own_log_of_what_its_program_did(
    tmp_path: Path, darshan_library: Path
) -> None:
    darshan = pytest.importorskip("darshan")
    fio = shutil.which("fio")
    assert fio, "fio is installed wherever darshan-runtime is (docs/darshan.md)"
    study = tmp_path / "study.yaml"
    study.write_text(STUDY.format(library=darshan_library, fio=fio))
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "run", str(study)],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    run = tmp_path / "runs" / "000000"
    assert not (run / "000000_build" / "work" / "darshan.log").exists()
    expected = {
        "kernel": [(4096, 1 << 20), (65536, 1 << 20)],
        "mpi": [(32768, 2 << 20)],  # both ranks' records in one log
        "fio": [(16384, 256 << 10)],
    }
    for step, points in expected.items():
        logs = sorted(run.glob(f"*_{step}/work/darshan.log"))
        assert len(logs) == len(points), sorted(run.glob("*/work/*"))
        for log, (size, written) in zip(logs, points, strict=True):
            report = darshan.DarshanReport(str(log), read_all=True)
            counters = report.records["POSIX"].to_df()["counters"]
            assert counters["POSIX_BYTES_WRITTEN"].sum() == written, log
            assert counters["POSIX_WRITES"].sum() == written // size, log
            assert counters["POSIX_ACCESS1_ACCESS"].max() == size, log
    table = subprocess.run(
        [sys.executable, "-m", "jubex", "result", str(run), "-f", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert table.returncode == 0, table.stderr
    rows = {row["transfer"]: row for row in json.loads(table.stdout)["rows"] if row["transfer"]}
    # the darshan analyser's values beside the kernel's own, the 4k point flagged
    assert rows[4096]["posix_writes"] == 256 and rows[65536]["posix_writes"] == 16
    assert rows[4096]["transfer_check"] != "ok" and rows[65536]["transfer_check"] == "ok"
    assert all(row["write_bw"] > 0 for row in rows.values())
