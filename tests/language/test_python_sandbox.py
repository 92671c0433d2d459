"""The python worker evaluates a definition's real Python in a sandbox: an allowlisted
environment, a scratch working directory, limits on CPU time and memory (the real worker
process)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jubex.errors import ExpressionError
from jubex.language import inspection, python
from jubex.language.python import PythonExpr


@pytest.fixture(autouse=True)
def fresh_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    python.set_allowed(True)
    inspection.set_inspecting(False)
    python.INTERPRETER.close()
    yield
    python.INTERPRETER.close()
    python.set_allowed(None)
    inspection.set_inspecting(False)


def evaluate(text: str) -> object:
    return PythonExpr(text).evaluate({})


def test_the_worker_sees_no_secret_of_the_callers_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("API_TOKEN", "s3cret")
    monkeypatch.setenv("HOME", "/home/someone")
    assert evaluate("__import__('os').environ.get('API_TOKEN', 'absent')") == "absent"
    assert evaluate("__import__('os').environ['HOME']") == "/home/someone"
    python.INTERPRETER.close()
    monkeypatch.setenv("JUBEX_PYTHON_ENV", "API_TOKEN")
    assert evaluate("__import__('os').environ.get('API_TOKEN', 'absent')") == "s3cret"


def test_the_worker_works_in_a_scratch_directory_removed_after(tmp_path: Path) -> None:
    where = str(evaluate("__import__('os').getcwd()"))
    assert where != os.getcwd() and Path(where).is_dir()
    python.INTERPRETER.close()
    assert not Path(where).exists()


def test_the_worker_cannot_take_gigabytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_PYTHON_MEMORY", str(512 << 20))
    with pytest.raises(ExpressionError, match="MemoryError"):
        evaluate("len(bytearray(6 << 30))")
    assert evaluate("1 + 1") == 2  # the worker lives on


def test_the_worker_has_a_cpu_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUBEX_PYTHON_CPU", "1")
    with pytest.raises(ExpressionError, match=r"exited|took longer"):
        evaluate("sum(1 for _ in iter(int, 1))")


def test_inspection_starts_no_worker() -> None:
    inspection.set_inspecting(True)
    started = python.INTERPRETER.started
    assert evaluate("__import__('os').getpid()") == inspection.NOT_EVALUATED
    assert python.INTERPRETER.started == started
