"""``dataclass`` as the standard library's, with the ``==`` and ``repr`` of every class two
functions written once instead of two compiled for each class.

``dataclasses`` writes the methods of each class as Python source and compiles it: of the
50 classes that reading a run and printing its table define, their ``__eq__`` and
``__repr__`` were an eighth of a small ``jubex result``'s instructions. The shared ones
behave as the compiled ones do: equal when of the same class and equal field by field
(the fields that compare, in order, as one tuple to another), else ``NotImplemented``;
shown as ``Name(field=value, ...)`` with the fields that show, ``...`` for an instance
inside itself. A frozen class keeps its compiled hash of the compared fields, and a class
that is not frozen has none, as with ``eq=True``. A class that asks for ``eq``, ``repr``,
``order`` or ``unsafe_hash`` itself is made by ``dataclasses`` as it asks.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")

#: options that decide the methods themselves: a class naming one is made as it asks
_OWN = frozenset({"eq", "repr", "order", "unsafe_hash"})


if TYPE_CHECKING:  # the same class as dataclasses makes it, to the type checker too
    from dataclasses import dataclass
else:

    def dataclass(cls=None, /, **options):
        """``dataclasses.dataclass(cls, **options)`` with the shared ``==`` and ``repr``."""

        def made(cls):
            if _OWN & options.keys():
                return dataclasses.dataclass(cls, **options)
            return _made(cls, options)

        return made if cls is None else made(cls)


def _made(cls: type[T], options: dict[str, Any]) -> type[T]:
    frozen = bool(options.get("frozen"))
    body = cls.__dict__
    # as dataclasses tells it: a body's __eq__ alone sets __hash__ to None, no hash of its own
    stated = body.get("__hash__", dataclasses.MISSING)
    own_hash = not (stated is dataclasses.MISSING or (stated is None and "__eq__" in body))
    own_eq, own_repr = "__eq__" in body, "__repr__" in body
    new: Any = dataclasses.dataclass(
        cls, eq=False, repr=False, unsafe_hash=frozen and not own_hash, **options
    )
    if not own_eq:
        new.__eq__ = _eq
    if not own_repr:
        new.__repr__ = _repr
    if not frozen and not own_hash:
        new.__hash__ = None
    made: type[T] = new
    return made


def _eq(self: object, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    values = _compared.get(self.__class__) or _compare(self.__class__)
    return values(self) == values(other)


@reprlib.recursive_repr()
def _repr(self: object) -> str:
    names = _shown.get(self.__class__) or _show(self.__class__)
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{self.__class__.__qualname__}({shown})"


#: per class, the values an instance is compared by, as one tuple
_compared: dict[type, Callable[[object], tuple[object, ...]]] = {}
#: per class, the fields its text shows
_shown: dict[type, tuple[str, ...]] = {}


def _compare(cls: type) -> Callable[[object], tuple[object, ...]]:
    names = tuple(f.name for f in dataclasses.fields(cls) if f.compare)
    found = _compared[cls] = lambda instance: tuple([getattr(instance, n) for n in names])
    return found


def _show(cls: type) -> tuple[str, ...]:
    found = _shown[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.repr)
    return found
