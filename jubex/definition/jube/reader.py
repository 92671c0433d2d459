"""A JUBE input file (XML or YAML) into the model: one benchmark, every problem collected.

The order is JUBE's: tags and includes first (:mod:`.source`), then ``<use from>`` turned
into sets of their own, then the global and the benchmark's sets, steps, analysers and
results. Names are checked as JUBE checks them (a used set, a ``depend`` step and an
analysed step must exist; sets used together in a step must agree on shared parameters).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jubex.collector import paused
from jubex.definition.jube.chosen import resolve_chosen
from jubex.definition.jube.context import Context
from jubex.definition.jube.derived import SetConverter
from jubex.definition.jube.nodes import Node, split_list
from jubex.definition.jube.parameters import read_parameterset
from jubex.definition.jube.python_mode import Known
from jubex.definition.jube.results import analysers, results
from jubex.definition.jube.sets import expanded, fileset, patternset, substituteset
from jubex.definition.jube.source import ENV_INCLUDE_PATH, JubeFile, Selected, Sources
from jubex.definition.jube.steps import set_kind, step
from jubex.definition.model import STATISTICS, Analyser, Benchmark, Step
from jubex.definition.order import step_order
from jubex.definition.references import check_tags
from jubex.definition.source_file import file_identity
from jubex.errors import DefinitionError, DefinitionWarning, ErrorList, Loc, did_you_mean

SET_KINDS = ("parameterset", "fileset", "substituteset", "patternset")
_ROOT = ("selection", "include-path", "benchmark", "tags", "check_tags", *SET_KINDS)
_BENCHMARK = ("comment", "step", "analyser", "analyzer", "result", *SET_KINDS)


@dataclass
class Loaded:
    """The benchmark, the prepared file, and what ``jubex convert`` must flag."""

    benchmark: Benchmark
    jube: JubeFile
    notes: list[tuple[str, str, str]] = field(default_factory=list)
    #: what JUBE passes over and jubex only reports
    warnings: list[DefinitionWarning] = field(default_factory=list)


def load_jube(
    path: str | Path,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
) -> Benchmark:
    """The benchmark of a JUBE file, read for the given tags (as JUBE applies them)."""
    return read_jube(path, tags=tags, include_path=include_path, benchmark=benchmark).benchmark


def read_jube(
    path: str | Path,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
    work_out: bool = False,
) -> Loaded:
    """The file's benchmark named ``benchmark`` (default: its first), with every warning;
    ``work_out``: snippets that build several values become lists (:class:`Context`)."""
    sources, jube = _prepared(Path(path), frozenset(tags), tuple(include_path))
    ctx = Context(sources, jube, work_out=work_out)
    builder = _Builder(ctx)
    benchmark_model = builder.benchmark(benchmark)
    if ctx.errors:
        raise ctx.errors[0] if len(ctx.errors) == 1 else ErrorList(ctx.errors)
    assert benchmark_model is not None
    benchmark_model.tags = tuple(sorted(set(benchmark_model.tags) | sources.mentioned_tags()))
    for unused in check_tags(benchmark_model, tags):  # JUBE accepts a tag the files never use
        ctx.warn(unused.message + "; JUBE accepts it, and so does jubex", None, unused.hint)
    warnings = list({str(w): w for w in ctx.warnings}.values())
    benchmark_model.warnings = tuple(str(w) for w in warnings)
    if len(builder.names) > 1:
        benchmark_model.file_benchmarks = builder.names
    return Loaded(benchmark_model, ctx.jube, ctx.notes, warnings)


_LAST_PREPARED: list[tuple[object, tuple[Sources, JubeFile]]] = []


def _prepared(
    path: Path, tags: frozenset[str], include_path: tuple[Path, ...]
) -> tuple[Sources, JubeFile]:
    """The file with tags applied and includes followed, kept for the next benchmark of the
    same file read with the same tags: each of N benchmarks reading and pruning the whole
    file again made validate and the dry run quadratic (54.6 s at N = 1,000). Made with
    the cycle collector paused and kept out of its sight (:func:`paused`): each of its
    full collections walked the whole file's tree again while the benchmarks were read,
    a third of validating a file of 10,000 benchmarks."""
    identity = file_identity(path)
    key = (identity, tags, include_path, os.environ.get(ENV_INCLUDE_PATH, ""))
    if identity is not None and _LAST_PREPARED and _LAST_PREPARED[0][0] == key:
        return _LAST_PREPARED[0][1]
    sources = Sources(tags, include_path)
    with paused(kept=True):
        prepared = (sources, sources.main(path))
    if identity is not None:
        _LAST_PREPARED[:] = [(key, prepared)]
    return prepared


class _Builder:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.root = ctx.jube.root
        #: the names of the benchmarks ``<selection>`` leaves, in the file's order
        self.names: tuple[str, ...] = ()

    def benchmark(self, name: str | None = None) -> Benchmark | None:
        ctx = self.ctx
        node = self.selected(name)
        if node is None:
            return None
        node = node.copy()  # reading it changes it (<use from>); the file is shared
        ctx.check(node, _BENCHMARK)
        ctx.file_path_ref = expanded(node.get("file_path_ref") or ".")
        self.use_from(node)
        sets = self.sets(node)
        known_params = _known({n for raw in sets["parameterset"] for n in raw.parameters})
        built = Benchmark(
            name=ctx.required(node, "name"),
            outpath=ctx.required(node, "outpath"),
            comment=" ".join(" ".join(c.value for c in node.all("comment")).split()),
            tags=tuple(sorted(ctx.jube.known_tags)),
            file=str(ctx.path),
            loc=node.loc,
            dialect="jube",
        )
        known_values = self.fill(built, sets, known_params)
        self.steps(node, built, known_params)
        resolve_chosen(ctx, built)
        split = self.analysers(node, built)
        in_chains = _in_chains(known_values, tuple(built.steps))
        for result in [*node.all("result")]:
            for table in results(ctx, result, in_chains, split):
                self.unique(built.tables, table.name, "result", table.loc)
                built.tables[table.name] = table
        self.check_steps(built)
        return built

    def fill(self, built: Benchmark, sets: dict[str, list], known_params: Known) -> Known:
        """The model's sets; what a pattern, a filter or a column may name is returned."""
        ctx, tags = self.ctx, self.ctx.jube.tags
        for raw in sets["parameterset"]:
            built.parametersets[raw.name] = SetConverter(ctx, raw, known_params, tags).convert()
        for item in sets["fileset"]:
            built.filesets[item.get("name") or ""] = fileset(ctx, item, known_params)
        for item in sets["substituteset"]:
            built.substitutesets[item.get("name") or ""] = substituteset(ctx, item)
        scratch = Context(ctx.sources, ctx.jube)
        patterns = {
            n for item in sets["patternset"] for n in patternset(scratch, item, _any).patterns
        }
        parameters = {n for raw in sets["parameterset"] for n in raw.parameters}
        known = _known(parameters | patterns | {f"{p}_{s}" for p in patterns for s in STATISTICS})
        for item in sets["patternset"]:
            built.patternsets[item.get("name") or ""] = patternset(ctx, item, known)
        return known

    def root_facts(self) -> Selected:
        """The root checked, the benchmarks ``<selection>`` leaves (in the file's order) and
        the root's sets: once per file, whichever of its benchmarks is read first."""
        jube = self.ctx.jube
        if jube.selected is not None:
            return jube.selected
        scratch = Context(self.ctx.sources, jube)
        scratch.check(self.root, _ROOT)
        only: set[str] = set()
        never: set[str] = set()
        for selection in self.root.all("selection"):
            scratch.check(selection, ("only", "not", "tag"))
            for child in selection.children:
                (only if child.tag == "only" else never if child.tag == "not" else set()).update(
                    split_list(child.value)
                )
        chosen = [
            b
            for b in self.root.all("benchmark")
            if (not only or b.get("name") in only) and b.get("name") not in never
        ]
        names = tuple(b.get("name") or "" for b in chosen)
        index: dict[str, int] = {}
        for i, name in enumerate(names):
            index.setdefault(name, i)
        sets = [c for c in self.root.children if c.tag in SET_KINDS]
        jube.selected = Selected(chosen, names, index, sets, scratch.errors, scratch.warnings)
        return jube.selected

    def selected(self, name: str | None) -> Node | None:
        """The benchmark named ``name``, else the first of those ``<selection>`` leaves
        (``jubex run`` runs each in turn, as JUBE does; the other commands read one)."""
        facts = self.root_facts()
        self.ctx.errors.extend(facts.errors)
        self.ctx.warnings.extend(facts.warnings)
        chosen, names = facts.benchmarks, facts.names
        if not chosen:
            self.ctx.fail("the file holds no selected benchmark", self.root.loc)
            return None
        self.names = names
        if name is not None:
            if name not in facts.index:
                self.ctx.fail(
                    f"the file holds no benchmark '{name}' (it holds {', '.join(names)})",
                    self.root.loc,
                    did_you_mean(name, names),
                )
                return None
            return chosen[facts.index[name]]
        if len(chosen) > 1:
            shown = ", ".join(names[:10]) + (f", ... {len(names) - 10:,} more" * (len(names) > 10))
            self.ctx.warn(
                f"the file holds {len(chosen):,} benchmarks ({shown}): jubex run and "
                "validate take each in turn, as JUBE runs each; other commands read the "
                f"first, '{names[0]}'",
                chosen[1].loc,
                "choose one with --benchmark NAME",
            )
        return chosen[0]

    def use_from(self, node: Node) -> None:
        """``<use from="file[:name...]">`` as JUBE reads it: a new set initialised from the file."""
        own = [s for s in node.children if s.tag in SET_KINDS]
        taken = {s.get("name") for s in [*self.root_facts().sets, *own]}
        made: dict[tuple[Path, str], str] = {}  # one set per file and name, however often used
        for use in [n for n in node.walk() if n.tag == "use" and n.get("from")]:
            names, loaded = split_list(use.value), []
            for spec in split_list(use.get("from")):
                file, *alternatives = [part.strip() for part in spec.split(":")]
                file = file or use.loc.file
                chooses = any("$" in n for n in names)
                for name in alternatives or names:
                    kind, path = self.kind_in(file, name, use.where("from"))
                    if (path, name) in made:
                        loaded.append((name, made[path, name]))
                        continue
                    clash = name in taken or chooses
                    label = f"{Path(file).stem}.{name}" if clash else name
                    taken.add(label)
                    made[path, name] = label
                    attrs = {"name": label, "init_with": f"{file}:{name}"}
                    node.children.append(Node(kind or "parameterset", use.loc, attrs))
                    loaded.append((name, label))
                    self.ctx.note("sets", label, f"from {file} (<use from>)")
            missing = [n for n in names if n not in dict(loaded) and "$" not in n]
            if missing:
                self.ctx.fail(
                    f"<use> names '{missing[0]}', which its from attribute does not load", use.loc
                )
            stem = Path(spec.split(":")[0].strip() or use.loc.file).stem
            use.text = ",".join(
                f"{stem}.{n}" if "$" in n else dict(loaded).get(n, n) for n in names
            )
            use.attrs.pop("from")

    def kind_in(self, file: str, name: str, loc: Loc) -> tuple[str | None, Path]:
        """The kind of set ``name`` is in a file, and the file's resolved path."""
        root, path = self.ctx.sources.external(file, loc, Path(loc.file).parent)
        kinds = [n.tag for n in root.walk() if n.tag in SET_KINDS and n.get("name") == name]
        if len(kinds) != 1:
            what = "more than once" if kinds else "nowhere"
            self.ctx.fail(f"a set named '{name}' is found {what} in {path}", loc)
            return None, path.resolve()
        return kinds[0], path.resolve()

    def sets(self, node: Node) -> dict[str, list]:
        """Global sets (children of the root) and the benchmark's, each name once."""
        found: dict[str, list] = {kind: [] for kind in SET_KINDS}
        seen: dict[str, Loc] = {}
        for item in [*self.root_facts().sets, *node.children]:
            if item.tag not in SET_KINDS:
                continue
            name = item.get("name") or ""
            if name in seen:
                self.ctx.fail(f"set name '{name}' is not unique (first at {seen[name]})", item.loc)
                continue
            seen[name] = item.loc
            found[item.tag].append(
                read_parameterset(self.ctx, item) if item.tag == "parameterset" else item
            )
        return found

    def steps(self, node: Node, built: Benchmark, known: Known) -> None:
        for child in node.all("step"):
            made = step(self.ctx, child, known, lambda name: set_kind(built, name))
            self.unique(built.steps, made.name, "step", made.loc)
            built.steps[made.name] = made

    def analysers(self, node: Node, built: Benchmark) -> dict[str, list[str]]:
        split: dict[str, list[str]] = {}
        for child in [*node.all("analyser"), *node.all("analyzer")]:
            made: list[Analyser] = analysers(self.ctx, child)
            if made:
                self.unique(split, made[0].name, "analyser", made[0].loc)
                split[made[0].name] = [a.name for a in made]
            for analyser in made:
                built.analysers[analyser.name] = analyser
                self.check_analyser(built, analyser)
        return split

    def check_analyser(self, built: Benchmark, analyser: Analyser) -> None:
        if analyser.step not in built.steps:
            self.ctx.fail(
                f"analyser '{analyser.name}' analyses unknown step '{analyser.step}'", analyser.loc
            )
        for name in [*analyser.use, *(n for f in analyser.files for n in f.use)]:
            if name not in built.patternsets:
                self.ctx.fail(
                    f"analyser '{analyser.name}' uses '{name}', which is no patternset",
                    analyser.loc,
                )

    def check_steps(self, built: Benchmark) -> None:
        for made in built.steps.values():
            for parent in made.depend:
                if parent not in built.steps:
                    self.ctx.fail(
                        f"step '{made.name}' depends on unknown step '{parent}'", made.loc
                    )
            self.compatible(built, made)
        try:
            step_order(built)
        except DefinitionError as exc:
            self.ctx.errors.append(exc)

    def compatible(self, built: Benchmark, made: Step) -> None:
        """JUBE refuses a step whose sets define one parameter differently."""
        first: dict[str, tuple[str, Sequence[str], str]] = {}
        for name in made.use or ():
            for p in built.parametersets[name].parameters.values():
                seen = first.setdefault(p.name, (name, p.values, p.mode))
                if seen[1:] != (p.values, p.mode):
                    self.ctx.fail(
                        f"step '{made.name}' cannot use parameterset '{name}': parameter "
                        f"'{p.name}' is already defined differently by parameterset '{seen[0]}'",
                        made.loc,
                    )

    def unique(self, holder: dict, name: str, what: str, loc: Loc | None) -> None:
        if name in holder:
            self.ctx.fail(f"{what} name '{name}' is not unique", loc)


def _any(name: str) -> bool:
    return True


def _in_chains(known: Known, steps: tuple[str, ...]) -> Known:
    """The names a result table may show: the known ones, and each as ``<name>_<step>``,
    the value of the workpackage of that step a row depends on (JUBE's chain names)."""
    return lambda name: (
        known(name)
        or any(name.endswith(f"_{step}") and known(name[: -len(step) - 1]) for step in steps)
    )


def _known(names: set[str]) -> Known:
    """Names a ``$`` reference may mean: these, and JUBE's own ``jube_*`` variables."""
    return lambda name: name in names or name.startswith("jube_")
