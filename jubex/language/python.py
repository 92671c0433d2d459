"""Real Python for JUBE snippets the safe language cannot express, in a separate interpreter.

A JUBE file with ``mode="python"`` asks for Python, and JUBE ``eval``s it. jubex first tries
its safe language; what that cannot compile (``exec("from sympy import divisors") or ...``)
is evaluated by one separate Python interpreter (``sys.executable -I``, jubex's own module
path), fed the expression and the values it reads as JSON, one line per evaluation, its
answer read back as JSON. The snippet sees the modules JUBE's own evaluation sees (``os``,
``re``, ``string``, ``operator``, ``subprocess``, ``time``) and imports what else it needs.
The interpreter is started once and reused, so a sweep of thousands of points does not
start thousands of processes; each evaluation has a time limit, and an interpreter that
hangs or crashes is killed and the snippet named.

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
import select
import subprocess
import symtable
import sys
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from jubex.errors import ExpressionError, Loc, UsageError
from jubex.language.values import Float, Int

#: seconds one evaluation may take, unless JUBEX_PYTHON_TIMEOUT says otherwise
TIMEOUT = 30.0
_ENV_SWITCH = "JUBEX_NO_PYTHON"
_ENV_TIMEOUT = "JUBEX_PYTHON_TIMEOUT"
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


def user_config_file() -> Path:
    """The user's jubex configuration (platformdirs' user config dir, ``config.yaml``)."""
    import platformdirs  # read only when no switch has decided: most commands never do

    return platformdirs.user_config_path("jubex") / "config.yaml"


@lru_cache(maxsize=4)
def config_allows(path: Path) -> bool:
    """``python`` of the user's config.yaml, read once per process; no file: True."""
    if not path.is_file():
        return True
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UsageError(f"{path}: cannot read the jubex configuration: {exc}") from None
    value = data.get("python", True) if isinstance(data, dict) else None
    if not isinstance(value, bool):
        raise UsageError(
            f"{path}: expected a mapping with python: true or python: false",
            hint="the only key jubex reads there is python",
        )
    return value


def _timeout() -> float:
    try:
        return float(os.environ.get(_ENV_TIMEOUT, TIMEOUT))
    except ValueError:
        return TIMEOUT


class _Interpreter:
    """One worker process, started when first needed and replaced after a hang or crash."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self.started = 0

    def _process(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
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
        """Evaluated by the separate interpreter; an ExpressionError names the snippet."""
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
    print(
        f"{where}warning: {what}: the python snippet is outside jubex's safe language and is "
        "evaluated by a separate Python interpreter, as JUBE evaluates it (--no-python forbids it)",
        file=sys.stderr,
    )
