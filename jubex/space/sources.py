"""Where each value of a run comes from, in jubex's own format: the command line (``-p``)
over the platform file over the definition's default.

A definition is written once for many systems, so a value the platform file gives (the
path to IOR on this cluster) must reach the commands even where the definition names a
default (``ior: ior``); a definition that means its value whatever the platform says
writes ``pinned: true``. JUBE files keep JUBE's own rules: their parameters always win.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from jubex.definition.model import Benchmark, Parameter
from jubex.definition.tags import tag_matches
from jubex.platform.model import Platform

#: the source of a value ``-p`` set
COMMAND_LINE = "command line (-p)"


def platform_values(
    benchmark: Benchmark, platform: Platform, given: Collection[str], tags: Collection[str]
) -> tuple[Benchmark, dict[str, str]]:
    """The benchmark with the platform's values in place of its defaults, and where each
    parameter's values come from (``given``: the names ``-p`` set; ``tags``: the run's)."""
    sources: dict[str, str] = {}
    psets = {}
    for key, pset in benchmark.parametersets.items():
        zipped = {name for group in pset.zips for name in group}
        params = {}
        for name, param in pset.parameters.items():
            params[name] = param
            if param.tag and not tag_matches(param.tag, tags, param.loc):
                continue  # not a value of this run
            sources[name] = _source(param, platform, given, zipped, benchmark.dialect)
            if sources[name].startswith("platform"):
                params[name] = _from_platform(param, platform)
        psets[key] = dataclasses.replace(pset, parameters=params)
    for name in platform.parameters:
        sources.setdefault(
            name, COMMAND_LINE if name in given else _platform_source(platform, name)
        )
    return dataclasses.replace(benchmark, parametersets=psets), sources


def _source(
    param: Parameter,
    platform: Platform,
    given: Collection[str],
    zipped: Collection[str],
    dialect: str,
) -> str:
    if param.name in given:
        return COMMAND_LINE
    if param.name not in platform.parameters:
        return "definition"
    if dialect != "jubex":
        return "definition (a JUBE file's parameter wins over the platform's)"
    if param.pinned:
        return "definition (pinned: the platform's value is not used)"
    if param.name in zipped:
        return "definition (zipped with others: the platform's value is not used)"
    return _platform_source(platform, param.name)


def _platform_source(platform: Platform, name: str) -> str:
    loc = platform.where(f"parameters.{name}")
    return f"platform {loc}" if loc else f"platform '{platform.name}'"


def _from_platform(param: Parameter, platform: Platform) -> Parameter:
    """The definition's parameter with the platform's one value (its type kept)."""
    return dataclasses.replace(
        param, values=(str(platform.parameters[param.name]),), mode="text", separator=None
    )
