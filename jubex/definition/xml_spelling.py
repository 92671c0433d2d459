"""jubex's XML spelling: the same model as the concise YAML, element for key.

The XML is turned into the very tree the YAML reader makes, so one JSON Schema and one
builder serve both spellings. The parser never resolves entities, never reads a DTD and
never touches the network; a DOCTYPE that declares entities is refused outright, which
closes both external entities and entity-expansion bombs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lxml import etree

from jubex.definition.model import DERIVED_MODES
from jubex.definition.tree import MAX_LISTED, Map, Seq, listed, too_long
from jubex.definition.yaml_tree import MAX_KEYS
from jubex.errors import DefinitionError, Loc, did_you_mean
from jubex.language.values import MAX_DIGITS

T, L, N, B = "text", "list", "int", "bool"
#: ``darshan="true"``, ``"false"``, ``"linked"``, a module or a library (docs/darshan.md)
D = "darshan"


def _spec(texts: str = "", *, lists: str = "", ints: str = "", bools: str = "") -> dict[str, str]:
    """Attribute name -> the kind of value the schema expects, from space-separated names."""
    kinds = {T: texts, L: lists, N: ints, B: bools}
    return {name: kind for kind, names in kinds.items() for name in names.split()}


_SETTINGS = _spec("init_with")
_PARAM = _spec("name type mode tag unit separator update duplicate", bools="export pinned")
_FILEOP = _spec(
    "to directory relative_to source_dir target_dir separator active tag", bools="outside"
)
_PREPARE = _spec("work_dir stdout stderr active tag")
_PATTERN = _spec("name mode json type unit default better", lists="reduce", bools="dotall")
_STEP = _spec(
    "name time_limit active shared work_dir suffix do_log_file tag",
    lists="use files depend analyse",
    ints="iterations cycles max_async procs pack",
    bools="array exclusive export",
)
_REPEAT = _spec("until", ints="min max")
_DO = _spec("active done_file error_file break_file work_dir stdout stderr tag", bools="shared")
_RESOURCES = _spec("nodes tasks_per_node tasks threads time partition account memory")
_TABLE = _spec(
    "name filter style separator database result_dir tag pivot",
    lists="group_by sort use primekeys",
    bools="transpose",
)
_COLUMN = _spec("name unit format title expr", lists="stats")
_ANALYSER = _spec("name step builtin tag", lists="use", bools="reduce")


def parse_xml(data: bytes, file: str) -> etree._Element:
    """The root element, parsed with every external or expanding feature switched off."""
    parser = etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (0, 0)
        raise DefinitionError(f"XML syntax: {exc.msg}", Loc(file, line, column)) from None
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise DefinitionError(
            "a DOCTYPE with entity declarations is refused; write the values out", Loc(file, 1)
        )
    return root


def _tag(el: etree._Element) -> str:
    """The tag as parsed: always text (lxml's types allow bytes and QName for tags set later)."""
    return str(el.tag)


def read_xml(root: etree._Element, file: str) -> tuple[Map, list[DefinitionError]]:
    """The tree of a ``<jubex>`` document and every problem found while reading it."""
    reader = _Reader(file)
    return reader.benchmark(root), reader.errors


class _Reader:
    """Element by element into Map/Seq, checking every tag and attribute name."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[DefinitionError] = []

    def loc(self, el: etree._Element) -> Loc:
        return Loc(self.file, el.sourceline or 0)

    def fail(self, message: str, el: etree._Element, hint: str = "") -> None:
        self.errors.append(DefinitionError(message, self.loc(el), hint))

    def text(self, el: etree._Element) -> str:
        return (el.text or "").strip()

    def attrs(self, el: etree._Element, spec: dict[str, str], skip: tuple[str, ...] = ()) -> Map:
        """The element's attributes, typed as the schema expects; unknown names are errors."""
        result = Map(self.loc(el))
        for name, raw in el.attrib.items():
            if name in skip:
                continue
            kind = spec.get(name)
            if kind is None:
                self.fail(
                    f"<{_tag(el)}> has no attribute '{name}'", el, did_you_mean(name, spec) or ""
                )
                continue
            result.put(name, _coerce(raw, kind), self.loc(el), text=raw)
        return result

    def children(
        self, el: etree._Element, handlers: dict[str, Callable[[etree._Element], None]]
    ) -> None:
        if self.text(el):
            self.fail(f"<{_tag(el)}> holds elements, not text", el)
        for child in el:
            handler = handlers.get(_tag(child))
            if handler is None:
                where = f"inside <{_tag(el)}>"
                self.fail(
                    f"unknown element <{_tag(child)}> {where}",
                    child,
                    did_you_mean(_tag(child), handlers),
                )
            else:
                handler(child)

    def named(self, el: etree._Element) -> str:
        name = el.get("name", "")
        if not name:
            self.fail(f"<{_tag(el)}> needs a name attribute", el)
        return name

    def add(self, holder: Map, el: etree._Element, value: Any) -> None:
        """Put a named element's value; a name given twice is an error, as in YAML."""
        name = self.named(el)
        if name in holder:
            first = holder.key_loc(name).line
            self.fail(f'<{_tag(el)} name="{name}"> given twice (first at line {first})', el)
        holder.put(name, value, self.loc(el))

    def benchmark(self, root: etree._Element) -> Map:
        tree = self.attrs(
            root,
            {"name": T, "outpath": T, "platform": T, "max_workpackages": N, "darshan": D},
        )
        loc = self.loc

        def section(key: str, kind: type[Map] | type[Seq]) -> Any:
            if key not in tree:
                tree.put(key, kind(loc(root)), loc(root))
            return tree[key]

        def add_named(key: str, build: Callable[[etree._Element], Any]) -> Callable:
            return lambda el: self.add(section(key, Map), el, build(el))

        def add_item(key: str, build: Callable[[etree._Element], Any]) -> Callable:
            return lambda el: section(key, Seq).add(build(el), loc(el), self.text(el))

        def set_once(key: str, build: Callable[[etree._Element], Any]) -> Callable:
            def handler(el: etree._Element) -> None:
                if key in tree:
                    self.fail(f"<{_tag(el)}> given twice", el)
                tree.put(key, build(el), loc(el), text=self.text(el))

            return handler

        self.children(
            root,
            {
                "comment": set_once("comment", self.text),
                "include": add_item("include", self.text),
                "tags": set_once("tags", lambda el: _coerce(self.text(el), L)),
                "environment": set_once("environment", self.environment),
                "parameters": set_once("parameters", self.parameterset),
                "parameterset": add_named("parametersets", self.parameterset),
                "where": add_item("where", self.where),
                "fileset": add_named("files", self.fileset),
                "substituteset": add_named("substitutions", self.substituteset),
                "patternset": add_named("patterns", self.patternset),
                "analyser": add_named("analysers", self.analyser),
                "step": add_named("steps", self.step),
                "table": add_named("results", self.table),
            },
        )
        return tree

    def environment(self, el: etree._Element) -> Map:
        env = Map(self.loc(el))
        self.children(el, {"env": lambda var: self.add(env, var, self.text(var))})
        return env

    def parameterset(self, el: etree._Element) -> Map:
        result = self.attrs(el, _SETTINGS, skip=("name",))
        if len(el) > MAX_KEYS:  # as a YAML mapping: 10,000 parameters took 3 to 4 s
            self.fail(
                f"<{_tag(el)}> holds {len(el):,} elements, more than the {MAX_KEYS:,} a set "
                "may hold",
                el,
                "a parameter of several values spans a space: <parameter>1,2,4</parameter>",
            )
            return result

        def zip_group(group: etree._Element) -> None:
            members = Map(self.loc(group))
            self.children(
                group,
                {"parameter": lambda p: self.add(members, p, self.parameter(p))},
            )
            self.add(result, group, Map(self.loc(group), [("zip", members)]))

        self.children(
            el,
            {
                "parameter": lambda p: self.add(result, p, self.parameter(p)),
                "zip": zip_group,
            },
        )
        return result

    def parameter(self, el: etree._Element) -> Any:
        options = self.attrs(el, _PARAM, skip=("name",))
        mode = options.pop("mode", "text")
        text = self.text(el)
        if mode in DERIVED_MODES:
            options.put(mode, text, self.loc(el), text=text)
        elif mode != "text":
            self.fail(
                f"parameter mode '{mode}' is unknown; expected text, expr, python, shell or env", el
            )
        elif len(el):
            self.parameter_children(el, options)
        else:
            try:
                values = listed(text, options.get("separator", ","), self.loc(el))
            except DefinitionError as exc:
                self.errors.append(exc)
                values = []
            seq = Seq(self.loc(el))
            for value in values:
                seq.add(value, self.loc(el), value)
            options.put("values", seq, self.loc(el))
        if list(options) == ["values"] and len(options["values"]) == 1:
            return options["values"][0]
        return options

    def parameter_children(self, el: etree._Element, options: Map) -> None:
        values = Seq(self.loc(el))

        def one_range(child: etree._Element) -> None:
            spec = self.attrs(
                child, {"start": "num", "stop": "num", "step": "num", "factor": "num"}
            )
            options.put("range", spec, self.loc(child))

        def one_value(child: etree._Element) -> None:
            values.add(self.text(child), self.loc(child), self.text(child))

        count = sum(child.tag == "value" for child in el)
        if count > MAX_LISTED:
            self.errors.append(too_long(count, self.loc(el)))
            return
        self.children(el, {"range": one_range, "value": one_value})
        if values:
            options.put("values", values, self.loc(el))

    def where(self, el: etree._Element) -> Any:
        spec = self.attrs(el, {"tag": T})
        if not spec:
            return self.text(el)
        spec.put("expr", self.text(el), self.loc(el))
        return spec

    def fileset(self, el: etree._Element) -> Seq:
        ops = Seq(self.loc(el))

        def op(kind: str, spec: dict[str, str]) -> Callable[[etree._Element], None]:
            def handler(child: etree._Element) -> None:
                entry = self.attrs(child, spec)
                entry.put(kind, self.text(child), self.loc(child), text=self.text(child))
                ops.add(entry, self.loc(child))

            return handler

        self.children(
            el,
            {"copy": op("copy", _FILEOP), "link": op("link", _FILEOP)}
            | {"prepare": op("prepare", _PREPARE)},
        )
        return ops

    def substituteset(self, el: etree._Element) -> Map:
        result = self.attrs(el, _SETTINGS, skip=("name",))

        def iofile(child: etree._Element) -> None:
            if "files" not in result:
                result.put("files", Seq(self.loc(child)), self.loc(child))
            result["files"].add(
                self.attrs(child, {"in": T, "out": T, "append": B, "outside": B}), self.loc(child)
            )

        def sub(mode: str) -> Callable[[etree._Element], None]:
            def handler(child: etree._Element) -> None:
                if mode not in result:
                    result.put(mode, Map(self.loc(child)), self.loc(child))
                source = child.get("from", "")
                if not source or set(child.attrib) != {"from"}:
                    self.fail(f"<{mode}> takes exactly one attribute, from", child)
                result[mode].put(source, self.text(child), self.loc(child), text=self.text(child))

            return handler

        self.children(el, {"iofile": iofile, "replace": sub("replace"), "regex": sub("regex")})
        return result

    def patternset(self, el: etree._Element) -> Map:
        result = self.attrs(el, _SETTINGS, skip=("name",))

        def pattern(child: etree._Element) -> None:
            spec = self.attrs(child, _PATTERN, skip=("name",))
            mode = spec.pop("mode", "regex")
            if "json" not in spec:
                if mode not in ("regex", "expr", "python", "shell"):
                    self.fail(
                        f"pattern mode '{mode}' is unknown; expected regex, expr, python or shell",
                        child,
                    )
                spec.put(mode, self.text(child), self.loc(child), text=self.text(child))
            self.add(result, child, spec)

        self.children(el, {"pattern": pattern})
        return result

    def analyser(self, el: etree._Element) -> Map:
        result = self.attrs(el, _ANALYSER, skip=("name",))

        def one_file(child: etree._Element) -> None:
            if "files" not in result:
                result.put("files", Seq(self.loc(child)), self.loc(child))
            spec = self.attrs(child, {"use": L})
            if spec:
                spec.put("path", self.text(child), self.loc(child))
                result["files"].add(spec, self.loc(child))
            else:
                result["files"].add(self.text(child), self.loc(child), self.text(child))

        self.children(el, {"file": one_file})
        return result

    def step(self, el: etree._Element) -> Map:
        result = self.attrs(el, {**_STEP, "darshan": D}, skip=("name",))
        dos = Seq(self.loc(el))

        def one_do(child: etree._Element) -> None:
            spec = self.attrs(child, _DO)
            if not spec:
                dos.add(self.text(child), self.loc(child), self.text(child))
                return
            spec.put("cmd", self.text(child), self.loc(child), text=self.text(child))
            dos.add(spec, self.loc(child))

        def resources(child: etree._Element) -> None:
            spec = self.attrs(child, _RESOURCES)
            extra = Map(self.loc(child))
            self.children(child, {"extra": lambda x: self.add(extra, x, self.text(x))})
            if extra:
                spec.put("extra", extra, self.loc(child))
            result.put("resources", spec, self.loc(child))

        self.children(
            el,
            {
                "do": one_do,
                "resources": resources,
                "iterations": lambda child: result.put(
                    "iterations", self.attrs(child, _REPEAT), self.loc(child)
                ),
                "environment": lambda child: result.put(
                    "environment", self.environment(child), self.loc(child)
                ),
            },
        )
        if dos:
            result.put("do", dos, self.loc(el))
        return result

    def table(self, el: etree._Element) -> Map:
        result = self.attrs(el, _TABLE, skip=("name",))
        columns = Seq(self.loc(el))

        def column(child: etree._Element) -> None:
            spec = self.attrs(child, _COLUMN)
            if not spec:
                columns.add(self.text(child), self.loc(child), self.text(child))
                return
            if self.text(child):
                spec.put("name", self.text(child), self.loc(child))
            columns.add(spec, self.loc(child))

        def syslog(child: etree._Element) -> None:
            spec = {"address": T, "host": T, "port": N, "format": T}
            result.put("syslog", self.attrs(child, spec), self.loc(child))

        self.children(el, {"column": column, "syslog": syslog})
        result.put("columns", columns, self.loc(el))
        return result


def _coerce(raw: str, kind: str) -> Any:
    """Attribute text to the type the schema expects; a misfit stays text for the schema."""
    text = raw.strip()
    if kind == L:
        return [part for part in re.split(r"[,\s]+", text) if part]
    if kind in (B, D) and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind in (N, "num") and len(text) <= MAX_DIGITS and re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    if kind == "num":
        try:
            return float(text)
        except ValueError:
            return text
    return raw if kind == T else text  # a darshan module or library: its text
