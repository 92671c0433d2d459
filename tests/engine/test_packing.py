"""Packs without a scheduler: grouping, the loop script (run by a real sh), time, manifests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.api import drive
from jubex.definition.load import load
from jubex.definition.model import Benchmark, Do, Parameter, ParameterSet, Step
from jubex.engine import packing
from jubex.engine.driver import Options, new_run
from jubex.errors import JubexError
from jubex.platform.load import load_platform
from jubex.platform.model import Partition
from jubex.space.plan import Workpackage
from jubex.space.spec import resolve_spec
from jubex.workdir.prepare import Prepared
from jubex.workdir.render import Rendered
from jubex.workdir.script import Command, wrapper

SLURM = load_platform("slurm")


def ready(
    wp_id: int,
    base: Path,
    step: str = "run",
    nodes: int = 1,
    depends: tuple[str, ...] = (),
    time: str = "10:00",
) -> Rendered:
    wp = Workpackage(wp_id, step, 0, {}, state="queued")
    wp_dir = base / wp.dir_name
    prepared = Prepared(wp_dir / "work", wp_dir / "body.sh", [], {})
    resources = SLURM.resolve({"nodes": str(nodes), "time": time})
    return Rendered(wp, wp_dir, prepared, {}, resources, depends)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 3), st.sampled_from(["", "7"])),
        min_size=1,
        max_size=40,
    ),
    st.integers(1, 7),
    st.integers(1, 7),
)
def test_a_pack_shares_step_resources_and_dependencies_and_holds_its_step_s_size(
    members: list[tuple[str, int, str]], size_a: int, size_b: int
) -> None:
    items = [
        ready(i, Path("/r"), step, nodes, (dep,) if dep else ())
        for i, (step, nodes, dep) in enumerate(members)
    ]
    sizes = {"a": size_a, "b": size_b}
    groups = packing.groups(items, sizes)
    assert sorted(r.wp.id for g in groups for r in g) == list(range(len(items)))
    for group in groups:
        assert 1 <= len(group) <= sizes[group[0].wp.step]
        assert len({(r.wp.step, r.resources["nodes"], r.depends) for r in group}) == 1
        assert [r.wp.id for r in group] == sorted(r.wp.id for r in group)
    keys = [(g[0].wp.step, g[0].resources["nodes"], g[0].depends) for g in groups]
    short = [k for k, g in zip(keys, groups, strict=True) if len(g) < sizes[k[0]]]
    assert len(short) == len(set(short)), "a pack was split before it was full"


def write_wrapper(item: Rendered, command: str) -> None:
    """The real wrapper of a workpackage, running one command."""
    item.prepared.workdir.mkdir(parents=True)
    text, _ = wrapper(
        wp_id=item.wp.id,
        step=item.wp.step,
        workdir=item.prepared.workdir,
        admin=item.wp_dir,
        commands=[Command(command)],
        environment={},
    )
    item.prepared.body.write_text(text)


def test_the_loop_runs_each_wrapper_once_and_goes_on_after_a_failure(tmp_path: Path) -> None:
    members = [ready(i, tmp_path) for i in (4, 9, 12)]
    log = tmp_path / "ran"
    for item, code in zip(members, (0, 3, 0), strict=True):
        write_wrapper(item, f"echo {item.wp.id} >> {log}; echo out; echo err >&2; exit {code}")
    (members[2].wp_dir / "claim").write_text("other\n")  # a copy elsewhere holds it
    script = tmp_path / "pack.sh"
    script.write_text(packing.loop(members))
    env = {"PATH": os.environ["PATH"], "SLURM_JOB_ID": "77"}
    done = subprocess.run(["/bin/sh", str(script)], env=env, check=False)
    assert done.returncode == 0
    assert log.read_text().split() == ["4", "9"]
    assert [(m.wp_dir / "exit").read_text() for m in members[:2]] == ["0\n", "3\n"]
    assert [(m.wp_dir / "claim").read_text() for m in members] == ["77\n", "77\n", "other\n"]
    assert not (members[2].wp_dir / "exit").exists()
    again = subprocess.run(["/bin/sh", str(script)], env=env, check=False)
    assert again.returncode == 0 and log.read_text().split() == ["4", "9"]


def test_a_terminated_pack_starts_no_further_member(tmp_path: Path) -> None:
    members = [ready(i, tmp_path) for i in (1, 2)]
    write_wrapper(members[0], f"kill -TERM $PPID $(cat {tmp_path}/pack.pid); exit 5")
    write_wrapper(members[1], "echo ran")
    script = tmp_path / "pack.sh"
    script.write_text(f"echo $$ > {tmp_path}/pack.pid\n" + packing.loop(members))
    done = subprocess.run(["/bin/sh", str(script)], check=False)
    assert done.returncode == 143
    assert (members[0].wp_dir / "exit").read_text() == "5\n"
    assert not (members[1].wp_dir / "claim").exists()


def test_a_pack_asks_for_each_member_s_time_within_the_partition_s_limit(tmp_path: Path) -> None:
    members = [ready(i, tmp_path, time="10:00") for i in range(4)]
    spec = packing.write_pack(tmp_path, SLURM, "jxabc-p0", members)
    assert spec.time_limit_s == 2400 and spec.array_size == 0
    text = spec.script.read_text()
    assert "#SBATCH --time=00:40:00" in text and "#SBATCH --job-name=jxabc-p0" in text
    assert f"#SBATCH --output={tmp_path}/packs/jxabc-p0.out" in text
    assert packing.manifests(tmp_path) == {i: "jxabc-p0" for i in range(4)}
    capped = load_platform("slurm")
    capped.partitions["short"] = Partition("short", max_time="25:00")
    members = [ready(i, tmp_path) for i in range(4)]
    for item in members:
        item.resources["partition"] = "short"
    assert packing.pack_resources(capped, members)["walltime"] == "00:25:00"


def test_the_newest_manifest_names_a_workpackage_s_pack(tmp_path: Path) -> None:
    packing.write_pack(tmp_path, SLURM, "jxabc-p3", [ready(3, tmp_path), ready(5, tmp_path)])
    os.utime(tmp_path / "packs" / "jxabc-p3.ids", (1, 1))
    packing.write_pack(tmp_path, SLURM, "jxabc-p5", [ready(5, tmp_path)])
    assert packing.manifests(tmp_path) == {3: "jxabc-p3", 5: "jxabc-p5"}
    assert packing.manifests(tmp_path / "nowhere") == {}


def test_the_local_platform_ignores_pack(tmp_path: Path) -> None:
    values = ParameterSet("p", {"n": Parameter("n", ("1", "2", "3"))})
    benchmark = Benchmark(
        "local-pack",
        parametersets={"p": values},
        steps={"s": Step("s", pack=2, do=[Do("echo $n")])},
    )
    run = new_run(resolve_spec(benchmark, load_platform("local"), outpath=tmp_path / "runs"))
    assert drive(run, Options(progress="quiet"))["done"] == 3
    assert not (run.dir / packing.PACKS).exists()


def test_pack_is_a_size_or_a_size_with_the_pack_s_time(tmp_path: Path) -> None:
    path = tmp_path / "def.yaml"
    path.write_text(
        "name: p\nsteps:\n  a: {pack: 8, do: 'true'}\n"
        "  b: {pack: {size: 50, time: '2:00:00'}, do: 'true'}\n"
    )
    steps = load(path).steps
    assert (steps["a"].pack, steps["a"].pack_time) == (8, None)
    assert (steps["b"].pack, steps["b"].pack_time) == (50, "2:00:00")
    path.write_text("name: p\nsteps:\n  a: {pack: {size: 8, nodes: 4}, do: 'true'}\n")
    assert (load(path).steps["a"].pack, load(path).steps["a"].pack_nodes) == (8, 4)
    path.write_text("name: p\nsteps:\n  a: {pack: {size: 8, nodes: 0}, do: 'true'}\n")
    with pytest.raises(JubexError) as caught:
        load(path)
    assert "steps.a.pack.nodes: expected" in caught.value.message
    path.write_text("name: p\nsteps:\n  a: {pack: {time: 1h}, do: 'true'}\n")
    with pytest.raises(JubexError) as caught:
        load(path)
    assert "def.yaml:3" in str(caught.value.loc) and "size" in caught.value.message


def test_a_pack_time_of_its_own_replaces_the_members_times(tmp_path: Path) -> None:
    members = [ready(i, tmp_path, time="10:00") for i in range(4)]
    step = Step("run", pack=4, pack_time="1:30:00")
    spec = packing.write_pack(tmp_path, SLURM, "jxabc-p0", members, step)
    assert spec.time_limit_s == 5400 and "#SBATCH --time=01:30:00" in spec.script.read_text()
    with pytest.raises(JubexError, match=r"pack\.time"):
        packing.write_pack(tmp_path, SLURM, "jxabc-p0", members, Step("run", pack_time="soon"))


def test_members_fit_side_by_side_in_a_pack_s_nodes(tmp_path: Path) -> None:
    two = [ready(i, tmp_path, nodes=2) for i in range(5)]
    assert [packing.lanes(two, n) for n in (0, 1, 2, 3, 4, 8, 100)] == [1, 1, 1, 1, 2, 4, 5]
    resources = packing.pack_resources(SLURM, two, nodes=4)
    assert (resources["nodes"], resources["tasks"]) == (4, 4)
    assert resources["walltime"] == "00:30:00", "five members in two lanes: three in turn"
    step = Step("run", pack=5, pack_nodes=5)
    spec = packing.write_pack(tmp_path, SLURM, "jxabc-p0", two, step)
    text = spec.script.read_text()
    assert "#SBATCH --nodes=4" in text and "#SBATCH --ntasks=4" in text
    assert spec.time_limit_s == 1800


def test_lanes_run_side_by_side_each_member_once(tmp_path: Path) -> None:
    members = [ready(i, tmp_path) for i in range(5)]
    log = tmp_path / "ran"
    for item in members:
        write_wrapper(item, f"echo start {item.wp.id} >> {log}; sleep 0.4; echo end >> {log}")
    script = tmp_path / "pack.sh"
    script.write_text(packing.loop(members, 2))
    env = {"PATH": os.environ["PATH"], "SLURM_JOB_ID": "78"}
    done = subprocess.run(["/bin/sh", str(script)], env=env, check=False)
    assert done.returncode == 0
    lines = log.read_text().split("\n")
    assert sorted(line.split()[1] for line in lines if line.startswith("start")) == list("01234")
    assert sorted(lines[:2]) == ["start 0", "start 1"], "the first two start side by side"
    assert [(m.wp_dir / "exit").read_text() for m in members] == ["0\n"] * 5
    again = subprocess.run(["/bin/sh", str(script)], env=env, check=False)
    assert again.returncode == 0 and log.read_text().count("start") == 5


def test_a_member_ended_by_term_stops_the_pack_before_its_own_signal_comes(
    tmp_path: Path,
) -> None:
    """Slurm signals the job's processes one by one: the loop may see its member killed by
    TERM before its own TERM arrives, and must not start the next member in the grace time."""
    members = [ready(i, tmp_path) for i in (1, 2, 3)]
    write_wrapper(members[0], "exit 0")
    write_wrapper(members[1], "kill -TERM $$")
    write_wrapper(members[2], "echo ran")
    script = tmp_path / "pack.sh"
    script.write_text(packing.loop(members))
    done = subprocess.run(["/bin/sh", str(script)], check=False, timeout=60)
    assert done.returncode == 143
    assert (members[0].wp_dir / "exit").read_text() == "0\n"
    assert (members[1].wp_dir / "claim").exists()
    assert not (members[2].wp_dir / "claim").exists()


def test_a_member_failed_by_the_signal_ending_the_job_stops_the_pack_when_its_own_comes_later(
    tmp_path: Path,
) -> None:
    """A member's command may turn the job's TERM into a status of its own (``sleep 600 ||
    exit 1``), and the loop's own TERM may come after the loop saw that status: the loop
    waits for it before it starts another member."""
    members = [ready(i, tmp_path) for i in (1, 2)]
    write_wrapper(members[0], f"(sleep 0.3; kill -TERM $(cat {tmp_path}/pack.pid)) & exit 1")
    write_wrapper(members[1], "echo ran")
    script = tmp_path / "pack.sh"
    script.write_text(f"echo $$ > {tmp_path}/pack.pid\n" + packing.loop(members))
    done = subprocess.run(["/bin/sh", str(script)], check=False, timeout=60)
    assert done.returncode == 143
    assert (members[0].wp_dir / "exit").read_text() == "1\n"
    assert not (members[1].wp_dir / "claim").exists()


def test_a_terminated_pack_of_lanes_starts_no_further_member(tmp_path: Path) -> None:
    """The scheduler signals every process of the job: each lane ends its member and
    starts no other, and the pack says it was terminated."""
    members = [ready(i, tmp_path) for i in range(6)]
    flag = tmp_path / "second-lane-runs"
    # the signal comes once both lanes run a member, whatever the machine's load
    write_wrapper(
        members[0],
        f"while [ ! -e {flag} ]; do sleep 0.05; done; kill -TERM -$(cat {tmp_path}/pack.pid); "
        "sleep 0.5",
    )
    write_wrapper(members[1], f"touch {flag}; sleep 1")
    for item in members[2:]:
        write_wrapper(item, "sleep 0.5")
    script = tmp_path / "pack.sh"
    script.write_text(f"echo $$ > {tmp_path}/pack.pid\n" + packing.loop(members, 2))
    done = subprocess.run(["/bin/sh", str(script)], check=False, start_new_session=True, timeout=60)
    assert done.returncode == 143
    started = [m.wp.id for m in members if (m.wp_dir / "claim").exists()]
    assert started == [0, 1], "only the members running when the signal came"
