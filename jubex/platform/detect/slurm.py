"""Slurm: partitions from ``scontrol show partition -o``, nodes from ``scontrol show node -o``."""

from __future__ import annotations

import re

from jubex.platform.detect.check import small_int
from jubex.platform.detect.model import Detected, DetectedPartition, Value, uniform

COMMANDS = (["scontrol", "show", "partition", "-o"], ["scontrol", "show", "node", "-o"])
#: Slurm's spellings of "no limit"
UNLIMITED = {"UNLIMITED", "INFINITE", "NONE", "N/A", ""}


def records(text: str) -> list[dict[str, str]]:
    """``Key=Value`` records, one per line of scontrol's one-line output."""
    found = []
    for line in text.splitlines():
        fields = dict(token.partition("=")[::2] for token in line.split() if "=" in token)
        if fields:
            found.append(fields)
    return found


def gpus(gres: str) -> int:
    """GPUs of a node's ``Gres`` (``gpu:4``, ``gpu:a100:4(S:0-1)``, ``gpu:2,shard:8``)."""
    total = 0
    for item in re.sub(r"\([^)]*\)", "", gres).split(","):
        parts = item.split(":")
        if parts[0] == "gpu":
            total += small_int(parts[-1]) or 0
    return total


def detect(partitions_text: str, nodes_text: str) -> Detected:
    """The partitions, their limits and their nodes' cores, GPUs and memory."""
    nodes = records(nodes_text)
    found = Detected("slurm", sources=[" ".join(c) for c in COMMANDS])
    by_partition: dict[str, list[dict[str, str]]] = {}  # one pass: nodes × partitions is huge
    for node in nodes:
        for member_of in set(node.get("Partitions", "").split(",")):
            by_partition.setdefault(member_of, []).append(node)
    for fields in records(partitions_text):
        if "PartitionName" not in fields:  # a node's or other record: no partition at all
            continue
        name = fields["PartitionName"]
        members = by_partition.get(name, [])
        partition = DetectedPartition(name)
        partition.set("default", True if fields.get("Default") == "YES" else None)
        partition.set("max_nodes", small_int(fields.get("MaxNodes")))
        min_nodes = small_int(fields.get("MinNodes"))
        partition.set("min_nodes", min_nodes if min_nodes and min_nodes > 1 else None)
        max_time = fields.get("MaxTime", "")
        partition.set("max_time", None if max_time.upper() in UNLIMITED else max_time)
        _node_values(partition, members)
        total = small_int(fields.get("TotalNodes"))
        partition.set("description", f"{total} nodes" if total is not None else None)
        found.partitions.append(partition)
    _hardware(found, nodes)
    return found


def _cores(node: dict[str, str]) -> int:
    """Physical cores: sockets × cores per socket (CPUTot counts hardware threads)."""
    sockets, per_socket = small_int(node.get("Sockets")), small_int(node.get("CoresPerSocket"))
    if sockets is not None and per_socket is not None:
        return sockets * per_socket
    return _count(node, "CPUTot")


def _count(node: dict[str, str], key: str) -> int:
    """A node's count, 0 where scontrol printed none or no number."""
    return small_int(node.get(key)) or 0


def _node_values(partition: DetectedPartition, members: list[dict[str, str]]) -> None:
    cores = uniform([_cores(n) for n in members if _cores(n)], "cores")
    if cores:
        partition.values["cores_per_node"] = cores
    gpu_counts = [gpus(n.get("Gres", "")) for n in members]
    counted = uniform(gpu_counts, "GPUs")
    if counted and counted.value:
        partition.values["gpus_per_node"] = counted


def _hardware(found: Detected, nodes: list[dict[str, str]]) -> None:
    if not nodes:
        return
    found.hardware["nodes"] = Value(len(nodes))
    for key, values, what in (
        ("cores_per_node", [_cores(n) for n in nodes], "cores"),
        ("gpus_per_node", [gpus(n.get("Gres", "")) for n in nodes], "GPUs"),
        ("memory_per_node", [_count(n, "RealMemory") for n in nodes], "memory"),
    ):
        value = uniform([v for v in values if v], what)
        if value is not None:
            if key == "memory_per_node":
                value.value = f"{value.value}MiB"  # RealMemory is in MiB (slurm.conf(5))
            found.hardware[key] = value
