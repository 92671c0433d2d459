"""Rendering a platform's Jinja2 texts: launcher, environment values, job-script template.

Undefined names are errors (``StrictUndefined``), reported with the platform file and the
line of the text, so a misspelt ``{{ task }}`` never becomes an empty string in a job
script. Templates are compiled once per platform and text.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from functools import lru_cache
from typing import Protocol

import jinja2

from jubex.errors import DefinitionError, Loc


class Platform(Protocol):
    """What rendering needs of a platform: its name and where each text is written (so
    the model renders its texts without this module importing it back)."""

    @property
    def name(self) -> str: ...

    def where(self, key: str) -> Loc | None: ...


def _hms(seconds: float | str) -> str:
    """``hh:mm:ss`` (hours may pass 24) for a number of seconds."""
    total = int(-(-float(seconds) // 1))
    return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def _minutes(seconds: float | str) -> int:
    """Whole minutes, rounded up: a limit must never be shorter than asked for."""
    return int(-(-float(seconds) // 60))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        autoescape=False,
    )
    env.filters.update(shquote=lambda value: shlex.quote(str(value)), hms=_hms, minutes=_minutes)
    return env


@lru_cache(maxsize=256)
def _compile(text: str) -> jinja2.Template:
    return environment().from_string(text)


def render(platform: Platform, key: str, text: str, context: Mapping[str, object]) -> str:
    """Render one of the platform's texts, naming the platform file and line on error."""
    where = platform.where(key)
    template = _compiled(platform, key, text)
    try:
        return template.render(context)
    except jinja2.UndefinedError as exc:
        known = ", ".join(sorted(k for k in context if not k.startswith("_")))
        raise DefinitionError(
            f"{key} of platform '{platform.name}' uses a name that is not defined: {exc.message}",
            where,
            f"known names: {known}",
        ) from None
    except jinja2.TemplateError as exc:
        raise DefinitionError(
            f"{key} of platform '{platform.name}' cannot be rendered: {exc}", where
        ) from None
    except (RecursionError, SyntaxError):  # SyntaxError: Python's nesting limits
        raise _too_deep(platform, key, where) from None
    except (ArithmeticError, ValueError, TypeError, NameError) as exc:  # 1e400 renders as `inf`
        raise DefinitionError(
            f"{key} of platform '{platform.name}' cannot be rendered with these values: "
            f"{type(exc).__name__}: {exc}",
            where,
        ) from None


def check(platform: Platform, key: str, text: str) -> None:
    """Compile a text now, so that a syntax error shows when the platform is loaded."""
    _compiled(platform, key, text)


def _compiled(platform: Platform, key: str, text: str) -> jinja2.Template:
    """The compiled text, or an error naming the platform file and line."""
    try:
        return _compile(text)
    except jinja2.TemplateSyntaxError as exc:
        raise DefinitionError(
            f"{key} of platform '{platform.name}' is not a valid Jinja2 template: {exc.message}",
            _line_in(platform.where(key), exc.lineno),
        ) from None
    except (RecursionError, SyntaxError):  # SyntaxError: Python's nesting limits
        raise _too_deep(platform, key, platform.where(key)) from None
    except ValueError:  # Jinja2 reads an integer literal with int(), limited to 4,300 digits
        raise DefinitionError(
            f"{key} of platform '{platform.name}' holds a number of more than 4,300 digits",
            platform.where(key),
            "write a shorter number",
        ) from None


def _too_deep(platform: Platform, key: str, where: Loc | None) -> DefinitionError:
    """Jinja2 parses recursively and compiles to Python: a deep enough nesting exhausts the
    stack or Python's limits of indentation and nested blocks."""
    return DefinitionError(
        f"{key} of platform '{platform.name}' nests too deeply to be read as a Jinja2 template",
        where,
        "a job template needs a few levels of {% if %} and ( ), not hundreds",
    )


def _line_in(loc: Loc | None, lineno: int | None) -> Loc | None:
    """The file line of a line of a text whose first line is at ``loc``."""
    if loc is None or not lineno or not loc.line:
        return loc
    return Loc(loc.file, loc.line + lineno - 1)
