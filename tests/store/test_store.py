"""The run store: transactions, state history, measurements, newer-schema refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.errors import JubexError
from jubex.language.values import Size, parse_value
from jubex.space.plan import Workpackage
from jubex.store.measurement import Measurement
from jubex.store.store import DONE, PLANNED, QUEUED, SUBMITTED, Store


def make(tmp_path: Path) -> Store:
    store = Store(tmp_path / "s.sqlite", create=True, types={"n": "size"})
    store.add_workpackages(
        [Workpackage(0, "build", 0, {}), Workpackage(1, "run", 0, {"n": parse_value("4KiB")}, (0,))]
    )
    return store


def test_states_and_history_are_recorded(tmp_path: Path) -> None:
    store = make(tmp_path)
    store.set_states([(0, QUEUED, None, None, "")])
    store.set_states([(0, SUBMITTED, "123", None, "")])
    store.set_states([(0, DONE, None, 0, "")])
    (wp,) = store.workpackages(ids=[0])
    assert (wp.state, wp.job_id, wp.exit_code) == (DONE, "123", 0)
    assert [e[2] for e in store.events(0)] == [QUEUED, SUBMITTED, DONE]
    assert store.parents() == {1: [0]}
    (planned,) = store.workpackages(states=[PLANNED])
    assert planned.point == {"n": 4096} and str(planned.point["n"]) == "4KiB"
    assert isinstance(planned.point["n"], Size)
    assert (planned.parents, planned.dir_name) == ((0,), "000001_run")


def test_requeue_forgets_the_old_job_id(tmp_path: Path) -> None:
    store = make(tmp_path)
    store.set_states([(1, SUBMITTED, "7", None, "")])
    store.set_states([(1, PLANNED, None, None, "retry")])
    assert store.workpackages(ids=[1])[0].job_id is None


def test_a_failed_batch_leaves_nothing_behind(tmp_path: Path) -> None:
    store = make(tmp_path)
    with pytest.raises(JubexError, match="UNIQUE"), store.transaction() as db:
        db.execute("UPDATE workpackage SET state = 'done' WHERE id = 0")
        db.execute(
            "INSERT INTO workpackage (id, step, params, workdir, state, updated)"
            " VALUES (1, 'x', '{}', '', 'planned', 0)"
        )
    assert store.workpackages(ids=[0])[0].state == PLANNED


def test_measurements_keep_units_and_missing(tmp_path: Path) -> None:
    store = make(tmp_path)
    found = [
        Measurement("bw", 1.5, "MiB/s"),
        Measurement("bw", 2.5, "MiB/s"),
        Measurement("lat", None, "s", 1),
    ]
    store.store_analysis([(1, True, "", "sig", found)])
    assert store.measurements()[1] == found
    store.store_analysis([(1, False, "broken", "sig2", [])])
    assert 1 not in store.measurements()
    assert store.analysed()[1] == (False, "broken", "sig2")


def test_a_store_from_a_newer_jubex_is_refused(tmp_path: Path) -> None:
    store = make(tmp_path)
    store.set_meta({"schema_version": "99"})
    store.close()
    with pytest.raises(JubexError, match="newer jubex"):
        Store(tmp_path / "s.sqlite")


def test_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(JubexError, match="no run store"):
        Store(tmp_path / "none.sqlite")


def test_meta_is_read_again_after_any_write(tmp_path: Path) -> None:
    store = make(tmp_path)
    store.set_meta({"note": "a"})
    assert store.meta()["note"] == "a"
    other = Store(tmp_path / "s.sqlite")  # another connection, as another program
    other.set_meta({"note": "b"})
    assert store.meta()["note"] == "b"
    with store.transaction() as db:  # this connection's own raw write
        db.execute("UPDATE meta SET value = 'c' WHERE key = 'note'")
    assert store.meta()["note"] == "c" and other.meta()["note"] == "c"
    store.meta()["note"] = "changed by a caller"
    assert store.meta()["note"] == "c"  # a copy each time


def test_a_store_opened_to_read_writes_in_wal_mode(tmp_path: Path) -> None:
    make(tmp_path).close()
    store = Store(tmp_path / "s.sqlite")
    store.db.execute("PRAGMA journal_mode=DELETE")  # as an older program may leave it
    assert store.meta()["schema_version"] == "2"
    store.set_meta({"note": "x"})
    assert store.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
