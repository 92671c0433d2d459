"""IOR 3.x and 4.x: text output, the JSON and CSV summary formats, and jubex-bw (IOR's layout);
IOR 2.x's text output is read by :mod:`ior2`.

Every test of an IOR script is one record. Within a record the per-iteration rows repeat
their names (``write_bw`` once per iteration); the "Summary of all tests" table gives the
statistics IOR computed itself (``write_max`` ...) and the test's settings. Columns are
found by the table headers, so IOR 3.0's shorter tables parse as well as 4.x's.
``-O summaryFormat=JSON`` output (on stdout or in the ``-O summaryFile``) is one JSON
document; ``-O summaryFormat=CSV`` prints only the per-iteration rows, one test per header.
"""

from __future__ import annotations

import math
import re

from jubex.analysis.builtin.common import (
    FP,
    Collector,
    cut,
    failure,
    line_at,
    metrics,
    number,
    untag,
)
from jubex.analysis.builtin.ior2 import parse_v2
from jubex.analysis.builtin.ior_summary import (
    CLUES,
    ERRORS,
    OPS,
    MiB,
    as_bytes,
    parse_csv,
    parse_json,
)
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult
from jubex.store.measurement import Value

_ROW_COLUMNS = {  # results table header -> name suffix (per operation)
    "bw(MiB/s)": "bw",
    "IOPS": "iops",
    "Latency(s)": "latency",
    "open(s)": "open",
    "wr/rd(s)": "wrrd",
    "close(s)": "close",
    "total(s)": "total",
}
_SETTINGS = {  # summary header -> setting
    "#Tasks": "tasks",
    "tPN": "tasks_per_node",
    "reps": "repetitions",
    "fPP": "fpp",
    "reord": "reorder",
    "segcnt": "segments",
    "blksiz": "block_size",
    "xsize": "transfer_size",
    "aggsize": "aggregate_size",
    "API": "api",
}

_HEADER = re.compile(
    r"^(\S+?)[- ](\d\S*): (?:MPI )?Coordinated Test of Parallel I/[O0]", re.MULTILINE
)
_TEST = re.compile(r"^(?:TestID\s*:\s*(\d+)|Test (\d+) started:)")
_COMMAND = re.compile(r"^Command line(?: used)?\s*:\s*(.*)$", re.MULTILINE)
_OPTION = re.compile(
    r"^(api|access|segments|tasks|clients per node|clients|repetitions|xfersize|blocksize)"
    r"\s*[:=]\s*(.+?)\s*$"
)
_OPTION_WORDS = frozenset(("api", "access", "segments", "tasks", "clients", "repetitions"))
_OPTION_WORDS |= {"xfersize", "blocksize"}
_MAX = re.compile(rf"^Max (Write|Read):\s+({FP}) MiB/sec")
_SIZE = re.compile(rf"^({FP})\s*(bytes|[KMGTPE]iB)$")
_CSV_HEADER = re.compile(r"^access,bw\(MiB/s\),", re.MULTILINE)
#: IOR 3.3's CSV summary: its settings run together without a separator (``3.3.0Fri Nov 27
#: 18:03:46 2026/path/ior -a POSIX ...``) and no result row at all
_CSV_V33 = re.compile(r"\A3\.\d+\.\d+\S*?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:")


def _per_iteration(unit: str, higher: bool | None, help: str) -> Metric:
    return Metric(unit, higher, f"{help}, one value per iteration", repeated=True)


def _op_metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for op in OPS:
        out |= {
            f"{op}_bw": _per_iteration("MiB/s", True, f"{op} bandwidth"),
            f"{op}_iops": _per_iteration("ops/s", True, f"{op} transfers per second"),
            f"{op}_latency": _per_iteration("s", False, f"mean {op} latency"),
            f"{op}_open": _per_iteration("s", False, "time to open the file(s)"),
            f"{op}_wrrd": _per_iteration("s", False, f"time spent in {op} calls"),
            f"{op}_close": _per_iteration("s", False, "time to close the file(s)"),
            f"{op}_total": _per_iteration("s", False, f"total time of the {op} phase"),
        }
    for op in OPS:
        out[f"{op}_peak"] = Metric("MiB/s", True, f"'Max {op.title()}' line (IOR 2.x, 3.x)")
    for op in OPS:
        out |= {
            f"{op}_max": _summary("MiB/s", True, f"summary: highest {op} bandwidth"),
            f"{op}_min": _summary("MiB/s", True, f"summary: lowest {op} bandwidth"),
            f"{op}_mean": _summary("MiB/s", True, f"summary: mean {op} bandwidth"),
            f"{op}_std": _summary("MiB/s", None, f"summary: standard deviation of {op} bandwidth"),
            f"{op}_ops_max": _summary("ops/s", True, f"summary: highest {op} operation rate"),
            f"{op}_ops_min": _summary("ops/s", True, f"summary: lowest {op} operation rate"),
            f"{op}_ops_mean": _summary("ops/s", True, f"summary: mean {op} operation rate"),
            f"{op}_ops_std": _summary("ops/s", None, f"summary: std. deviation of {op} rate"),
            f"{op}_time_mean": _summary("s", False, f"summary: mean time of the {op} phase"),
        }
    return out


def _summary(unit: str, higher: bool | None, help: str) -> Metric:
    """A value of the "Summary of all tests": IOR's own statistic over its iterations."""
    return Metric(unit, higher, help, summary_over="repetitions")


METRICS = metrics(
    _op_metrics(),
    {
        "remove_total": _per_iteration("s", False, "time to remove the file(s), IOR 3.3"),
        "iteration": _per_iteration("", None, "iteration number"),
        "tasks": Metric("", None, "MPI tasks"),
        "tasks_per_node": Metric("", None, "tasks per node"),
        "repetitions": Metric("", None, "iterations asked for (-i)"),
        "fpp": Metric("", None, "1 = file per process (-F), 0 = single shared file"),
        "reorder": Metric("", None, "1 = tasks read what another node wrote (-C)"),
        "segments": Metric("", None, "segment count (-s)"),
        "block_size": Metric("B", None, "block size (-b)"),
        "transfer_size": Metric("B", None, "transfer size (-t)"),
        "aggregate_size": Metric("B", None, "data moved per iteration: block x segments x tasks"),
        "api": Metric("", None, "I/O interface (-a)"),
        "version": Metric("", None, "program and version from the header, e.g. IOR-4.1.0"),
    },
)


def parse(text: str) -> ParseResult:
    """Detect the format (JSON summary or text) and parse it."""
    text = untag(text)
    if text.lstrip().startswith("{"):
        return parse_json(text, METRICS)
    if (header := _header(text)) is not None and header[2].startswith("2."):
        return parse_v2(text, header.start(), f"{header[1]}-{header[2]}", METRICS)
    if (header := _CSV_HEADER.search(text)) is not None and not _header(text):
        return parse_csv(text, header.start(), METRICS)
    return _parse_text(text)


class _TextState:
    """Where the line-by-line parse is: which record, which table, what it saw so far."""

    def __init__(self) -> None:
        self.record = -1
        self.test_ids: dict[int, int] = {}
        self.table = ""
        self.columns: list[str] = []
        self.row_columns: list[tuple[int, str]] = []
        self.options: dict[int, dict[str, str]] = {}
        self.settings: dict[int, dict[str, Value]] = {}
        self.rows: dict[int, dict[str, set[int | float]]] = {}
        self.finished = False
        self.summary = False
        self.line = 0

    def current(self) -> int:
        return max(self.record, 0)


def _parse_text(text: str) -> ParseResult:
    out = Collector(METRICS)
    state = _TextState()
    header = _header(text)
    start = header.start() if header else 0
    state.line = line_at(text, start) - 1
    for line in text[start:].splitlines():
        state.line += 1
        _text_line(line.strip(), state, out)
    for record in sorted(set(state.options) | set(state.settings)):
        settings = {
            **_option_settings(state.options.get(record, {}), out),
            **state.settings.get(record, {}),
        }
        if header:
            settings["version"] = f"{header[1]}-{header[2]}"
        out.add_all(settings.items(), record)
    reason = failure(text, ERRORS, CLUES)
    if not reason and not header and _CSV_V33.match(text):
        reason = (
            "IOR 3.3's CSV summary (-O summaryFormat=CSV) holds no results: it prints only its "
            "settings, run together; use summaryFormat=JSON, or IOR 4"
        )
    elif not reason and not header:
        reason = "not IOR output: no 'IOR-x.y: MPI Coordinated Test of Parallel I/O' header"
    if not reason:
        reason = _incomplete(text, state)
    return out.result(reason)


def _header(text: str) -> re.Match[str] | None:
    """The ``IOR-4.1.0: MPI Coordinated Test ...`` line (found by its text: faster than ``^``)."""
    at = text.find("Coordinated Test of Parallel I/")
    return _HEADER.match(text, text.rfind("\n", 0, at) + 1) if at >= 0 else None


def _text_line(line: str, state: _TextState, out: Collector) -> None:
    tokens = line.split()
    if not tokens:
        state.table = "" if state.table == "summary" else state.table
        return
    first = tokens[0]
    test = _TEST.match(line) if first.startswith("Test") else None
    if test:
        state.record += 1
        if isinstance(test_id := number(test[1] or test[2]), int):
            state.test_ids[test_id] = state.record
    elif first == "access" and "bw(MiB/s)" in tokens:
        state.table, state.columns = "results", tokens
        state.row_columns = [
            (i, _ROW_COLUMNS[c]) for i, c in enumerate(tokens) if c in _ROW_COLUMNS
        ]
    elif first == "Operation" and "Max(MiB)" in tokens:
        state.table, state.columns, state.summary = "summary", tokens, True
    elif first == "Summary" and line.startswith("Summary of all tests"):
        state.summary = True
    elif first.startswith("Finished"):
        state.finished = True
    elif first in ("write", "read", "remove") and len(tokens) == len(state.columns):
        if state.table == "results":
            _result_row(tokens, state, out)
        elif state.table == "summary":
            _summary_row(tokens, state, out)
    elif first in ("write", "read", "remove") and state.table and number(tokens[-1]) is not None:
        out.problem(
            f"a {first} row of {len(tokens)} columns under a header of {len(state.columns)}",
            state.line,
        )
    elif first == "Max" and (match := _MAX.match(line)) is not None:
        out.number(f"{match[1].lower()}_peak", match[2], state.current(), line=state.line)
    elif first == "Max" and line.startswith(("Max Write:", "Max Read:")):
        out.problem(f"a line IOR does not print so: {line[:60]!r}", state.line)
    elif first in _OPTION_WORDS and (match := _OPTION.match(line)) is not None:
        state.options.setdefault(state.current(), {}).setdefault(match[1], match[2])


def _result_row(tokens: list[str], state: _TextState, out: Collector) -> None:
    record, op = state.current(), tokens[0]
    column = state.columns.index("iter") if "iter" in state.columns else -1
    iteration = out.value("iteration", tokens[column], state.line) if column >= 0 else 0
    if iteration is None:
        return
    seen = state.rows.setdefault(record, {})
    if not any(iteration in its for its in seen.values()):
        out.add("iteration", iteration, record)
    seen.setdefault(op, set()).add(iteration)
    for index, suffix in state.row_columns:
        name = f"{op}_{suffix}"
        if tokens[index] != "-" and name in METRICS:
            out.number(name, tokens[index], record, line=state.line)


def _summary_row(tokens: list[str], state: _TextState, out: Collector) -> None:
    op = tokens[0]
    if op not in OPS:
        return
    named: dict[str, str] = {}
    stds = iter((f"{op}_std", f"{op}_ops_std"))
    for column, value in zip(state.columns, tokens, strict=True):
        if column == "StdDev":
            named[next(stds)] = value
        else:
            named[column] = value
    test = out.value("test", named.get("Test#", "0"), state.line)
    if not isinstance(test, int):
        return
    record = state.test_ids.get(test, test)
    stats = {
        f"{op}_max": "Max(MiB)",
        f"{op}_min": "Min(MiB)",
        f"{op}_mean": "Mean(MiB)",
        f"{op}_std": f"{op}_std",
        f"{op}_ops_max": "Max(OPs)",
        f"{op}_ops_min": "Min(OPs)",
        f"{op}_ops_mean": "Mean(OPs)",
        f"{op}_ops_std": f"{op}_ops_std",
        f"{op}_time_mean": "Mean(s)",
    }
    for name, column in stats.items():
        if column in named:
            out.number(name, named[column], record, line=state.line)
    settings = state.settings.setdefault(record, {})
    for column, name in _SETTINGS.items():
        if column in named:
            parsed = out.value(name, named[column], state.line) if name != "api" else None
            settings[name] = named[column] if name == "api" else parsed
    if "aggs(MiB)" in named:
        settings["aggregate_size"] = as_bytes(out.value("aggregate_size", named["aggs(MiB)"]), MiB)


def _option_settings(options: dict[str, str], found: Collector) -> dict[str, Value]:
    """Settings from the options block, for outputs without a summary table (IO500 phases)."""
    out: dict[str, Value] = {}
    if "api" in options:
        out["api"] = options["api"]
    if "access" in options:
        out["fpp"] = int(options["access"] == "file-per-process")
    if "clients" in options:
        clients = re.fullmatch(r"(\S+) \((\S+) per node\)", options["clients"])
        tasks, per_node = clients.groups() if clients else (options["clients"], "")
        out["tasks"] = found.value("tasks", tasks)
        if clients:
            out["tasks_per_node"] = found.value("tasks_per_node", per_node)
    numbers = {"tasks": "tasks", "clients per node": "tasks_per_node"}
    numbers |= {"repetitions": "repetitions", "segments": "segments"}
    for key, name in numbers.items():
        if key in options:
            out[name] = found.value(name, options[key])
    for key, name in (("blocksize", "block_size"), ("xfersize", "transfer_size")):
        if key in options and (size := _SIZE.match(options[key])) is not None:
            out[name] = as_bytes(number(size[1]), 1 if size[2] == "bytes" else _binary(size[2]))
        elif key in options:
            found.problem(f"{name} is {options[key][:40]!r}, not a size IOR prints")
    names = ("block_size", "segments", "tasks")
    sizes = [v for k in names if isinstance(v := out.get(k), (int, float))]
    if len(sizes) == len(names):
        out["aggregate_size"] = math.prod(sizes)
    return out


def _binary(unit: str) -> int:
    return 1024 ** ("KMGTPE".index(unit[0]) + 1)


def _incomplete(text: str, state: _TextState) -> str:
    """Why a text output is not a complete run, or ``""``.

    IOR prints ``Finished`` last. IO500 runs IOR as a library, which prints neither the
    summary nor ``Finished``: its outputs (known by the per-rank CSV IO500 always asks for)
    count as complete when every iteration has a row for every operation asked for.
    """
    if not state.rows and not state.settings:
        return "no results: IOR printed no result rows and no summary"
    if state.finished:
        return ""
    if state.summary:
        return "output ends inside IOR's 'Summary of all tests' (truncated run?)"
    if cut(text):
        return "output ends in the middle of a line (truncated run?)"
    command = _COMMAND.search(text)
    args = command[1].split() if command else []
    ops = [op for flag, op in (("-w", "write"), ("-r", "read")) if flag in args] or list(OPS)
    for record, options in (state.options or {0: {}}).items():
        reps = number(options.get("repetitions", "1")) or 1
        rows = state.rows.get(record, {})
        for op in ops:
            done = len(rows.get(op, ()))
            if done < reps:
                return (
                    f"output ends before IOR's 'Finished' line: {done} of {reps} {op} "
                    "iterations reported (truncated run?)"
                )
    if not any(arg.startswith("saveRankPerformanceDetailsCSV=") for arg in args):
        return "output ends before IOR's 'Finished' line (truncated run?)"
    return ""


ANALYSER = BuiltinAnalyser(
    name="ior",
    description="IOR 2.x-4.x text, IOR 3.x/4.x JSON and CSV (also jubex-bw: IOR's layout)",
    parse=parse,
    metrics=METRICS,
)
