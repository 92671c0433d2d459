"""A table notes the darshan analyser's insight flags, whether or not it shows them."""

from __future__ import annotations

from jubex.definition.model import Column, Table
from jubex.results.tables.insights import insight_notes
from jubex.results.tables.table import build_table


def rows() -> list[dict[str, object]]:
    return [
        {"transfer": "4k", "write_bw": 120.0, "darshan_insights": "small_requests, random"},
        {"transfer": "1m", "write_bw": 1900.0, "darshan_insights": ""},
        {"transfer": "64k", "write_bw": 800.0, "darshan_insights": "small_requests"},
        {"transfer": "8m", "write_bw": 2000.0},  # a step without Darshan
    ]


def test_each_flag_is_one_note_naming_its_rows_and_meaning():
    notes = insight_notes(rows(), ["transfer"])
    assert notes == [
        "darshan small_requests in 2 of 4 row(s) (transfer=4k; transfer=64k): many requests "
        "of at most 100 KiB: per-call overhead dominates",
        "darshan random in 1 of 4 row(s) (transfer=4k): many requests jump within the file: "
        "no read-ahead or streaming",
    ]
    assert insight_notes(rows()[1:2] + rows()[3:], ["transfer"]) == []


def test_a_table_without_the_flags_column_still_notes_them():
    table = Table("t", columns=[Column("transfer"), Column("write_bw")])
    built = build_table(rows(), table, {"write_bw": "MiB/s"}, {"write_bw": True})
    assert [h.name for h in built.headers] == ["transfer", "write_bw"]
    assert any(n.startswith("darshan random in 1 of 4 row(s) (transfer=4k)") for n in built.notes)


def test_rows_whose_keys_hold_no_flags_are_not_read():
    class Unread(dict):
        def get(self, key, default=None):
            raise AssertionError("a row was read")

    assert insight_notes([Unread(transfer="4k")], ["transfer"], held={"transfer"}) == []
    assert insight_notes(rows(), ["transfer"], held={"transfer", "darshan_insights"})
