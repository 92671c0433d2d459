"""IO500: the harness's stdout, its result_summary.txt and result.txt, and the verifier.

All of one run is one record: each phase's score under the phase's name (``ior-easy-write``
-> ``ior_easy_write``, GiB/s for IOR phases, kIOPS for the others) with its time and its
validity, the bandwidth, metadata and total scores, and whether the run is a valid IO500
submission (``valid``; when not, ``invalid_reason`` says why). An invalid run still
finished, so it is not a failed run; a run without its ``[SCORE ]`` line is.
"""

from __future__ import annotations

import re

from jubex.analysis.builtin.common import FP, Collector, failure, metrics, snake, untag
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult

_PHASES = (
    "ior-easy-write",
    "mdtest-easy-write",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
    "ior-rnd4K-easy-read",
)
_VERSION = re.compile(r"^IO500 version (\S+) \((\w+)\)", re.MULTILINE)
_RESULT = re.compile(
    rf"^\[(RESULT| {{6}})\]\s+(\S+)\s+({FP}) (GiB/s|kIOPS) : time ({FP}) seconds( \[INVALID\])?",
    re.MULTILINE,
)
_SCORE = re.compile(
    rf"^\[(SCORE |SCOREX)\] Bandwidth ({FP}) GiB/s : IOPS ({FP}) kiops : TOTAL ({FP})"
    r"( \[INVALID\])?",
    re.MULTILINE,
)
_INVALID = re.compile(r"^(?:ERROR INVALID \([^)]*\)|; ERROR INVALID) (.*?)\s*$", re.MULTILINE)
_SECTION = re.compile(r"^\[([\w-]+)\]\s*$")
_PAIR = re.compile(r"^([\w-]+)\s*=\s*(.*?)\s*$")
_VERIFIED = re.compile(r"^\[(OK|ERROR)\]\s*(.*)$", re.MULTILINE)
_CLUES = ("ERROR",)
_ERRORS = re.compile(r"^ERROR\b(?! INVALID)", re.MULTILINE)


def _metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for phase in _PHASES:
        name, unit = snake(phase), "GiB/s" if phase.startswith("ior") else "kIOPS"
        out |= {
            name: Metric(unit, True, f"score of the {phase} phase"),
            f"{name}_time": Metric("s", None, f"runtime of the {phase} phase"),
            f"{name}_valid": Metric("", None, f"False when IO500 marked {phase} [INVALID]"),
        }
    for phase in ("ior-easy-write", "ior-hard-write"):
        out[f"{snake(phase)}_stonewall"] = Metric("GiB/s", True, "throughput until the stonewall")
    for phase in ("mdtest-easy-write", "mdtest-hard-write"):
        out[f"{snake(phase)}_stonewall"] = Metric("kIOPS", True, "rate until the stonewall")
    return metrics(
        out,
        {
            "find_found": Metric("", None, "files the find phase found"),
            "find_total_files": Metric("", None, "files the find phase looked at"),
            "score": Metric("", True, "IO500 score: geometric mean of score_bw and score_md"),
            "score_bw": Metric("GiB/s", True, "bandwidth score"),
            "score_md": Metric("kIOPS", True, "metadata score"),
            "valid": Metric("", None, "True for a valid IO500 submission"),
            "invalid_reason": Metric("", None, "why IO500 marked the run invalid"),
            "score_x": Metric("", True, "extended-mode score"),
            "score_x_bw": Metric("GiB/s", True, "extended-mode bandwidth score"),
            "score_x_md": Metric("kIOPS", True, "extended-mode metadata score"),
            "valid_x": Metric("", None, "True for a valid extended-mode run"),
            "tasks": Metric("", None, "MPI processes (result.txt 'procs')"),
            "version": Metric("", None, "IO500 harness version"),
            "mode": Metric("", None, "standard or extended"),
            "config_hash": Metric("", None, "hash of the effective configuration"),
            "score_hash": Metric("", None, "hash over the scores"),
            "verified": Metric("", None, "True when io500 --verify accepted the hashes"),
        },
    )


METRICS = _metrics()


def parse(text: str) -> ParseResult:
    text = untag(text)
    if re.search(r"^\[run\]\s*$", text, re.MULTILINE) and re.search(
        r"^procs\s*=", text, re.MULTILINE
    ):
        return _parse_result_ini(text)
    if _VERIFIED.search(text) and not _SCORE.search(text):
        return _parse_verify(text)
    return _parse_stdout(text)


def _parse_stdout(text: str) -> ParseResult:
    out = Collector(METRICS)
    version = _VERSION.search(text)
    if version:
        out.add("version", version[1])
        out.add("mode", version[2])
    reasons: list[str] = []
    for match in _RESULT.finditer(text):
        if match[2] == "timestamp":
            continue
        name, unit = snake(match[2]), match[4]
        out.add(name, float(match[3]), unit=unit)
        out.add(f"{name}_time", float(match[5]), unit="s")
        out.add(f"{name}_valid", not match[6], unit="")
        if match[6]:
            reasons.append(match[2])
    for score in _SCORE.finditer(text):
        suffix = "_x" if score[1] == "SCOREX" else ""
        out.add(f"score{suffix}", float(score[4]))
        out.add(f"score{suffix}_bw", float(score[2]))
        out.add(f"score{suffix}_md", float(score[3]))
        out.add(f"valid{suffix}", not score[5])
    _validity(text, reasons, out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and not version and not _RESULT.search(text):
        reason = "not IO500 output: no 'IO500 version' line and no [RESULT] lines"
    elif not reason and not _SCORE.search(text):
        reason = "no [SCORE ] line: the IO500 run did not finish (truncated run?)"
    return out.result(reason)


def _validity(text: str, phases: list[str], out: Collector) -> None:
    """``invalid_reason``: IO500's own ERROR INVALID messages and the phases it marked."""
    if all(m.value for m in out.measurements if m.name == "valid"):
        return
    messages = list(dict.fromkeys(_INVALID.findall(text)))
    if phases:
        messages.append(f"invalid phases: {', '.join(phases)}")
    out.add("invalid_reason", "; ".join(messages) or "IO500 marked the score [INVALID]")


def _parse_result_ini(text: str) -> ParseResult:
    """result.txt: ``[section]`` per phase with ``score``, ``t_delta``, comments; ``[SCORE]``."""
    out = Collector(METRICS)
    sections: dict[str, dict[str, str]] = {}
    invalid: dict[str, bool] = {}
    current = ""
    for line in text.splitlines():
        if (section := _SECTION.match(line)) is not None:
            current = section[1]
            sections[current] = {}
        elif (pair := _PAIR.match(line)) is not None and current:
            sections[current].setdefault(pair[1], pair[2])
        elif line.startswith("; ERROR INVALID") and current:
            invalid[current] = True
    run = sections.pop("run", {})
    for key, name in (("procs", "tasks"), ("version", "version"), ("mode", "mode")):
        if key in run:
            out.add(name, int(run[key]) if key == "procs" else run[key])
    if "config-hash" in run:
        out.add("config_hash", run["config-hash"])
    for suffix, section in (("", "SCORE"), ("_x", "SCOREX")):
        _ini_score(sections.pop(section, None), suffix, out)
    for phase, values in sections.items():
        _ini_phase(phase, values, not invalid.get(phase), out)
    _validity(text, [p for p in invalid if p != "run"], out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and not any(m.name == "score" for m in out.measurements):
        reason = "no [SCORE] section: the IO500 run did not finish (truncated run?)"
    return out.result(reason)


def _ini_score(values: dict[str, str] | None, suffix: str, out: Collector) -> None:
    if values is None:
        return
    score = re.match(rf"({FP})(\s*\[INVALID\])?", values.get("SCORE", ""))
    if score:
        out.add(f"score{suffix}", float(score[1]))
        out.add(f"valid{suffix}", not score[2])
    for key, name in (("BW", "bw"), ("MD", "md")):
        if key in values:
            out.add(f"score{suffix}_{name}", float(values[key]))
    if "hash" in values and not suffix:
        out.add("score_hash", values["hash"])


def _ini_phase(phase: str, values: dict[str, str], valid: bool, out: Collector) -> None:
    name = snake(phase)
    unit = "GiB/s" if phase.startswith("ior") else "kIOPS"
    if "score" in values:
        out.add(name, float(values["score"]), unit=unit)
        out.add(f"{name}_valid", valid, unit="")
    if "t_delta" in values and "score" in values:
        out.add(f"{name}_time", float(values["t_delta"]), unit="s")
    for key in ("throughput-stonewall", "rate-stonewall"):
        if key in values:
            out.add(f"{name}_stonewall", float(values[key]), unit=unit)
    for key in ("found", "total-files"):
        if key in values and values[key].isdigit():
            out.add(f"{name}_{snake(key)}", int(values[key]))


def _parse_verify(text: str) -> ParseResult:
    """``io500 --verify`` / ``io500-verify``: the recomputed hashes and the verdict."""
    out = Collector(METRICS)
    for key, name in (("config-hash", "config_hash"), ("score-hash", "score_hash")):
        match = re.search(rf"^{key}\s*=\s*(\S+)", text, re.MULTILINE)
        if match:
            out.add(name, match[1])
    version = re.search(r"^(?:version|result file ver)\s*=\s*(\S+)", text, re.MULTILINE)
    if version:
        out.add("version", version[1])
    verdict = _VERIFIED.search(text)
    assert verdict is not None
    out.add("verified", verdict[1] == "OK")
    if "invalid run" in verdict[2]:
        out.add("valid", False)
        out.add("invalid_reason", f"the verifier says: {verdict[2]}")
    elif verdict[1] == "OK":
        out.add("valid", True)
    return out.result("" if verdict[1] == "OK" else f"verification failed: {verdict.group(0)}")


ANALYSER = BuiltinAnalyser(
    name="io500",
    description="IO500 harness stdout, result_summary.txt, result.txt and verifier output",
    parse=parse,
    metrics=METRICS,
    default_files=("stdout", "results/*/result.txt", "result.txt", "result_summary.txt"),
)
