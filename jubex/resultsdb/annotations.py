"""What a site's people said happened on a date ("Lustre 2.15 upgrade"), kept beside the runs.

``jubex annotate`` writes one; the dashboard shows them on the histories of that site, so a
step in a history is read beside the change that explains it.
"""

from __future__ import annotations

import getpass
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import sqlalchemy as sa

from jubex.errors import UsageError
from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database


@dataclass(frozen=True, slots=True)
class Annotation:
    """One note of a site: when it happened (seconds since the epoch, UTC) and what."""

    site: str
    moment: float
    text: str
    user: str


def moment_of(text: str) -> float:
    """``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM`` (UTC unless it says otherwise) in seconds."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"'{text}' is no date: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def annotate(database: Database, site: str, date: str, text: str) -> Annotation:
    """Keep a note of ``site`` at ``date``; an empty site or text is refused."""
    if not site.strip() or not text.strip():
        raise UsageError("an annotation needs a site and a text, e.g. juwels 2026-03-02 'upgrade'")
    note = Annotation(site.strip(), moment_of(date), text.strip(), getpass.getuser())
    with database.writing() as connection:
        connection.execute(
            schema.site_annotations.insert(),
            {
                "site": note.site,
                "moment": note.moment,
                "text": note.text,
                "user_name": note.user,
                "made": time.time(),
            },
        )
    return note


def annotations_of(database: Database, sites: Sequence[str] | None = None) -> list[Annotation]:
    """The notes of ``sites`` (None: of every site), oldest first."""
    table = schema.site_annotations
    query = sa.select(table).order_by(table.c.moment, table.c.id)
    if sites is not None:
        query = query.where(table.c.site.in_(list(sites)))
    with database.reading() as connection:
        return [
            Annotation(row.site, row.moment, row.text, row.user_name)
            for row in connection.execute(query)
        ]
