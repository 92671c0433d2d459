"""IOR's JSON and CSV summaries of versions 3.3 and 4.0, and IOR and mdtest 4.0 runs killed
midway (real runs: tests/data/outputs/SOURCES.md).

IOR 3.3's JSON nests each iteration's rows in a list and adds a ``remove`` row; 4.0's is
flat. IOR 3.3's CSV summary holds no result at all, so it is refused, saying why.
"""

from __future__ import annotations


def test_ior_3_3_json_rows_nested_per_iteration_with_a_remove_row(parse, by_name):
    result = parse("ior", "ior/v3.3.0_json_fpp_i2_np2.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["version"] == ["IOR-3.3.0"]
    assert got["write_bw"] == [103.7394, 71.8401] and got["read_bw"] == [486.0985, 569.206]
    assert got["write_iops"] == [103.9485, 72.0512] and got["write_latency"] == [0.0182, 0.0215]
    assert got["remove_total"][0] == 0.0196  # the remove row, not read before
    assert len(got["remove_total"]) == 2
    assert (got["write_max"], got["write_min"], got["write_mean"]) == (
        [103.7394],
        [71.8401],
        [87.7897],
    )
    assert got["iteration"] == [0, 1]


def test_ior_4_0_json_rows_flat(parse, by_name):
    result = parse("ior", "ior/v4.0.0_json_fpp_i2_np2.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["version"] == ["IOR-4.0.0"]
    assert got["write_bw"] == [75.011, 132.8925] and got["read_bw"] == [272.7027, 554.637]
    assert (got["read_max"], got["read_mean"]) == ([554.637], [413.6699])


def test_ior_4_0_csv_rows(parse, by_name):
    result = parse("ior", "ior/v4.0.0_csv_fpp_i3_np2.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["write_bw"] == [319.7975, 134.1512, 58.9616]
    assert got["read_iops"] == [32140.2605, 787.598, 443.4956]
    assert (got["transfer_size"], got["block_size"], got["tasks"]) == ([262144], [2097152], [2])


def test_ior_3_3_csv_holds_no_results_and_is_refused_saying_so(parse):
    result = parse("ior", "ior/unread_v3.3.0_csv_no_results.txt")
    assert not result.ok and not result.measurements
    assert result.reason.startswith("IOR 3.3's CSV summary (-O summaryFormat=CSV) holds no results")


def test_ior_killed_after_two_of_fifty_iterations_fails_keeping_them(parse, by_name):
    result = parse("ior", "ior/err_v4.0.0_killed_after_2_of_50.txt")
    assert not result.ok
    assert "2 of 50 write iterations reported (truncated run?)" in result.reason
    assert by_name(result)["write_bw"] == [87.06, 207.90]  # what it printed before


def test_mdtest_killed_before_its_summary_fails(parse):
    result = parse("mdtest", "mdtest/err_v4.0.0_killed_before_summary.txt")
    assert not result.ok and "no SUMMARY table" in result.reason
