"""``jubex convert``: a JUBE file written out in jubex's concise YAML.

The file is read as ``jubex run`` reads it (for the given tags), so the YAML spans the same
space. What JUBE says that the concise spelling cannot is kept as a ``# jubex:`` comment
where it happened: elements the tags left out, tag descriptions, column widths, values
worked out from python snippets, analysers split per step, names that had to change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from jubex.definition.jube.reader import Loaded, read_jube
from jubex.definition.jube.yaml_writer import Flagged, dump
from jubex.definition.model import (
    DERIVED_MODES,
    Analyser,
    Column,
    Do,
    FileOp,
    Parameter,
    ParameterSet,
    Pattern,
    Step,
    SubstituteSet,
    Table,
)
from jubex.errors import UsageError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
T = TypeVar("T")
_SECTIONS = ("parametersets", "files", "substitutions", "patterns", "analysers", "steps", "results")


def convert_file(
    path: str | Path,
    output: str | Path | None = None,
    *,
    tags: Iterable[str] = (),
    include_path: Sequence[Path] = (),
    benchmark: str | None = None,
) -> str:
    """The YAML text; relative paths are re-based onto the folder of ``output``. Of a file
    holding several benchmarks, the one named ``benchmark``: one is all a file of jubex's
    own format holds, so without a name such a file is refused."""
    loaded = read_jube(
        path, tags=tags, include_path=include_path, benchmark=benchmark, work_out=True
    )
    several = loaded.benchmark.file_benchmarks
    if several and benchmark is None:
        raise UsageError(
            f"{path} holds {len(several)} benchmarks ({', '.join(several)}); a converted file "
            "holds one",
            hint=f"convert each with --benchmark NAME (e.g. --benchmark {several[0]})",
        )
    target = Path(output).resolve().parent if output else Path(path).resolve().parent
    return Converter(loaded, target).text()


class Converter:
    def __init__(self, loaded: Loaded, target_dir: Path) -> None:
        self.loaded = loaded
        self.benchmark = loaded.benchmark
        self.prefix = os.path.relpath(Path(self.benchmark.file).resolve().parent, target_dir)
        self.notes: dict[tuple[str, str], list[str]] = {}
        for section, name, message in loaded.notes:
            self.notes.setdefault((section, name), []).append(message)
        self.names: dict[tuple[str, str], str] = {}

    def text(self) -> str:
        b = self.benchmark
        for section in _SECTIONS:
            self._rename(section, self._section(section))
        data: dict[str, object] = {
            "name": self._benchmark_name(),
            "comment": b.comment,
            "outpath": b.outpath,  # where runs are made: beside the converted file
        }
        if b.tags:
            data["tags"] = list(b.tags)
        data["parametersets"] = self._named("parametersets", b.parametersets, self.parameterset)
        data["files"] = self._named("files", b.filesets, lambda s: [self.fileop(o) for o in s.ops])
        data["substitutions"] = self._named("substitutions", b.substitutesets, self.substituteset)
        data["patterns"] = self._named(
            "patterns", b.patternsets, lambda s: {p.name: pattern(p) for p in s.patterns.values()}
        )
        data["analysers"] = self._named("analysers", b.analysers, self.analyser)
        data["steps"] = self._named("steps", b.steps, self.step)
        data["results"] = self._named("results", b.tables, self.table)
        return dump({k: v for k, v in data.items() if v not in ({}, "")}, self.header())

    def header(self) -> list[str]:
        jube = self.loaded.jube
        tags = ", ".join(sorted(jube.tags)) or "none"
        lines = [f"Converted by jubex convert from {jube.path.name}, read for tags: {tags}.", ""]
        lines += [f"jubex: tag '{name}': {text}" for name, text in sorted(jube.tag_docs.items())]
        for node in jube.dropped:
            label = f' name="{node.attrs["name"]}"' if "name" in node.attrs else ""
            tag = node.attrs.get("tag", "")
            lines.append(
                f'jubex: left out for these tags: <{node.tag}{label} tag="{tag}"> at {node.loc}'
            )
        for (section, name), messages in self.notes.items():
            if section not in _SECTIONS:
                lines += [f"jubex: {name}: {m}" for m in messages]
        return lines

    def _section(self, section: str) -> Mapping[str, object]:
        b = self.benchmark
        sections: tuple[Mapping[str, object], ...] = (
            b.parametersets,
            b.filesets,
            b.substitutesets,
            b.patternsets,
            b.analysers,
            b.steps,
            b.tables,
        )
        return dict(zip(_SECTIONS, sections, strict=True))[section]

    def _rename(self, section: str, items: Mapping[str, object]) -> None:
        """Names the concise spelling refuses (``2nd``, ``a b``) get a safe spelling, flagged."""
        taken = set(items)
        for name in items:
            if _NAME.fullmatch(name):
                continue
            new = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
            new = new if _NAME.fullmatch(new) else f"_{new}"
            while new in taken:
                new += "_"
            taken.add(new)
            self.names[(section, name)] = new
            self.notes.setdefault((section, name), []).append(f"called '{name}' in the JUBE file")

    def _name(self, section: str, name: str) -> str:
        return self.names.get((section, name), name)

    def _named(
        self, section: str, items: Mapping[str, T], convert: Callable[[T], object]
    ) -> dict[str, object]:
        result: dict[str, object] = {}
        for name, item in items.items():
            value = convert(item)
            notes = self.notes.get((section, name), []) + self.notes.get(("sets", name), [])
            result[self._name(section, name)] = Flagged(value, notes) if notes else value
        return result

    def _names(self, section: str, names: Iterable[str]) -> list[str]:
        return [self._name(section, n) for n in names]

    def _benchmark_name(self) -> object:
        """The name as it is: a benchmark's name is a label (``Amber Benchmark``) that
        ``$jube_benchmark_name`` hands on, no key of the file."""
        return self.benchmark.name

    def _path(self, text: str) -> str:
        """A path relative to the JUBE file, seen from the folder the YAML is written to."""
        if self.prefix in ("", ".") or text.startswith(("/", "$", "~")):
            return text
        return os.path.normpath(os.path.join(self.prefix, text))

    def parameterset(self, pset: ParameterSet) -> dict[str, object]:
        zipped = {name: index for index, group in enumerate(pset.zips) for name in group}
        result: dict[str, object] = {}
        for name, p in pset.parameters.items():
            if name not in zipped:
                result[name] = parameter(p)
            elif f"zip{zipped[name] + 1}" not in result:
                group = pset.zips[zipped[name]]
                members = {m: parameter(pset.parameters[m]) for m in group}
                result[f"zip{zipped[name] + 1}"] = {"zip": members}
        return result

    def fileop(self, op: FileOp) -> dict[str, object]:
        entry: dict[str, object] = {op.kind: op.source}
        if op.kind == "prepare":
            entry.update(_present(work_dir=op.directory, stdout=op.stdout, stderr=op.stderr))
        else:
            source_dir = op.source_dir
            if op.rel_path_ref == "definition" and not op.source.startswith(("/", "$", "~")):
                source_dir = self._path(source_dir or ".")
                source_dir = None if source_dir == "." else source_dir
            entry.update(_present(to=op.target, source_dir=source_dir, target_dir=op.target_dir))
            if op.rel_path_ref == "workdir":
                entry["relative_to"] = "workdir"
        if op.active != "true":
            entry["active"] = op.active
        return entry

    def substituteset(self, subs: SubstituteSet) -> dict[str, object]:
        result: dict[str, object] = {
            "files": [
                {"in": f.source, "out": f.target, **({"append": True} if f.out_mode == "a" else {})}
                for f in subs.iofiles
            ]
        }
        for key, mode in (("replace", "text"), ("regex", "regex")):
            found = {s.source: s.dest for s in subs.subs if s.mode == mode}
            if found:
                result[key] = found
        return result

    def analyser(self, analyser: Analyser) -> dict[str, object]:
        files = [
            f.path if not f.use else {"path": f.path, "use": self._names("patterns", f.use)}
            for f in analyser.files
        ]
        result = _present(
            use=self._names("patterns", analyser.use), step=self._name("steps", analyser.step or "")
        )
        if files:
            result["files"] = files
        if analyser.reduce:
            result["reduce"] = True
        return result

    def step(self, step: Step) -> dict[str, object]:
        result: dict[str, object] = {
            "use": [self._name("parametersets", n) for n in step.use or ()] + list(step.chosen)
        }
        result.update(
            _present(
                files=[
                    self._name("files", n)
                    if n in self.benchmark.filesets
                    else self._name("substitutions", n)
                    for n in step.use_files
                ],
                depend=[self._name("steps", n) for n in step.depend],
            )
        )
        for key, value, default in (
            ("iterations", step.iterations, 1),
            ("cycles", step.cycles, 1),
            ("max_async", step.max_async, 0),
            ("procs", step.procs, 1),
            ("export", step.export, False),
            ("active", step.active, "true"),
            ("suffix", step.suffix, ""),
        ):
            if value != default:
                result[key] = value
        result.update(
            _present(shared=step.shared, work_dir=step.work_dir, do_log_file=step.do_log_file)
        )
        result["do"] = [do(d) for d in step.do]
        return result

    def table(self, table: Table) -> dict[str, object]:
        result: dict[str, object] = {"columns": [column(c) for c in table.columns]}
        result.update(
            _present(
                use=[self._name("analysers", n) for n in table.use],
                sort=list(table.sort),
                filter=table.filter,
                style=table.style,
                database=table.database,
                primekeys=list(table.primekeys),
                result_dir=self._path(table.result_dir) if table.result_dir else None,
            )
        )
        if table.syslog is not None:
            result["syslog"] = _present(**vars(table.syslog))
        if table.transpose:
            result["transpose"] = True
        if table.separator != ",":
            result["separator"] = table.separator
        return result


def parameter(p: Parameter) -> object:
    options = _present(
        type=p.type if p.type != "auto" else None,
        unit=p.unit,
        update=p.update_mode if p.update_mode != "never" else None,
    )
    if p.export:
        options["export"] = True
    if p.mode in DERIVED_MODES and p.separator:  # its result is split, as in JUBE
        options["separator"] = p.separator
    if p.mode in DERIVED_MODES:
        return {p.mode: p.values[0], **options}
    values: object = p.values[0] if len(p.values) == 1 else list(p.values)
    return {"values": values, **options} if options else values


def pattern(p: Pattern) -> object:
    options = _present(type=p.type if p.type != "str" else None, unit=p.unit, default=p.default)
    if p.dotall:
        options["dotall"] = True
    key = p.mode if p.mode in ("expr", "python", "shell") else "regex"
    return {key: p.regex, **options} if options or key != "regex" else p.regex


def do(item: Do) -> object:
    options = _present(
        done_file=item.done_file,
        error_file=item.error_file,
        break_file=item.break_file,
        work_dir=item.work_dir,
        stdout=item.stdout,
        stderr=item.stderr,
    )
    if item.active != "true":
        options["active"] = item.active
    if item.shared:
        options["shared"] = True
    return {"cmd": item.command, **options} if options else item.command


def column(c: Column) -> object:
    options = _present(title=c.title, format=c.format, expr=c.expr)
    return {"name": c.name, **options} if options else c.name


def _present(**values: object) -> dict[str, object]:
    """The options that are set (not None, not empty)."""
    return {k: v for k, v in values.items() if v not in (None, "", [], ())}
