"""The shipped site platforms hold the limits their sites document, and jubex refuses a request
outside them before anything is submitted, naming the partition, the limit and the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.errors import DefinitionError
from jubex.platform.load import load_platform

POLARIS = load_platform("polaris")
BOOSTER = load_platform("juwels-booster")

#: "Running Jobs on Polaris" (docs.alcf.anl.gov): queue -> (node min, node max, time max)
POLARIS_QUEUES = {
    "debug": (1, 2, 3600),
    "debug-scaling": (1, 10, 3600),
    "prod": (10, 496, 24 * 3600),
    "preemptable": (1, 10, 72 * 3600),
}


def refusal(platform_name: str, request: dict[str, str]) -> str:
    platform = POLARIS if platform_name == "polaris" else BOOSTER
    with pytest.raises(DefinitionError) as caught:
        platform.resolve(request)
    return str(caught.value)


@pytest.mark.parametrize("queue", sorted(POLARIS_QUEUES))
def test_polaris_queues_hold_the_documented_limits(queue: str) -> None:
    low, high, seconds = POLARIS_QUEUES[queue]
    partition = POLARIS.partitions[queue]
    assert (partition.min_nodes or 1, partition.max_nodes) == (low, high)
    assert (partition.cores_per_node, partition.gpus_per_node) == (32, 4)
    edge = POLARIS.resolve({"partition": queue, "nodes": str(high), "time": str(seconds)})
    assert (edge["partition"], edge["nodes"]) == (queue, high)


def test_polaris_hardware_follows_the_machine_overview() -> None:
    assert POLARIS.hardware["nodes"] == 560 and POLARIS.hardware["cores_per_node"] == 32
    assert POLARIS.hardware["gpus_per_node"] == 4
    assert POLARIS.hardware["memory_per_node"] == "512GiB"


def test_prod_refuses_fewer_than_ten_nodes_naming_the_minimum() -> None:
    message = refusal("polaris", {"partition": "prod", "nodes": "9"})
    assert "9 nodes requested" in message and "'prod'" in message
    assert "needs at least 10 (min_nodes)" in message and "polaris.yaml" in message
    assert "ask for more nodes" in message


def test_prod_refuses_more_than_496_nodes_and_24_hours() -> None:
    assert "allows at most 496 (max_nodes)" in refusal(
        "polaris", {"partition": "prod", "nodes": "497"}
    )
    assert "24:00:00" in refusal(
        "polaris", {"partition": "prod", "nodes": "10", "time": "24:00:01"}
    )


@given(st.sampled_from(sorted(POLARIS_QUEUES)), st.integers(1, 600))
def test_a_polaris_node_count_is_accepted_exactly_within_its_queue(queue: str, nodes: int) -> None:
    low, high, _ = POLARIS_QUEUES[queue]
    request = {"partition": queue, "nodes": str(nodes)}
    if low <= nodes <= high:
        assert POLARIS.resolve(request)["nodes"] == nodes
    else:
        message = refusal("polaris", request)
        assert f"'{queue}'" in message and ("min_nodes" if nodes < low else "max_nodes") in message


def test_a_prod_job_script_has_the_directives_polaris_requires(tmp_path: Path) -> None:
    resolved = POLARIS.resolve({"partition": "prod", "nodes": "10", "account": "proj"})
    script = POLARIS.job_script(
        name="x",
        body="true",
        resolved=resolved,
        workdir=tmp_path,
        stdout=tmp_path / "o",
        stderr=tmp_path / "e",
    )
    for line in (
        "#PBS -l select=10:system=polaris",
        "#PBS -l place=scatter",
        "#PBS -l filesystems=home:eagle",
        "#PBS -q prod",
        "#PBS -A proj",
    ):
        assert line in script.splitlines(), line
    assert POLARIS.launcher_command(resolved) == (
        "mpiexec -n 40 --ppn 4 --depth 8 --cpu-bind depth"
    )


def test_juwels_booster_nodes_follow_the_published_configuration() -> None:
    assert BOOSTER.hardware["nodes"] == 936
    assert (BOOSTER.hardware["cores_per_node"], BOOSTER.hardware["gpus_per_node"]) == (48, 4)
    assert BOOSTER.hardware["peak_net_bandwidth"] == "4x200Gb/s"


def test_juwels_booster_partitions_refuse_requests_over_their_limits() -> None:
    assert "allows at most 384 (max_nodes)" in refusal("juwels-booster", {"nodes": "385"})
    assert "'booster'" in refusal("juwels-booster", {"time": "24:00:01"})
    message = refusal("juwels-booster", {"partition": "develbooster", "nodes": "5"})
    assert "allows at most 4 (max_nodes)" in message and "juwels-booster.yaml" in message


def test_min_nodes_reads_from_yaml_and_xml_site_files(tmp_path: Path) -> None:
    yaml_file = tmp_path / "big.yaml"
    yaml_file.write_text(
        "name: big\nextends: slurm\npartitions:\n  large: {min_nodes: 100, default: true}\n"
    )
    xml_file = tmp_path / "big.xml"
    xml_file.write_text(
        '<?xml version="1.0"?>\n<platform name="big" extends="slurm"><partitions>'
        '<partition name="large" min_nodes="100" default="true"/></partitions></platform>\n'
    )
    for path in (yaml_file, xml_file):
        platform = load_platform(str(path))
        assert platform.partitions["large"].min_nodes == 100
        assert platform.resolve({"nodes": "100"})["nodes"] == 100
        with pytest.raises(DefinitionError, match=r"needs at least 100 \(min_nodes\)") as caught:
            platform.resolve({"nodes": "99"})
        assert caught.value.loc is not None and caught.value.loc.file == str(path)
