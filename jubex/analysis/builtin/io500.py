"""IO500: the harness's stdout, its result_summary.txt and result.txt, and the verifier.

All of one run is one record: each phase's score under the phase's name (``ior-easy-write``
-> ``ior_easy_write``, GiB/s for IOR phases, kIOPS for the others) with its time and its
validity, the bandwidth, metadata and total scores, and whether the run is a valid IO500
submission (``valid``; when not, ``invalid_reason`` says why). An invalid run still
finished, so it is not a failed run; a run without its ``[SCORE ]`` line is, and so is one
whose score line is cut short (its ``[INVALID]`` mark may be what is missing), one that
lacks a phase every IO500 version runs, and an extended run without its ``[SCOREX]``.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from jubex.analysis.builtin import io500_early
from jubex.analysis.builtin.common import (
    FP,
    Collector,
    failure,
    line_at,
    metrics,
    snake,
    untag,
)
from jubex.analysis.builtin.io500_score import add_computed
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult

#: the scored phases of every IO500 version since ISC20, in the order they run
_REQUIRED = (
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
)
#: phases only extended mode runs (``--mode=extended``)
_EXTENDED = (
    "mdworkbench-create",
    "find-easy",
    "find-hard",
    "mdworkbench-bench",
    "mdworkbench-delete",
)
#: phases the SC21 extended mode ran and scored besides those
_EXTENDED_SC21 = ("ior-rnd4K-write", "ior-rnd1MB-write", "ior-rnd4K-read", "ior-rnd1MB-read")
_PHASES = (*_REQUIRED, "ior-rnd4K-easy-read", *_EXTENDED, *_EXTENDED_SC21)
_FINDS = ("find", "find-easy", "find-hard")
_VERSION = re.compile(r"^IO500 version (\S+)(?: \((\w+)\))?", re.MULTILINE)
#: ``[RESULT]``, ``[      ]`` (not scored), the bash harness's ``[RESULT-invalid]``; the bash
#: harness (2017-2020) writes ``BW   phase 1`` before the name and ``GB/s`` for GiB/s, ISC20
#: puts two blanks before the colon
_RESULT = re.compile(
    rf"^\[(RESULT|RESULT-invalid| {{6}})\]\s+(?:(?:BW|IOPS) +phase +\d+\s+)?(\S+)\s+({FP}) "
    rf"(GiB/s|GB/s|kIOPS|kiops)\s+: time\s+({FP}) seconds( \[INVALID\])?",
    re.MULTILINE,
)
_RESULT_START = re.compile(r"^\[(?:RESULT(?:-invalid)?| {6})\].*", re.MULTILINE)
#: ``[SCORE ]``/``[SCOREX]`` since SC20; ``[SCORE]`` in ISC20 and the bash harness, which
#: also wrote ``[SCORE-invalid]`` (and, in some copies, ``[SCORE-valid]``)
_SCORE = re.compile(
    rf"^\[(SCORE ?|SCOREX|SCORE-invalid|SCORE-valid)\] Bandwidth ({FP}) (?:GiB/s|GB/s) : "
    rf"IOPS ({FP}) kiops : TOTAL ({FP})( \[INVALID\])?",
    re.MULTILINE,
)
#: IO500 reports bandwidth in GiB/s whatever it prints: the bash harness divides IOR's MiB/s
#: by 1024 and labels it GB/s, ISC20's score line says GB/s for the GiB/s of its phases
_UNITS = {"GiB/s": "GiB/s", "GB/s": "GiB/s", "kIOPS": "kIOPS", "kiops": "kIOPS"}
_INVALID = re.compile(r"^(?:ERROR INVALID \([^)]*\)|; ERROR INVALID) (.*?)\s*$", re.MULTILINE)
#: the 2018 harness's verdict on the phase whose result line follows (a write phase shorter
#: than 5 minutes): that phase, and so the run, is not an official IO500 result
_NOT_OFFICIAL = re.compile(r"^\[Warning\] (This cannot be official score\b.*?)\s*$", re.MULTILINE)
_TOO_SHORT = re.compile(
    rf"This cannot be official score\. The runtime of ({FP}) seconds is below 5 minutes"
)
#: result.txt: a ``key = value`` line only its phase sections (or the ``[run]`` section) hold
_INI = re.compile(r"^(?:t_start|t_delta|procs)\s*=", re.MULTILINE)
_SECTION = re.compile(r"^\[([\w-]+)\]\s*$")
_PAIR = re.compile(r"^([\w-]+)\s*=\s*(.*?)\s*$")
_VERIFIED = re.compile(r"^\[(OK|ERROR)\][ \t]*(.*)$", re.MULTILINE)
_CLUES = ("ERROR",)
_ERRORS = re.compile(r"^ERROR\b(?! INVALID)", re.MULTILINE)


def _metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for phase in _PHASES:
        name, unit = snake(phase), "GiB/s" if phase.startswith("ior") else "kIOPS"
        out |= {
            name: _per_run(unit, True, f"score of the {phase} phase"),
            f"{name}_time": _per_run("s", None, f"runtime of the {phase} phase"),
            f"{name}_valid": Metric("", None, f"False when IO500 marked {phase} [INVALID]"),
        }
    for phase in (p for p in _PHASES if p.endswith("-write")):
        if phase.startswith("ior"):
            out[f"{snake(phase)}_stonewall"] = Metric("GiB/s", True, "throughput until stonewall")
        else:
            out[f"{snake(phase)}_stonewall"] = Metric("kIOPS", True, "rate until the stonewall")
    for phase in _FINDS:
        out[f"{snake(phase)}_found"] = Metric("", None, f"files the {phase} phase found")
        out[f"{snake(phase)}_total_files"] = Metric("", None, f"files {phase} looked at")
    out |= {
        "mdreal_io": _per_run("kIOPS", True, "rate of the unscored md-real-io phase (2017)"),
        "mdreal_io_time": _per_run("s", None, "runtime of the md-real-io phase (2017)"),
    }
    return metrics(
        out,
        {
            "score": _per_run("", True, "IO500 score as the harness printed it"),
            "score_computed": _per_run(
                "", True, "geometric mean of score_bw and score_md, computed by jubex"
            ),
            "score_note": Metric("", None, "how the printed score differs from score_computed"),
            "score_bw": _per_run("GiB/s", True, "bandwidth score"),
            "score_md": _per_run("kIOPS", True, "metadata score"),
            "valid": Metric("", None, "True for a valid IO500 submission"),
            "invalid_reason": Metric("", None, "why IO500 marked the run invalid"),
            "score_x": _per_run("", True, "extended-mode score as printed"),
            "score_x_computed": _per_run(
                "", True, "geometric mean of score_x_bw and score_x_md, computed by jubex"
            ),
            "score_x_bw": _per_run("GiB/s", True, "extended-mode bandwidth score"),
            "score_x_md": _per_run("kIOPS", True, "extended-mode metadata score"),
            "valid_x": Metric("", None, "True for a valid extended-mode run"),
            "tasks": Metric("", None, "MPI processes (result.txt 'procs')"),
            "version": Metric("", None, "IO500 harness version"),
            "mode": Metric("", None, "standard or extended"),
            "config_hash": Metric("", None, "hash of the effective configuration"),
            "score_hash": Metric("", None, "hash over the scores"),
            "verified": Metric("", None, "True when io500 --verify accepted the hashes"),
        },
    )


def _per_run(unit: str, higher: bool | None, help: str) -> Metric:
    """A score or time of each run the output holds: a job log of several IO500 runs gives
    a sample of each, as IOR's iterations do (IO500 runs each phase once per run)."""
    return Metric(unit, higher, f"{help}, one value per run", repeated=True)


METRICS = _metrics()


def parse(text: str) -> ParseResult:
    text = untag(text)
    if _INI.search(text):
        return _parse_result_ini(text)
    if io500_early.is_prerelease(text):
        return io500_early.parse_prerelease(Collector(METRICS), text)
    if io500_early.is_app(text) and not _VERSION.search(text):
        return io500_early.parse_app(Collector(METRICS), text)
    if _VERIFIED.search(text) and not _SCORE.search(text):
        return _parse_verify(text)
    return _parse_stdout(text)


def _parse_stdout(text: str) -> ParseResult:
    out = Collector(METRICS)
    version = _VERSION.search(text)
    if version:
        out.add("version", version[1])
        if version[2]:
            out.add("mode", version[2])
    invalid: list[str] = []
    phases: set[str] = set()
    printed: set[tuple[int, str]] = set()
    ends = [m.start() for m in _SCORE.finditer(text)]  # a run ends with its score line
    warnings = list(_NOT_OFFICIAL.finditer(text))
    for warning in warnings:
        _check_warning(warning, out)
    warned = [w.start() for w in warnings]
    for start in _RESULT_START.finditer(text):
        match = _RESULT.match(text, start.start())
        if match is None:
            line = line_at(text, start.start())
            out.problem(f"a result line IO500 does not print so: {start[0][:60]!r}", line)
            continue
        key = (bisect.bisect(ends, match.start()), match[0])
        if match[2] == "timestamp" or key in printed:
            continue  # the bash harness prints every result line of a run again at its end
        printed.add(key)
        name, line = snake(match[2]), line_at(text, match.start())
        phases.add(name)
        out.number(name, match[3], unit=_UNITS[match[4]], line=line)
        out.number(f"{name}_time", match[5], unit="s", line=line)
        valid = not match[6] and match[1] != "RESULT-invalid" and not _warned(warned, match)
        out.add(f"{name}_valid", valid, unit="")
        if not valid:
            invalid.append(match[2])
    scores = _scores(text, out, {bisect.bisect(ends, at) for at in warned})
    _validity(text, invalid, out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and not version and not phases:
        reason = "not IO500 output: no 'IO500 version' line and no [RESULT] lines"
    elif not reason:
        extended = version is not None and version[2] == "extended"
        reason = _unfinished(scores, phases, extended, "[SCORE ] line", "[SCOREX] line")
    return out.result(reason)


def _check_warning(warning: re.Match[str], out: Collector) -> None:
    """Check the numbers of a "cannot be official" warning (it is quoted as the reason)."""
    line = line_at(warning.string, warning.start())
    if (short := _TOO_SHORT.fullmatch(warning[1])) is not None:
        out.value("invalid_reason", short[1], line)
    elif any(c.isdigit() for c in warning[1]):
        out.problem(f"a warning IO500 does not print so: {warning[0][:60]!r}", line)


def _warned(warned: list[int], result: re.Match[str]) -> bool:
    """Whether a "cannot be official" warning stands right before this result line (after
    the result line before it): the harness prints it as the phase ends."""
    at = bisect.bisect(warned, result.start())
    if at == 0:
        return False
    return _RESULT_START.search(result.string, warned[at - 1], result.start()) is None


def _scores(text: str, out: Collector, warned_runs: set[int]) -> dict[str, str]:
    """Add the score lines' values; what is wrong with each kind of score line (or ``""``).

    ``score`` is the TOTAL as printed: the harness of 2017-2018 printed bandwidth times IOPS
    there, later ones their geometric mean, which ``score_computed`` always is. A run with a
    "cannot be official" warning (``warned_runs``: the indices of such runs) is not valid.
    """
    scores: dict[str, str] = {}
    for run, score in enumerate(_SCORE.finditer(text)):
        kind, line = score[1].strip(), line_at(text, score.start())
        suffix = "_x" if kind == "SCOREX" else ""
        names = (f"score{suffix}_bw", f"score{suffix}_md", f"score{suffix}")
        bw, md, total = (out.value(name, score[i], line) for i, name in enumerate(names, 2))
        for name, value in zip(names, (bw, md, total), strict=True):
            out.add(name, None if value is None else float(value))
        add_computed(out, suffix, bw, md, total)
        valid = not score[5] and kind != "SCORE-invalid" and run not in warned_runs
        out.add(f"valid{suffix}", valid)
        scores["SCOREX" if suffix else "SCORE"] = _rest(text, score.end(), line)
    return scores


def _rest(text: str, end: int, line: int) -> str:
    """What is wrong with the rest of a score line: ``""`` when it is whole and ends there."""
    stop = text.find("\n", end)
    if stop < 0:
        return f"line {line}: the score line is cut short (truncated run?)"
    if text[end:stop].strip():
        return f"line {line}: unexpected text after the score: {text[end:stop].strip()[:40]!r}"
    return ""


def _unfinished(
    scores: dict[str, str], phases: set[str], extended: bool, score: str, score_x: str
) -> str:
    """Why a run with these scores (kind -> problem) and phases did not finish, or ``""``."""
    if "SCORE" not in scores:
        return f"no {score}: the IO500 run did not finish (truncated run?)"
    if extended and "SCOREX" not in scores:
        return f"an extended-mode run without its {score_x} (truncated run?)"
    missing = [phase for phase in _REQUIRED if snake(phase) not in phases]
    if missing:
        return f"no result for the phase(s) {', '.join(missing)}"
    if extended and (absent := [phase for phase in _EXTENDED if snake(phase) not in phases]):
        return f"an extended-mode run without the phase(s) {', '.join(absent)}"
    return "; ".join(problem for problem in scores.values() if problem)


def _validity(text: str, phases: list[str], out: Collector) -> None:
    """``invalid_reason``: IO500's own ERROR INVALID messages and the phases it marked."""
    if all(m.value for m in out.measurements if m.name == "valid"):
        return
    messages = list(dict.fromkeys([*_INVALID.findall(text), *_NOT_OFFICIAL.findall(text)]))
    if phases:
        messages.append(f"invalid phases: {', '.join(phases)}")
    out.add("invalid_reason", "; ".join(messages) or "IO500 marked the score [INVALID]")


def _parse_result_ini(text: str) -> ParseResult:
    """result.txt: ``[section]`` per phase with ``score``, ``t_delta``, comments; ``[SCORE]``.

    IO500 ends every line it writes with a newline: a last line without one was cut, so it
    is not read, and a ``[SCORE]`` (or extended ``[SCOREX]``) section needs its closing
    ``hash`` line to count as written in full.
    """
    out = Collector(METRICS)
    sections: dict[str, dict[str, tuple[str, int]]] = {}
    invalid: dict[str, bool] = {}
    current = "run"  # ISC20 writes the run's keys before any section
    sections[current] = {}
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if not line.endswith(("\n", "\r")):
            break
        if (section := _SECTION.match(line)) is not None:
            current = section[1]
            sections[current] = {}
        elif (pair := _PAIR.match(line)) is not None:
            sections[current].setdefault(pair[1], (pair[2], number))
        elif line.startswith("; ERROR INVALID"):
            invalid[current] = True
    run = sections.pop("run", {})
    for key, name in (("version", "version"), ("mode", "mode"), ("config-hash", "config_hash")):
        if key in run:
            out.add(name, run[key][0])
    if "procs" in run:
        out.number("tasks", run["procs"][0], line=run["procs"][1])
    scores = {}
    for suffix, kind in (("", "SCORE"), ("_x", "SCOREX")):
        if kind in sections:
            values = sections.pop(kind)
            _ini_score(values, suffix, out)
            scores[kind] = "" if "hash" in values else f"the [{kind}] section is cut short"
    for phase, values in sections.items():
        _ini_phase(phase, values, not invalid.get(phase), out)
    _validity(text, [p for p in invalid if p != "run"], out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason:
        phases = {snake(phase) for phase, values in sections.items() if "score" in values}
        extended = run.get("mode", ("",))[0] == "extended"
        reason = _unfinished(scores, phases, extended, "[SCORE] section", "[SCOREX] section")
    return out.result(reason)


def _ini_score(values: dict[str, tuple[str, int]], suffix: str, out: Collector) -> None:
    text, line = values.get("SCORE", ("", 0))
    score = re.fullmatch(rf"({FP})(\s*\[INVALID\])?", text)
    printed: dict[str, float | None] = {}
    if score:
        printed[""] = out.value(f"score{suffix}", score[1], line)
        out.add(f"valid{suffix}", not score[2])
    elif "SCORE" in values:
        out.problem(f"the score is {text[:40]!r}, not a number", line)
    for key, name in (("BW", "_bw"), ("MD", "_md")):
        if key in values:
            printed[name] = out.value(f"score{suffix}{name}", values[key][0], values[key][1])
    for name, value in printed.items():
        out.add(f"score{suffix}{name}", None if value is None else float(value))
    add_computed(out, suffix, printed.get("_bw"), printed.get("_md"), printed.get(""))
    if "hash" in values and not suffix:
        out.add("score_hash", values["hash"][0])


def _ini_phase(phase: str, values: dict[str, tuple[str, int]], valid: bool, out: Collector) -> None:
    name = snake(phase)
    unit = "GiB/s" if phase.startswith("ior") else "kIOPS"
    if "score" in values:
        out.number(name, values["score"][0], unit=unit, line=values["score"][1])
        out.add(f"{name}_valid", valid, unit="")
        if "t_delta" in values:
            out.number(f"{name}_time", values["t_delta"][0], unit="s", line=values["t_delta"][1])
    for key in ("throughput-stonewall", "rate-stonewall"):
        if key in values:
            out.number(f"{name}_stonewall", values[key][0], unit=unit, line=values[key][1])
    for key in ("found", "total-files"):
        if key in values:
            out.number(f"{name}_{snake(key)}", values[key][0], unit="", line=values[key][1])


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
    if verdict.end() == len(text):  # the verifier ends its verdict with a newline
        return out.result("the verifier's verdict line is cut short (truncated run?)")
    out.add("verified", verdict[1] == "OK")
    if "invalid run" in verdict[2]:
        out.add("valid", False)
        out.add("invalid_reason", f"the verifier says: {verdict[2]}")
    elif verdict[1] == "OK":
        out.add("valid", True)
    return out.result("" if verdict[1] == "OK" else f"verification failed: {verdict.group(0)}")


#: the phases in the order the harness runs them (standard and extended mode)
_RUN_ORDER = (
    "ior-easy-write",
    "ior-rnd4K-write",
    "mdtest-easy-write",
    "ior-rnd1MB-write",
    "mdworkbench-create",
    "find-easy",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-rnd4K-read",
    "ior-rnd1MB-read",
    "find-hard",
    "mdworkbench-bench",
    "ior-easy-read",
    "ior-rnd4K-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdworkbench-delete",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
)


def explain(path: Path, reason: str) -> str:
    """Why a failed IO500 run failed, from the output file of the phase it stopped in.

    The harness writes each phase's output to ``<phase>.txt`` in its result directory
    (``results/<time>/``) as the phase runs; its stdout then holds at most the MPI
    launcher's chatter. The last phase in run order that has an output file is the one the
    run stopped in; when IOR or mdtest says that output failed, that is the reason.
    """
    folder = path.parent if path.parent.parent.name == "results" else None
    if folder is None:
        folders = sorted(p for p in (path.parent / "results").glob("*") if p.is_dir())
        folder = folders[-1] if folders else None
    if folder is None:
        return ""
    started = [p for p in _RUN_ORDER if (folder / f"{p}.txt").is_file()]
    if not started:
        return ""
    phase = started[-1]
    output = folder / f"{phase}.txt"
    if phase.startswith("find"):
        return ""
    try:
        text = output.read_text(errors="replace")
    except OSError:
        return ""
    from jubex.analysis.builtin import get  # the phases are IOR and mdtest runs

    failed = get("ior" if phase.startswith("ior") else "mdtest").parse(text)
    if failed.ok:
        return ""
    where = output.relative_to(path.parent).as_posix()
    return f"the {phase} phase failed ({where}): {failed.reason}"


ANALYSER = BuiltinAnalyser(
    name="io500",
    description="IO500 harness stdout, result_summary.txt, result.txt and verifier output",
    parse=parse,
    metrics=METRICS,
    default_files=("stdout", "results/*/result.txt", "result.txt", "result_summary.txt"),
    explain=explain,
)
