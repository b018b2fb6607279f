"""Evaluate model expressions: the interpreter the odds stage and the checker share.

Code generation compiles the same expressions to Python separately; tests
check the two agree (interpreted odds == compiled odds == enumeration of the
compiled resolver).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from .. import model as m
from .runtime import MAX_DICE, MAX_EXPLOSIONS, MAX_SIDES, Held, held_count, held_most


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


@dataclass(slots=True)
class RollFacts:
    """What band conditions can read about a roll (one per dice reading the odds work through:
    not frozen, which would make each cost twice as much; nothing changes one once made)."""

    total: int
    natural: int | None
    counts: Mapping[int | str, int]
    zero_dice: bool
    highest: int | None
    lowest: int | None
    pools: Mapping[str, Held]  # each named group's value and faces, by name


FUNCTIONS = {"min", "max", "clamp", "abs", "sign", "count", "step", "rank", *m.DIE_TESTS, *m.GROUP_READS}
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
        if self.facts is not None and name in self.facts.pools:  # a named group of dice: its value
            return self.facts.pools[name].value
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


Compiled = Callable[[Scope, "Mapping[int, int] | None"], Value]
_COMPILED: dict[int, tuple[m.Expr, Compiled]] = {}  # id(node) -> (node, closure); the node keeps its id alive
_CACHE_LIMIT = 200_000


def evaluate(expr: m.Expr, scope: Scope, dice: Mapping[int, int] | None = None) -> Value:
    """Evaluate `expr`. Dice terms take their values from `dice` (keyed by id of the term)."""
    return compiled(expr)(scope, dice)


def compiled(expr: m.Expr) -> Compiled:
    """`expr` as a Python closure, built once per node: the odds stage evaluates the same
    expressions for every input combination and every dice outcome, and a closure skips the
    tree walk and type dispatch that a plain interpreter repeats each time."""
    found = _COMPILED.get(id(expr))
    if found is not None and found[0] is expr:
        return found[1]
    if len(_COMPILED) > _CACHE_LIMIT:
        _COMPILED.clear()
    function = _CLOSURES.visit(expr)
    _COMPILED[id(expr)] = (expr, function)
    return function


_ARITHMETIC: dict[tuple[str, int], Callable[[list[int]], int]] = {
    ("abs", 1): lambda a: abs(a[0]), ("sign", 1): lambda a: (a[0] > 0) - (a[0] < 0),
    ("clamp", 3): lambda a: max(a[1], min(a[2], a[0]))}
_ORDERING: dict[str, Callable[[int, int], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class Closures(m.Visitor[Compiled]):
    """The interpreter: each node as a closure over its children's (see `compiled`)."""

    def visit_Number(self, expr: m.Number) -> Compiled:
        return self.constant(expr.value)

    def visit_Text(self, expr: m.Text) -> Compiled:
        return self.constant(expr.value)

    def visit_Boolean(self, expr: m.Boolean) -> Compiled:
        return self.constant(expr.value)

    @staticmethod
    def constant(value: Value) -> Compiled:
        return lambda scope, dice: value

    def visit_Unknown(self, expr: m.Unknown) -> Compiled:
        return lambda scope, dice: None

    def visit_Name(self, expr: m.Name) -> Compiled:
        name, span = expr.name, expr.span

        def lookup(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            values = scope.values
            if name in values:
                return values[name]
            return scope.lookup(name, span)
        return lookup

    def visit_Dice(self, expr: m.Dice) -> Compiled:
        key, span = id(expr), expr.span

        def rolled(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            if dice is None or key not in dice:
                raise EvalError("dice cannot be used here", span)
            return dice[key]
        return rolled

    def visit_Binary(self, expr: m.Binary) -> Compiled:
        left, right = compiled(expr.left), compiled(expr.right)
        lspan, rspan, span, op = expr.left.span, expr.right.span, expr.span, expr.op

        def number(value: Value, where: m.Span) -> int:
            return value if type(value) is int else as_number(value, where)

        if op in ("+", "-", "*"):
            def arithmetic(scope: Scope, dice: Mapping[int, int] | None) -> Value:
                a = number(left(scope, dice), lspan)
                b = number(right(scope, dice), rspan)
                result = a + b if op == "+" else a - b if op == "-" else a * b
                if -MAX_VALUE <= result <= MAX_VALUE:
                    return result
                raise too_big(span)
            return arithmetic

        def division(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            a = number(left(scope, dice), lspan)
            b = number(right(scope, dice), rspan)
            if b == 0:
                raise EvalError("division by zero", span)
            return a // b if op == "/" else a % b
        return division

    def visit_Neg(self, expr: m.Neg) -> Compiled:
        operand, span = compiled(expr.operand), expr.span
        return lambda scope, dice: -as_number(operand(scope, dice), span)

    def visit_Not(self, expr: m.Not) -> Compiled:
        operand, span = compiled(expr.operand), expr.span
        return lambda scope, dice: not truthy(operand(scope, dice), span)

    def visit_Logic(self, expr: m.Logic) -> Compiled:
        parts = tuple((compiled(o), o.span) for o in expr.operands)
        stop = expr.op != "and"  # `and` stops at the first no, `or` at the first yes

        def logic(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            for part, span in parts:
                value = part(scope, dice)
                if (value if type(value) is bool else truthy(value, span)) is stop:
                    return stop
            return not stop
        return logic

    def visit_Compare(self, expr: m.Compare) -> Compiled:
        left, right = compiled(expr.left), compiled(expr.right)
        lspan, rspan, op = expr.left.span, expr.right.span, expr.op
        if op in ("==", "!="):
            negate = op == "!="
            return lambda scope, dice: same(left(scope, dice), right(scope, dice)) is not negate
        order = _ORDERING[op]

        def compare(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            a, b = left(scope, dice), right(scope, dice)
            return order(a if type(a) is int else as_number(a, lspan), b if type(b) is int else as_number(b, rspan))
        return compare

    def visit_IfElse(self, expr: m.IfElse) -> Compiled:
        condition, then, otherwise = compiled(expr.condition), compiled(expr.then), compiled(expr.otherwise)
        cspan = expr.condition.span
        return lambda scope, dice: (then(scope, dice) if truthy(condition(scope, dice), cspan)
                                    else otherwise(scope, dice))

    def visit_Call(self, expr: m.Call) -> Compiled:
        """count(face) of a fixed face, and the number functions, directly; step, rank and the rest via call()."""
        arg = expr.args[0] if len(expr.args) == 1 else None
        if expr.function == "count" and isinstance(arg, (m.Name, m.Number)):
            face: int | str = arg.value if isinstance(arg, m.Number) else arg.name
            symbolic = isinstance(arg, m.Name)

            def count(scope: Scope, dice: Mapping[int, int] | None) -> Value:
                facts = scope.facts
                if facts is None or (symbolic and face not in scope.symbols):
                    return call(expr, scope, dice)  # an error, or a face given by an input: the general path
                return facts.counts.get(face, 0)
            return count
        function = (min if expr.function == "min" and expr.args else max if expr.function == "max" and expr.args
                    else _ARITHMETIC.get((expr.function, len(expr.args))))
        if function is None or expr.function == "count":
            return lambda scope, dice: call(expr, scope, dice)
        args = tuple((compiled(a), a.span) for a in expr.args)
        apply = function

        def number_function(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            values = []
            for part, span in args:
                value = part(scope, dice)
                values.append(value if type(value) is int else as_number(value, span))
            return apply(values)
        return number_function


    def visit_DiceRead(self, expr: m.DiceRead) -> Compiled:
        """A named group read die by die, from the roll's facts (see `m.DiceRead`)."""
        function, group, span = expr.function, expr.group, expr.span

        def pool(scope: Scope) -> Held:
            if scope.facts is None or group not in scope.facts.pools:
                raise EvalError(f"`{group}` is a group of dice: it is read once the dice are rolled", span)
            return scope.facts.pools[group]

        if expr.operand is None:
            def whole_group(scope: Scope, dice: Mapping[int, int] | None) -> Value:
                held = pool(scope)
                if function == "doubles":
                    return held_most(held) >= 2
                if function == "matches":
                    return held_most(held)
                return (max if function == "highest" else min)(held.faces, default=0)  # 0 of a pool of no dice
            return whole_group
        operand, test = compiled(expr.operand), DIE_OPERATORS[expr.op or "=="]
        operand_span = expr.operand.span

        def die_test(scope: Scope, dice: Mapping[int, int] | None) -> Value:
            held = pool(scope)
            value = operand(scope, dice)
            than = value if type(value) is int else as_number(value, operand_span)
            passing = held_count(held, lambda face: test(face, than))
            if function == "count":
                return passing
            return passing == held.size if function == "all" else passing > 0 if function == "any" else passing == 0
        return die_test


DIE_OPERATORS: dict[str, Callable[[int, int], bool]] = {**_ORDERING, "==": operator.eq, "!=": operator.ne}  # `die op x`
_CLOSURES = Closures()


def too_big(span: m.Span) -> TooLarge:
    """The error for a sum or product past MAX_VALUE, at the operation that made it."""
    return TooLarge(f"this comes to more than {MAX_VALUE:,} (10^18); numbers stop there", span,
                    "game numbers are small; check the expression")


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


def signed_parts(expr: m.Expr) -> Iterator[tuple[int, m.Expr]]:
    """The parts `expr` adds (+1) or takes away (-1) through `+` and `-`, right-most first: `2d6 + 3 - d4` is
    -d4, +3, +2d6."""
    pending: list[tuple[int, m.Expr]] = [(1, expr)]
    while pending:
        sign, part = pending.pop()
        if isinstance(part, m.Binary) and part.op in ("+", "-"):
            pending.append((sign, part.left))
            pending.append((sign if part.op == "+" else -sign, part.right))
        else:
            yield sign, part


def contains_dice(expr: m.Expr) -> bool:
    return any(isinstance(node, m.Dice) for node in walk(expr))


def children(expr: m.Expr) -> tuple[m.Expr, ...]:
    """The expressions directly inside a node, left to right (by the fields its class declares: `CHILDREN`)."""
    out: list[m.Expr] = []
    for name in expr.CHILDREN:
        value = getattr(expr, name)
        if isinstance(value, tuple):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return tuple(out)


def rebuild(expr: m.Expr, change: Callable[[m.Expr], m.Expr]) -> m.Expr:
    """`expr` with `change` applied to every node, innermost first (nodes are frozen, so rebuilt)."""
    updates: dict[str, object] = {}
    for name in expr.CHILDREN:
        value = getattr(expr, name)
        if isinstance(value, tuple):
            updates[name] = tuple(rebuild(v, change) for v in value)
        elif value is not None:
            updates[name] = rebuild(value, change)
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


@dataclass(frozen=True, slots=True)
class Reads:
    """What a roll's expressions read of its dice, beyond each group's value (what exact odds keep apart)."""

    counted: frozenset[int | str] | None  # faces `count()` asks about; None: any (a computed face)
    high: bool
    low: bool
    valued: bool = True  # the group's value is read (a named group read only die by die: not)
    merged: tuple[tuple[int, ...], ...] = ()  # of a group not valued: faces every read tells apart alike


def bands_read(resolver: m.Resolver) -> Reads:
    """What the dice rules, the zero-dice rule and the `when` bands of a roll read of its dice."""
    exprs = [rule.expr for rule in resolver.dice] + ([resolver.zero_dice] if resolver.zero_dice is not None else [])
    exprs += [b.condition.test for b in resolver.bands if isinstance(b.condition, m.When)]
    exprs += [test for _, test in resolver.flags]
    symbols = dice_symbols(resolver)
    counted: set[int | str] | None = set()
    names: set[str] = set()
    for node in (n for e in exprs for n in walk(e)):
        if isinstance(node, m.Name):
            names.add(node.name)
        elif isinstance(node, m.Call) and node.function == "count" and counted is not None:
            arg = node.args[0] if len(node.args) == 1 else None
            if isinstance(arg, m.Name) and arg.name in symbols:
                counted.add(arg.name)
            elif isinstance(arg, m.Number):
                counted.add(arg.value)
            else:
                counted = None
    return Reads(None if counted is None else frozenset(counted), "highest" in names, "lowest" in names)


def group_reads(resolver: m.Resolver, group: m.Let) -> Reads:
    """What exact odds keep apart of a named group of dice: what the roll's bands read of every die
    (`bands_read`), and what the group's own reads (`m.DiceRead`) tell apart. Tests against a number the
    rules write, of a die whose sides they fix, count the faces that pass (`count(pool >= 5)` keeps 5 and 6
    apart on a d6); any other read (`count(challenge < total)`, `doubles(pool)`) keeps every face apart."""
    base = bands_read(resolver)
    counted: set[int | str] | None = None if base.counted is None else set(base.counted)
    term = group.expr
    sides = term.sides.value if isinstance(term, m.Dice) and isinstance(term.sides, m.Number) else None
    valued = any(isinstance(b.condition, m.Natural) for b in resolver.bands)
    tests: list[tuple[Callable[[int, int], bool], int]] = []
    for node in (n for e in resolver.expressions() for n in walk(e)):
        if isinstance(node, m.Name) and node.name in (group.name, "natural"):
            valued = True
        if not isinstance(node, m.DiceRead) or node.group != group.name or counted is None:
            continue
        if sides is None or node.op is None or not isinstance(node.operand, m.Number):
            counted = None
            continue
        tests.append((DIE_OPERATORS[node.op], node.operand.value))
        counted.update(face for face in range(1, sides + 1) if tests[-1][0](face, tests[-1][1]))
    merged: tuple[tuple[int, ...], ...] = ()
    if counted is not None and not valued and not base.high and not base.low and sides is not None:
        # faces every test passes or fails alike are one class (5 and 6 for `count(pool >= 5)`): 20d6 counting
        # 5-6 and 1s is then 231 readings, not 1,771; a face the roll's `count(face)` names stays apart
        classes: dict[tuple[object, ...], list[int]] = {}
        for face in sorted(f for f in counted if isinstance(f, int)):
            alone = face if base.counted is not None and face in base.counted else None
            classes.setdefault((*(test(face, than) for test, than in tests), alone), []).append(face)
        merged = tuple(tuple(faces) for faces in classes.values() if len(faces) > 1)
    return Reads(None if counted is None else frozenset(counted), base.high, base.low, valued, merged)


def dice_symbols(resolver: m.Resolver) -> frozenset[str]:
    """Every symbol on the custom dice a resolver rolls (what `count(hit)` may name)."""
    return frozenset(symbol for rule in resolver.dice for node in walk(rule.expr)
                     if isinstance(node, m.Dice) for symbol in node.faces)


class Magnitude(m.Visitor[int]):
    """The largest size a value can have, worked out from the inputs' ranges without listing them: where a
    formula has too many inputs to work out one by one, the check bounds it by this instead. Tight for sums
    and products of inputs; never below the true largest value."""

    def __init__(self, resolver: m.Resolver) -> None:
        self.sizes: dict[str, int] = {}
        self.places = {item.name: len(item.type.options) for item in resolver.inputs if isinstance(item.type, m.Choice)}
        for item in resolver.inputs:
            spec = item.type
            self.sizes[item.name] = (max(abs(spec.low), abs(spec.high)) if isinstance(spec, m.IntRange) else 1
                                     if isinstance(spec, m.Flag) else max((abs(o.value or 0) for o in spec.options),
                                                                          default=0))
        for let in resolver.lets:
            self.sizes[let.name] = self.visit(let.expr)
        self.groups = {group.name: group.expr for group in resolver.groups}
        for name, group in self.groups.items():
            self.sizes[name] = self.visit(group)

    def visit_Number(self, expr: m.Number) -> int:
        return abs(expr.value)

    def visit_Text(self, expr: m.Text) -> int:
        return 0

    def visit_Boolean(self, expr: m.Boolean) -> int:
        return 1

    def visit_Unknown(self, expr: m.Unknown) -> int:
        return 0

    def visit_Name(self, expr: m.Name) -> int:
        return self.sizes.get(expr.name, 0)  # an option's number is its input's; a roll fact is bounded below

    def visit_Dice(self, expr: m.Dice) -> int:
        sides = self.visit(expr.sides) if expr.sides is not None else 0
        face = max(sides, max((abs(v) for v in expr.values), default=0))
        return self.visit(expr.count) * face * (1 + MAX_EXPLOSIONS if expr.explodes else 1)

    def visit_Binary(self, expr: m.Binary) -> int:
        left, right = self.visit(expr.left), self.visit(expr.right)
        if expr.op in ("+", "-"):
            return left + right
        if expr.op == "*":
            return left * right
        return left if expr.op == "/" else right  # floor division, remainder

    def visit_Neg(self, expr: m.Neg) -> int:
        return self.visit(expr.operand)

    def visit_Not(self, expr: m.Not) -> int:
        return 1

    def visit_Logic(self, expr: m.Logic) -> int:
        return 1

    def visit_Compare(self, expr: m.Compare) -> int:
        return 1

    def visit_IfElse(self, expr: m.IfElse) -> int:
        return max(self.visit(expr.then), self.visit(expr.otherwise))

    def visit_Call(self, expr: m.Call) -> int:
        if expr.function in ("sign", "step"):
            return 1
        if expr.function == "count":  # dice showing a face
            return MAX_DICE
        if expr.function == "rank":  # an option's place along its choice
            return self.places.get(expr.args[0].name, 0) if expr.args and isinstance(expr.args[0], m.Name) else 0
        return max((self.visit(arg) for arg in expr.args), default=0)  # min, max, abs, clamp

    def visit_DiceRead(self, expr: m.DiceRead) -> int:
        group = self.groups.get(expr.group)
        if expr.function in ("count", "matches"):  # dice
            return self.visit(group.count) if isinstance(group, m.Dice) else MAX_DICE
        if expr.function in ("highest", "lowest"):  # a face
            return self.visit(group.sides) if isinstance(group, m.Dice) and group.sides is not None else MAX_SIDES
        return 1  # yes or no


_NUMBER_FUNCTIONS = frozenset({"min", "max", "abs", "clamp", "sign"})


def read_as_numbers(expr: m.Expr) -> Iterator[m.Expr]:
    """Every part of `expr` whose value is used as a number: operands of arithmetic and of `<`, `>`, `<=`,
    `>=`, the arguments of the number functions, a pool's count and a die's sides (through `a if t else b`,
    each branch)."""
    for node in walk(expr):
        if isinstance(node, m.Binary):
            parts: tuple[m.Expr, ...] = (node.left, node.right)
        elif isinstance(node, m.Neg):
            parts = (node.operand,)
        elif isinstance(node, m.Compare) and node.op not in ("==", "!="):
            parts = (node.left, node.right)
        elif isinstance(node, m.Call) and node.function in _NUMBER_FUNCTIONS:
            parts = node.args
        elif isinstance(node, m.Call) and node.function == "step" and len(node.args) == 2:
            parts = (node.args[1],)
        elif isinstance(node, m.Dice):
            parts = tuple(part for part in (node.count, node.sides) if part is not None)
        else:
            continue
        for part in parts:
            yield from branches(part)


def branches(expr: m.Expr) -> Iterator[m.Expr]:
    """`expr`, or each value `a if t else b` can take."""
    if isinstance(expr, m.IfElse):
        yield from branches(expr.then)
        yield from branches(expr.otherwise)
    else:
        yield expr
