"""Reading a definition file, in either spelling and with its includes, into the model.

The pipeline of one file: read (YAML or XML, by content) into the located tree, check it
against the JSON Schema, merge its includes and ``init_with`` sets, build the model, then
check the names it refers to. Every stage collects its problems instead of stopping at the
first, so ``jubex validate`` can list them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from jubex.definition.build import Builder
from jubex.definition.confined import check_paths
from jubex.definition.consistency import check_consistency
from jubex.definition.model import Benchmark
from jubex.definition.references import check_references, check_tags
from jubex.definition.schema_check import check_tree, without_faults
from jubex.definition.source_file import file_identity, read_bytes
from jubex.definition.tree import Map, Seq, text_of
from jubex.definition.yaml_tree import read_yaml
from jubex.errors import (
    DefinitionError,
    DefinitionWarning,
    ErrorList,
    JubexError,
    Loc,
    UsageError,
    did_you_mean,
)

#: top-level keys that only JUBE's own YAML spelling uses (jubex's keys are plural)
_JUBE_KEYS = frozenset(
    [
        "benchmark",
        "parameterset",
        "step",
        "patternset",
        "analyser",
        "result",
        "fileset",
        "substituteset",
        "selection",
        "include-path",
    ]
)
#: sections whose entries an including file merges by name (its own entries win)
_MERGED = (
    "parametersets",
    "files",
    "substitutions",
    "patterns",
    "analysers",
    "steps",
    "results",
    "plots",
)
#: sections whose sets may start from a copy (``init_with``), and where to find a named set
_INIT_SECTIONS = ("parameters", "parametersets", "patterns", "substitutions")


@dataclass
class Source:
    """One input file as read: its shape (``jubex``, ``jube``) and its tree."""

    path: Path
    shape: str
    tree: Any = None
    errors: list[DefinitionError] = field(default_factory=list)


def _is_jube_list(tree: object) -> bool:
    """JUBE's YAML may hold a list of benchmarks at the top (JUBE runs each)."""
    return (
        isinstance(tree, list)
        and bool(tree)
        and all(isinstance(item, Map) for item in tree)
        and any(_JUBE_KEYS.intersection(item) for item in tree)
    )


_LAST_JUBE: list[tuple[object, Source]] = []  # the JUBE file read last: its shape, once


def read_source(path: Path) -> Source:
    """Read a file and tell its shape by content: XML root element or YAML top-level keys."""
    identity = file_identity(path)
    if identity is not None and _LAST_JUBE and _LAST_JUBE[0][0] == identity:
        return _LAST_JUBE[0][1]
    source = _read_source(path)
    if source.shape == "jube" and identity is not None:
        _LAST_JUBE[:] = [(identity, source)]
    return source


def _read_source(path: Path) -> Source:
    file = str(path)
    data, is_xml = read_bytes(path)
    if is_xml:
        # lxml only for an XML file (20 ms): reading a YAML one needs none of it
        from jubex.definition.xml_spelling import parse_xml, read_xml

        root = parse_xml(data, file)
        if root.tag == "jube":
            return Source(path, "jube")
        if root.tag != "jubex":
            raise DefinitionError(
                f"root element <{root.tag!s}> is not a definition; "
                "expected <jubex> (or JUBE's <jube>)",
                Loc(file, root.sourceline or 0),
            )
        tree, errors = read_xml(root, file)
        return Source(path, "jubex", tree, errors)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DefinitionError(
            f"not UTF-8 text (byte {exc.start}); expected YAML or XML", Loc(file)
        ) from None
    tree, errors = read_yaml(text, file)
    if _is_jube_list(tree):
        return Source(path, "jube", tree, errors)
    if not isinstance(tree, Map):
        raise DefinitionError(
            "expected a mapping of definition keys (name, parameters, steps, ...) at the top",
            Loc(file, 1, 1),
        )
    if is_platform(tree):
        raise DefinitionError(
            "this is a platform file, not a study definition",
            Loc(file, 1, 1),
            f"give it as the platform of a study: jubex run STUDY.yaml -P {file}; "
            f"see it resolved: jubex platform {file}",
        )
    shape = "jube" if _JUBE_KEYS.intersection(tree) else "jubex"
    return Source(path, shape, tree, errors)


def is_platform(data: Mapping[str, object]) -> bool:
    """A platform file, told by its keys: a scheduler, launcher, job template or parent,
    and no steps (a definition names its platform with ``platform:`` only)."""
    keys = set(data)
    return bool(keys & {"scheduler", "launcher", "template", "extends"}) and not keys & {
        "steps",
        "step",
        "benchmark",
    }


def load(
    path: str | Path,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
) -> Benchmark:
    """The benchmark a definition file describes (of a JUBE file holding several, the one
    named ``benchmark``, else the first); raises every error found (not warnings)."""
    source = read_source(Path(path))
    if source.shape == "jube":
        return _load_jube(Path(path), tags=tags, include_path=include_path, benchmark=benchmark)
    loaded, problems, _, _ = _complete(source, include_path)
    if loaded is not None and benchmark not in (None, loaded.name):
        raise UsageError(
            f"{path} holds one benchmark, '{loaded.name}', not '{benchmark}'",
            hint="leave out --benchmark",
        )
    errors: Sequence[JubexError] = [p for p in problems if not isinstance(p, DefinitionWarning)]
    if loaded is not None and not errors:
        errors = check_tags(loaded, tags) or [
            p for p in check_consistency(loaded) if not isinstance(p, DefinitionWarning)
        ]
    if errors:
        raise errors[0] if len(errors) == 1 else ErrorList(errors)
    assert loaded is not None
    return loaded


def _load_jube(
    path: Path,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
) -> Benchmark:
    """The hook for JUBE's own spelling (XML ``<jube>`` and JUBE's YAML)."""
    from jubex.definition.jube import load_jube

    return load_jube(path, tags=tags, include_path=include_path, benchmark=benchmark)


class Reading(NamedTuple):
    """What loading a file found: the benchmark, when one could be built, and the problems.

    A file whose keys break the schema is checked on without those keys; ``removed``
    names them, and ``benchmark`` is then built without them: good for finding the
    other problems, never for running."""

    benchmark: Benchmark | None
    problems: list[JubexError]
    removed: frozenset[str] = frozenset()
    #: how many of ``problems`` are the faults of the keys taken out
    faults: int = 0

    def own(self, later: Sequence[JubexError]) -> list[JubexError]:
        """Problems found later, without those only the keys taken out caused."""
        if not self.removed:
            return list(later)
        names = "|".join(re.escape(name) for name in sorted(self.removed))
        naming = re.compile(rf"(?:'|\$\{{?)(?:{names})\b")  # 'x', $x or ${x
        return [p for p in later if not naming.search(p.message)]

    @property
    def sound(self) -> bool:
        """Whether the later checks can trust the benchmark: nothing wrong but the keys
        taken out (whose problems are among ``problems``)."""
        errors = [p for p in self.problems if not isinstance(p, DefinitionWarning)]
        return self.benchmark is not None and len(errors) <= self.faults


def _complete(source: Source, include_path: Sequence[Path]) -> Reading:
    """Includes, ``init_with``, the model and its references, with every problem found;
    the benchmark when it could be built (without the keys at fault, if any)."""
    reader = _Reader([Path(p) for p in include_path])
    tree = reader.complete(source, fragment=False, stack=())
    if tree is None:
        return Reading(None, reader.errors)
    builder = Builder(str(source.path))
    benchmark = builder.benchmark(tree)
    reading = Reading(None, reader.errors, reader.removed, len(reader.errors))
    if builder.errors:
        return reading._replace(problems=[*reader.errors, *reading.own(builder.errors)])
    later = reading.own(check_references(benchmark) + check_paths(benchmark))
    return reading._replace(benchmark=benchmark, problems=[*reader.errors, *later])


class _Reader:
    """Reads a file and everything it includes or copies from, each file once."""

    def __init__(self, include_path: list[Path]) -> None:
        self.include_path = include_path
        self.errors: list[JubexError] = []
        #: names of the entries taken out of the file for faults of their own
        self.removed: frozenset[str] = frozenset()
        self.done: dict[Path, Map | None] = {}

    def complete(self, source: Source, *, fragment: bool, stack: tuple[Path, ...]) -> Map | None:
        """The file's tree with includes merged and sets initialised; None if it has errors."""
        before = len(self.errors)
        self.errors += source.errors
        # a value the reader refused (an unknown tag) was read as nothing: said once
        refused = {e.loc for e in source.errors}
        if fragment or source.errors:
            faults, removed = check_tree(source.tree, fragment=fragment), None
        else:  # the file itself: its faults taken out, the rest is checked on
            faults, removed = without_faults(source.tree)
        self.errors += [e for e in faults if e.loc not in refused]
        if len(self.errors) > before and removed is None:
            return None  # includes and sets of a malformed tree cannot be trusted
        self.removed |= removed or frozenset()
        faulty = len(self.errors)
        stack = (*stack, source.path.resolve())
        tree = self.with_includes(source, stack)
        tree = self.with_init(tree, source.path, stack)
        return tree if len(self.errors) == faulty else None

    def file(
        self, name: str, base: Path, loc: Loc, what: str, stack: tuple[Path, ...]
    ) -> Map | None:
        """Another file's completed tree, searched next to ``base``, then on the include path."""
        found = self.find(name, base, loc, what)
        if found is None:
            return None
        key = found.resolve()
        if key in stack:
            chain = " -> ".join(str(p) for p in (*stack[stack.index(key) :], key))
            self.errors.append(DefinitionError(f"{what} cycle: {chain}", loc))
            return None
        if key not in self.done:
            try:
                source = read_source(found)
            except DefinitionError as exc:
                self.errors.append(exc)
                self.done[key] = None
                return None
            if source.shape != "jubex":
                self.errors.append(
                    DefinitionError(
                        f"{what} file '{found}' is a JUBE file; expected a jubex file", loc
                    )
                )
                self.done[key] = None
                return None
            self.done[key] = self.complete(source, fragment=True, stack=stack)
        return self.done[key]

    def find(self, name: str, base: Path, loc: Loc, what: str) -> Path | None:
        candidate = Path(name).expanduser()
        folders = [base.parent, *self.include_path]
        if candidate.is_absolute():
            folders = []
            if candidate.is_file():
                return candidate
        for folder in folders:
            if (folder / candidate).is_file():
                return folder / candidate
        searched = ", ".join(str(f) for f in folders) or "(absolute path)"
        self.errors.append(
            DefinitionError(f"{what} file '{name}' not found (searched: {searched})", loc)
        )
        return None

    def with_includes(self, source: Source, stack: tuple[Path, ...]) -> Map:
        tree = source.tree
        if "include" not in tree:
            return tree
        names = tree["include"]
        if isinstance(names, Seq):
            places = [(text_of(names, i), names.value_loc(i)) for i in range(len(names))]
        else:
            places = [(text_of(tree, "include"), tree.value_loc("include"))]
        included = []
        for name, loc in places:
            other = self.file(name, source.path, loc, "include", stack)
            if other is not None:
                included.append(other)
        return _merge(included, tree)

    def with_init(self, tree: Map, path: Path, stack: tuple[Path, ...]) -> Map:
        for section in _INIT_SECTIONS:
            sets = tree.get(section)
            if not isinstance(sets, Map):
                continue
            if section == "parameters":
                if "init_with" in sets:
                    tree.put(
                        section, self.initialised(sets, section, path, stack), tree.key_loc(section)
                    )
                continue
            for name in list(sets):
                if isinstance(sets[name], Map) and "init_with" in sets[name]:
                    sets.put(
                        name, self.initialised(sets[name], name, path, stack), sets.key_loc(name)
                    )
        return tree

    def initialised(self, spec: Map, name: str, path: Path, stack: tuple[Path, ...]) -> Map:
        """A copy of the set ``init_with`` names, with the entries written here on top."""
        reference, loc = spec["init_with"], spec.value_loc("init_with")
        file, _, wanted = reference.rpartition(":") if ":" in reference else (reference, "", name)
        other = self.file(file, path, loc, "init_with", stack)
        if other is None:
            return spec
        base = _find_set(other, wanted, spec)
        if base is None:
            known = [*other.get("parametersets", {}), *other.get("patterns", {})]
            self.errors.append(
                DefinitionError(
                    f"'{file}' has no set '{wanted}' to initialise from",
                    loc,
                    did_you_mean(wanted, known),
                )
            )
            return spec
        result = Map(spec.loc)
        for key in base:
            if key != "init_with":
                result.take(base, key)
        for key in spec:
            result.take(spec, key)
        return result


def _find_set(tree: Map, name: str, like: Map) -> Map | None:
    """The set of that name in another file, looked for in the section of the same kind."""
    if "files" in like or "replace" in like or "regex" in like:
        sections = ["substitutions"]
    else:
        sections = ["parametersets", "patterns", "substitutions"]
    if name == "parameters" and isinstance(tree.get("parameters"), Map):
        return tree["parameters"]
    for section in sections:
        found = tree.get(section, {}).get(name)
        if isinstance(found, Map):
            return found
    return None


def _merge(included: list[Map], local: Map) -> Map:
    """Included trees first, the including file's own entries over them, name by name."""
    result = Map(local.loc)
    for tree in [*included, local]:
        for key in tree:
            if key in _MERGED or key == "environment":
                if key not in result:
                    result.put(key, Map(tree[key].loc), tree.key_loc(key))
                for name in tree[key]:
                    result[key].take(tree[key], name)
            elif key in ("where", "tags"):
                if key not in result:
                    result.put(key, Seq(tree.value_loc(key)), tree.key_loc(key))
                _extend(result[key], tree, key)
            elif tree is local or key == "parameters":
                result.take(tree, key)
    return result


def _extend(into: Seq, holder: Map, key: str) -> None:
    value = holder[key]
    if not isinstance(value, list):
        into.add(value, holder.value_loc(key), holder.texts.get(key, ""))
        return
    for index, item in enumerate(value):
        if key == "tags" and item in into:
            continue
        loc = value.value_loc(index) if isinstance(value, Seq) else holder.value_loc(key)
        into.add(item, loc, text_of(value, index) if not isinstance(item, Map) else "")


def problems_of(
    path: str | Path, tags: Sequence[str] = (), benchmark: str | None = None
) -> Reading:
    """Every problem the load stage finds in a file, warnings included (``exit_code`` 0),
    and the benchmark when one could be built (the later stages check it further)."""
    try:
        source = read_source(Path(path))
    except UsageError as exc:  # no such file: it names the file itself
        return Reading(None, [exc])
    except JubexError as exc:
        return Reading(None, [exc.at(Loc(str(path)))])
    if source.shape == "jube":
        from jubex.definition.jube import read_jube

        try:
            loaded = read_jube(source.path, tags=tags, benchmark=benchmark)
        except JubexError as exc:
            return Reading(None, [exc])
        return Reading(loaded.benchmark, list(loaded.warnings))
    reading = _complete(source, ())
    if reading.sound:
        assert reading.benchmark is not None
        later = check_tags(reading.benchmark, tags) + check_consistency(reading.benchmark)
        reading.problems.extend(reading.own(later))
    return reading
