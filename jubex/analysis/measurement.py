"""What leaves an analyser: named values that carry their unit, or say they are missing."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path

from jubex.plain import dataclass
from jubex.store.measurement import Measurement


@dataclass(frozen=True)
class Metric:
    """What a built-in analyser may produce under a name: unit, direction, help text."""

    unit: str = ""
    higher_is_better: bool | None = None
    help: str = ""
    #: one value per iteration: the harvest adds its statistics (``write_bw_max``, ...)
    repeated: bool = False
    #: the program's own summary over repetitions it prints no value of, each: the metric
    #: named here counts them (mdtest's ``iterations``, fio's ``loops``); a table says so
    summary_over: str = ""


@dataclass
class ParseResult:
    """Everything one output gave; ``ok`` is False for a failed or truncated run."""

    measurements: list[Measurement] = field(default_factory=list)
    ok: bool = True
    reason: str = ""


@dataclass(frozen=True)
class BuiltinAnalyser:
    """A ready analyser for a known benchmark program, usable by name in definitions."""

    name: str
    description: str
    parse: Callable[[str], ParseResult]
    metrics: dict[str, Metric]
    #: files of a work directory it reads by default (globs), in order of preference
    default_files: tuple[str, ...] = ("stdout",)
    #: why a failed run failed, from the files beside the one read (a harness's phase
    #: outputs): ``(path read, reason) -> reason``, ``""`` when they say nothing more
    explain: Callable[[Path, str], str] | None = None
    #: for a binary file (a Darshan log): reads it by path, with the workpackage's
    #: parameters, instead of ``parse`` reading its text
    read: Callable[[Path, Mapping[str, object]], ParseResult] | None = None
