"""Expressions in the words a player reads: the sheets print these, never the language's notation.

`Words(names).expr(e)` sets an expression in words: names as the rules call them (a definition by its
label, an option by its label, any other name with its underscores as spaces), comparisons as "is at
least", caps as "at most 10", what a roll reads of its dice as "at least 2 dice show 6", `%` as "even"
or "the remainder of". Dice keep their notation (`3d6 keep highest 2`), which players read; a count
that is a value reads "as many d6 as rating". The export keeps each expression as written, with its
words beside it (`words`, `key_words`, ...), so that a program and the sheet read the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from .. import model as m
from ..semantics.runtime import OPERATORS

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "compare": 4, "+": 5, "-": 5, "*": 6, "×": 6, "/": 6, "%": 6}
_COMPARE = {"==": "is", "!=": "is not", ">=": "is at least", "<=": "is at most", ">": "is more than",
            "<": "is less than"}
_COUNTED = {">=": "at least {}", "<=": "at most {}", ">": "more than {}", "<": "fewer than {}", "==": "exactly {}",
            "!=": "other than {}"}  # how many dice: "at least 2 dice show 6"
_ARITHMETIC = {"+": "+", "-": "−", "*": "×", "×": "×", "/": "÷"}
_DIE_TEST_WORDS = {">=": "showing {} or more", "<=": "showing {} or less", ">": "above {}", "<": "below {}",
                   "==": "showing {}", "!=": "not showing {}"}  # the dice counted: "dice of pool showing 5 or more"
_DIE_VERB_WORDS = {">=": "shows {} or more", "<=": "shows {} or less", ">": "is above {}", "<": "is below {}",
                   "==": "shows {}", "!=": "does not show {}"}  # a test of them: "every die of challenge is below 7"
_TIMES = {1: "", 2: " twice", 3: " three times", 4: " four times"}


def humanize(name: str) -> str:
    """An identifier as words: `special_ability` is "special ability"."""
    return name.replace("_", " ")


def names_of(checked: m.CheckedRuleset) -> dict[str, str]:
    """What the sheet calls each definition an expression can name: its label. Other names (inputs, lets,
    groups of dice) are humanized where they are read, and an option by its label where its roll reads it
    (`Words.within`)."""
    return {d.name: d.label for d in checked.definitions}


def kinds_of(checked: m.CheckedRuleset) -> dict[str, str]:
    """The kind of each definition an effect can act on, by name (a clock's marks are segments, a track's
    boxes; a condition is cleared, not emptied)."""
    return {d.name: d.kind for d in checked.definitions if isinstance(d, (m.Track, m.Document, m.Resolver))}


def option_labels(resolver: m.Resolver) -> dict[str, str]:
    """The labels of the options of a roll's choice inputs: what its expressions call them."""
    return {o.name: o.label for item in resolver.inputs if isinstance(item.type, m.Choice)
            for o in item.type.options if o.label}


def number(expr: m.Expr) -> int | None:
    """A value written as a number (`10`, `-2`), else None."""
    if isinstance(expr, m.Number):
        return expr.value
    if isinstance(expr, m.Neg) and isinstance(expr.operand, m.Number):
        return -expr.operand.value
    return None


def _bound(expr: m.Expr) -> tuple[m.Expr, m.Expr | None, m.Expr | None] | None:
    """`min(x, 10)`, `max(x, 0)`, `clamp(x, 1, 10)`: (x, lowest, highest), a cap on one value; else None."""
    if not isinstance(expr, m.Call):
        return None
    if expr.function == "clamp" and len(expr.args) == 3:
        return expr.args[0], expr.args[1], expr.args[2]
    if expr.function in ("min", "max") and len(expr.args) >= 2:
        numbers = [a for a in expr.args if number(a) is not None]
        if len(numbers) == 1:
            rest = tuple(a for a in expr.args if a is not numbers[0])
            value = rest[0] if len(rest) == 1 else m.Call(expr.function, rest, expr.span)
            return (value, None, numbers[0]) if expr.function == "min" else (value, numbers[0], None)
    return None


def _tighter(old: m.Expr | None, new: m.Expr | None, pick: Callable[[int, int], int]) -> tuple[bool, m.Expr | None]:
    """Two caps on one side as one: (True, the tighter of two numbers); (False, None) where they cannot be."""
    if old is None or new is None:
        return True, new if old is None else old
    a, b = number(old), number(new)
    return (False, None) if a is None or b is None else (True, old if pick(a, b) == a else new)


class Words:
    """Sets expressions in words, naming things as `names` says (see `names_of`)."""

    def __init__(self, names: Mapping[str, str] | None = None, kinds: Mapping[str, str] | None = None) -> None:
        self.names = names or {}
        self.kinds = kinds or {}  # what an effect acts on, by name (see `kinds_of`)

    def name(self, name: str) -> str:
        return self.names.get(name) or humanize(name)

    def within(self, resolver: m.Resolver) -> Words:
        """These words inside one roll: its options by their labels too (one roll's option `failure` labelled
        "Sprint, phys Check failed" is not another's band `failure`)."""
        return Words({**self.names, **option_labels(resolver)}, self.kinds)

    def expr(self, expr: m.Expr, parent: int = 0) -> str:
        if isinstance(expr, m.Number):
            return str(expr.value).replace("-", "−")  # a minus sign, as the rest of the sheet's arithmetic
        if isinstance(expr, m.Text):
            return expr.value
        if isinstance(expr, m.Boolean):
            return "yes" if expr.value else "no"
        if isinstance(expr, m.Unknown):
            return "unknown"
        if isinstance(expr, m.Name):
            return self.name(expr.name)
        if isinstance(expr, m.Dice):  # "(3d6, keep the highest 2) + dots": its operators' words kept together
            kept = any(op.name in ("highest", "lowest") for op in expr.ops)
            return f"({self.dice(expr)})" if kept and parent else self.dice(expr)
        if isinstance(expr, m.DiceRead):
            return self.dice_read(expr)
        if isinstance(expr, m.Neg):
            return f"−{self.expr(expr.operand, 7)}"
        if isinstance(expr, m.Call):  # "(x, at most 10) + 2": a phrase with a comma kept together
            words = self.call(expr)
            return f"({words})" if parent and "," in words else words
        if isinstance(expr, m.Binary):
            if expr.op == "%":
                level, out = 6, f"the remainder of {self.expr(expr.left, 7)} ÷ {self.expr(expr.right, 7)}"
            elif (expr.op in ("*", "×", "/") and number(expr.right) == 1) or (
                    expr.op in ("+", "-") and number(expr.right) == 0):  # `wil * 1`, `price + 0`: "wil", "price"
                return self.expr(expr.left, parent)
            elif expr.op in ("+", "-") and (number(expr.right) or 0) < 0:  # `price + -2`: "price − 2"
                negated = m.Number(-(number(expr.right) or 0), expr.right.span)
                return self.expr(m.Binary("-" if expr.op == "+" else "+", expr.left, negated, expr.span), parent)
            else:
                level = _PRECEDENCE[expr.op]
                out = f"{self.expr(expr.left, level)} {_ARITHMETIC[expr.op]} {self.expr(expr.right, level + 1)}"
        elif isinstance(expr, m.Not):
            level, out = _PRECEDENCE["not"], f"not {self.expr(expr.operand, _PRECEDENCE['not'])}"
        elif isinstance(expr, m.Logic):
            level = _PRECEDENCE[expr.op]
            out = self.one_subject(expr) or f" {expr.op} ".join(self.expr(o, level + 1) for o in expr.operands)
        elif isinstance(expr, m.Compare):
            level, out = _PRECEDENCE["compare"], self.compare(expr)
        elif isinstance(expr, m.IfElse):
            level = 0
            out = f"{self.expr(expr.then, 1)} if {self.expr(expr.condition, 1)}, else {self.expr(expr.otherwise, 1)}"
        else:
            raise TypeError(f"Words has no rule for {type(expr).__name__} nodes")
        return f"({out})" if level < parent else out

    def one_subject(self, expr: m.Logic) -> str | None:
        """Comparisons of one value joined: "total is more than dv and less than attribute", not "total is more
        than dv and total is less than attribute"; None where the operands are not all plain comparisons of one
        value ("total is even" and "at least 2 dice show 6" are phrases of their own)."""
        tests = [t for t in expr.operands if isinstance(t, m.Compare)]
        if len(tests) < len(expr.operands) or len({m.expr_text(t.left) for t in tests}) > 1:
            return None
        subject = self.expr(tests[0].left, 5)
        parts = [f"{_COMPARE[t.op]} {self.expr(t.right, 5)}" for t in tests]
        if any(self.compare(t) != f"{subject} {part}" for t, part in zip(tests, parts, strict=True)):
            return None
        return f"{subject} " + f" {expr.op} ".join(part if i == 0 else part.removeprefix("is ")
                                                  for i, part in enumerate(parts))

    def compare(self, expr: m.Compare) -> str:
        left, right = expr.left, expr.right
        parity = number(right)
        if isinstance(left, m.Binary) and left.op == "%" and number(left.right) == 2 and parity in (0, 1) and \
                expr.op in ("==", "!="):  # `total % 2 = 0`: "total is even"
            even = (parity == 0) == (expr.op == "==")
            return f"{self.expr(left.left, 5)} is {'even' if even else 'odd'}"
        if isinstance(left, m.Call) and left.function == "count" and len(left.args) == 1:  # dice showing a face
            how_many = _COUNTED[expr.op].format(self.expr(right, 5))
            return f"{how_many} {'die shows' if number(right) == 1 and expr.op == '==' else 'dice show'} " \
                   f"{self.expr(left.args[0], 5)}"
        return f"{self.expr(left, 5)} {_COMPARE[expr.op]} {self.expr(right, 5)}"

    def call(self, expr: m.Call) -> str:
        args = [self.expr(a, 5) for a in expr.args]
        if expr.function in ("min", "max", "clamp"):
            return self.capped(expr)
        if expr.function == "count" and len(args) == 1:  # a count, as a pool's players say it: "dice showing hit"
            return f"dice showing {args[0]}"
        if expr.function == "abs" and len(args) == 1:
            return f"the size of {args[0]}"
        if expr.function == "sign" and len(args) == 1:
            return f"the sign of {args[0]} (+1 or −1)"
        if expr.function == "step" and len(args) == 2:
            return f"{args[0]} moved {args[1]} steps along the ladder"
        if expr.function == "row" and len(args) == 2:
            return f"the harms at level {args[1]} of {args[0]}"
        if expr.function == "rank" and len(args) == 1:
            return f"the rank of {args[0]}"
        return f"{humanize(expr.function)} of {', '.join(args)}"

    def capped(self, expr: m.Expr) -> str:
        """A value with caps: `min(stat + bonus, 10)` is "stat + bonus, at most 10", `max(x, 0)` "x, at least
        0", `clamp(x, 1, 10)` "x, from 1 to 10", `min(a, b)` "the lower of a and b"; nested caps read as one."""
        value, low, high = expr, None, None
        while (bound := _bound(value)) is not None:
            (joined_low, lower), (joined_high, upper) = _tighter(low, bound[1], max), _tighter(high, bound[2], min)
            if not (joined_low and joined_high):
                break
            value, low, high = bound[0], lower, upper
        if isinstance(value, m.Call) and value.function in ("min", "max") and len(value.args) >= 2:
            names = [self.expr(a, 5) for a in value.args]
            most = ("lower" if value.function == "min" else "higher") if len(names) == 2 else \
                ("lowest" if value.function == "min" else "highest")
            text = f"the {most} of {', '.join(names[:-1])} and {names[-1]}"
        else:
            text = self.expr(value, 5)
        if low is not None and high is not None:
            return f"{text}, from {self.expr(low, 5)} to {self.expr(high, 5)}"
        if high is not None:
            return f"{text}, at most {self.expr(high, 5)}"
        if low is not None:
            return f"{text}, at least {self.expr(low, 5)}"
        return text

    def dice(self, dice: m.Dice) -> str:
        """Dice keep their notation where it is all numbers (`3d6 keep highest 2`); a count or a size that is a
        value reads in words: `(rating)d6` "as many d6 as rating", `d(weapon)` "the weapon die", `2d(mine)
        highest` "2 mine dice, keep the highest"."""
        ops = "".join(self.operator(op) for op in dice.ops)
        if number(dice.count) is not None and (dice.sides is None or number(dice.sides) is not None):
            return m.dice_text(replace(dice, ops=())) + ops
        count = number(dice.count)
        if dice.die is not None:  # a custom die by its name: "as many Attack dice as hits"
            one = self.name(dice.die)
            many = one[:-3] + "dice" if one.endswith("die") else f"{one} dice"
        elif dice.sides is None:
            one, many = "die", "dice"
        elif number(dice.sides) is not None:
            one = many = f"d{number(dice.sides)}"
        elif isinstance(dice.sides, m.Name):  # a die an input names (`input weapon: ladder`): "the weapon die"
            named = self.name(dice.sides.name).removesuffix("die").strip()
            one, many = (f"the {named} die", f"{named} dice") if named else ("the die", "dice")
        else:
            one, many = f"a die of {self.expr(dice.sides, 5)}", f"dice of {self.expr(dice.sides, 5)}"
        if count == 1:
            return f"{one}{ops}"
        if count is not None:
            return f"{count} {many}{ops}"
        return f"as many {many} as {self.expr(dice.count, 5)}{ops}"

    @staticmethod
    def operator(op: m.DiceOp) -> str:
        """An operator after dice in words: `highest` ", keep the highest", `keep lowest 2` ", keep the lowest
        2"; the others in their notation (`!`, `reroll 1-2`), which the sheet's notes explain."""
        if op.name in ("highest", "lowest"):
            return f", keep the {op.name}" + ("" if op.arg == 1 else f" {op.arg}")
        return OPERATORS[op.name].notation(op.arg)

    def dice_read(self, read: m.DiceRead) -> str:
        """`count(pool >= 5)`: "dice of pool showing 5 or more"; `all(challenge < total)`: "every die of
        challenge is below total"; `doubles(challenge)`: "doubles on challenge"."""
        group = self.name(read.group)
        if read.operand is None:
            return {"doubles": f"doubles on {group}", "matches": f"the most matching dice of {group}",
                    "highest": f"the highest die of {group}", "lowest": f"the lowest die of {group}"}[read.function]
        test = (_DIE_TEST_WORDS if read.function == "count" else _DIE_VERB_WORDS)[read.op or "=="].format(
            self.expr(read.operand, 5))
        return {"count": "dice", "all": "every die", "any": "a die", "none": "no die"}[read.function] + (
            f" of {group} {test}")

    def effect(self, effect: m.Effect) -> str:
        """An effect in words: "mark 2 segments of Danger", "mark Harm at level 1", "mark 2 boxes of Health/Strain
        track (strain)" (`by strain`: the marker it moves), "clear Stress", "spend 1 Coin", "now Hunted", "no longer
        Hunted", "+1 to dots of the next Act", "roll Trouble" (a clock's marks are segments, a track's boxes:
        `kinds`)."""
        kind = self.kinds.get(effect.target or "")
        target = self.name(effect.target) if effect.target else ""
        amount = self.expr(effect.amount, 5) if effect.amount is not None else None
        one = number(effect.amount) == 1 if effect.amount is not None else True
        unit = ("segment" if one else "segments") if kind == "clock" else ("box" if one else "boxes")
        if effect.verb == "roll" and effect.chain is not None:
            return self.chain(effect.chain)
        if effect.verb == "mark" and effect.level is not None:
            times = "" if amount is None or one else f" {amount} times"
            return f"mark {target} at level {self.expr(effect.level, 5)}{times}"
        if effect.verb == "mark":  # `by strain`: the marker of a track with markers it moves, in brackets
            marker = f" ({humanize(effect.marker)})" if effect.marker is not None else ""
            return f"mark {amount or 1} {unit} of {target}{marker}"
        if effect.verb == "clear" and kind == "condition":
            return f"no longer {target}"
        if effect.verb == "clear" and kind == "resource":
            return f"clear {target}" if amount is None else f"spend {amount} {target}"
        if effect.verb == "clear":
            return f"clear {target}" if amount is None else f"clear {amount} {unit} of {target}"
        if effect.verb in ("gain", "spend"):
            return f"{effect.verb} {amount} {target}"
        if effect.verb == "set" and amount is not None:
            return f"{target} to {amount}"
        if effect.verb == "set":
            return f"now {target}"
        signed = amount if amount is None or amount.startswith(("−", "-")) else f"+{amount}"
        return f"{signed} to {humanize(effect.input or '')} of the next {target}"

    def chain(self, chain: m.Chain) -> str:
        """`-> weather, encounters x2` on the sheet: "roll Weather, then Encounters twice"."""
        def table(expr: m.Expr) -> str:
            if isinstance(expr, m.IfElse):
                return f"{table(expr.then)} if {self.expr(expr.condition, 1)}, else {table(expr.otherwise)}"
            return self.expr(expr)

        def times(expr: m.Expr | None) -> str:
            if expr is None:
                return ""
            if isinstance(expr, m.Number):
                return _TIMES.get(expr.value, f" {expr.value} times")
            return f" {self.expr(expr, 5)} times"

        return "roll " + ", then ".join(table(link.target) + times(link.times) for link in chain.links)

