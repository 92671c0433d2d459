"""PBS Pro / OpenPBS: queues from ``qstat -Q -f``, the default queue from ``qstat -B -f``,
nodes from ``pbsnodes -a``."""

from __future__ import annotations

from jubex.platform.detect.check import small_int
from jubex.platform.detect.model import Detected, DetectedPartition, Value, uniform

COMMANDS = (["qstat", "-Q", "-f"], ["qstat", "-B", "-f"], ["pbsnodes", "-a"])


def blocks(text: str) -> dict[str, dict[str, str]]:
    """``key = value`` blocks by name: a block starts at an unindented line (``Queue: q``,
    ``Server: s`` or a node's name); a line starting with a tab continues the value above."""
    found: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    last = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            name = line.strip()
            kind, colon, rest = name.partition(":")
            if colon and kind in ("Queue", "Server"):
                name = rest.strip()
            current, last = found.setdefault(name, {}), ""
            continue
        if current is None:
            continue
        if line.startswith("\t") and last:
            current[last] += line.strip()
            continue
        key, sep, value = line.strip().partition(" = ")
        if sep:
            current[key], last = value.strip(), key
    return found


def detect(queues_text: str, server_text: str, nodes_text: str) -> Detected:
    """Every queue with its node and time limits; cores and GPUs from the nodes."""
    found = Detected("pbs", sources=[" ".join(c) for c in COMMANDS])
    default = next((s.get("default_queue", "") for s in blocks(server_text).values()), "")
    nodes = list(blocks(nodes_text).values())
    cores = uniform([_int(n.get("resources_available.ncpus")) for n in nodes if n], "ncpus")
    gpus = uniform([_int(n.get("resources_available.ngpus")) for n in nodes if n], "ngpus")
    for name, queue in blocks(queues_text).items():
        partition = DetectedPartition(name)
        partition.set("default", True if name == default else None)
        partition.set("max_nodes", _int(queue.get("resources_max.nodect")) or None)
        minimum = _int(queue.get("resources_min.nodect"))
        partition.set("min_nodes", minimum if minimum > 1 else None)
        partition.set("max_time", queue.get("resources_max.walltime"))
        if cores and cores.value:
            partition.values["cores_per_node"] = Value(
                cores.value, cores.guessed or "the nodes' ncpus, which counts hardware threads"
            )
        if gpus and gpus.value:
            partition.values["gpus_per_node"] = gpus
        routing = queue.get("queue_type", "").lower() == "route"
        destinations = queue.get("route_destinations", "")
        partition.set("description", f"routing queue to {destinations}" if routing else None)
        found.partitions.append(partition)
    if nodes:
        found.hardware["nodes"] = Value(len(nodes))
    return found


def _int(text: str | None) -> int:
    return small_int(text) or 0
