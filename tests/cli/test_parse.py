"""``jubex parse`` on real outputs, as a user runs it (the real entry point, a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jubex.cli.main import main

OUTPUTS = Path(__file__).resolve().parents[1] / "data" / "outputs"
IOR = str(OUTPUTS / "ior/posix_fpp_t1m_b16m_np4.txt")
FAILED = str(OUTPUTS / "ior/err_nonexistent_dir_np2.txt")

DEFINITION = r"""
name: parse-test
patterns:
  rows:
    bw: {regex: '^write\s+$jube_pat_fp', type: float, unit: MiB/s}
    tasks: {regex: '^tasks\s*:\s*$jube_pat_int', type: int}
analysers:
  both:
    builtin: ior
    use: [rows]
steps:
  run:
    do: echo hi
    analyse: [both]
"""


def run(*argv: str) -> tuple[int, str, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "jubex", *argv], capture_output=True, text=True, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_all_lists_every_value_with_units():
    code, out, _ = run("parse", "ior", IOR, "--all")
    assert code == 0
    assert "write_max" in out and "1030.43" in out and "MiB/s" in out
    assert "write_bw_max" in out  # statistics of the per-iteration values
    assert len(out.splitlines()) > 190


def test_summary_shows_a_row_per_name_with_four_digits():
    code, out, _ = run("parse", "ior", IOR)
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[3:-1]}
    assert rows["write_bw"] == ["1020", "(n=3,", "1012", "…", "1030)", "MiB/s"]
    assert rows["write_std"] == ["7.76", "MiB/s"] and rows["api"] == ["POSIX"]
    assert "write_bw_max" not in rows and len(rows) == 44
    assert out.splitlines()[-1].startswith("a value found once per iteration: its mean")


def test_json_lists_every_value_with_file_record_and_unit(capsys):
    assert (
        main(["parse", "fio", str(OUTPUTS / "fio/seqwrite_1m_numjobs2_json.txt"), "-f", "json"])
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    rows = {(m["record"], m["name"]): m for m in document["measurements"]}
    assert rows[(2, "write_io")]["value"] == 268435456
    assert rows[(0, "write_clat_mean")]["unit"] == "us"
    assert document["files"] == [
        {"file": str(OUTPUTS / "fio/seqwrite_1m_numjobs2_json.txt"), "ok": True, "reason": ""}
    ]


def test_failed_run_exits_1_after_printing_what_was_found(capsys):
    assert main(["parse", "ior", IOR, FAILED, "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [f["ok"] for f in document["files"]] == [True, False]
    assert document["files"][1]["reason"].startswith("ERROR: open64(")
    assert any(m["file"] == FAILED and m["name"] == "tasks" for m in document["measurements"])


def test_failed_run_in_table_format():
    code, out, _ = run("parse", "ior", FAILED)
    assert code == 1
    assert "failed run: ERROR: open64(" in " ".join(out.split())


def test_unknown_analyser_is_a_usage_error(capsys):
    assert main(["parse", "iorr", IOR]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown built-in analyser 'iorr'" in err and "did you mean 'ior'?" in err


def test_unreadable_file_is_a_usage_error(capsys, tmp_path):
    assert main(["parse", "ior", str(tmp_path / "nope.txt")]) == 2
    assert "no such file: " in capsys.readouterr().err


@pytest.fixture
def definition(tmp_path: Path) -> str:
    path = tmp_path / "bench.yaml"
    path.write_text(DEFINITION)
    return str(path)


def test_patternset_of_a_definition(capsys, definition):
    assert main(["parse", "rows", IOR, "--definition", definition, "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["measurements"]
    assert [m["value"] for m in rows if m["name"] == "bw"] == [1011.75, 1030.43, 1018.09, 1030.43]
    assert [m["value"] for m in rows if m["name"] == "tasks_max"] == [4]
    assert not any(m["name"] == "write_max" for m in rows)


def test_analyser_with_builtin_and_patterns(capsys, definition):
    assert main(["parse", "both", IOR, "-d", definition, "-f", "json"]) == 0
    names = {m["name"] for m in json.loads(capsys.readouterr().out)["measurements"]}
    assert {"bw", "bw_avg", "write_max", "write_bw_std"} <= names


def test_name_unknown_to_the_definition(capsys, definition):
    assert main(["parse", "rowz", IOR, "-d", definition]) == 2
    err = capsys.readouterr().err
    assert "'rowz' is neither a built-in analyser nor a patternset or analyser" in err
    assert "did you mean 'rows'?" in err


def test_parse_reads_a_darshan_log_by_path_and_a_bad_one_is_a_failed_run():
    pytest.importorskip("darshan", reason="PyDarshan (pip install 'jubex[darshan]') reads logs")
    good, bad = (
        str(OUTPUTS.parent / "darshan" / f) for f in ("ior-1m.darshan", "bad-truncated.darshan")
    )
    code, out, err = run("parse", "darshan", good, bad, "-f", "json")
    assert code == 1 and "Traceback" not in err
    document = json.loads(out)
    written = [m for m in document["measurements"] if m["name"] == "posix_bytes_written"]
    assert [(m["file"], m["value"], m["unit"]) for m in written] == [(good, 8388608, "B")]
    assert [f["ok"] for f in document["files"]] == [True, False]
    assert "it is truncated" in document["files"][1]["reason"]
