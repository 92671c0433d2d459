"""numpy and scipy imported with one BLAS thread, and the environment left as it was.

jubex's own numerical work is element-wise arithmetic, sorting and sums over one process's
data: none of it runs BLAS on threads. The OpenBLAS that numpy and scipy ship starts a
thread for each core when it is loaded, and those threads spin a while waiting for work:
about 0.1 s of CPU for every command that imports numpy on a 2-core machine, more on a
login node's many cores. OpenBLAS reads its thread count from ``OPENBLAS_NUM_THREADS``
when it loads, so the variable is set for exactly the import of these packages and taken
away again before anything else runs: no job, no expansion of ``$VAR`` and no provenance
record ever sees it. A value the user set is left alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

VARIABLE = "OPENBLAS_NUM_THREADS"
#: the packages whose modules load an OpenBLAS (any of them may be the first: scipy's
#: BLAS is loaded by its subpackages, after the package itself)
PACKAGES = frozenset({"numpy", "scipy"})


class _OneThread:
    """A package's own loader, run with one BLAS thread asked for (a loader and the
    finder below are what the import system calls, not subclasses of ``importlib.abc``,
    whose import brings ``importlib.resources`` and ``tempfile`` into every command)."""

    def __init__(self, loader: Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # the package sees its own loader, as if imported without this one
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        if VARIABLE in os.environ:
            self.loader.exec_module(module)
            return
        os.environ[VARIABLE] = "1"
        try:
            self.loader.exec_module(module)
        finally:
            del os.environ[VARIABLE]


class _Finder:
    """Finds the packages' modules as the finders after it do, their loaders wrapped."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] not in PACKAGES:
            return None
        rest = [finder for finder in sys.meta_path if finder is not self]
        for finder in rest:
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = cast("Loader", _OneThread(spec.loader))
                return spec
        return None


def one_thread() -> None:
    """From now on, numpy and scipy load their BLAS with one thread (once per process)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
