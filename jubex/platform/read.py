"""Reading one platform file, YAML or XML, into plain data and the place of every key.

Both spellings give the same dict, so one JSON Schema validates both. Places are kept by
dotted path (``"partitions.booster.max_nodes"``) so that any later error names file and
line. YAML is read as definitions are (:mod:`jubex.definition.yaml_tree`, the YAML 1.2 core
schema): ``30:00`` and ``yes`` stay texts, only ``true``/``false`` are flags.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jubex.definition.tree import Map, Seq
from jubex.definition.yaml_tree import TreeBuilder, compose
from jubex.errors import DefinitionError, ErrorList, Loc

if TYPE_CHECKING:
    from lxml import etree

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
    """The YAML spelling, read by the one reader definitions are read with."""
    node = compose(text, file)
    builder = TreeBuilder(file, text)
    tree = builder.value(node) if node is not None else None
    if builder.errors:
        raise builder.errors[0] if len(builder.errors) == 1 else ErrorList(builder.errors)
    if not isinstance(tree, Map):
        raise DefinitionError(
            "a platform file must be a mapping with at least name, scheduler and template",
            builder.loc(node) if node is not None else Loc(file),
        )
    locs: Locs = {"": tree.loc}
    return _plain(tree, "", locs), locs


def _plain(value: Any, path: str, locs: Locs) -> Any:
    """Plain dicts and lists, each key placed at its line (a text below its key, at the text)."""
    if isinstance(value, Map):
        data: dict[str, Any] = {}
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            below = isinstance(item, str) and value.value_loc(key).line > value.key_loc(key).line
            locs[child] = value.value_loc(key) if below else value.key_loc(key)
            data[key] = _plain(item, child, locs)
        return data
    if isinstance(value, Seq):
        items = []
        for index, item in enumerate(value):
            locs[f"{path}.{index}"] = value.value_loc(index)
            items.append(_plain(item, f"{path}.{index}", locs))
        return items
    return value


def _parser() -> etree.XMLParser:
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
    )


def read_xml(text: str, file: str) -> tuple[dict[str, Any], Locs]:
    """The XML spelling: ``<platform name=... extends=...>`` with one element per YAML key."""
    from lxml import etree  # only here: reading a YAML platform needs none of it (20 ms)

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
            f"the root element must be <platform>, not <{root.tag!s}>",
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
    "pack",
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
