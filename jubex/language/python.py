"""Real Python for JUBE snippets the safe language cannot express, in a separate interpreter.

A JUBE file with ``mode="python"`` asks for Python, and JUBE ``eval``s it. jubex first tries
its safe language; what that cannot compile (``exec("from sympy import divisors") or ...``)
is evaluated by one separate Python interpreter (``sys.executable -I``, jubex's own module
path), fed the expression and the values it reads as JSON, one line per evaluation, its
answer read back as JSON. The snippet sees the modules JUBE's own evaluation sees (``os``,
``re``, ``string``, ``operator``, ``subprocess``, ``time``) and imports what else it needs.
The interpreter is started once and reused, so a sweep of thousands of points does not
start thousands of processes; each evaluation has a time limit, and an interpreter that
hangs or crashes is killed and the snippet named. It runs in a scratch directory of its
own (removed when it ends), sees only an allowlist of environment variables (``PATH``,
``HOME``, ``USER``, ``LANG``, ``LC_*``, ...; ``JUBEX_PYTHON_ENV`` names more), and has
limits on CPU time (``JUBEX_PYTHON_CPU``, 600 s) and address space
(``JUBEX_PYTHON_MEMORY``, 2 GiB). Commands that only look (validate, info, the dry run,
convert) do not start it at all unless allowed (:mod:`jubex.language.inspection`).

What refuses any real Python, each on its own: ``--no-python`` on the command line, the
environment variable ``JUBEX_NO_PYTHON`` (``1``, ``true``, ``yes``), ``python: false`` in
the chosen platform file, or ``python: false`` in the user's ``config.yaml`` (platformdirs'
user config dir, ``~/.config/jubex/config.yaml``). JUBE files reach this module, and
jubex's own definitions only where they say ``python:`` (what ``jubex convert`` writes for
such a snippet); everything else uses the safe language alone.
"""

from __future__ import annotations

import atexit
import builtins
import json
import os
import resource
import select
import shutil
import subprocess
import symtable
import sys
import tempfile
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from jubex.errors import ExpressionError, Loc
from jubex.language.config import setting, user_config_file
from jubex.language.inspection import NOT_EVALUATED, inspecting, never_runs
from jubex.language.values import Float, Int

#: seconds one evaluation may take, unless JUBEX_PYTHON_TIMEOUT says otherwise
TIMEOUT = 30.0
_ENV_SWITCH = "JUBEX_NO_PYTHON"
_ENV_TIMEOUT = "JUBEX_PYTHON_TIMEOUT"
#: seconds of CPU the worker may use in all (it is reused for every evaluation of a run)
CPU_LIMIT = 600
#: bytes of address space the worker may map (sympy and numpy import well within it)
MEMORY_LIMIT = 2 << 30
_ENV_CPU, _ENV_MEMORY = "JUBEX_PYTHON_CPU", "JUBEX_PYTHON_MEMORY"
#: the variables the worker sees (besides LC_*), and how to pass more
ENVIRONMENT = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR")
_ENV_PASSED = "JUBEX_PYTHON_ENV"
_BUILTINS = frozenset(dir(builtins))
_WORKER = r"""
import ast, json, operator, os, re, string, subprocess, sys, time
def literal(value):
    try:
        return ast.literal_eval(value.strip()) if isinstance(value, str) else value
    except Exception:
        return value
names = {"os": os, "re": re, "string": string, "operator": operator, "subprocess": subprocess,
         "time": time, "literal": literal}
answers = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.path[:] = json.loads(sys.stdin.readline())
codes = {}
for line in sys.stdin:
    request = json.loads(line)
    try:
        text = request["code"]
        if text not in codes:
            codes[text] = compile(text, request["where"], "eval")
        value = eval(codes[text], {**names, **request["env"]})
        answer = {"value": value if type(value) in (int, float, str) else str(value)}
    except BaseException as exc:
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    answers.write(json.dumps(answer) + "\n")
"""

_allowed: bool | None = None
_platform: str | None = None
_announced: set[tuple[str, Loc | None]] = set()


def set_allowed(value: bool | None) -> None:
    """The command line's choice (``--no-python`` gives False); None leaves it to the rest."""
    global _allowed
    _allowed = value


def refuse_for_platform(name: str | None) -> None:
    """The chosen platform refuses real Python (``python: false`` in platform NAME), or,
    with None, leaves it to the rest."""
    global _platform
    _platform = name


def refused_by() -> str | None:
    """What refuses real Python, said for a message; None when nothing does."""
    if _allowed is not None:  # the command line (or a library's caller) decides first
        return None if _allowed else "--no-python"
    if os.environ.get(_ENV_SWITCH, "").strip().lower() in ("1", "true", "yes", "on"):
        return _ENV_SWITCH
    if _platform is not None:
        return f"platform '{_platform}' (python: false)"
    config = user_config_file()
    if not config_allows(config):
        return f"{config} (python: false)"
    return None


def allowed() -> bool:
    """Whether real Python may run: nothing of :func:`refused_by` refuses it."""
    return refused_by() is None


@lru_cache(maxsize=4)
def config_allows(path: Path) -> bool:
    """``python`` of the user's config.yaml, read once per process; no file: True."""
    return setting(path, "python")


def _timeout() -> float:
    try:
        return float(os.environ.get(_ENV_TIMEOUT, TIMEOUT))
    except ValueError:
        return TIMEOUT


def worker_environment() -> dict[str, str]:
    """The worker's environment: the variables of :data:`ENVIRONMENT` that are set, and
    those ``JUBEX_PYTHON_ENV`` names (comma-separated); no token or key of the caller's."""
    names = set(ENVIRONMENT) | {
        n.strip() for n in os.environ.get(_ENV_PASSED, "").split(",") if n.strip()
    }
    return {n: v for n, v in os.environ.items() if n in names or n.startswith("LC_")}


def _limited() -> None:
    """In the worker before it starts: CPU time and address space bounded."""
    cpu = _limit(_ENV_CPU, CPU_LIMIT)
    memory = _limit(_ENV_MEMORY, MEMORY_LIMIT)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def _limit(variable: str, default: int) -> int:
    text = os.environ.get(variable, "")
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 19 else default


class _Interpreter:
    """One worker process, started when first needed and replaced after a hang or crash."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._scratch: str | None = None
        self._lock = threading.Lock()
        self.started = 0

    def _process(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self.close()
            self._scratch = tempfile.mkdtemp(prefix="jubex-python-")
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                cwd=self._scratch,
                env=worker_environment(),
                preexec_fn=_limited,
            )
            self.started += 1
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(sys.path) + "\n")
        return self._proc

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def evaluate(self, code: str, env: Mapping[str, object], where: str) -> object:
        """The value, or a RuntimeError saying what went wrong (a Python error, a hang)."""
        with self._lock:
            proc = self._process()
            assert proc.stdin is not None and proc.stdout is not None
            try:
                proc.stdin.write(json.dumps({"code": code, "env": env, "where": where}) + "\n")
                proc.stdin.flush()
            except BrokenPipeError:
                self.close()
                raise RuntimeError("the Python interpreter evaluating it had exited") from None
            limit = _timeout()
            if not select.select([proc.stdout], [], [], limit)[0]:
                self.close()
                raise RuntimeError(
                    f"it took longer than {limit:g} s ({_ENV_TIMEOUT} sets the limit)"
                )
            line = proc.stdout.readline()
            if not line:
                status = proc.wait()
                self._proc = None
                raise RuntimeError(f"the Python interpreter evaluating it exited (status {status})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        value: object = answer["value"]
        return value


INTERPRETER = _Interpreter()
atexit.register(INTERPRETER.close)


def _plain(value: object) -> object:
    """A value as JSON carries it: whole numbers and decimals as numbers, the rest as text
    (a size or a duration as written, as JUBE would substitute it), lists and dicts inside out.
    """
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, (Int, Float)):
        return int(value) if isinstance(value, Int) else float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _free_names(text: str) -> frozenset[str]:
    """The names a snippet reads from outside: not Python's built-ins, not the variables of
    its own lambdas and comprehensions (those the rest of jubex may offer as values)."""
    top = symtable.symtable(text, "<python>", "eval")
    found: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and (table is top or symbol.is_global()):
                found.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    walk(top)
    return frozenset(found - _BUILTINS)


class PythonExpr:
    """A snippet for the separate interpreter, with the interface of a compiled ``Expr``."""

    __slots__ = ("loc", "names", "text")

    def __init__(self, text: str, loc: Loc | None = None) -> None:
        try:
            names = _free_names(text.strip())
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            raise ExpressionError(
                f"'{text}' is not a valid Python expression: {exc}", loc
            ) from None
        self.text = text.strip()
        self.loc = loc
        self.names = names

    def __repr__(self) -> str:
        return f"PythonExpr({self.text!r})"

    def evaluate(self, env: Mapping[str, object]) -> object:
        """Evaluated by the separate interpreter; an ExpressionError names the snippet.
        Not evaluated at all when the command only looks (:mod:`inspection`)."""
        if inspecting():
            return NOT_EVALUATED
        if not allowed():
            raise refused(self.text, self.loc)
        values: dict[str, object] = {}
        for name in self.names:
            try:
                values[name] = _plain(env[name])
            except KeyError:
                continue
        try:
            return INTERPRETER.evaluate(self.text, values, str(self.loc or "<python>"))
        except RuntimeError as exc:
            raise ExpressionError(
                f"the python snippet '{self.text}' failed: {exc}", self.loc
            ) from None


def refused(text: str, loc: Loc | None) -> ExpressionError:
    return ExpressionError(
        f"the python snippet '{text.strip()}' needs real Python, which {refused_by()} refuses",
        loc,
        "rewrite it in jubex's safe expression language (jubex help expressions), or run "
        "without the switch",
    )


def announce(text: str, loc: Loc | None, what: str) -> None:
    """Say once, on the warning stream, that a snippet will run as real Python."""
    key = (text, loc)
    if key in _announced:
        return
    _announced.add(key)
    where = f"{loc}: " if loc else ""
    if inspecting():
        print(
            f"{where}note: {what}: the python snippet is outside jubex's safe language and is "
            + (
                "not evaluated (this command runs no code of a definition)"
                if never_runs()
                else "not evaluated (--allow-code evaluates it; `jubex run` does)"
            ),
            file=sys.stderr,
        )
        return
    print(
        f"{where}warning: {what}: the python snippet is outside jubex's safe language and is "
        "evaluated by a separate Python interpreter, as JUBE evaluates it (--no-python forbids it)",
        file=sys.stderr,
    )
