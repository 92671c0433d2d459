"""A record (jubex's reporting protocol) becomes a run whose numbers are the record's."""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jubex.records.record import (
    RecordError,
    import_record,
    imported_records,
    read_record_file,
    record_hash,
    record_schema,
)
from jubex.results.samples.rows import result_rows
from jubex.store.rundir import open_run

RECORD = {
    "format": "jubex-record/1",
    "benchmark": "stream_triad",
    "site": "jureca",
    "platform": "jureca:dc-cpu",
    "harness": {"name": "myharness", "version": "2.1", "command": "myharness run triad"},
    "created": 1790000000.0,
    "provenance": {"pipeline": "https://ci.example.invalid/p/7"},
    "metrics": {"triad": {"unit": "MB/s", "better": "higher"}, "wall": {"unit": "s"}},
    "points": [
        {
            "parameters": {"threads": 1, "array": "$HOME;rm -rf /"},
            "references": {"triad": {"value": 9000.0, "lower": -0.1, "upper": None}},
            "repetitions": [
                {"values": {"triad": 9100.5, "wall": 2.5}, "job": "4711", "nodes": ["n1"]},
                {"values": {"triad": 9050.0, "wall": None}},
                {"values": {"triad": 8990.25, "wall": 2.25}},
            ],
        },
        {
            "parameters": {"threads": 8, "array": "$HOME;rm -rf /"},
            "repetitions": [
                {"values": {"triad": 40100.0, "wall": 0.75}},
                {"values": {}, "ok": False, "reason": "node n3 died"},
            ],
        },
    ],
}


def _write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(document))
    return path


def test_the_schema_is_a_valid_json_schema_and_the_example_follows_it() -> None:
    Draft202012Validator.check_schema(record_schema())
    assert not list(Draft202012Validator(record_schema()).iter_errors(RECORD))


def test_a_record_becomes_a_run_holding_exactly_its_values(tmp_path: Path) -> None:
    [record] = read_record_file(_write(tmp_path, RECORD))
    run = import_record(record, tmp_path / "runs", origin="record.json")
    run.store.close()
    run = open_run(run.dir)
    assert run.benchmark.name == "stream_triad"
    assert run.spec.platform.site == "jureca"
    assert run.meta["harness"] == "myharness" and run.meta["created"] == "1790000000.000"
    assert run.meta["host"] == ""  # the importing machine is never said to have run it
    counts = run.store.counts()
    assert sum(counts.values()) == 5
    assert sum(c for (_, state), c in counts.items() if state == "failed") == 1
    rows = list(result_rows(run))
    ok = [r for r in rows if r["ok"]]
    triads = sorted(r["triad"] for r in ok if r["threads"] == 1)
    assert triads == [8990.25, 9050.0, 9100.5]
    walls = [r["wall"] for r in ok if r["threads"] == 1]
    assert sorted(w for w in walls if w is not None) == [2.25, 2.5] and None in walls
    assert {r["array"] for r in rows} == {"$HOME;rm -rf /"}  # a value, never a template
    assert {r["triad_reference"] for r in ok if r["threads"] == 1} == {9000.0}
    assert all(
        "triad_reference" not in r or r["triad_reference"] is None
        for r in rows
        if r["threads"] == 8
    )
    failed = [r for r in rows if not r["ok"]]
    assert [(r["threads"], r["reason"]) for r in failed] == [(8, "node n3 died")]
    assert statistics.mean(triads) == pytest.approx(9046.916666, rel=1e-9)


def test_the_same_record_is_imported_once(tmp_path: Path) -> None:
    [record] = read_record_file(_write(tmp_path, RECORD))
    run = import_record(record, tmp_path / "runs")
    run.store.close()
    again = copy.deepcopy(record)
    assert imported_records(tmp_path / "runs") == {record_hash(again): run.dir}
    again["points"][0]["repetitions"][0]["values"]["triad"] = 1.0
    assert record_hash(again) not in imported_records(tmp_path / "runs")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(format="jubex-record/2"), "at format"),
        (lambda r: r["points"][0]["parameters"].update(**{"bad name": 1}), "points/0/parameters"),
        (lambda r: r["points"][1]["parameters"].pop("array"), "points name different parameters"),
        (lambda r: r["metrics"].update(threads={"unit": ""}), "'threads' is a parameter and"),
        (lambda r: r["points"][0]["repetitions"][0]["values"].update(x=1), "'x', which 'metrics'"),
        (lambda r: r.update(benchmark="../../etc"), "at benchmark"),
        (lambda r: r.update(points=[]), "at points"),
    ],
)
def test_a_broken_record_is_refused_naming_where(tmp_path: Path, change, said: str) -> None:
    broken = copy.deepcopy(RECORD)
    change(broken)
    with pytest.raises(RecordError) as caught:
        read_record_file(_write(tmp_path, broken))
    assert said in str(caught.value)
    assert str(tmp_path / "record.json") in str(caught.value)


def test_a_value_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    text = json.dumps(RECORD).replace("9100.5", "NaN")
    path = tmp_path / "record.json"
    path.write_text(text)
    with pytest.raises(RecordError, match="NaN is not a number a record may hold"):
        read_record_file(path)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_a_damaged_record_is_refused_or_imported_whole(tmp_path_factory, data) -> None:
    """Cut or bit-flipped, a record either reads and imports with the values it holds, or
    is refused with a RecordError: never another exception, never a partial run."""
    text = json.dumps(RECORD).encode()
    cut = data.draw(st.integers(0, len(text)))
    flip = data.draw(st.integers(0, len(text) - 1))
    damaged = bytearray(text[:cut] if data.draw(st.booleans()) else text)
    if damaged and flip < len(damaged):
        damaged[flip] = data.draw(st.integers(0, 255))
    tmp = tmp_path_factory.mktemp("damaged")
    path = tmp / "record.json"
    path.write_bytes(bytes(damaged))
    try:
        records = read_record_file(path)
    except RecordError:
        assert not (tmp / "runs").exists()
        return
    for record in records:
        run = import_record(record, tmp / "runs")
        wanted = sum(len(p["repetitions"]) for p in record["points"])
        assert sum(run.store.counts().values()) == wanted
        run.store.close()


def test_an_undamaged_record_is_always_accepted(tmp_path: Path) -> None:
    """The property above could pass by refusing everything: the whole record is read."""
    assert len(read_record_file(_write(tmp_path, [RECORD, RECORD]))) == 2
