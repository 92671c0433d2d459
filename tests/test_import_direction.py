"""Imports go one way: load → expand → render → execute → analyse → tabulate, the store beside.

The test reads every module's imports (top level, inside functions, for type checking
only) and fails on an import of a later stage, naming the module and the import; inside
``jubex.results`` the same holds for its rooms. A second test follows the imports from
module to module and fails on every circle, naming the modules in it.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jubex"

#: jubex's top-level packages and modules, each stage after the ones it may import
ORDER = (
    "version",
    "plain",  # dataclasses whose == and repr are shared, not compiled per class
    "errors",
    "collector",  # the garbage collector paused where no cycles are made
    "blas",  # numpy and scipy loaded with one BLAS thread
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
#: stages before a package in the order that are still none of its business
APART = {
    "analysis": {"engine", "schedulers"},  # the analysers read outputs, whoever made them
}
#: the rooms of jubex.results, each after the ones it may import; the package itself (its
#: library names) imports them all and is imported by none of them
RESULTS = (
    "samples",  # the rows and values a table reads
    "statistics",  # summaries, tests, spread, flags, targets
    "tables",  # building, checking and printing tables
    "comparison",  # is a candidate worse than its baseline?
    "trends",  # a metric over many runs
    "repetitions",  # the rounds of repetitions
    "delivery",  # files, databases, syslog
    "presentation",  # plots, the HTML report
)


def _stage(module: str) -> str:
    """``jubex.space.plan`` -> ``space``; ``jubex`` itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _room(module: str) -> str | None:
    """``jubex.results.tables.table`` -> ``tables``; ``jubex.results`` -> ``__init__``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


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
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("jubex.")]


def _modules(package: Path = PACKAGE) -> list[tuple[Path, str]]:
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((path, module))
    return found


def _problem(module: str, line: int, target: str, known: set[str]) -> str | None:
    """What is wrong with ``module`` importing ``target`` at ``line``, if anything."""
    rank = {name: i for i, name in enumerate(ORDER)}
    own, other = _stage(module), _stage(target)
    if other not in rank:
        return f"{module}:{line} imports {target}: '{other}' has no place"
    if rank[other] > rank[own]:
        return f"{module}:{line} imports {target}, a later stage ({other})"
    if other in APART.get(own, ()):
        return f"{module}:{line} imports {target}: {other} is none of {own}'s business"
    if own != "results" or other != "results" or _room(module) == "__init__":
        return None
    rooms = {name: i for i, name in enumerate(RESULTS)}
    mine, theirs = _room(module), _room(target)
    if mine not in rooms:
        return f"{module} is in no room of jubex.results (one of {', '.join(RESULTS)})"
    if theirs == "__init__" and target in known:
        return f"{module}:{line} imports {target}, the package that imports every room"
    if theirs in rooms and rooms[theirs] > rooms[mine]:
        return f"{module}:{line} imports {target}, a later room ({theirs})"
    return None


def back_edges(package: Path = PACKAGE) -> list[str]:
    modules = _modules(package)
    known = {module for _, module in modules}
    problems = []
    for path, module in modules:
        for line, target in _imports(path, module):
            if target.rpartition(".")[0] in known and target not in known:
                continue  # a name imported from a module, said by its module's line
            found = _problem(module, line, target, known)
            if found and found not in problems:
                problems.append(found)
    return problems


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules it imports (``from a import b``: ``a.b`` if it is a module)."""
    modules = _modules(package)
    known = {module for _, module in modules}
    graph = {}
    for path, module in modules:
        targets = {t for _, t in _imports(path, module) if t in known and t != module}
        # ``from a import b`` names both a and a.b: the module b is what it imports
        graph[module] = {t for t in targets if not any(o.startswith(t + ".") for o in targets)}
    return graph


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a circle (the
    strongly connected components of more than one module, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return sorted(found)


def test_every_package_has_a_place_in_the_order() -> None:
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()}
    names = {n for n in names if not n.startswith((".", "_")) or n in ORDER}
    names -= {"data", "py"}
    assert names - set(ORDER) == set()


def test_every_module_of_results_is_in_a_room() -> None:
    results = PACKAGE / "results"
    loose = [p.name for p in results.glob("*.py") if p.name != "__init__.py"]
    rooms = {p.name for p in results.iterdir() if (p / "__init__.py").is_file()}
    assert loose == []
    assert rooms == set(RESULTS)
    for room in RESULTS:
        assert ast.get_docstring(ast.parse((results / room / "__init__.py").read_text()))


def test_imports_go_one_way() -> None:
    assert back_edges() == []


def test_no_modules_import_each_other() -> None:
    assert circles(import_graph()) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("jubex.space.plan", "from jubex.engine import driver\n", "a later stage (engine)"),
        ("jubex.definition.x", "from ..analysis import builtin\n", "a later stage (analysis)"),
        ("jubex.store.x", "def f():\n    import jubex.results.samples.rows\n", "(results)"),
        ("jubex.analysis.x", "from jubex.engine.failures import f\n", "none of analysis's"),
        ("jubex.results.statistics.x", "from ..tables.columns import X\n", "a later room (tables)"),
        ("jubex.results.samples.x", "from jubex.results.presentation import plot\n", "(present"),
        ("jubex.results.tables.x", "from jubex.results import render\n", "imports every room"),
        ("jubex.results.x", "from jubex.results.samples import rows\n", "in no room"),
    ],
)
def test_a_back_edge_is_found(tmp_path: Path, module: str, source: str, expected: str) -> None:
    path = tmp_path / "x.py"
    path.write_text(source)
    known = {m for _, m in _modules()}
    problems = [_problem(module, line, t, known) for line, t in _imports(path, module)]
    assert any(expected in p for p in problems if p), problems


def _copy(tmp_path: Path, *packages: str) -> Path:
    """A copy of some of jubex's packages, to plant imports in."""
    for name in packages:
        shutil.copytree(
            PACKAGE / name, tmp_path / "jubex" / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path / "jubex"


def test_the_rooms_of_results_catch_a_planted_back_edge(tmp_path: Path) -> None:
    copy = _copy(tmp_path, "results")
    assert back_edges(copy) == []
    rows = copy / "results" / "samples" / "rows.py"
    rows.write_text(rows.read_text() + "\nfrom jubex.results.tables.table import build_table\n")
    found = back_edges(copy)
    assert len(found) == 1 and "jubex.results.samples.rows:" in found[0], found
    assert "a later room (tables)" in found[0]


def test_a_planted_circle_is_found(tmp_path: Path) -> None:
    copy = _copy(tmp_path, "platform", "cli")
    assert circles(import_graph(copy)) == []
    render = copy / "platform" / "render.py"
    render.write_text(render.read_text() + "\ndef f():\n    from jubex.platform.model import x\n")
    assert circles(import_graph(copy)) == [["jubex.platform.model", "jubex.platform.render"]]
    complete = copy / "cli" / "complete.py"
    complete.write_text(complete.read_text() + "\ndef g():\n    import jubex.cli.help_topics\n")
    found = circles(import_graph(copy))
    assert len(found) == 2, found
    assert found[0] == ["jubex.cli.complete", "jubex.cli.help_topics", "jubex.cli.main"]


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        (
            {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c", "e"}, "e": set()},
            [["a", "b"], ["c", "d"]],
        ),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"a"}}, []),
    ],
)
def test_circles_of_a_graph(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(graph) == expected
