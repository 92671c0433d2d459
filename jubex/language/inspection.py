"""Looking at a definition runs none of its code: shell and python values are not evaluated.

``validate``, ``info``, ``run --dry-run`` and ``convert`` only look. A definition's
``shell`` and ``python`` values are code (a command, real Python) written by whoever wrote
the file, so these commands show such a value, and every value computed from it, as
:data:`NOT_EVALUATED` instead of running it. The user opts in with ``--allow-code``, the
environment variable ``JUBEX_ALLOW_CODE`` (``1``, ``true``, ``yes``; for a site's module
file), or ``allow_code: true`` in the user's ``config.yaml``. ``jubex run`` evaluates them
as JUBE does.
"""

from __future__ import annotations

import os

from jubex.language.config import config_allows_code, user_config_file

_ENV_SWITCH = "JUBEX_ALLOW_CODE"


class NotEvaluated(str):
    """The value of code that inspection did not run (a text, so that it shows and
    substitutes as one; never a number, so that no count or table mistakes it for one)."""

    __slots__ = ()


NOT_EVALUATED = NotEvaluated("<not evaluated>")

_inspecting = False
_never_runs = False


def set_inspecting(only_looking: bool, allow_code: bool = False, never_runs: bool = False) -> None:
    """Whether the command only looks (and so runs no code), unless the user allows it
    (``allow_code``: the command line's ``--allow-code``; else the environment, the config);
    a command that ``never_runs`` code looks whatever allows it."""
    global _inspecting, _never_runs
    _never_runs = never_runs
    _inspecting = never_runs or (only_looking and not (allow_code or code_allowed()))


def never_runs() -> bool:
    """Whether the command runs no code at all (nothing lets it)."""
    return _never_runs


def inspecting() -> bool:
    """Whether code is shown as not evaluated instead of being run."""
    return _inspecting


def code_allowed() -> bool:
    """Whether the environment or the user's configuration lets inspection run code."""
    if os.environ.get(_ENV_SWITCH, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    return config_allows_code(user_config_file())
