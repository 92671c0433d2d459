"""What detection may write: scheduler output is someone else's text, so every value taken
from it is checked against the platform file's rules before it is written.

A queue or partition name goes into every job script (``#PBS -q NAME``): it must be one
name as the schedulers spell names (letters, digits, ``_ . + -``; no space, no option, no
template syntax). A time limit must look like one. Free text (a description, the CPU
model) keeps only printable characters and no template syntax. Duplicates and names past
:data:`MAX_PARTITIONS` are left out. What is left out is said in a note, so the file
written always validates and nothing of the output reaches a job script as syntax.
"""

from __future__ import annotations

import re

from jubex.platform.detect.model import Detected, DetectedPartition, Value

#: partitions a detected file keeps at most (the largest centres configure a few hundred)
MAX_PARTITIONS = 1000
#: characters of a free-text value kept
MAX_TEXT = 200
#: a queue or partition name: Slurm's, PBS's and Grid Engine's names all fit
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
#: a time limit as the schedulers print one: 2:00:00, 1-00:00:00, 720:00:00, 30
TIME = re.compile(r"[0-9]{1,9}(-[0-9]{1,9})?(:[0-9]{1,9}){0,2}")
#: what would be read as a template or a reference in a platform file
_SYNTAX = re.compile(r"\{[{%#]|[%}#]\}|\$")


def checked(found: Detected) -> list[str]:
    """Leave out of ``found`` what a platform file may not hold; a note for each."""
    notes: list[str] = []
    kept: list[DetectedPartition] = []
    seen: set[str] = set()
    for index, partition in enumerate(found.partitions):
        shown = shown_text(partition.name, 40)
        if not NAME.fullmatch(partition.name):
            notes.append(f"left out the partition {shown!r}: not a name the scheduler takes")
        elif partition.name in seen:
            notes.append(f"left out the second partition named {shown!r}")
        elif len(kept) >= MAX_PARTITIONS:
            notes.append(
                f"left out {len(found.partitions) - index} partitions after the first "
                f"{MAX_PARTITIONS}"
            )
            break
        else:
            seen.add(partition.name)
            notes += _values(partition.name, partition.values)
            kept.append(partition)
    found.partitions = kept
    found.cpu_model = plain_text(found.cpu_model)
    for name in list(found.filesystems):
        if not name.startswith("/") or plain_text(name) != name:
            notes.append(f"left out the file system {shown_text(name, 40)!r}: not a plain path")
            del found.filesystems[name]
    return notes


def _values(partition: str, values: dict[str, Value]) -> list[str]:
    notes = []
    for key in list(values):
        value = values[key].value
        if key == "max_time" and not (isinstance(value, str) and TIME.fullmatch(value)):
            notes.append(
                f"left out max_time {shown_text(str(value), 40)!r} of partition {partition}: "
                "not a time limit"
            )
            del values[key]
        elif isinstance(value, str):
            values[key].value = plain_text(value)
    return notes


def small_int(text: str | None) -> int | None:
    """A count as scheduler output spells it (ASCII digits), None when it is none or longer
    than any count is (a number of 5,000 digits is not converted at all)."""
    if not text or not (text.isascii() and text.isdecimal()) or len(text) > 18:
        return None
    return int(text)


def plain_text(text: str) -> str:
    """``text`` with only printable characters and no template syntax, at most MAX_TEXT."""
    printable = "".join(c if c.isprintable() else " " for c in text[: MAX_TEXT * 4])
    return _SYNTAX.sub("", printable).strip()[:MAX_TEXT]


def shown_text(text: str, width: int = MAX_TEXT) -> str:
    """``text`` safe for a terminal: control characters (escape sequences) as ``\\x1b``."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:width])
