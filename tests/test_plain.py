"""``jubex.plain.dataclass`` makes classes that compare, show and hash as the standard
library's do, with its ``==`` and ``repr`` shared instead of compiled per class."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex import plain


def _both(make: Callable[[Callable[..., Any]], tuple[type, ...]]) -> tuple[tuple[type, ...], ...]:
    """The same classes made by dataclasses and by jubex.plain."""
    return make(dataclasses.dataclass), make(plain.dataclass)


def _shapes(dataclass: Callable[..., Any]) -> tuple[type, ...]:
    @dataclass
    class Bare:
        a: object
        b: object = 0

    @dataclass(frozen=True, slots=True)
    class Frozen:
        a: object
        b: object = dataclasses.field(default=0, compare=False, repr=False)

    @dataclass(frozen=True)
    class Hidden:
        a: object
        b: object = dataclasses.field(default=0, hash=False)

    @dataclass
    class Empty:
        pass

    class Derived(Bare):  # no dataclass itself: the parent's methods and fields
        pass

    return Bare, Frozen, Hidden, Empty, Derived


values = st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=3), st.none())


@given(a=values, b=values, c=values, d=values)
def test_equal_shown_and_hashed_as_dataclasses_do(
    a: object, b: object, c: object, d: object
) -> None:
    theirs, ours = _both(_shapes)
    for std, own in zip(theirs, ours, strict=True):
        args = () if std.__name__ == "Empty" else (a, b)
        other = () if std.__name__ == "Empty" else (c, d)
        x, y, z = std(*args), std(*other), std(*args)
        p, q, r = own(*args), own(*other), own(*args)
        assert repr(p) == repr(x)
        assert (p == q, p == r, p != q) == (x == y, x == z, x != y)
        assert (p == 1, p == x) == (False, False)  # another class: NotImplemented
        if std.__hash__ is None:
            assert own.__hash__ is None
        else:
            assert (hash(p), hash(q)) == (hash(x), hash(y))


def test_an_instance_inside_itself_shows_as_dataclasses_show_it() -> None:
    theirs, ours = _both(_shapes)
    x, p = theirs[0]([]), ours[0]([])
    x.a.append(x)
    p.a.append(p)
    assert repr(p) == repr(x) == "_shapes.<locals>.Bare(a=[...], b=0)"


def test_a_class_keeps_the_methods_it_states() -> None:
    @plain.dataclass(frozen=True)
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

    assert Own(1) == Own(2) and hash(Own(1)) == 7
    ordered = plain.dataclass(order=True)(type("Ordered", (), {"__annotations__": {"a": "int"}}))
    assert ordered(1) < ordered(2)  # asked for itself: made by dataclasses


def test_frozen_stays_frozen() -> None:
    frozen = _both(_shapes)[1][1](1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        frozen.a = 2  # type: ignore[misc]
