"""Validation against the packaged JSON Schema, with messages a person can act on.

jsonschema reports where a value broke which keyword; this module turns that into one
sentence naming the dotted key, what was expected and what was found, at the line of the
offending key or value. The schema's ``x-expected`` annotations supply the "expected ..."
wording; ``anyOf`` alternatives are narrowed to the one whose type fits the value, so a
misspelt key inside a mapping is reported as such, not as "matches no alternative".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

from jubex.definition.tree import Map, Seq, dotted, locate
from jubex.errors import DefinitionError, did_you_mean


def schema_text() -> str:
    """The definition schema as shipped in the package, as written (for editors)."""
    path = resources.files("jubex.definition").joinpath("schema/jubex.schema.json")
    return path.read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    """The definition schema, parsed."""
    return json.loads(schema_text())


#: the schema of a list's items that are plain values (a parameter's values)
_PLAIN_ITEMS = {"$ref": "#/$defs/scalar"}
_ITEMS = Draft202012Validator.VALIDATORS["items"]


def _items(
    validator: Draft202012Validator, items: Any, instance: Any, schema: Mapping[str, Any]
) -> Any:
    """jsonschema's ``items``, but a list of plain values is passed at once: jsonschema
    descends into each value, through each alternative of a parameter, at some 40 µs a
    value (a list of 10,000 values took 0.5 s). A list holding anything else is checked
    item by item, so its errors are jsonschema's."""
    plain = items == _PLAIN_ITEMS and isinstance(instance, list)
    if plain and all(type(value) in (str, int, float, bool) for value in instance):
        return
    yield from _ITEMS(validator, items, instance, schema)


@cache
def _validator() -> Draft202012Validator:
    checker = validators.extend(Draft202012Validator, {"items": _items})
    return checker(schema())


@dataclass(frozen=True)
class _Problem:
    path: tuple[str | int, ...]
    message: str
    hint: str = ""
    at_key: bool = False


def check_tree(tree: Any, *, fragment: bool = False) -> list[DefinitionError]:
    """Every schema problem of a tree; a ``fragment`` (an included file) needs no name."""
    return _errors(tree, _problems(tree, fragment))


def without_faults(tree: Any) -> tuple[list[DefinitionError], frozenset[str] | None]:
    """Every schema problem of a whole file, and the tree made valid by taking out each
    key or item at fault (in place), so that the later checks can find the problems
    elsewhere in the file. Returned with the problems: the names of the keys taken out
    (a later problem that names one follows from its absence), or None when taking out
    is not enough (a missing key, a file of the wrong shape)."""
    problems = _problems(tree, fragment=False)
    errors = _errors(tree, problems)
    if any(not p.path or p.message.startswith("missing key") for p in problems):
        return errors, None
    removed: set[str] = set()
    for path in sorted({_entry(p.path) for p in problems}, key=_deepest_last_item_first):
        removed.update(_remove(tree, path))
    return errors, None if _problems(tree, fragment=False) else frozenset(removed)


def _deepest_last_item_first(path: tuple[str | int, ...]) -> tuple[int, list[int]]:
    """Deeper entries first, and a list's later items before its earlier ones, so that
    each removal leaves the paths still to remove pointing where they did."""
    return -len(path), [-step for step in path if isinstance(step, int)]


def _entry(path: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """What to take out for a fault at ``path``: a parameter whole (a parameter without
    the part at fault would be another parameter), else the key or item itself."""
    depth = {"parameters": 2, "parametersets": 3}.get(str(path[0]), len(path)) if path else 0
    return path[:depth]


def _remove(tree: Any, path: tuple[str | int, ...]) -> set[str]:
    """Take the entry at ``path`` out of its map or list; the names it is known by."""
    parent = tree
    for step in path[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return set()  # inside an entry taken out already
    last = path[-1]
    if isinstance(parent, Map) and last in parent:
        del parent[last]
        return {str(last)}
    if isinstance(parent, Seq) and isinstance(last, int) and last < len(parent):
        del parent[last]
        del parent.item_locs[last]
        parent.texts = {i - (i > last): t for i, t in parent.texts.items() if i != last}
    return set()


def _problems(tree: Any, fragment: bool) -> list[_Problem]:
    problems: list[_Problem] = []
    for error in _validator().iter_errors(tree):
        problems.extend(_explain(error))
    if fragment:
        problems = [p for p in problems if p.path or not p.message.startswith("missing key 'name'")]
    return problems


def _errors(tree: Any, problems: list[_Problem]) -> list[DefinitionError]:
    found: dict[tuple[str, str], DefinitionError] = {}
    for problem in problems:
        where = dotted(problem.path)
        loc = locate(tree, problem.path, key=problem.at_key)
        found.setdefault(
            (str(loc), problem.message),
            DefinitionError(f"{where}: {problem.message}", loc, problem.hint),
        )
    return sorted(found.values(), key=lambda e: (e.loc.line if e.loc else 0, e.message))


def _schema(error: ValidationError) -> Mapping[str, Any]:
    """The failed subschema; the stubs allow ``true``/``false`` and unset ones too."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def _listed(error: ValidationError) -> list[Any]:
    """The value of a list-valued keyword (``required``, ``enum``, ``anyOf``, ``oneOf``)."""
    return error.validator_value if isinstance(error.validator_value, list) else []


def _explain(error: ValidationError) -> list[_Problem]:
    path = tuple(error.absolute_path)
    keyword = error.validator
    fields = error.instance if isinstance(error.instance, dict) else {}
    if "propertyNames" in error.relative_schema_path:
        name = str(error.instance)
        expected = _schema(error).get("x-expected", "a valid name")
        return [_Problem((*path, name), f"'{name}' is not {expected}", at_key=True)]
    if keyword == "additionalProperties":
        known = list(_schema(error).get("properties", {}))
        return [
            _Problem((*path, key), f"unknown key '{key}'", did_you_mean(key, known), at_key=True)
            for key in fields
            if key not in known
        ]
    if keyword == "required":
        missing = [key for key in _listed(error) if key not in fields]
        return [_Problem(path, f"missing key '{key}'") for key in missing]
    if keyword in ("anyOf", "oneOf"):
        return _alternatives(error, path)
    if keyword == "enum":
        choices = [str(c) for c in _listed(error)]
        return [
            _Problem(
                path,
                f"expected one of {', '.join(choices)}, got {_describe(error.instance)}",
                did_you_mean(str(error.instance), choices),
            )
        ]
    return [_Problem(path, f"expected {_expected(error)}, got {_describe(error.instance)}")]


def _alternatives(error: ValidationError, path: tuple[str | int, ...]) -> list[_Problem]:
    """Explain the one alternative whose type fits; otherwise say what would have fitted."""
    schema, alternatives = _schema(error), _listed(error)
    expected = schema.get("x-expected")
    required_only = all(set(branch) == {"required"} for branch in alternatives)
    if required_only and isinstance(error.instance, dict):
        keys = [key for branch in alternatives for key in branch["required"]]
        given = [key for key in keys if key in error.instance]
        unknown = [key for key in error.instance if key not in schema.get("properties", {})]
        if unknown and not given:
            return []  # the unknown key is reported on its own, with a did-you-mean
        got = "none" if not given else " and ".join(given)
        return [_Problem(path, f"expected {expected or 'one of ' + ', '.join(keys)}, got {got}")]
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    fitting = [i for i in range(len(alternatives)) if _fits_type(branches.get(i, []))]
    if len(fitting) == 1 and branches.get(fitting[0]):
        return [p for sub in branches[fitting[0]] for p in _explain(sub)]
    return [
        _Problem(path, f"expected {expected or 'another value'}, got {_describe(error.instance)}")
    ]


def _fits_type(errors: list[ValidationError]) -> bool:
    """False when the value is of the wrong kind altogether for this alternative."""
    for sub in errors:
        if sub.relative_path:
            continue
        if sub.validator == "type":
            return False
        if sub.validator in ("anyOf", "oneOf") and sub.context:
            inner: dict[int, list[ValidationError]] = {}
            for deeper in sub.context:
                inner.setdefault(int(deeper.relative_schema_path[0]), []).append(deeper)
            if not any(_fits_type(inner.get(i, [])) for i in range(len(_listed(sub)))):
                return False
    return True


def _expected(error: ValidationError) -> str:
    if "x-expected" in _schema(error):
        return str(_schema(error)["x-expected"])
    value = error.validator_value
    return {
        "type": f"a value of type {value}",
        "minimum": f"a number of at least {value}",
        "minItems": f"at least {value} item(s)",
        "minLength": "a non-empty text",
        "minProperties": f"at least {value} entr(y/ies)",
        "pattern": f"a text matching {value}",
    }.get(str(error.validator), f"a value satisfying {error.validator} {value}")


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)
