"""Reading one platform file, YAML or XML, into plain data and the place of every key.

Both spellings give the same dict, so one JSON Schema validates both. Places are kept by
dotted path (``"partitions.booster.max_nodes"``) so that any later error names file and
line. In YAML, ``30:00`` stays the text ``30:00`` (YAML 1.1 would read 1800, a base-60
integer): durations are read by jubex, not by YAML.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import yaml
from lxml import etree

from jubex.errors import DefinitionError, Loc

Locs = dict[str, Loc]

#: Keys of the XML spelling whose elements hold a list, and the tag of their items.
XML_LISTS = {"modules": "module", "submit_args": "arg"}
#: Keys of the XML spelling whose elements hold one text.
XML_TEXTS = ("name", "extends", "description", "scheduler", "launcher", "account", "template")


def read_file(path: Path) -> tuple[dict[str, Any], Locs]:
    """A platform file's data and the places of its keys."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError(f"cannot read platform file: {exc}", Loc(str(path))) from None
    return read_xml(text, str(path)) if path.suffix == ".xml" else read_yaml(text, str(path))


def read_yaml(text: str, file: str) -> tuple[dict[str, Any], Locs]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Loc(file, mark.line + 1, mark.column + 1) if mark else Loc(file)
        raise DefinitionError(f"not valid YAML: {exc.problem or exc.context}", loc) from None
    if not isinstance(node, yaml.MappingNode):
        raise DefinitionError(
            "a platform file must be a mapping with at least name, scheduler and template",
            Loc(file, node.start_mark.line + 1) if node else Loc(file),
        )
    locs: Locs = {"": _mark(file, node)}
    return _yaml_value(node, "", locs, file), locs


def _mark(file: str, node: yaml.Node) -> Loc:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        line += 1  # a block text starts on the line after its indicator
    return Loc(file, line, node.start_mark.column + 1)


def _yaml_value(node: yaml.Node, path: str, locs: Locs, file: str) -> Any:
    if isinstance(node, yaml.MappingNode):
        data: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise DefinitionError("keys must be plain words", _mark(file, key_node))
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            if key in data:
                raise DefinitionError(
                    f"key '{key}' appears twice (first at line {locs[child].line})",
                    _mark(file, key_node),
                )
            block = getattr(value_node, "style", None) in ("|", ">")
            locs[child] = _mark(file, value_node if block else key_node)
            data[key] = _yaml_value(value_node, child, locs, file)
        return data
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            locs[f"{path}.{index}"] = _mark(file, item)
            items.append(_yaml_value(item, f"{path}.{index}", locs, file))
        return items
    if node.tag.endswith((":int", ":float")) and ":" in node.value:
        return node.value  # a clock time such as 30:00, not a base-60 number
    value = yaml.constructor.SafeConstructor().construct_object(node, deep=True)
    return value.isoformat() if hasattr(value, "isoformat") else value


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
    )


def read_xml(text: str, file: str) -> tuple[dict[str, Any], Locs]:
    """The XML spelling: ``<platform name=... extends=...>`` with one element per YAML key."""
    try:
        root = etree.fromstring(text.encode("utf-8"), _parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (0, 0)
        raise DefinitionError(f"not valid XML: {exc.msg}", Loc(file, line, column)) from None
    doctype = root.getroottree().docinfo.internalDTD
    if doctype is not None and any(True for _ in doctype.iterentities()):
        raise DefinitionError("XML entity declarations are refused", Loc(file, 1))
    if root.tag != "platform":
        raise DefinitionError(
            f"the root element must be <platform>, not <{root.tag}>",
            Loc(file, root.sourceline or 0),
        )
    locs: Locs = {"": Loc(file, root.sourceline or 0)}
    data: dict[str, Any] = {}
    for key, value in root.attrib.items():
        data[key] = value
        locs[key] = locs[""]
    for child in root:
        if not isinstance(child.tag, str):
            continue
        locs[child.tag] = Loc(file, child.sourceline or 0)
        data[child.tag] = _xml_value(child, child.tag, locs, file)
    return data, locs


def _xml_value(elem: etree._Element, path: str, locs: Locs, file: str) -> Any:
    key = path.rsplit(".", 1)[-1]
    if key in XML_TEXTS:
        text = elem.text or ""
        if key == "template":
            if text.startswith("\n") and elem.sourceline:
                locs[path] = Loc(file, elem.sourceline + 1)
            return textwrap.dedent(text.lstrip("\n")).rstrip() + "\n"
        return text.strip()
    if key in XML_LISTS:
        for index, item in enumerate(elem):
            locs[f"{path}.{index}"] = Loc(file, item.sourceline or 0)
        return [(item.text or "").strip() for item in elem if item.tag == XML_LISTS[key]]
    data: dict[str, Any] = {}
    for name, value in elem.attrib.items():
        data[name] = _typed(value, name, path)
        locs[f"{path}.{name}"] = Loc(file, elem.sourceline or 0)
    for child in elem:
        if not isinstance(child.tag, str):
            continue
        name = child.get("name", child.tag) if key == "partitions" else child.tag
        child_path = f"{path}.{name}"
        locs[child_path] = Loc(file, child.sourceline or 0)
        if key == "partitions":
            attrs = {k: v for k, v in child.attrib.items() if k != "name"}
            data[name] = {k: _typed(v, k, child_path) for k, v in attrs.items()}
        elif len(child) or name in XML_LISTS:
            data[name] = _xml_value(child, child_path, locs, file)
        else:
            data[name] = _typed((child.text or "").strip(), name, path)
    return data


#: Keys whose XML text is a whole number or a flag; all other texts stay texts.
_INTEGERS = {
    "max_nodes",
    "min_nodes",
    "cores_per_node",
    "gpus_per_node",
    "max_queued",
    "nodes",
    "tasks",
    "tasks_per_node",
    "threads",
}
_NUMBERS = {"poll_interval", "poll_max_interval", "timeout"}
_FLAGS = {"default", "array", "dependencies"}


def _typed(text: str, key: str, path: str) -> Any:
    """XML attribute texts typed as the schema expects them (``936`` -> 936, ``true`` -> True)."""
    if path.startswith(("environment", "parameters")):
        return text
    if key in _INTEGERS and text.strip().isdigit():
        return int(text)
    if key in _NUMBERS:
        try:
            return float(text)
        except ValueError:
            return text
    if key in _FLAGS and text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    return text
