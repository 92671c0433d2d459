"""The methods expressions may call: pure methods of text, lists, tuples, dicts, sets, numbers.

Only methods that compute a new value from the receiver and the arguments are listed —
nothing that mutates a value (a parameter's value is shared by every point), touches files
or processes, or reaches interpreter internals. Methods whose result can grow beyond the
receiver (padding, ``replace``, ``join``, ``format``, ``expandtabs``) check the size first.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable

from jubex.language.builtins import Refused, check_items, check_spec, check_width

Method = Callable[..., object]


def _format(text: str, *args: object, **kwargs: object) -> str:
    """``str.format`` without attribute access or indexing in fields (``{0.__class__}``)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return text.format(*args, **kwargs)
    for _, field, spec, _ in fields:
        if field is None:
            continue
        if (field and not (field.isdigit() or field.isidentifier())) or field.startswith("__"):
            raise Refused(
                f"format field '{{{field}}}' uses attribute access or indexing; "
                "pass the value itself, e.g. '{0}'.format(x[1])"
            )
        if spec and "{" in spec:
            raise Refused("nested fields in format specs are not supported; use an f-string")
        check_spec(spec or "")
    return text.format(*args, **kwargs)


def _padding(method: Callable[..., str]) -> Method:
    def pad(text: str, width: int, *rest: str) -> str:
        check_width(width)
        return method(text, width, *rest)

    return pad


def _replace(text: str, old: str, new: str, count: int = -1) -> str:
    hits = text.count(old) if count < 0 else min(count, text.count(old))
    check_items(len(text) + hits * (len(new) - len(old)), "the replaced text")
    return text.replace(old, new, count)


def _join(text: str, parts: Iterable[str]) -> str:
    parts = list(parts)
    total = sum(len(p) for p in parts if isinstance(p, str)) + len(text) * len(parts)
    check_items(total, "the joined text")
    return text.join(parts)


def _expandtabs(text: str, tabsize: int = 8) -> str:
    check_width(tabsize)
    check_items(len(text) + text.count("\t") * max(tabsize, 0), "the expanded text")
    return text.expandtabs(tabsize)


def _plain(kind: type, names: str) -> dict[str, Method]:
    return {name: getattr(kind, name) for name in names.split()}


_SET_METHODS = "union intersection difference symmetric_difference issubset issuperset isdisjoint"

#: receiver type -> method name -> function(receiver, *args); bool uses int's
METHODS: dict[type, dict[str, Method]] = {
    str: {
        **_plain(
            str,
            "upper lower casefold swapcase title capitalize strip lstrip rstrip split rsplit "
            "splitlines partition rpartition startswith endswith count find rfind index rindex "
            "removeprefix removesuffix isdigit isdecimal isnumeric isalpha isalnum isspace "
            "isupper islower istitle isidentifier isascii",
        ),
        "format": _format,
        "replace": _replace,
        "join": _join,
        "expandtabs": _expandtabs,
        "zfill": _padding(str.zfill),
        "ljust": _padding(str.ljust),
        "rjust": _padding(str.rjust),
        "center": _padding(str.center),
    },
    list: _plain(list, "index count copy"),
    tuple: _plain(tuple, "index count"),
    dict: _plain(dict, "get keys values items copy"),
    set: _plain(set, f"{_SET_METHODS} copy"),
    frozenset: _plain(frozenset, f"{_SET_METHODS} copy"),
    int: _plain(int, "bit_length bit_count conjugate as_integer_ratio"),
    float: _plain(float, "is_integer as_integer_ratio conjugate hex"),
}

#: every method name some receiver type offers
METHOD_NAMES = frozenset(name for table in METHODS.values() for name in table)


def _table(receiver: object) -> tuple[type, dict[str, Method]] | None:
    for kind in type(receiver).__mro__:
        if kind in METHODS:
            return kind, METHODS[kind]
    return None


def _owners(name: str) -> str:
    return ", ".join(kind.__name__ for kind, table in METHODS.items() if name in table)


def method(name: str) -> Method:
    """``receiver.name(...)`` for an allowed method; other receivers give a clear TypeError."""
    if name not in METHOD_NAMES:
        raise KeyError(name)

    def call(receiver: object, *args: object, **kwargs: object) -> object:
        found = _table(receiver)
        if found is None or name not in found[1]:
            shown = repr(receiver)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            raise TypeError(
                f".{name}() is a method of {_owners(name)} values, not of "
                f"{type(receiver).__name__} {shown}"
            )
        return found[1][name](receiver, *args, **kwargs)

    return call
