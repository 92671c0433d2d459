"""The repetitions of published runs that did not run or were not analysed cleanly, and why.

The dashboard's run pages list them with their causes, as ``jubex report`` does for a run
directory, without opening the runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database


@dataclass(frozen=True, slots=True)
class Failure:
    """One repetition of a point of a run that failed, with its cause."""

    run: int
    step: str
    parameters: dict[str, str]
    repetition: int
    workpackage: int
    reason: str


def failures(database: Database, runs: Sequence[int]) -> list[Failure]:
    """The failed repetitions of the runs of these database ids, in the order of their points."""
    verdicts, points = schema.verdicts, schema.points
    query = (
        sa.select(
            verdicts.c.run,
            points.c.step,
            points.c.parameters,
            verdicts.c.repetition,
            verdicts.c.workpackage,
            verdicts.c.reason,
        )
        .join(points, points.c.id == verdicts.c.point)
        .where(verdicts.c.ok.is_(False))
        .order_by(verdicts.c.run, points.c.id, verdicts.c.repetition)
    )
    found: list[Failure] = []
    ids = list(runs)
    with database.reading() as connection:
        for start in range(0, len(ids), 500):  # a bounded IN list, for any number of runs
            chunk = query.where(verdicts.c.run.in_(ids[start : start + 500]))
            found += [
                Failure(
                    r.run, r.step, json.loads(r.parameters), r.repetition, r.workpackage, r.reason
                )
                for r in connection.execute(chunk)
            ]
    return found
