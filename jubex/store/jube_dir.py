"""A run directory JUBE made (``bench_run/000042/``), read as plain data and trusted in nothing.

JUBE keeps a run in XML files: ``configuration.xml`` (the benchmark as it ran, tags applied),
``workpackages.xml`` (each workpackage's step, iteration, parents and the values its
parameters took) and ``analyse.xml`` (what each analyser found, per workpackage: JUBE
stores the statistics of every pattern, not the matches). A workpackage's state is in its
directory: a file ``done`` when it finished, ``error`` when a command failed, neither while
it waits (a ``done_file`` not yet there, a job still in the queue).

The directory may come from anyone, so each file is parsed as jubex parses definitions
(no entities, no network, no huge trees), every name that becomes part of a path must be
one plain name, numbers must be numbers, and each problem is an error naming the file, the
line and what was expected. Nothing here runs code or writes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from jubex.definition.xml_spelling import parse_xml
from jubex.errors import DefinitionError, JubexError, Loc

CONFIGURATION, WORKPACKAGES, ANALYSE = "configuration.xml", "workpackages.xml", "analyse.xml"
#: JUBE's states of a workpackage, as its directory shows them
DONE, ERROR, WAITING, OPEN = "done", "error", "waiting", "open"
#: bytes of an XML file read at most: a workpackages.xml of 10,000 workpackages has 8.3 MB
#: and is imported in 180 MB of memory (bench/bench_jube_import.py); 64 MiB would take ~1.4 GB
MAX_FILE = 64 * 1024 * 1024
#: characters of an ``error`` file kept as the reason a workpackage failed
MAX_REASON = 400
#: the largest workpackage id or iteration accepted (JUBE pads ids to six digits)
MAX_ID = 10**9
#: JUBE's tables as ``jube result`` wrote them: ``result/NAME.dat``
RESULT = "result"
#: bytes of one ``result/*.dat`` kept at most, and how many are kept
MAX_TABLE_FILE, MAX_TABLE_FILES = 64 * 1024 * 1024, 1000


class JubeRunError(JubexError):
    """A JUBE run directory that cannot be read: names the file, the line, what was expected."""

    exit_code = 2


@dataclass(frozen=True)
class JubeWorkpackage:
    """One workpackage as ``workpackages.xml`` and its directory tell it."""

    id: int
    step: str
    iteration: int
    #: its own parameters (a dependent step's come from its parents), values as JUBE kept them
    params: dict[str, str]
    #: the declared type of each parameter (``int``, ``float``, ``string``)
    types: dict[str, str]
    parents: tuple[int, ...]
    dir_name: str
    state: str
    reason: str = ""


@dataclass(frozen=True)
class JubeAnalysis:
    """What one analyser found in one workpackage (a reducing analyser: one per iteration group)."""

    analyser: str
    step: str
    wp: int
    values: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class JubeRun:
    dir: Path
    workpackages: tuple[JubeWorkpackage, ...]
    analyses: tuple[JubeAnalysis, ...]

    @property
    def configuration(self) -> Path:
        return self.dir / CONFIGURATION


def read_jube_run(path: Path) -> JubeRun:
    """The run directory at ``path`` (a JUBE run's ``bench_run/000042``)."""
    if not path.is_dir():
        raise JubeRunError(f"'{path}' is not a directory: give a JUBE run's directory")
    for name in (CONFIGURATION, WORKPACKAGES):
        if os.path.lexists(path / name) and not (path / name).is_file():
            raise JubeRunError(
                f"'{path / name}' is not a regular file (a JUBE run keeps its {name} as one)",
            )
        if not (path / name).is_file():
            raise JubeRunError(
                f"'{path}' holds no {name}, which every run directory JUBE makes holds",
                hint="give one run's directory, such as bench_run/000000",
            )
    wps = _workpackages(path)
    analyse = path / ANALYSE
    analyses = _analyses(analyse, {wp.id: wp for wp in wps}) if analyse.is_file() else ()
    return JubeRun(path, tuple(wps), tuple(analyses))


def table_files(run: Path) -> tuple[list[Path], list[str]]:
    """JUBE's tables of the run (``result/*.dat``, plain files of plain names within
    :data:`MAX_TABLE_FILE`), and a sentence for each file left out and why."""
    folder = run / RESULT
    if folder.is_symlink() or not folder.is_dir():
        return [], []
    kept: list[Path] = []
    left: list[str] = []
    for path in sorted(folder.glob("*.dat")):
        shown = f"{RESULT}/{path.name[:80]}"
        if not plain_name(path.name):
            left.append(f"{shown!r} is not a plain name")
        elif path.is_symlink() or not path.is_file():
            left.append(f"{shown} is not a plain file")
        elif path.stat().st_size > MAX_TABLE_FILE:
            left.append(f"{shown} has {path.stat().st_size:,} bytes, more than {MAX_TABLE_FILE:,}")
        elif len(kept) >= MAX_TABLE_FILES:
            left.append(f"{shown}: more than {MAX_TABLE_FILES} tables")
        else:
            kept.append(path)
    return kept, left


def read_root(path: Path) -> etree._Element:
    """The root element of one of the run's XML files, parsed safely (a link is refused)."""
    if path.is_symlink() or not path.is_file():
        raise JubeRunError(f"'{path}' is not a plain file")
    try:
        data = _read_regular(path)
    except OSError as exc:
        raise JubeRunError(f"cannot read '{path}': {exc.strerror}") from None
    try:
        return parse_xml(data, str(path))
    except DefinitionError as exc:
        raise JubeRunError(exc.message, exc.loc) from None


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE`, opened without blocking and
    without following a link, and checked again once open (it may have been swapped for a
    FIFO or a device since it was looked at)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise JubeRunError(f"'{path}' is not a regular file")
        if status.st_size > MAX_FILE:
            raise JubeRunError(
                f"'{path}' has {status.st_size:,} bytes, more than the {MAX_FILE:,} read of one "
                "file of a JUBE run (10,000 workpackages take about 8 MB)"
            )
        return file.read(MAX_FILE + 1)


def _expected(element: etree._Element, path: Path, what: str) -> JubeRunError:
    return JubeRunError(
        f"<{element.tag!s}>: expected {what}", Loc(str(path), element.sourceline or 0)
    )


def _number(element: etree._Element, attribute: str, path: Path, default: int | None = None) -> int:
    text = element.get(attribute)
    if text is None and default is not None:
        return default
    number = whole_number(text)
    if number is None:
        raise _expected(
            element, path, f"the attribute {attribute} as a whole number below {MAX_ID:,}"
        )
    return number


def whole_number(text: str | None) -> int | None:
    """``text`` as a whole number below :data:`MAX_ID`, else None: ASCII digits only, and no
    more of them than that takes (a number of 5,000 digits is not converted at all)."""
    digits = (text or "").strip()
    if not (digits.isascii() and digits.isdigit()) or len(digits.lstrip("0")) > len(str(MAX_ID)):
        return None
    number = int(digits)
    return number if number < MAX_ID else None


def plain_name(name: str) -> bool:
    """One path part: no separator, not ``.``/``..``, no control character."""
    return (
        name not in ("", ".", "..")
        and "/" not in name
        and "\\" not in name
        and name.isprintable()
        and len(name.encode()) <= 200
    )


def _workpackages(run: Path) -> list[JubeWorkpackage]:
    path = run / WORKPACKAGES
    root = read_root(path)
    if root.tag != "workpackages":
        raise _expected(root, path, "the root <workpackages>")
    wps: list[JubeWorkpackage] = []
    seen: set[int] = set()
    for element in root.iterchildren("workpackage"):
        wp = _workpackage(element, path, run)
        if wp.id in seen:
            raise _expected(element, path, f"one workpackage of id {wp.id}, not two")
        seen.add(wp.id)
        wps.append(wp)
    for wp in wps:
        for parent in wp.parents:
            if parent not in seen:
                raise JubeRunError(
                    f"workpackage {wp.id} names the parent {parent}, which the file does not hold",
                    Loc(str(path)),
                )
    return sorted(wps, key=lambda wp: wp.id)


def _workpackage(element: etree._Element, path: Path, run: Path) -> JubeWorkpackage:
    wp_id = _number(element, "id", path)
    step = element.find("step")
    if step is None or not (step.text or "").strip():
        raise _expected(element, path, "a <step> naming the workpackage's step")
    name = (step.text or "").strip()
    if not plain_name(name):
        raise _expected(step, path, f"a step name that is one plain name, not {name[:80]!r}")
    params: dict[str, str] = {}
    types: dict[str, str] = {}
    for parameter in element.iterfind("parameterset/parameter"):
        pname = parameter.get("name") or ""
        if not pname.isidentifier():
            raise _expected(parameter, path, f"a parameter name, not {pname[:80]!r}")
        chosen = parameter.find("selection")
        if chosen is None:
            chosen = parameter.find("value")
        params[pname] = ((chosen.text if chosen is not None else None) or "").strip()
        types[pname] = parameter.get("type") or "string"
    parents = element.findtext("parents") or ""
    read = [whole_number(p) for p in parents.split(",") if p.strip()]
    parent_ids = tuple(p for p in read if p is not None)
    if len(parent_ids) < len(read):
        raise _expected(
            element, path, f"<parents> as ids separated by commas, not {parents[:80]!r}"
        )
    dir_name, state, reason = _state(run, wp_id, name)
    return JubeWorkpackage(
        id=wp_id,
        step=name,
        iteration=_number(step, "iteration", path, default=0),
        params=params,
        types=types,
        parents=parent_ids,
        dir_name=dir_name,
        state=state,
        reason=reason,
    )


def _state(run: Path, wp_id: int, step: str) -> tuple[str, str, str]:
    """(directory name, state, reason) of a workpackage, from the files in its directory."""
    name = f"{wp_id:06d}_{step}"
    folder = run / name
    if not folder.is_dir():  # a step with a suffix: 000003_step_suffix
        found = sorted(
            entry.name
            for entry in os.scandir(run)
            if entry.name.startswith(f"{name}_") and entry.is_dir(follow_symlinks=False)
        )
        if not found:
            return name, OPEN, "not started when imported from JUBE"
        name = found[0]
        folder = run / name
    if folder.is_symlink():
        raise JubeRunError(f"'{folder}' is a link; a workpackage's directory is a directory")
    if _plain_file(folder / "done"):
        return name, DONE, ""
    if _plain_file(folder / "error"):
        return name, ERROR, _reason(folder / "error")
    return name, WAITING, "unfinished when imported from JUBE (started, no 'done' file)"


def _plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _reason(path: Path) -> str:
    """The first lines of JUBE's ``error`` file, on one line."""
    try:
        with path.open("rb") as f:
            text = f.read(MAX_REASON * 4).decode("utf-8", "replace")
    except OSError:
        return "failed in JUBE"
    said = " ".join(text.split())
    return "JUBE: " + (said[:MAX_REASON] + " ..." if len(said) > MAX_REASON else said)


def _analyses(path: Path, wps: dict[int, JubeWorkpackage]) -> list[JubeAnalysis]:
    root = read_root(path)
    if root.tag != "analyse":
        raise _expected(root, path, "the root <analyse>")
    found = []
    for analyser in root.iterchildren("analyser"):
        name = analyser.get("name") or ""
        for step in analyser.iterchildren("step"):
            step_name = step.get("name") or ""
            for element in step.iterchildren("workpackage"):
                wp_id = _number(element, "id", path)
                wp = wps.get(wp_id)
                if wp is None or wp.step != step_name:
                    raise _expected(
                        element,
                        path,
                        f"a workpackage of step '{step_name[:80]}' that workpackages.xml "
                        f"holds (id {wp_id} is not one)",
                    )
                values = tuple(_value(p, path) for p in element.iterchildren("pattern"))
                found.append(JubeAnalysis(name, step_name, wp_id, values))
    return found


def _value(element: etree._Element, path: Path) -> tuple[str, object]:
    """A pattern's value, typed as JUBE typed it (``nan`` stays a float)."""
    name = element.get("name") or ""
    if not name:
        raise _expected(element, path, "a pattern with a name")
    text = (element.text or "").strip()
    kind = element.get("type") or "string"
    if kind not in ("int", "float") or text == "":
        return name, text if kind not in ("int", "float") else None
    try:
        return name, int(text) if kind == "int" else float(text)
    except ValueError:
        try:
            return name, float(text)  # JUBE writes nan for an int pattern that found nothing
        except ValueError:
            raise _expected(element, path, f"a number of type {kind}, not {text[:80]!r}") from None
