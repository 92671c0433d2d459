"""Repetitions inside one execution beyond IOR's: a sample each where the output holds each
value (IO500 runs in one job log), the program's own summary said as such where it holds
only that (mdtest's statistics over ``-i``, fio's totals over ``loops``)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.analysis import builtin
from jubex.api import load, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.comparison.compare_runs import compare_runs
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.space.spec import resolve_spec

OUTPUTS = Path(__file__).resolve().parents[2] / "data" / "outputs"
MDTEST = OUTPUTS / "mdtest" / "dirs_and_files_n1000_np1.txt"  # mdtest -i 3
IO500_RUNS = [
    OUTPUTS / "io500" / name for name in ("v2024_result_summary.txt", "isc20_result_summary.txt")
]


def _made(tmp_path: Path, do: str, analyser: str, columns: str, executions: int = 2):
    tmp_path.mkdir(parents=True, exist_ok=True)
    definition = tmp_path / "d.yaml"
    definition.write_text(
        "name: summaries\n"
        f"steps:\n  s:\n    iterations: {executions}\n    do: {json.dumps(do)}\n"
        f"    analyse: [{analyser}]\n"
        f"results:\n  t:\n    group_by: [jube_step_name]\n    columns:\n{columns}"
    )
    spec = resolve_spec(load(definition), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet", jobs=1))
    return made


def _table(tmp_path: Path, do: str, analyser: str, columns: str, executions: int = 2):
    ((_, table),) = tables_with_definitions([_made(tmp_path, do, analyser, columns, executions)])
    return table


def test_mdtest_statistics_are_said_to_be_its_own_over_its_iterations(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        f"cat {MDTEST}",
        "mdtest",
        "      - {name: file_creation_mean, stats: [n, mean]}\n",
    )
    (record,) = table.records()
    assert record["file_creation_mean_n"] == 2  # two executions: a sample each
    assert record["file_creation_mean_mean"] == pytest.approx(1313.027)
    (note,) = [n for n in table.notes if n.startswith("file_creation_mean:")]
    assert "mdtest's own summary over 3 iterations of each execution" in note
    assert "n counts executions" in note


def test_a_comparison_says_so_too(tmp_path: Path) -> None:
    column = "      - {name: file_creation_mean, stats: [n, mean]}\n"
    made = [_made(tmp_path / side, f"cat {MDTEST}", "mdtest", column) for side in "ab"]
    result = compare_runs(made[0], made[1], metrics=["file_creation_mean"])
    (item,) = result.items
    assert item.baseline is not None and item.baseline.n == 2
    (note,) = [n for n in result.notes if n.startswith("file_creation_mean:")]
    assert "over 3 iterations of each execution" in note


def test_mdtests_verbose_lines_are_rank_0s_and_no_samples() -> None:
    """``-v`` prints each iteration's rate -- of rank 0 alone: with 2 tasks its Directory
    creation 26216.039, 24186.512, 7313.393 are half the SUMMARY's 52432.077 .. 14626.786,
    its File creation 15683.745 no fixed part of 29113.969. Only the SUMMARY is read."""
    text = (OUTPUTS / "mdtest" / "v4.1.0_verbose_i3_np2.txt").read_text()
    found = builtin.get("mdtest").parse(text)
    assert found.ok, found.reason
    values = {m.name: m.value for m in found.measurements}
    assert values["iterations"] == 3 and values["tasks"] == 2
    assert values["directory_creation_max"] == 52432.077
    assert values["file_creation_mean"] == 15770.398
    names = [m.name for m in found.measurements]
    assert len(names) == len(set(names))  # one value each: the summary's
    assert 26216.039 not in values.values() and 15683.745 not in values.values()


def test_iors_summary_is_said_to_be_its_own_beside_its_samples(tmp_path: Path) -> None:
    ior = OUTPUTS / "ior" / "posix_fpp_t1m_b16m_np4.txt"  # -i 3
    columns = "      - {name: write_mean, stats: [n, mean]}\n      - {name: write_bw, stats: [n]}\n"
    table = _table(tmp_path, f"cat {ior}", "ior", columns)
    (record,) = table.records()
    assert (record["write_mean_n"], record["write_bw_n"]) == (2, 6)
    (note,) = [n for n in table.notes if "own summary" in n]
    assert note.startswith("write_mean: ior's own summary over 3 repetitions of each execution")
    assert "its per-iteration values give a sample each" in note


def test_one_iteration_needs_no_note(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text(MDTEST.read_text().replace("(of 3 iterations)", "(of 1 iterations)"))
    table = _table(
        tmp_path, f"cat {one}", "mdtest", "      - {name: file_creation_mean, stats: [n]}\n"
    )
    assert not [n for n in table.notes if "own summary" in n]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_loops_are_said_to_be_one_total(tmp_path: Path) -> None:
    """A real fio job of loops=3: one bandwidth over all three, and the table says so."""
    command = (
        f"fio --name=loops --directory={shlex.quote(str(tmp_path))} --rw=write --bs=64k "
        "--size=256k --loops=3 --output-format=json"
    )
    table = _table(
        tmp_path, command, "fio", "      - {name: write_bw, stats: [n, mean]}\n      - loops\n"
    )
    (record,) = table.records()
    assert record["write_bw_n"] == 2
    (note,) = [n for n in table.notes if n.startswith("write_bw:")]
    assert "fio's own summary over 3 loops of each execution" in note


def test_io500_runs_of_one_job_log_are_samples_each(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("".join(p.read_text() for p in IO500_RUNS))
    table = _table(
        tmp_path,
        f"cat {log}",
        "io500",
        "      - {name: ior_easy_write, stats: [n, mean, min, max]}\n      - ior_easy_write_avg\n",
        executions=1,
    )
    (record,) = table.records()
    assert record["ior_easy_write_n"] == 2
    assert record["ior_easy_write_min"] == pytest.approx(101.038894)
    assert record["ior_easy_write_max"] == pytest.approx(352.803032)
    assert record["ior_easy_write_mean"] == pytest.approx((101.038894 + 352.803032) / 2)
    assert record["ior_easy_write_avg"] == record["ior_easy_write_mean"]


_RUN = """IO500 version io500-sc22 (standard)
[RESULT]       ior-easy-write {0:15.6f} GiB/s : time 320.000 seconds
[RESULT]    mdtest-easy-write {1:15.6f} kIOPS : time 310.000 seconds
[SCORE ] Bandwidth {0:f} GiB/s : IOPS {1:f} kiops : TOTAL {2:f}
"""

_RATE = st.floats(0.001, 1e6, allow_nan=False).map(lambda x: round(x, 6))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(_RATE, _RATE), min_size=1, max_size=5))
def test_every_io500_run_of_an_output_is_a_value_in_order(runs: list[tuple[float, float]]) -> None:
    text = "".join(_RUN.format(bw, md, (bw * md) ** 0.5) for bw, md in runs)
    found = builtin.get("io500").parse(text).measurements
    assert [m.value for m in found if m.name == "ior_easy_write"] == [bw for bw, _ in runs]
    assert [m.value for m in found if m.name == "mdtest_easy_write"] == [md for _, md in runs]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 10**6), st.sampled_from(["job options", "global options", None]))
def test_fio_json_states_its_loops(loops: int, where: str | None) -> None:
    document = json.loads((OUTPUTS / "fio" / "seqwrite_1m_numjobs2_json.txt").read_text())
    for job in document["jobs"]:
        job["job options"].pop("loops", None)
    if where == "job options":
        document["jobs"][0]["job options"]["loops"] = str(loops)
    elif where == "global options":
        document.setdefault("global options", {})["loops"] = str(loops)
    found = builtin.get("fio").parse(json.dumps(document)).measurements
    got = [m.value for m in found if m.name == "loops"]
    expected = 1 if where is None else loops
    assert got[0] == expected
    assert got[1] == (loops if where == "global options" else 1)


def test_the_fio_in_path_states_loops_as_we_read_them(tmp_path: Path) -> None:
    """What fio 3.x writes for loops= is what the parser takes (a real run, when fio is here)."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed")
    out = subprocess.run(
        [
            "fio",
            "--name=x",
            f"--directory={tmp_path}",
            "--rw=read",
            "--size=64k",
            "--loops=2",
            "--output-format=json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = builtin.get("fio").parse(out)
    assert found.ok, found.reason
    assert [m.value for m in found.measurements if m.name == "loops"] == [2]
