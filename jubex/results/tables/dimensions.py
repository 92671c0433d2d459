"""What tells the runs of a result set apart: the keys every table and plot of several runs
keeps as a dimension (a column, a series, a pivot), so that runs that differ are never
averaged into one row.

Two runs differ when their resolved studies do: the definition (tags applied, overrides
placed), the platform, the tags. What differs is named by the row key that shows it: ``site``
or ``platform``, the parameters whose values differ (an override, an edited definition),
else ``run``. Runs of identical studies are repetitions of one another and pool, with a
note saying so; ``--pool`` pools whatever differs, ``--by KEY`` chooses the keys.
"""

from __future__ import annotations

from collections.abc import Sequence

from jubex.definition.frozen import to_json
from jubex.errors import UsageError, did_you_mean
from jubex.plain import dataclass
from jubex.results.tables.keys import derived_parameters
from jubex.results.tables.table import Row
from jubex.store.rundir import Run

#: keys a set of runs is told apart by, in the order they are tried
WHERE = ("site", "platform", "run")


@dataclass(frozen=True)
class Dimensions:
    """The keys that keep the runs apart (none: they pool) and a note saying which."""

    keys: tuple[str, ...] = ()
    note: str = ""


def definition_hash(run: Run) -> str:
    """The resolved definition's fingerprint (where its file lies left out): two runs of
    one definition, with the same tags and overrides, share it."""
    return run.definition_hash


def study_of(run: Run) -> str:
    """What a run measured, as one string: equal for runs that are repetitions."""
    spec = run.spec
    return "\n".join(
        [
            definition_hash(run),
            to_json(spec.platform),
            repr(sorted(spec.tags)),
            repr(sorted(spec.overrides.items())),
        ]
    )


def studies(runs: Sequence[Run]) -> set[str]:
    """The distinct studies of the runs (:func:`study_of`), each written once per spec:
    runs opened from one ``run.json`` text share their spec, and writing its platform as
    JSON for each of 1,000 runs took half a second."""
    distinct = {(id(run.spec), run.definition_hash): run for run in runs}
    return {study_of(run) for run in distinct.values()}


def run_labels(runs: Sequence[Run]) -> list[str]:
    """How rows name their run: its id, or where runs of several outpaths share ids (two
    sites' ``000000``), the outpath's name before it; the full path where even that is
    ambiguous."""
    for label in (
        lambda r: r.id,
        lambda r: f"{r.dir.parent.name}/{r.id}",
        lambda r: f"{r.dir.parent.parent.name}/{r.dir.parent.name}/{r.id}",
        lambda r: str(r.dir),
    ):
        labels = [label(run) for run in runs]
        if len(set(labels)) == len(labels):
            return labels
    return [str(run.dir) for run in runs]


def dimensions(
    runs: Sequence[Run], rows: Sequence[Row], by: Sequence[str] | None = None
) -> Dimensions:
    """The keys that tell ``runs`` apart in ``rows``: what differs between them (``by``:
    these keys instead; empty: pool them all)."""
    if by:
        _check_keys(by, runs, rows)
    if len(runs) < 2:
        return Dimensions()
    names = ", ".join(run_labels(runs))
    differ = differing(runs, rows)
    if by is not None and not by:
        why = f": they differ in {', '.join(differ)}" if differ else ""
        return Dimensions((), f"runs {names} pooled as repetitions (--pool){why}")
    if by:
        pooled = pooled_rows(by, rows)
        told = f"runs {names} told apart by {', '.join(by)} (--by)"
        return Dimensions(tuple(by), f"{told}; {pooled}" if pooled else told)
    if not differ:
        return Dimensions(
            (),
            f"runs {names} pooled as repetitions: their studies are identical "
            "(--by run keeps them apart)",
        )
    pooled = pooled_rows(differ, rows)
    return Dimensions(
        tuple(differ),
        f"runs {names} differ in {', '.join(differ)}: kept apart by it"
        + (f"; {pooled}, as repetitions: the same point in each" if pooled else ", never pooled")
        + f" ({'--by run keeps them apart, ' if pooled else ''}--pool pools them)",
    )


def pooled_rows(keys: Sequence[str], rows: Sequence[Row], shown: int = 4) -> str:
    """Which runs the rows of which values of ``keys`` pool (several runs have them), as
    ``runs 000000, 000001 pooled in the rows of transfer 256k``; empty where none do."""
    by_value: dict[tuple[str, ...], dict[str, None]] = {}
    for row in rows:
        value = tuple(str(row.get(key)) for key in keys)
        by_value.setdefault(value, {})[str(row.get("run"))] = None
    by_runs: dict[tuple[str, ...], list[str]] = {}
    for value, found in by_value.items():
        if len(found) > 1:
            where = ", ".join(f"{key} {v}" for key, v in zip(keys, value, strict=True))
            by_runs.setdefault(tuple(found), []).append(where)
    parts = []
    for labels, wheres in by_runs.items():
        more = f" and {len(wheres) - shown} more" if len(wheres) > shown else ""
        parts.append(
            f"runs {', '.join(labels)} pooled in the rows of {'; '.join(wheres[:shown])}{more}"
        )
    return "; ".join(parts)


def _check_keys(by: Sequence[str], runs: Sequence[Run], rows: Sequence[Row]) -> None:
    """``--by`` names keys the rows have: ``run``, ``site``, ``platform`` or a parameter."""
    known = [*WHERE, *dict.fromkeys(n for run in runs for n in run.benchmark.parameter_types())]
    for key in by:
        if key not in known and not any(key in row for row in rows):
            raise UsageError(
                f"--by {key}: the runs have no such key (they have: {', '.join(known)})",
                hint=did_you_mean(key, known),
            )


def differing(runs: Sequence[Run], rows: Sequence[Row]) -> list[str]:
    """The row keys naming what differs between the runs' studies (none: identical)."""
    if len(studies(runs)) < 2:
        return []
    found = [k for k in ("site", "platform") if len({_where(run, k) for run in runs}) > 1][:1]
    found += _parameters_differing(runs, rows)
    return found or ["run"]


def _where(run: Run, key: str) -> str:
    platform = run.platform
    return platform.name if key == "platform" else (platform.site or platform.name)


def _parameters_differing(runs: Sequence[Run], rows: Sequence[Row]) -> list[str]:
    """Independent parameters whose values in the rows of one run are not those of another
    (a derived one, such as an ``options`` text holding ``$block``, only follows them)."""
    names: dict[str, None] = {}
    for run in runs:
        names.update(dict.fromkeys(run.benchmark.parameter_types()))
    for name in derived_parameters(run.benchmark for run in runs):
        names.pop(name)
    seen: dict[str, dict[object, set[str]]] = {name: {} for name in names}
    for row in rows:
        for name, per_run in seen.items():
            if name in row:
                per_run.setdefault(row.get("run"), set()).add(str(row[name]))
    return [
        name
        for name, per_run in seen.items()
        if len({frozenset(values) for values in per_run.values()}) > 1
        or 0 < len(per_run) < len(runs)
    ]
