"""IOR 2.x text output (``IOR-2.10.3: MPI Coordinated Test of Parallel I/O``).

IOR 2 prints per test a ``Summary:`` block of settings; with ``-v -v`` a row per operation
and iteration (``access  bw(MiB/s)  block(KiB) ... iter``, rows ending ``XXCEL``); then its
own statistics (``Operation  Max (MiB)  Min (MiB)  Mean (MiB)   Std Dev  Max (OPs) ...
Mean (s)``, rows ending ``EXCEL``) and ``Max Write:`` / ``Max Read:`` lines. The run ends
with ``Run finished:``. Every figure is read as printed: IOR 2.10.3's standard deviation
divides by n, its operation rate is tasks x block / transfer over the phase's time (the
segment count left out), ``Max Write`` is the highest bandwidth of the iterations.

The statistics row is printed with fixed decimals (``%10.2f`` eight times, then ``%10.5f``)
and no separator between some fields, so a standard deviation of 10^6 or a mean time of
1,000 s runs into the field before it: the row is split by those decimals, not by blanks.
With ``-v`` the table names its extra columns out of order (``Op grep #Tasks ...``); their
values are read in the order IOR prints them.
"""

from __future__ import annotations

import re

from jubex.analysis.builtin.common import Collector, cut, failure, number
from jubex.analysis.builtin.ior_summary import CLUES, ERRORS, OPS, MiB
from jubex.analysis.measurement import Metric, ParseResult
from jubex.store.measurement import Value

_F2 = r"\s*(-?(?:\d+\.\d\d|inf|nan))"
_STATS = ("max", "min", "mean", "std", "ops_max", "ops_min", "ops_mean", "ops_std", "time_mean")
_SUMMARY_ROW = re.compile(rf"^(write|read)\s+{_F2 * 8}\s*(-?(?:\d+\.\d{{5}}|inf|nan))\s+(.*)$")
#: the ``-v`` values after the statistics, in IOR 2.10.3's order (None: not reported)
_VERBOSE = (
    "tasks",
    "tasks_per_node",
    "repetitions",
    "fpp",
    "reorder",
    None,  # task-per-node offset
    None,  # random reordering
    None,  # its seed
    "segments",
    "block_size",
    "transfer_size",
    "aggregate_size",
    None,  # test number
    "api",
)
_ROW = ("bw", None, None, "open", "wrrd", "close", "total")  # after the operation's name
_SETTING = re.compile(r"^(api|access|clients|repetitions|xfersize|blocksize|aggregate filesize)")
_CLIENTS = re.compile(r"^(\d+) \((\d+) per node\)$")
_SIZE = re.compile(r"^(\d+) (bytes|MiB|GiB)$")
_SIZES = {"xfersize": "transfer_size", "blocksize": "block_size"}
_SIZES["aggregate filesize"] = "aggregate_size"


class _State:
    """The test being read, the table it is in, and what each test printed so far."""

    def __init__(self) -> None:
        self.record = -1
        self.setup = False
        self.table = ""
        self.settings: dict[int, dict[str, Value]] = {}
        self.exact: dict[int, dict[str, Value]] = {}  # from the -v statistics rows
        self.rows: dict[int, dict[str, set[int | float]]] = {}  # per-iteration rows
        self.iteration_table: set[int] = set()
        self.summary: dict[int, set[str]] = {}
        self.peak: dict[int, set[str]] = {}
        self.finished = False

    def current(self) -> int:
        return max(self.record, 0)


def parse_v2(text: str, start: int, version: str, metrics: dict[str, Metric]) -> ParseResult:
    """Read an IOR 2.x output whose header line begins at ``start``."""
    out = Collector(metrics)
    state = _State()
    line_number = text.count("\n", 0, start)
    for line in text[start:].splitlines():
        line_number += 1
        _line(line, line_number, state, out)
    for record in sorted(set(state.settings) | set(state.exact)):
        values = {**state.settings.get(record, {}), **state.exact.get(record, {})}
        values["version"] = version
        out.add_all(values.items(), record)
    reason = failure(text, ERRORS, CLUES)
    if not reason and cut(text):
        reason = "output ends in the middle of a line (truncated run?)"
    return out.result(reason or _incomplete(state))


def _line(raw: str, number_: int, state: _State, out: Collector) -> None:
    line = raw.strip()
    if line == "Summary:":
        state.record, state.setup, state.table = state.record + 1, True, ""
    elif state.setup and raw.startswith("\t") and (setting := _SETTING.match(line)):
        _setting(setting[1], line.partition("=")[2].strip(), state, out)
    elif not line:
        state.setup = False
    elif line.startswith("access") and "bw(MiB/s)" in line:
        state.table = "iterations"
        state.iteration_table.add(state.current())
    elif line.startswith("Operation") and "Max (MiB)" in line:
        state.table = "summary"
    elif line.startswith(("write", "read")) and state.table == "iterations":
        _iteration_row(line.split(), number_, state, out)
    elif line.startswith(("write", "read")) and state.table == "summary":
        _summary_row(line, number_, state, out)
    elif line.startswith(("Max Write:", "Max Read:")):
        _peak(line, number_, state, out)
    elif line.startswith("Run finished:"):
        state.finished = True


def _setting(key: str, value: str, state: _State, out: Collector) -> None:
    settings = state.settings.setdefault(state.current(), {})
    if key == "api":
        settings["api"] = value
    elif key == "access":
        settings["fpp"] = int(value == "file-per-process")
    elif key == "clients" and (clients := _CLIENTS.match(value)):
        settings["tasks"], settings["tasks_per_node"] = int(clients[1]), int(clients[2])
    elif key == "repetitions":
        settings["repetitions"] = out.value("repetitions", value)
    elif key in _SIZES and (size := _SIZE.match(value)):  # "1.50 GiB" is rounded: not read
        factor = {"bytes": 1, "MiB": MiB, "GiB": 1024 * MiB}[size[2]]
        settings[_SIZES[key]] = int(size[1]) * factor


def _iteration_row(tokens: list[str], line: int, state: _State, out: Collector) -> None:
    """``write  184.34  4096  1024.00  0.000145  0.043296  0.035288  0.043399  0  XXCEL``."""
    op = tokens[0]
    if op not in OPS or len(tokens) != 10 or tokens[-1] != "XXCEL":
        out.problem(f"a {op} row IOR 2 does not print so: {' '.join(tokens)[:60]!r}", line)
        return
    iteration = out.value("iteration", tokens[8], line)
    if not isinstance(iteration, int):
        return
    record = state.current()
    seen = state.rows.setdefault(record, {})
    if not any(iteration in its for its in seen.values()):
        out.add("iteration", iteration, record, line=line)
    seen.setdefault(op, set()).add(iteration)
    for suffix, value in zip(_ROW, tokens[1:8], strict=True):
        if suffix is not None and value != "-":  # IOR prints "-" for a negative time
            out.number(f"{op}_{suffix}", value, record, line=line)


def _summary_row(line: str, number_: int, state: _State, out: Collector) -> None:
    match = _SUMMARY_ROW.match(line)
    extra = match[11].split() if match else []
    if match is None or extra[-1:] != ["EXCEL"] or len(extra) not in (1, len(_VERBOSE) + 1):
        out.problem(f"a statistics row IOR 2 does not print so: {line[:60]!r}", number_)
        return
    op, record = match[1], state.current()
    state.summary.setdefault(record, set()).add(op)
    for stat, value in zip(_STATS, match.groups()[1:10], strict=True):
        out.number(f"{op}_{stat}", value, record, line=number_)
    exact = state.exact.setdefault(record, {})
    for name, value in zip(_VERBOSE, extra[:-1], strict=False):
        if name == "api":
            exact[name] = value
        elif name is not None:
            exact[name] = out.value(name, value, number_)


def _peak(line: str, number_: int, state: _State, out: Collector) -> None:
    """``Max Write: 1247.62 MiB/sec (1308.23 MB/sec)``: the MiB/s figure is read."""
    op, _, rest = line.partition(":")
    fields = rest.split()
    name = "write" if op == "Max Write" else "read"
    if len(fields) != 4 or fields[1] != "MiB/sec" or number(fields[0]) is None:
        out.problem(f"a line IOR 2 does not print so: {line[:60]!r}", number_)
        return
    state.peak.setdefault(state.current(), set()).add(name)
    out.number(f"{name}_peak", fields[0], state.current(), line=number_)


def _incomplete(state: _State) -> str:
    """Why the output is not a whole run, or ``""``: every test needs its statistics rows,
    its ``Max`` lines and, when printed, a row per iteration; the run its last line."""
    if not state.summary:
        return "no results: IOR printed no statistics table"
    for record in range(state.current() + 1):
        done, peak = state.summary.get(record, set()), state.peak.get(record, set())
        if not done or not peak or not peak <= done:
            missing = ", ".join(sorted(peak - done)) if done and peak else "its results"
            return f"test {record}: no statistics row or 'Max' line for {missing} (truncated run?)"
        reps = state.settings.get(record, {}).get("repetitions")
        rows = state.rows.get(record, {})
        if record in state.iteration_table and isinstance(reps, int):
            for op in sorted(peak):
                if len(rows.get(op, ())) < reps:
                    return (
                        f"test {record}: {len(rows.get(op, ()))} of {reps} {op} iteration rows "
                        "printed (truncated run?)"
                    )
    if not state.finished:
        return "output ends before IOR's 'Run finished' line (truncated run?)"
    return ""
