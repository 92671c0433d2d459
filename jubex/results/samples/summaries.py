"""Values that are a program's own summary over repetitions it prints no value of.

mdtest prints only the maximum, minimum, mean and standard deviation over its iterations
(``-i``), fio only its totals over the ``loops`` of a job: such a value is one sample of a
table, never one per repetition, as nothing else can be told from the output. IOR's
"Summary of all tests" is such a summary too, beside the per-iteration rows that are
samples each. Where a row's count of those repetitions (``iterations``, ``loops``,
``repetitions``) is above one, the table says so, rather than let ``n`` pass for a count
of them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import cache

from jubex.analysis import builtin
from jubex.store.rundir import Run

#: value -> (the program whose summary it is, the value counting the repetitions, whether
#: the program also gives a value per repetition, each a sample)
Summaries = Mapping[str, tuple[str, str, bool]]


def summaries_of(runs: Sequence[Run]) -> dict[str, tuple[str, str, bool]]:
    """The values of the built-in analysers the runs' steps use that are summaries."""
    known = frozenset(builtin.names())
    used = {
        name
        for run in runs
        for step in run.benchmark.steps.values()
        for name in step.analyse
        if name in known
    }
    used |= {a.builtin for run in runs for a in run.benchmark.analysers.values() if a.builtin}
    return dict(_summaries(frozenset(used)))


@cache
def _summaries(used: frozenset[str]) -> dict[str, tuple[str, str, bool]]:
    """The summaries of these built-in analysers, worked out once a process: a history
    asks for those of each of its 1,000 runs, which use the same few."""
    found: dict[str, tuple[str, str, bool]] = {}
    for name in sorted(used):
        metrics = builtin.get(name).metrics
        each = any(metric.repeated for metric in metrics.values())
        for value, metric in metrics.items():
            if metric.summary_over:
                found[value] = (name, metric.summary_over, each)
    return found


def counts_read(names: Collection[str], summaries: Summaries) -> set[str]:
    """The counts a table reading ``names`` needs to say what its summaries are over."""
    return {summaries[name][1] for name in names if name in summaries}


def summary_notes(
    fields: Sequence[str], rows: Sequence[Mapping[str, object]], summaries: Summaries
) -> list[str]:
    """A note per program and count whose summaries the table shows over more than one
    repetition: ``file_creation_mean: mdtest's own statistic over 5 iterations of each
    execution (...)``."""
    shown: dict[tuple[str, str, bool], list[str]] = {}
    for field in dict.fromkeys(fields):
        if field in summaries:
            shown.setdefault(summaries[field], []).append(field)
    notes = []
    for (program, count, each), names in shown.items():
        counts = sorted(
            {
                c
                for row in rows
                if any(row.get(n) is not None for n in names)
                and isinstance(c := row.get(count), int)
                and not isinstance(c, bool)
            }
        )
        if not counts or counts[-1] <= 1:
            continue
        over = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        why = (
            "its per-iteration values give a sample each"
            if each
            else f"{program} prints no value of each"
        )
        notes.append(
            f"{', '.join(names)}: {program}'s own summary over {over} {count} of each "
            f"execution ({why}): one sample per execution, n counts executions"
        )
    return notes
