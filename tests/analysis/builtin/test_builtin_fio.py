"""The fio analyser on real fio 3.33 outputs (normal and JSON) of the same job file."""

from __future__ import annotations

import pytest

from jubex.analysis.builtin import fio

NORMAL = "fio/seqwrite_1m_numjobs2_normal.txt"
JSON = "fio/seqwrite_1m_numjobs2_json.txt"


def test_normal_output_one_record_per_job_and_group(parse, by_name, units_of):
    result = parse("fio", NORMAL)
    assert result.ok, result.reason
    first, second, group = by_name(result, 0), by_name(result, 1), by_name(result, 2)
    assert first["job"] == ["seqwrite"]
    assert (first["group"], first["jobs"], first["error"]) == ([0], [1], [0])
    assert first["write_bw"] == [587.0]
    assert first["write_iops"] == [587.0]
    assert first["write_io"] == [128 * 2**20]
    assert first["write_runtime"] == [0.218]
    assert first["write_clat_min"] == [216.0]
    assert first["write_clat_mean"] == [658.09]
    assert first["write_lat_std"] == [1476.39]
    assert first["write_clat_p50"] == [269.0]
    assert first["write_clat_p99_9"] == [8094.0]
    assert second["write_bw"] == [615.0]
    assert second["write_clat_p95"] == [619.0]
    assert "read_bw" not in first  # a direction the job did not run is left out
    assert "job" not in group
    assert group["write_bw"] == [1174.0]
    assert group["write_io"] == [256 * 2**20]
    assert group["write_runtime"] == [0.218]
    units = units_of(result)
    assert (units["write_bw"], units["write_clat_mean"], units["write_io"]) == ("MiB/s", "us", "B")


def test_json_output_normalised_to_the_same_units(parse, by_name):
    result = parse("fio", JSON)
    assert result.ok, result.reason
    first, second, group = by_name(result, 0), by_name(result, 1), by_name(result, 2)
    assert first["write_bw"] == [pytest.approx(636102976 / 2**20)]
    assert first["write_iops"] == [606.635071]
    assert first["write_io"] == [134217728]
    assert first["write_runtime"] == [0.211]
    assert first["write_clat_min"] == [pytest.approx(214.976)]
    assert first["write_clat_mean"] == [pytest.approx(395.503625)]
    assert first["write_lat_max"] == [pytest.approx(8383.994)]
    assert first["write_clat_p99"] == [pytest.approx(4177.92)]
    assert second["write_bw"] == [pytest.approx(661171073 / 2**20)]
    assert "write_slat_mean" not in first  # N = 0: psync has no submission latency
    assert group["write_io"] == [268435456]
    assert group["write_bw"] == [pytest.approx(256 / 0.211)]  # all bytes over the longest runtime


@pytest.mark.parametrize("relative", [NORMAL, JSON])
def test_both_formats_give_the_same_names(parse, relative):
    """But for what one format alone states: normal output's jobs, JSON's loops."""
    names = {m.name for m in parse("fio", relative).measurements} - {"jobs", "loops"}
    other = NORMAL if relative == JSON else JSON
    assert names == {m.name for m in parse("fio", other).measurements} - {"jobs", "loops"}


def test_failed_run(parse):
    result = parse("fio", "fio/err_invalid_rw_value.txt")
    assert not result.ok
    assert result.reason == "fio: failed parsing rw=bogus"


def test_job_error_fails_the_run(outputs):
    text = (outputs / NORMAL).read_text().replace("err= 0: pid=16708", "err= 5: pid=16708", 1)
    result = fio.parse(text)
    assert not result.ok
    assert "err= 5" in result.reason


def test_json_job_error_fails_the_run(outputs):
    text = (outputs / JSON).read_text().replace('"error" : 0', '"error" : 5', 1)
    result = fio.parse(text)
    assert not result.ok
    assert result.reason == "job 'seqwrite' reported error 5"


def test_truncated_outputs(outputs):
    normal = (outputs / NORMAL).read_text()
    assert "truncated" in fio.parse(normal[: normal.index("Run status")]).reason
    text = (outputs / JSON).read_text()
    assert "not valid JSON" in fio.parse(text[:4000]).reason


def test_scaled_numbers_and_units():
    text = (
        "rand: (groupid=0, jobs=4): err= 0: pid=1: Mon Jan  1 00:00:00 2024\n"
        "  read: IOPS=1234k, BW=4820MiB/s (5054MB/s)(9640MiB/2000msec)\n"
        "    clat (nsec): min=1200, max=12.5k, avg=2345.67, stdev=99.10\n"
        "Run status group 0 (all jobs):\n"
        "   READ: bw=4820MiB/s (5054MB/s), 4820MiB/s-4820MiB/s (5054MB/s-5054MB/s), "
        "io=9640MiB (10.1GB), run=2000-2000msec\n"
    )
    result = fio.parse(text)
    got = {m.name: m.value for m in result.measurements if m.record == 0}
    assert result.ok
    assert got["read_iops"] == 1234000.0
    assert got["read_clat_max"] == 12.5
    assert got["read_clat_min"] == 1.2
    assert got["jobs"] == 4


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("BW=587MiB/s", "BW=587XiB/s", "line 9: write_bw is in 'XiB/s', not a unit fio prints"),
        (
            "(128MiB/218msec)",
            "(128QB/218msec)",
            "line 9: write_io is in 'QB', not a unit fio prints",
        ),
        ("IOPS=587,", "IOPS=5.8.7,", "line 9: write_iops is '5.8.7', not a number"),
        ("avg=658.09", "avg=658.0.9", "line 10: write_clat_mean is '658.0.9', not a number"),
    ],
)
def test_unknown_unit_or_broken_number_names_it(outputs, by_name, old, new, said):
    text = (outputs / NORMAL).read_text().replace(old, new)
    result = fio.parse(text)
    assert not result.ok
    assert result.reason == said
    name = said.split()[2]
    assert by_name(result)[name] == [None]


def test_cut_inside_the_group_totals_is_not_ok(outputs):
    text = (outputs / NORMAL).read_text()
    result = fio.parse(text[: text.index("  WRITE: bw=") + 30])
    assert not result.ok
    assert result.reason == (
        "output ends before the write total of 'Run status group 0' (truncated run?); "
        "line 46: a line fio does not print so: 'WRITE: bw=1174MiB/s (1231MB/'"
    )


def test_json_runtime_zero_gives_no_group_bandwidth(outputs, by_name):
    one = (outputs / JSON).read_text().replace('"runtime" : 211', '"runtime" : 0')
    assert by_name(fio.parse(one), 2)["write_bw"] == [2 * 2**27 / 0.203 / 2**20]  # the longest
    both = fio.parse(one.replace('"runtime" : 203', '"runtime" : 0'))
    assert by_name(both, 2)["write_io"] == [2 * 2**27]
    assert "write_bw" not in by_name(both, 2)  # no division by zero, no inf


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('"bw_bytes" : 636102976', '"bw_bytes" : "fast"', "write_bw is 'fast', not a number"),
        ('"io_bytes" : 134217728', '"io_bytes" : -1', "write_io is -1: negative"),
        ('"groupid" : 0', '"groupid" : [0]', "group is [0], not a number"),
    ],
)
def test_json_values_of_the_wrong_kind_are_flagged(outputs, old, new, said):
    result = fio.parse((outputs / JSON).read_text().replace(old, new, 1))
    assert not result.ok
    assert said in result.reason
