"""numpy and scipy loaded with one BLAS thread, the environment as it was: real imports in
fresh interpreters (a module, once imported, is not loaded again in this one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: what a fresh interpreter reports after importing numpy and a scipy subpackage
REPORT = """
import importlib.resources, json, os, sys
{setup}
import numpy, scipy.special
print(json.dumps({{
    "threads": len(os.listdir("/proc/self/task")),
    "variable": os.environ.get("OPENBLAS_NUM_THREADS"),
    "loader": type(numpy.__loader__).__name__,
    "spec_loader": type(numpy.__spec__.loader).__name__,
    "resources": importlib.resources.files("numpy").joinpath("__init__.py").is_file(),
    "works": float(numpy.dot(numpy.ones(3), numpy.ones(3))),
}}))
"""
HOOKED = "from jubex import blas\nblas.one_thread()"
BY_MAIN = (
    "from jubex.cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
)


def report(setup: str, **env: str) -> dict[str, object]:
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", REPORT.format(setup=setup)],
        capture_output=True,
        text=True,
        check=True,
        env={**environment, **env},
        timeout=60,
    )
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize("setup", [HOOKED, BY_MAIN], ids=["one_thread", "the command line"])
def test_one_blas_thread_and_the_environment_as_before(setup: str) -> None:
    found = report(setup)
    assert found["threads"] == 1  # the interpreter's own thread alone
    assert found["variable"] is None  # taken away again: no job inherits it
    assert found["loader"] == found["spec_loader"] == "SourceFileLoader"
    assert found["resources"] is True
    assert found["works"] == 3.0


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts no thread on one core")
def test_without_it_openblas_starts_its_threads() -> None:
    """What the module saves: the threads OpenBLAS starts on a machine of several cores."""
    assert report("")["threads"] > 1


def test_a_value_the_user_set_is_kept() -> None:
    found = report(HOOKED, OPENBLAS_NUM_THREADS="2")
    assert found["variable"] == "2"
    assert found["threads"] > 1


def test_the_hook_imports_no_abstract_classes_of_importlib(tmp_path) -> None:
    """The hook is duck-typed: ``importlib.abc`` imports ``importlib.resources`` and
    ``tempfile``, a few milliseconds of every command's start that nothing else of a
    table's needs."""
    from pathlib import Path

    import jubex

    probe = (
        "import sys, jubex.blas; print(sorted({'importlib.abc', 'tempfile'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(jubex.__file__).parent.parent)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["[]"]
