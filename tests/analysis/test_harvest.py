"""Harvesting real work directories: which analysers apply, files, failures, pooling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jubex.analysis.harvest import Harvester
from jubex.definition.model import (
    AnalyseFile,
    Analyser,
    Benchmark,
    Pattern,
    PatternSet,
    Step,
)
from jubex.errors import DefinitionError

IOR = "ior/posix_fpp_t1m_b16m_np4.txt"


def benchmark(*analyse: str, **analysers: Analyser) -> Benchmark:
    b = Benchmark("t", file="bench.yaml")
    b.patternsets["bw"] = PatternSet(
        "bw",
        {
            "bw": Pattern(
                "bw", r"^write\s+$jube_pat_fp\s+\S+\s+\S+\s+$block", type="float", unit="MiB/s"
            ),
            "per_task": Pattern("per_task", "bw_avg / tasks", mode="expr", unit="MiB/s"),
        },
    )
    b.patternsets["times"] = PatternSet(
        "times", {"t": Pattern("t", r"^time $jube_pat_fp", type="float", unit="s")}
    )
    b.patternsets["host"] = PatternSet("host", {"host": Pattern("host", r"^host $jube_pat_wrd")})
    b.analysers.update(analysers)
    b.steps["run"] = Step("run", analyse=analyse)
    return b


def values(result, record: int = 0) -> dict[str, list[object]]:
    found: dict[str, list[object]] = {}
    for m in result.measurements:
        if m.record == record:
            found.setdefault(m.name, []).append(m.value)
    return found


@pytest.fixture
def workdir(tmp_path: Path, outputs: Path) -> Path:
    shutil.copy(outputs / IOR, tmp_path / "stdout")
    (tmp_path / "stderr").write_text("")
    (tmp_path / "a.log").write_text("time 1.5\nhost n01\n")
    (tmp_path / "b.log").write_text("time 2.5\n")
    return tmp_path


def test_patternset_reads_stdout_with_parameters(workdir):
    result = Harvester(benchmark("bw"), "run").harvest(workdir, {"block": 16384, "tasks": 4})
    got = values(result)
    assert result.ok, result.reason
    assert got["bw"] == [1011.75, 1030.43, 1018.09]
    assert got["bw_max"] == [1030.43]
    assert got["per_task"] == [pytest.approx(1020.09 / 4, abs=0.01)]


def test_builtin_statistics_of_per_iteration_values_are_worked_out_when_read(workdir):
    harvester = Harvester(benchmark("ior"), "run")
    result = harvester.harvest(workdir, {})
    got = values(result)
    assert result.ok, result.reason
    assert got["write_bw"] == [1011.75, 1030.43, 1018.09]
    assert "write_bw_max" not in got, "statistics are not stored"
    assert harvester.computes(["write_bw_avg"]) and harvester.computes(None)
    assert not harvester.computes(["write_bw", "write_max"])
    stored = [(m.name, m.record, m.value, m.unit) for m in result.measurements]
    row = {name: value for name, record, value in harvester.merge([stored], {}) if not record}
    assert row["write_bw"] == 1011.75
    assert row["write_bw_max"] == 1030.43
    assert row["write_bw_avg"] == pytest.approx(1020.09, abs=0.005)  # IOR's own mean
    assert row["iteration_cnt"] == 3
    assert row["write_max"] == 1030.43
    assert "write_max_max" not in row  # summary values are single, no statistics


def test_analyser_pools_matches_over_globbed_files(workdir):
    analyser = Analyser(
        "logs", use=("times",), step="run", files=[AnalyseFile("*.log", use=("host",))]
    )
    result = Harvester(benchmark(logs=analyser), "run").harvest(workdir, {})
    got = values(result)
    assert result.ok, result.reason
    assert got["t"] == [1.5, 2.5]
    assert got["t_avg"] == [2.0]
    assert got["host"] == ["n01"]


def test_missing_file_is_named_and_values_are_missing(workdir):
    analyser = Analyser("out", use=("times",), files=[AnalyseFile("timing_$n.txt")])
    result = Harvester(benchmark("out", out=analyser), "run").harvest(workdir, {"n": 3})
    assert not result.ok
    assert "timing_3.txt: no such file" in result.reason
    assert values(result)["t"] == [None]
    assert values(result)["t_cnt"] == [0]


def test_failed_builtin_run_reports_stderr(workdir):
    (workdir / "stderr").write_text(
        "ior ERROR: open64 failed, errno 2, No such file or directory (aiori-POSIX.c:376)\n"
    )
    result = Harvester(benchmark("ior"), "run").harvest(workdir, {})
    assert not result.ok
    assert result.reason == (
        "ior: stdout: ior ERROR: open64 failed, errno 2, No such file or directory "
        "(aiori-POSIX.c:376)"
    )
    assert values(result)["write_max"] == [1030.43]  # what was printed is kept


def test_empty_stdout_is_a_failed_run(tmp_path):
    (tmp_path / "stdout").write_text("")
    result = Harvester(benchmark("mdtest"), "run").harvest(tmp_path, {})
    assert not result.ok
    assert result.reason.startswith("mdtest: stdout: not mdtest output")
    assert result.measurements == []


def test_builtin_default_files_are_alternatives(tmp_path, outputs):
    results = tmp_path / "results" / "2026.11.21-23.45.04"
    results.mkdir(parents=True)
    shutil.copy(outputs / "io500/run_np2/result.txt", results / "result.txt")
    result = Harvester(benchmark("io500"), "run").harvest(tmp_path, {})
    assert result.ok, result.reason
    assert values(result)["score"] == [17.776944]
    assert values(result)["find_found"] == [3080]


def test_no_output_at_all_names_what_was_looked_for(tmp_path):
    result = Harvester(benchmark("io500"), "run").harvest(tmp_path, {})
    assert not result.ok
    assert "stdout or results/*/result.txt or result.txt or result_summary.txt" in result.reason


def test_analysers_bound_to_the_step_apply_too(workdir):
    bound = Analyser("bound", use=("times",), step="run", files=[AnalyseFile("a.log")])
    other = Analyser("other", use=("host",), step="elsewhere", files=[AnalyseFile("a.log")])
    got = values(Harvester(benchmark(bound=bound, other=other), "run").harvest(workdir, {}))
    assert got["t"] == [1.5]
    assert "host" not in got


def test_analyser_with_a_builtin_reads_its_files(workdir, outputs):
    shutil.copy(outputs / "fio/seqwrite_1m_numjobs2_json.txt", workdir / "fio.json")
    analyser = Analyser("f", builtin="fio", files=[AnalyseFile("fio.json")])
    result = Harvester(benchmark("f", f=analyser), "run").harvest(workdir, {})
    assert result.ok, result.reason
    assert values(result, 2)["write_io"] == [268435456]


def test_unknown_analyse_name_is_a_definition_error():
    with pytest.raises(DefinitionError) as info:
        Harvester(benchmark("iorr"), "run")
    assert "neither a built-in analyser, a patternset nor an analyser" in str(info.value)
    assert "did you mean 'ior'?" in str(info.value)


def test_unknown_step():
    with pytest.raises(DefinitionError, match="no step 'rn' to analyse"):
        Harvester(benchmark("ior"), "rn")


def test_one_name_two_different_patterns_is_a_definition_error():
    b = benchmark("bw", "times")
    b.patternsets["times"].patterns["bw"] = Pattern("bw", r"other (\d+)")
    with pytest.raises(DefinitionError, match="pattern 'bw' of patternset 'times' differs"):
        Harvester(b, "run")


def test_a_directory_named_like_the_file_is_not_read(tmp_path):
    (tmp_path / "stdout").mkdir()
    result = Harvester(benchmark("times"), "run").harvest(tmp_path, {})
    assert not result.ok
    assert "stdout: no such file" in result.reason


def test_work_directory_with_glob_characters(tmp_path, outputs):
    odd = tmp_path / "wp[1]"
    odd.mkdir()
    shutil.copy(outputs / IOR, odd / "stdout")
    plain = tmp_path / "wp1"
    plain.mkdir()
    shutil.copy(outputs / IOR, plain / "stdout")
    odd_result = Harvester(benchmark("ior"), "run").harvest(odd, {})
    assert odd_result.ok, odd_result.reason
    assert values(odd_result) == values(Harvester(benchmark("ior"), "run").harvest(plain, {}))
    assert values(odd_result)["write_bw"]


def test_a_file_named_twice_is_read_once(workdir):
    again = Analyser("again", use=("bw",), step="run", files=[AnalyseFile("stdout")])
    b = benchmark("bw", "ior", "again", again=again)
    b.analysers["ior_too"] = Analyser("ior_too", builtin="ior", step="run")
    got = values(Harvester(b, "run").harvest(workdir, {"block": 16384, "tasks": 4}))
    assert got["bw_cnt"] == [3]
    assert got["write_max"] == [1030.43]
