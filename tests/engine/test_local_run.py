"""Real runs on the local platform: real processes, real files, real SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import drive
from jubex.definition.model import (
    Benchmark,
    Do,
    FileOp,
    FileSet,
    IOFile,
    Parameter,
    ParameterSet,
    Pattern,
    PatternSet,
    Step,
    Sub,
    SubstituteSet,
)
from jubex.engine.driver import Options, new_run
from jubex.platform.load import load_platform
from jubex.space.spec import resolve_spec
from jubex.store.rundir import open_run
from jubex.store.store import DONE, FAILED, SKIPPED


def pset(name: str, **values: list[str]) -> ParameterSet:
    return ParameterSet(name, {k: Parameter(k, tuple(v)) for k, v in values.items()})


def run_benchmark(tmp_path: Path, benchmark: Benchmark, **options: object):  # type: ignore[no-untyped-def]
    benchmark.file = str(tmp_path / "def.yaml")
    (tmp_path / "def.yaml").write_text("# built in the test\n")
    run = new_run(resolve_spec(benchmark, load_platform("local"), outpath=tmp_path / "runs"))
    counts = drive(run, Options(progress="quiet", **options))  # type: ignore[arg-type]
    return open_run(run.dir), counts


def work(run, wp) -> Path:  # type: ignore[no-untyped-def]
    return run.dir / f"{wp.id:06d}_{wp.step}" / "work"


def test_steps_run_in_order_with_parent_links_and_iterations(tmp_path: Path) -> None:
    b = Benchmark(
        "order",
        parametersets={"s": pset("s", n=["1", "2"])},
        steps={
            "build": Step("build", use=(), do=[Do("echo built > artefact")]),
            "run": Step(
                "run",
                depend=("build",),
                iterations=2,
                do=[Do("cat build/artefact"), Do("echo n=$n it=$jube_wp_iteration")],
            ),
        },
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[DONE] == 5
    for wp in run.store.workpackages():
        if wp.step == "run":
            out = (work(run, wp) / "stdout").read_text()
            assert out == f"built\nn={wp.point['n']} it={wp.iteration}\n"


def test_a_failure_stops_its_commands_and_children_but_not_the_others(tmp_path: Path) -> None:
    b = Benchmark(
        "fail",
        parametersets={"s": pset("s", n=["1", "2", "3"])},
        steps={
            "a": Step("a", do=[Do('[ "$n" != 2 ] || { echo broken >&2; exit 3; }'), Do("echo ok")]),
            "b": Step("b", depend=("a",), do=[Do("echo child")]),
        },
    )
    run, counts = run_benchmark(tmp_path, b)
    assert (counts[DONE], counts[FAILED], counts[SKIPPED]) == (4, 1, 1)
    (failed,) = run.store.workpackages(states=[FAILED])
    assert failed.exit_code == 3 and str(failed.point["n"]) == "2"
    assert (work(run, failed) / "stderr").read_text() == "broken\n"
    assert (work(run, failed) / "stdout").read_text() == ""
    (skipped,) = run.store.workpackages(states=[SKIPPED])
    assert "parent" in skipped.reason


def test_fail_fast_cancels_the_rest(tmp_path: Path) -> None:
    b = Benchmark(
        "ff",
        parametersets={"s": pset("s", n=[str(i) for i in range(20)])},
        steps={"a": Step("a", do=[Do('[ "$n" != 0 ] || exit 1; sleep 0.2')])},
    )
    _run, counts = run_benchmark(tmp_path, b, fail_fast=True, jobs=1)
    assert counts[FAILED] == 1
    assert counts["cancelled"] == 19  # jobs=1: the first fails, the 19 after it never start
    assert not counts.get(DONE)


def test_files_are_copied_linked_and_substituted(tmp_path: Path) -> None:
    (tmp_path / "input.tmpl").write_text("size=#SIZE# nodes=4\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "big.bin").write_text("x")
    b = Benchmark(
        "files",
        parametersets={"s": pset("s", size=["4KiB", "1MiB"])},
        filesets={"in": FileSet("in", [FileOp("copy", "input.tmpl"), FileOp("link", "data", "d")])},
        substitutesets={
            "sub": SubstituteSet(
                "sub",
                [IOFile("input.tmpl", "input")],
                [Sub("#SIZE#", "$size"), Sub(r"nodes=\d+", "nodes=8", mode="regex")],
            )
        },
        steps={"a": Step("a", use=("s", "in", "sub"), do=[Do("cat input; cat d/big.bin")])},
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[DONE] == 2
    outs = sorted((work(run, wp) / "stdout").read_text() for wp in run.store.workpackages())
    assert outs == ["size=1MiB nodes=8\nx", "size=4KiB nodes=8\nx"]
    assert all((work(run, wp) / "d").is_symlink() for wp in run.store.workpackages())


def test_shared_operation_runs_once_after_all(tmp_path: Path) -> None:
    b = Benchmark(
        "shared",
        parametersets={"s": pset("s", n=["1", "2", "3"])},
        steps={
            "a": Step("a", do=[Do("echo $n >> shared/all"), Do("sort -n all > total", shared=True)])
        },
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[DONE] == 4
    assert (run.dir / "shared_a" / "total").read_text() == "1\n2\n3\n"


def test_the_shared_folder_s_link_is_named_by_a_parameter_as_jube_names_it(
    tmp_path: Path,
) -> None:
    sets = {"s": pset("s", n=["1", "2"], folder=["common"])}
    b = Benchmark(
        "shared",
        parametersets=sets,
        steps={
            "a": Step(
                "a",
                shared="$folder",
                do=[Do("echo $n >> $folder/all"), Do("sort -n all > total", shared=True)],
            )
        },
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[DONE] == 3
    assert (run.dir / "shared_a" / "total").read_text() == "1\n2\n"
    assert (run.dir / "000000_a" / "work" / "common").is_symlink()


def test_a_shared_folder_named_out_of_the_work_directory_is_refused(tmp_path: Path) -> None:
    sets = {"s": pset("s", folder=["../up"])}
    b = Benchmark(
        "shared",
        parametersets=sets,
        steps={"a": Step("a", shared="$folder", do=[Do("true"), Do("true", shared=True)])},
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[FAILED] == 1
    (wp,) = [w for w in run.store.workpackages() if w.kind != "shared"]
    assert "its shared folder's name '../up' is no name of one entry" in wp.reason
    assert not (tmp_path / "runs" / "up").exists()


@pytest.mark.slow
def test_time_limit_kills_a_workpackage(tmp_path: Path) -> None:
    b = Benchmark(
        "limit",
        parametersets={},
        steps={"a": Step("a", time_limit="1s", do=[Do("sleep 30")])},
    )
    run, _counts = run_benchmark(tmp_path, b)
    (wp,) = run.store.workpackages()
    assert wp.state == FAILED
    assert "time limit" in wp.reason


def test_exported_parameters_and_environment_reach_the_commands(tmp_path: Path) -> None:
    s = pset("s", n=["7"])
    s.parameters["n"].export = True
    b = Benchmark(
        "env",
        parametersets={"s": s},
        environment={"GREETING": "hello $n"},
        steps={"a": Step("a", do=[Do("echo \"$GREETING $n\" '$$HOME' ${HOME:+set}")])},
    )
    run, _ = run_benchmark(tmp_path, b)
    (wp,) = run.store.workpackages()
    out = (work(run, wp) / "stdout").read_text().split()
    assert out[:3] == ["hello", "7", "7"]
    assert out[3] == "$HOME" and out[4] == "set"


def test_cycles_and_break_file(tmp_path: Path) -> None:
    b = Benchmark(
        "cycles",
        parametersets={},
        steps={
            "a": Step(
                "a",
                cycles=5,
                do=[
                    Do(
                        "echo cycle $jube_wp_cycle; [ $jube_wp_cycle != 2 ] || touch stop",
                        break_file="stop",
                    )
                ],
            )
        },
    )
    run, _ = run_benchmark(tmp_path, b)
    (wp,) = run.store.workpackages()
    assert wp.state == DONE
    assert (work(run, wp) / "stdout").read_text() == "cycle 0\ncycle 1\ncycle 2\n"


def test_done_file_waits_and_error_file_fails(tmp_path: Path) -> None:
    b = Benchmark(
        "async",
        parametersets={"s": pset("s", outcome=["ready", "broken"])},
        steps={
            "a": Step(
                "a",
                do=[
                    Do("(sleep 1; touch $outcome) &", done_file="ready", error_file="broken"),
                    Do("echo after"),
                ],
            )
        },
    )
    run, counts = run_benchmark(tmp_path, b)
    assert (counts[DONE], counts[FAILED]) == (1, 1)
    for wp in run.store.workpackages():
        out = (work(run, wp) / "stdout").read_text()
        assert out == ("after\n" if str(wp.point["outcome"]) == "ready" else "")


def test_a_workpackage_waiting_for_its_done_file_holds_no_slot(tmp_path: Path) -> None:
    """Each done file appears only once all four workpackages started: with one slot, that
    happens only if a waiting workpackage gives its slot to the next (else: gave_up)."""
    log = tmp_path / "started.log"
    start = (
        f"echo $n >> {log}; (i=0; while [ $(wc -l < {log}) -lt 4 ] && [ $i -lt 150 ];"
        " do sleep 0.1; i=$((i+1)); done;"
        " if [ $i -lt 150 ]; then touch done; else touch gave_up; fi) &"
    )
    b = Benchmark(
        "slots",
        parametersets={"s": pset("s", n=["0", "1", "2", "3"])},
        steps={
            "a": Step("a", do=[Do(start, done_file="done", error_file="gave_up"), Do("echo after")])
        },
    )
    run, counts = run_benchmark(tmp_path, b, jobs=1)
    assert counts[DONE] == 4
    assert sorted(log.read_text().split()) == ["0", "1", "2", "3"]
    assert all(
        (work(run, wp) / "stdout").read_text() == "after\n" for wp in run.store.workpackages()
    )


def test_an_exporting_step_passes_its_environment_to_dependent_steps(tmp_path: Path) -> None:
    b = Benchmark(
        "export",
        parametersets={},
        steps={
            "setup": Step("setup", export=True, do=[Do("export TOOL_HOME=/opt/tool-1.2")]),
            "use": Step("use", depend=("setup",), do=[Do('echo "tool at $TOOL_HOME"')]),
        },
    )
    run, _ = run_benchmark(tmp_path, b)
    (wp,) = [w for w in run.store.workpackages() if w.step == "use"]
    assert (work(run, wp) / "stdout").read_text() == "tool at /opt/tool-1.2\n"


def test_tags_select_operations_and_drop_dependencies_on_steps_tagged_off(tmp_path: Path) -> None:
    b = Benchmark(
        "tags",
        parametersets={},
        steps={
            "build": Step("build", tag="kernels", do=[Do("echo built > artefact")]),
            "run": Step(
                "run",
                depend=("build",),
                do=[Do("echo kernels", tag="kernels"), Do("echo site", tag="!kernels")],
            ),
        },
    )
    benchmark_file = tmp_path / "def.yaml"
    benchmark_file.write_text("# built in the test\n")
    b.file = str(benchmark_file)
    for tags, expected in (((), "site\n"), (("kernels",), "kernels\n")):
        run = new_run(resolve_spec(b, load_platform("local"), outpath=tmp_path / "runs", tags=tags))
        drive(run, Options(progress="quiet"))
        (wp,) = [w for w in run.store.workpackages() if w.step == "run"]
        assert (work(run, wp) / "stdout").read_text() == expected
        assert len(run.store.workpackages()) == (2 if tags else 1)


def test_max_async_caps_a_step(tmp_path: Path) -> None:
    log = tmp_path / "concurrency.log"
    b = Benchmark(
        "cap",
        parametersets={"s": pset("s", n=[str(i) for i in range(6)])},
        steps={
            "a": Step(
                "a",
                max_async=1,
                do=[Do(f"echo start >> {log}; sleep 0.2; echo end >> {log}")],
            )
        },
    )
    _, counts = run_benchmark(tmp_path, b, jobs=4)
    assert counts[DONE] == 6
    assert log.read_text().split() == ["start", "end"] * 6


def test_parameters_may_name_the_workpackage_variables(tmp_path: Path) -> None:
    b = Benchmark(
        "late",
        parametersets={"s": pset("s", out=["result_${jube_wp_id}_$jube_wp_iteration.txt"])},
        steps={"a": Step("a", iterations=2, do=[Do("echo $out")])},
    )
    run, _ = run_benchmark(tmp_path, b)
    outs = sorted((work(run, wp) / "stdout").read_text() for wp in run.store.workpackages())
    assert outs == ["result_0_0.txt\n", "result_1_1.txt\n"]


def test_the_local_platform_environment_reaches_the_commands(tmp_path: Path) -> None:
    b = Benchmark(
        "platform-env",
        parametersets={},
        steps={"a": Step("a", do=[Do('echo "$OMP_NUM_THREADS $OMPI_ALLOW_RUN_AS_ROOT"')])},
    )
    run, _ = run_benchmark(tmp_path, b)
    (wp,) = run.store.workpackages()
    assert (work(run, wp) / "stdout").read_text() == "1 1\n"


def test_a_step_suffix_names_the_workpackage_directories(tmp_path: Path) -> None:
    b = Benchmark(
        "suffix",
        parametersets={"s": pset("s", n=["4", "8"])},
        steps={"a": Step("a", suffix="_n$n", do=[Do("echo $n")])},
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[DONE] == 2
    assert sorted(p.name for p in run.dir.iterdir() if p.name.startswith("0000")) == [
        "000000_a_n4",
        "000001_a_n8",
    ]
    assert (run.dir / "000001_a_n8" / "work" / "stdout").read_text() == "8\n"


def test_a_local_wrapper_records_its_pid_even_inside_a_batch_allocation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    b = Benchmark("owner", parametersets={}, steps={"a": Step("a", do=[Do("true")])})
    run, _ = run_benchmark(tmp_path, b)
    (wp,) = run.store.workpackages()
    owner = (run.dir / f"{wp.id:06d}_a" / "claim").read_text().strip()
    assert owner.isdigit() and owner != "4242"


def test_a_retried_workpackage_starts_in_a_fresh_work_directory(tmp_path: Path) -> None:
    """The failed attempt's outputs are kept beside, and not analysed with the new ones."""
    ok = tmp_path / "ok"
    b = Benchmark(
        "retry",
        parametersets={},
        patternsets={"p": PatternSet("p", {"v": Pattern("v", "v=$jube_pat_int", type="int")})},
        steps={"a": Step("a", analyse=("p",), do=[Do(f"echo v=1; [ -e {ok} ] || exit 3")])},
    )
    run, counts = run_benchmark(tmp_path, b)
    assert counts[FAILED] == 1
    ok.touch()
    counts = drive(run, Options(progress="quiet"), retry_failed=True)
    assert counts[DONE] == 1
    (wp,) = run.store.workpackages()
    wp_dir = work(run, wp).parent
    assert (wp_dir / "work" / "stdout").read_text() == "v=1\n"
    assert (wp_dir / "work.1" / "stdout").read_text() == "v=1\n"
    assert [m.value for m in run.store.measurements()[wp.id] if m.name == "v"] == [1]
