"""Grid Engine: queues from ``qconf -sql`` and ``qconf -sq QUEUE``, host groups from
``qconf -shgrp``. Grid Engine limits slots, not nodes: a queue's hosts give its node count."""

from __future__ import annotations

import re
from collections.abc import Callable

from jubex.platform.detect.model import Detected, DetectedPartition, Value

#: Grid Engine's spellings of "no limit"
UNLIMITED = {"INFINITY", "NONE", ""}


def settings(text: str) -> dict[str, str]:
    """``name value`` lines of ``qconf -sq``, continuation lines (ending in ``\\``) joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    found = {}
    for line in joined.splitlines():
        key, _, value = line.strip().partition(" ")
        if key:
            found[key] = value.strip()
    return found


def first_slots(slots: str) -> int | None:
    """The queue's slots per host: ``4`` or the default of ``4,[host=8]``."""
    head = slots.split(",")[0].strip()
    return int(head) if head.isdecimal() else None


def detect(run: Callable[[list[str]], str]) -> Detected:
    """Every cluster queue, its time limit, slots and hosts."""
    found = Detected("sge", sources=["qconf -sql", "qconf -sq QUEUE", "qconf -shgrp GROUP"])
    every: set[str] = set()
    for queue in run(["qconf", "-sql"]).split():
        conf = settings(run(["qconf", "-sq", queue]))
        partition = DetectedPartition(queue)
        h_rt = conf.get("h_rt", "")
        partition.set("max_time", None if h_rt.upper() in UNLIMITED else h_rt)
        hosts = _hosts(conf.get("hostlist", ""), run)
        every.update(hosts)
        if hosts:
            partition.set(
                "max_nodes",
                len(hosts),
                "the number of the queue's hosts (Grid Engine limits slots)",
            )
        partition.set(
            "cores_per_node",
            first_slots(conf.get("slots", "")),
            "the queue's slots on each host, taken as its cores",
        )
        found.partitions.append(partition)
    if every:
        found.hardware["nodes"] = Value(len(every))
    return found


def _hosts(
    hostlist: str, run: Callable[[list[str]], str], seen: frozenset[str] = frozenset()
) -> list[str]:
    """The hosts of a ``hostlist``, host groups (``@allhosts``) expanded, each group once
    on a path (a group naming itself, which qconf should refuse, ends there)."""
    hosts: list[str] = []
    for item in hostlist.split():
        if item.upper() == "NONE" or item in seen:
            continue
        if item.startswith("@"):
            group = settings(run(["qconf", "-shgrp", item]))
            hosts += _hosts(group.get("hostlist", ""), run, seen | {item})
        else:
            hosts.append(item)
    return hosts
