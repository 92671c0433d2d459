"""Results another harness measured, brought in as a jubex run: ``jubex import-record``.

A record (docs/record.md, the JSON Schema ``record_schema.json``) is jubex's reporting
protocol: one benchmark on one system, its metrics with units and better directions, and
each point with its parameters and its repetitions. A harness writes it directly, or jubex
makes it from the harness's own report (``jubex import-reframe``). The run it becomes holds
a definition that names what the record holds (its parameters, a patternset of its metrics,
one step repeated as often as the record's points were, a table of them all), and each
repetition as a workpackage with its values; nothing runs and nothing is analysed again, so
its numbers stay the harness's. Everything is checked before anything is written, and all
that is written is the new run directory below the outpath.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from jubex.errors import JubexError, Loc
from jubex.platform.model import Platform
from jubex.space.spec import RunSpec, resolve_spec
from jubex.space.workpackage import Workpackage
from jubex.store.measurement import Measurement
from jubex.store.rundir import Run, create_run, user_name
from jubex.store.store import DONE, FAILED

#: a record as JSON gives it, checked against the schema (so its shape is known)
Record = dict[str, Any]
#: the value of a record's ``format``
FORMAT = "jubex-record/1"
#: the largest record file read
MAX_BYTES = 64 * 1024 * 1024
#: the step each repetition is a workpackage of
STEP = "measure"
#: the patternset naming the record's metrics
PATTERNS = "record"
#: a regex that matches nothing: the record's values are stored, never read from an output
NEVER = "(?!)"
#: the store meta key of the record's hash
RECORD_HASH = "record_hash"


class RecordError(JubexError):
    """A record that is not one jubex can import."""


@cache
def record_schema() -> dict[str, object]:
    """The JSON Schema of a record (also printed by ``jubex schema record``)."""
    text = resources.files("jubex.records").joinpath("record_schema.json").read_text()
    schema: dict[str, object] = json.loads(text)
    return schema


def read_json_file(path: Path) -> Any:
    """A harness's JSON file, read at most :data:`MAX_BYTES` of; ``NaN`` and ``Infinity``
    (which Python's reader takes, and JSON does not) are refused."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read '{path}': {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise RecordError(f"is larger than {MAX_BYTES // 2**20} MiB", Loc(str(path)))
    try:
        return json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", 0)
        raise RecordError(f"is not JSON: {exc}", Loc(str(path), line)) from None


def read_record_file(path: Path) -> list[Record]:
    """The records of a file: one record, or a JSON list of them, each checked."""
    document = read_json_file(path)
    records = document if isinstance(document, list) else [document]
    for index, record in enumerate(records):
        check_record(record, str(path) if len(records) == 1 else f"{path}[{index}]")
    return records


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a record may hold (use null for a missing value)")


def check_record(record: object, where: str) -> None:
    """Raise a :class:`RecordError` naming the first place ``record`` breaks the schema, or
    the rules a schema cannot say (every point names the same parameters, a metric is not
    also a parameter, values are finite)."""
    from jsonschema import Draft202012Validator

    errors = sorted(
        Draft202012Validator(record_schema()).iter_errors(record), key=lambda e: list(e.path)
    )
    if errors:
        first = errors[0]
        place = "/".join(str(p) for p in first.absolute_path) or "the top"
        raise RecordError(f"at {place}: {first.message[:300]}", Loc(where))
    assert isinstance(record, dict)
    names = [tuple(sorted(p["parameters"])) for p in record["points"]]
    if len(set(names)) > 1:
        raise RecordError(
            f"points name different parameters ({', '.join(names[0]) or 'none'} against "
            f"{', '.join(next(n for n in names if n != names[0])) or 'none'}): every point "
            "of a record names the same ones",
            Loc(where),
        )
    both = set(names[0]) & set(record["metrics"])
    if both:
        raise RecordError(f"'{sorted(both)[0]}' is a parameter and a metric", Loc(where))
    for index, point in enumerate(record["points"]):
        for repetition in point["repetitions"]:
            for metric, value in repetition["values"].items():
                if metric not in record["metrics"]:
                    raise RecordError(
                        f"at points/{index}: the value of '{metric}', which 'metrics' does "
                        "not declare",
                        Loc(where),
                    )
                if isinstance(value, float) and not math.isfinite(value):
                    raise RecordError(f"at points/{index}: '{metric}' is not finite", Loc(where))


def import_record(record: Record, outpath: Path, *, origin: str = "") -> Run:
    """Make a jubex run below ``outpath`` of a checked record; ``origin``: the file it came
    from, noted in the run's provenance."""
    points: list[Record] = record["points"]
    metrics: dict[str, Record] = record["metrics"]
    with tempfile.TemporaryDirectory(prefix="jubex-record-") as scratch:
        definition = Path(scratch) / f"{record['benchmark']}.yaml"
        definition.write_text(_definition(record, points, metrics))
        spec = _spec(definition, record, outpath)
        run = create_run(spec)
    try:
        wps, values = _workpackages(points, metrics)
        run.store.add_workpackages(wps)
        run.store.set_states((wp.id, wp.state, wp.job_id, None, wp.reason) for wp in wps)
        run.store.store_analysis(
            (wp.id, wp.state == DONE, wp.reason, "record", values[wp.id]) for wp in wps
        )
        run.store.set_meta(_provenance(record, origin))
    except BaseException:
        run.store.close()
        shutil.rmtree(run.dir, ignore_errors=True)
        raise
    return run


def _definition(record: Record, points: Sequence[Record], metrics: Mapping[str, Record]) -> str:
    """The definition a record's run holds: what it names, in jubex's own format (a value
    is text, never a template: ``$`` is doubled)."""
    names = list(points[0]["parameters"])
    parameters: dict[str, object] = {}
    for name in names:
        seen: list[object] = []
        for point in points:
            value = _text(point["parameters"][name])
            if value not in seen:
                seen.append(value)
        parameters[name] = seen if len(seen) > 1 else seen[0]
    patterns = {
        name: {
            "regex": NEVER,
            "type": "float",
            "unit": str(info.get("unit") or ""),
            **({"better": info["better"]} if info.get("better") else {}),
        }
        for name, info in metrics.items()
    }
    for name, info in metrics.items():
        patterns[f"{name}_reference"] = {
            "regex": NEVER,
            "type": "float",
            "unit": info.get("unit") or "",
        }
    repetitions = max(len(p["repetitions"]) for p in points)
    harness = record["harness"]
    assert isinstance(harness, Mapping)
    made = f"{harness['name']} {harness.get('version', '')}".strip()
    columns: list[object] = [*names]
    columns += [{"name": m, "stats": ["n", "mean±std", "min", "max"]} for m in metrics]
    document = {
        "name": record["benchmark"],
        "comment": str(record.get("comment") or f"results {made} measured, imported"),
        "parameters": parameters,
        "patterns": {PATTERNS: patterns},
        "steps": {
            STEP: {
                "iterations": repetitions,
                "do": "true",
                "analyse": [PATTERNS],
            }
        },
        "results": {"measured": {"group_by": names, "columns": columns}},
    }
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def _text(value: object) -> object:
    """A parameter's value as the definition writes it: numbers stay numbers, text is
    never read as a template."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    return value


def _spec(definition: Path, record: Record, outpath: Path) -> RunSpec:
    from jubex.definition import load as loading

    try:
        benchmark = loading.load(definition)
    except JubexError as exc:
        raise RecordError(f"cannot be made a run: {exc.message}") from None
    harness = record["harness"]
    assert isinstance(harness, Mapping)
    platform = Platform(
        name=str(record.get("platform") or harness["name"]),
        scheduler="",
        description=f"results {harness['name']} measured; jubex ran nothing",
        site=str(record.get("site") or ""),
        python=False,
    )
    return resolve_spec(benchmark, platform, outpath=outpath)


def _workpackages(
    points: Sequence[Record], metrics: Mapping[str, Record]
) -> tuple[list[Workpackage], dict[int, list[Measurement]]]:
    """One workpackage a repetition, done or failed as the record says, with its values
    (a metric a repetition lacks is missing, never zero) and the point's references."""
    wps: list[Workpackage] = []
    values: dict[int, list[Measurement]] = {}
    units = {name: str(info.get("unit") or "") for name, info in metrics.items()}
    for point in points:
        parameters = dict(point["parameters"])
        references = dict(point.get("references") or {})
        for iteration, repetition in enumerate(point["repetitions"]):
            ok = repetition.get("ok", True)
            wp = Workpackage(
                id=len(wps),
                step=STEP,
                iteration=iteration,
                point=parameters,
                state=DONE if ok else FAILED,
                job_id=repetition.get("job") or None,
                reason="" if ok else str(repetition.get("reason") or "failed, as the record says"),
            )
            wps.append(wp)
            found = [
                Measurement(name, repetition["values"].get(name), unit)
                for name, unit in units.items()
            ]
            found += [
                Measurement(f"{name}_reference", references[name]["value"], units[name])
                for name in units
                if name in references
            ]
            if repetition.get("nodes"):
                found.append(Measurement("nodes", ",".join(repetition["nodes"]), ""))
            values[wp.id] = found
    return wps, values


def _provenance(record: Record, origin: str) -> dict[str, str]:
    """The run's meta: the harness's facts where the record gives them ('' where not:
    the importing machine is never named as the one the benchmark ran on)."""
    harness = record["harness"]
    assert isinstance(harness, Mapping)
    given = {str(k): str(v) for k, v in dict(record.get("provenance") or {}).items()}
    return {
        **{f"record_{k}": v for k, v in given.items()},
        RECORD_HASH: record_hash(record),
        "imported_from": origin,
        "imported": f"{time.time():.3f}",
        "imported_outputs": "no",
        "imported_by": user_name(),
        "created": f"{float(record['created']):.3f}",
        "harness": str(harness["name"]),
        "harness_version": str(harness.get("version") or ""),
        "scheduler": "",
        "host": str(harness.get("host") or ""),
        "user": str(harness.get("user") or ""),
        "cwd": str(harness.get("directory") or ""),
        "command": str(harness.get("command") or ""),
    }


def record_hash(record: Record) -> str:
    """What a record is, whatever file it came in: the same results are imported once."""
    import hashlib

    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def imported_records(outpath: Path) -> dict[str, Path]:
    """The runs below ``outpath`` made of records, by the record's hash."""
    from jubex.store.rundir import STORE, list_runs
    from jubex.store.store import Store

    found: dict[str, Path] = {}
    for run_dir in list_runs(outpath):
        try:
            store = Store(run_dir / STORE)
        except JubexError:
            continue
        try:
            digest = store.meta().get(RECORD_HASH)
        finally:
            store.close()
        if digest:
            found[digest] = run_dir
    return found
