"""Schema 2 keeps a workpackage's values in one row; stores of schema 1 are migrated."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.space.plan import Workpackage
from jubex.store.measurement import Measurement
from jubex.store.store import SCHEMA_VERSION, Store

FOUND = {
    1: [
        Measurement("bw", 10.0, "MiB/s"),
        Measurement("bw", 12.5, "MiB/s"),
        Measurement("api", "POSIX"),
        Measurement("bw", 20.0, "MiB/s", 1),
        Measurement("bw_max", 12.5, "MiB/s"),
        Measurement("ok", None),
    ],
    2: [Measurement("bw", 7, "MiB/s"), Measurement("t", 0.5, "s")],
}

V1 = """
DROP TABLE packed;
CREATE TABLE measurement (
    wp INTEGER NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, record INTEGER NOT NULL,
    value, unit TEXT NOT NULL DEFAULT '', first INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (wp, seq)
);
CREATE INDEX measurement_first ON measurement(name, first);
UPDATE meta SET value = '1' WHERE key = 'schema_version';
"""


def fresh(path: Path) -> Store:
    store = Store(path, create=True)
    store.add_workpackages([Workpackage(i, "run", 0, {}) for i in FOUND])
    return store


def schema_1(path: Path) -> None:
    """A store as jubex wrote it before schema 2: a row per value, first values flagged."""
    fresh(path).close()
    db = sqlite3.connect(path)
    db.executescript(V1)
    for wp, found in FOUND.items():
        seen: set[tuple[str, int]] = set()
        for seq, m in enumerate(found):
            db.execute(
                "INSERT INTO measurement VALUES (?, ?, ?, ?, ?, ?, ?)",
                (wp, seq, m.name, m.record, m.value, m.unit, (m.name, m.record) not in seen),
            )
            seen.add((m.name, m.record))
        db.execute(
            "INSERT INTO analysed (wp, time, ok, signature, found) VALUES (?, 0, 1, 's', ?)",
            (wp, len(found)),
        )
    db.commit()
    db.close()


def test_first_values_are_read_by_name_in_the_order_found(tmp_path: Path) -> None:
    store = fresh(tmp_path / "s.sqlite")
    store.store_analysis([(wp, True, "", "s", found) for wp, found in FOUND.items()])
    picked = store.representatives({"bw", "api", "ok", "nowhere"})
    assert picked == {1: {"bw": 10.0, "api": "POSIX", "bw@1": 20.0, "ok": None}, 2: {"bw": 7}}
    assert list(picked[1]) == ["bw", "api", "bw@1", "ok"]
    assert store.representatives(set()) == {}
    assert store.representatives()[2] == {"bw": 7, "t": 0.5}
    labelled = store.representatives({"bw"}, lambda name, record: f"{name}/{record}")
    assert labelled == {1: {"bw/0": 10.0, "bw/1": 20.0}, 2: {"bw/0": 7}}
    assert store.values_of([1], {"bw"}, {"api"}) == {
        1: [
            ("bw", 0, 10.0, "MiB/s"),
            ("bw", 0, 12.5, "MiB/s"),
            ("api", 0, "POSIX", ""),
            ("bw", 1, 20.0, "MiB/s"),
        ]
    }
    assert store.units() == {"bw": "MiB/s", "bw_max": "MiB/s", "t": "s"}


def test_a_schema_1_store_reads_as_if_written_now(tmp_path: Path) -> None:
    schema_1(tmp_path / "old.sqlite")
    now = fresh(tmp_path / "new.sqlite")
    now.store_analysis([(wp, True, "", "s", found) for wp, found in FOUND.items()])
    old = Store(tmp_path / "old.sqlite")
    assert old.meta()["schema_version"] == str(SCHEMA_VERSION)
    assert old.measurements() == now.measurements()
    assert old.representatives() == now.representatives()
    assert old.representatives({"bw", "t"}) == now.representatives({"bw", "t"})
    assert old.values_of([1, 2]) == now.values_of([1, 2])
    assert old.found_counts() == {1: 6, 2: 2}
    tables = {n for (n,) in old.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "measurement" not in tables


def test_analysing_again_replaces_the_values(tmp_path: Path) -> None:
    store = fresh(tmp_path / "s.sqlite")
    store.store_analysis([(1, True, "", "a", FOUND[1])])
    store.store_analysis([(1, True, "", "b", [Measurement("bw", 3.0, "MiB/s")])])
    assert store.representatives({"bw", "api"}) == {1: {"bw": 3.0}}


def test_a_schema_1_store_that_cannot_be_written_is_read_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema_1(tmp_path / "old.sqlite")
    before = (tmp_path / "old.sqlite").read_bytes()
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    old = Store(tmp_path / "old.sqlite")
    assert old.representatives({"bw"}) == {1: {"bw": 10.0, "bw@1": 20.0}, 2: {"bw": 7}}
    old.close()
    assert (tmp_path / "old.sqlite").read_bytes() == before


_VALUES = st.one_of(
    st.floats(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
)
_FOUND = st.dictionaries(
    st.integers(min_value=1, max_value=4),
    st.lists(
        st.builds(
            Measurement,
            st.sampled_from(["bw", "t", "api", "x@y", 'q"uote']),
            _VALUES,
            st.sampled_from(["", "MiB/s"]),
            st.integers(min_value=0, max_value=2),
        ),
        max_size=6,
    ),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(found=_FOUND, names=st.sets(st.sampled_from(["bw", "t", "api", "x@y", 'q"uote', "none"])))
def test_sqlite_picks_out_the_first_values_python_decodes(
    tmp_path: Path, found: dict[int, list[Measurement]], names: set[str]
) -> None:
    """The few names a table reads (picked out by SQLite) are the values the whole packed
    rows give when decoded in Python: NaN, infinities, texts and absent names alike (each
    workpackage's in the run's order of names there, its own here)."""
    store = Store(Path(tempfile.mkdtemp(dir=tmp_path)) / "s.sqlite", create=True)
    store.add_workpackages([Workpackage(i, "run", 0, {}) for i in found])
    store.store_analysis([(wp, True, "", "s", values) for wp, values in found.items()])
    every = store.representatives(label=lambda name, record: f"{record}:{name}")
    expected = {
        wp: sorted(kept, key=repr)
        for wp, values in every.items()
        if (kept := [v for v in values.items() if v[0].split(":", 1)[1] in names])
    }
    picked = store.representatives(names, lambda name, record: f"{record}:{name}")
    assert repr({wp: sorted(v.items(), key=repr) for wp, v in picked.items()}) == repr(expected)
    store.close()
