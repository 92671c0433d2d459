"""How programs and launchers word their failures: what a quoted cause is made of.

Shared by the engine's grouping of failed workpackages and by the built-in analysers'
verdicts: a launcher's line that names a problem it then ignores explains nothing, a full
file system is the cause whatever error follows it, a message wrapped over lines is quoted
whole, and causes that differ only in a path or a number are the same cause.
"""

from __future__ import annotations

import re

#: a line that names a problem it then ignores explains nothing
#: (``srun: error: SLURMD_DEBUG=verbose invalid. ignoring...``)
NOISE = re.compile(r"\bignoring\b[.\s]*$", re.IGNORECASE)
#: causes that an error line printed later may only imply (IOR's assertion after a write
#: that failed): when an output names one, that line explains the failure
ROOT_CAUSES = ("No space left on device", "Disk quota exceeded")
#: where a wrapped sentence goes on: a line that starts in lower case
_GOES_ON_FROM = re.compile(r"^[a-z0-9]")
#: what differs between workpackages failing for the same cause: paths, numbers, hex ids
_PATH = re.compile(r"(?<![\w.])(?:\.{0,2}/)?(?:[\w.+-]+/)+[\w.+-]*|'/[^']*'|\"/[^\"]*\"")
_NUMBER = re.compile(r"0x[0-9a-f]+|\d+(?:\.\d+)?", re.IGNORECASE)


def stops_mid_sentence(line: str) -> bool:
    """Whether ``line`` is prose (no ``key: value``) cut mid-sentence, as Open MPI wraps its
    messages at 72 columns."""
    ends = line[-1:].islower() or line.endswith((",", ";"))
    return ends and ":" not in line and "=" not in line and len(line.split(maxsplit=5)) > 5


def whole_sentence(lines: list[str], index: int) -> list[str]:
    """``lines[index]`` and the lines after it that finish its sentence (at most five)."""
    found = [lines[index]]
    for following in lines[index + 1 : index + 5]:
        if not stops_mid_sentence(found[-1]) or not _GOES_ON_FROM.match(following):
            break
        found.append(following)
    return found


def masked(text: str) -> str:
    """``text`` with its paths and numbers masked: what failures of one cause share."""
    return _NUMBER.sub("N", _PATH.sub("PATH", text))
