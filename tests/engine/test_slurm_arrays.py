"""Job arrays without a scheduler: grouping, the dispatch script (run by a real sh), manifests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.api import drive
from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Step
from jubex.engine import arrays
from jubex.engine.driver import Options, new_run
from jubex.platform.load import load_platform
from jubex.schedulers.pbs import PBSScheduler
from jubex.schedulers.slurm import SlurmScheduler
from jubex.space.plan import Workpackage
from jubex.space.spec import resolve_spec
from jubex.workdir.prepare import Prepared
from jubex.workdir.render import Rendered

SLURM = load_platform("slurm")


def ready(
    wp_id: int, base: Path, step: str = "run", nodes: int = 1, depends: tuple[str, ...] = ()
) -> Rendered:
    wp = Workpackage(wp_id, step, 0, {}, state="queued")
    wp_dir = base / wp.dir_name
    prepared = Prepared(wp_dir / "work", wp_dir / "body.sh", [], {})
    return Rendered(wp, wp_dir, prepared, {}, SLURM.resolve({"nodes": str(nodes)}), depends)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 3), st.sampled_from(["", "7"])),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 7),
)
def test_an_array_shares_step_resources_and_dependencies_and_stays_small(
    members: list[tuple[str, int, str]], most: int
) -> None:
    items = [
        ready(i, Path("/r"), step, nodes, (dep,) if dep else ())
        for i, (step, nodes, dep) in enumerate(members)
    ]
    arrays.MAX_TASKS, saved = most, arrays.MAX_TASKS
    try:
        groups = arrays.groups(items)
    finally:
        arrays.MAX_TASKS = saved
    assert sorted(r.wp.id for g in groups for r in g) == list(range(len(items)))
    for group in groups:
        assert 1 <= len(group) <= most
        assert len({(r.wp.step, r.resources["nodes"], r.depends) for r in group}) == 1
        assert [r.wp.id for r in group] == sorted(r.wp.id for r in group)
    keys = [(g[0].wp.step, g[0].resources["nodes"], g[0].depends) for g in groups]
    full = [k for k, g in zip(keys, groups, strict=True) if len(g) < most]
    assert len(full) == len(set(full)), "a group was split before it was full"


def test_each_task_runs_the_wrapper_of_its_own_workpackage(tmp_path: Path) -> None:
    members = [ready(i, tmp_path) for i in (4, 9, 12)]
    for item in members:
        item.wp_dir.mkdir()
        item.prepared.body.write_text("echo out $JUBEX_MARK; echo err >&2; exit 3\n")
    script = tmp_path / "dispatch.sh"
    script.write_text(arrays.dispatch(members))
    for index, variable in enumerate(["SLURM_ARRAY_TASK_ID", "PBS_ARRAY_INDEX", "PBS_ARRAYID"]):
        env = {"PATH": os.environ["PATH"], variable: str(index), "JUBEX_MARK": variable}
        done = subprocess.run(["/bin/sh", str(script)], env=env, check=False)
        assert done.returncode == 3
        wp_dir = members[index].wp_dir
        assert (wp_dir / "job.out").read_text() == f"out {variable}\n"
        assert (wp_dir / "job.err").read_text() == "err\n"
    stray = subprocess.run(
        ["/bin/sh", str(script)],
        env={"PATH": os.environ["PATH"], "SLURM_ARRAY_TASK_ID": "3"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert stray.returncode == 2 and "no workpackage for array task 3" in stray.stderr


def test_the_array_script_and_manifest_are_written_before_submission(tmp_path: Path) -> None:
    members = [ready(i, tmp_path, depends=("41",)) for i in (3, 5)]
    spec = arrays.write_array(tmp_path, SLURM, "jxabc-a3", members)
    assert (spec.array_size, spec.depends_on, spec.time_limit_s) == (2, ("41",), 1800)
    text = spec.script.read_text()
    assert "#SBATCH --job-name=jxabc-a3" in text
    assert f"#SBATCH --output={tmp_path}/arrays/jxabc-a3.%a.out" in text
    assert arrays.manifests(tmp_path) == {3: ("jxabc-a3", 0), 5: ("jxabc-a3", 1)}


def test_the_newest_manifest_names_a_workpackage_s_array(tmp_path: Path) -> None:
    arrays.write_array(tmp_path, SLURM, "jxabc-a3", [ready(3, tmp_path), ready(5, tmp_path)])
    old = tmp_path / "arrays" / "jxabc-a3.ids"
    os.utime(old, (1, 1))
    arrays.write_array(tmp_path, SLURM, "jxabc-a5", [ready(5, tmp_path)])
    assert arrays.manifests(tmp_path) == {3: ("jxabc-a3", 0), 5: ("jxabc-a5", 0)}
    assert arrays.manifests(tmp_path / "nowhere") == {}


def test_array_task_ids_as_each_scheduler_reports_them() -> None:
    assert SlurmScheduler().array_task_id("812", 4) == "812_4"
    assert PBSScheduler(flavour="pro").array_task_id("812[].pbs01", 4) == "812[4].pbs01"


def test_the_local_platform_ignores_array(tmp_path: Path) -> None:
    values = ParameterSet("p", {"n": Parameter("n", ("1", "2", "3"))})
    benchmark = Benchmark(
        "local-array",
        parametersets={"p": values},
        steps={"s": Step("s", array=True, do=[Do("echo $n")])},
    )
    run = new_run(resolve_spec(benchmark, load_platform("local"), outpath=tmp_path / "runs"))
    assert drive(run, Options(progress="quiet"))["done"] == 3
    assert not (run.dir / arrays.ARRAYS).exists()
    assert all(":" in wp.job_id for wp in run.store.workpackages())  # type: ignore[operator]
