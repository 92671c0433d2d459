"""IOR 2.10.3's text output (real runs: tests/data/outputs/SOURCES.md).

Its statistics table (``Operation  Max (MiB) ...``), ``Max Write:`` lines and, with ``-v -v``,
per-iteration rows are read as printed; a run without its ``Run finished`` line fails.
"""

from __future__ import annotations

import pytest

from jubex.analysis import builtin

SSF = "ior/v2.10.3_posix_ssf_t1m_b4m_i3_np2.txt"
FPP = "ior/v2.10.3_posix_fpp_t1m_b4m_i3_np2.txt"
VERBOSE = "ior/v2.10.3_posix_fpp_vv_t1m_b4m_i3_np2.txt"


def test_statistics_table_and_max_lines_read_as_printed(parse, by_name, units_of):
    result = parse("ior", SSF)
    got = by_name(result)
    assert result.ok, result.reason
    assert got["version"] == ["IOR-2.10.3"]
    assert (got["write_max"], got["write_min"], got["write_mean"], got["write_std"]) == (
        [1247.62],
        [249.60],
        [759.56],
        [407.74],
    )
    assert (got["read_ops_max"], got["read_ops_std"]) == ([587.67], [66.32])
    assert (got["write_time_mean"], got["read_time_mean"]) == ([0.01623], [0.01646])
    assert (got["write_peak"], got["read_peak"]) == ([1247.62], [587.67])  # MiB/s, not MB/s
    units = units_of(result)
    assert (units["write_max"], units["write_ops_max"], units["write_time_mean"]) == (
        "MiB/s",
        "ops/s",
        "s",
    )
    assert (got["tasks"], got["tasks_per_node"], got["repetitions"], got["fpp"]) == (
        [2],
        [2],
        [3],
        [0],
    )
    assert (got["transfer_size"], got["block_size"], got["aggregate_size"]) == (
        [1048576],
        [4194304],
        [8388608],
    )
    assert got["api"] == ["POSIX"]
    assert "write_bw" not in got  # without -v -v IOR 2 prints no row per iteration


def test_file_per_process(parse, by_name):
    result = parse("ior", FPP)
    got = by_name(result)
    assert result.ok, result.reason
    assert got["fpp"] == [1]
    assert (got["read_max"], got["read_min"], got["read_mean"]) == ([8432.51], [4577.93], [6490.89])
    assert got["write_peak"] == [3335.07]


def test_verbose_rows_per_iteration_and_settings_of_the_statistics_row(parse, by_name):
    result = parse("ior", VERBOSE)
    got = by_name(result)
    assert result.ok, result.reason
    assert got["iteration"] == [0, 1, 2]
    assert got["write_bw"] == [184.34, 1161.92, 332.50]
    assert got["read_bw"] == [225.22, 1162.75, 7435.0]  # IOR drops the decimals from 3,600 on
    assert got["write_open"] == [0.000145, 0.004608, 0.000099]
    assert got["read_total"] == [0.035520, 0.006880, 0.001076]
    assert (got["write_max"], got["write_min"], got["read_std"]) == ([1161.92], [184.34], [3200.72])
    assert (got["segments"], got["block_size"], got["aggregate_size"]) == (
        [1],
        [4194304],
        [8388608],
    )
    assert got["fpp"] == [1] and got["api"] == ["POSIX"]


def _text(outputs, relative: str) -> str:
    return (outputs / relative).read_text()


def test_fields_run_together_are_split_by_their_decimals(outputs):
    text = _text(outputs, SSF).replace(
        "    407.74   0.01623   EXCEL", "    407.741623.12345   EXCEL"
    )
    result = builtin.get("ior").parse(text)
    got = {m.name: m.value for m in result.measurements}
    assert result.ok, result.reason
    assert (got["write_ops_std"], got["write_time_mean"]) == (407.74, 1623.12345)


@pytest.mark.parametrize(
    ("cut_before", "reason"),
    [
        ("Run finished", "output ends before IOR's 'Run finished' line"),
        ("Max Write", "test 0: no statistics row or 'Max' line"),
        ("Operation", "no results: IOR printed no statistics table"),
    ],
)
def test_a_cut_run_fails(outputs, cut_before, reason):
    text = _text(outputs, SSF)
    result = builtin.get("ior").parse(text[: text.index(cut_before)])
    assert not result.ok and result.reason.startswith(reason), result.reason


def test_a_missing_iteration_row_fails(outputs):
    text = _text(outputs, VERBOSE)
    row = next(line for line in text.splitlines() if line.startswith("write     332.50"))
    result = builtin.get("ior").parse(text.replace(row + "\n", ""))
    assert not result.ok
    assert "test 0: 2 of 3 write iteration rows printed (truncated run?)" in result.reason


def test_an_error_fails_the_run(outputs):
    text = _text(outputs, SSF).replace(
        "\nOperation",
        "\n** error **\nERROR in aiori-POSIX.c (line 1): cannot open file.\n\nOperation",
    )
    result = builtin.get("ior").parse(text)
    assert not result.ok and "ERROR in aiori-POSIX.c" in result.reason


def test_each_test_of_a_script_is_a_record(parse):
    result = parse("ior", "ior/v2.10.3_script_two_tests_i2_np2.txt")
    assert result.ok, result.reason
    got = {(m.name, m.record): m.value for m in result.measurements}
    assert (got["fpp", 0], got["write_max", 0], got["read_peak", 0]) == (0, 1448.04, 3836.54)
    assert (got["fpp", 1], got["write_max", 1], got["read_peak", 1]) == (1, 2460.15, 6161.26)
    assert (got["repetitions", 1], got["block_size", 1]) == (2, 2097152)


def test_a_script_cut_between_its_tests_fails(outputs):
    text = _text(outputs, "ior/v2.10.3_script_two_tests_i2_np2.txt")
    second = text.index("IOR-2.10.3", 1)
    result = builtin.get("ior").parse(text[:second])
    assert not result.ok
    assert result.reason == "output ends before IOR's 'Run finished' line (truncated run?)"


def test_an_aborted_run_fails_quoting_its_error(parse):
    result = parse("ior", "ior/err_v2.10.3_nonexistent_dir_np2.txt")
    assert not result.ok
    assert result.reason.startswith("ERROR in aiori-POSIX.c (line 105): cannot open file.")
