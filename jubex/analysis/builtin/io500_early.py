"""IO500 before its 2018 harness: the pre-release scripts of 2017 and the first C application.

The pre-release scripts (``io_500_core.sh``, mid 2017) print one line per phase, ``1/ior-easy-
write BW:794393.97 MB/s time: 420s``, ``1/md-easy-create IOPs:28320.444 time:313s``, then
``IO-500 bw score: ... MB/s``, ``IO-500 md score: ... IOPS`` and ``IO-500 score: ...``,
their product. They run eleven scored phases (no mdtest-hard-read) and an unscored
md-real-io. Bandwidth is IOR's ``MB/sec`` (powers of 1000), rates are operations per second.
They warn of every phase shorter than 5 minutes, reads as well, but judge no validity.

The first C application (``io500-app``, late 2017) prints ``[Result] IOR ior_easy_write bw:
118.047 GiB/s time: 1084.3s ...`` and ``[Result] mdtest mdtest_easy_create rate: 17.917 kiops
time: 559.5s`` as each phase ends and all of them again under ``=== IO-500 submission ===``
when the run completes; that block is what is read. It prints no score and no validity.
"""

from __future__ import annotations

import re

from jubex.analysis.builtin.common import FP, Collector, line_at, snake
from jubex.analysis.builtin.io500_score import add_computed
from jubex.analysis.measurement import ParseResult

#: a pre-release phase line; the name may carry ``(serial)`` or ``(parallel)``
_PRE_RESULT = re.compile(
    rf"^\d+/([\w-]+)(?: \((?:serial|parallel)\))? (BW|IOPs):\s*({FP})(?: MB/s)? time:\s*({FP})s$",
    re.MULTILINE,
)
_PRE_START = re.compile(r"^\d+/[\w-]+(?: \(\w+\))? (?:BW|IOPs):", re.MULTILINE)
_PRE_SCORE = re.compile(
    rf"^IO-500 bw score: ({FP}) MB/s\n+IO-500 md score: ({FP}) IOPS\n+IO-500 score: +({FP})\n",
    re.MULTILINE,
)
#: the pre-release phases and the name each has since
_PRE_NAMES = {
    "ior-easy-write": "ior_easy_write",
    "md-easy-create": "mdtest_easy_write",
    "ior-hard-write": "ior_hard_write",
    "md-hard-create": "mdtest_hard_write",
    "ior-easy-read": "ior_easy_read",
    "md-easy-stat": "mdtest_easy_stat",
    "ior-hard-read": "ior_hard_read",
    "md-hard-stat": "mdtest_hard_stat",
    "find": "find",
    "md-easy-delete": "mdtest_easy_delete",
    "md-hard-delete": "mdtest_hard_delete",
    "md-real-io": "mdreal_io",
}
_PRE_SCORED = tuple(name for name in _PRE_NAMES.values() if name != "mdreal_io")
#: MB/s (IOR's MB/sec, powers of 1000) in GiB/s
_MB_IN_GIB = 1e6 / 2**30

_APP_START = re.compile(r"^=== IO-500 submission ===\n", re.MULTILINE)
_APP_RESULT = re.compile(
    rf"^\[Result\] (?:IOR (\w+) bw: ({FP}) GiB/s|mdtest (\w+) rate: ({FP}) kio?ops"
    rf"|(find(?:-easy|-hard)?) rate: ({FP}) kiops(?:/s)?) time: ({FP})s"
    rf"(?: err: \d+ found: (\d+) \(scanned (\d+) files\))?[^\n]*\n",
    re.MULTILINE,
)
_APP_NAMES = {"mdtest_easy_create": "mdtest_easy_write", "mdtest_hard_create": "mdtest_hard_write"}
_APP_SCORED = (
    "ior_easy_write",
    "ior_easy_read",
    "ior_hard_write",
    "ior_hard_read",
    "mdtest_easy_write",
    "mdtest_easy_stat",
    "mdtest_easy_delete",
    "mdtest_hard_write",
    "mdtest_hard_read",
    "mdtest_hard_stat",
    "mdtest_hard_delete",
)
_APP_ERROR = re.compile(r"^IO500 error: .*$", re.MULTILINE)


def is_prerelease(text: str) -> bool:
    return _PRE_START.search(text) is not None


_APP_LINE = re.compile(r"^(?:\[Result\] (?:IOR|mdtest|find)|IO500 starting: )", re.MULTILINE)


def is_app(text: str) -> bool:
    """Whether ``text`` is the first C application's (later versions print ``IO500 version``)."""
    return _APP_LINE.search(text) is not None


def parse_prerelease(out: Collector, text: str) -> ParseResult:
    """A pre-release script's output: its phase lines and its three score lines."""
    phases: set[str] = set()
    for start in _PRE_START.finditer(text):
        end = text.find("\n", start.start())
        match = _PRE_RESULT.match(text, start.start(), len(text) if end < 0 else end)
        line = line_at(text, start.start())
        name = _PRE_NAMES.get(match[1]) if match else None
        if match is None or name is None or end < 0:
            shown = text[start.start() : start.start() + 60].partition("\n")[0]
            out.problem(f"a result line the pre-release harness does not print so: {shown!r}", line)
            continue
        bandwidth = match[2] == "BW"
        if bandwidth != name.startswith("ior") or name in phases:
            out.problem(f"a {match[2]} line for {match[1]} is not what the harness prints", line)
            continue
        phases.add(name)
        unit = "GiB/s" if bandwidth else "kIOPS"
        out.number(name, match[3], unit=unit, line=line, scale=_MB_IN_GIB if bandwidth else 1e-3)
        out.number(f"{name}_time", match[4], unit="s", line=line)
    score = _PRE_SCORE.search(text)
    if score is not None:
        line = line_at(text, score.start())
        bw = out.value("score_bw", score[1], line)
        md = out.value("score_md", score[2], line)
        total = out.value("score", score[3], line)
        bw = None if bw is None else bw * _MB_IN_GIB
        md = None if md is None else md / 1000
        for name, value in (("score_bw", bw), ("score_md", md), ("score", total)):
            out.add(name, None if value is None else float(value))
        add_computed(out, "", bw, md, total, "bandwidth in MB/s x IOPS")
    missing = [name for name in _PRE_SCORED if name not in phases]
    if score is None:
        reason = "no 'IO-500 score:' line: the pre-release run did not finish (truncated run?)"
    elif missing:
        reason = f"no result for the phase(s) {', '.join(missing)}"
    else:
        reason = ""
    return out.result(reason)


def parse_app(out: Collector, text: str) -> ParseResult:
    """The first C application's output: the results under ``=== IO-500 submission ===``."""
    error = _APP_ERROR.search(text)
    block = _APP_START.search(text)
    if error is not None:
        return out.result(error[0].strip())
    if block is None:
        return out.result(
            "no '=== IO-500 submission ===' block: the IO500 run did not finish (truncated run?)"
        )
    phases: set[str] = set()
    for match in _APP_RESULT.finditer(text, block.end()):
        line = line_at(text, match.start())
        raw = match[1] or match[3] or match[5]
        name = _APP_NAMES.get(raw, snake(raw))
        if name in phases:
            out.problem(f"{raw} twice in the submission block", line)
            continue
        phases.add(name)
        unit = "GiB/s" if match[1] else "kIOPS"
        out.number(name, match[2] or match[4] or match[6], unit=unit, line=line)
        out.number(f"{name}_time", match[7], unit="s", line=line)
        if match[8] is not None:
            out.number(f"{name}_found", match[8], unit="", line=line)
            out.number(f"{name}_total_files", match[9], unit="", line=line)
    finds = ("find",) if "find" in phases else ("find_easy", "find_hard")
    missing = [name for name in (*_APP_SCORED, *finds) if name not in phases]
    reason = ""
    if missing:
        reason = f"the submission block has no result for {', '.join(missing)} (truncated run?)"
    return out.result(reason)
