"""Rendering one workpackage: values, typed resources, the writer's effects, job scripts."""

from __future__ import annotations

from pathlib import Path

from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Resources, Step
from jubex.language.values import Duration
from jubex.platform.load import load_platform
from jubex.space.plan import plan
from jubex.space.spec import RunSpec, resolve_spec
from jubex.workdir.render import Renderer
from jubex.workdir.writer import DryWriter


def spec(tmp_path: Path, platform: str = "local") -> RunSpec:
    (tmp_path / "b.yaml").write_text("# built in the test\n")
    parameters = {
        "n": Parameter("n", ("2",), type="int"),
        "limit": Parameter("limit", ("90s",), type="duration"),
    }
    step = Step(
        "s",
        resources=Resources(nodes="$n", time="$limit"),
        do=[Do("echo $jube_wp_relpath $n")],
    )
    benchmark = Benchmark(
        "b",
        parametersets={"p": ParameterSet("p", parameters)},
        steps={"s": step},
        file=str(tmp_path / "b.yaml"),
    )
    return resolve_spec(benchmark, load_platform(platform))


def test_a_resource_given_as_one_value_reaches_the_platform_typed(tmp_path: Path) -> None:
    made = spec(tmp_path, "slurm")
    (wp,) = plan(made.benchmark)
    renderer = Renderer(made, tmp_path / "000000", local=False)
    values, resources = renderer.values(wp, made.benchmark.steps["s"], [])
    assert resources["nodes"] == 2 and resources["walltime"] == "00:01:30"
    assert isinstance(resources["time"], Duration) and resources["time"] == 90
    assert values["jube_wp_relpath"] == "000000/000000_s/work"  # from the definition's directory


def test_a_dry_render_writes_nothing_and_records_every_effect(tmp_path: Path) -> None:
    made = spec(tmp_path, "slurm")
    (wp,) = plan(made.benchmark)
    run_dir = tmp_path / "runs" / "000000"
    renderer = Renderer(made, run_dir, local=False)
    writer = DryWriter()
    rendered = renderer.render(wp, [], writer)
    script = renderer.job_script(rendered, "jx-test", writer)
    assert not (tmp_path / "runs").exists()
    assert writer.actions[0] == f"mkdir {run_dir / '000000_s'}"
    assert writer.actions[-1] == f"write {script}"
    assert "#SBATCH --nodes=2" in writer.files[script]
    assert "#SBATCH --time=00:01:30" in writer.files[script]
    assert [c.text for c in rendered.prepared.cycles[0]] == ["echo runs/000000/000000_s/work 2"]


def test_locally_the_requested_time_is_the_wrappers_time_limit(tmp_path: Path) -> None:
    made = spec(tmp_path)
    (wp,) = plan(made.benchmark)
    local = Renderer(made, tmp_path / "000000", local=True)
    assert local.time_limit(wp) == 90
    assert Renderer(made, tmp_path / "000000", local=False).time_limit(wp) is None
    writer = DryWriter()
    rendered = local.render(wp, [], writer)
    body = writer.files[rendered.prepared.body]
    assert "timeout -k 10 90 " in body
