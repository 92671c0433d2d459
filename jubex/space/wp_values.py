"""The values a workpackage ends up with: its ``jube_*`` built-ins, and what it inherits.

JUBE fixes a workpackage's values when it creates it: every ``$jube_wp_*`` name is replaced
with that workpackage's own id, paths and exported environment. A dependent step starts from
its parent workpackage's fixed values; only parameters whose ``update_mode`` says so are
worked out again (``step`` and ``always`` in every step, ``use`` in a step that uses their set
again). A job name such as ``${jube_step_name}_${jube_wp_id}`` given in a compile step
therefore keeps the compile step's name and id in the steps that depend on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from jubex.definition.model import Parameter, Step
from jubex.language.template import template

#: update modes under which a dependent step works a parameter out again at its start
PER_STEP = ("step", "always")
#: ``export NAME = value`` lines of JUBE's environment string
_EXPORT = re.compile(r"^export (.+?)\s*=\s*?(.+?)?\s*?$", re.MULTILINE)


def builtins(
    wp_id: int,
    step: Step,
    iteration: int,
    dir_name: str,
    parents: Mapping[str, int],
    constants: Mapping[str, object],
) -> dict[str, object]:
    """A workpackage's own ``jube_wp_*`` values (paths only once the run directory is known).

    ``jube_wp_relpath`` is relative to the benchmark's home, as JUBE has it: the directory
    JUBE works in, where relative paths of the definition start.
    """
    found: dict[str, object] = {
        "jube_step_name": step.name,
        "jube_wp_id": wp_id,
        "jube_wp_padid": f"{wp_id:06d}",
        "jube_wp_iteration": iteration,
        **{f"jube_wp_parent_{name}_id": pid for name, pid in parents.items()},
    }
    run_dir, home = constants.get("jube_benchmark_rundir"), constants.get("jube_benchmark_home")
    if isinstance(run_dir, str) and isinstance(home, str):
        found["jube_wp_abspath"] = f"{run_dir}/{dir_name}/work"
        found["jube_wp_relpath"] = f"{_relative(run_dir, home)}/{dir_name}/work"
    return found


@lru_cache(maxsize=8)
def _relative(run_dir: str, home: str) -> str:
    """The run directory relative to the home (worked out once per run, not per workpackage)."""
    return os.path.relpath(run_dir, home)


def needs_builtins(point: Mapping[str, object]) -> bool:
    """Whether :func:`finalize` has anything to do for this point."""
    return any(isinstance(v, str) and "$" in v and "jube_" in v for v in point.values())


def finalize(
    point: Mapping[str, object], names: Mapping[str, object], exported: Iterable[str]
) -> dict[str, object]:
    """The point with every ``$jube_*`` name in its texts replaced (up to five passes, for
    values that name such values, as JUBE), the environment built-ins last, from the
    exported values so fixed. A text so completed is stripped, as JUBE strips every value."""
    env: dict[str, object] = {**names, **point}
    final = dict(point)
    late = [n for n, v in point.items() if isinstance(v, str) and "$" in v and "jube_" in v]
    for name in late:
        final[name] = env[name] = _substitute(str(final[name]), env)
    waiting = [n for n in late if "jube_wp_env" in str(final[n])]
    if waiting:
        env.update(environment(final, exported))
    for name in late:
        value = str(final[name])
        final[name] = env[name] = (_substitute(value, env) if name in waiting else value).strip()
    return final


def environment(values: Mapping[str, object], exported: Iterable[str]) -> dict[str, str]:
    """``jube_wp_envstr`` (one ``export NAME="value"`` line per exported parameter, as JUBE
    quotes them) and ``jube_wp_envlist`` (their names), sorted regardless of case."""
    names = sorted((n for n in set(exported) if n in values), key=str.lower)
    text = "".join(f"export {n}={values[n]}\n" for n in names)
    return {"jube_wp_envstr": _quote_exports(text), "jube_wp_envlist": ",".join(names)}


def _quote_exports(text: str) -> str:
    lines = []
    for name, value in _EXPORT.findall(text):
        if not value:
            lines.append(f'export {name}=""\n')
        elif value[0] == value[-1] and value[0] in "'\"":
            lines.append(f"export {name}={value}\n")
        else:
            escaped = value.replace('"', '\\"')
            lines.append(f'export {name}="{escaped}"\n')
    return "".join(lines)


def _substitute(value: str, env: Mapping[str, object]) -> str:
    for _ in range(5):
        rendered = template(value).render(env)
        if rendered == value or "$" not in rendered:
            return rendered
        value = rendered
    return value


def inherited(
    params: Mapping[str, Parameter], own_sets: Iterable[Mapping[str, Parameter]]
) -> frozenset[str]:
    """The parameters a dependent step takes from its parent as they are: all but those JUBE
    works out again at the step's start (``step``, ``always``; ``use`` if a set of the step
    itself defines it again)."""
    own = {name for s in own_sets for name in s}
    return frozenset(
        name
        for name, p in params.items()
        if p.update_mode not in PER_STEP and not (p.update_mode == "use" and name in own)
    )
