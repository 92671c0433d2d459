"""Which runs a command reads: each once however named, ``DIR -i ID`` as in JUBE, the same
lookup from any directory, and said on stderr (real runs, real CLI)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.cli.common import stretches

Jubex = Callable[..., CompletedProcess[str]]

DEFINITION = """
name: twice
parameters:
  n: [1, 2]
patterns:
  bw:
    bw: {regex: "bw $jube_pat_fp", type: float}
steps:
  work:
    iterations: 2
    do: echo "bw $n"
    analyse: [bw]
results:
  sums:
    group_by: [n]
    columns: [n, {name: bw, stats: [n, mean]}]
"""


def ok(done: CompletedProcess[str], status: int = 0) -> CompletedProcess[str]:
    assert done.returncode == status, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, jubex: Jubex) -> Path:
    """Two runs in ./runs, and one elsewhere made from here (the record points there)."""
    top = tmp_path_factory.mktemp("home")
    (top / "b.yaml").write_text(DEFINITION)
    (top / "elsewhere").mkdir()
    (top / "elsewhere" / "b.yaml").write_text(DEFINITION)
    for _ in range(2):
        ok(jubex(top, "run", "b.yaml", "-q", "--no-result"))
    ok(jubex(top, "run", "elsewhere/b.yaml", "-q", "--no-result"))
    return top


def counts(done: CompletedProcess[str]) -> list[str]:
    return [row["bw_n"] for row in csv.DictReader(io.StringIO(done.stdout))]


def test_a_run_named_several_ways_is_read_once(home: Path, jubex: Jubex) -> None:
    run = home / "runs" / "000000"
    done = ok(
        jubex(home, "result", "runs/000000", "runs/000000", str(run), "-T", "sums", "-f", "csv")
    )
    assert counts(done) == ["2", "2"]
    assert "reading runs/ 000000\n" in done.stderr
    both = ok(jubex(home, "result", "runs/000000", "-i", "0,0", "-T", "sums", "-f", "csv"))
    assert counts(both) == ["2", "2"]


def test_dir_with_an_id_is_that_run_of_that_outpath(home: Path, jubex: Jubex) -> None:
    done = ok(jubex(home, "result", "runs", "-i", "0", "-T", "sums", "-f", "csv"))
    assert counts(done) == ["2", "2"]
    assert "reading runs/ 000000\n" in done.stderr
    elsewhere = ok(jubex(home, "result", "elsewhere/runs", "-i", "all", "-f", "csv"))
    assert "reading elsewhere/runs/ 000000\n" in elsewhere.stderr
    assert (
        "run elsewhere/runs/000000 "
        in ok(jubex(home, "status", "elsewhere/runs", "-i", "0")).stdout
    )


def test_a_directory_with_runs_reads_its_own_runs(home: Path, jubex: Jubex) -> None:
    """The latest run was made from here, elsewhere: ./runs is still this directory's."""
    listing = ok(jubex(home, "runs")).stdout
    assert listing.startswith(f"runs of runs/ ({home / 'runs'})\n")
    assert "reading runs/ 000001\n" in ok(jubex(home, "result", "-f", "csv")).stderr
    every = ok(jubex(home, "result", "-i", "all", "-f", "csv"))
    assert "reading runs/ 000000, 000001\n" in every.stderr


def test_an_unknown_table_lists_the_real_ones(home: Path, jubex: Jubex) -> None:
    wrong = ok(jubex(home, "result", "-T", "nosuch"), 2)
    assert "no result table 'nosuch' (it has: sums)" in wrong.stderr
    (home / "plain").mkdir()
    (home / "plain" / "p.yaml").write_text("name: p\nsteps:\n  work:\n    do: echo hi\n")
    ok(jubex(home / "plain", "run", "p.yaml", "-q", "--no-result"))
    plain = ok(jubex(home / "plain", "result", "-T", "nosuch"), 2)
    assert "(it has: values (the default table of every value))" in plain.stderr
    ok(jubex(home / "plain", "result", "-T", "values"))


@pytest.mark.parametrize(
    ("ids", "said"),
    [
        ([f"{i:06d}" for i in range(1000)], "000000-000999 (1000 runs)"),
        (["000000", "000001"], "000000, 000001"),
        (["000000", "000001", "000002", "000005"], "000000-000002 (3 runs), 000005"),
        (["000009", "000010", "000011"], "000009-000011 (3 runs)"),
        (["9", "10", "11"], "9, 10, 11"),  # not written as wide: not one stretch
        (["000002", "000001", "000000"], "000002, 000001, 000000"),  # in the order named
        (["\u00b2", "\u00b3", "\u2074"], "\u00b2, \u00b3, \u2074"),  # digits int() refuses
    ],
)
def test_runs_numbered_one_after_another_are_said_as_a_stretch(ids: list[str], said: str) -> None:
    assert stretches(ids) == said


@given(st.sets(st.integers(0, 60), max_size=40), st.integers(1, 7))
def test_a_stretch_says_every_run_and_no_other(numbers: set[int], width: int) -> None:
    ids = [f"{n:0{width}d}" for n in sorted(numbers)]
    named: list[str] = []
    for part in stretches(ids).split(", ") if ids else []:
        first, _, rest = part.partition("-")
        if not rest:
            named.append(first)
            continue
        last, count = rest.split(" (")
        span = range(int(first), int(last) + 1)
        assert count == f"{len(span)} runs)" and len(span) > 2
        named += [f"{n:0{len(first)}d}" for n in span]
    assert named == ids
