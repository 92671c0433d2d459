"""What every part of the JUBE reader shares: the problems found, notes for ``jubex convert``,
and JUBE's attribute vocabulary, element by element, with what jubex cannot honour yet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jubex.definition.jube.nodes import Node
from jubex.definition.jube.source import JubeFile, Sources
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, did_you_mean

#: the attributes JUBE 2.7 knows, per element (``tag`` is allowed everywhere)
ATTRIBUTES: dict[str, frozenset[str]] = {
    tag: frozenset(names.split())
    for tag, names in {
        "jube": "version",
        "benchmark": "name outpath file_path_ref",
        "parameterset": "name init_with duplicate",
        "parameter": "name type mode separator export unit update_mode duplicate",
        "fileset": "name init_with",
        "copy": "source_dir directory target_dir name rel_path_ref file_path_ref separator active",
        "link": "source_dir directory target_dir name rel_path_ref file_path_ref separator active",
        "prepare": "work_dir active stdout stderr",
        "substituteset": "name init_with",
        "iofile": "in out out_mode",
        "sub": "source dest mode",
        "patternset": "name init_with",
        "pattern": "name mode type unit default dotall",
        "step": "name depend iterations work_dir export max_async active suffix cycles procs "
        "shared do_log_file",
        "do": "done_file error_file break_file stdout stderr active shared work_dir",
        "use": "from",
        "analyser": "name reduce",
        "analyzer": "name reduce",
        "analyse": "step",
        "file": "use",
        "result": "result_dir",
        "syslog": "name address host port sort format filter",
        "table": "name style sort separator transpose filter",
        "column": "colw format title",
        "database": "name primekeys file filter",
        "key": "title format primekey",
    }.items()
}
#: JUBE attributes and elements the model has no home for yet, with what to do instead
UNSUPPORTED: dict[tuple[str, str], str] = {
    ("parameter", "selection"): "write the selected value as the parameter's value",
}


#: unknown attributes of one element said one by one; the rest are counted in one warning
#: (100,000 of them were 100,000 warnings and 20 s of close-match searches)
MAX_UNKNOWN_ATTRIBUTES = 10


@dataclass
class Context:
    """The file being read and what reading it has found so far."""

    sources: Sources
    jube: JubeFile
    errors: list[JubexError] = field(default_factory=list)
    #: what JUBE passes over and jubex therefore only reports (file:line, never fatal)
    warnings: list[DefinitionWarning] = field(default_factory=list)
    #: (section, name, message): what ``jubex convert`` must flag at that element
    notes: list[tuple[str, str, str]] = field(default_factory=list)
    #: the benchmark's ``file_path_ref``: where its relative paths start, seen from the file
    file_path_ref: str = "."
    #: per step, the ``<use>`` names holding ``$`` and the ``max_async`` given by a parameter,
    #: worked out once every step is read (:mod:`.chosen`)
    chosen: dict[str, list[tuple[str, Loc]]] = field(default_factory=dict)
    max_async: dict[str, tuple[str, Loc]] = field(default_factory=dict)
    #: work a snippet that builds several values out while reading, into a list (``jubex
    #: convert``, so that the converted file shows the values); planning leaves it to the
    #: expansion, which splits it where JUBE does, so that each point gets JUBE's id
    work_out: bool = False

    @property
    def path(self) -> Path:
        return self.jube.path

    def fail(self, message: str, loc: Loc | None, hint: str = "") -> None:
        self.errors.append(DefinitionError(message, loc, hint))

    def warn(self, message: str, loc: Loc | None, hint: str = "") -> None:
        self.warnings.append(DefinitionWarning(message, loc, hint))

    def note(self, section: str, name: str, message: str) -> None:
        self.notes.append((section, name, message))

    def check(self, node: Node, children: tuple[str, ...] = ()) -> None:
        """Unknown child elements are errors, as in JUBE; unknown attributes, which JUBE
        never reads, are warnings (a misspelt one is not taken for the real one either)."""
        known = ATTRIBUTES.get(node.tag, frozenset())
        unknown = [name for name in node.attrs if name != "tag" and name not in known]
        choices = sorted(known)
        for name in unknown[:MAX_UNKNOWN_ATTRIBUTES]:
            self.warn(
                f"<{node.tag}> attribute '{name}' is not one JUBE reads; it is ignored, as JUBE "
                "ignores it",
                node.where(name),
                did_you_mean(name, choices) or (f"known: {', '.join(choices)}" if choices else ""),
            )
        if len(unknown) > MAX_UNKNOWN_ATTRIBUTES:
            self.warn(
                f"<{node.tag}> has {len(unknown) - MAX_UNKNOWN_ATTRIBUTES:,} more attributes "
                "JUBE does not read; they are ignored, as JUBE ignores them",
                node.loc,
            )
        for child in node.children:
            if child.tag not in children:
                self._refuse(node, child.tag, f"element <{child.tag}>", children, child.loc)

    def unsupported(self, tag: str, name: str, what: str, loc: Loc) -> None:
        """A JUBE feature jubex cannot honour yet: an error naming it and the way around."""
        self.fail(f"<{tag}> {what} is not supported by jubex yet", loc, UNSUPPORTED[(tag, name)])

    def _refuse(self, node: Node, name: str, what: str, known: Iterable[str], loc: Loc) -> None:
        if (node.tag, name) in UNSUPPORTED:
            self.unsupported(node.tag, name, what, loc)
        else:
            choices = sorted(known)
            self.fail(
                f"<{node.tag}> has no {what}",
                loc,
                did_you_mean(name, choices) or (f"known: {', '.join(choices)}" if choices else ""),
            )

    def required(self, node: Node, name: str) -> str:
        value = node.get(name)
        if not value:
            self.fail(f"<{node.tag}> needs the {name} attribute", node.loc)
            return ""
        return value

    def flag(self, node: Node, name: str, default: bool = False) -> bool:
        """A true/false attribute as JUBE reads it (anything but ``true`` is false)."""
        value = node.get(name)
        return default if value is None else value.lower() == "true"

    def integer(self, node: Node, name: str, default: int) -> int:
        value = node.get(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            self.fail(
                f'<{node.tag}> attribute {name}="{value}" must be a whole number',
                node.where(name),
                "jubex reads this attribute before any parameter is known",
            )
            return default
