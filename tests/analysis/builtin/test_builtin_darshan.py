"""The darshan analyser on real logs (tests/data/darshan/SOURCES.md) and on damaged ones."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.analysis.builtin import darshan, get
from jubex.analysis.builtin.common import Collector
from jubex.analysis.harvest import Harvester
from jubex.analysis.measurement import ParseResult
from jubex.definition.model import Benchmark, Step

pytest.importorskip("darshan", reason="PyDarshan (pip install 'jubex[darshan]') reads the logs")

DATA = Path(__file__).resolve().parents[2] / "data" / "darshan"
MiB = 1 << 20


@functools.cache
def read(name: str, declared: str | None = "1m") -> ParseResult:
    params = {} if declared is None else {darshan.DECLARED: declared}
    return get("darshan").read(DATA / f"{name}.darshan", params)  # type: ignore[misc]


def values(name: str, declared: str | None = "1m") -> dict[str, object]:
    result = read(name, declared)
    assert result.ok, result.reason
    return {m.name: m.value for m in result.measurements}


def test_ior_1m_is_seen_as_1m_requests_with_nothing_flagged():
    got = values("ior-1m")
    assert got["posix_bytes_written"] == got["posix_bytes_read"] == 8 * MiB  # 2 ranks x 4m
    assert got["posix_writes"] == got["posix_reads"] == 8
    assert got["common_access_size"] == MiB and got["access_sizes"] == "1MiB x16"
    assert got["posix_write_size_100k_1m"] == 8  # Darshan's bins include their upper bound
    assert got["sequential_share"] == 100.0
    assert got["transfer_check"] == "ok"
    assert got["darshan_insights"] == ""
    assert got["darshan_nprocs"] == 2
    assert got["darshan_version"] == "log 3.41, runtime 3.5.0"


def test_the_misconfigured_4k_point_is_flagged():
    got = values("ior-4k")
    assert got["posix_bytes_written"] == 8 * MiB
    assert got["posix_writes"] == 2048 and got["posix_write_size_1k_10k"] == 2048
    assert got["common_access_size"] == 4096 and got["common_access_share"] == 100.0
    assert got["transfer_check"] == "saw 4KiB, declared 1MiB"
    assert got["darshan_insights"] == "small_requests, transfer_mismatch"


def test_without_a_declared_size_there_is_no_check():
    got = values("ior-4k", None)
    assert got["transfer_check"] == ""
    assert got["darshan_insights"] == "small_requests"


def test_a_declared_size_that_is_no_size_is_a_problem():
    result = read("ior-1m", "lots")
    assert not result.ok and "declared_transfer is 'lots', not a size" in result.reason


def test_mpiio_bytes_are_kept_apart_from_posix():
    got = values("ior-mpiio")
    assert got["mpiio_bytes_written"] == 8 * MiB
    assert got["mpiio_writes"] == 8  # independent writes, 4 x 1m per rank
    assert got["posix_bytes_written"] == 8 * MiB + 200  # ROMIO's own small writes beside
    assert got["transfer_check"] == "ok"  # 16 of 21 POSIX requests are 1 MiB


def test_mdtest_is_metadata_bound():
    got = values("mdtest", None)
    assert got["posix_opens"] == 800 and got["posix_bytes_written"] == 0
    assert got["posix_meta_time"] > 0 and got["posix_read_time"] == 0
    assert "metadata_bound" in str(got["darshan_insights"])
    assert "access_sizes" not in got and "sequential_share" not in got


def test_fio_random_4k_is_small_and_random():
    got = values("fio-randrw4k", "4k")
    assert got["posix_reads"] + got["posix_writes"] == 1024  # type: ignore[operator]
    assert got["transfer_check"] == "ok"
    assert 40 < got["sequential_share"] < 60  # type: ignore[operator]
    assert got["darshan_insights"] == "small_requests, random"


@pytest.mark.parametrize("name", ["jubex-bw", "jubex-md"])
def test_the_kernels_logs(name):
    got = values(name)
    if name == "jubex-bw":
        assert got["posix_bytes_written"] == 4 * MiB and got["transfer_check"] == "ok"
    else:
        assert got["posix_opens"] == 400 and "metadata_bound" in str(got["darshan_insights"])


def test_a_log_of_an_older_format_is_read():
    got = values("old-3.10-example", None)
    assert got["darshan_version"] == "log 3.10, runtime 3.1.3"
    assert got["darshan_nprocs"] == 2048
    assert got["common_access_size"] == 128 * MiB


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("bad-truncated", "it is truncated"),
        ("bad-not-a-log", "not a Darshan log: it does not start with a log format version"),
        ("bad-future-version", "log format 9.99 is newer than the newest this PyDarshan reads"),
    ],
)
def test_bad_logs_are_a_clear_error(name, reason):
    result = read(name, None)
    assert not result.ok and not result.measurements
    assert result.reason.startswith(f"{name}.darshan: ") and reason in result.reason


def test_the_harvest_reads_darshan_log_in_the_work_directory(tmp_path):
    benchmark = Benchmark("d", file="d.yaml")
    benchmark.steps["run"] = Step("run", analyse=("darshan",))
    harvester = Harvester(benchmark, "run")
    shutil.copy(DATA / "ior-4k.darshan", tmp_path / "darshan.log")
    found = harvester.harvest(tmp_path, {darshan.DECLARED: "4k"})
    assert found.ok, found.reason
    assert {m.name: m.value for m in found.measurements}["transfer_check"] == "ok"
    missing = harvester.harvest(tmp_path / "nowhere", {})
    assert not missing.ok and "darshan.log: no such file" in missing.reason


def summary(requests: int, small: int, seq: int, meta: float, slow: float, fast: float):
    """A reader's output of one POSIX module, made up to put the thresholds to the test."""
    sums = {
        "READS": 0,
        "WRITES": requests,
        "OPENS": 1,
        "SEQ_WRITES": seq,
        "SIZE_WRITE_1K_10K": small,
        "SIZE_WRITE_1M_4M": requests - small,
        "F_META_TIME": meta,
        "F_WRITE_TIME": 1.0,
    }
    ranks = {"count": 2, "slowest": slow, "fastest": fast, "total": slow + fast}
    return {
        "log_version": "3.41",
        "library_version": "3.5.0",
        "nprocs": 2,
        "run_time": 1.0,
        "partial": [],
        "modules": {"POSIX": {"sums": sums, "sizes": {"2097152": requests}, "ranks": ranks}},
    }


def insights(found: dict) -> list[str]:
    out = Collector(darshan.METRICS)
    darshan.values(found, {}, out)
    flags = {m.name: m.value for m in out.measurements}["darshan_insights"]
    return str(flags).split(", ") if flags else []


def test_each_flag_turns_on_just_past_its_threshold():
    calm = summary(1000, 100, 999, 1.0, 2.0, 1.5)
    assert insights(calm) == []
    assert insights(summary(1000, 101, 999, 1.0, 2.0, 1.5)) == ["small_requests"]
    assert insights(summary(1000, 100, 799 - 1, 1.0, 2.0, 1.5)) == ["random"]
    assert insights(summary(1000, 100, 999, 1.01, 2.0, 1.5)) == ["metadata_bound"]
    assert insights(summary(1000, 100, 999, 1.0, 2.0, 1.3)) == ["imbalanced"]
    # too few requests, too little time: no pattern to speak of
    assert insights(summary(99, 99, 0, 0.0, 0.9, 0.1)) == []


def test_an_incomplete_log_is_not_ok():
    found = summary(1000, 0, 999, 0.0, 1.0, 1.0)
    found["partial"] = ["POSIX"]
    out = Collector(darshan.METRICS)
    darshan.values(found, {}, out)
    assert not out.result().ok and "incomplete" in out.result().reason


ORIGINAL = (DATA / "ior-4k.darshan").read_bytes()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cut=st.integers(0, len(ORIGINAL)),
    flips=st.lists(st.tuples(st.integers(0, len(ORIGINAL) - 1), st.integers(0, 7)), max_size=6),
)
def test_a_damaged_log_is_a_clear_error_or_a_true_read(tmp_path_factory, cut, flips):
    """darshan-util crashes on some damaged logs (signal 11): the child process keeps that
    to the workpackage. A log that still reads must still be the run's (or say it is not)."""
    data = bytearray(ORIGINAL[:cut])
    for at, bit in flips:
        if at < len(data):
            data[at] ^= 1 << bit
    path = tmp_path_factory.mktemp("damaged") / "darshan.log"
    path.write_bytes(bytes(data))
    result = darshan.read(path, {darshan.DECLARED: "1m"})
    if not result.ok:
        assert result.reason.startswith("darshan.log: ")
        assert "Traceback" not in result.reason and "\n" not in result.reason
    elif not flips:  # cut short only: what still reads is the whole run
        assert {m.name: m.value for m in result.measurements}["posix_bytes_written"] == 8 * MiB
