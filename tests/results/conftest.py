"""Rows as the run store hands them over: parameters, measurements, meta keys."""

import pytest

from jubex.language.values import Size


def _row(wp, api, transfer, nodes, write_bw, read_bw=None, *, it=0, ok=True, run="r1"):
    return {
        "api": api,
        "transfer": transfer,
        "nodes": nodes,
        "write_bw": write_bw,
        "read_bw": read_bw,
        "jube_wp_id": wp,
        "jube_step_name": "run",
        "jube_wp_iteration": it,
        "run": run,
        "ok": ok,
    }


@pytest.fixture
def ior_rows():
    """Two points of three iterations each, one of them with a missing and a failed value."""
    small, big = Size(4096, "4KiB"), Size(1 << 20, "1MiB")
    return [
        _row(0, "POSIX", small, 2, 1000.0, 900.0, it=0),
        _row(1, "POSIX", small, 2, 1100.0, 950.0, it=1),
        _row(2, "POSIX", small, 2, 1200.0, None, it=2),
        _row(3, "MPIIO", big, 10, 3000.0, 2000.0, it=0),
        _row(4, "MPIIO", big, 10, 3100.0, 2100.0, it=1),
        _row(5, "MPIIO", big, 10, None, None, it=2, ok=False),
    ]


@pytest.fixture
def make_row():
    return _row


@pytest.fixture
def units():
    return {"write_bw": "MiB/s", "read_bw": "MiB/s", "transfer": "B"}


@pytest.fixture
def directions():
    return {"write_bw": True, "read_bw": True}
