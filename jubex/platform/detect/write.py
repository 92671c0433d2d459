"""A platform file from what detection found, every guessed value marked ``# GUESSED``."""

from __future__ import annotations

import json
import time

from jubex.platform.detect.check import checked
from jubex.platform.detect.model import Detected, Value

#: the generic platform a detected one extends, by scheduler
PARENTS = {"slurm": "slurm", "sge": "sge", "pbs": "pbs"}


def platform_text(found: Detected, name: str, host: str) -> str:
    """The platform file's text: a header naming its sources and what was left out, then
    the detected keys (only what :func:`check.checked` keeps)."""
    day = time.strftime("%Y-%m-%d")
    notes = checked(found)
    lines = [
        f"# Written by `jubex platform detect` on {host}, {day}, from: {'; '.join(found.sources)}.",
        "# Values marked GUESSED were not read from the system: check each. Add what no",
        "# scheduler knows: launcher, modules, account, the file systems' published peak",
        "# bandwidth and which one benchmarks should write to (see platforms/README.md).",
        *(f"# Note: {note}." for note in notes),
        f"name: {_scalar(name)}",
        f"extends: {PARENTS[found.scheduler]}",
        "description: " + _scalar(_description(found, host)),
    ]
    if found.partitions:
        lines.append("partitions:")
        for partition in found.partitions:
            lines.append(f"  {_scalar(partition.name)}:" + ("" if partition.values else " {}"))
            lines += _entries(partition.values, "    ")
    if found.filesystems:
        lines.append("filesystems:")
        for fs_name, values in found.filesystems.items():
            lines.append(f"  {_scalar(fs_name)}:")
            lines += _entries(values, "    ")
    if found.hardware or found.cpu_model:
        lines.append("hardware:")
        lines += _entries(found.hardware, "  ")
        if found.cpu_model:
            lines += _entries({"cpu_model": Value(found.cpu_model)}, "  ")
    return "\n".join(lines) + "\n"


def _description(found: Detected, host: str) -> str:
    parts = [f"Detected on {host} ({found.scheduler})"]
    nodes = found.hardware.get("nodes")
    if nodes:
        parts.append(f"{nodes.value} nodes")
    if found.cpu_model:
        parts.append(found.cpu_model)
    return ", ".join(parts) + "."


def _entries(values: dict[str, Value], indent: str) -> list[str]:
    return [
        f"{indent}{key}: {_scalar(v.value)}" + (f"  # GUESSED: {v.guessed}" if v.guessed else "")
        for key, v in values.items()
    ]


def _scalar(value: object) -> str:
    """A YAML scalar: numbers and flags as they are, texts quoted (JSON strings are YAML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)
