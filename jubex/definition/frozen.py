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
from collections.abc import Sequence
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
    return _build(cls, data)


def from_json(cls: type[T], text: str) -> T:
    return from_data(cls, json.loads(text))


def _build(tp: Any, data: Any) -> Any:
    if data is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        return _build(options[0], data) if len(options) == 1 else data
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        return tp(**{k: _build(hints[k], v) for k, v in data.items() if k in names})
    if origin is dict:
        _, value_type = typing.get_args(tp)
        return {k: _build(value_type, v) for k, v in data.items()}
    if origin is list:
        (item_type,) = typing.get_args(tp)
        return [_build(item_type, v) for v in data]
    if origin is Sequence:
        (item_type,) = typing.get_args(tp)
        return tuple(_build(item_type, v) for v in data)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v) for v in data)
        return tuple(_build(a, v) for a, v in zip(args, data, strict=False))
    return data
