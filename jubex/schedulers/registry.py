"""Backends by name, imported lazily so that a missing client breaks only its own backend."""

from __future__ import annotations

import importlib
from typing import Any

from jubex.errors import DefinitionError, JubexError, did_you_mean
from jubex.platform.model import Platform
from jubex.schedulers.base import Scheduler

#: scheduler name -> "module:class". Adding a backend is one file and one line here.
BACKENDS: dict[str, str] = {
    "local": "jubex.schedulers.local:LocalScheduler",
    "slurm": "jubex.schedulers.slurm:SlurmScheduler",
    "pbs": "jubex.schedulers.pbs:PBSScheduler",
    "sge": "jubex.schedulers.sge:SGEScheduler",
    "lsf": "jubex.schedulers.lsf:LSFScheduler",
    "flux": "jubex.schedulers.flux:FluxScheduler",
}


def get_scheduler(name: str, **options: Any) -> Scheduler:
    """An instance of the named backend, configured with the platform's options."""
    try:
        target = BACKENDS[name]
    except KeyError:
        known = ", ".join(sorted(BACKENDS))
        raise JubexError(
            f"unknown scheduler '{name}'; known schedulers: {known}",
            hint=did_you_mean(name, BACKENDS),
        ) from None
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(**options)


def unknown_scheduler(platform: Platform) -> DefinitionError | None:
    """The error of a platform whose scheduler no backend runs, at its ``scheduler`` line."""
    if platform.scheduler in BACKENDS:
        return None
    return DefinitionError(
        f"platform '{platform.name}': no scheduler '{platform.scheduler}'; jubex knows "
        f"{', '.join(sorted(BACKENDS))}",
        platform.where("scheduler"),
        did_you_mean(platform.scheduler, BACKENDS),
    )


def scheduler_for(platform: Platform) -> Scheduler:
    """The backend a platform names, configured by the backend's scheduler_options."""
    problem = unknown_scheduler(platform)
    if problem is not None:
        raise problem
    options = platform.backend_options()
    try:
        return get_scheduler(platform.scheduler, **options)
    except TypeError as exc:
        raise DefinitionError(
            f"the {platform.scheduler} backend does not take one of the scheduler_options "
            f"{sorted(options)} ({exc})",
            platform.where("scheduler_options"),
        ) from None
