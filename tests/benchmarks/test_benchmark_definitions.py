"""The ready definitions of ``benchmarks/``: valid, the commands a site expects, and real runs.

Site commands are checked as ``--dry-run`` prints them (there is no IOR here); the
``kernels`` twin of every definition runs for real with tiny sizes, fio.yaml with real fio.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from jubex.analysis.harvest import Harvester
from jubex.api import dry_run, load, resolve, validate
from jubex.cli.main import main
from jubex.results.samples.rows import result_rows
from jubex.store.rundir import open_run

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
HARNESS = REPO / "tests" / "data" / "outputs" / "io500" / "run_np2"
HAVE_CC = shutil.which("make") is not None and shutil.which("cc") is not None
needs_cc = pytest.mark.skipif(not HAVE_CC, reason="the kernels need make and a C compiler")

TAGS = {
    "ior.yaml": [[], ["kernels"], ["fixed"], ["kernels", "fixed"]],
    "mdtest.yaml": [[], ["kernels"]],
    "fio.yaml": [[]],
    "io500.yaml": [[], ["kernels"], ["harness"]],
}


def commands(
    name: str, *tags: str, platform: str = "local", **overrides: str
) -> list[tuple[str, str]]:
    """(step, command) of every workpackage, whitespace collapsed, as a dry run renders them."""
    spec = resolve(
        BENCHMARKS / name,
        tags=tags,
        platform=platform,
        overrides={k: v.split(",") for k, v in overrides.items()},
    )
    return [
        (item.rendered.wp.step, " ".join(command.text.split()))
        for item in dry_run(spec)
        for cycle in item.rendered.prepared.cycles
        for command in cycle
    ]


@pytest.mark.parametrize(("name", "tags"), [(n, t) for n, ts in TAGS.items() for t in ts])
def test_every_definition_validates_with_each_tag(name: str, tags: list[str]) -> None:
    assert [str(p) for p in validate([BENCHMARKS / name], tags)] == []


def test_ior_runs_the_sites_ior_through_the_launcher() -> None:
    found = commands("ior.yaml", platform="slurm")
    assert len(found) == 2 * 2 * 2 * 2 * 3 * 3  # access, api, transfer, block, nodes; 3 reps
    assert found[0] == (
        "run",
        "srun -N 1 -n 8 -c 1 ior -a POSIX -F -C -e -b 1g -t 1m -s 1 -i 1 -w -r"
        " -o ./ior.000000.000000",  # the run directory a run would get
    )
    shared = [c for _, c in found if "-a MPIIO" in c and " -F " not in c]
    assert shared and all("-C -e -b" in c for c in shared)
    assert {re.search(r"srun -N (\d+) -n (\d+)", c).groups() for _, c in found} == {  # type: ignore[union-attr]
        ("1", "8"),
        ("2", "16"),
        ("4", "32"),
    }


def test_ior_options_and_the_executable_come_from_the_command_line() -> None:
    found = commands("ior.yaml", ior="/opt/ior/bin/ior", reorder="0", fsync="0", access="ssf")
    assert found[0][1].startswith("mpiexec -n 8 /opt/ior/bin/ior -a POSIX -b 1g -t 1m")
    assert not any(re.search(r" -[FCe] ", c) for _, c in found)


def test_ior_fixed_derives_the_block_from_the_aggregate() -> None:
    found = commands("ior.yaml", "fixed", api="POSIX", access="fpp", transfer="1m")
    blocks = {int(re.search(r"-b (\d+)", c).group(1)) for _, c in found}  # type: ignore[union-attr]
    assert blocks == {(64 << 30) // 8, (64 << 30) // 16, (64 << 30) // 32}


def test_ior_kernels_build_once_and_fork_their_tasks() -> None:
    found = commands("ior.yaml", "kernels")
    assert found[0][0] == "build" and found[0][1].startswith("make -s -C ")
    runs = [c for step, c in found[1:] if step == "kernels"]
    assert len(runs) == len(found) - 1 == 2 * 2 * 2 * 3  # access, transfer, ppn; 3 reps
    assert runs[0] == (
        "build/jubex-bw -n 1 -a POSIX -F -C -e -b 16m -t 64k -s 1 -i 1 -w -r -o ./ior.000000.000001"
    )
    assert not any("mpiexec" in c or "MPIIO" in c for c in runs)


def test_mdtest_easy_and_hard_variants() -> None:
    found = [c for _, c in commands("mdtest.yaml", platform="slurm")]
    easy = [c for c in found if " -u " in c]
    hard = [c for c in found if " -u " not in c]
    assert easy[0] == (
        "srun -N 1 -n 8 -c 1 mdtest -F -n 1000 -z 0 -b 4 -u -w 0 -e 0 -i 1"
        " -d ./mdtest.000000.000000"
    )
    assert all("-w 3901 -e 3901" in c and "-z 0" in c for c in hard)
    assert len(easy) == 2 * 3 * 2 * 3 and len(hard) == 2 * 3 * 3  # hard: one directory only


def test_mdtest_kernels_start_the_tasks_with_their_own_option() -> None:
    runs = [c for step, c in commands("mdtest.yaml", "kernels") if step == "kernels"]
    assert runs[0].startswith("build/jubex-md -N 1 -F -n 256 -z 0 -b 4 -u -w 0 -e 0 -i 1 -d ")


def test_fio_asks_for_json_and_sweeps_direction_block_and_jobs() -> None:
    found = [c for _, c in commands("fio.yaml")]
    assert len(found) == 4 * 2 * 2 * 3
    assert found[0] == (
        "fio --name=write --rw=write --bs=4k --size=1g --numjobs=1 --ioengine=psync "
        "--iodepth=1 --direct=1 --directory=. --filename_format=fio.000000.000000.'$jobnum' "
        "--unlink=1 --group_reporting --output-format=json"
    )
    assert {re.search(r"--rw=(\w+)", c).group(1) for c in found} == {  # type: ignore[union-attr]
        "read",
        "write",
        "randread",
        "randwrite",
    }


IO500_ORDER = [
    "ior-easy-write",
    "mdtest-easy-write",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
]


@pytest.mark.parametrize("tags", [(), ("kernels",)])
def test_io500_runs_the_phases_in_io500s_order_with_its_parameters(tags: tuple[str, ...]) -> None:
    found = [c for step, c in commands("io500.yaml", *tags) if step in ("phases", "kernels")]
    one = found[: len(found) // 3]
    assert [re.search(r"> ([\w-]+)\.txt$", c).group(1) for c in one[1:]] == IO500_ORDER  # type: ignore[union-attr]
    by_phase = {c.rpartition("> ")[2]: c for c in one[1:]}
    assert all("-t 47008 -b 47008" in c for p, c in by_phase.items() if "ior-hard" in p)
    assert all("-w 3901 -e 3901" in c for p, c in by_phase.items() if "mdtest-hard" in p)
    assert all(" -F -t 2m " in c for p, c in by_phase.items() if "ior-easy" in p)
    assert "-size 3901c -name '*01*'" in one[5]
    assert "trap 'rm -rf \"$DATA\"' EXIT" in one[0]  # the data go, a failed phase's too


def test_io500_harness_is_the_real_binary_read_by_the_io500_analyser() -> None:
    assert commands("io500.yaml", "harness", config="/home/me/config.ini") == [
        ("harness", "mpiexec -n 16 io500 /home/me/config.ini")
    ]
    assert load(BENCHMARKS / "io500.yaml", tags=["harness"]).steps["harness"].analyse == ("io500",)


def test_io500_patterns_give_the_harness_score_from_its_phase_files(tmp_path: Path) -> None:
    for phase in IO500_ORDER:
        if phase != "find":
            shutil.copy(HARNESS / f"{phase}.txt", tmp_path)
    # the harness's find (pfind) counted 311507 entries in 0.1508 s (result.txt)
    (tmp_path / "find.txt").write_text("find: 311507 scanned, 3080 found in 0.1508 s\n")
    found = Harvester(load(BENCHMARKS / "io500.yaml"), "phases").harvest(tmp_path, {})
    assert found.ok
    value = {m.name: m.value for m in reversed(found.measurements)}
    # the harness's result_summary.txt
    assert value["ior_easy_write"] == pytest.approx(0.931990, rel=1e-4)
    assert value["mdtest_hard_delete"] == pytest.approx(10.029171, rel=1e-6)
    assert value["score_bw"] == pytest.approx(1.706355, rel=1e-4)
    assert value["score_md"] == pytest.approx(185.201603, rel=1e-3)
    assert value["score"] == pytest.approx(17.776944, rel=1e-3)


def run_kernels(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / "runs"
    argv = ["run", str(BENCHMARKS / name), "--outpath", str(out), "-q", "--no-result", *args]
    assert main(argv) == 0
    return sorted(out.iterdir())[-1]


def table(run: Path, name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["result", str(run), "-T", name, "-f", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_complete(result: dict[str, object], rows: int) -> None:
    assert len(result["rows"]) == rows  # type: ignore[arg-type]
    assert {c["name"]: c["missing"] for c in result["columns"]} == {  # type: ignore[index,union-attr]
        c["name"]: 0
        for c in result["columns"]  # type: ignore[index,union-attr]
    }


@needs_cc
def test_ior_with_the_kernels_fills_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_kernels(
        tmp_path, "ior.yaml", "--tag", "kernels", "-p", "block=256k", "-p", "transfer=64k"
    )
    result = table(run, "bandwidth", capsys)
    assert_complete(result, rows=2 * 2)  # access x tasks
    assert all(r["write_bw_n"] == 3 and r["write_bw_min"] > 0 for r in result["rows"])  # type: ignore[index,union-attr]


@needs_cc
def test_ior_fixed_with_the_kernels_keeps_the_aggregate(tmp_path: Path) -> None:
    args = ["--tag", "kernels", "--tag", "fixed", "-p", "aggregate=2m", "-p", "access=fpp"]
    run = run_kernels(tmp_path, "ior.yaml", *args, "-p", "transfer=64k")
    rows = [r for r in result_rows(open_run(run)) if r["jube_step_name"] == "kernels"]
    assert {r["aggregate_size"] for r in rows} == {2 << 20}
    assert {r["tasks"]: r["block_size"] for r in rows} == {1: 2 << 20, 2: 1 << 20}


@needs_cc
def test_mdtest_with_the_kernels_fills_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_kernels(tmp_path, "mdtest.yaml", "--tag", "kernels", "-p", "files=32")
    assert_complete(table(run, "rates", capsys), rows=(2 + 1) * 2)  # easy: 2 depths, hard: 1


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_fio_runs_for_real(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["-p", "size=512k", "-p", "bs=64k", "-p", "numjobs=2", "-p", "direct=0"]
    run = run_kernels(tmp_path, "fio.yaml", *args)
    for name, kinds in (("read", {"read", "randread"}), ("write", {"write", "randwrite"})):
        result = table(run, name, capsys)
        assert_complete(result, rows=2)
        assert {r["rw"] for r in result["rows"]} == kinds  # type: ignore[index,union-attr]
        assert all(r[f"{name}_bw_n"] == 3 for r in result["rows"])  # type: ignore[index,union-attr]


@needs_cc
def test_io500_with_the_kernels_scores_as_io500_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sizes = ["easy_block=2m", "hard_segments=20", "easy_files=50", "hard_files=50"]
    run = run_kernels(
        tmp_path, "io500.yaml", "--tag", "kernels", *[a for s in sizes for a in ("-p", s)]
    )
    score = table(run, "score", capsys)
    assert_complete(score, rows=1)
    assert score["rows"][0]["valid"] == "no: jubex kernels, not IOR and mdtest"  # type: ignore[index]
    assert_complete(table(run, "phases", capsys), rows=1)
    rows = [r for r in result_rows(open_run(run)) if r["jube_step_name"] == "kernels"]
    assert len(rows) == 3
    for row in rows:
        bw = [row[f"ior_{k}"] for k in ("easy_write", "hard_write", "easy_read", "hard_read")]
        md = [row[p.replace("-", "_")] for p in IO500_ORDER if "ior" not in p]
        assert row["score_bw"] == pytest.approx(math.prod(bw) ** (1 / 4))  # type: ignore[arg-type]
        assert row["score_md"] == pytest.approx(math.prod(md) ** (1 / 8))  # type: ignore[arg-type]
        assert row["score"] == pytest.approx(math.sqrt(row["score_bw"] * row["score_md"]))  # type: ignore[operator]


@needs_cc
def test_io500_removes_its_data_when_a_phase_fails(tmp_path: Path) -> None:
    sizes = ["easy_block=2m", "easy_files=10", "mdtest=false"]
    argv = ["run", str(BENCHMARKS / "io500.yaml"), "--tag", "kernels", "-q", "--no-result"]
    out = tmp_path / "runs"
    assert main([*argv, "--outpath", str(out), *[a for s in sizes for a in ("-p", s)]]) == 1
    works = sorted(out.glob("*/*_kernels/work"))
    assert len(works) == 3 and all((w / "ior-easy-write.txt").stat().st_size for w in works)
    assert not list(out.glob("*/*_kernels/work/io500.*"))  # ior-easy wrote, mdtest-easy failed


def test_p_reaches_the_kernels_executable_only_under_its_tag() -> None:
    assert commands("ior.yaml", "kernels", ior="/tmp/bw")[1][1].startswith("/tmp/bw -n 1 ")
    assert commands("ior.yaml", ior="/tmp/bw")[0][1].startswith("mpiexec -n 8 /tmp/bw -a ")
