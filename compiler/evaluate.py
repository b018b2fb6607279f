"""Evaluate model expressions: the interpreter the odds stage and the checker share.

Code generation compiles the same expressions to Python separately; tests
check the two agree (interpreted odds == compiled odds == enumeration of the
compiled resolver).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import get_args

from . import model as m


@dataclass(frozen=True, slots=True)
class OptionValue:
    """A choice's option as a value: compared by name, added by its number."""

    name: str
    number: int | None


@dataclass(frozen=True, slots=True)
class TableRef:
    """A definition named in an expression (a chain's target)."""

    name: str


Value = int | bool | str | OptionValue | TableRef | None


EXPR_TYPES: tuple[type, ...] = get_args(m.Expr)


class EvalError(Exception):
    def __init__(self, message: str, span: m.Span) -> None:
        super().__init__(message)
        self.span = span


class TooLarge(EvalError):
    """A hard cap: a value or a computation past its limit (the message names the limit)."""

    def __init__(self, message: str, span: m.Span, hint: str) -> None:
        super().__init__(message, span)
        self.hint = hint


MAX_VALUE = 10**18  # what the check computes with: numbers past it are refused, not computed


@dataclass(frozen=True, slots=True)
class RollFacts:
    """What band conditions can read about a roll."""

    total: int
    natural: int | None
    counts: Mapping[int | str, int]
    zero_dice: bool
    highest: int | None
    lowest: int | None


FUNCTIONS = {"min", "max", "clamp", "abs", "sign", "count", "step", "rank"}
ROLL_NAMES = {"total", "natural", "zero_dice", "highest", "lowest"}


@dataclass
class Scope:
    """Names visible to an expression: inputs and lets, options, definitions."""

    values: dict[str, Value]
    options: Mapping[str, OptionValue]
    definitions: frozenset[str]
    facts: RollFacts | None = None
    orders: Mapping[str, tuple[OptionValue, ...]] = field(default_factory=dict)
    symbols: frozenset[str] = frozenset()

    def lookup(self, name: str, span: m.Span) -> Value:
        if name in self.values:
            return self.values[name]
        if self.facts is not None and name in ROLL_NAMES:
            return getattr(self.facts, name)  # type: ignore[no-any-return]
        if name in self.options:
            return self.options[name]
        if name in self.definitions:
            return TableRef(name)
        raise EvalError(f"`{name}` is not defined here", span)


def as_number(value: Value, span: m.Span) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, OptionValue) and value.number is not None:
        return value.number
    raise EvalError(f"{describe(value)} is not a number", span)


def describe(value: Value) -> str:
    if isinstance(value, OptionValue):
        return f"the option `{value.name}`"
    if isinstance(value, TableRef):
        return f"the definition `{value.name}`"
    if value is None:
        return "an unknown value"
    return repr(value)


def truthy(value: Value, span: m.Span) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    raise EvalError(f"{describe(value)} is not yes/no", span)


def same(left: Value, right: Value) -> bool:
    if isinstance(left, OptionValue) and isinstance(right, OptionValue):
        return left.name == right.name
    if isinstance(left, OptionValue) and isinstance(right, str):
        return left.name == right
    if isinstance(right, OptionValue) and isinstance(left, str):
        return right.name == left
    if isinstance(left, OptionValue) and isinstance(right, int) and not isinstance(right, bool):
        return left.number == right
    if isinstance(right, OptionValue) and isinstance(left, int) and not isinstance(left, bool):
        return right.number == left
    return left == right


def evaluate(expr: m.Expr, scope: Scope, dice: Mapping[int, int] | None = None) -> Value:
    """Evaluate `expr`. Dice terms take their values from `dice` (keyed by id of the term)."""
    if isinstance(expr, m.Number):
        return expr.value
    if isinstance(expr, m.Text):
        return expr.value
    if isinstance(expr, m.Boolean):
        return expr.value
    if isinstance(expr, m.Unknown):
        return None
    if isinstance(expr, m.Name):
        return scope.lookup(expr.name, expr.span)
    if isinstance(expr, (m.Dice, m.Pool, m.Kept, m.CustomPool)):
        if dice is None or id(expr) not in dice:
            raise EvalError("dice cannot be used here", expr.span)
        return dice[id(expr)]
    if isinstance(expr, m.Binary):
        left = as_number(evaluate(expr.left, scope, dice), expr.left.span)
        right = as_number(evaluate(expr.right, scope, dice), expr.right.span)
        if expr.op in ("+", "-", "*"):
            result = left + right if expr.op == "+" else left - right if expr.op == "-" else left * right
            if abs(result) > MAX_VALUE:
                raise TooLarge(f"this comes to more than {MAX_VALUE:,} (10^18); numbers stop there", expr.span,
                               "game numbers are small; check the expression")
            return result
        if right == 0:
            raise EvalError("division by zero", expr.span)
        return left // right if expr.op == "/" else left % right
    if isinstance(expr, m.Neg):
        return -as_number(evaluate(expr.operand, scope, dice), expr.span)
    if isinstance(expr, m.Not):
        return not truthy(evaluate(expr.operand, scope, dice), expr.span)
    if isinstance(expr, m.Logic):
        if expr.op == "and":
            return all(truthy(evaluate(o, scope, dice), o.span) for o in expr.operands)
        return any(truthy(evaluate(o, scope, dice), o.span) for o in expr.operands)
    if isinstance(expr, m.Compare):
        left_value = evaluate(expr.left, scope, dice)
        right_value = evaluate(expr.right, scope, dice)
        if expr.op == "==":
            return same(left_value, right_value)
        if expr.op == "!=":
            return not same(left_value, right_value)
        left = as_number(left_value, expr.left.span)
        right = as_number(right_value, expr.right.span)
        return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[expr.op]
    if isinstance(expr, m.IfElse):
        if truthy(evaluate(expr.condition, scope, dice), expr.condition.span):
            return evaluate(expr.then, scope, dice)
        return evaluate(expr.otherwise, scope, dice)
    return call(expr, scope, dice)


def call(expr: m.Call, scope: Scope, dice: Mapping[int, int] | None) -> Value:
    if expr.function == "count":
        if scope.facts is None or len(expr.args) != 1:
            raise EvalError("count(face) counts the rolled dice showing a face; use it in a band", expr.span)
        arg = expr.args[0]
        if isinstance(arg, m.Name) and arg.name in scope.symbols:
            return scope.facts.counts.get(arg.name, 0)
        face = as_number(evaluate(arg, scope, dice), expr.span)
        return scope.facts.counts.get(face, 0)
    if expr.function in ("step", "rank"):
        return ordered(expr, scope, dice)
    args = [as_number(evaluate(a, scope, dice), a.span) for a in expr.args]
    if expr.function == "min" and args:
        return min(args)
    if expr.function == "max" and args:
        return max(args)
    if expr.function == "clamp" and len(args) == 3:
        return max(args[1], min(args[2], args[0]))
    if expr.function == "abs" and len(args) == 1:
        return abs(args[0])
    if expr.function == "sign" and len(args) == 1:
        return (args[0] > 0) - (args[0] < 0)
    raise EvalError(f"`{expr.function}` takes different arguments (or is not a function)", expr.span)


def ordered(expr: m.Call, scope: Scope, dice: Mapping[int, int] | None) -> Value:
    """`step(x, n)`: the option n places along x's choice (clamped at the ends); `rank(x)`: its place, from 1."""
    want = 2 if expr.function == "step" else 1
    first = expr.args[0] if expr.args else None
    if len(expr.args) != want or not isinstance(first, m.Name) or first.name not in scope.orders:
        raise EvalError(f"{expr.function}() takes a choice input{', then a number of steps' if want == 2 else ''}",
                        expr.span)
    order = scope.orders[first.name]
    current = scope.lookup(first.name, first.span)
    place = next(i for i, option in enumerate(order) if same(option, current))
    if expr.function == "rank":
        return place + 1
    steps = as_number(evaluate(expr.args[1], scope, dice), expr.args[1].span)
    return order[max(0, min(len(order) - 1, place + steps))]


def contains_dice(expr: m.Expr) -> bool:
    return any(isinstance(node, (m.Dice, m.Pool, m.Kept, m.CustomPool)) for node in walk(expr))


def _subexpressions(expr: m.Expr) -> list[tuple[str, m.Expr | tuple[m.Expr, ...]]]:
    """The fields of a node that hold expressions (one, or a tuple of them), in declaration order."""
    out: list[tuple[str, m.Expr | tuple[m.Expr, ...]]] = []
    for item in fields(expr):
        value = getattr(expr, item.name)
        if isinstance(value, EXPR_TYPES):
            out.append((item.name, value))  # type: ignore[arg-type]
        elif isinstance(value, tuple) and value and all(isinstance(v, EXPR_TYPES) for v in value):
            out.append((item.name, value))
    return out


def children(expr: m.Expr) -> tuple[m.Expr, ...]:
    """The expressions directly inside a node, left to right."""
    out: list[m.Expr] = []
    for _, value in _subexpressions(expr):
        out.extend(value if isinstance(value, tuple) else (value,))
    return tuple(out)


def rebuild(expr: m.Expr, change: Callable[[m.Expr], m.Expr]) -> m.Expr:
    """`expr` with `change` applied to every node, innermost first (nodes are frozen, so rebuilt)."""
    updates: dict[str, object] = {}
    for name, value in _subexpressions(expr):
        updates[name] = (tuple(rebuild(v, change) for v in value) if isinstance(value, tuple)
                         else rebuild(value, change))
    return change(replace(expr, **updates) if updates else expr)  # type: ignore[arg-type]


def walk(expr: m.Expr) -> list[m.Expr]:
    """Every node of an expression, outermost first, left to right."""
    out: list[m.Expr] = []
    stack: list[m.Expr] = [expr]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(children(node)))
    return out


def dice_symbols(resolver: m.Resolver) -> frozenset[str]:
    """Every symbol on the custom dice a resolver rolls (what `count(hit)` may name)."""
    return frozenset(symbol for rule in resolver.dice for node in walk(rule.expr)
                     if isinstance(node, m.CustomPool) for symbol in node.faces)
