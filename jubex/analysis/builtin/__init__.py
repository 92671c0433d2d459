"""Built-in analysers by name; each lives in its own module, imported when first asked for.

jubex's own kernels print the layout of the program they stand in for, so their names are
aliases: ``jubex-bw`` is read by ``ior``, ``jubex-md`` by ``mdtest``.
"""

from __future__ import annotations

import importlib

from jubex.analysis.measurement import BuiltinAnalyser
from jubex.errors import DefinitionError, did_you_mean

_MODULES = ("darshan", "fio", "io500", "ior", "mdtest")
_ALIASES = {"jubex-bw": "ior", "jubex-md": "mdtest"}


def names() -> list[str]:
    """Every name a definition may use after ``analyse:``, aliases included."""
    return sorted([*_MODULES, *_ALIASES])


def is_builtin(name: str) -> bool:
    return name in _MODULES or name in _ALIASES


def get(name: str) -> BuiltinAnalyser:
    """The built-in analyser called ``name``; a DefinitionError naming the closest one."""
    module = _ALIASES.get(name, name)
    if module not in _MODULES:
        raise DefinitionError(
            f"unknown built-in analyser '{name}'; known: {', '.join(names())}",
            hint=did_you_mean(name, names()),
        )
    analyser: BuiltinAnalyser = importlib.import_module(f"{__name__}.{module}").ANALYSER
    return analyser
