"""The notes a table gets from the darshan analyser's insight flags.

A point whose Darshan log showed small requests or a transfer size other than the study
declared is a result to read with care, whether or not the table shows the flags as a
column: each flag found in the table's rows becomes one note, naming the points it was
found in and what it means (docs/analysers.md, the ``darshan`` analyser).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

#: the darshan analyser's value that lists a log's flags
FLAGS = "darshan_insights"
_SHOWN = 3


def insight_notes(
    rows: Sequence[Mapping[str, object]],
    keys: Sequence[str],
    held: Collection[str] | None = None,
) -> list[str]:
    """``darshan small_requests in 1 of 2 row(s) (transfer=4k): ...`` per flag found;
    ``keys`` (the table's grouping, else its first column) name the rows. ``held``: every
    key any row has, where the caller knows them: rows without the flags are not read
    (40,000 rows of a table of 1,000 runs are a pass that waits on memory)."""
    if held is not None and FLAGS not in held:
        return []
    found: dict[str, list[str]] = {}
    for row in rows:
        raw = row.get(FLAGS)
        if not isinstance(raw, str) or not raw:
            continue
        where = ", ".join(f"{key}={row[key]}" for key in keys if key in row)
        for name in raw.split(", "):
            found.setdefault(name, []).append(where)
    if not found:
        return []
    from jubex.analysis.builtin.darshan import INSIGHTS  # the analyser, only for its flags

    notes = []
    for name, places in found.items():
        distinct = list(dict.fromkeys(place for place in places if place))
        shown = "; ".join(distinct[:_SHOWN])
        if len(distinct) > _SHOWN:
            shown += f"; {len(distinct) - _SHOWN} more"
        text = f"darshan {name} in {len(places)} of {len(rows)} row(s)"
        text += f" ({shown})" if shown else ""
        meaning = INSIGHTS.get(name)
        notes.append(f"{text}: {meaning}" if meaning else text)
    return notes
