"""The registry, and properties every built-in analyser has on every captured output."""

from __future__ import annotations

import pytest

from jubex.analysis import builtin
from jubex.errors import DefinitionError

# Which analyser reads which captured file; every output file of tests/data/outputs is listed
# (the test below checks that), inputs and per-rank CSVs are not benchmark output.
READS = {
    "ior/err_nonexistent_dir_np2.txt": "ior",
    "ior/ior_fpp_csv_t256k_b2m_np2.txt": "ior",
    "ior/posix_fpp_json_t1m_b8m_np2.txt": "ior",
    "ior/posix_fpp_t1m_b16m_np4.txt": "ior",
    "ior/posix_ssf_t4k_b1m_np4.txt": "ior",
    "ior/v3.3.0_posix_fpp_t1m_b16m_np2.txt": "ior",
    "ior/seed_v3.0.0_rank_tagged_excerpt.txt": "ior",
    "ior/v3.3.0_json_fpp_i2_np2.txt": "ior",
    "ior/unread_v3.3.0_csv_no_results.txt": "ior",  # IOR 3.3's CSV has no results to read
    "ior/v4.0.0_json_fpp_i2_np2.txt": "ior",
    "ior/v4.0.0_csv_fpp_i3_np2.txt": "ior",
    "ior/err_v4.0.0_killed_after_2_of_50.txt": "ior",
    "ior/v2.10.3_posix_ssf_t1m_b4m_i3_np2.txt": "ior",
    "ior/v2.10.3_posix_fpp_t1m_b4m_i3_np2.txt": "ior",
    "ior/v2.10.3_posix_fpp_vv_t1m_b4m_i3_np2.txt": "ior",
    "ior/v2.10.3_script_two_tests_i2_np2.txt": "ior",
    "ior/err_v2.10.3_nonexistent_dir_np2.txt": "ior",
    "mdtest/err_v4.0.0_killed_before_summary.txt": "mdtest",
    "ior/clio_i5/ssf_run1.txt": "ior",
    "ior/clio_i5/ssf_run2.txt": "ior",
    "ior/clio_i5/ssf_run3.txt": "ior",
    "ior/clio_i5/ssf_run4.txt": "ior",
    "ior/clio_i5/ssf_run5.txt": "ior",
    "ior/clio_i5/fpp_run1.txt": "ior",
    "ior/clio_i5/fpp_run2.txt": "ior",
    "ior/clio_i5/fpp_run3.txt": "ior",
    "ior/clio_i5/fpp_run4.txt": "ior",
    "ior/clio_i5/fpp_run5.txt": "ior",
    "mdtest/dirs_and_files_n1000_np1.txt": "mdtest",
    "mdtest/err_unknown_option_np1.txt": "mdtest",
    "mdtest/files_only_n500_z0_np2.txt": "mdtest",
    "mdtest/io500_hard_w3901_e3901_n1000_np4.txt": "mdtest",
    "mdtest/v3.3.0_files_only_n500_np2.txt": "mdtest",
    "fio/err_invalid_rw_value.txt": "fio",
    "fio/seqwrite_1m_numjobs2_json.txt": "fio",
    "fio/seqwrite_1m_numjobs2_normal.txt": "fio",
    "io500/run_np2_stdout.txt": "io500",
    "io500/verify_np2_stdout.txt": "io500",
    "io500/io500-verify_np2_stdout.txt": "io500",
    "io500/run_np2/result.txt": "io500",
    "io500/run_np2/result_summary.txt": "io500",
    **{f"io500/run_np2/{p}.txt": "ior" for p in ("ior-easy-write", "ior-easy-read")},
    **{f"io500/run_np2/{p}.txt": "ior" for p in ("ior-hard-write", "ior-hard-read")},
    "io500/run_np2/ior-rnd4K-easy-read.txt": "ior",
    **{
        f"io500/run_np2/mdtest-{p}.txt": "mdtest"
        for p in ("easy-write", "easy-stat", "easy-delete", "hard-write", "hard-stat")
    },
    **{f"io500/run_np2/mdtest-{p}.txt": "mdtest" for p in ("hard-read", "hard-delete")},
    "mdtest/v4.1.0_verbose_i3_np2.txt": "mdtest",  # made for this project (SOURCES.md)
    # outputs of other sites (SOURCES.md)
    "ior/v3.3_slurmd_debug_noise_easy_write.txt": "ior",
    "mdtest/v1.9.3_io500_job_log_7_runs.txt": "mdtest",
    "mdtest/v1.x_io500_mdt_easy_3_runs.txt": "mdtest",
    "mdtest/err_v3.3.0_4096_error_could_not_create.txt": "mdtest",
    "mdtest/isc20_hard_write_stonewall.txt": "mdtest",
    "fio/v2_normal_randrw.txt": "fio",
    "fio/v3.25_normal_fdatasync_sync_percentiles.txt": "fio",
    "fio/v2.17_json_two_groups.json": "fio",
    "fio/v3.33_normal_two_groups.txt": "fio",
    "fio/v3.28_json_in_pod_log.txt": "fio",
    "fio/v3.33_jsonplus_fdatasync.json": "fio",
    "fio/v3.33_client_two_hosts.json": "fio",
    "fio/v3.33_client_two_hosts_normal.txt": "fio",
    "fio/v3.33_client_two_hosts_two_groups_normal.txt": "fio",
    "fio/v3.33_minimal_randrw.txt": "fio",
    "fio/v3.33_terse_v4_two_jobs.txt": "fio",
    "fio/v3.33_terse_v5_two_jobs.txt": "fio",
    "fio/err_v3.33_terse_size_missing.txt": "fio",
    "fio/v3.33_json_appended_with_shell_lines.txt": "fio",
    **{
        f"io500/{name}": "io500"
        for name in (
            "bash2017_total_product_result_summary.txt",
            "bash2018_total_product_result_summary.txt",
            "bash2018_result_summary.txt",
            "err_bash2019_trace_cut_short.txt",
            "bash2020_summary.txt",
            "isc20_result_summary.txt",
            "isc20_result.txt",
            "sc21_extended_result.txt",
            "sc21_extended_result_summary.txt",
            "v2024_result.txt",
            "v2024_result_summary.txt",
            "bash2018_warning_not_official_summary.txt",
            "prerelease2017_job_out.txt",
            "prerelease2017_results.txt",
            "prerelease2017_summary_warnings.txt",
            "capp2017_submission.txt",
            "capp2017_kioops_run.txt",
            "err_capp2017_refused_workdir.txt",
        )
    },
}
NOT_OUTPUT = (".md", ".csv", ".ini", "timestampfile", "io500_list.txt")


def test_names_and_aliases():
    assert builtin.names() == ["darshan", "fio", "io500", "ior", "jubex-bw", "jubex-md", "mdtest"]
    assert builtin.get("jubex-bw") is builtin.get("ior")
    assert builtin.get("jubex-md").name == "mdtest"
    assert builtin.is_builtin("fio") and not builtin.is_builtin("stdout")


def test_unknown_name_suggests_the_closest():
    with pytest.raises(DefinitionError) as info:
        builtin.get("mdtets")
    assert "unknown built-in analyser 'mdtets'" in str(info.value)
    assert "did you mean 'mdtest'?" in str(info.value)


def test_every_captured_output_is_covered(outputs):
    files = {
        p.relative_to(outputs).as_posix()
        for p in outputs.rglob("*")
        if p.is_file() and not p.name.endswith(NOT_OUTPUT)
    }
    assert files == set(READS)


@pytest.mark.parametrize("relative", sorted(READS))
def test_failed_exactly_for_err_files_and_units_as_declared(parse, relative):
    analyser = builtin.get(READS[relative])
    result = parse(READS[relative], relative)
    failed_run = relative.rsplit("/", 1)[-1].startswith(("err_", "unread_"))
    assert result.ok is not failed_run, result.reason
    assert bool(result.reason) is failed_run
    for m in result.measurements:
        if m.name in analyser.metrics:
            assert m.unit == analyser.metrics[m.name].unit, m.name
        else:  # fio percentiles beyond the default list would land here
            assert m.name.startswith(("read_", "write_", "trim_")), m.name
        assert m.value is not None


@pytest.mark.parametrize("name", ["fio", "io500", "ior", "mdtest"])
def test_metric_names_do_not_collide_with_statistics(name):
    metrics = builtin.get(name).metrics
    for metric in metrics:
        base, _, stat = metric.rpartition("_")
        assert not (
            stat in ("first", "last", "min", "max", "avg", "sum", "cnt", "std") and base in metrics
        )
