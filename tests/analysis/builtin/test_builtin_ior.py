"""The ior analyser on real IOR 3.0 / 3.3 / 4.1 outputs; expected values copied from the files."""

from __future__ import annotations

import pytest

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
