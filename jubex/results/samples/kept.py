"""A run's result rows kept in its store, so that reading them again costs one query.

Reading the rows of a run (its workpackages, values, samples, verdicts and neighbours) costs
about 150 µs a row; a history over 1,000 runs reads them all each time. The rows read are
kept, per set of names read, in the store's ``summary`` table (:meth:`Store.snapshot`),
which triggers empty at any change of what they were made of: a re-analysis, a new state,
a changed parameter or meta value. Only rows of plain values are kept, so that they read
back exactly as read the first time (typed parameters come back through the store's
decoder, from the texts it stores); anything else is read the slow way each time.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Collection, Mapping, Sequence
from functools import cache
from pathlib import Path

from jubex.store.rundir import Run
from jubex.version import __version__

#: the layout of a kept row; a change of it must change this
FORMAT = 1

#: the modules that make a row: rows kept by another text of them are not read
_MAKERS = (
    "jubex.results.samples.rows",
    "jubex.results.samples.kept",
    "jubex.results.samples.concurrency",
    "jubex.analysis.harvest",
    "jubex.analysis.run",
    "jubex.store.store",
    "jubex.store.packed",
)

_SCALARS = (str, int, float, bool, type(None))


def summary_key(names: Collection[str] | None, per_iteration: bool) -> str:
    """The key of the rows read of these names: also the code that read them."""
    wanted = None if names is None else sorted(names)
    return json.dumps(["rows", FORMAT, __version__, _code(), per_iteration, wanted])


@cache
def _code() -> str:
    """A digest of the modules that make rows, once a process: a changed jubex (a version
    not renamed, a checkout of another commit) never reads the rows another one kept."""
    digest = hashlib.blake2b(digest_size=8)
    for name in _MAKERS:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        try:
            digest.update(Path(path).read_bytes() if path else name.encode())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()


def freeze(run: Run, rows: Sequence[Mapping[str, object]], meta: Collection[str]) -> str | None:
    """The rows as kept: per row, its workpackage's stored parameter texts and the rest
    of the row (the ``meta`` keys always, as they replace a parameter of their name);
    ``None`` when a row holds anything JSON does not give back as it was."""
    texts = dict(run.store.db.execute("SELECT id, params FROM workpackage"))
    kept = []
    for row in rows:
        params = texts.get(row.get("jube_wp_id"))
        if params is None:
            return None
        point = json.loads(params)
        if not isinstance(point, dict):
            return None
        rest = {k: v for k, v in row.items() if k not in point or k in meta}
        if not all(_plain(k, v) for k, v in rest.items()):
            return None
        kept.append((params, rest))
    return "[" + ",".join(f"[{params},{json.dumps(rest)}]" for params, rest in kept) + "]"


def thaw(run: Run, data: str, label: str | None) -> list[dict[str, object]]:
    """The rows kept as ``data``, as :func:`freeze` was given them (``label``: the run's
    name in the ``run`` key)."""
    decode = run.store.decode
    name = label or run.id
    rows = []
    for params, rest in json.loads(data):
        row = decode(params)
        rest["run"] = name
        rest["samples"] = {k: tuple(v) for k, v in rest["samples"].items()}
        rest["executions"] = {
            k: tuple(tuple(pair) for pair in v) for k, v in rest["executions"].items()
        }
        row.update(rest)
        rows.append(row)
    return rows


def _plain(key: str, value: object) -> bool:
    """Whether JSON gives ``value`` back as it is (samples and executions: as tuples)."""
    if key == "samples":
        return isinstance(value, dict) and all(
            type(v) is tuple and all(type(x) in _SCALARS for x in v) for v in value.values()
        )
    if key == "executions":
        return isinstance(value, dict) and all(
            type(v) is tuple and all(type(p) is tuple and all(type(x) is int for x in p) for p in v)
            for v in value.values()
        )
    return type(value) in _SCALARS
