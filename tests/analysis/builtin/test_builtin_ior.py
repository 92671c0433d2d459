"""The ior analyser on real IOR 3.0 / 3.3 / 4.1 outputs; expected values copied from the files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.analysis import builtin
from jubex.analysis.builtin import ior

FPP_4 = "ior/posix_fpp_t1m_b16m_np4.txt"


def test_iteration_rows_of_ior4(parse, by_name, units_of):
    result = parse("ior", FPP_4)
    got = by_name(result)
    assert result.ok, result.reason
    assert got["iteration"] == [0, 1, 2]
    assert got["write_bw"] == [1011.75, 1030.43, 1018.09]
    assert got["read_bw"] == [3683, 3934, 3533.95]
    assert got["write_iops"] == [1014.23, 1033.13, 1021.09]
    assert got["read_latency"] == [0.001016, 0.000906, 0.000981]
    assert got["write_open"] == [0.013987, 0.011386, 0.013049]
    assert got["write_wrrd"] == [0.063102, 0.061948, 0.062678]
    assert got["read_close"] == [0.001110, 0.004086, 0.006211]
    assert got["read_total"] == [0.017376, 0.016270, 0.018110]
    unit = units_of(result)
    assert (unit["write_bw"], unit["write_iops"], unit["read_latency"]) == ("MiB/s", "ops/s", "s")


def test_summary_table_and_settings_of_ior4(parse, by_name, units_of):
    got = by_name(parse("ior", FPP_4))
    expected = {
        "write_max": 1030.43,
        "write_min": 1011.75,
        "write_mean": 1020.09,
        "write_std": 7.76,
        "write_ops_max": 1030.43,
        "write_time_mean": 0.06274,
        "read_max": 3933.64,
        "read_min": 3533.95,
        "read_mean": 3716.95,
        "read_std": 164.90,
        "read_ops_mean": 3716.95,
        "read_time_mean": 0.01725,
        "tasks": 4,
        "tasks_per_node": 4,
        "repetitions": 3,
        "fpp": 1,
        "reorder": 1,
        "segments": 1,
        "block_size": 16 * 2**20,
        "transfer_size": 2**20,
        "aggregate_size": 64 * 2**20,
        "api": "POSIX",
        "version": "IOR-4.1.0+dev",
    }
    assert {name: got[name] for name in expected} == {k: [v] for k, v in expected.items()}
    units = units_of(parse("ior", FPP_4))
    assert units["block_size"] == units["aggregate_size"] == "B"
    assert units["write_ops_max"] == "ops/s"


def test_ops_columns_differ_from_bandwidth_for_small_transfers(parse, by_name):
    got = by_name(parse("ior", "ior/posix_ssf_t4k_b1m_np4.txt"))
    assert got["write_max"] == [391.05]
    assert got["write_ops_max"] == [100108.79]
    assert got["write_ops_std"] == [21229.72]
    assert got["read_ops_min"] == [510212.32]
    assert got["read_iops"] == [698028, 819181, 512526]
    assert got["transfer_size"] == [4096]
    assert got["fpp"] == [0]
    assert got["aggregate_size"] == [4 * 2**20]


def test_ior_3_3_remove_rows_and_max_lines(parse, by_name):
    result = parse("ior", "ior/v3.3.0_posix_fpp_t1m_b16m_np2.txt")
    got = by_name(result)
    assert result.ok
    assert got["write_peak"] == [1144.64]
    assert got["read_peak"] == [8364.01]
    assert got["remove_total"] == [0.048017, 0.048008, 0.047997]
    assert got["read_bw"] == [3123.87, 4085, 8364]
    assert got["read_std"] == [2277.70]
    assert got["version"] == ["IOR-3.3.0"]
    assert got["aggregate_size"] == [32 * 2**20]


def test_json_summary_format(parse, by_name):
    result = parse("ior", "ior/posix_fpp_json_t1m_b8m_np2.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["iteration"] == [0, 1, 2]
    assert got["write_bw"] == [1140.9773, 576.3881, 671.9622]
    assert got["read_bw"] == [10944.0417, 5244.1091, 2768.1749]
    assert got["write_iops"] == [1144.9094, 577.3451, 673.7702]
    assert got["read_total"] == [0.0015, 0.0031, 0.0058]
    assert got["write_mean"] == [796.4425]
    assert got["read_std"] == [3423.1935]
    assert got["read_time_mean"] == [0.0034]
    assert got["block_size"] == [8388608]
    assert got["transfer_size"] == [1048576]
    assert got["aggregate_size"] == [16 * 2**20]
    assert (got["tasks"], got["fpp"], got["api"]) == ([2], [1], ["POSIX"])


def test_failed_run_quotes_the_error_and_keeps_what_was_printed(parse, by_name):
    result = parse("ior", "ior/err_nonexistent_dir_np2.txt")
    assert not result.ok
    assert result.reason.startswith('ERROR: open64("scratch/ior/no_such_dir/testfile"')
    got = by_name(result)
    assert got["tasks"] == [2]
    assert "write_bw" not in got


def test_rank_tagged_ior_3_0_from_a_report(parse, by_name):
    result = parse("ior", "ior/seed_v3.0.0_rank_tagged_excerpt.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["write_peak"] == [10430.06]
    assert got["write_mean"] == [9441.65]
    assert got["read_time_mean"] == [744.36592]
    assert got["aggregate_size"] == [6871947673600]
    assert (got["tasks"], got["tasks_per_node"], got["repetitions"]) == ([1600], [16], [5])
    assert "write_ops_max" not in got  # IOR 3.0 has no operation-rate columns
    assert got["version"] == ["IOR-3.0.0"]


@pytest.mark.parametrize(
    ("phase", "op", "bw"),
    [
        ("ior-easy-write", "write", 954.36),
        ("ior-easy-read", "read", 4585),
        ("ior-hard-write", "write", 661.07),
        ("ior-hard-read", "read", 3222.11),
        ("ior-rnd4K-easy-read", "read", 6033),
    ],
)
def test_io500_phases_are_complete_without_finished_line(parse, by_name, phase, op, bw):
    result = parse("ior", f"io500/run_np2/{phase}.txt")
    assert result.ok, result.reason
    assert by_name(result)[f"{op}_bw"] == [bw]


def test_io500_hard_sizes_are_exact_bytes(parse, by_name):
    got = by_name(parse("ior", "io500/run_np2/ior-hard-write.txt"))
    assert got["transfer_size"] == got["block_size"] == [47008]
    assert got["segments"] == [100000]
    assert got["aggregate_size"] == [47008 * 100000 * 2]  # not the rounded "8.76 GiB"


def test_truncated_output_is_not_ok(outputs):
    text = (outputs / FPP_4).read_text()
    cut = text[: text.index("write     1030.43")]
    result = ior.parse(cut)
    assert not result.ok
    assert "1 of 3 write iterations" in result.reason
    assert [m.value for m in result.measurements if m.name == "write_bw"] == [1011.75]


def test_truncated_json_is_not_ok(outputs):
    text = (outputs / "ior/posix_fpp_json_t1m_b8m_np2.txt").read_text()
    result = ior.parse(text[: len(text) // 2])
    assert not result.ok
    assert "not valid JSON" in result.reason


@pytest.mark.parametrize("text", ["", "hello\n", "Segmentation fault (core dumped)\n"])
def test_empty_or_foreign_output_is_not_ok(text):
    result = ior.parse(text)
    assert not result.ok
    assert result.reason


def test_any_program_name_in_the_header(outputs):
    text = (outputs / FPP_4).read_text().replace("IOR-4.1.0+dev:", "jubex-bw-0.3:")
    result = ior.parse(text)
    assert result.ok
    assert [m.value for m in result.measurements if m.name == "version"] == ["jubex-bw-0.3"]


def test_open_mpi_tag_output_prefixes(outputs):
    lines = (outputs / FPP_4).read_text().splitlines()
    tagged = "\n".join(f"[1,0]<stdout>:{line}" for line in lines)
    assert ior.parse(tagged).measurements == ior.parse("\n".join(lines)).measurements


def test_script_with_two_tests_gives_two_records(outputs, by_name):
    text = (outputs / FPP_4).read_text()
    head, _, rest = text.partition("TestID")
    body, _, summary = ("TestID" + rest).partition("Summary of all tests:")
    second = body.replace("TestID              : 0", "TestID              : 1")
    rows = summary.splitlines()
    extra = [r.replace(" 0      4   4", " 1      4   4") for r in rows[2:4]]
    script = head + body + second + "Summary of all tests:" + "\n".join(rows[:4] + extra + rows[4:])
    result = ior.parse(script)
    assert result.ok, result.reason
    assert (
        by_name(result, 0)["write_bw"]
        == by_name(result, 1)["write_bw"]
        == [1011.75, 1030.43, 1018.09]
    )
    assert by_name(result, 1)["read_max"] == [3933.64]


def test_metric_names_do_not_collide_with_statistics():
    suffixes = ("first", "last", "min", "max", "avg", "sum", "cnt", "std")
    for name in ior.METRICS:
        for suffix in suffixes:
            assert not (name.endswith(f"_{suffix}") and name[: -len(suffix) - 1] in ior.METRICS)


def test_output_cut_inside_the_summary_is_not_ok(outputs):
    text = (outputs / FPP_4).read_text()
    for end in (text.index("Summary of all tests"), text.index("\nread         3933.64")):
        result = ior.parse(text[:end])
        assert not result.ok
        assert "before IOR's 'Finished'" in result.reason or "Summary" in result.reason


def test_output_cut_after_the_last_row_is_not_ok(outputs):
    text = (outputs / FPP_4).read_text()
    result = ior.parse(text[: text.index("Summary of all tests")])
    assert not result.ok
    assert result.reason == "output ends before IOR's 'Finished' line (truncated run?)"


def test_flipped_byte_in_a_value_names_it_and_its_line(outputs):
    text = (outputs / FPP_4).read_text().replace("0.013987", "0.013b87")
    result = ior.parse(text)
    assert not result.ok
    assert result.reason == "line 35: write_open is '0.013b87', not a number"


@pytest.mark.parametrize(
    ("value", "said"), [("1e400", "not finite"), ("nan", "not finite"), ("-1.5", "negative")]
)
def test_non_finite_or_negative_bandwidth_is_flagged(outputs, by_name, value, said):
    text = (outputs / FPP_4).read_text().replace("1030.43    1033.13", f"{value}    1033.13")
    result = ior.parse(text)
    assert not result.ok
    assert result.reason == f"line 37: write_bw is '{value}': {said}"
    assert by_name(result)["write_bw"] == [1011.75, 1018.09]  # left out, not a zero


def test_a_row_with_a_column_missing_is_flagged(outputs):
    text = (outputs / FPP_4).read_text().replace("0.000085   ", "", 1)
    result = ior.parse(text)
    assert not result.ok
    assert result.reason == "line 37: a write row of 10 columns under a header of 11"


def test_a_test_id_of_thousands_of_digits_is_no_crash(outputs):
    text = (
        (outputs / FPP_4).read_text().replace("TestID              : 0", "TestID : " + "9" * 5000)
    )
    result = ior.parse(text)
    assert result.ok, result.reason
    by_name = {m.name: m.value for m in result.measurements}
    whole = {m.name: m.value for m in ior.parse((outputs / FPP_4).read_text()).measurements}
    assert by_name.keys() == whole.keys()  # only the number of the test changes
    assert by_name["block_size"] == 16 * 2**20 and by_name["write_max"] == 1030.43


CSV = "ior/ior_fpp_csv_t256k_b2m_np2.txt"


def test_csv_summary_format(parse, by_name, units_of):
    result = parse("ior", CSV)
    got = by_name(result)
    assert result.ok, result.reason
    assert got["iteration"] == [0, 1, 2]
    assert got["write_bw"] == [3215.8743, 3012.0675, 3469.2341]
    assert got["read_iops"] == [45714.4850, 26234.8960, 51111.0922]
    assert got["write_total"] == [0.0012, 0.0013, 0.0012]
    assert (got["block_size"], got["transfer_size"], got["tasks"]) == ([2097152], [262144], [2])
    assert units_of(result)["read_bw"] == "MiB/s"


def test_csv_cut_inside_a_row_or_an_iteration_is_not_ok(outputs):
    text = (outputs / CSV).read_text()
    mid_row = ior.parse(text[: text.index("6442.8633") + 4])
    assert not mid_row.ok and "middle of a line" in mid_row.reason
    no_read = ior.parse(text[: text.index("read,6442.8633")])
    assert not no_read.ok
    assert no_read.reason == "iteration 1 has no read row (truncated run?)"


def test_csv_value_broken_is_flagged(outputs):
    text = (outputs / CSV).read_text().replace("3012.0675", "inf")
    result = ior.parse(text)
    assert not result.ok
    assert result.reason == "line 4: write_bw is 'inf': not finite"


def test_csv_printed_by_a_script_gives_a_record_per_test(outputs, by_name):
    text = (outputs / CSV).read_text()
    result = ior.parse(text + text)
    assert result.ok, result.reason
    assert by_name(result, 1)["write_bw"] == by_name(result, 0)["write_bw"]


def test_json_summary_file_alone(outputs, by_name):
    """``-O summaryFile=F -O summaryFormat=JSON`` writes only the JSON document to F."""
    text = (outputs / "ior/posix_fpp_json_t1m_b8m_np2.txt").read_text()
    document = text[text.index("{") : text.rindex("}") + 1]
    result = ior.parse(document)
    assert result.ok, result.reason
    assert by_name(result)["write_max"] == [1140.9773]


def test_json_infinity_as_ior_prints_it_is_flagged(outputs):
    """IOR writes an infinite double as a JSON string (``"bwMiB": "inf"``)."""
    text = (outputs / "ior/posix_fpp_json_t1m_b8m_np2.txt").read_text()
    result = ior.parse(text.replace('"bwMaxMIB": 1140.9773', '"bwMaxMIB": "inf"'))
    assert not result.ok
    assert result.reason == "write_max is 'inf': not finite"


@pytest.mark.parametrize(
    "change",
    [
        ('"tests": [', '"tests": 7, "x": [', "no results"),
        ('"summary": [', '"summary": [[], 5, "x", ', ""),
        ('"bwMiB": ', '"bwMiB": {"a": 1}, "x": ', "write_bw is {'a': 1}, not a number"),
    ],
)
def test_json_of_unexpected_shape_is_no_crash(outputs, change):
    old, new, said = change
    text = (outputs / "ior/posix_fpp_json_t1m_b8m_np2.txt").read_text()
    result = ior.parse(text.replace(old, new, 1))
    assert result.ok is not bool(said)
    assert said in result.reason


def _options_only(text: str) -> str:
    """An IOR output without its summary table: its sizes only in the options section."""
    return text[: text.index("Summary of all tests:")] + text[text.index("Finished") :]


@pytest.mark.parametrize(
    ("blocksize", "xfersize", "block", "transfer"),
    [
        ("16 MiB", "1 MiB", 16 * 2**20, 2**20),
        ("3 GiB", "256 KiB", 3 * 2**30, 256 * 2**10),
        ("2 TiB", "4096 bytes", 2 * 2**40, 4096),
    ],
)
def test_the_options_sizes_are_binary_units(
    outputs: Path,
    by_name: Callable[..., dict[str, list[object]]],
    blocksize: str,
    xfersize: str,
    block: int,
    transfer: int,
) -> None:
    """IOR prints its options' sizes in KiB, MiB, GiB (powers of 1024): a reader of them in
    powers of 1000 would be off by 5 % to 10 % in every size and aggregate."""
    text = _options_only((outputs / FPP_4).read_text())
    text = text.replace("blocksize           : 16 MiB", f"blocksize           : {blocksize}")
    text = text.replace("xfersize            : 1 MiB", f"xfersize            : {xfersize}")
    result = builtin.get("ior").parse(text)
    assert result.ok, result.reason
    got = by_name(result)
    assert (got["block_size"], got["transfer_size"]) == ([block], [transfer])
    assert got["aggregate_size"] == [block * 4]  # one segment, four tasks
