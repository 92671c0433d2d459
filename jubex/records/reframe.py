"""A ReFrame 4.x run report (``reframe ... --report-file=REPORT.json``) as jubex records.

ReFrame's report holds a session (version, command, host, user) and runs: the first with
every test case, each later one with the retries of the cases that failed before. A case
is one test at one point of its parameters (``%block=1M`` in its display name), on one
``system:partition`` with one programming environment, and ``--repeat N`` makes N cases
of one point (``%.repeat_no=K``). Its performance variables come with their unit and their
reference (``[value, reference, lower, upper, unit, result]``).

One record is made per test and system: its points are the test's parameter values with
the partition and the environment, its repetitions the repeated cases, each the last
attempt ReFrame made of it. A case that failed before its performance stage (build,
run, sanity) is a failed repetition with ReFrame's reason; one that failed only its
reference check keeps its values, done, since its numbers were measured (the reference is
kept beside them: jubex's gate judges against history, not against a reference).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from jubex.errors import Loc
from jubex.records.record import FORMAT, Record, RecordError, check_record, read_json_file
from jubex.results.samples.units import direction_of_unit

#: a parameter in a test's display name: ``%name=value`` up to the next `` %``
_PARAMETER = re.compile(r" %([\w.]+)=(.*?)(?= %[\w.]+=|$)")
#: the phases before which a failed case measured nothing
_MEASURED = ("performance",)
#: the parameters a case has besides its test's own
PARTITION, ENVIRONMENT = "partition", "environ"


def read_reframe_report(path: Path) -> list[Record]:
    """The records of a ReFrame run report, each checked as any record is."""
    session, runs = _parts(read_json_file(path), path)
    cases = _last_attempts(runs, path)
    groups: dict[tuple[str, str], list[Record]] = {}
    for case in cases:
        groups.setdefault((_test(case), str(case.get("system") or "")), []).append(case)
    records = [_record(test, system, found, session) for (test, system), found in groups.items()]
    for index, record in enumerate(records):
        check_record(record, f"{path} (test {records[index]['benchmark']})")
    return records


def _parts(report: object, path: Path) -> tuple[Record, list[object]]:
    """The session and the runs of a report, or an error saying it is not one."""
    if not (
        isinstance(report, dict)
        and isinstance(report.get("session_info"), dict)
        and isinstance(report.get("runs"), list)
    ):
        raise RecordError(
            "is not a ReFrame run report (expected an object with 'session_info' and 'runs', "
            "as `reframe --report-file` writes)",
            Loc(str(path)),
        )
    version = str(report["session_info"].get("data_version") or "")
    if not version.startswith(("3.", "4.")):
        raise RecordError(
            f"is a ReFrame report of data version {version[:20]!r}; jubex reads versions 3 "
            "and 4 (ReFrame 4.x)",
            Loc(str(path)),
        )
    return report["session_info"], report["runs"]


def _last_attempts(runs: Sequence[object], path: Path) -> list[Record]:
    """Each case as last attempted: a retry replaces the attempt before it."""
    cases: dict[tuple[str, ...], Record] = {}
    for run in runs:
        testcases = run.get("testcases") if isinstance(run, dict) else None
        if not isinstance(testcases, list):
            raise RecordError("has a run without its 'testcases'", Loc(str(path)))
        for case in testcases:
            if not isinstance(case, dict) or not isinstance(case.get("display_name"), str):
                raise RecordError("has a test case without its 'display_name'", Loc(str(path)))
            key = tuple(
                str(case.get(k) or "") for k in ("display_name", "system", "partition", "environ")
            )
            cases[key] = case
    return list(cases.values())


def _test(case: Record) -> str:
    """The test's name without its parameters: a record's benchmark."""
    name = str(case["display_name"]).split(" %", 1)[0].strip()
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:100] or "reframe"


def _parameters(case: Record) -> tuple[dict[str, object], int]:
    """A case's parameter values (a dotted fixture parameter as one name with ``_``) and
    its repetition's number."""
    found: dict[str, object] = {}
    repeat = 0
    for name, value in _PARAMETER.findall(str(case["display_name"])):
        if name == ".repeat_no":
            repeat = int(value) if value.isdigit() else 0
            continue
        found[re.sub(r"\W", "_", name.strip("."))] = value
    found[PARTITION] = str(case.get("partition") or "")
    found[ENVIRONMENT] = str(case.get("environ") or "")
    return found, repeat


def _record(test: str, system: str, cases: Sequence[Record], session: Record) -> Record:
    metrics: dict[str, Record] = {}
    points: dict[str, Record] = {}
    for case in cases:
        parameters, repeat = _parameters(case)
        point = points.setdefault(
            json.dumps(parameters, sort_keys=True),
            {"parameters": parameters, "references": {}, "repetitions": {}},
        )
        values: dict[str, float | None] = {}
        for key, entry in dict(case.get("perfvalues") or {}).items():
            name = re.sub(r"\W", "_", str(key).rsplit(":", 1)[-1])
            value, reference, lower, upper, unit = (list(entry) + [None] * 5)[:5]
            metrics.setdefault(
                name, {"unit": str(unit or ""), "better": _better(lower, upper, unit)}
            )
            values[name] = float(value) if isinstance(value, (int, float)) else None
            if _has_reference(reference, lower, upper):
                point["references"][name] = {
                    "value": float(reference),
                    "lower": lower if isinstance(lower, (int, float)) else None,
                    "upper": upper if isinstance(upper, (int, float)) else None,
                }
        failed = case.get("result") == "fail" and case.get("fail_phase") not in _MEASURED
        repetition: Record = {"values": values, "ok": not failed}
        if failed:
            repetition["reason"] = (
                f"ReFrame: {case.get('fail_phase') or 'failed'}: {case.get('fail_reason') or ''}"
            ).strip()[:10000]
        if case.get("jobid"):
            repetition["job"] = str(case["jobid"])[:200]
        nodes = case.get("job_nodelist")
        if isinstance(nodes, list):
            repetition["nodes"] = [str(n)[:255] for n in nodes]
        point["repetitions"][repeat] = repetition
    for point in points.values():
        reps = point["repetitions"]
        point["repetitions"] = [reps[k] for k in sorted(reps)]
        if not point["references"]:
            del point["references"]
    if not metrics:
        metrics["time_run"] = {"unit": "s", "better": "lower"}
    return {
        "format": FORMAT,
        "benchmark": test,
        "site": system[:100],
        "platform": system[:200],
        "harness": {
            "name": "ReFrame",
            "version": str(session.get("version") or ""),
            "command": str(session.get("cmdline") or "")[:10000],
            "host": str(session.get("hostname") or "")[:255],
            "user": str(session.get("user") or "")[:255],
            "directory": str(session.get("workdir") or "")[:4096],
        },
        "created": float(session.get("time_start_unix") or 0),
        "provenance": {"reframe_session": str(session.get("uuid") or "")},
        "metrics": metrics,
        "points": list(points.values()),
    }


def _better(lower: object, upper: object, unit: object) -> str | None:
    """Which way a variable is better: its reference's one-sided bound says (a lower
    bound only: higher is better), else its unit (a rate higher, a time lower)."""
    if isinstance(lower, (int, float)) and upper is None:
        return "higher"
    if isinstance(upper, (int, float)) and lower is None:
        return "lower"
    direction = direction_of_unit(str(unit or ""))
    return None if direction is None else ("higher" if direction else "lower")


def _has_reference(reference: object, lower: object, upper: object) -> bool:
    """Whether a variable was given a reference: ReFrame reports one of 0 with no bounds
    for a variable that has none."""
    if not isinstance(reference, (int, float)):
        return False
    return bool(reference) or lower is not None or upper is not None
