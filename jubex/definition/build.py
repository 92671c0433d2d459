"""The schema-checked tree into the typed model, every object with its place in the file.

Runs after :mod:`jubex.definition.schema_check`, so types are known to be right; what is
checked here is what a schema cannot say (a zip group inside a zip group, a parameter
defined twice in one set, a range that yields nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jubex.definition.darshan import Darshan, darshan_of
from jubex.definition.model import (
    DERIVED_MODES,
    AnalyseFile,
    Analyser,
    Benchmark,
    Column,
    Constraint,
    FileOp,
    FileSet,
    IOFile,
    Parameter,
    ParameterSet,
    Pattern,
    PatternSet,
    Plot,
    Step,
    Sub,
    SubstituteSet,
    Syslog,
    Table,
    Until,
)
from jubex.definition.step_fields import (
    dos_of,
    entries,
    environment_of,
    iterations_of,
    optional,
    pack_of,
    resources_of,
)
from jubex.definition.tree import Map, Seq, listed, text_of
from jubex.errors import DefinitionError, JubexError, Loc
from jubex.language import python, ranges
from jubex.language.python import PythonExpr

_SOURCES = ("values", "range", *DERIVED_MODES)


class Builder:
    """Collects the model and every problem, so one pass reports them all."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[DefinitionError] = []

    def fail(self, message: str, loc: Loc | None) -> None:
        self.errors.append(DefinitionError(message, loc))

    def benchmark(self, tree: Map) -> Benchmark:
        sets = {}
        if "parameters" in tree:
            sets["parameters"] = self.parameterset(
                "parameters", tree["parameters"], tree.key_loc("parameters")
            )
        for name, spec, loc in _named(tree, "parametersets"):
            if name in sets:
                self.fail(f"parameterset '{name}' is defined twice", loc)
            sets[name] = self.parameterset(name, spec, loc)
        return Benchmark(
            name=text_of(tree, "name") if "name" in tree else "",
            outpath=text_of(tree, "outpath") if "outpath" in tree else "runs",
            comment=text_of(tree, "comment") if "comment" in tree else "",
            max_workpackages=tree.get("max_workpackages"),
            parametersets=sets,
            filesets={n: self.fileset(n, s, at) for n, s, at in _named(tree, "files")},
            substitutesets={
                n: self.substituteset(n, s, at) for n, s, at in _named(tree, "substitutions")
            },
            patternsets={n: self.patternset(n, s, at) for n, s, at in _named(tree, "patterns")},
            analysers={n: self.analyser(n, s, at) for n, s, at in _named(tree, "analysers")},
            steps={n: self.step(n, s, at) for n, s, at in _named(tree, "steps")},
            tables={n: self.table(n, s, at) for n, s, at in _named(tree, "results")},
            plots={n: self.plot(n, s, at) for n, s, at in _named(tree, "plots")},
            where=self.where(tree),
            environment=environment_of(tree.get("environment")),
            darshan=self.darshan(tree),
            tags=tuple(tree.get("tags", ())),
            platform=text_of(tree, "platform") if "platform" in tree else None,
            file=self.file,
            loc=tree.loc,
        )

    def darshan(self, holder: Map) -> Darshan | None:
        """A ``darshan:`` setting; a library that is not there is one of the problems."""
        if "darshan" not in holder:
            return None
        loc = holder.value_loc("darshan")
        try:
            return darshan_of(holder["darshan"], loc, Path(loc.file).parent)
        except DefinitionError as exc:
            self.errors.append(exc)
            return None

    def parameterset(self, name: str, spec: Map, loc: Loc) -> ParameterSet:
        result = ParameterSet(name, init_with=spec.get("init_with"), loc=loc)
        for key, value in spec.items():
            if key == "init_with":
                continue
            if isinstance(value, Map) and "zip" in value:
                result.zips.append(self.zip_group(result, key, value))
            else:
                self.add_parameter(result, self.parameter(key, spec))
        return result

    def zip_group(self, into: ParameterSet, label: str, spec: Map) -> tuple[str, ...]:
        if len(spec) > 1:
            others = ", ".join(k for k in spec if k != "zip")
            self.fail(f"zip group '{label}' takes no other keys (found {others})", spec.loc)
        members = spec["zip"]
        for name, value in members.items():
            if isinstance(value, Map) and "zip" in value:
                self.fail(
                    f"zip group '{label}' holds another zip group '{name}'", members.key_loc(name)
                )
                continue
            self.add_parameter(into, self.parameter(name, members))
        return tuple(members)

    def add_parameter(self, into: ParameterSet, parameter: Parameter) -> None:
        if parameter.name in into.parameters:
            first = into.parameters[parameter.name].loc
            line = f" (first at line {first.line})" if first and first.line else ""
            self.fail(
                f"parameter '{parameter.name}' is defined twice in parameterset "
                f"'{into.name}'{line}",
                parameter.loc,
            )
        into.parameters[parameter.name] = parameter

    def parameter(self, name: str, holder: Map) -> Parameter:
        value, loc = holder[name], holder.key_loc(name)
        if isinstance(value, list):
            return Parameter(name, _texts(value), loc=loc)
        if not isinstance(value, Map):
            return Parameter(name, (text_of(holder, name),), loc=loc)
        source = next(key for key in _SOURCES if key in value)
        mode = source if source in DERIVED_MODES else "text"
        if mode == "python":
            self.python(f"parameter '{name}'", text_of(value, "python"), value.value_loc("python"))
        separator = value.get("separator")
        if source == "range":
            values = self.range_values(value["range"], value.value_loc("range"))
        elif source == "values" and isinstance(value["values"], list):
            values = _texts(value["values"])
        elif separator and mode == "text":
            values = self.listed(text_of(value, source), separator, value.value_loc(source))
        else:
            values = (text_of(value, source),)
        return Parameter(
            name,
            values,
            type=value.get("type", "auto"),
            mode=mode,
            separator=separator,
            export=value.get("export", False),
            unit=value.get("unit", ""),
            update_mode=value.get("update", "never"),
            duplicate=value.get("duplicate", "replace"),
            tag=value.get("tag"),
            loc=loc,
            pinned=value.get("pinned", False),
        )

    def listed(self, text: str, separator: str, loc: Loc) -> tuple[str, ...]:
        try:
            return tuple(listed(text, separator, loc))
        except DefinitionError as exc:
            self.errors.append(exc)
            return ()

    def python(self, what: str, text: str, loc: Loc) -> None:
        """A ``python:`` expression asks for real Python: it must be Python, and it is
        refused wherever real Python is (``--no-python``, the platform, the user's config)."""
        if not python.allowed():
            self.errors.append(
                DefinitionError(
                    f"{what}: its python expression needs real Python, which "
                    f"{python.refused_by()} refuses",
                    loc,
                    "write it with expr: in jubex's safe language (jubex help expressions), "
                    "or run without the switch",
                )
            )
            return
        try:
            PythonExpr(text, loc)
        except JubexError as exc:
            self.errors.append(DefinitionError(f"{what}: {exc.message}", exc.loc or loc))

    def range_values(self, spec: Map, loc: Loc) -> Sequence[str]:
        try:
            start, stop = text_of(spec, "start"), text_of(spec, "stop")
            values: Sequence[str]
            if "factor" in spec:
                values = tuple(ranges.geometric(start, stop, text_of(spec, "factor"), loc))
            else:
                values = ranges.linear(start, stop, text_of(spec, "step"), loc)
        except JubexError as exc:
            self.errors.append(DefinitionError(exc.message, exc.loc or loc, exc.hint))
            return ()
        if not values:
            self.fail("the range yields no values", loc)
        return values

    def where(self, tree: Map) -> list[Constraint]:
        if tree.get("where") is None:
            return []
        return [
            Constraint(text_of(item, "expr"), item.get("tag"), loc)
            if isinstance(item, Map)
            else Constraint(text, None, loc)
            for item, loc, text in entries(tree, "where")
        ]

    def fileset(self, name: str, spec: Seq, loc: Loc) -> FileSet:
        ops = []
        for index, entry in enumerate(spec):
            kind = next(k for k in ("copy", "link", "prepare") if k in entry)
            ops.append(
                FileOp(
                    kind=kind,
                    source=text_of(entry, kind),
                    target=optional(entry, "to"),
                    directory=optional(entry, "work_dir" if kind == "prepare" else "directory"),
                    rel_path_ref=entry.get("relative_to", "definition"),
                    source_dir=optional(entry, "source_dir"),
                    target_dir=optional(entry, "target_dir"),
                    separator=entry.get("separator"),
                    active=entry.get("active", "true"),
                    stdout=optional(entry, "stdout"),
                    stderr=optional(entry, "stderr"),
                    tag=entry.get("tag"),
                    outside=entry.get("outside") is True,
                    loc=spec.value_loc(index),
                )
            )
        return FileSet(name, ops, loc=loc)

    def substituteset(self, name: str, spec: Map, loc: Loc) -> SubstituteSet:
        files = spec.get("files", [])
        iofiles = [
            IOFile(
                text_of(item, "in"),
                text_of(item, "out"),
                "a" if item.get("append") else "w",
                files.value_loc(index),
                item.get("outside") is True,
            )
            for index, item in enumerate(files)
        ]
        subs = [
            Sub(source, text_of(spec[key], source), mode, spec[key].key_loc(source))
            for key, mode in (("replace", "text"), ("regex", "regex"))
            for source in spec.get(key, {})
        ]
        return SubstituteSet(name, iofiles, subs, spec.get("init_with"), loc)

    def patternset(self, name: str, spec: Map, loc: Loc) -> PatternSet:
        result = PatternSet(name, init_with=spec.get("init_with"), loc=loc)
        for key, value in spec.items():
            if key == "init_with":
                continue
            at = spec.key_loc(key)
            if not isinstance(value, Map):
                result.patterns[key] = Pattern(key, text_of(spec, key), loc=at)
                continue
            better = value.get("better")
            options: dict[str, Any] = {
                "type": value.get("type", "str"),
                "unit": value.get("unit", ""),
                "default": optional(value, "default"),
                "dotall": value.get("dotall", False),
                "higher_is_better": None if better is None else better == "higher",
                "loc": at,
            }
            if "reduce" in value:
                options["reduce"] = tuple(value["reduce"])
            if "json" in value:
                pattern = Pattern(key, "", mode="json", json_path=value["json"], **options)
            elif "expr" in value:
                pattern = Pattern(key, text_of(value, "expr"), mode="expr", **options)
            elif "python" in value:
                text = text_of(value, "python")
                self.python(f"pattern '{key}'", text, value.value_loc("python"))
                pattern = Pattern(key, text, mode="python", **options)
            elif "shell" in value:
                pattern = Pattern(key, text_of(value, "shell"), mode="shell", **options)
            else:
                pattern = Pattern(key, text_of(value, "regex"), **options)
            result.patterns[key] = pattern
        return result

    def analyser(self, name: str, spec: Map, loc: Loc) -> Analyser:
        files = spec.get("files", [])
        return Analyser(
            name,
            use=_names(spec.get("use")),
            step=spec.get("step"),
            files=[
                AnalyseFile(text_of(files, i), loc=files.value_loc(i))
                if not isinstance(item, Map)
                else AnalyseFile(text_of(item, "path"), _names(item.get("use")), files.value_loc(i))
                for i, item in enumerate(files)
            ],
            builtin=spec.get("builtin"),
            reduce=spec.get("reduce", False),
            tag=spec.get("tag"),
            loc=loc,
        )

    def step(self, name: str, spec: Map, loc: Loc) -> Step:
        used = _names(spec.get("use"))
        pack, pack_time, pack_nodes = pack_of(spec.get("pack", 0))
        return Step(
            name,
            do=dos_of(spec),
            depend=_names(spec.get("depend")),
            use=None if "use" not in spec else tuple(n for n in used if "$" not in n),
            chosen=tuple(n for n in used if "$" in n),
            use_files=_names(spec.get("files")),
            iterations=iterations_of(spec),
            until=self.until(name, spec),
            cycles=spec.get("cycles", 1),
            shared=spec.get("shared"),
            active=spec.get("active", "true"),
            work_dir=optional(spec, "work_dir"),
            suffix=optional(spec, "suffix") or "",
            max_async=spec.get("max_async", 0),
            procs=spec.get("procs", 1),
            export=spec.get("export", False),
            do_log_file=optional(spec, "do_log_file"),
            environment=environment_of(spec.get("environment")),
            resources=resources_of(spec.get("resources")),
            analyse=_names(spec.get("analyse")),
            time_limit=optional(spec, "time_limit"),
            array=spec.get("array", False),
            exclusive=spec.get("exclusive", False),
            pack=pack,
            pack_time=pack_time,
            pack_nodes=pack_nodes,
            darshan=self.darshan(spec),
            tag=spec.get("tag"),
            loc=loc,
            locs=_places(spec),
        )

    def until(self, name: str, spec: Map) -> Until | None:
        """The repetition target of ``iterations: {min: 3, max: 30, until: "ci95 <= 2%"}``."""
        value = spec.get("iterations")
        if not isinstance(value, Map):
            return None
        found = _UNTIL.match(text_of(value, "until"))
        if found is None:  # the schema refuses it first; a library caller gets the same words
            self.fail(
                f"steps.{name}.iterations.until: expected a target such as 'ci95 <= 2%', "
                f"got {value['until']!r}",
                value.value_loc("until"),
            )
            return None
        loc = spec.value_loc("iterations")
        minimum, most = int(value.get("min", 2)), int(value["max"])
        if minimum < 2 or most < minimum:
            self.errors.append(
                DefinitionError(
                    f"steps.{name}.iterations: min {minimum}, max {most}: expected 2 <= min <= max",
                    loc,
                    "a spread needs at least two repetitions of a point",
                )
            )
            return None
        stat, names, limit = found.groups()
        metrics = tuple(n.strip() for n in (names or "").split(",") if n.strip())
        return Until(stat, float(limit) / 100, minimum, metrics, text_of(value, "until"), loc)

    def table(self, name: str, spec: Map, loc: Loc) -> Table:
        columns = spec["columns"]
        return Table(
            name,
            columns=[_column(columns, i) for i in range(len(columns))],
            use=_names(spec.get("use")),
            group_by=_names(spec.get("group_by")),
            sort=_names(spec.get("sort")),
            filter=spec.get("filter"),
            style=spec.get("style", "pretty"),
            transpose=spec.get("transpose", False),
            pivot=optional(spec, "pivot"),
            cv_limit=_share(spec.get("flags"), "cv"),
            outlier_alpha=_share(spec.get("flags"), "outliers"),
            separator=spec.get("separator", ","),
            database=optional(spec, "database"),
            primekeys=_names(spec.get("primekeys")),
            result_dir=optional(spec, "result_dir"),
            syslog=_syslog(spec.get("syslog")),
            tag=spec.get("tag"),
            loc=loc,
            locs=_places(spec),
        )

    def plot(self, name: str, spec: Map, loc: Loc) -> Plot:
        kind = spec.get("kind", "heatmap" if "rows" in spec else "auto")
        if kind == "heatmap" and "rows" not in spec:
            self.fail(f"plot '{name}' is a heatmap: it needs rows (the parameter down)", loc)
        if "rows" in spec and kind != "heatmap":
            self.fail(f"plot '{name}' has rows, which only a heatmap has (kind: {kind})", loc)
        if kind == "heatmap" and "group" in spec:
            self.fail(
                f"plot '{name}' is a heatmap, whose colour is its value: it takes no group"
                " (choose one with filter)",
                loc,
            )
        return Plot(
            name,
            x=text_of(spec, "x"),
            y=text_of(spec, "y"),
            group=_names(spec.get("group")),
            kind=kind,
            rows=optional(spec, "rows"),
            stat=spec.get("stat", "mean"),
            error=spec.get("error", "std"),
            logx=spec.get("logx"),
            logy=spec.get("logy", False),
            filter=spec.get("filter"),
            title=spec.get("title"),
            format=spec.get("format", "svg"),
            tag=spec.get("tag"),
            loc=loc,
            locs=_places(spec),
        )


def _places(spec: Map) -> dict[str, Loc]:
    """Where each key's value, and each item of a list, stood (see ``model.place``)."""
    found = dict(spec.value_locs)
    for key, value in spec.items():
        if isinstance(value, Seq):
            found.update({f"{key}[{i}]": value.value_loc(i) for i in range(len(value))})
    return found


def _named(tree: Map, key: str) -> list[tuple[str, Any, Loc]]:
    """The entries of a section with the place of each name (where messages point)."""
    holder = tree.get(key)
    return [(name, holder[name], holder.key_loc(name)) for name in holder] if holder else []


def _texts(values: list) -> tuple[str, ...]:
    return tuple(text_of(values, i) for i in range(len(values)))


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


#: ``ci95 <= 2%``, ``cv(write_bw, read_bw) <= 5 %``: the schema checks the same form
_UNTIL = re.compile(r"^\s*(ci95|cv)\s*(?:\(([^()]*)\))?\s*(?:<=|≤)\s*([0-9]*\.?[0-9]+)\s*%\s*$")


def _share(holder: Map | None, key: str) -> float | None:
    """A share written as a fraction (0.05) or a percentage ("5%"); ``false`` is 0."""
    value = holder.get(key) if holder else None
    if value is None or isinstance(value, float | int):
        return None if value is None else float(value)
    text = str(value).strip()
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def _syslog(spec: Map | None) -> Syslog | None:
    if spec is None:
        return None
    target = Syslog(optional(spec, "address"), optional(spec, "host"), spec.get("port", 514))
    if "format" in spec:
        target.format = text_of(spec, "format")
    return target


def _column(columns: Seq, index: int) -> Column:
    item, loc = columns[index], columns.value_loc(index)
    if not isinstance(item, Map):
        return Column(text_of(columns, index), loc=loc)
    return Column(
        item["name"],
        title=item.get("title"),
        format=item.get("format"),
        stats=tuple(item.get("stats", ())),
        unit=item.get("unit"),
        expr=item.get("expr"),
        peak=item.get("peak"),
        loc=loc,
    )
