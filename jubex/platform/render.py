"""Rendering a platform's Jinja2 texts: launcher, environment values, job-script template.

Undefined names are errors (``StrictUndefined``), reported with the platform file and the
line of the text, so a misspelt ``{{ task }}`` never becomes an empty string in a job
script. Templates are compiled once per platform and text.

A platform file may come from elsewhere (a site's collection, ``platform detect``), so a
text is rendered in Jinja2's sandbox (no ``__class__`` walks; ``range()`` capped at
100,000) and within bounds on what it may cost, whatever construct spends it (nested
loops, ``'x' * n``, a namespace doubling a string, a wide ``center``): rendering stops
past ``RENDER_SECONDS`` of wall time, past ``RENDER_MEMORY`` bytes of memory beyond what
the process held before (both on the main thread, where jubex renders), and past
``RENDER_OUTPUT`` characters of output, each with an error naming the text.
"""

from __future__ import annotations

import resource
import shlex
import signal
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from types import FrameType
from typing import Protocol

import jinja2
import jinja2.sandbox

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


RENDER_SECONDS = 10.0
RENDER_MEMORY = 512 * 2**20
RENDER_OUTPUT = 4 * 2**20


class _OutOfTime(Exception):
    """Raised by the timer's signal inside a render that ran past ``RENDER_SECONDS``."""


class _Sandbox(jinja2.sandbox.SandboxedEnvironment):
    """The sandbox, with ``*`` and ``**`` checked before they run: both can make a value of
    gigabytes from a few characters, and intercepting them also keeps Jinja2 from folding
    them into a constant while compiling, outside every bound."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left, right):  # type: ignore[no-untyped-def]
        refused = _too_large(operator, left, right)
        if refused:
            raise jinja2.sandbox.SecurityError(refused)
        return super().call_binop(context, operator, left, right)


def _too_large(operator: str, left: object, right: object) -> str | None:
    """Why ``left operator right`` would make too large a value, or None."""
    for seq, times in ((left, right), (right, left)):
        if (
            operator == "*"
            and isinstance(seq, str | list | tuple)
            and isinstance(times, int)
            and len(seq) * times > RENDER_OUTPUT
        ):
            return (
                f"a sequence of {len(seq)} repeated {times} times would hold more "
                f"than {RENDER_OUTPUT // 2**20} Mi items"
            )
    if (
        operator == "**"
        and isinstance(left, int)
        and isinstance(right, int)
        and abs(left) > 1
        and right * abs(left).bit_length() > 2**16
    ):
        return f"{left} ** {right} has more than 65,536 bits"
    return None


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = _Sandbox(
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
        with _bounded():
            return _render_capped(template, context, platform, key, where)
    except _OutOfTime:
        raise DefinitionError(
            f"{key} of platform '{platform.name}' ran for more than {RENDER_SECONDS:g} s "
            "while being rendered",
            where,
            "a job template renders in well under a second; look for large or nested loops",
        ) from None
    except MemoryError:
        raise _too_much_memory(platform, key, where) from None
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


def _render_capped(
    template: jinja2.Template,
    context: Mapping[str, object],
    platform: Platform,
    key: str,
    where: Loc | None,
) -> str:
    """The rendered text, built chunk by chunk so that an output past ``RENDER_OUTPUT``
    stops the render instead of being held whole."""
    chunks: list[str] = []
    size = 0
    for chunk in template.generate(context):
        size += len(chunk)
        if size > RENDER_OUTPUT:
            raise DefinitionError(
                f"{key} of platform '{platform.name}' renders to more than "
                f"{RENDER_OUTPUT // 2**20} Mi characters",
                where,
                "a job script or launcher line is a few kilobytes",
            )
        chunks.append(chunk)
    return "".join(chunks)


@contextmanager
def _bounded() -> Iterator[None]:
    """Bound the render's wall time (a timer signal) and the process's address space
    (``RLIMIT_AS`` lowered to what it holds now plus ``RENDER_MEMORY``), both restored
    afterwards. Both belong to the whole process, so only the main thread sets them (jubex
    renders there); elsewhere the sandbox and the output cap still hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with _address_space_limit(), _time_limit():
        yield


@contextmanager
def _time_limit() -> Iterator[None]:
    def expired(signum: int, frame: FrameType | None) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, RENDER_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _address_space_limit() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    held = _address_space()
    if held is None:
        yield
        return
    wanted = held + RENDER_MEMORY
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft <= wanted:
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space() -> int | None:
    """The process's virtual memory size in bytes (Linux), or None where it is not known."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


def check(platform: Platform, key: str, text: str) -> None:
    """Compile a text now, so that a syntax error shows when the platform is loaded."""
    _compiled(platform, key, text)


def _compiled(platform: Platform, key: str, text: str) -> jinja2.Template:
    """The compiled text, or an error naming the platform file and line."""
    try:
        with _bounded():  # Jinja2 folds constant expressions ('x' * 10**10) when compiling
            return _compile(text)
    except _OutOfTime:
        raise DefinitionError(
            f"{key} of platform '{platform.name}' ran for more than {RENDER_SECONDS:g} s "
            "while being compiled",
            platform.where(key),
            "look for a constant expression such as 'x' * 10**10 or 2**10**9",
        ) from None
    except MemoryError:
        raise _too_much_memory(platform, key, platform.where(key)) from None
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


def _too_much_memory(platform: Platform, key: str, where: Loc | None) -> DefinitionError:
    return DefinitionError(
        f"{key} of platform '{platform.name}' needs more than "
        f"{RENDER_MEMORY // 2**20} MiB of memory to be rendered",
        where,
        "look for a repeated string ('x' * n), a growing loop or a huge width",
    )


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
