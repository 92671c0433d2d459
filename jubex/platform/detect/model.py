"""What detection finds: partitions, hardware and file systems, each value read or guessed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Value:
    """A value read from the system, or guessed (``guessed`` then says what it rests on)."""

    value: object
    guessed: str = ""


@dataclass
class DetectedPartition:
    """A partition (queue) as the scheduler reports it; keys as in a platform file."""

    name: str
    values: dict[str, Value] = field(default_factory=dict)

    def set(self, key: str, value: object, guessed: str = "") -> None:
        if value is not None:
            self.values[key] = Value(value, guessed)


@dataclass
class Detected:
    """Everything detection found, and the commands and files it read."""

    scheduler: str
    partitions: list[DetectedPartition] = field(default_factory=list)
    hardware: dict[str, Value] = field(default_factory=dict)
    filesystems: dict[str, dict[str, Value]] = field(default_factory=dict)
    cpu_model: str = ""
    sources: list[str] = field(default_factory=list)


def uniform(values: list[int], what: str) -> Value | None:
    """One value for many nodes: theirs when they agree, else the smallest, marked guessed."""
    if not values:
        return None
    low, high = min(values), max(values)
    if low == high:
        return Value(low)
    return Value(low, f"{what} differ between nodes ({low} to {high}); the smallest is kept")
