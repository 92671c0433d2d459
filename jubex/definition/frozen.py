"""The resolved model as JSON: what a run keeps so it can be re-analysed years later.

The conversion is generic over the dataclasses of :mod:`jubex.definition.model` (and any
other plain dataclass such as a platform), driven by their type hints, so a new field needs
no code here.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from jubex.language.ranges import Linear

T = TypeVar("T")


def to_data(obj: object) -> Any:
    """Plain JSON-able data: dataclasses become dicts, tuples lists."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_data(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, Linear)):
        return [to_data(v) for v in obj]  # a range as its values, as a run made them
    return obj


def to_json(obj: object) -> str:
    return json.dumps(to_data(obj), indent=1, sort_keys=False)


def from_data(cls: type[T], data: Any) -> T:
    """Rebuild a dataclass (recursively) from :func:`to_data` output."""
    built: T = _builder(typing.cast(Any, cls))(data)
    return built


def from_json(cls: type[T], text: str) -> T:
    return from_data(cls, json.loads(text))


@cache
def _builder(tp: Any) -> Callable[[Any], Any]:
    """What rebuilds a value of type ``tp`` from its JSON data (None stays None), worked out
    once per type: inspecting the types at every value (``typing.get_type_hints``,
    ``get_origin``) was most of the cost of opening a run."""
    build = _make_builder(tp)
    if build is None:
        return _same
    return lambda data: None if data is None else build(data)


def _same(data: Any) -> Any:
    return data


def _make_builder(tp: Any) -> Callable[[Any], Any] | None:
    """The builder of ``tp`` (None: the data as it is)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _builder(options[0]) if len(options) == 1 else None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_builder(tp)
    if origin is dict:
        value = _builder(typing.get_args(tp)[1])
        return lambda data: {k: value(v) for k, v in data.items()}
    if origin is list:
        item = _builder(typing.get_args(tp)[0])
        return lambda data: [item(v) for v in data]
    args = typing.get_args(tp)
    if origin is Sequence or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        item = _builder(args[0])
        return lambda data: tuple(item(v) for v in data)
    if origin is tuple:
        items = [_builder(a) for a in args]
        return lambda data: tuple(b(v) for b, v in zip(items, data, strict=False))
    return None


def _dataclass_builder(cls: type) -> Callable[[Any], Any]:
    """A dataclass from a dict of its fields (other keys skipped); its fields' builders are
    looked up when first used, so that a class may hold itself."""
    fields: dict[str, Callable[[Any], Any]] = {}

    def build(data: Any) -> Any:
        if not fields:
            hints = typing.get_type_hints(cls)
            fields.update({f.name: _builder(hints[f.name]) for f in dataclasses.fields(cls)})
        return cls(**{k: fields[k](v) for k, v in data.items() if k in fields})

    return build
