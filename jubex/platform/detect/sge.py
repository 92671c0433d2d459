"""Grid Engine: queues from ``qconf -sql`` and ``qconf -sq QUEUE``, host groups from
``qconf -shgrp``. Grid Engine limits slots, not nodes: a queue's hosts give its node count."""

from __future__ import annotations

import re
from collections.abc import Callable

from jubex.platform.detect.check import MAX_PARTITIONS, small_int
from jubex.platform.detect.model import Detected, DetectedPartition, Value

#: host groups expanded at most, and hosts counted at most
MAX_GROUPS, MAX_HOSTS = 500, 1_000_000
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
    return small_int(slots.split(",")[0].strip())


def detect(run: Callable[[list[str]], str]) -> Detected:
    """Every cluster queue, its time limit, slots and hosts."""
    found = Detected("sge", sources=["qconf -sql", "qconf -sq QUEUE", "qconf -shgrp GROUP"])
    every: set[str] = set()
    groups: dict[str, set[str]] = {}
    for queue in run(["qconf", "-sql"]).split()[: MAX_PARTITIONS + 1]:
        conf = settings(run(["qconf", "-sq", queue]))
        partition = DetectedPartition(queue)
        h_rt = conf.get("h_rt", "")
        partition.set("max_time", None if h_rt.upper() in UNLIMITED else h_rt)
        hosts = _hosts(conf.get("hostlist", ""), run, groups)
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


def _hosts(hostlist: str, run: Callable[[list[str]], str], groups: dict[str, set[str]]) -> set[str]:
    """The hosts of a ``hostlist``, host groups (``@allhosts``) expanded: each group once
    for the whole detection (``groups`` keeps them; a group naming itself, or groups that
    double at every level, cost one ``qconf`` each), at most MAX_GROUPS groups and
    MAX_HOSTS hosts."""
    hosts: set[str] = set()
    pending = [item for item in hostlist.split() if item.upper() != "NONE"]
    while pending and len(hosts) < MAX_HOSTS:
        item = pending.pop()
        if not item.startswith("@"):
            hosts.add(item)
        elif item in groups:
            hosts |= groups[item]
        elif len(groups) < MAX_GROUPS:
            groups[item] = set()  # a group met again while it is expanded adds nothing
            members = settings(run(["qconf", "-shgrp", item])).get("hostlist", "")
            groups[item] = _hosts(members, run, groups)
            hosts |= groups[item]
    return hosts
