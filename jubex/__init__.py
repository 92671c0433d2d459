"""jubex: a declarative benchmark workflow environment for HPC.

Importing the package does nothing but define names; the library's functions
(``from jubex import resolve, run, result, compare``) are imported from
:mod:`jubex.api` when first used. Every stage is a subpackage: see docs/design.md.
"""

from __future__ import annotations

from typing import Any

from jubex.version import __version__

#: the library's names, each a function of :mod:`jubex.api`
API = (
    "load",
    "validate",
    "resolve",
    "run",
    "dry_run",
    "drive",
    "open_runs",
    "result",
    "compare",
)

__all__ = ["__version__", *API]


def __getattr__(name: str) -> Any:
    if name in API:
        from jubex import api

        return getattr(api, name)
    raise AttributeError(f"module 'jubex' has no attribute '{name}'")
