"""The fio analyser on fio outputs of other sites (tests/data/outputs/SOURCES.md).

fio 2.x printed ``io=68052KB, bw=2266.1KB/s`` with KB meaning KiB and wrote its JSON
``io_bytes`` in KiB; fio 3.x prints a ``sync`` section of its own for fsync/fdatasync calls;
JSON output may follow other text and other JSON in a log. Values are read off the files.
"""

from __future__ import annotations

import pytest

KIB, MIB = 1024, 2**20


def test_fio2_normal_output(parse, by_name, units_of):
    result = parse("fio", "fio/v2_normal_randrw.txt")
    job, group = by_name(result, 0), by_name(result, 1)
    assert result.ok, result.reason
    assert (job["job"], job["group"], job["jobs"], job["error"]) == (["randrwtest"], [0], [1], [0])
    assert job["read_io"] == [68052 * KIB]  # io=68052KB
    assert job["read_bw"] == [pytest.approx(2266.1 * KIB / MIB)]  # bw=2266.1KB/s
    assert (job["read_iops"], job["read_runtime"]) == ([566.0], [30.019])
    assert job["read_slat_max"] == [3812800.0]  # max=3812.8K usec
    assert job["read_clat_mean"] == [997.50]
    assert job["read_clat_p99_99"] == [1646592.0]
    assert job["write_io"] == [271468 * KIB]
    assert job["write_bw"] == [pytest.approx(9043.3 * KIB / MIB)]
    assert job["write_iops"] == [2260.0]
    assert job["write_lat_std"] == [35029.27]
    assert group["read_bw"] == [pytest.approx(2266 * KIB / MIB)]  # aggrb=2266KB/s
    assert group["write_io"] == [271468 * KIB]
    assert group["write_runtime"] == [30.019]  # maxt=30019msec
    units = units_of(result)
    assert (units["read_bw"], units["read_io"], units["read_clat_p50"]) == ("MiB/s", "B", "us")


def test_sync_percentiles_have_their_own_names_and_unit(parse, by_name, units_of):
    result = parse("fio", "fio/v3.25_normal_fdatasync_sync_percentiles.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["write_clat_p50"] == [12.608]  # 12608 nsec, the clat table's
    assert got["write_clat_p99_99"] == [58.112]
    assert got["sync_lat_p50"] == [186.0]  # the sync table's, in usec
    assert got["sync_lat_p99_99"] == [347.0]
    assert (got["sync_lat_min"], got["sync_lat_max"]) == ([161.0], [345.0])
    assert (got["sync_lat_mean"], got["sync_lat_std"]) == ([192.48], [20.09])
    assert units_of(result)["sync_lat_p50"] == "us"
    every_clat = [v for n, vs in got.items() if n.startswith("write_clat_p") for v in vs]
    assert len(every_clat) == 17 and min(every_clat) == 11.584  # no sync value among them


def test_fio2_json_io_bytes_are_kib_and_zero_percentiles_are_fillers(parse, by_name):
    result = parse("fio", "fio/v2.17_json_two_groups.json")
    read, write = by_name(result, 0), by_name(result, 1)
    assert result.ok, result.reason
    assert read["read_io"] == [1294256 * KIB]  # "io_bytes" : 1294256 (KiB in fio 2)
    assert read["read_bw"] == [129386 * KIB / MIB]  # "bw" : 129386 (KiB/s)
    assert read["read_clat_p99_99"] == [5408]
    assert write["write_io"] == [393280 * KIB]
    assert not [n for n in (*read, *write) if n.endswith("_p0")]  # "0.00" : 0 fillers
    totals = by_name(result, 2)
    assert totals["read_io"] == [1294256 * KIB]
    assert totals["read_bw"] == [pytest.approx(1294256 * KIB / 10.003 / MIB)]
    assert by_name(result, 3)["group"] == [1]


def test_fio_json_after_another_json_object_in_a_pod_log(parse, by_name):
    result = parse("fio", "fio/v3.28_json_in_pod_log.txt")
    job = by_name(result, 0)
    assert result.ok, result.reason
    assert job["job"] == ["test"]
    assert job["read_io"] == [3219128320]
    assert job["read_bw"] == [696630235 / MIB]
    assert job["read_iops"] == [170075.741182]
    assert job["write_iops"] == [56839.645098]
    assert job["read_runtime"] == [4.621]


def test_json_plus_with_an_fdatasync_section(parse, by_name, units_of):
    result = parse("fio", "fio/v3.33_jsonplus_fdatasync.json")
    job = by_name(result, 0)
    assert result.ok, result.reason
    assert job["write_io"] == [2097152]
    assert job["write_clat_p50"] == [12.864]  # "50.000000" : 12864 (ns) of clat_ns
    assert job["sync_lat_p50"] == [4685.824]  # "50.000000" : 4685824 (ns) of sync.lat_ns
    assert (job["sync_lat_min"], job["sync_lat_max"]) == ([111.359], [33337.327])
    assert units_of(result)["sync_lat_mean"] == "us"
    assert not [n for n in job if "bins" in n]  # the histogram is not a value


def test_client_server_mode_a_record_per_host_and_job_then_all_clients(parse, by_name):
    result = parse("fio", "fio/v3.33_client_two_hosts.json")
    assert result.ok, result.reason  # "client_stats", no "jobs": it failed as "no job results"
    records = [by_name(result, r) for r in range(5)]
    assert [(r["job"], r.get("host")) for r in records] == [
        (["seqwrite"], ["127.0.0.1"]),
        (["seqwrite"], ["localhost"]),
        (["randread"], ["127.0.0.1"]),
        (["randread"], ["localhost"]),
        (["All clients"], None),  # fio's own sum over the hosts
    ]
    assert records[0]["write_bw"] == [262144000 / 2**20] and records[0]["write_runtime"] == [0.016]
    assert records[3]["read_iops"] == [1207.54717] and records[3]["read_io"] == [4194304]
    everything = records[4]
    assert everything["read_bw"] == [84733414 / 2**20]  # as fio printed it, not recomputed
    assert everything["write_io"] == [8388608] and everything["write_iops"] == [8000.0]
    assert {m.record for m in result.measurements} == set(range(5))  # no computed group record


def test_json_documents_appended_with_shell_lines_between_are_all_read(parse, by_name):
    result = parse("fio", "fio/v3.33_json_appended_with_shell_lines.txt")
    assert result.ok, result.reason
    first, first_group, second, second_group = (by_name(result, r) for r in range(4))
    assert first["job"] == second["job"] == ["seqwrite"]
    assert first["write_io"] == second["write_io"] == [2097152]
    assert first["write_runtime"] == [0.012] and second["write_runtime"] == [0.003]
    assert first_group["group"] == second_group["group"] == [0]
    assert "job" not in first_group and "job" not in second_group


def test_a_second_json_document_cut_short_fails_the_file(outputs):
    from jubex.analysis.builtin import fio

    text = (outputs / "fio/v3.33_json_appended_with_shell_lines.txt").read_text()
    result = fio.parse(text[: text.rindex('"jobname"')])
    assert not result.ok
    assert "fio JSON document 2 is not valid JSON (truncated run?)" in result.reason


def test_terse_version_3_of_minimal_a_randrw_job(parse, by_name, units_of):
    result = parse("fio", "fio/v3.33_minimal_randrw.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    assert got["job"] == ["mixed"] and got["group"] == [0] and got["error"] == [0]
    assert got["read_io"] == [968 * 1024] and units["read_io"] == "B"
    assert got["read_bw"] == [9307 / 1024] and units["read_bw"] == "MiB/s"
    assert got["read_iops"] == [2326] and got["read_runtime"] == [0.104]
    clat = [got[f"read_clat_{s}"] for s in ("min", "max", "mean", "std")]
    assert clat == [[40], [42469], [419.096806], [2836.307217]] and units["read_clat_mean"] == "us"
    assert got["read_clat_p99"] == [4112] and got["read_clat_p99_99"] == [42729]
    assert got["read_lat_mean"] == [419.181847]
    assert "read_slat_mean" in got  # fio prints it (0 for psync)
    assert got["write_io"] == [1080 * 1024] and got["write_clat_mean"] == [5.726085]
    assert {m.record for m in result.measurements} == {0}  # terse output has no group totals


@pytest.mark.parametrize(
    ("relative", "bw_kib", "iops", "ms", "p99"),
    [
        ("fio/v3.33_terse_v4_two_jobs.txt", 50567, 790, 81, 17694),
        ("fio/v3.33_terse_v5_two_jobs.txt", 32768, 512, 125, 11599),
    ],
)
def test_terse_versions_4_and_5_with_trim_and_iops_samples(
    parse, by_name, relative, bw_kib, iops, ms, p99
):
    result = parse("fio", relative)
    assert result.ok, result.reason
    write, read = by_name(result, 0), by_name(result, 1)
    assert write["job"] == ["seqwrite"] and write["write_io"] == [4096 * 1024]
    assert "read_io" not in write and "trim_io" not in write
    assert read["job"] == ["randread"] and read["read_bw"] == [bw_kib / 1024]
    assert (read["read_iops"], read["read_runtime"]) == ([iops], [ms / 1000])
    assert read["read_clat_p99"] == [p99]


def test_terse_output_of_a_job_that_failed(parse):
    result = parse("fio", "fio/err_v3.33_terse_size_missing.txt")
    assert not result.ok
    assert result.reason.startswith("fio: pid=0, err=22/file:filesetup.c:1155")


def test_terse_line_cut_short_fails(outputs):
    from jubex.analysis.builtin import fio

    text = (outputs / "fio/v3.33_terse_v5_two_jobs.txt").read_text()
    assert "ends inside a terse line" in fio.parse(text[:-40]).reason
    fewer = text[: text.rindex(";0%=0;")] + "\n"
    assert "130 fields, not 180 or more" in fio.parse(fewer).reason


def test_client_mode_normal_output_of_two_hosts_and_two_groups(parse, by_name, units_of):
    result = parse("fio", "fio/v3.33_client_two_hosts_two_groups_normal.txt")
    assert result.ok, result.reason
    rows = [by_name(result, r) for r in range(9)]
    assert [(r.get("job"), r.get("host"), r["group"]) for r in rows] == [
        (["seqwrite"], ["node2"], [0]), (["seqread"], ["node2"], [1]),
        (None, ["node2"], [0]), (None, ["node2"], [1]),
        (["seqwrite"], ["vm"], [0]), (["seqread"], ["vm"], [1]),
        (None, ["vm"], [0]), (None, ["vm"], [1]),
        (["All clients"], None, [1]),
    ]  # fmt: skip
    node2, vm, summed = rows[0], rows[4], rows[8]
    assert (node2["write_bw"], node2["write_iops"], node2["write_runtime"]) == (
        [471.0],
        [7529.0],
        [0.017],
    )  # IOPS=7529, BW=471MiB/s (493MB/s)(8192KiB/17msec)
    assert vm["write_clat_mean"] == [149.67] and rows[5]["read_bw"] == [615.0]
    assert rows[7]["read_io"] == [8192 * KIB]  # group 1's READ total on vm
    assert summed["jobs"] == [4] and summed["read_bw"] == [941.0]  # BW=941Mi (987M)
    assert (summed["write_bw"], summed["write_io"]) == ([762.0], [16 * MIB])  # 16.0MiB/21msec
    assert summed["write_clat_mean"] == [133.33]
    assert units_of(result)["write_bw"] == "MiB/s"


def test_client_mode_normal_output_of_one_group(parse, by_name):
    result = parse("fio", "fio/v3.33_client_two_hosts_normal.txt")
    assert result.ok, result.reason
    first, second, summed = by_name(result, 0), by_name(result, 3), by_name(result, 6)
    assert (first["job"], first["host"], first["write_bw"]) == (["seqwrite"], ["vm"], [2000.0])
    assert (second["job"], second["host"]) == (["seqwrite"], ["vm"])
    assert by_name(result, 4)["read_bw"] == [103.0] and by_name(result, 5)["read_bw"] == [103.0]
    assert (summed["job"], summed["read_bw"], summed["write_bw"]) == (
        ["All clients"],
        [205.0],
        [4000.0],
    )  # BW=205Mi, BW=4000Mi


@pytest.mark.parametrize(
    ("cut", "said"),
    [
        ("All clients:", "before fio's 'All clients' sum"),
        ("<vm> \n", "after the results of 1 of the 2 hosts"),
        ("  write: IOPS=12.2k, BW=762Mi", "before the write line of fio's 'All clients'"),
        ("  cpu          : usr=0.00%, sys=15.62%", "before its 'issued' line"),
        ("Run status group 1 (all jobs):\n   READ: bw=615MiB", "host 'vm': output ends before"),
    ],
)
def test_client_mode_normal_output_cut_short_is_refused(outputs, cut, said):
    from jubex.analysis.builtin import fio

    text = (outputs / "fio/v3.33_client_two_hosts_two_groups_normal.txt").read_text()
    result = fio.parse(text[: text.index(cut)])
    assert not result.ok and said in result.reason, result.reason
