"""The mdtest analyser on real mdtest 3.3 / 4.1 outputs; expected values copied from the files."""

from __future__ import annotations

import pytest

from jubex.analysis.builtin import mdtest


def test_directories_and_files(parse, by_name, units_of):
    result = parse("mdtest", "mdtest/dirs_and_files_n1000_np1.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["directory_creation_max"] == [5427.552]
    assert got["directory_stat_min"] == [183053.463]
    assert got["directory_rename_mean"] == [47388.610]
    assert got["directory_removal_std"] == [98.665]
    assert got["file_creation_mean"] == [1313.027]
    assert got["file_read_max"] == [493099.459]
    assert got["file_removal_min"] == [61128.092]
    assert got["tree_creation_mean"] == [37549.004]
    assert got["tree_removal_max"] == [177.845]
    assert (got["tasks"], got["nodes"], got["iterations"]) == ([1], [1], [3])
    assert got["files"] == got["directories"] == [1000]
    assert got["version"] == ["mdtest-4.1.0+dev"]
    assert units_of(result)["file_creation_max"] == "ops/s"


def test_files_only(parse, by_name):
    got = by_name(parse("mdtest", "mdtest/files_only_n500_z0_np2.txt"))
    assert got["file_creation_max"] == [52199.773]
    assert got["file_stat_std"] == [23987.737]
    assert got["tree_removal_mean"] == [346.706]
    assert (got["tasks"], got["files"]) == ([2], [1000])
    assert "directories" not in got
    assert not any(name.startswith("directory_") for name in got)


def test_io500_hard_parameters(parse, by_name):
    got = by_name(parse("mdtest", "mdtest/io500_hard_w3901_e3901_n1000_np4.txt"))
    assert got["file_creation_max"] == [997.999]
    assert got["file_read_mean"] == [105675.409]
    assert got["file_removal_std"] == [2484.468]
    assert (got["tasks"], got["files"]) == ([4], [4000])


def test_mdtest_3_3_with_colons(parse, by_name):
    result = parse("mdtest", "mdtest/v3.3.0_files_only_n500_np2.txt")
    got = by_name(result)
    assert result.ok
    assert got["file_creation_max"] == [1113.192]
    assert got["file_stat_mean"] == [469902.499]
    assert got["tree_creation_std"] == [2547.193]
    assert got["version"] == ["mdtest-3.3.0"]


def test_time_table_and_rows_that_did_not_run(parse, by_name, units_of):
    result = parse("mdtest", "io500/run_np2/mdtest-easy-write.txt")
    got = by_name(result)
    assert result.ok
    assert got["file_creation_mean"] == [49342.877]
    assert got["tree_creation_max"] == [5849.796]
    assert got["file_creation_time_mean"] == [4.182]
    assert units_of(result)["file_creation_time_mean"] == "s"
    assert "file_stat_max" not in got  # printed as 0.000: the phase did not run, not a zero rate
    assert got["files"] == [400000]
    assert got["iterations"] == [1]


def test_failed_run_quotes_the_error(parse):
    result = parse("mdtest", "mdtest/err_unknown_option_np1.txt")
    assert not result.ok
    assert result.reason == "Error invalid argument: --no-such-option"
    assert result.measurements == []


def test_truncated_before_the_summary(outputs):
    text = (outputs / "mdtest/files_only_n500_z0_np2.txt").read_text()
    result = mdtest.parse(text[: text.index("SUMMARY")])
    assert not result.ok
    assert "no SUMMARY table" in result.reason


def test_truncated_inside_the_summary(outputs):
    text = (outputs / "mdtest/files_only_n500_z0_np2.txt").read_text()
    result = mdtest.parse(text[: text.index("   File read")])
    assert not result.ok
    assert "finished at" in result.reason
    assert [m.value for m in result.measurements if m.name == "file_stat_max"] == [124971.813]


def test_mpi_abort_after_the_start(outputs):
    text = (outputs / "mdtest/files_only_n500_z0_np2.txt").read_text()
    text = (
        text[: text.index("SUMMARY")]
        + "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\n"
    )
    result = mdtest.parse(text)
    assert not result.ok
    assert result.reason.startswith("MPI_ABORT was invoked on rank 1")


@pytest.mark.parametrize("text", ["", "\n\n", "random text\n"])
def test_empty_output_is_not_ok(text):
    assert not mdtest.parse(text).ok


def test_jubex_md_header(outputs, by_name):
    text = (outputs / "mdtest/files_only_n500_z0_np2.txt").read_text()
    result = mdtest.parse(text.replace("mdtest-4.1.0+dev was", "jubex-md-0.3 was"))
    assert result.ok
    assert by_name(result)["version"] == ["jubex-md-0.3"]


def test_the_metadata_kernel_header_gives_version_tasks_and_nodes() -> None:
    from jubex.analysis import builtin

    text = (
        "-- started at 11/22/2026 00:15:56 --\n\n"
        "jubex-md 0.1 was launched with 2 total task(s) on 1 node(s)\n"
        "Command line used: jubex-md -N 2 -n 100 -F -d tree\n\n"
        "SUMMARY rate (in ops/sec): (of 1 iterations)\n"
        "   Operation                     Max            Min           Mean        Std Dev\n"
        "   ---------                     ---            ---           ----        -------\n"
        "   File creation                 709.120        709.120        709.120          0.000\n"
    )
    found = {m.name: m.value for m in builtin.get("mdtest").parse(text).measurements}
    assert (found["version"], found["tasks"], found["nodes"]) == ("jubex-md-0.1", 2, 1)
    assert found["file_creation_max"] == 709.12


FILES = "mdtest/files_only_n500_z0_np2.txt"


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("1e400", "line 14: file_creation_max is inf: not finite"),
        ("-52199.773", "line 14: file_creation_max is -52199.773: negative"),
        ("nan", "line 14: a SUMMARY row that is not 4 numbers: 'File creation"),
        ("52199.7b3", "line 14: a SUMMARY row that is not 4 numbers: 'File creation"),
    ],
)
def test_broken_value_in_the_summary_is_flagged(outputs, value, said):
    text = (outputs / FILES).read_text().replace("52199.773", value)
    result = mdtest.parse(text)
    assert not result.ok
    assert result.reason.startswith(said)
    assert "file_creation_max" not in {m.name for m in result.measurements if m.value}


def test_summary_row_cut_mid_number_is_not_ok(outputs):
    """Without mdtest's start and end lines (as older versions print), the cut row tells."""
    lines = (outputs / FILES).read_text().splitlines(keepends=True)
    text = "".join(line for line in lines if not line.startswith("-- "))
    result = mdtest.parse(text[: text.index("15128.653") + 4])
    assert not result.ok
    assert result.reason == "output ends in the middle of a SUMMARY row (truncated run?)"


@pytest.mark.parametrize("value", ["nan", "-nan", "81055x.174", ""])
def test_a_broken_stonewall_row_fails_the_run_not_only_its_value(outputs, value):
    """mdtest's stonewall row holds one number among NAs; a row that is not that shape was
    skipped before, and the run passed without its stonewall rate and time."""
    text = (outputs / "mdtest/isc20_hard_write_stonewall.txt").read_text()
    assert mdtest.parse(text).ok
    result = mdtest.parse(text.replace("299.992", value))
    assert not result.ok
    assert "a stonewall row that is not 'NA NA <number> NA'" in result.reason
