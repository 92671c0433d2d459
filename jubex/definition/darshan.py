"""Running steps under Darshan: the ``darshan:`` key of a definition, a step and a platform.

One spelling serves all three. ``true`` asks for Darshan as the other places say to reach
it; a library path (``/opt/darshan/lib/libdarshan.so``, ``./lib/libdarshan.so``, anything
ending in ``.so``) is preloaded; any other text is a module (``darshan/3.4.4``) the job
loads; ``linked`` says the program is built with Darshan already (IOR's
``--enable-darshan``), so only the log is placed and nothing is preloaded twice; ``false``
turns it off. A mapping names both (``{module: darshan, library: $path}``) and, on a
platform, ``enabled: false`` says how Darshan is reached there without turning it on for
every study. Which setting wins for a step is :func:`effective`'s to say.
"""

from __future__ import annotations

import os
from pathlib import Path

from jubex.errors import DefinitionError, Loc
from jubex.plain import dataclass

#: the word that says a program is built with Darshan (its functions are wrapped already)
LINKED = "linked"
_LIBRARY_STARTS = ("/", "./", "../", "~")


@dataclass(frozen=True)
class Darshan:
    """One ``darshan:`` setting as written (a library path made absolute)."""

    enabled: bool = True
    module: str = ""
    library: str = ""
    #: the program is linked with Darshan: place the log, preload nothing
    linked: bool = False
    loc: Loc | None = None


def is_library(text: str) -> bool:
    """Whether a ``darshan:`` text names a library file rather than a module."""
    return text.startswith(_LIBRARY_STARTS) or text.endswith(".so") or ".so." in text


def darshan_of(value: object, loc: Loc | None, base: Path) -> Darshan | None:
    """The setting of a ``darshan:`` value the schema let through (None when absent).

    ``base`` is the directory a relative library path starts from (the file's). A library
    that is not there is refused now, before anything runs.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return Darshan(enabled=value, loc=loc)
    if isinstance(value, str):
        if value == LINKED:
            return Darshan(linked=True, loc=loc)
        if is_library(value):
            return Darshan(library=_library(value, loc, base), loc=loc)
        return Darshan(module=value, loc=loc)
    if isinstance(value, dict):
        library = str(value.get("library") or "")
        return Darshan(
            enabled=bool(value.get("enabled", True)),
            module=str(value.get("module") or ""),
            library=_library(library, loc, base) if library else "",
            linked=bool(value.get(LINKED, False)),
            loc=loc,
        )
    raise DefinitionError(
        f"darshan: {value!r} is neither true/false, '{LINKED}', a module name, a library path "
        "nor a mapping",
        loc,
    )


def _library(text: str, loc: Loc | None, base: Path) -> str:
    # absolute, its links kept: libdarshan.so names the installed version, whichever it is
    path = Path(os.path.normpath(base.absolute() / Path(text).expanduser()))
    if not path.is_file():
        raise DefinitionError(
            f"darshan: the library {text} does not exist ({path})",
            loc,
            "name the libdarshan.so of an installed darshan-runtime (its lib/ directory), "
            "or a module that provides it",
        )
    return str(path)


def effective(
    step: Darshan | None, study: Darshan | None, platform: Darshan | None, where: str
) -> Darshan | None:
    """The setting a step runs with, or None when it runs without Darshan.

    The step's own setting wins over the study's, the study's over the platform's; a
    platform's turns Darshan on unless it says ``enabled: false``. Where the runtime comes
    from (module, library) is taken from the nearest place that names it, so a study's
    ``true`` uses the platform's module. ``where`` names the step in an error.
    """
    chosen = next((d for d in (step, study, platform) if d is not None), None)
    if chosen is None or not chosen.enabled:
        return None
    given = [d for d in (step, study, platform) if d is not None]
    module = next((d.module for d in given if d.module), "")
    library = next((d.library for d in given if d.library), "")
    linked = chosen.linked or (step is None and study is not None and study.linked)
    if not (module or library or linked):
        raise DefinitionError(
            f"{where} is to run under Darshan, but neither it, its study nor the platform "
            "names a Darshan module or library",
            chosen.loc,
            "write darshan: <module> or darshan: /path/to/libdarshan.so (in the study or "
            f"in the platform file), or darshan: {LINKED} for a program built with Darshan",
        )
    return Darshan(True, module, library, linked, chosen.loc)
