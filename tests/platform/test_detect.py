"""``jubex platform detect``: platform files written from the live Slurm and Grid Engine of the
test suite, and from captured PBS output, reproduce the partitions and limits configured, mark
what they guess, and validate."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.platform.detect import machine, pbs, sge, slurm
from jubex.platform.detect.check import NAME, checked
from jubex.platform.detect.run import detect
from jubex.platform.detect.write import platform_text
from jubex.platform.load import load_platform

PBS_DATA = Path(__file__).resolve().parents[1] / "data" / "pbs"
#: a GPU partition with limits, in the form `scontrol show partition -o` / `show node -o` print
LIMITED = (
    "PartitionName=gpu AllowGroups=ALL Default=NO MaxNodes=4 MaxTime=02:00:00 MinNodes=2 "
    "Nodes=g[1-2] State=UP TotalCPUs=256 TotalNodes=2 TRES=cpu=256,mem=1000G,node=2\n"
    "PartitionName=cpu Default=YES MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0 "
    "Nodes=c1 TotalNodes=1\n"
)
NODES = (
    "NodeName=g1 CoresPerSocket=32 CPUTot=128 Gres=gpu:a100:4(S:0-1) RealMemory=515000 "
    "Sockets=2 ThreadsPerCore=2 Partitions=gpu\n"
    "NodeName=g2 CoresPerSocket=32 CPUTot=128 Gres=gpu:a100:4(S:0-1) RealMemory=515000 "
    "Sockets=2 ThreadsPerCore=2 Partitions=gpu\n"
    "NodeName=c1 CoresPerSocket=48 CPUTot=96 Gres=(null) RealMemory=256000 Sockets=2 "
    "ThreadsPerCore=1 Partitions=cpu\n"
)


def written(tmp_path: Path, text: str, name: str = "here") -> dict:
    """The detected platform loaded back: it must validate."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    platform = load_platform(str(path))
    return {
        p.name: {k: getattr(p, k) for k in ("max_nodes", "min_nodes", "max_time", "default")}
        | {"cores": p.cores_per_node, "gpus": p.gpus_per_node}
        for p in platform.partitions.values()
    }


@pytest.mark.slurm
def test_the_live_slurm_gives_its_partitions_as_configured(slurm: object, tmp_path: Path) -> None:
    found = detect("slurm")
    partitions = written(tmp_path, platform_text(found, "here", "host"))
    # ci/start-local-slurm.sh: debug (Default=YES) and batch, MaxTime=INFINITE, no MaxNodes
    assert set(partitions) == {"debug", "batch"}
    assert partitions["debug"]["default"] and not partitions["batch"]["default"]
    nodes = subprocess.run(
        ["scontrol", "show", "node", "-o"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    cores = {int(line.split("CoresPerSocket=")[1].split()[0]) for line in nodes}
    for limits in partitions.values():
        assert limits["max_nodes"] is None and limits["max_time"] is None
        assert {limits["cores"]} == cores
    assert found.hardware["nodes"].value == len(nodes)


@pytest.mark.sge
def test_the_live_grid_engine_gives_its_queue_and_marks_the_guesses(
    sge: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{sge}:{os.environ['PATH']}")
    text = platform_text(detect("sge"), "here", "host")
    partitions = written(tmp_path, text)
    # ci/start-local-sge.sh: one queue all.q of JUBEX_SGE_SLOTS (4) slots on one host, no h_rt
    slots = int(os.environ.get("JUBEX_SGE_SLOTS", "4"))
    assert partitions == {
        "all.q": {"max_nodes": 1, "min_nodes": None, "max_time": None, "default": False}
        | {"cores": slots, "gpus": None}
    }
    assert "max_nodes: 1  # GUESSED: the number of the queue's hosts" in text
    assert f"cores_per_node: {slots}  # GUESSED: the queue's slots" in text


def test_slurm_limits_gpus_and_memory_come_out_as_the_scheduler_says(tmp_path: Path) -> None:
    found = slurm.detect(LIMITED, NODES)
    partitions = written(tmp_path, platform_text(found, "limited", "host"), "limited")
    assert partitions["gpu"] == {
        "max_nodes": 4,
        "min_nodes": 2,
        "max_time": "02:00:00",
        "default": False,
        "cores": 64,  # sockets x cores per socket, not CPUTot's hardware threads
        "gpus": 4,
    }
    assert partitions["cpu"]["default"] and partitions["cpu"]["max_time"] == "1-00:00:00"
    assert partitions["cpu"]["max_nodes"] is None and partitions["cpu"]["gpus"] is None
    hardware = found.hardware
    assert hardware["cores_per_node"].value == 64 and "differ" in hardware["cores_per_node"].guessed
    assert hardware["memory_per_node"].value == "256000MiB"


def test_pbs_queues_from_captured_output(tmp_path: Path) -> None:
    found = pbs.detect(
        (PBS_DATA / "metacentrum-qstat-Q-f.txt").read_text(),
        (PBS_DATA / "qstat-B-f-default-queue.txt").read_text(),
        (PBS_DATA / "alcf-pbsnodes-av.txt").read_text(),
    )
    text = platform_text(found, "pbshere", "host")
    partitions = written(tmp_path, text, "pbshere")
    assert partitions == {
        "default": {"max_nodes": None, "min_nodes": None, "max_time": "720:00:00"}
        | {"default": True, "cores": 128, "gpus": 1}
    }
    assert "routing queue to q_2h,q_4h" in text
    assert "cores_per_node: 128  # GUESSED: the nodes' ncpus, which counts hardware threads" in text


@given(st.lists(st.integers(0, 16), max_size=4), st.sampled_from(["", "(S:0-1)", "(S:0)"]))
def test_gres_gpus_are_summed_whatever_the_type_and_socket_notes(
    counts: list[int], socket: str
) -> None:
    gres = ",".join(f"gpu:t{i}:{n}{socket}" for i, n in enumerate(counts))
    assert slurm.gpus(f"{gres},shard:8" if gres else "shard:8") == sum(counts)


def test_detect_refuses_to_overwrite_and_says_when_no_scheduler_is_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "mine.yaml"
    existing.write_text("keep\n")
    assert main(["platform", "detect", "-o", str(existing), "--scheduler", "pbs"]) == 2
    assert existing.read_text() == "keep\n" and "exists" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["platform", "detect"]) == 1
    assert "no scheduler found" in capsys.readouterr().err


MOUNTINFO = (
    "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "23 22 0:5 / /proc rw - proc proc rw\n"
    "30 22 0:26 / /home rw shared:5 - nfs4 fs1:/home rw\n"
    "31 22 0:27 / /p/scratch rw shared:6 - gpfs scratch rw\n"
    "32 22 0:28 / /lustre/orion rw shared:7 - lustre 10.0.0.1@o2ib:/orion rw\n"
    "33 22 0:29 / /boot/efi rw - vfat /dev/vda1 rw\n"
)


def test_mounted_file_systems_come_with_their_kind_and_a_guessed_default() -> None:
    found = machine.filesystems(MOUNTINFO)
    assert {name: (fs["path"].value, fs["kind"].value) for name, fs in found.items()} == {
        "home": ("/home", "nfs4"),
        "p-scratch": ("/p/scratch", "gpfs"),
        "lustre-orion": ("/lustre/orion", "lustre"),
    }
    assert found["p-scratch"]["default"].guessed == "the first parallel file system mounted"
    assert "default" not in found["lustre-orion"] and "default" not in found["home"]
    assert machine.cpu_model("processor\t: 0\nmodel name\t: AMD EPYC 7763 64-Core\n") == (
        "AMD EPYC 7763 64-Core"
    )


#: pieces of the schedulers' own output, so that the parsers meet their keys with odd values
PIECES = st.sampled_from(
    [
        "PartitionName=p ",
        "NodeName=n1 ",
        "Partitions=p ",
        "CPUTot=x ",
        "Sockets=2 CoresPerSocket=² ",
        "RealMemory=abc ",
        "Gres=gpu:a100:4(S:0) ",
        "Queue",
        "Queue: q",
        "Server: s",
        "    default_queue = q",
        "    resources_max.walltime = 12:00:00",
        "\tcontinued",
        "hostlist @allhosts",
        "slots 4,[n=x]",
        "\n",
    ]
)


def test_a_nodes_line_among_the_partitions_is_no_partition() -> None:
    found = slurm.detect("NodeName=n1 \nPartitionName=p MaxTime=1:00:00\n", "NodeName=n1 ")
    assert [p.name for p in found.partitions] == ["p"]
    assert checked(found) == []


@given(st.text(max_size=300) | st.lists(PIECES | st.text(max_size=8), max_size=30).map("".join))
def test_the_parsers_take_any_text_without_failing(text: str) -> None:
    for found, scheduler in [
        (slurm.detect(text, text), "slurm"),
        (pbs.detect(text, text, text), "pbs"),
        (sge.detect(lambda argv: text), "sge"),  # a host group naming itself included
    ]:
        assert found.scheduler == scheduler
        notes = checked(found)
        # what is kept is a name the scheduler takes; what was read and left out is said
        assert all(NAME.fullmatch(p.name) for p in found.partitions)
        assert all(n.startswith("left out") for n in notes)
    # a record that names no partition (a node's line) is no partition, not one named ''
    assert slurm.detect(text, "").partitions == [] or "PartitionName=" in text
    # a real line after the noise is still read: a parser that gave up on any text would pass
    # the calls above
    real = "PartitionName=zz Nodes=n1 MaxTime=01:00:00 State=UP"
    found = slurm.detect(f"{text.rstrip(chr(92))}\n{real}\n", "")
    assert "zz" in [p.name for p in found.partitions]
    assert sge.settings(f"{text.rstrip(chr(92))}\nqname zz\n")["qname"] == "zz"
