"""The scheduler's accounting record of each batch job a run submitted (nodes, elapsed,
state, exit code), kept in the run's store beside its workpackages.

A table of its own, made when the first record arrives, so that stores written before it
existed stay readable as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from jubex.store.store import Store

_TABLE = "CREATE TABLE IF NOT EXISTS job (job_id TEXT PRIMARY KEY, record TEXT NOT NULL)"


def save_job_records(store: Store, records: Mapping[str, Mapping[str, str]]) -> None:
    """Keep (or replace) the records of these jobs, in one transaction."""
    if not records:
        return
    with store.transaction() as db:
        db.execute(_TABLE)
        db.executemany(
            "INSERT OR REPLACE INTO job (job_id, record) VALUES (?, ?)",
            ((job, json.dumps(dict(record), sort_keys=True)) for job, record in records.items()),
        )


def job_records(store: Store) -> dict[str, dict[str, str]]:
    """Every record kept, by job id (none for a run on the local platform)."""
    exists = store.db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='job'")
    if exists.fetchone() is None:
        return {}
    return {job_id: json.loads(text) for job_id, text in store.db.execute("SELECT * FROM job")}
