"""Result tables written into SQLite: primary keys replace rows instead of duplicating them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jubex.errors import JubexError
from jubex.results.delivery.database import write_database
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable


def table(value: float) -> ResultTable:
    headers = [
        Header("api", "api", "", None, None, 0),
        Header("bw mean", "bw", "MiB/s", None, True, 0),
    ]
    return ResultTable("speed", headers, [["POSIX", value], ["MPIIO", None]])


def test_rows_are_written_and_replaced_by_primary_key(tmp_path: Path) -> None:
    db = tmp_path / "out" / "results.sqlite"
    assert write_database(table(1.5), db, ["api"]) == 2
    write_database(table(2.5), db, ["api"])
    rows = sqlite3.connect(db).execute("SELECT api, bw FROM speed ORDER BY api").fetchall()
    assert rows == [("MPIIO", None), ("POSIX", 2.5)]


def test_columns_are_titles_typed_by_the_first_row_and_keys_name_either(tmp_path: Path) -> None:
    """As JUBE: SQL columns are the titles, declared int/float/text after the first row."""
    db = tmp_path / "results.sqlite"
    write_database(table(1.5), db, ["bw mean", "api"])
    info = sqlite3.connect(db).execute("PRAGMA table_info(speed)").fetchall()
    assert [(c[1], c[2].lower(), c[5]) for c in info] == [("api", "text", 2), ("bw", "float", 1)]


def test_an_unknown_primary_key_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JubexError, match="primary key 'nodes' is not a column"):
        write_database(table(1.0), tmp_path / "x.sqlite", ["nodes"])
