"""The shared libraries an ELF program names (its ``DT_NEEDED`` entries), read without running it.

``ldd`` would run the program's loader; reading the dynamic section is enough to know
whether a program is linked against a library (``libdarshan.so``), and it reads a few
kilobytes of a file of any size. Anything that is not a readable 64- or 32-bit ELF file
names no library.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB = 0, 1, 5
#: the most dynamic entries and program headers read (a real program has a few dozen)
_MOST = 4096


def needed(path: Path) -> tuple[str, ...]:
    """The libraries ``path`` names as needed, in order; () when it is no dynamic ELF file."""
    try:
        with path.open("rb") as file:
            return _needed(file)
    except (OSError, struct.error, ValueError):
        return ()


def _needed(file: BinaryIO) -> tuple[str, ...]:
    ident = file.read(16)
    if ident[:4] != b"\x7fELF" or ident[4] not in (1, 2) or ident[5] not in (1, 2):
        return ()
    wide = ident[4] == 2
    order = "<" if ident[5] == 1 else ">"
    if wide:
        header = struct.unpack(order + "HHIQQQIHHHHHH", file.read(48))
        phoff, phentsize, phnum = header[4], header[8], header[9]
        phdr, dyn = order + "IIQQQQQQ", order + "qQ"
    else:
        header = struct.unpack(order + "HHIIIIIHHHHHH", file.read(36))
        phoff, phentsize, phnum = header[4], header[8], header[9]
        phdr, dyn = order + "IIIIIIII", order + "iI"
    loads, dynamic = [], None
    for index in range(min(phnum, _MOST)):
        file.seek(phoff + index * phentsize)
        fields = struct.unpack(phdr, file.read(struct.calcsize(phdr)))
        if wide:  # type, flags, offset, vaddr, paddr, filesz, memsz, align
            kind, offset, vaddr, size = fields[0], fields[2], fields[3], fields[5]
        else:  # type, offset, vaddr, paddr, filesz, memsz, flags, align
            kind, offset, vaddr, size = fields[0], fields[1], fields[2], fields[4]
        if kind == _PT_LOAD:
            loads.append((vaddr, offset, size))
        elif kind == _PT_DYNAMIC:
            dynamic = (offset, size)
    if dynamic is None:
        return ()
    entries, strtab = [], None
    step = struct.calcsize(dyn)
    file.seek(dynamic[0])
    for _ in range(min(dynamic[1] // step, _MOST)):
        tag, value = struct.unpack(dyn, file.read(step))
        if tag == _DT_NULL:
            break
        if tag == _DT_NEEDED:
            entries.append(value)
        elif tag == _DT_STRTAB:
            strtab = next((o + value - v for v, o, s in loads if v <= value < v + s), None)
    if strtab is None:
        return ()
    return tuple(_string(file, strtab + offset) for offset in entries)


def _string(file: BinaryIO, at: int) -> str:
    file.seek(at)
    return file.read(256).split(b"\0", 1)[0].decode(errors="replace")
