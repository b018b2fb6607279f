"""The Rulecraft model: frozen dataclasses for the whole language.

Two layers live here. The *source* layer (Ruleset, Item, Entry, Attr, ...)
mirrors what the designer wrote, one class per grammar rule. The *checked*
layer (Resolver, Band, Track, ...) is what `check` builds from it after
resolving names, reusable band sets and errata; every backend reads only the
checked layer. No Lark or Jinja types appear in either.

Every node carries a `span` for diagnostics; spans never take part in
equality, so two rulesets that differ only in layout compare equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import ClassVar, Generic, Literal, TypeVar, Union

from .diagnostics import NOWHERE as NOWHERE  # re-exported: the model is where stages look for them
from .diagnostics import Span as Span
from .semantics.runtime import OPERATORS


def _span() -> Span:
    span: Span = field(default=NOWHERE, compare=False, repr=False)
    return span


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True, slots=True)
class Number:
    """A whole number in an expression (`3`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ()  # the fields holding expressions
    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Text:
    """A quoted text in an expression."""

    CHILDREN: ClassVar[tuple[str, ...]] = ()  # the fields holding expressions
    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Boolean:
    """`yes` or `no` in an expression."""

    CHILDREN: ClassVar[tuple[str, ...]] = ()  # the fields holding expressions
    value: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Unknown:
    """`unknown`: a value the document does not give (reported as MISSING)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ()  # the fields holding expressions
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Name:
    """A name in an expression: an input, a let, an option, a definition, or the roll's own (`total`, `natural`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ()  # the fields holding expressions
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DiceOp:
    """An operator on a group of dice, applied in order: `keep highest 2` is `DiceOp("highest", 2)`, `!` is
    `DiceOp("explode")`. `name` is a key of `runtime.OPERATORS`, which gives each one its meaning."""

    name: str
    arg: int = 0
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Dice:
    """A group of dice: every dice term of the language. `count` dice of one die, then `ops` in order.

    `2d6`, `(rating)d6`, `d(die)`, `3d6 keep highest 2`, `d6!`. A die of symbols (`(combat) attack`) is
    named by `die`, with `sides` None until the checker fills it, with `faces` (the symbol on each side)
    and `values` (each side's worth), from its declaration. `cap` is the checker's too, for exact odds of an exploding
    group (see `runtime.DiceSpec`): the value past which every roll reads alike.
    """

    CHILDREN: ClassVar[tuple[str, ...]] = ("count", "sides", "cap")  # the fields holding expressions
    count: Expr
    sides: Expr | None
    ops: tuple[DiceOp, ...] = ()
    die: str | None = None
    faces: tuple[str, ...] = ()
    values: tuple[int, ...] = ()
    cap: Expr | None = None
    span: Span = _span()

    @property
    def explodes(self) -> bool:
        return any(op.name in ("explode", "compound") for op in self.ops)


@dataclass(frozen=True, slots=True)
class Binary:
    """Arithmetic on two values (`total + bonus`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("left", "right")  # the fields holding expressions
    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Neg:
    """A value negated (`-bonus`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("operand",)  # the fields holding expressions
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Not:
    """A test negated (`not adv`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("operand",)  # the fields holding expressions
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Logic:
    """`and` or `or` over two or more tests."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("operands",)  # the fields holding expressions
    op: Literal["and", "or"]
    operands: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Compare:
    """A comparison of two values (`total >= dn`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("left", "right")  # the fields holding expressions
    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class IfElse:
    """A value chosen by a test (`grip if steps >= 0 else die`)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("condition", "then", "otherwise")  # the fields holding expressions
    condition: Expr
    then: Expr
    otherwise: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call:
    """A function of the language applied to values (`max`, `min`, `count`, `step`, `rank`, ...)."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("args",)  # the fields holding expressions
    function: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DiceRead:
    """What an expression reads of a named group of dice (`let challenge = 2d10`), die by die. The checker
    makes one from a call the parser reads: `count(challenge < total)` (how many of the group's dice pass
    the test), `all(...)`, `any(...)`, `none(...)` (whether all, any or none of them do); `doubles(challenge)`
    (two dice or more show one face), `matches(challenge)` (the most dice showing one face),
    `highest(challenge)` and `lowest(challenge)` (its highest and lowest die). A test is held with the group
    on the left, `die op operand`, however it was written."""

    CHILDREN: ClassVar[tuple[str, ...]] = ("operand",)  # the fields holding expressions
    function: str
    group: str
    op: str | None = None  # the test of each die, for count, all, any and none
    operand: Expr | None = None
    span: Span = _span()


DIE_TESTS = ("count", "all", "any", "none")  # DiceRead functions that test each die against a value
GROUP_READS = ("doubles", "matches", "highest", "lowest")  # DiceRead functions of the group alone


Expr = Union[Number, Text, Boolean, Unknown, Name, Dice, Binary, Neg, Not, Logic, Compare, IfElse, Call, DiceRead]

_Out = TypeVar("_Out")


class Visitor(Generic[_Out]):
    """One method per kind of expression, `visit_<Kind>` (the interpreter, codegen and the printer are
    visitors). A kind a visitor has no method for is an error, never a silent default."""

    def visit(self, node: Expr) -> _Out:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise TypeError(f"{type(self).__name__} has no rule for {type(node).__name__} nodes")
        return method(node)  # type: ignore[no-any-return]

# ------------------------------------------------------------------ conditions


@dataclass(frozen=True, slots=True)
class Interval:
    """Inclusive bounds; None is open-ended."""

    low: int | None
    high: int | None

    def contains(self, value: int) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


@dataclass(frozen=True, slots=True)
class Ranges:
    """`10+`, `7-9`, `6 or less`, `less than 6`, `4/5`, `1,2`: values of the roll.

    `text` keeps the notation exactly as written, for the sheet.
    """

    parts: tuple[Interval, ...]
    text: str
    span: Span = _span()

    def contains(self, value: int) -> bool:
        return any(part.contains(value) for part in self.parts)


@dataclass(frozen=True, slots=True)
class Natural:
    """`natural 12`: the kept dice alone, before any modifier, show this total."""

    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class When:
    """`when count(6) >= 2`: any test over the roll and the inputs."""

    test: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Otherwise:
    """The `otherwise` of a band: every value no band before it takes."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OptionKey:
    """`light:` a row keyed by an option of a choice (or a list item's id)."""

    name: str
    span: Span = _span()


Condition = Union[Ranges, Natural, When, Otherwise, OptionKey]

# ------------------------------------------------------------------ types


@dataclass(frozen=True, slots=True)
class IntRange:
    """A whole-number type, `low..high` with both ends included."""

    low: int
    high: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Flag:
    """The yes/no type (`flag`)."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a choice: its name, its label and its number, if it has one (`d6 (6)`)."""

    name: str
    label: str
    value: int | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Choice:
    """A type of named options, in order (`one of calm, bold`)."""

    options: tuple[Option, ...]
    span: Span = _span()

    def option(self, name: str) -> Option | None:
        for option in self.options:
            if option.name == name:
                return option
        return None


@dataclass(frozen=True, slots=True)
class NamedType:
    """A type named by a `type` definition of the ruleset."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoxesOf:
    """`boxes of vow`: a whole number from 0 to the size of a track, its filled boxes (an Ironsworn progress
    score); the checker resolves it to that range."""

    track: str
    span: Span = _span()


TypeSpec = Union[IntRange, Flag, Choice, NamedType, BoxesOf]

# ------------------------------------------------------------------ source layer


@dataclass(frozen=True, slots=True)
class Citation:
    """`[TOG-01, lines 7-17]`: inventory IDs and document lines."""

    ids: tuple[str, ...]
    lines: tuple[tuple[int, int], ...] = ()
    span: Span = _span()

    def text(self) -> str:
        parts = list(self.ids)
        for low, high in self.lines:
            parts.append(f"line {low}" if low == high else f"lines {low}-{high}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class NotAvailable:
    """`—` in a table cell: nothing there (a ragged or triangular table)."""

    span: Span = _span()


Cell = Union[str, int, NotAvailable]


@dataclass(frozen=True, slots=True)
class Attr:
    """`name: value`, or `name if test: value` (used when the test holds)."""

    name: str
    value: Expr | Block
    when: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Link:
    """One table a row rolls next: `encounters`, `a if test else b`, and how many times: None (once), a whole
    number (`x2`), or plain dice rolled when the row comes up (`x d4`)."""

    target: Expr
    times: Expr | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Chain:
    """`-> weather, encounters x2`: the tables a row rolls next, each in turn, each roll following its own chain."""

    links: tuple[Link, ...]
    span: Span = _span()

    def expressions(self) -> Iterator[Expr]:
        """The tables' expressions, which the resolver evaluates (a link's number of times is data)."""
        return (link.target for link in self.links)

    def map_expressions(self, change: Callable[[Expr], Expr]) -> Chain:
        return replace(self, links=tuple(replace(link, target=change(link.target)) for link in self.links))


def chain_dice(times: Expr) -> tuple[int, int] | None:
    """`x d4`, `x (2d6)`: the count and sides of plain numbered dice rolled for a link's number of times."""
    if (isinstance(times, Dice) and not times.ops and times.die is None and isinstance(times.count, Number)
            and isinstance(times.sides, Number) and times.count.value >= 1 and times.sides.value >= 1):
        return times.count.value, times.sides.value
    return None


def chain_times(times: Expr | None) -> int:
    """The most times a link is rolled: once, its number, or the highest its dice can show."""
    if times is None:
        return 1
    if isinstance(times, Number):
        return max(times.value, 0)
    dice = chain_dice(times)
    return dice[0] * dice[1] if dice is not None else 1


def chain_text(chain: Chain) -> str:
    """`weather, encounters x2, foes x d4`: a chain as the language writes it after `->`."""
    def times(expr: Expr) -> str:
        return f" x{expr.value}" if isinstance(expr, Number) else f" x {expr_text(expr)}"
    return ", ".join(expr_text(link.target) + (times(link.times) if link.times is not None else "")
                     for link in chain.links)


EffectVerb = Literal["mark", "clear", "gain", "spend", "set", "carry", "roll"]
EFFECT_VERBS: tuple[EffectVerb, ...] = ("mark", "clear", "gain", "spend", "set", "carry", "roll")


@dataclass(frozen=True, slots=True)
class Effect:
    """What an outcome does to the game's state, one line under its band (or in a track's `full:` block):

    `mark consequence_clock segments` (segments of a clock, boxes of a track; `at 2`: harm of level 2; `by strain`:
    the marker it moves, on a track with `markers:`),
    `clear stress` (all of it; `clear stress 2`: two boxes; `clear hurt`: a condition), `gain coin 2`,
    `spend coin 1`, `set incapacitated`, `add -4 to navigate dv` (a carry: added to that input of the next roll
    of `navigate`), `-> crisis` (roll it, with its effects). The checker lowers a band value named in an
    amount (`segments`) to the band's own expression for it."""

    verb: EffectVerb
    target: str | None  # the clock, track, resource or condition acted on; for `carry`, the roll
    amount: Expr | None = None  # None: 1 for mark, everything for clear
    level: Expr | None = None  # `mark harm at 2`
    input: str | None = None  # `carry`: the input of the next roll it adds to
    chain: Chain | None = None  # `-> crisis`
    span: Span = _span()
    marker: str | None = None  # `mark health_strain 2 by strain`: the marker of a track with `markers:` it moves


@dataclass(frozen=True, slots=True)
class Guarded:
    """`when TEST:` in a roll, effects under it: what every roll does where TEST holds, whatever its outcome
    (what a choice costs: `when push_or_bargain = push:` then `mark stress 2`). TEST reads what a band reads."""

    test: Expr
    effects: tuple[Effect, ...]
    span: Span = _span()
    label: str | None = None  # `when push = yes "Pushing yourself":` the sheet's words for it ("": none)


def effect_text(effect: Effect) -> str:
    """An effect as the language writes it."""
    if effect.verb == "roll" and effect.chain is not None:
        return f"-> {chain_text(effect.chain)}"
    if effect.verb == "carry":
        return f"add {expr_text(effect.amount) if effect.amount is not None else 1} to {effect.target} {effect.input}"
    amount = f" {expr_text(effect.amount)}" if effect.amount is not None else ""
    level = f" at {expr_text(effect.level)}" if effect.level is not None else ""
    marker = f" by {effect.marker}" if effect.marker is not None else ""
    return f"{effect.verb} {effect.target}{amount}{level}{marker}"


@dataclass(frozen=True, slots=True)
class Entry:
    """One `- key: id cells -> chain` line with its indented attributes (and effects)."""

    key: Condition | None
    id: str | None
    cells: tuple[Cell, ...]
    chain: Chain | None
    attrs: tuple[Attr, ...]
    span: Span = _span()
    effects: tuple[Effect, ...] = ()
    erratum: str | None = None  # the errata entry that added it (`add to ...:`): a row the document does not have

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)


@dataclass(frozen=True, slots=True)
class Block:
    """`name:` followed by indented attributes and entries (and, in a track's `full:` block, effects)."""

    attrs: tuple[Attr, ...]
    entries: tuple[Entry, ...]
    span: Span = _span()
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class Input:
    """An input as written (`input dots: 0..4 = 1 "Action dots"`), its type not yet resolved."""

    name: str
    type: TypeSpec
    default: int | str | bool | None
    doc: str | None
    span: Span = _span()
    source: Expr | None = None  # `from harm_penalty`: what the game's state gives it


@dataclass(frozen=True, slots=True)
class Let:
    """A name for a value worked out from the inputs (`let steps = enhanced - impaired`)."""

    name: str
    expr: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Columns:
    """`columns by ...:` of a table: what picks the column, and each column as an entry."""

    by: Expr
    entries: tuple[Entry, ...]
    span: Span = _span()


ItemKind = Literal[
    "roll", "table", "lookup", "bands", "formula", "list", "procedure", "track", "clock", "rule", "die", "deck",
    "priority", "condition", "resource",
]


@dataclass(frozen=True, slots=True)
class Item:
    """One definition as parsed (a roll, table, track, list, ...), before the check lowers it."""

    kind: ItemKind
    name: str
    label: str | None
    citation: Citation | None
    inputs: tuple[Input, ...]
    lets: tuple[Let, ...]
    attrs: tuple[Attr, ...]
    entries: tuple[Entry, ...]
    columns: Columns | None
    section: str | None
    span: Span = _span()
    guards: tuple[Guarded, ...] = ()  # `when TEST:` blocks of effects

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)

    @property
    def title(self) -> str:
        return self.label if self.label is not None else self.name.replace("_", " ").capitalize()


@dataclass(frozen=True, slots=True)
class Section:
    """A heading that groups the definitions after it on the sheet."""

    title: str
    citation: Citation | None
    attrs: tuple[Attr, ...]
    span: Span = _span()

    def columns(self) -> int | None:
        """The columns of cards the section asks for (`columns: 1`, `2` or `3` under it); None: the sheet's own."""
        value = next((a.value for a in self.attrs if a.name == "columns"), None)
        return value.value if isinstance(value, Number) and value.value in SECTION_COLUMNS else None


SECTION_COLUMNS = (1, 2, 3)


@dataclass(frozen=True, slots=True)
class TypeDef:
    """A named type (`type dots: 0..4`)."""

    name: str
    spec: TypeSpec
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Path:
    """`consequence_clock[less than 6]`, `healing_clock.size`: a place in the model."""

    item: str
    member: str | None
    selector: Condition | None
    span: Span = _span()

    def text(self) -> str:
        out = self.item
        if self.selector is not None:
            out += f"[{condition_text(self.selector)}]"
        if self.member is not None:
            out += f".{self.member}"
        return out


@dataclass(frozen=True, slots=True)
class FixMove:
    """An errata fix that gives a band another condition (`move ... to ...`)."""

    path: Path
    to: Condition
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FixSet:
    """An errata fix that sets a value (`set ... to ...`)."""

    path: Path
    to: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FixDrop:
    """An errata fix that drops an entry (`drop ...`)."""

    path: Path
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FixAdd:
    """An errata fix that adds entries to a definition (`add to ...:`)."""

    item: str
    entries: tuple[Entry, ...]
    span: Span = _span()


Fix = Union[FixMove, FixSet, FixDrop, FixAdd]


@dataclass(frozen=True, slots=True)
class Resolves:
    """`resolves: CODE in name`: the defects an errata entry answers."""

    codes: tuple[str, ...]
    items: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Errata:
    """An errata entry as written: the defects it answers and its fixes."""

    id: str
    title: str
    citation: Citation | None
    attrs: tuple[Attr, ...]
    resolves: tuple[Resolves, ...]
    fixes: tuple[Fix, ...]
    span: Span = _span()

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One `.rules` file as written."""

    id: str
    path: str
    title: str
    attrs: tuple[Attr, ...]
    sections: tuple[Section, ...]
    types: tuple[TypeDef, ...]
    items: tuple[Item, ...]
    errata: tuple[Errata, ...]
    span: Span = _span()

    def attr(self, name: str) -> Attr | None:
        return next((a for a in self.attrs if a.name == name), None)

    def item(self, name: str) -> Item | None:
        return next((i for i in self.items if i.name == name), None)


# ------------------------------------------------------------------ printing


def interval_text(interval: Interval) -> str:
    low, high = interval.low, interval.high
    if low is None and high is None:
        return "any"
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low}+"
    if low == high:
        return str(low)
    return f"{low}-{high}"


def condition_text(condition: Condition) -> str:
    """The canonical printed form of a condition (ranges keep their own notation)."""
    if isinstance(condition, Ranges):
        return condition.text
    if isinstance(condition, Natural):
        return f"natural {condition.value}"
    if isinstance(condition, When):
        return f"when {expr_text(condition.test)}"
    if isinstance(condition, Otherwise):
        return "otherwise"
    return condition.name


FATE = "dF"  # the die of `4dF`: Fate (Fudge) dice, each -1, 0 or +1


def _digit_faces(digits: int) -> tuple[tuple[str, int], ...]:
    """`d66`: d6s read as digits, the first the tens: 11, 12, ... 16, 21, ... 66 (each side one reading)."""
    readings = [""]
    for _ in range(digits):
        readings = [r + str(face) for r in readings for face in range(1, 7)]
    return tuple((r, int(r)) for r in readings)


# Dice the field writes that are not numbered 1..N: the symbol and worth of each side. A ruleset that declares a
# die of the same name (`die d66`) rolls its own.
BUILTIN_DICE: dict[str, tuple[tuple[str, int], ...]] = {
    FATE: (("-", -1), ("0", 0), ("+", 1)),
    "d66": _digit_faces(2),
    "d666": _digit_faces(3),
}


def dice_text(dice: Dice) -> str:
    """`3d6 keep highest 2`, `(rating)d6!`, `2 attack`, `4dF`: a group of dice as the rules write it."""
    count = dice.count
    number = count.value if isinstance(count, Number) else None
    counted = str(number) if number is not None else f"({expr_text(count)})"
    if dice.die in BUILTIN_DICE:
        base = f"{'' if number == 1 else counted}{dice.die}"
    elif dice.die is not None or dice.sides is None:
        base = f"{counted} {dice.die}"
    else:
        sides = str(dice.sides.value) if isinstance(dice.sides, Number) else f"({expr_text(dice.sides)})"
        base = f"{'' if number == 1 else counted}d{sides}"
    return base + "".join(OPERATORS[op.name].notation(op.arg) for op in dice.ops)


_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "compare": 4, "+": 5, "-": 5, "*": 6, "×": 6, "/": 6, "%": 6}


def expr_text(expr: Expr, parent: int = 0) -> str:
    """The canonical printed form of an expression, as the language writes it (`=`, never `==`), parenthesised
    only where needed: parsing the text gives back the same expression (tests/test_expr_text.py)."""
    if isinstance(expr, Number):
        return str(expr.value)
    if isinstance(expr, Text):
        return '"' + expr.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(expr, Boolean):
        return "yes" if expr.value else "no"
    if isinstance(expr, Unknown):
        return "unknown"
    if isinstance(expr, Name):
        return expr.name
    if isinstance(expr, Dice):
        return dice_text(expr)
    if isinstance(expr, Binary):
        level = _PRECEDENCE[expr.op]
        right_level = level + 1
        out = f"{expr_text(expr.left, level)} {expr.op} {expr_text(expr.right, right_level)}"
    elif isinstance(expr, Neg):
        return f"-{expr_text(expr.operand, 7)}"
    elif isinstance(expr, Not):
        level = _PRECEDENCE["not"]
        out = f"not {expr_text(expr.operand, level)}"
    elif isinstance(expr, Logic):
        level = _PRECEDENCE[expr.op]
        out = f" {expr.op} ".join(expr_text(o, level + 1) for o in expr.operands)
    elif isinstance(expr, Compare):
        level = _PRECEDENCE["compare"]
        op = "=" if expr.op == "==" else expr.op  # the language's equals; the model keeps Python's `==`
        out = f"{expr_text(expr.left, level + 1)} {op} {expr_text(expr.right, level + 1)}"
    elif isinstance(expr, IfElse):
        level = 0
        out = (
            f"{expr_text(expr.then, 1)} if {expr_text(expr.condition, 1)} "
            f"else {expr_text(expr.otherwise, 0)}"
        )
    elif isinstance(expr, Call):
        return f"{expr.function}({', '.join(expr_text(a) for a in expr.args)})"
    elif isinstance(expr, DiceRead):
        if expr.operand is None:
            return f"{expr.function}({expr.group})"
        shown = "=" if expr.op == "==" else expr.op
        return f"{expr.function}({expr.group} {shown} {expr_text(expr.operand, _PRECEDENCE['compare'] + 1)})"
    else:
        raise TypeError(f"expr_text has no rule for {type(expr).__name__} nodes")
    return f"({out})" if level < parent else out


# ------------------------------------------------------------------ checked layer


# How a sheet colours an outcome: each tone its own colour and lightness (templates/sheet.css), so that a chart
# reads the same in greyscale. A band says its own with `tone:`, else the sheet infers one from its words.
TONES = ("critical", "success", "partial", "failure", "neutral")


@dataclass(frozen=True, slots=True)
class Band:
    """One outcome of a resolver: a band of a roll, a row of a table or lookup."""

    id: str
    label: str
    text: str | None
    condition: Condition
    cells: tuple[Cell, ...]
    chain: Chain | None
    values: tuple[tuple[str, Expr], ...]
    span: Span = _span()
    # data that holds only in one column of a 2-D table: (column id, data)
    column_values: tuple[tuple[str, tuple[tuple[str, Expr], ...]], ...] = ()
    written: str | None = None  # the key as the rules write it, where the checker put a roll let's expression in
    tone: str | None = None  # `tone: partial`: how the sheet colours it (one of TONES); None: inferred from its words
    effects: tuple[Effect, ...] = ()  # what the outcome does to the game's state (`mark consequence_clock 2`)
    erratum: str | None = None  # the errata entry that added the row: the proof marks it, the player's sheet does not

    @property
    def key_text(self) -> str:
        return self.written or condition_text(self.condition)


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a table: its id, label, the condition that picks it, and its values."""

    id: str
    label: str
    condition: Condition
    values: tuple[tuple[str, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DiceRule:
    """`roll: 3d6 keep highest 2 + dots if bonus_die`: dice used when `when` holds."""

    expr: Expr
    when: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Reroll:
    """`reroll if fortuitous: failure`: a first result among `outcomes` is rolled again, once.

    The new result is final. Of several `reroll:` lines at most one re-roll happens: the
    first result decides which line applies.
    """

    outcomes: tuple[str, ...]
    when: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ResolvedInput:
    """An input with its type resolved (a named type replaced by what it names)."""

    name: str
    type: IntRange | Flag | Choice
    default: int | str | bool | None
    doc: str | None
    span: Span = _span()
    boxes_of: str | None = None  # `boxes of vow`: the track whose filled boxes this input is
    source: Expr | None = None  # `from harm_penalty`: what the game's state gives it (STATE_NAMES, `level(harm)`)

    @property
    def effective_default(self) -> int | str | bool | None:
        """The declared default; a flag without one defaults to no. None: the input is required."""
        if self.default is None and isinstance(self.type, Flag):
            return False
        return self.default


ResolverKind = Literal["roll", "table", "lookup", "formula"]


@dataclass(frozen=True, slots=True)
class Resolver:
    """A roll, a random table, a lookup or a formula: inputs in, one outcome out.

    Rolls and tables read dice (`dice`); lookups read `key`; formulas compute
    `value`. The first band whose condition holds is the outcome, special
    conditions (natural, when) tested before ranges.
    """

    kind: ResolverKind
    name: str
    label: str
    citation: Citation | None
    section: str | None
    text: str | None
    inputs: tuple[ResolvedInput, ...]
    lets: tuple[Let, ...]
    dice: tuple[DiceRule, ...]
    zero_dice: Expr | None
    zero_dice_without: tuple[str, ...]
    key: Expr | None
    value: Expr | None
    bands: tuple[Band, ...]
    bands_from: str | None
    columns: tuple[Column, ...]
    column_by: Expr | None
    details: tuple[tuple[str, Expr], ...]
    span: Span = _span()
    # `carry:` input <- result value: what a result hands to the next roll of the same table
    carry: tuple[tuple[str, str], ...] = ()
    rerolls: tuple[Reroll, ...] = ()
    # exploding dice: the highest total the bands tell apart (every total above it lands alike; see check)
    horizon: Expr | None = None
    # named groups of dice (`let challenge = 2d10`): rolled once, before the roll's other dice, and read by
    # name (the group's value) and die by die (`DiceRead`) in the roll, its bands and its data
    groups: tuple[Let, ...] = ()
    # `flags:` yes/no tests a result carries beside its outcome (`match: doubles(challenge)`), by name
    flags: tuple[tuple[str, Expr], ...] = ()
    core: bool = False  # `core: yes`: on the core sheet (which, with none marked, takes the rolls that fit)
    # `chart:` the inputs the sheet's chart runs along: rows, then (a grid of the chance of success) columns;
    # () where the sheet picks (the first number whose value moves the odds)
    chart: tuple[str, ...] = ()
    # `words:` the designer's wording of its `roll`, `value`, `key`, lets, bands (their keys) and flags, by name:
    # the sheets print it instead of the generated words
    wording: tuple[tuple[str, str], ...] = ()
    # lets that read the roll (`let beaten = count(challenge < total)`), as written: the checker puts each one's
    # expression where it is named (bands, data, flags; the roll itself where it reads dice held by name only)
    roll_lets: tuple[Let, ...] = ()
    covers: bool = False  # the check proved that a band takes every result, for every input
    guards: tuple[Guarded, ...] = ()  # `when TEST:` effects every roll has where TEST holds, whatever its outcome

    def map_expressions(self, change: Callable[[Expr], Expr]) -> Resolver:
        """This resolver with `change` applied to every expression `expressions()` gives (and column data)."""
        def each(values: tuple[tuple[str, Expr], ...]) -> tuple[tuple[str, Expr], ...]:
            return tuple((name, change(value)) for name, value in values)

        def maybe(expr: Expr | None) -> Expr | None:
            return None if expr is None else change(expr)

        bands = tuple(replace(
            band, condition=When(change(band.condition.test), band.condition.span)
            if isinstance(band.condition, When) else band.condition,
            chain=None if band.chain is None else band.chain.map_expressions(change),
            values=each(band.values), column_values=tuple((c, each(v)) for c, v in band.column_values))
            for band in self.bands)
        return replace(
            self, lets=tuple(replace(let, expr=change(let.expr)) for let in self.lets),
            groups=tuple(replace(group, expr=change(group.expr)) for group in self.groups), flags=each(self.flags),
            dice=tuple(replace(rule, expr=change(rule.expr), when=maybe(rule.when)) for rule in self.dice),
            rerolls=tuple(replace(r, when=maybe(r.when)) for r in self.rerolls), key=maybe(self.key),
            value=maybe(self.value), zero_dice=maybe(self.zero_dice), column_by=maybe(self.column_by), bands=bands,
            columns=tuple(replace(c, values=each(c.values)) for c in self.columns),
            guards=tuple(replace(guard, test=change(guard.test)) for guard in self.guards))

    def expressions(self) -> Iterator[Expr]:
        """Every expression the resolver evaluates: lets, dice, key, value, band tests, chains and data."""
        yield from (let.expr for let in self.lets)
        yield from (group.expr for group in self.groups)
        for rule in self.dice:
            yield rule.expr
            if rule.when is not None:
                yield rule.when
        yield from (r.when for r in self.rerolls if r.when is not None)
        yield from (e for e in (self.key, self.value, self.zero_dice, self.column_by) if e is not None)
        for band in self.bands:
            if isinstance(band.condition, When):
                yield band.condition.test
            if band.chain is not None:
                yield from band.chain.expressions()
            yield from (value for _, value in band.values)
        yield from (test for _, test in self.flags)
        yield from (guard.test for guard in self.guards)


@dataclass(frozen=True, slots=True)
class ListEntry:
    """One entry of a list or a procedure, with its values and sub-entries."""

    id: str | None
    label: str | None
    text: str | None
    values: tuple[tuple[str, Expr], ...]
    children: tuple[ListEntry, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Document:
    """A list, a procedure or a text-only rule: rendered, not executed."""

    kind: Literal["list", "procedure", "rule", "bands", "priority", "condition", "resource"]
    name: str
    label: str
    citation: Citation | None
    section: str | None
    text: str | None
    entries: tuple[ListEntry, ...]
    details: tuple[tuple[str, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Track:
    """A track or clock: boxes or segments with a size, filled and cleared in play."""

    kind: Literal["track", "clock"]
    name: str
    label: str
    citation: Citation | None
    section: str | None
    text: str | None
    size: int | None
    start: int
    on_full: str | None
    roll_over: bool
    reset_on_full: bool
    details: tuple[tuple[str, Expr], ...]
    span: Span = _span()
    levels: tuple[tuple[int, str, int, str | None], ...] = ()  # (level, name, boxes, penalty): harm by level
    # (marker, "start" | "end"): pegs from both ends share the boxes; tokens from one end race
    markers: tuple[tuple[str, str], ...] = ()
    per_round: tuple[tuple[str, int], ...] = ()  # (marker, steps): how far a marker moves each round
    ticks: int | None = None  # `ticks: 4`: ticks one box holds (None: a box is marked whole)
    ranks: tuple[tuple[str, int], ...] = ()  # (rank, ticks): one mark of progress at each rank
    full_effects: tuple[Effect, ...] = ()  # `full:`: what filling it does (`-> crisis`, `clear stress`)
    marked_effects: tuple[Effect, ...] = ()  # `marked:`: what marking it does (`clear healing_clock`)
    level_notes: tuple[tuple[int, str, str], ...] = ()  # (level, name, text): a level's other lines, as written


@dataclass(frozen=True, slots=True)
class Face:
    """One symbol of a custom die: on `count` of its sides, worth `value` when summed."""

    id: str
    label: str
    count: int
    value: int
    values: tuple[tuple[str, Expr], ...]
    span: Span = _span()


DieStatus = Literal["known", "unknown", "placeholder"]


@dataclass(frozen=True, slots=True)
class CustomDie:
    """A die with symbols instead of numbers (`die attack`): faces known, unknown, or a placeholder."""

    name: str
    label: str
    citation: Citation | None
    section: str | None
    text: str | None
    sides: int
    faces: tuple[Face, ...]
    status: DieStatus
    details: tuple[tuple[str, Expr], ...]
    span: Span = _span()
    kind: Literal["die"] = "die"

    def symbols(self) -> tuple[str, ...]:
        """The symbol on each side, in declaration order."""
        return tuple(face.id for face in self.faces for _ in range(face.count))

    def side_values(self) -> tuple[int, ...]:
        return tuple(face.value for face in self.faces for _ in range(face.count))


@dataclass(frozen=True, slots=True)
class Card:
    """One card of a deck: `copies` of it, in pile `pile` (a chapter, say) when the deck has piles."""

    id: str
    label: str
    text: str | None
    copies: int
    pile: int | str | None
    values: tuple[tuple[str, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck of cards drawn without replacement (`deck sea_events`): cards known, unknown or a placeholder.

    `piles` names the card data that splits the deck (`piles: chapter`): one pile is in play
    at a time. `on_empty` is `reshuffle` (the discards become the deck) or `stop`.
    """

    name: str
    label: str
    citation: Citation | None
    section: str | None
    text: str | None
    cards: tuple[Card, ...]
    status: DieStatus
    piles: str | None
    on_empty: Literal["reshuffle", "stop"]
    details: tuple[tuple[str, Expr], ...]
    span: Span = _span()
    kind: Literal["deck"] = "deck"


Definition = Union[Resolver, Document, Track, CustomDie, Deck]


@dataclass(frozen=True, slots=True)
class AppliedErratum:
    """An errata entry as applied: its text, the defects it resolves and each fix in words."""

    id: str
    title: str
    citation: Citation | None
    text: str
    resolves: tuple[Resolves, ...]
    fixes: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CheckedRuleset:
    """What every backend reads: a ruleset with names resolved and errata applied."""

    id: str
    title: str
    source_path: str
    source_hash: str
    meta: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    definitions: tuple[Definition, ...]
    errata: tuple[AppliedErratum, ...]
    types: tuple[tuple[str, IntRange | Flag | Choice], ...]

    def get(self, name: str) -> Definition | None:
        return next((d for d in self.definitions if d.name == name), None)

    def resolvers(self) -> tuple[Resolver, ...]:
        return tuple(d for d in self.definitions if isinstance(d, Resolver))
