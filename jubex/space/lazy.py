"""The lists a space crosses, read as they go: a range of a million values is typed value by
value when a point needs it, never all at once, so that counting a space, or planning the
first thousand of its workpackages, costs nothing proportional to its size."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import product
from typing import TypeVar, overload

from jubex.errors import Loc
from jubex.language.values import parse_value

T = TypeVar("T")


class Typed(Sequence[object]):
    """The typed values of a range's texts, each typed when it is read."""

    __slots__ = ("_kind", "_loc", "_texts")

    def __init__(self, texts: Sequence[str], kind: str, loc: Loc | None) -> None:
        self._texts, self._kind, self._loc = texts, kind, loc

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> object: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[object]: ...
    def __getitem__(self, index: int | slice) -> object:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return parse_value(self._texts[index], self._kind, self._loc)


class Rows(Sequence[dict[str, object]]):
    """One crossed list of a space (a zip group or one parameter): row ``i`` holds each
    member's ``i``-th value, made when it is read."""

    __slots__ = ("_columns", "_length")

    def __init__(self, columns: Mapping[str, Sequence[object]]) -> None:
        self._columns = dict(columns)
        self._length = len(next(iter(self._columns.values())))

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> dict[str, object]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, object]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, object] | Sequence[dict[str, object]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        return {name: values[index] for name, values in self._columns.items()}

    @property
    def lazy(self) -> bool:
        """Whether a member's values are made when read (then the list is never listed whole)."""
        return any(isinstance(values, Typed) for values in self._columns.values())


def crossed(dims: Sequence[Rows]) -> Iterator[tuple[dict[str, object], ...]]:
    """The combinations of the lists, the last varying fastest, as ``itertools.product``
    gives them; which first makes a tuple of every list, so a list made when read is
    walked instead (the first point of a million-value range comes at once)."""
    if not any(dim.lazy for dim in dims):
        return product(*(list(dim) for dim in dims))
    return _walk(dims)


def _walk(dims: Sequence[Sequence[T]]) -> Iterator[tuple[T, ...]]:
    if not dims:
        yield ()
        return
    head, rest = dims[0], dims[1:]
    for item in head:
        for tail in _walk(rest):
            yield (item, *tail)
