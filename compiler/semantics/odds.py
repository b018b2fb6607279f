"""Odds: exact distributions of every resolver, read from the checked model.

For given inputs a resolver's dice expression becomes a *plan* (which dice
terms are rolled, how many, how read); each group of the plan becomes its
distinct readings (runtime.dice_readings, keeping apart only what the bands
read), and each joint reading is classified into a band. The result is exact:
`Fraction`s that sum to 1.

The design check asks for every combination of a roll's inputs, so work is
shared wherever the inputs agree on what it reads. A distribution is kept by
the values of every name the roll reads; what is rolled (the plan, and the
weight of each total when the bands read nothing else of the roll) by the names
the dice rules read; what the dice part makes before amounts that roll no dice
are added (`2d6 + dots`) by the names that part reads. A roll's `when` bands
are tested on each of its distinct totals once.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import TypeVar, cast

from .. import model as m
from .evaluate import (
    DIE_OPERATORS,
    MAX_VALUE,
    ROLL_NAMES,
    Compiled,
    EvalError,
    OptionValue,
    Reads,
    RollFacts,
    Scope,
    TableRef,
    TooLarge,
    Value,
    as_number,
    bands_read,
    children,
    compiled,
    contains_dice,
    dice_symbols,
    evaluate,
    group_reads,
    signed_parts,
    too_big,
    truthy,
    walk,
)
from .runtime import (
    MAX_DICE,
    MAX_OUTCOMES,
    MAX_READINGS,
    MAX_SIDES,
    MAX_WORK,
    DiceSpec,
    Faces,
    Held,
    Reading,
    Tally,
    TooManyReadings,
    _dice,
    chain_weights,
    combined_readings,
    count_text,
    held_readings,
    readings_cost,
    reroll_weights,
    spec_readings,
    work_refusal,
)

MAX_GRID = 20_000  # input combinations of one roll the design check analyses
MAX_ANALYSIS = 1_500_000  # steps of the design check's exact odds over a whole ruleset (Budget): about 0.6 s
MAX_SHEET_ODDS = 50_000  # odds printed on one sheet (rows x outcomes, over every roll)


@dataclass(frozen=True, slots=True)
class GroupPlan:
    """One group of dice a roll throws for given inputs: its node, and the spec it rolls."""

    term: m.Dice
    spec: DiceSpec
    zero: bool = False  # rolled by the `zero_dice` rule, for a pool of no dice


@dataclass(frozen=True, slots=True)
class Plan:
    expr: m.Expr
    groups: tuple[GroupPlan, ...]


_Key = TypeVar("_Key")


@dataclass
class Distribution:
    """Exact odds of one resolver for one set of inputs: whole-number weights over one denominator.

    The design check reads the weights (which outcomes and totals can happen at all); the
    fractions are made the first time someone asks for them (the sheets, `odds`).
    """

    outcome_weights: dict[str, int] = field(default_factory=dict)
    total_weights: dict[int | str, int] = field(default_factory=dict)
    unmatched_weights: dict[int | str, int] = field(default_factory=dict)  # totals no band takes
    denominator: int = 1
    overlaps: dict[int | str, tuple[str, ...]] = field(default_factory=dict)
    # each flag's weight with each outcome (None: no band) it is raised with
    flag_weights: dict[str, dict[str | None, int]] = field(default_factory=dict)

    @cached_property
    def flags(self) -> dict[str, Fraction]:
        """The chance each flag is raised, whatever the outcome."""
        return {name: Fraction(sum(by_band.values()), self.denominator) for name, by_band in self.flag_weights.items()}

    @cached_property
    def outcomes(self) -> dict[str, Fraction]:
        return self._fractions(self.outcome_weights)

    @cached_property
    def totals(self) -> dict[int | str, Fraction]:
        return self._fractions(self.total_weights)

    @cached_property
    def unmatched(self) -> dict[int | str, Fraction]:
        return self._fractions(self.unmatched_weights)

    def _fractions(self, weights: dict[_Key, int]) -> dict[_Key, Fraction]:
        return {k: Fraction(w, self.denominator) for k, w in weights.items()}


class PlanError(EvalError):
    pass


@dataclass
class Budget:
    """Work the design check may do, shared by every roll of a ruleset, in steps of about 0.4 microseconds:
    working out each distinct dice group's readings (runtime.readings_cost, charged once per check), and
    reading them into bands (readings x bands; a reading tested on its own, when the bands read more than
    the total or test it with `when`, counts CLASSIFIED steps). Charged before the work, so a refusal costs
    no time."""

    total: int = MAX_ANALYSIS
    spent: int = 0
    charged: set[object] = field(default_factory=set)  # groups whose readings are paid for, rolls whose totals are

    @property
    def exhausted(self) -> bool:
        return self.spent > self.total

    def spend(self, amount: int, resolver: m.Resolver) -> None:
        self.spent += amount
        if self.exhausted:
            raise TooLarge(f"checking the exact odds of this ruleset takes more than {self.total:,} steps (working "
                           "out dice readings, then reading them into bands, for every input of every roll); the "
                           "limit is reached here",
                           resolver.span, "use fewer dice or narrower inputs, or split the game into rulesets")

    def readings(self, costs: tuple[tuple[DiceSpec, Reads, int], ...], resolver: m.Resolver) -> None:
        """Pay for the readings of each group not paid for yet (the same dice, read alike, are worked out once)."""
        for spec, wanted, cost in costs:
            self.once((spec, wanted), cost, resolver)

    def once(self, key: object, cost: int, resolver: m.Resolver) -> None:
        """Pay `cost` for work done once for `key` (a group's readings; a roll's totals, from its joint readings)."""
        if key not in self.charged:
            self.charged.add(key)
            self.spend(cost, resolver)


CLASSIFIED = 4  # steps of one reading x band tested on its own (measured: 2.5-7x a plain total's)


# ---------------------------------------------------------------- inputs


def input_grid(resolver: m.Resolver, limit: int = MAX_GRID) -> Iterator[dict[str, object]]:
    """Every combination of input values, in declaration order (empty grid: one empty dict)."""
    count = grid_size(resolver)
    if count > limit:
        raise TooLarge(f"`{resolver.name}` has {count:,} input combinations to check; the limit is {limit:,}",
                       resolver.span, "narrow the inputs' ranges (the check works out the odds of each combination)")
    names = [item.name for item in resolver.inputs]
    for combo in itertools.product(*(input_values(item.type) for item in resolver.inputs)):
        yield dict(zip(names, combo, strict=True))


def input_count(spec: m.IntRange | m.Flag | m.Choice) -> int:
    """How many values an input takes (counted, not listed: a range may be huge)."""
    if isinstance(spec, m.IntRange):
        return max(spec.high - spec.low + 1, 0)
    return 2 if isinstance(spec, m.Flag) else len(spec.options)


def grid_size(resolver: m.Resolver) -> int:
    return math.prod(max(input_count(item.type), 1) for item in resolver.inputs)


def sheet_axis(resolver: m.Resolver) -> m.ResolvedInput | None:
    """The input the sheet's odds table runs along: the first number, else the first flag or choice."""
    return next((i for i in resolver.inputs if isinstance(i.type, m.IntRange)),
                next((i for i in resolver.inputs if isinstance(i.type, (m.Flag, m.Choice))), None))


def sheet_odds_size(resolver: m.Resolver) -> int:
    """How many odds the sheet prints for a roll: one per band for each value of its axis."""
    if not resolver.dice or not resolver.bands:
        return 0
    axis = sheet_axis(resolver)
    return (input_count(axis.type) if axis is not None else 1) * len(resolver.bands)


def input_values(spec: m.IntRange | m.Flag | m.Choice) -> list[object]:
    if isinstance(spec, m.IntRange):
        return list(range(spec.low, spec.high + 1))
    if isinstance(spec, m.Flag):
        return [False, True]
    return [option.name for option in spec.options]


def defaults(resolver: m.Resolver) -> dict[str, object]:
    """The inputs that have a default (required inputs are left out)."""
    return {i.name: i.effective_default for i in resolver.inputs if i.effective_default is not None}


def make_scope(resolver: m.Resolver, inputs: Mapping[str, object], definitions: frozenset[str]) -> Scope:
    """Inputs (already validated) and lets as a scope; choice inputs become OptionValues."""
    found = analysis(resolver)
    values: dict[str, Value] = {name: inputs[name] for name in found.inputs}  # type: ignore[misc]
    for name, options in found.choices.items():
        raw = str(values[name])
        values[name] = options.get(raw) or OptionValue(raw, None)
    scope = Scope(values, found.options, definitions, orders=found.orders, symbols=found.symbols)
    for name, let in found.lets:
        values[name] = let(scope, None)
    return scope


# ---------------------------------------------------------------- plans


def select_dice(resolver: m.Resolver, scope: Scope) -> m.Expr:
    chosen = None
    for rule in resolver.dice:
        if rule.when is None:
            if chosen is None:
                chosen = rule.expr
        elif truthy(evaluate(rule.when, scope), rule.when.span):
            return rule.expr
    if chosen is None:
        raise PlanError(f"{resolver.name} has no dice for these inputs", resolver.span)
    return chosen


def make_plan(resolver: m.Resolver, scope: Scope) -> Plan:
    expr = select_dice(resolver, scope)
    groups = [group_plan(_named_dice(g), scope, resolver) for g in resolver.groups]  # named groups come first
    collect_groups(expr, scope, resolver, groups)
    return Plan(expr, tuple(groups))


def _named_dice(group: m.Let) -> m.Dice:
    assert isinstance(group.expr, m.Dice), "the check holds a named group to one dice term"
    return group.expr


def collect_groups(expr: m.Expr, scope: Scope, resolver: m.Resolver, out: list[GroupPlan]) -> None:
    if isinstance(expr, m.Dice):
        out.append(group_plan(expr, scope, resolver))
        return
    if isinstance(expr, m.IfElse) and (contains_dice(expr.then) or contains_dice(expr.otherwise)):
        # the test chooses the dice (`2d6 if edge else 3d6`), so it reads the inputs; a test between values (`4 if
        # count(pool = 6) >= 2 else 1`) may read the roll, and is worked out with it
        branch = expr.then if truthy(evaluate(expr.condition, scope), expr.span) else expr.otherwise
        collect_groups(branch, scope, resolver, out)
        return
    for child in children(expr):
        collect_groups(child, scope, resolver, out)


def group_plan(term: m.Dice, scope: Scope, resolver: m.Resolver) -> GroupPlan:
    """The spec `term` rolls in this scope, within the caps (a pool of no dice rolls `zero_dice`, if given)."""
    count = as_number(evaluate(term.count, scope), term.count.span)
    if term.die is not None and not term.faces:
        raise PlanError(f"the faces of the die `{term.die}` are to be supplied", term.span)
    ops = tuple((op.name, op.arg) for op in term.ops)
    keeps = [name for name, _ in ops if name in ("highest", "lowest")]
    if count <= 0 and term.die is None:
        if resolver.zero_dice is not None:
            zero = resolver.zero_dice
            if not isinstance(zero, m.Dice) or not isinstance(zero.count, m.Number) or zero.count.value < 1:
                raise PlanError("zero_dice must be one dice term, like `2d6 lowest`", zero.span)
            return GroupPlan(term, group_plan(zero, scope, resolver).spec, True)
        if keeps:
            raise PlanError(f"a pool of {count} dice has no {keeps[0]} die, and no zero_dice rule says what "
                            "to roll instead", term.span)
    if count > MAX_DICE:
        raise TooLarge(f"{m.expr_text(term)} rolls {count:,} dice; the limit is {MAX_DICE:,}", term.span,
                       "roll fewer dice (narrow the input that sets how many)")
    if term.die is not None:
        return GroupPlan(term, _dice(count, len(term.faces), ops, Faces(term.die, term.faces, term.values)))
    assert term.sides is not None
    sides = as_number(evaluate(term.sides, scope), term.sides.span)
    if sides > MAX_SIDES:
        raise TooLarge(f"{m.expr_text(term)} rolls a die of {sides:,} sides; the limit is {MAX_SIDES:,}", term.span,
                       "give the die fewer sides")
    if sides < 1:
        raise PlanError(f"a die has 1 to {MAX_SIDES:,} sides, not {sides}", term.span)
    cap = None if term.cap is None else as_number(evaluate(term.cap, scope), term.cap.span)
    return GroupPlan(term, _dice(count, sides, ops, None, cap))


# ---------------------------------------------------------------- bands


def classify(resolver: m.Resolver, scope: Scope, value: Value) -> tuple[m.Band | None, tuple[m.Band, ...]]:
    """The band `value` lands in, and every plain band that contains it (for overlap checks).

    `natural` and `when` bands come first, in order; then the first range or option that holds
    the value (worked out once per value: ranges do not depend on the inputs); then `otherwise`.
    """
    return _classify(analysis(resolver), resolver, scope, value)


def _classify(found: Analysis, resolver: m.Resolver, scope: Scope,
              value: Value) -> tuple[m.Band | None, tuple[m.Band, ...]]:
    facts = scope.facts
    for band, natural, test, span in found.specials:
        if test is None:
            if facts is not None and facts.natural == natural:
                return band, ()
        elif truthy(test(scope, None), span):
            return band, ()
    return _plain(found, resolver, value)


def _plain(found: Analysis, resolver: m.Resolver, value: Value) -> tuple[m.Band | None, tuple[m.Band, ...]]:
    """The first range or option band that holds `value`, and all that do; else `otherwise`."""
    key = (value.__class__, value)
    plain = found.plain.get(key)
    if plain is None:
        bands = resolver.bands
        if type(value) is int:  # only ranges take a number: those whose intervals hold it, and the wide ones
            narrow, wide = found.ranges
            candidates = sorted({*narrow.get(value, ()), *wide})
            matches = tuple(bands[i] for i in candidates if plain_match(bands[i].condition, value))
        else:
            matches = tuple(band for band in bands if plain_match(band.condition, value))
        plain = (matches[0], matches) if matches else (found.otherwise, ())
        found.plain[key] = plain
    return plain


def plain_column(found: Analysis, resolver: m.Resolver,
                 totals: tuple[int, ...]) -> list[tuple[m.Band | None, tuple[m.Band, ...]]]:
    """`_plain` of each of `totals`, kept by the totals: every input that rolls alike reads the same column."""
    column = found.columns.get(totals)
    if column is None:
        column = found.columns[totals] = [_plain(found, resolver, total) for total in totals]
    return column


def plain_match(condition: m.Condition, value: Value) -> bool:
    if isinstance(condition, m.Ranges):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, OptionValue) and value.number is not None:
                return condition.contains(value.number)
            return False
        return condition.contains(value)
    if isinstance(condition, m.OptionKey):
        if isinstance(value, OptionValue):
            return value.name == condition.name
        if isinstance(value, bool):  # a yes/no key: rows `yes` and `no`
            return condition.name == ("yes" if value else "no")
        return value == condition.name
    return False


# ---------------------------------------------------------------- distributions


Special = tuple[m.Band, "int | None", "Compiled | None", m.Span]  # a `natural N` or `when` band, in order
LetMemo = tuple[Callable[[Mapping[str, object]], object], dict[tuple[object, ...], object]]  # a let's reads, values


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the odds stage needs to know of a resolver once, however many inputs it works through."""

    reads: Reads
    flags: tuple[tuple[str, Compiled, m.Span], ...]  # each flag's name and test
    dependent: tuple[Dependent, ...]  # named groups read only by tests against the total (`dependent_group`)
    group_reads: tuple[Reads, ...]  # what is read of each named group (`evaluate.group_reads`)
    symbols: frozenset[str]
    specials: tuple[Special, ...]
    otherwise: m.Band | None
    dice_read_roll: bool  # a dice expression reads the roll itself (`count()`, `highest`...)
    inputs: tuple[str, ...]
    choices: dict[str, dict[str, OptionValue]]  # each choice input's options by name
    options: dict[str, OptionValue]  # every option name in scope (the first input's wins)
    orders: dict[str, tuple[OptionValue, ...]]  # each choice input's options in order (`step`, `rank`)
    lets: tuple[tuple[str, Compiled], ...]
    let_memos: tuple[LetMemo, ...]  # each let's, in order (let_memos)
    # Of the names the dice, bands and re-rolls read, the inputs' and lets' values decide the odds: the key
    read_inputs: Callable[[Mapping[str, object]], object]  # the values of those inputs
    read_lets: tuple[str, ...]  # those lets, whose values complete the key
    dice_names: tuple[str, ...]  # every name the dice rules read: their values decide what is rolled
    by_total: bool  # the bands read the roll through its total alone (no `natural`, `count()`, `highest`...)
    plain: dict[tuple[type, Value], tuple[m.Band | None, tuple[m.Band, ...]]]  # filled as values come
    # the range bands (by index) that hold each number of their narrow intervals, and those with wide ones
    ranges: tuple[dict[int, tuple[int, ...]], tuple[int, ...]]
    columns: dict[tuple[int, ...], list[tuple[m.Band | None, tuple[m.Band, ...]]]]  # plain_column's, by totals
    known: dict[tuple[object, ...], Distribution]  # odds already worked out, by the values of `names`
    rolls: dict[tuple[object, ...], Roll]  # what is rolled, by the values of `dice_names` (shared: _ROLLS)
    splits: dict[int, Split]  # each dice rule's expression as its dice part and its shifts, by id
    cores: dict[tuple[object, ...], dict[int, int]]  # the weights of what a dice part makes, by its dice and names


_ANALYSES: dict[int, tuple[m.Resolver, Analysis]] = {}
_ROLLS: dict[tuple[object, ...], dict[tuple[object, ...], Roll]] = {}


Dependent = tuple[int, str, tuple[tuple[str, Compiled, m.Span], ...], dict[object, tuple[tuple[Held, int], ...]]]


def dependent_group(resolver: m.Resolver, index: int, group: m.Let, base: Reads) -> Dependent | None:
    """A named group the bands read only die by die against what the rest of the roll makes, like Ironsworn's
    challenge dice (`all(challenge < total)`): its faces then read alike but for the tests' values, so for each
    reading of the rest of the roll its readings are those of the faces each test passes, worked out once for
    each pattern of faces passing (2d10 against a total: 3 readings, not 55). None for any other group:
    one whose value or faces anything else reads, with operators, of symbols, or tests of fixed numbers (those
    are merged once, `evaluate.group_reads`). Gives (its index, name, tests, and its readings by pattern)."""
    term = group.expr
    if not isinstance(term, m.Dice) or term.ops or term.die is not None or base.counted or base.high or base.low:
        return None
    reads = [n for e in resolver.expressions() for n in walk(e) if isinstance(n, m.DiceRead) and n.group == group.name]
    if not reads or any(r.op is None or r.operand is None for r in reads) or all(
            isinstance(r.operand, m.Number) for r in reads) or any(isinstance(b.condition, m.Natural)
                                                                   for b in resolver.bands):
        return None
    rules = [r.expr for r in resolver.dice] + [r.when for r in resolver.dice if r.when is not None]
    for node in (n for e in resolver.expressions() for n in walk(e)):
        if isinstance(node, m.Name) and node.name in (group.name, "natural"):
            return None  # its value is read
    for node in (n for e in rules for n in walk(e)):
        if isinstance(node, m.DiceRead) and node.group == group.name:
            return None  # the total reads it
    tests: list[tuple[str, Compiled, m.Span]] = []
    for read in reads:
        assert read.op is not None and read.operand is not None
        if any(isinstance(n, (m.DiceRead, m.Dice)) or (isinstance(n, m.Call) and n.function == "count")
               or (isinstance(n, m.Name) and n.name in ROLL_NAMES - {"total"}) for n in walk(read.operand)):
            return None  # a test's value reads the dice some other way than by the total
        tests.append((read.op, compiled(read.operand), read.operand.span))
    return index, group.name, tuple(tests), {}


def dependent_readings(group: Dependent, spec: DiceSpec, scope: Scope) -> tuple[tuple[Held, int], ...]:
    """A dependent group's readings for the values its tests read in `scope` (the rest of the roll's), each a
    `Held` of the faces it shows by class (a class: the faces every test passes or fails alike) and its weight."""
    _, _, tests, known = group
    values = []
    for _, operand, span in tests:
        value = operand(scope, None)
        values.append(value if type(value) is int else as_number(value, span))
    classes: dict[tuple[bool, ...], list[int]] = {}
    for face in range(1, spec.sides + 1):
        classes.setdefault(tuple(DIE_OPERATORS[op](face, v) for (op, _, _), v in zip(tests, values, strict=True)),
                           []).append(face)
    passing = tuple(tuple(faces) for signature, faces in classes.items() if any(signature))
    key = (spec, passing)
    found = known.get(key)
    if found is None:
        counted = frozenset(face for faces in passing for face in faces)
        readings, _ = spec_readings(spec, counted, False, False, False, tuple(f for f in passing if len(f) > 1))
        count = max(spec.count, 0)
        found = known[key] = tuple((Held(0, shown, count), weight)  # type: ignore[arg-type]  # numbered faces
                                   for _, shown, _, _, weight in readings)
    return found


NARROW = 1_000  # the widest interval `range_index` lists value by value


def range_index(resolver: m.Resolver) -> tuple[dict[int, tuple[int, ...]], tuple[int, ...]]:
    """Each number the bands' narrow intervals hold, with the range bands (by index) that hold it, and the
    bands with a wide or open-ended interval: `_plain` tests only those, not every band, for each total
    (80 single-value bands over 76 totals were 6,080 tests a call)."""
    narrow: dict[int, list[int]] = {}
    wide: list[int] = []
    for index, band in enumerate(resolver.bands):
        if not isinstance(band.condition, m.Ranges):
            continue
        for part in band.condition.parts:
            if part.low is None or part.high is None or part.high - part.low > NARROW:
                wide.append(index)
                break
        else:
            for part in band.condition.parts:
                assert part.low is not None and part.high is not None
                for value in range(part.low, part.high + 1):
                    narrow.setdefault(value, []).append(index)
    return {value: tuple(indices) for value, indices in narrow.items()}, tuple(wide)


def let_memos(resolver: m.Resolver) -> tuple[LetMemo, ...]:
    """For each let, a getter of the input values it reads (directly or through earlier lets), and its memo."""
    inputs = {item.name for item in resolver.inputs}
    reads: dict[str, frozenset[str]] = {}
    out: list[LetMemo] = []
    for let in resolver.lets:
        read: set[str] = set()
        for node in walk(let.expr):
            if isinstance(node, m.Name):
                if node.name in reads:
                    read |= reads[node.name]
                elif node.name in inputs:
                    read.add(node.name)
        reads[let.name] = frozenset(read)
        names = sorted(read)
        out.append((reader(names), {}))
    return tuple(out)


def reader(names: Iterable[str]) -> Callable[[Mapping[str, object]], object]:
    """A getter of the values of `names` in a mapping (`()` for no name, the value alone for one)."""
    named = tuple(names)
    return operator.itemgetter(*named) if named else _nothing


def _nothing(inputs: Mapping[str, object]) -> tuple[()]:
    return ()


def analysis(resolver: m.Resolver) -> Analysis:
    found = _ANALYSES.get(id(resolver))
    if found is not None and found[0] is resolver:
        return found[1]
    dice_exprs: list[m.Expr] = [rule.expr for rule in resolver.dice] + [g.expr for g in resolver.groups]
    if resolver.zero_dice is not None:
        dice_exprs.append(resolver.zero_dice)
    exprs = dice_exprs + [b.condition.test for b in resolver.bands if isinstance(b.condition, m.When)]
    deciding = exprs + [rule.when for rule in resolver.dice if rule.when is not None]
    deciding += [e for e in (resolver.key, resolver.value) if e is not None]
    deciding += [r.when for r in resolver.rerolls if r.when is not None]
    deciding += [test for _, test in resolver.flags]
    nodes = {id(e): walk(e) for e in deciding}  # each expression walked once
    symbols = dice_symbols(resolver)

    def named(expressions: list[m.Expr]) -> set[str]:
        return {n.name for e in expressions for n in nodes[id(e)] if isinstance(n, m.Name)}

    def reads_roll(expressions: list[m.Expr], but: str = "") -> bool:  # a roll name (save `but`), or count()
        return any((isinstance(n, m.Name) and n.name in ROLL_NAMES and n.name != but) or
                   (isinstance(n, m.Call) and n.function == "count") for e in expressions for n in nodes[id(e)])

    rules = dice_exprs + [rule.when for rule in resolver.dice if rule.when is not None]
    tests = [b.condition.test for b in resolver.bands if isinstance(b.condition, m.When)]
    dice_read_roll = reads_roll(dice_exprs) or bool(resolver.groups)  # a named group is read from the roll
    by_total = not (dice_read_roll or bool(resolver.flags) or reads_roll(rules + tests, but="total") or
                    any(isinstance(b.condition, m.Natural) for b in resolver.bands))
    specials: list[Special] = []
    for band in resolver.bands:
        if isinstance(band.condition, m.Natural):
            specials.append((band, band.condition.value, None, band.condition.span))
        elif isinstance(band.condition, m.When):
            specials.append((band, None, compiled(band.condition.test), band.condition.span))
    orders = {i.name: tuple(OptionValue(o.name, o.value) for o in i.type.options)
              for i in resolver.inputs if isinstance(i.type, m.Choice)}
    options: dict[str, OptionValue] = {}
    for order in orders.values():
        for option in order:
            options.setdefault(option.name, option)
    found_reads = bands_read(resolver)
    # Of the names read, only inputs and lets change from one set of inputs to the next (the roll's own
    # names, options and definitions do not), so their values alone key the odds.
    deciding_names = tuple(sorted(named(deciding)))
    input_names = {i.name for i in resolver.inputs}
    let_names = {let.name for let in resolver.lets}
    # Rolls are shared by every resolver that rolls alike (the same dice rules, inputs and reads): the
    # published and the errata-fixed version of a roll, say, when errata change only its bands.
    group_reads_found = tuple(group_reads(resolver, group) for group in resolver.groups)
    alike = (resolver.dice, resolver.groups, resolver.zero_dice, resolver.inputs, found_reads, group_reads_found,
             by_total)
    if len(_ROLLS) > 10_000:
        _ROLLS.clear()
    rolls = _ROLLS.setdefault(alike, {})
    dependent = tuple(d for d in (dependent_group(resolver, i, g, found_reads) for i, g in enumerate(resolver.groups))
                      if d is not None)
    result = Analysis(
        found_reads, tuple((name, compiled(test), test.span) for name, test in resolver.flags), dependent,
        group_reads_found,
        symbols,
        tuple(specials), next((b for b in resolver.bands if isinstance(b.condition, m.Otherwise)), None),
        dice_read_roll,
        tuple(i.name for i in resolver.inputs), {name: {o.name: o for o in order} for name, order in orders.items()},
        options, orders, tuple((let.name, compiled(let.expr)) for let in resolver.lets), let_memos(resolver),
        reader(n for n in deciding_names if n in input_names and n not in let_names),
        tuple(n for n in deciding_names if n in let_names), tuple(sorted(named(rules))),
        by_total, {}, range_index(resolver), {}, {}, rolls, {}, {})
    if len(_ANALYSES) > 10_000:
        _ANALYSES.clear()
    _ANALYSES[id(resolver)] = (resolver, result)
    return result


def forget() -> None:
    """Drop every cached analysis, reading and distribution, and the names of every checked ruleset: what
    benchmarks time from cold, and what `watch` lets go of between builds."""
    _ANALYSES.clear()
    _ROLLS.clear()
    _NAMES.clear()
    _readings.cache_clear()
    _cost.cache_clear()


def group_cost(group: GroupPlan, wanted: Reads) -> int:
    """The estimated steps of one group's readings (runtime.readings_cost), refused past runtime.MAX_WORK at the
    group's dice, saying what would fit (a pool set by an input names it: `(n)d1000` = 40d1000)."""
    cost = _cost(group.spec, wanted)
    if cost > MAX_WORK:
        written = m.expr_text(group.term).strip("`")
        raise TooLarge(work_refusal(group.spec, cost, wanted.counted, wanted.high, wanted.low, written),
                       group.term.span,
                       "use fewer dice or dice with fewer sides, or narrow the input that sets how many")
    return cost


@lru_cache(maxsize=4096)
def _cost(spec: DiceSpec, wanted: Reads) -> int:
    return readings_cost(spec, wanted.counted, wanted.high, wanted.low, wanted.valued, wanted.merged)


def group_readings(group: GroupPlan, wanted: Reads) -> tuple[tuple[Reading, ...], int]:
    """The distinct readings of one dice group and their denominator (runtime.spec_readings), shared by every
    input that rolls it."""
    try:
        return _readings(group.spec, wanted)
    except TooManyReadings:
        raise TooLarge(f"{group.spec.notation} has more than {MAX_READINGS:,} readings to work out exactly",
                       group.term.span, "use fewer dice or dice with fewer sides, or count fixed faces") from None
    except ValueError as problem:
        raise TooLarge(f"{group.spec.notation}: {problem}", group.term.span,
                       "use fewer dice or dice with fewer sides, or count fixed faces") from None


@lru_cache(maxsize=4096)
def _readings(spec: DiceSpec, wanted: Reads) -> tuple[tuple[Reading, ...], int]:
    readings, denominator = spec_readings(spec, wanted.counted, wanted.high, wanted.low, wanted.valued,
                                          wanted.merged)
    return tuple(readings), denominator


def distribution(resolver: m.Resolver, inputs: Mapping[str, object], definitions: frozenset[str],
                 budget: Budget | None = None) -> Distribution:
    """Exact odds for these inputs (shared with every input that decides the same way: do not modify).

    Inputs that only feed a band's data (`quality: tier + 2`) do not change the odds, so the
    distribution is kept by the values of the inputs and lets the dice, bands and re-rolls read.
    """
    found = analysis(resolver)
    scope = None
    if found.lets:  # a `let` may read any input: each one's value is remembered by the inputs it reads
        values: Mapping[str, object] | None = let_values(found, inputs, definitions)
        if values is None:  # a let not worked out for these inputs yet: the scope does, and remembers
            scope = make_scope(resolver, inputs, definitions)
            values = scope.values
            for (name, _), (read, memo) in zip(found.lets, found.let_memos, strict=True):
                memo[definitions, read(inputs)] = values[name]
        key: tuple[object, ...] = (definitions, found.read_inputs(inputs), *(values[name] for name in found.read_lets))
    else:  # the inputs read (a choice by its option's name)
        key = (definitions, found.read_inputs(inputs))
    known = found.known.get(key)
    if known is None:
        if len(found.known) > 100_000:
            found.known.clear()
        if scope is None:
            scope = make_scope(resolver, inputs, definitions)
        known = found.known[key] = _distribution(resolver, scope, found, budget)
    return known


_ABSENT = object()


def let_values(found: Analysis, inputs: Mapping[str, object], definitions: frozenset[str]) -> dict[str, object] | None:
    """The lets' values for these inputs, each remembered by the input values it reads (through the lets
    before it, too); None when one of them has not been worked out for those values yet.

    Inputs keep one type each (a flag is always a bool, a number an int), so `True` and `1` never meet in
    a key. A grid of 8,640 combinations of six inputs reads its three lets from a few hundred values."""
    values: dict[str, object] = {}
    for (name, _), (read, memo) in zip(found.lets, found.let_memos, strict=True):
        value = memo.get((definitions, read(inputs)), _ABSENT)
        if value is _ABSENT:
            return None
        values[name] = value
    return values


def _distribution(resolver: m.Resolver, scope: Scope, found: Analysis, budget: Budget | None) -> Distribution:
    result = Distribution()
    if resolver.kind in ("lookup", "formula") or not resolver.dice:
        if budget is not None:
            budget.spend(max(len(resolver.bands), 1), resolver)
        source = resolver.key if resolver.key is not None else resolver.value
        value = evaluate(source, scope) if source is not None else None
        band, matches = classify(resolver, scope, value)
        written = key_of(value)
        result.total_weights[written] = 1
        if band is None:
            result.unmatched_weights[written] = 1
        else:
            result.outcome_weights[band.id] = 1
        if len(matches) > 1:
            result.overlaps[written] = tuple(b.id for b in matches)
        return result
    roll = roll_of(resolver, scope, found, budget)
    plan = roll.plan
    if budget is not None:
        alone = roll.totals is None or bool(found.specials)  # each reading, or each total, tested on its own
        classified = len(roll.totals) if roll.totals is not None else roll.size  # the bands read each total once
        budget.spend(classified * max(len(resolver.bands), 1) * (CLASSIFIED if alone else 1), resolver)
    joint: dict[tuple[str | None, object], int] = {}  # (band id, total): integer weight; with flags, (band id,
    # (total, the flags raised))
    specials = bool(found.specials)
    zero = any(g.zero for g in plan.groups)
    if roll.totals is not None:  # the bands read the roll's total alone: each total is classified once
        distinct = tuple(roll.totals)
        if not specials:  # ranges and options: every input that rolls alike reads the same column
            chosen = plain_column(found, resolver, distinct)
        else:  # `when` tests: one total at a time
            chosen = []
            shadowed = "total" in scope.values  # an input or `let` named `total` hides the roll's
            for total in distinct:
                if shadowed:
                    scope.facts = RollFacts(total, None, _NO_COUNTS, zero, None, None, _NO_POOLS)
                else:  # the tests read nothing else of the roll: `total` is looked up as fast as an input
                    scope.values["total"] = total
                chosen.append(_classify(found, resolver, scope, total))
            if not shadowed:
                scope.values.pop("total", None)
        for (band, matches), (total, weight) in zip(chosen, roll.totals.items(), strict=True):
            joint[(None if band is None else band.id, total)] = weight
            if len(matches) > 1:
                result.overlaps[total] = tuple(b.id for b in matches)
    else:  # the bands or the dice read the roll itself (`natural`, `count()`...): every reading is classified
        read_roll, span = found.dice_read_roll, plan.expr.span
        total_of = compiled(plan.expr)
        terms = [id(g.term) for g in plan.groups]
        single = terms[0] if len(terms) == 1 else None
        names = [group.name for group in resolver.groups]
        sizes = [max(g.spec.count, 0) for g in plan.groups[:len(names)]]
        pools: Mapping[str, Held] = _NO_POOLS
        for values, counts, top, bottom, weight, held in held_readings(list(roll.readings), sizes) if names else (
                (*reading, ()) for reading in combined_readings(list(roll.readings))):
            if single is not None:  # the common case, kept cheap: one group, its value the natural roll
                dice, natural = {single: values[0]}, values[0]
            else:
                dice, natural = dict(zip(terms, values, strict=True)), None
            if names:
                pools = dict(zip(names, held, strict=True))
            if read_roll:
                scope.facts = RollFacts(0, natural, counts, zero, top, bottom, pools)
            value = total_of(scope, dice)
            total = value if type(value) is int else as_number(value, span)
            if specials or found.flags:  # `natural` and `when` bands read the roll; ranges read the total alone
                scope.facts = RollFacts(total, natural, counts, zero, top, bottom, pools)
            inner: Iterable[tuple[tuple[Held, int], ...]] = ((),)
            if found.dependent:  # each of its readings for what the rest of this reading makes
                inner = itertools.product(*(dependent_readings(group, plan.groups[group[0]].spec, scope)
                                            for group in found.dependent))
            for held_weights in inner:
                each = weight
                if held_weights:
                    pools = dict(pools)
                    for (_, name, _, _), (held_group, times) in zip(found.dependent, held_weights, strict=True):
                        pools[name] = held_group
                        each *= times
                    scope.facts = RollFacts(total, natural, counts, zero, top, bottom, pools)
                if specials:
                    band, matches = _classify(found, resolver, scope, total)
                else:
                    plain = found.plain.get((int, total))
                    band, matches = plain if plain is not None else _classify(found, resolver, scope, total)
                key: tuple[str | None, object] = (None if band is None else band.id, total)
                if found.flags:
                    key = (key[0], (total, tuple(name for name, test, span in found.flags
                                                 if truthy(test(scope, dice), span))))
                joint[key] = joint.get(key, 0) + each
                if len(matches) > 1:
                    result.overlaps[total] = tuple(b.id for b in matches)
    scope.facts = None
    joint, denominator = reroll_weights(joint, roll.denominator, rerolled(resolver, scope))
    outcomes: dict[str, int] = {}
    totals: dict[int | str, int] = {}
    unmatched: dict[int | str, int] = {}
    flags: dict[str, dict[str | None, int]] = {name: {} for name, _, _ in found.flags}
    for (band_id, joined), weight in joint.items():
        if found.flags:
            joined, raised = cast("tuple[int, tuple[str, ...]]", joined)
            for name in raised:
                flags[name][band_id] = flags[name].get(band_id, 0) + weight
        value = cast("int", joined)
        totals[value] = totals.get(value, 0) + weight
        if band_id is None:
            unmatched[value] = unmatched.get(value, 0) + weight
        else:
            outcomes[band_id] = outcomes.get(band_id, 0) + weight
    result.outcome_weights, result.total_weights, result.unmatched_weights = outcomes, totals, unmatched
    result.flag_weights = flags
    result.denominator = denominator
    return result


_NO_COUNTS: dict[int | str, int] = {}
_NO_POOLS: Mapping[str, Held] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Roll:
    """What one set of inputs rolls, shared by every input that rolls alike (the bands may still differ)."""

    plan: Plan
    readings: tuple[tuple[Reading, ...], ...]  # each group's distinct readings
    size: int  # joint readings
    totals: dict[int, int] | None  # the weight of each total, when the bands read nothing else of the roll
    denominator: int  # of every weight
    costs: tuple[tuple[DiceSpec, Reads, int], ...]  # each group's readings_cost, with what is read of it
    core: tuple[object, ...] | None = None  # what its totals were worked out for (totals_core), paid once


def roll_of(resolver: m.Resolver, scope: Scope, found: Analysis, budget: Budget | None = None) -> Roll:
    """The roll these inputs make, worked out once for each set of values of the names the dice rules read.

    Every group's cost is estimated, checked against MAX_WORK and paid from `budget` before any is worked out
    (paid whether or not the roll was worked out before: the same ruleset spends alike in every process)."""
    key = (scope.definitions, *(scope.values.get(name, _ABSENT) for name in found.dice_names))
    roll = found.rolls.get(key)
    if roll is not None:
        if budget is not None:
            budget.readings(roll.costs, resolver)
            if roll.core is not None:
                budget.once(roll.core, roll.size, resolver)
        return roll
    plan = make_plan(resolver, scope)
    wanted = found.group_reads + (found.reads,) * (len(plan.groups) - len(found.group_reads))
    dependent = {index for index, _, _, _ in found.dependent}  # read once the rest is known: one reading here
    costs = tuple((g.spec, read, 1 if i in dependent else group_cost(g, read))
                  for i, (g, read) in enumerate(zip(plan.groups, wanted, strict=True)))
    if budget is not None:
        budget.readings(costs, resolver)
    found_readings = [(((0, Tally(), None, None, 1),), g.spec.sides ** max(g.spec.count, 0)) if i in dependent
                      else group_readings(g, read) for i, (g, read) in enumerate(zip(plan.groups, wanted, strict=True))]
    readings = tuple(r for r, _ in found_readings)
    denominator = math.prod(d for _, d in found_readings)
    size = math.prod(len(r) for r in readings)
    if size > MAX_OUTCOMES:
        raise TooLarge(f"{' and '.join(g.spec.notation for g in plan.groups)} has {count_text(size)} readings to "
                       f"work out exactly; the limit is {MAX_OUTCOMES:,}",
                       plan.expr.span, "use fewer dice or dice with fewer sides")
    core = totals_core(plan, scope, found) if found.by_total else None
    if budget is not None and core is not None:  # the totals, from the joint readings: a step each, at most
        budget.once(core, size, resolver)
    totals = total_weights(plan, readings, scope, found, core) if core is not None else None
    if len(found.rolls) > 100_000:
        found.rolls.clear()
    roll = found.rolls[key] = Roll(plan, readings, size, totals, denominator, costs, core)
    return roll


def totals_core(plan: Plan, scope: Scope, found: Analysis) -> tuple[object, ...]:
    """What a roll's totals are worked out for: the part that rolls dice, the dice, and the values it reads
    (amounts added to it, `+ dots - 1`, are not: every value of them shares the work)."""
    split = found.splits.get(id(plan.expr))
    if split is None:
        split = found.splits[id(plan.expr)] = split_shifts(plan.expr)
    core, _, names = split
    return (id(core), scope.definitions, *(scope.values.get(name, _ABSENT) for name in names),
            *((id(g.term), g.spec) for g in plan.groups))


def total_weights(plan: Plan, readings: tuple[tuple[Reading, ...], ...], scope: Scope, found: Analysis,
                  key: tuple[object, ...]) -> dict[int, int]:
    """The weight of each total. What the dice make is worked out reading by reading, once for each
    `totals_core` key; amounts that roll no dice (`+ dots - 1`) are added to each distinct result after, not to
    every reading."""
    core, shifts, _ = found.splits[id(plan.expr)]
    weights = found.cores.get(key)
    if weights is None:
        if len(found.cores) > 100_000:
            found.cores.clear()
        weights = found.cores[key] = dice_part_weights(core, plan, readings, scope)
    for sign, shift, span in shifts:
        amount = compiled(shift)(scope, None)
        amount = sign * (amount if type(amount) is int else as_number(amount, shift.span))
        shifted = {value + amount: weight for value, weight in weights.items()}
        if shifted and not -MAX_VALUE <= min(shifted) <= max(shifted) <= MAX_VALUE:
            raise too_big(span)
        weights = shifted
    return weights


def dice_part_weights(core: m.Expr, plan: Plan, readings: tuple[tuple[Reading, ...], ...],
                      scope: Scope) -> dict[int, int]:
    """The weight of each value the dice part makes: a sum or difference of dice groups (`d(mine) - d(theirs)`)
    by convolving their values, anything else (`max(d6, d8)`, `2 * d6`) worked out for each joint reading."""
    terms = [id(g.term) for g in plan.groups]
    per_group: list[dict[int, int]] = []
    for group in readings:
        by_value: dict[int, int] = {}
        for reading in group:
            by_value[reading[0]] = by_value.get(reading[0], 0) + reading[4]
        per_group.append(by_value)
    signed = signed_terms(core, terms, scope)
    if signed is not None:
        constant, size, signs = signed
        size += sum(max(abs(value) for value in group) for group in per_group)
        if size <= MAX_VALUE:  # no partial sum can pass the limit (else worked out below, which says where)
            weights = {constant: 1}
            for sign, index in signs:
                added: dict[int, int] = {}
                for total, weight in weights.items():
                    for value, times in per_group[index].items():
                        added[total + sign * value] = added.get(total + sign * value, 0) + weight * times
                weights = added
            return weights
    if isinstance(core, m.Call) and core.function in ("max", "min") and sorted(
            terms.index(id(a)) if id(a) in terms else -1 for a in core.args) == list(range(len(terms))):
        return extreme_weights(per_group, core.function == "max")
    core_of = compiled(core)
    weights = {}
    for combination in itertools.product(*(group.items() for group in per_group)):
        weight = 1
        dice: dict[int, int] = {}
        for term, (value, times) in zip(terms, combination, strict=True):
            dice[term] = value
            weight *= times
        made = core_of(scope, dice)
        total = made if type(made) is int else as_number(made, core.span)
        weights[total] = weights.get(total, 0) + weight
    return weights


def extreme_weights(per_group: list[dict[int, int]], highest: bool) -> dict[int, int]:
    """The weight of each value of the highest (lowest) of independent groups (`max(d8!, d6!)`), from their
    cumulative weights: the ways all of them are at most v, less the ways all are below it (one pass over
    the values, where the joint readings number the product of the groups')."""
    values = sorted({value for group in per_group for value in group}, reverse=not highest)
    below = [0] * len(per_group)  # each group's weight on the values passed so far
    weights: dict[int, int] = {}
    before = 0  # the ways every group is on a value passed before this one
    for value in values:
        for i, group in enumerate(per_group):
            below[i] += group.get(value, 0)
        now = math.prod(below)
        if now != before:
            weights[value] = now - before
        before = now
    return weights


def signed_terms(core: m.Expr, terms: list[int], scope: Scope) -> tuple[int, int, list[tuple[int, int]]] | None:
    """`core` as a number plus or minus each dice group once (the groups by their place in `terms`), or None
    when it is anything else; with the sum of the numbers' sizes. The numbers in it are worked out here
    (`2d6 + 3 - d4` is 3, +2d6, -d4)."""
    constant = size = 0
    signs: list[tuple[int, int]] = []
    for sign, expr in signed_parts(core):
        if id(expr) in terms:
            signs.append((sign, terms.index(id(expr))))
        elif contains_dice(expr):
            return None
        else:
            value = compiled(expr)(scope, None)
            number = value if type(value) is int else as_number(value, expr.span)
            constant += sign * number
            size += abs(number)
    if sorted(index for _, index in signs) != list(range(len(terms))):
        return None  # a group read twice, or not at all
    return constant, size, signs


Split = tuple[m.Expr, tuple[tuple[int, m.Expr, m.Span], ...], tuple[str, ...]]


def split_shifts(expr: m.Expr) -> Split:
    """`expr` as the part that rolls dice, the amounts added to it or taken from it (innermost first),
    and the names the dice part reads: `2d6 + dots - 1` is `2d6`, then `+ dots`, then `- 1`."""
    shifts: list[tuple[int, m.Expr, m.Span]] = []
    while isinstance(expr, m.Binary) and expr.op in ("+", "-"):
        if not contains_dice(expr.right):
            shifts.append((1 if expr.op == "+" else -1, expr.right, expr.span))
            expr = expr.left
        elif expr.op == "+" and not contains_dice(expr.left):
            shifts.append((1, expr.left, expr.span))
            expr = expr.right
        else:
            break
    names = tuple(sorted({node.name for node in walk(expr) if isinstance(node, m.Name)}))
    return expr, tuple(reversed(shifts)), names


def rerolled(resolver: m.Resolver, scope: Scope) -> frozenset[str]:
    """The outcomes a first result is rolled again from, for these inputs (`reroll:` lines)."""
    return frozenset(outcome for reroll in resolver.rerolls
                     if reroll.when is None or truthy(evaluate(reroll.when, scope), reroll.span)
                     for outcome in reroll.outcomes)


def key_of(value: Value) -> int | str:
    """A value as a key of a distribution: numbers stay numbers, options become their names."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return value
    if isinstance(value, OptionValue):
        return value.name
    return str(value)


def odds(resolver: m.Resolver, inputs: Mapping[str, object], definitions: frozenset[str]) -> dict[str, Fraction]:
    """Probability of each outcome id, in band order, zero-probability bands included."""
    found = distribution(resolver, inputs, definitions)
    return {band.id: found.outcomes.get(band.id, Fraction(0)) for band in resolver.bands}


def chain_odds(checked: m.CheckedRuleset, name: str, inputs: Mapping[str, object]) -> dict[str, Fraction]:
    """Exact probability of each combination of outcomes a roll of `name` and every table its `->` rows roll
    reach, worked out from the checked model (each table's odds as `odds` gives them, each chain's targets
    evaluated): the same combinator as a module's `chain_odds`, which reads the module's own functions."""
    resolvers = {d.name: d for d in checked.definitions if isinstance(d, m.Resolver)}
    names = definition_names(checked)

    def outcomes(table: str, given: Mapping[str, object]) -> tuple[dict[str, object], list[
            tuple[str, Fraction, tuple[tuple[object, int | tuple[int, int]], ...]]]]:
        resolver = resolvers[table]
        own = {i.name: given.get(i.name, i.effective_default) for i in resolver.inputs}
        found = distribution(resolver, own, names)
        scope = make_scope(resolver, own, names)
        listed: list[tuple[str, Fraction, tuple[tuple[object, int | tuple[int, int]], ...]]] = []
        for band in resolver.bands:
            if band.id in {outcome for outcome, _, _ in listed}:
                continue  # bands sharing an id share its odds (and, here, the first one's chain)
            links: list[tuple[object, int | tuple[int, int]]] = []
            for link in band.chain.links if band.chain is not None else ():
                target = evaluate(link.target, scope)
                dice = m.chain_dice(link.times) if link.times is not None else None
                times = dice if dice is not None else link.times.value if isinstance(link.times, m.Number) else 1
                links.append((target.name if isinstance(target, (TableRef, OptionValue)) else target, times))
            listed.append((band.id, found.outcomes.get(band.id, Fraction(0)), tuple(links)))
        if found.unmatched_weights:
            listed.append(("none", sum(found.unmatched.values(), Fraction(0)), ()))
        return own, listed

    return chain_weights(name, inputs, outcomes, lambda table: tuple(b.id for b in resolvers[table].bands),
                         resolvers)


OddsRows = list[tuple[dict[str, object], dict[str, Fraction]]]


def definition_names(checked: m.CheckedRuleset) -> frozenset[str]:
    """The names a ruleset defines (what its expressions may name), worked out once per ruleset: the sheets
    ask for every roll's odds, and a ruleset may define thousands of things."""
    known = _NAMES.get(id(checked))
    if known is None or known[0] is not checked:
        if len(_NAMES) > 64:
            _NAMES.clear()
        known = _NAMES[id(checked)] = (checked, frozenset(d.name for d in checked.definitions))
    return known[1]


_NAMES: dict[int, tuple[m.CheckedRuleset, frozenset[str]]] = {}


def odds_table(checked: m.CheckedRuleset, resolver: m.Resolver, axis: str | None = None,
               fixed: Mapping[str, object] | None = None) -> OddsRows:
    """Odds for each value of one input (others at their defaults, or as `fixed`), for the sheets."""
    base = dict(defaults(resolver), **(fixed or {}))
    names = definition_names(checked)
    rows: OddsRows = []
    chosen = next((i for i in resolver.inputs if i.name == axis), None)
    if chosen is None:
        return [(base, odds(resolver, base, names))] if _complete(resolver, base) else []
    for value in input_values(chosen.type):
        inputs = dict(base, **{chosen.name: value})
        if _complete(resolver, inputs):
            rows.append((inputs, odds(resolver, inputs, names)))
    return rows


def _complete(resolver: m.Resolver, inputs: Mapping[str, object]) -> bool:
    return all(i.name in inputs for i in resolver.inputs)
