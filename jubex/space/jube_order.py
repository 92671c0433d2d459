"""The order in which JUBE 2.7.1 makes a step's points when its snippets split into several
values, so that each point gets the workpackage id JUBE gives it.

JUBE expands a step's parameters in rounds (``Step.create_workpackages``): it crosses the
lists first (``Parameterset.expand_templates``: one ``itertools.product`` in the order the
parameters were defined, the first varying slowest), then works out every value it can in
each combination; the snippets whose results split are crossed in turn, in definition order,
and each new combination worked out again, until nothing splits. A parent step is expanded
whole before its children expand their own sets, and a child is made per parent workpackage.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import product

from jubex.space.point import Derived, Point, Several

#: a list that is crossed: its position among the parameters, its first name, its rows
List = tuple[int, str, list[dict[str, object]]]


class JubeOrder:
    """The points of one space in JUBE's order (see the module)."""

    def __init__(
        self,
        lists: Sequence[List],
        per_point: Sequence[str],
        deps: Mapping[str, frozenset[str]],
        levels: Mapping[str, int],
        positions: Mapping[str, int],
    ) -> None:
        self._per_point = list(per_point)  # in dependency order
        self._deps = deps
        self._levels = levels
        self._positions = positions
        by_level: dict[int, list[List]] = {}
        for entry in lists:
            by_level.setdefault(levels.get(entry[1], 0), []).append(entry)
        self._depths = sorted({0, *by_level, *(levels.get(n, 0) for n in self._per_point)})
        self._lists = [by_level.get(level, []) for level in self._depths]
        self._unset = frozenset({n for _, _, rows in lists for n in rows[0]} | set(self._per_point))

    def points(self, root: Point) -> Iterator[Point]:
        return self._enter(root, self._unset, 0)

    def _enter(self, point: Point, unset: frozenset[str], index: int) -> Iterator[Point]:
        """A level's lists crossed, each combination worked out."""
        lists = self._lists[index]
        # a list's values that read others are still to be worked out
        crossed = frozenset(n for _, _, rows in lists for n in rows[0]) - set(self._per_point)
        for combo in product(*(rows for _, _, rows in lists)):
            branch = _copy(point)
            for row in combo:
                branch.update(row)
            yield from self._work(branch, unset - crossed, index)

    def _work(self, point: Point, unset: frozenset[str], index: int) -> Iterator[Point]:
        """Every value of this level (or a parent's) that can be worked out; those that
        split are crossed in definition order and each combination worked out again."""
        top = self._depths[index]  # values of sets up to this depth are worked out
        left = set(unset)
        split: dict[str, Several] = {}
        for name in self._per_point:
            if name not in left or self._levels.get(name, 0) > top:
                continue
            if any(dep in left for dep in self._deps.get(name, ())):
                continue
            value = point[name]
            result = value.fn(point) if type(value) is Derived else value
            if type(result) is Several:
                split[name] = result
                continue
            point[name] = result
            left.discard(name)
        if split:
            names = sorted(split, key=lambda n: (self._levels.get(n, 0), self._positions[n]))
            done = frozenset(left) - frozenset(names)
            for combo in product(*(split[n] for n in names)):
                branch = _copy(point)
                branch.update(zip(names, combo, strict=True))
                yield from self._work(branch, done, index)
        elif index + 1 < len(self._lists):
            yield from self._enter(point, frozenset(left), index + 1)
        else:
            yield point


def _copy(point: Point) -> Point:
    branch = Point(point)
    branch.constants = point.constants
    return branch
