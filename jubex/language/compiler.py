"""The compiler of the safe expression language: a checked AST turned into closures.

Every node type has a ``c_<Node>`` method; any other node is refused with a hint from
:data:`jubex.language.operators.REFUSED`. Calls reach only the functions of
:mod:`jubex.language.builtins` and the methods of :mod:`jubex.language.methods`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

from jubex.errors import ExpressionError, did_you_mean
from jubex.language import builtins as safe
from jubex.language import methods
from jubex.language.operators import BINARY, COMPARE, REFUSED, UNARY

Fn = Callable[[Mapping[str, object]], object]
ListFn = Callable[[Mapping[str, object]], list[object]]
T = TypeVar("T")


class Unknown(Exception):
    def __init__(self, name: str, env: Mapping[str, object]) -> None:
        super().__init__(name)
        self.name = name
        self.env = env


class Scope(dict[str, object]):
    """Comprehension variables over the enclosing names; shares one iteration budget."""

    __slots__ = ("budget", "parent")

    def __init__(self, parent: Mapping[str, object], budget: list[int]) -> None:
        super().__init__()
        self.parent = parent
        self.budget = budget

    def __missing__(self, key: str) -> object:
        return self.parent[key]


def known(env: Mapping[str, object]) -> list[str]:
    names: list[str] = []
    while isinstance(env, Scope):
        names += env
        env = env.parent
    return names + list(env)


class Compiler:
    """Turns a checked AST into closures; collects free names on the way."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.names: set[str] = set()
        self.loops = False

    def refuse(self, node: ast.AST, what: str, how: str) -> ExpressionError:
        segment = ast.get_source_segment(self.text, node) or self.text
        return ExpressionError(f"{what} is not allowed in expressions: '{segment}'", hint=how)

    def identifier(self, name: str, node: ast.AST) -> None:
        if name.startswith("__") or name.endswith("__"):
            raise self.refuse(node, "a dunder name", "names starting with '__' are reserved")

    def compile(self, node: ast.AST, bound: frozenset[str]) -> Fn:
        method = getattr(self, f"c_{type(node).__name__}", None)
        if method is None:
            what, how = REFUSED.get(type(node), (f"'{type(node).__name__}'", "simplify it"))
            raise self.refuse(node, what, how)
        fn: Fn = method(node, bound)
        return fn

    def many(self, nodes: list[ast.expr], bound: frozenset[str]) -> list[Fn]:
        return [self.compile(n, bound) for n in nodes]

    def c_Constant(self, node: ast.Constant, bound: frozenset[str]) -> Fn:
        value = node.value
        return lambda env: value

    def c_Name(self, node: ast.Name, bound: frozenset[str]) -> Fn:
        name = node.id
        self.identifier(name, node)
        if name in bound:
            return lambda env: env[name]
        self.names.add(name)
        if name in safe.FUNCTIONS:
            fallback = safe.FUNCTIONS[name]

            def shadowable(env: Mapping[str, object]) -> object:
                try:
                    return env[name]
                except KeyError:
                    return fallback

            return shadowable

        def load(env: Mapping[str, object]) -> object:
            try:
                return env[name]
            except KeyError:
                raise Unknown(name, env) from None

        return load

    def c_BinOp(self, node: ast.BinOp, bound: frozenset[str]) -> Fn:
        op = BINARY.get(type(node.op))
        if op is None:
            what, how = REFUSED.get(type(node.op), ("this operator", "use + - * / // % **"))
            raise self.refuse(node, what, how)
        left, right = self.compile(node.left, bound), self.compile(node.right, bound)
        return lambda env: op(left(env), right(env))

    def c_UnaryOp(self, node: ast.UnaryOp, bound: frozenset[str]) -> Fn:
        op, operand = UNARY[type(node.op)], self.compile(node.operand, bound)
        return lambda env: op(operand(env))

    def c_BoolOp(self, node: ast.BoolOp, bound: frozenset[str]) -> Fn:
        *first, last = self.many(node.values, bound)
        stop_when = isinstance(node.op, ast.Or)

        def boolean(env: Mapping[str, object]) -> object:
            for fn in first:
                value = fn(env)
                if bool(value) is stop_when:
                    return value
            return last(env)

        return boolean

    def c_IfExp(self, node: ast.IfExp, bound: frozenset[str]) -> Fn:
        test, body = self.compile(node.test, bound), self.compile(node.body, bound)
        orelse = self.compile(node.orelse, bound)
        return lambda env: body(env) if test(env) else orelse(env)

    def c_Compare(self, node: ast.Compare, bound: frozenset[str]) -> Fn:
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                isinstance(n, ast.Constant) and n.value is None for n in operands[i : i + 2]
            ):
                raise self.refuse(node, "'is' other than 'is None'", "compare values with ==")
        left = self.compile(node.left, bound)
        pairs = [
            (COMPARE[type(op)], self.compile(c, bound))
            for op, c in zip(node.ops, node.comparators, strict=True)
        ]
        if len(pairs) == 1:
            ((compare, right),) = pairs
            return lambda env: compare(left(env), right(env))

        def chain(env: Mapping[str, object]) -> object:
            a = left(env)
            for compare, fn in pairs:
                b = fn(env)
                if not compare(a, b):
                    return False
                a = b
            return True

        return chain

    def items(self, nodes: list[ast.expr], bound: frozenset[str]) -> ListFn:
        """The elements of a display, unpacking ``*xs`` within the size limit."""
        parts = [
            (
                isinstance(n, ast.Starred),
                self.compile(n.value if isinstance(n, ast.Starred) else n, bound),
            )
            for n in nodes
        ]
        if not any(star for star, _ in parts):
            fns = [fn for _, fn in parts]
            return lambda env: [fn(env) for fn in fns]

        def unpack(env: Mapping[str, object]) -> list[object]:
            result: list[object] = []
            for star, fn in parts:
                if star:
                    result.extend(safe.iterable(fn(env)))
                    safe.check_items(len(result))
                else:
                    result.append(fn(env))
            return result

        return unpack

    def c_List(self, node: ast.List, bound: frozenset[str]) -> Fn:
        return self.items(node.elts, bound)

    def c_Tuple(self, node: ast.Tuple, bound: frozenset[str]) -> Fn:
        elements = self.items(node.elts, bound)
        return lambda env: tuple(elements(env))

    def c_Set(self, node: ast.Set, bound: frozenset[str]) -> Fn:
        elements = self.items(node.elts, bound)
        return lambda env: set(elements(env))

    def c_Dict(self, node: ast.Dict, bound: frozenset[str]) -> Fn:
        entries = [
            (None if k is None else self.compile(k, bound), self.compile(v, bound))
            for k, v in zip(node.keys, node.values, strict=True)
        ]

        def display(env: Mapping[str, object]) -> dict[object, object]:
            result: dict[object, object] = {}
            for key, value in entries:
                if key is None:
                    merged = value(env)
                    if not isinstance(merged, Mapping):
                        raise TypeError(f"** in a dict needs a dict, not {type(merged).__name__}")
                    result.update(merged)
                else:
                    result[key(env)] = value(env)
            return result

        return display

    def c_Subscript(self, node: ast.Subscript, bound: frozenset[str]) -> Fn:
        value, index = self.compile(node.value, bound), self.compile(node.slice, bound)
        return lambda env: safe.item(value(env), index(env))

    def c_Slice(self, node: ast.Slice, bound: frozenset[str]) -> Fn:
        parts = [
            None if n is None else self.compile(n, bound)
            for n in (node.lower, node.upper, node.step)
        ]
        return lambda env: slice(*(None if fn is None else fn(env) for fn in parts))

    def c_Attribute(self, node: ast.Attribute, bound: frozenset[str]) -> Fn:
        if self.math(node, bound):
            value = getattr(safe.FUNCTIONS["math"], node.attr)
            return lambda env: value
        raise self.refuse(node, *REFUSED[ast.Attribute])

    def math(self, node: ast.Attribute, bound: frozenset[str]) -> bool:
        """Whether ``node`` is ``math.<name>``; an error for names the namespace lacks."""
        if not (isinstance(node.value, ast.Name) and node.value.id == "math") or "math" in bound:
            return False
        if node.attr not in safe.MATH_NAMES:
            hint = did_you_mean(node.attr, safe.MATH_NAMES) or "available: " + ", ".join(
                sorted(safe.MATH_NAMES)
            )
            raise self.refuse(node, f"math.{node.attr}", hint)
        return True

    def c_Call(self, node: ast.Call, bound: frozenset[str]) -> Fn:
        target = self.callee(node, bound)
        positional = node.args
        if isinstance(node.func, ast.Attribute) and not self.math(node.func, bound):
            positional = [node.func.value, *node.args]
        args = self.items(positional, bound)
        keywords = []
        for kw in node.keywords:
            if kw.arg is not None:
                self.identifier(kw.arg, kw)
            keywords.append((kw.arg, self.compile(kw.value, bound)))
        if not keywords:
            return lambda env: target(*args(env))

        def call(env: Mapping[str, object]) -> object:
            named: dict[str, object] = {}
            for name, fn in keywords:
                value = fn(env)
                if name is not None:
                    named[name] = value
                elif isinstance(value, Mapping):
                    named.update(value)
                else:
                    raise TypeError(f"** in a call needs a dict, not {type(value).__name__}")
            return target(*args(env), **named)

        return call

    def callee(self, node: ast.Call, bound: frozenset[str]) -> Callable[..., object]:
        func = node.func
        if isinstance(func, ast.Name) and func.id not in bound:
            self.identifier(func.id, func)
            target = safe.FUNCTIONS.get(func.id)
            if callable(target):
                return target
            hint = did_you_mean(func.id, safe.FUNCTIONS) or "jubex help expressions lists them"
            raise self.refuse(node, f"calling '{func.id}'", hint)
        if isinstance(func, ast.Attribute):
            self.identifier(func.attr, func)
            if self.math(func, bound):
                function: Callable[..., object] = getattr(safe.FUNCTIONS["math"], func.attr)
                return function
            if func.attr in methods.METHOD_NAMES:
                return methods.method(func.attr)
            raise self.refuse(func, f"the method '.{func.attr}()'", REFUSED[ast.Attribute][1])
        raise self.refuse(node, "calling a computed value", "call a built-in function by name")

    def c_JoinedStr(self, node: ast.JoinedStr, bound: frozenset[str]) -> Fn:
        parts = self.many(node.values, bound)
        return lambda env: "".join([str(fn(env)) for fn in parts])

    def c_FormattedValue(self, node: ast.FormattedValue, bound: frozenset[str]) -> Fn:
        value = self.compile(node.value, bound)
        convert = {-1: None, 115: str, 114: repr, 97: ascii}[node.conversion]
        spec = None if node.format_spec is None else self.compile(node.format_spec, bound)

        def formatted(env: Mapping[str, object]) -> str:
            result = value(env)
            if convert is not None:
                result = convert(result)
            if spec is None:
                return format(result)
            text = str(spec(env))
            safe.check_spec(text)
            return format(result, text)

        return formatted

    def c_ListComp(self, node: ast.ListComp, bound: frozenset[str]) -> Fn:
        run = self.comprehension(node, lambda inner: self.compile(node.elt, inner), bound)
        return lambda env: list(run(env))

    def c_SetComp(self, node: ast.SetComp, bound: frozenset[str]) -> Fn:
        run = self.comprehension(node, lambda inner: self.compile(node.elt, inner), bound)
        return lambda env: set(run(env))

    def c_GeneratorExp(self, node: ast.GeneratorExp, bound: frozenset[str]) -> Fn:
        return self.comprehension(node, lambda inner: self.compile(node.elt, inner), bound)

    def c_DictComp(self, node: ast.DictComp, bound: frozenset[str]) -> Fn:
        def pair(inner: frozenset[str]) -> Callable[[Mapping[str, object]], tuple[object, object]]:
            key, value = self.compile(node.key, inner), self.compile(node.value, inner)
            return lambda env: (key(env), value(env))

        run = self.comprehension(node, pair, bound)
        return lambda env: dict(run(env))

    def comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        produce: Callable[[frozenset[str]], Callable[[Mapping[str, object]], T]],
        bound: frozenset[str],
    ) -> Callable[[Mapping[str, object]], Iterator[T]]:
        """A generator over the ``for`` clauses; every item counts against one budget.

        ``produce`` compiles the result once the names of all ``for`` clauses are bound.
        """
        self.loops = True
        loops = []
        inner = bound
        for number, clause in enumerate(node.generators):
            if clause.is_async:
                raise self.refuse(node, "an async comprehension", "use a plain comprehension")
            source = self.compile(clause.iter, inner if number else bound)
            inner = inner | self.targets(clause.target)
            loops.append((source, self.assigner(clause.target), self.many(clause.ifs, inner)))
        emit = produce(inner)

        def level(index: int, scope: Scope, outer: Mapping[str, object]) -> Iterator[T]:
            source, assign, conditions = loops[index]
            budget = scope.budget
            for item in safe.iterable(source(outer)):
                budget[0] -= 1
                if budget[0] < 0:
                    raise safe.Refused(
                        f"the comprehensions would take more than {safe.MAX_ITEMS:,} steps"
                    )
                assign(scope, item)
                if all(c(scope) for c in conditions):
                    if index + 1 == len(loops):
                        yield emit(scope)
                    else:
                        yield from level(index + 1, scope, scope)

        def run(env: Mapping[str, object]) -> Iterator[T]:
            # Expr.evaluate puts every expression with loops into a scope with the budget.
            assert isinstance(env, Scope)
            return level(0, Scope(env, env.budget), env)

        return run

    def targets(self, target: ast.expr) -> frozenset[str]:
        if isinstance(target, ast.Name):
            self.identifier(target.id, target)
            return frozenset((target.id,))
        if isinstance(target, (ast.Tuple, ast.List)):
            return frozenset().union(*(self.targets(t) for t in target.elts))
        raise self.refuse(target, "this loop target", "loop over plain names: for a, b in pairs")

    def assigner(self, target: ast.expr) -> Callable[[Scope, object], None]:
        if isinstance(target, ast.Name):
            name = target.id
            return lambda scope, value: scope.__setitem__(name, value)
        assert isinstance(target, (ast.Tuple, ast.List)), "targets() refused the others"
        parts = [self.assigner(t) for t in target.elts]

        def unpack(scope: Scope, value: object) -> None:
            values = tuple(safe.iterable(value))
            if len(values) != len(parts):
                raise ValueError(f"cannot unpack {len(values)} values into {len(parts)} names")
            for assign, item in zip(parts, values, strict=True):
                assign(scope, item)

        return unpack
