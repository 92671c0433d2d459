"""Imports go one way: load → expand → render → execute → analyse → tabulate, the store beside.

The test reads every module's imports (top level and inside functions) and fails on an
import of a later stage, naming the module and the import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jubex"

#: jubex's top-level packages and modules, each stage after the ones it may import
ORDER = (
    "version",
    "errors",
    "shipped",  # where the platform library and the kernels are
    "language",  # values, ranges, expressions and templates: every stage's vocabulary
    "definition",  # load: the definition
    "platform",  # load: the platform file
    "space",  # expand: parameter spaces and the plan of workpackages
    "workdir",  # render: work directories, files, the wrapper script
    "store",  # beside: the run directory and its SQLite store
    "schedulers",  # execute: one backend per scheduler
    "engine",  # execute: the state machine
    "analysis",  # analyse
    "results",  # tabulate
    "resultsdb",  # beside tabulate: the shared results database, read back as runs and rows
    "records",  # results other harnesses measured (ReFrame, records), made runs
    "dashboard",  # the results database as a static website
    "api",  # the library: the stages composed
    "pipelines",  # continuous benchmarking: CI pipelines, their gate, telling the team
    "cli",
    "__main__",
    "__init__",
)


def _stage(module: str) -> str:
    """``jubex.space.plan`` -> ``space``; ``jubex`` itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path, module: str) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            if node.module is None or target == "jubex":
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("jubex.")]


def _modules() -> list[tuple[Path, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((path, module))
    return found


def back_edges() -> list[str]:
    rank = {name: i for i, name in enumerate(ORDER)}
    problems = []
    for path, module in _modules():
        own = _stage(module)
        for line, target in _imports(path, module):
            other = _stage(target)
            if other not in rank:
                problems.append(f"{module}:{line} imports {target}: '{other}' has no place")
            elif rank[other] > rank[own]:
                problems.append(f"{module}:{line} imports {target}, a later stage ({other})")
    return problems


def test_every_package_has_a_place_in_the_order() -> None:
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    names = {n for n in names if not n.startswith((".", "_")) or n in ORDER}
    names -= {"data", "py"}
    assert names - set(ORDER) == set()


def test_imports_go_one_way() -> None:
    assert back_edges() == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("jubex.space.plan", "from jubex.engine import driver\n", "a later stage (engine)"),
        ("jubex.definition.x", "from ..analysis import builtin\n", "a later stage (analysis)"),
        (
            "jubex.store.x",
            "def f():\n    import jubex.results.samples.rows\n",
            "a later stage (results)",
        ),
    ],
)
def test_a_back_edge_is_found(tmp_path: Path, module: str, source: str, expected: str) -> None:
    path = tmp_path / "x.py"
    path.write_text(source)
    own = _stage(module)
    rank = {name: i for i, name in enumerate(ORDER)}
    later = [t for _, t in _imports(path, module) if rank[_stage(t)] > rank[own]]
    assert later, expected
    assert expected.split("(")[1].rstrip(")") in {_stage(t) for t in later}
