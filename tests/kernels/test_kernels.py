"""The bundled C kernels, built with the real compiler and run for real on small sizes."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from jubex.analysis.builtin import get
from jubex.analysis.measurement import ParseResult
from jubex.shipped import shipped

KERNELS = shipped("kernels")
SHARED = Path(__file__).resolve().parents[1] / "data" / "outputs"
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror"]

pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")

MD_PHASES = [
    "Directory creation",
    "Directory stat",
    "Directory rename",
    "Directory removal",
    "File creation",
    "File stat",
    "File read",
    "File removal",
    "Tree creation",
    "Tree removal",
]


@pytest.fixture(scope="session")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """jubex-bw and jubex-md built by the shipped Makefile into a temporary directory."""
    out = tmp_path_factory.mktemp("kernels")
    if shutil.which("make"):
        cmd = ["make", "-s", "-C", str(KERNELS), f"OUT={out}", f"CC={CC}"]
    else:
        cmd = ["sh", "-c", f"{CC} -O2 -o {out}/jubex-bw bw.c && {CC} -O2 -o {out}/jubex-md md.c"]
    subprocess.run(cmd, cwd=KERNELS, check=True, capture_output=True, timeout=120)
    return out


def run(binary: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def bw(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(bin_dir / "jubex-bw", *args)


def md(bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(bin_dir / "jubex-md", *args)


def option(out: str, name: str) -> str:
    match = re.search(rf"^{re.escape(name)}\s*: (.*)$", out, re.M)
    assert match, f"no '{name}' line in:\n{out}"
    return match.group(1).strip()


def result_rows(out: str) -> list[list[str]]:
    table = out.split("Results:", 1)[1].split("Summary of all tests:", 1)[0]
    return [line.split() for line in table.splitlines() if line.startswith(("write ", "read "))]


def summary_rows(out: str) -> dict[str, list[str]]:
    tail = out.split("Summary of all tests:", 1)[1]
    return {
        line.split()[0]: line.split()
        for line in tail.splitlines()
        if line.startswith(("write ", "read "))
    }


def column_starts(line: str) -> list[int]:
    return [m.start() for m in re.finditer(r"\S+", line)]


def column_ends(line: str) -> list[int]:
    return [m.end() for m in re.finditer(r"\S+", line)]


def md_table(out: str, kind: str) -> dict[str, list[float]]:
    block = out.split(f"SUMMARY {kind}", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in block.splitlines()[3:]:
        match = re.match(r"   (\S.*?)\s{2,}([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)$", line)
        if match:
            rows[match.group(1)] = [float(x) for x in match.groups()[1:]]
    return rows


# ----------------------------------------------------------------- building


@pytest.mark.parametrize("source", ["bw.c", "md.c"])
def test_each_kernel_builds_with_one_warning_free_compiler_call(
    source: str, tmp_path: Path
) -> None:
    proc = subprocess.run(
        [CC, *STRICT, "-o", str(tmp_path / "k"), str(KERNELS / source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_help_names_every_option(bin_dir: Path) -> None:
    for binary, flags in (("jubex-bw", "abtsiFeCwrRokn"), ("jubex-md", "nzbiduFDweyCTErUN")):
        proc = run(bin_dir / binary, "-h")
        assert proc.returncode == 0
        for flag in flags:
            assert re.search(rf"(^\s+|;\s+)-{flag}\b", proc.stdout, re.M), (binary, flag)
        assert run(bin_dir / binary, "--help").stdout == proc.stdout


# ------------------------------------------------------------------ jubex-bw


def test_bw_shared_file_reports_sizes_tasks_and_positive_bandwidth(
    bin_dir: Path, tmp_path: Path
) -> None:
    args = ["-n", "2", "-t", "64k", "-b", "1m", "-s", "2", "-i", "2", "-o", f"{tmp_path}/ssf"]
    proc = bw(bin_dir, *args)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("jubex-bw 0.1: ")
    assert option(out, "access") == "single-shared-file"
    assert option(out, "tasks") == "2"
    assert option(out, "segments") == "2"
    assert option(out, "xfersize") == "65536 bytes"
    assert option(out, "blocksize") == "1 MiB"
    assert option(out, "aggregate filesize") == "4 MiB"
    rows = result_rows(out)
    assert [r[0] for r in rows] == ["write", "read", "write", "read"]
    assert [r[-1] for r in rows] == ["0", "0", "1", "1"]
    for row in rows:
        bandwidth, iops, total = float(row[1]), float(row[2]), float(row[9])
        assert math.isfinite(bandwidth) and bandwidth > 0
        assert math.isfinite(iops) and iops > 0
        assert bandwidth == pytest.approx(4 / total, rel=0.05)
    summary = summary_rows(out)
    assert set(summary) == {"write", "read"}
    for row in summary.values():
        assert row[12:24] == ["0", "2", "2", "2", "0", "0", "1", "0", "0", "2", "1048576", "65536"]
        assert row[24:26] == ["4.0", "POSIX"]
        assert 0 < float(row[2]) <= float(row[1])
    assert re.search(r"^Max Write: [\d.]+ MiB/sec \([\d.]+ MB/sec\)$", out, re.M)
    assert re.search(r"^Max Read:  [\d.]+ MiB/sec", out, re.M)
    assert list(tmp_path.iterdir()) == []


def test_bw_file_per_process_makes_one_file_per_task_kept_with_k(
    bin_dir: Path, tmp_path: Path
) -> None:
    common = ["-n", "3", "-F", "-t", "256k", "-b", "1m"]
    proc = bw(bin_dir, *common, "-w", "-k", "-o", f"{tmp_path}/f")
    assert proc.returncode == 0, proc.stderr
    assert option(proc.stdout, "access") == "file-per-process"
    assert [r[0] for r in result_rows(proc.stdout)] == ["write"]
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["f.00000000", "f.00000001", "f.00000002"]
    assert all((tmp_path / n).stat().st_size == 1 << 20 for n in names)

    proc = bw(bin_dir, *common, "-r", "-o", f"{tmp_path}/f")
    assert proc.returncode == 0, proc.stderr
    assert [r[0] for r in result_rows(proc.stdout)] == ["read"]
    assert len(list(tmp_path.iterdir())) == 3, "a read-only run leaves the files alone"

    proc = bw(bin_dir, *common, "-o", f"{tmp_path}/g")
    assert proc.returncode == 0, proc.stderr
    assert not any(p.name.startswith("g.") for p in tmp_path.iterdir())


def test_bw_verification_passes_and_finds_a_corrupted_word(bin_dir: Path, tmp_path: Path) -> None:
    common = ["-n", "2", "-F", "-t", "64k", "-b", "512k", "-s", "2", "-o", f"{tmp_path}/v"]
    proc = bw(bin_dir, *common, "-C", "-R", "-i", "2")
    assert proc.returncode == 0, proc.stderr

    assert bw(bin_dir, *common, "-w", "-k").returncode == 0
    victim = tmp_path / "v.00000001"
    with victim.open("r+b") as f:
        f.seek(70_000)
        f.write(b"\xff" * 8)
    proc = bw(bin_dir, *common, "-r", "-R", "-k")
    assert proc.returncode == 1
    assert proc.stderr.startswith("ERROR: data verification failed")
    assert "Summary of all tests" not in proc.stdout


def test_bw_reorder_reads_the_neighbours_data(bin_dir: Path, tmp_path: Path) -> None:
    common = ["-n", "2", "-F", "-t", "64k", "-b", "512k", "-o", f"{tmp_path}/n", "-k"]
    assert bw(bin_dir, *common, "-w").returncode == 0
    (tmp_path / "n.00000001").write_bytes(b"")
    assert bw(bin_dir, *common, "-r").returncode != 0, "task 1 reads its own, now empty, file"
    proc = bw(bin_dir, *common, "-r", "-C")
    assert proc.returncode != 0, "with -C task 0 reads task 1's empty file"
    assert "n.00000001 ends before offset 0" in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["-x"],
        ["-t"],
        ["-t", "3k"],
        ["-t", "1m", "-b", "1536k"],
        ["-b", "1q"],
        ["-n", "0"],
        ["-a", "MPIIO"],
        ["stray"],
    ],
)
def test_bw_bad_command_line_is_an_error_without_numbers(
    bin_dir: Path, tmp_path: Path, args: list[str]
) -> None:
    proc = bw(bin_dir, *args, "-o", f"{tmp_path}/x")
    assert proc.returncode == 2
    assert proc.stderr.startswith("ERROR: ") and proc.stderr.count("\n") == 1
    assert proc.stdout == ""


def test_bw_unwritable_directory_is_an_error_without_numbers(bin_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("not a directory")
    proc = bw(bin_dir, "-n", "2", "-o", f"{tmp_path}/plain/out")
    assert proc.returncode == 1
    assert proc.stderr.startswith("ERROR: cannot open ")
    assert "Not a directory" in proc.stderr
    assert proc.stdout == ""


SIZE_UNITS = {"": 1, "k": 1024, "KiB": 1024, "m": 1 << 20, "MiB": 1 << 20, "kB": 1000, "MB": 10**6}


@settings(max_examples=25, deadline=None)
@given(count=st.integers(min_value=1, max_value=8), unit=st.sampled_from(sorted(SIZE_UNITS)))
def test_bw_reads_sizes_like_ior_with_explicit_units(
    bin_dir: Path, tmp_path_factory: pytest.TempPathFactory, count: int, unit: str
) -> None:
    count *= 8 if unit == "" else 1  # transfers are whole 8-byte words
    size, text = count * SIZE_UNITS[unit], f"{count}{unit}"
    target = tmp_path_factory.mktemp("size") / "s"
    proc = bw(bin_dir, "-w", "-t", text, "-b", text, "-o", str(target))
    assert proc.returncode == 0, proc.stderr
    assert summary_rows(proc.stdout)["write"][22:24] == [str(size), str(size)]


def size_oracle(text: str) -> int | None:
    """What the size text means by the documented rules; None if it is not a size."""
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", text)
    if not match:
        return None
    units = {"": 1, "b": 1}
    for power, letter in enumerate("kmgt", start=1):
        units |= {letter: 1024**power, f"{letter}ib": 1024**power, f"{letter}b": 1000**power}
    mult = units.get(match.group(2).lower())
    if mult is None or int(match.group(1)) * mult >= 2**64:
        return None
    return int(match.group(1)) * mult


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet="0123456789kKmMgGtTiIbB-. x", min_size=1, max_size=8))
def test_bw_size_text_is_understood_as_documented_or_refused(
    bin_dir: Path, tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    size = size_oracle(text)
    assume(size is None or size <= 1 << 20)  # never write more than a MiB here
    target = tmp_path_factory.mktemp("any") / "s"
    proc = bw(bin_dir, "-w", "-t", text, "-b", text, "-o", str(target))
    if size is None or size == 0 or size % 8:
        assert proc.returncode == 2 and proc.stderr.startswith("ERROR: ")
        assert proc.stdout == ""
    else:
        assert proc.returncode == 0, proc.stderr
        assert summary_rows(proc.stdout)["write"][22] == str(size)


def test_bw_layout_matches_ior_4(bin_dir: Path, tmp_path: Path) -> None:
    """The fixed text of the tables, and where each summary column ends, are IOR's."""
    sample = SHARED / "ior" / "posix_fpp_t1m_b16m_np4.txt"
    if not sample.exists():
        pytest.skip(f"no IOR sample output at {sample}")
    ref = sample.read_text().splitlines()
    args = ["-n", "4", "-F", "-C", "-e", "-t", "1m", "-b", "16m", "-i", "3"]
    proc = bw(bin_dir, *args, "-o", f"{tmp_path}/fpp")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    for fixed in ("Options: ", "Results: ", "Summary of all tests:"):
        assert fixed in out
    for prefix in ("access    bw", "------    ", "Operation   Max"):
        assert next(x for x in out if x.startswith(prefix)) == next(
            x for x in ref if x.startswith(prefix)
        )
    # results rows are left-aligned, summary rows right-aligned
    mine = [x for x in out if x.startswith("write  ")]
    theirs = [x for x in ref if x.startswith("write  ")]
    assert column_starts(mine[0]) == column_starts(theirs[0])
    assert column_ends(mine[-1])[1:] == column_ends(theirs[-1])[1:]
    keys = ["api", "access", "tasks", "clients per node", "xfersize", "blocksize"]
    keys += ["aggregate filesize", "ordering inter file", "task offset", "repetitions"]
    for key in keys:
        assert option(proc.stdout, key) == option("\n".join(ref), key)


# ------------------------------------------------------------------ jubex-md


def tree(root: Path) -> tuple[list[Path], list[Path]]:
    dirs, regular = [], []
    for path in root.rglob("*"):
        (dirs if path.is_dir() else regular).append(path)
    return dirs, regular


def test_md_depth_and_branching_make_the_expected_tree(bin_dir: Path, tmp_path: Path) -> None:
    args = ["-N", "2", "-F", "-C", "-n", "52", "-z", "2", "-b", "3", "-w", "100"]
    proc = md(bin_dir, *args, "-d", str(tmp_path / "base"))
    assert proc.returncode == 0, proc.stderr
    assert "2 tasks, 104 files" in proc.stdout
    dirs, regular = tree(tmp_path / "base" / "test-dir.0-0")
    assert len(dirs) == 1 + 3 + 9
    assert len(regular) == 2 * 52
    assert all(f.stat().st_size == 100 for f in regular)
    deepest = max(len(d.relative_to(tmp_path).parts) for d in dirs)
    assert deepest == 2 + 3
    assert set(md_table(proc.stdout, "rate")) == {"File creation", "Tree creation"}


def test_md_creation_count_is_tasks_times_items(bin_dir: Path, tmp_path: Path) -> None:
    proc = md(bin_dir, "-N", "3", "-n", "40", "-i", "2", "-d", str(tmp_path / "b"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "jubex-md 0.1 was launched with 3 total task(s) on 1 node(s)" in out
    assert "3 tasks, 120 files/directories" in out
    rates, times = md_table(out, "rate"), md_table(out, "time")
    assert list(rates) == MD_PHASES
    assert list(times) == MD_PHASES
    for name in MD_PHASES:
        max_rate, min_rate, mean, sd = rates[name]
        assert all(math.isfinite(x) for x in rates[name])
        assert 0 < min_rate <= mean <= max_rate and sd >= 0
    for name in ("Directory creation", "File creation"):
        # the slowest iteration took the longest: its operations are the 3 x 40 items
        assert rates[name][1] * times[name][0] == pytest.approx(120, rel=0.05)
    assert list((tmp_path / "b").iterdir()) == [], "everything removed"


def test_md_unique_directories_and_separate_phases(bin_dir: Path, tmp_path: Path) -> None:
    base = str(tmp_path / "u")
    common = ["-N", "2", "-u", "-n", "30", "-z", "1", "-b", "2", "-w", "64", "-d", base]
    proc = md(bin_dir, *common, "-C")
    assert proc.returncode == 0, proc.stderr
    top = sorted(p.name for p in (tmp_path / "u" / "test-dir.0-0").iterdir())
    assert top == ["mdtest_tree.0.0", "mdtest_tree.1.0"]

    for flag, rows in (
        ("-T", {"Directory stat", "File stat"}),
        ("-E", {"File read"}),
        ("-U", {"Directory rename"}),
        ("-r", {"Directory removal", "File removal", "Tree removal"}),
    ):
        proc = md(bin_dir, *common, flag, "-e", "64")
        assert proc.returncode == 0, (flag, proc.stderr)
        assert set(md_table(proc.stdout, "rate")) == rows
    assert list((tmp_path / "u").iterdir()) == []


def test_md_layout_matches_mdtest_4(bin_dir: Path, tmp_path: Path) -> None:
    sample = SHARED / "mdtest" / "files_only_n500_z0_np2.txt"
    if not sample.exists():
        pytest.skip(f"no mdtest sample output at {sample}")
    ref = sample.read_text().splitlines()
    proc = md(bin_dir, "-N", "2", "-F", "-n", "50", "-i", "3", "-d", str(tmp_path / "f"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith("-- started at ") and out[-1].startswith("-- finished at ")
    assert out[3].startswith("Command line used: ") and "'-F' '-n' '50'" in out[3]
    assert "SUMMARY rate (in ops/sec): (of 3 iterations)" in out
    assert "SUMMARY time (in sec): (of 3 iterations)" in out
    for prefix in ("   Operation", "   ---------"):
        assert next(x for x in out if x.startswith(prefix)) == next(
            x for x in ref if x.startswith(prefix)
        )
    for name in ("   File creation", "   Tree removal"):
        mine = next(x for x in out if x.startswith(name))
        theirs = next(x for x in ref if x.startswith(name))
        assert column_ends(mine)[-4:] == column_ends(theirs)[-4:]


@pytest.mark.parametrize(
    "args", [["-q"], ["-n"], ["-n", "5", "-z", "2", "-b", "3"], ["-C", "-E", "-w", "1", "-e", "2"]]
)
def test_md_bad_command_line_is_an_error_without_numbers(
    bin_dir: Path, tmp_path: Path, args: list[str]
) -> None:
    proc = md(bin_dir, *args, "-d", str(tmp_path / "m"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("ERROR: ") and proc.stdout == ""
    assert not (tmp_path / "m").exists()


def test_md_unwritable_directory_is_an_error_without_numbers(bin_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("not a directory")
    proc = md(bin_dir, "-N", "2", "-n", "10", "-d", str(tmp_path / "plain" / "m"))
    assert proc.returncode == 1
    assert proc.stderr.startswith("ERROR: cannot create directory ")
    assert proc.stdout == ""


def test_md_stat_of_missing_items_is_an_error(bin_dir: Path, tmp_path: Path) -> None:
    proc = md(bin_dir, "-N", "2", "-T", "-n", "10", "-d", str(tmp_path / "none"))
    assert proc.returncode == 1
    assert proc.stderr.startswith("ERROR: cannot stat ")
    assert not (tmp_path / "none").exists()


# ----------------------------------------------------------------------- MPI

MPICC, MPIRUN = shutil.which("mpicc"), shutil.which("mpirun")


@pytest.mark.skipif(MPICC is None or MPIRUN is None, reason="no mpicc/mpirun for -DJUBEX_MPI")
def test_mpi_builds_run_as_ranks(tmp_path: Path) -> None:
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    for source, name in (("bw.c", "mpi-bw"), ("md.c", "mpi-md")):
        subprocess.run(
            [MPICC, *STRICT, "-DJUBEX_MPI", "-o", str(tmp_path / name), str(KERNELS / source)],
            check=True,
            timeout=120,
        )
    launch = [MPIRUN, "-np", "2"]
    args = ["-F", "-C", "-R", "-t", "64k", "-b", "1m", "-o", str(tmp_path / "data")]
    proc = subprocess.run(
        [*launch, str(tmp_path / "mpi-bw"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert option(proc.stdout, "tasks") == "2"
    assert option(proc.stdout, "aggregate filesize") == "2 MiB"
    proc = subprocess.run(
        [*launch, str(tmp_path / "mpi-md"), "-n", "20", "-d", str(tmp_path / "md")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "2 tasks, 40 files/directories" in proc.stdout


# ------------------------------------------------------- read by the analysers


def values(result: ParseResult, name: str) -> list[Any]:
    return [m.value for m in result.measurements if m.name == name]


def test_builtin_analysers_read_the_kernels_output(bin_dir: Path, tmp_path: Path) -> None:
    proc = bw(bin_dir, "-n", "2", "-F", "-t", "64k", "-b", "1m", "-i", "3", "-o", f"{tmp_path}/a")
    assert proc.returncode == 0, proc.stderr
    result = get("jubex-bw").parse(proc.stdout)
    assert result.ok, result.reason
    assert values(result, "tasks") == [2]
    assert values(result, "aggregate_size") == [2 << 20]
    assert len(values(result, "write_bw")) == len(values(result, "read_bw")) == 3
    assert all(isinstance(v, float) and v > 0 for v in values(result, "write_bw"))
    assert values(result, "write_max")[0] == pytest.approx(max(values(result, "write_bw")), 1e-3)

    proc = md(bin_dir, "-N", "2", "-n", "30", "-i", "2", "-d", str(tmp_path / "m"))
    assert proc.returncode == 0, proc.stderr
    result = get("jubex-md").parse(proc.stdout)
    assert result.ok, result.reason
    assert values(result, "tasks") == [2]
    assert values(result, "files") == [60]
    assert values(result, "iterations") == [2]
    for phase in MD_PHASES:
        name = phase.lower().replace(" ", "_")
        assert values(result, f"{name}_mean")[0] > 0, name
        assert values(result, f"{name}_time_max")[0] > 0, name
