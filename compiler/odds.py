"""Odds: exact distributions of every resolver, read from the checked model.

For given inputs a resolver's dice expression becomes a *plan* (which dice
terms are rolled, how many, how read); the plan's outcomes are enumerated as
multisets (runtime.pool_outcomes) and each is classified into a band. The
result is exact: `Fraction`s that sum to 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from . import model as m
from .evaluate import (
    EvalError,
    OptionValue,
    RollFacts,
    Scope,
    TooLarge,
    Value,
    as_number,
    children,
    dice_symbols,
    evaluate,
    truthy,
)
from .runtime import MAX_DICE, MAX_OUTCOMES, MAX_SIDES, count_text, pool_outcomes, reroll_weights

MAX_GRID = 20_000  # input combinations of one roll the design check analyses
MAX_ANALYSIS = 3_000_000  # dice outcomes x bands the design check classifies, over a whole ruleset
MAX_SHEET_ODDS = 50_000  # odds printed on one sheet (rows x outcomes, over every roll)


@dataclass(frozen=True, slots=True)
class GroupPlan:
    term: m.Expr
    count: int
    sides: int
    mode: str
    keep: int
    notation: str
    zero: bool = False
    faces: tuple[str, ...] = ()  # a custom die: the symbol on each side
    values: tuple[int, ...] = ()  # and what each side is worth


@dataclass(frozen=True, slots=True)
class Plan:
    expr: m.Expr
    groups: tuple[GroupPlan, ...]

    def outcome_count(self) -> int:
        total = 1
        for group in self.groups:
            total *= group.sides ** group.count
        return total

    def enumeration_size(self) -> int:
        """How many dice outcomes exact odds enumerate: distinct multisets of each group, multiplied."""
        return enumeration_size((g.count, g.sides) for g in self.groups)


def enumeration_size(groups: Iterable[tuple[int, int]]) -> int:
    total = 1
    for count, sides in groups:
        total *= math.comb(max(sides, 1) + max(count, 0) - 1, max(count, 0))
    return total


@dataclass
class Distribution:
    """Exact odds of one resolver for one set of inputs."""

    outcomes: dict[str, Fraction] = field(default_factory=dict)
    totals: dict[int | str, Fraction] = field(default_factory=dict)
    unmatched: dict[int | str, Fraction] = field(default_factory=dict)
    overlaps: dict[int | str, tuple[str, ...]] = field(default_factory=dict)


class PlanError(EvalError):
    pass


@dataclass
class Budget:
    """Work the design check may do (dice outcomes x bands), shared by every roll of a ruleset."""

    total: int = MAX_ANALYSIS
    spent: int = 0

    @property
    def exhausted(self) -> bool:
        return self.spent > self.total

    def spend(self, amount: int, resolver: m.Resolver) -> None:
        self.spent += amount
        if self.exhausted:
            raise TooLarge(f"checking the exact odds of this ruleset takes more than {self.total:,} steps (dice "
                           "outcomes x bands, for every input of every roll); the limit is reached here",
                           resolver.span, "use fewer dice or narrower inputs, or split the game into rulesets")


# ---------------------------------------------------------------- inputs


def input_grid(resolver: m.Resolver, limit: int = MAX_GRID) -> Iterator[dict[str, object]]:
    """Every combination of input values, in declaration order (empty grid: one empty dict)."""
    count = grid_size(resolver)
    if count > limit:
        raise TooLarge(f"`{resolver.name}` has {count:,} input combinations to check; the limit is {limit:,}",
                       resolver.span, "narrow the inputs' ranges (the check works out the odds of each combination)")
    axes = [input_values(item.type) for item in resolver.inputs]
    for combo in itertools.product(*axes):
        yield {item.name: value for item, value in zip(resolver.inputs, combo, strict=True)}


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
    values: dict[str, Value] = {}
    options: dict[str, OptionValue] = {}
    orders: dict[str, tuple[OptionValue, ...]] = {}
    for item in resolver.inputs:
        raw = inputs[item.name]
        if isinstance(item.type, m.Choice):
            orders[item.name] = tuple(OptionValue(o.name, o.value) for o in item.type.options)
            for option in orders[item.name]:
                options.setdefault(option.name, option)
            chosen = item.type.option(str(raw))
            values[item.name] = OptionValue(str(raw), chosen.value if chosen else None)
        else:
            values[item.name] = raw  # type: ignore[assignment]
    scope = Scope(values, options, definitions, orders=orders, symbols=dice_symbols(resolver))
    for let in resolver.lets:
        scope.values[let.name] = evaluate(let.expr, scope)
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
    groups: list[GroupPlan] = []
    collect_groups(expr, scope, resolver, groups)
    return Plan(expr, tuple(groups))


def collect_groups(expr: m.Expr, scope: Scope, resolver: m.Resolver, out: list[GroupPlan]) -> None:
    if isinstance(expr, m.CustomPool):
        count = as_number(evaluate(expr.count, scope), expr.count.span)
        if not expr.faces:
            raise PlanError(f"the faces of the die `{expr.die}` are to be supplied", expr.span)
        if count > MAX_DICE:
            raise TooLarge(f"{m.expr_text(expr)} rolls {count:,} dice; the limit is {MAX_DICE:,}", expr.span,
                           "roll fewer dice (narrow the input that sets how many)")
        out.append(GroupPlan(expr, max(count, 0), len(expr.faces), "sum", 0, f"{max(count, 0)} {expr.die}",
                             faces=expr.faces, values=expr.values))
        return
    if isinstance(expr, (m.Dice, m.Pool, m.Kept)):
        out.append(group_plan(expr, scope, resolver))
        return
    if isinstance(expr, m.IfElse):
        branch = expr.then if truthy(evaluate(expr.condition, scope), expr.span) else expr.otherwise
        collect_groups(branch, scope, resolver, out)
        return
    for child in children(expr):
        collect_groups(child, scope, resolver, out)


def group_plan(term: m.Dice | m.Pool | m.Kept, scope: Scope, resolver: m.Resolver) -> GroupPlan:
    base = term.dice if isinstance(term, m.Kept) else term
    mode = term.mode if isinstance(term, m.Kept) else "sum"
    keep = term.count if isinstance(term, m.Kept) else 0
    count = as_number(evaluate(base.count, scope), base.count.span) if isinstance(base, m.Pool) else base.count
    if count <= 0 and isinstance(base, m.Pool):
        if resolver.zero_dice is not None:
            zero = resolver.zero_dice
            if not isinstance(zero, (m.Dice, m.Kept)):
                raise PlanError("zero_dice must be one dice term, like `2d6 lowest`", zero.span)
            inner = group_plan(zero, scope, resolver)
            return GroupPlan(term, inner.count, inner.sides, inner.mode, inner.keep, inner.notation, True)
        if mode != "sum":
            raise PlanError(f"a pool of {count} dice has no {mode} die, and no zero_dice rule says what "
                            "to roll instead", term.span)
        count = 0
    if count > MAX_DICE:
        raise TooLarge(f"{m.expr_text(term)} rolls {count:,} dice; the limit is {MAX_DICE:,}", term.span,
                       "roll fewer dice (narrow the input that sets how many)")
    sides = base.sides if isinstance(base.sides, int) else as_number(evaluate(base.sides, scope), base.sides.span)
    if sides > MAX_SIDES:
        raise TooLarge(f"{m.expr_text(term)} rolls a die of {sides:,} sides; the limit is {MAX_SIDES:,}", term.span,
                       "give the die fewer sides")
    if sides < 1:
        raise PlanError(f"a die has 1 to {MAX_SIDES:,} sides, not {sides}", term.span)
    if mode != "sum":
        keep = min(keep, count)
    notation = f"{count}d{sides}" if count != 1 else f"d{sides}"
    if mode != "sum":
        notation += f" {mode}" if keep == 1 else f" keep {mode} {keep}"
    return GroupPlan(term, count, sides, mode, keep, notation)


# ---------------------------------------------------------------- bands


def special(condition: m.Condition) -> bool:
    return isinstance(condition, (m.Natural, m.When))


def classify(resolver: m.Resolver, scope: Scope, value: Value) -> tuple[m.Band | None, tuple[m.Band, ...]]:
    """The band `value` lands in, and every plain band that contains it (for overlap checks)."""
    facts = scope.facts
    for band in resolver.bands:
        condition = band.condition
        if isinstance(condition, m.Natural):
            if facts is not None and facts.natural == condition.value:
                return band, ()
        elif isinstance(condition, m.When) and truthy(evaluate(condition.test, scope), condition.span):
            return band, ()
    matches = tuple(band for band in resolver.bands if plain_match(band.condition, value))
    if matches:
        return matches[0], matches
    for band in resolver.bands:
        if isinstance(band.condition, m.Otherwise):
            return band, ()
    return None, ()


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
        return value == condition.name
    return False


# ---------------------------------------------------------------- distributions


def distribution(resolver: m.Resolver, inputs: Mapping[str, object], definitions: frozenset[str],
                 budget: Budget | None = None) -> Distribution:
    scope = make_scope(resolver, inputs, definitions)
    result = Distribution()
    if resolver.kind in ("lookup", "formula") or not resolver.dice:
        if budget is not None:
            budget.spend(max(len(resolver.bands), 1), resolver)
        source = resolver.key if resolver.key is not None else resolver.value
        value = evaluate(source, scope) if source is not None else None
        band, matches = classify(resolver, scope, value)
        _record(result, None if band is None else band.id, key_of(value), Fraction(1))
        if len(matches) > 1:
            result.overlaps[key_of(value)] = tuple(b.id for b in matches)
        return result
    plan = make_plan(resolver, scope)
    size = plan.enumeration_size()
    if size > MAX_OUTCOMES:
        raise TooLarge(f"{' and '.join(g.notation for g in plan.groups)} has {count_text(size)} outcomes to work out "
                       f"exactly; the limit is {MAX_OUTCOMES:,}",
                       plan.expr.span, "use fewer dice or dice with fewer sides")
    if budget is not None:
        budget.spend(size * max(len(resolver.bands), 1), resolver)
    denominator = plan.outcome_count()
    per_group = [list(pool_outcomes(g.count, g.sides, g.mode, g.keep)) for g in plan.groups]
    joint: dict[tuple[str | None, int], int] = {}  # (band id, total): integer weight
    for combination in itertools.product(*per_group):
        weight = 1
        dice: dict[int, int] = {}
        counts: dict[int | str, int] = {}
        rolled: list[int] = []
        read: list[int] = []
        for group, (faces, kept, w) in zip(plan.groups, combination, strict=True):
            weight *= w
            if group.faces:
                dice[id(group.term)] = sum(group.values[side - 1] for side in kept)
                for side in faces:
                    counts[group.faces[side - 1]] = counts.get(group.faces[side - 1], 0) + 1
                continue
            dice[id(group.term)] = sum(kept)
            rolled.extend(faces)
            read.extend(kept)
        for face in rolled:
            counts[face] = counts.get(face, 0) + 1
        natural = dice[id(plan.groups[0].term)] if len(plan.groups) == 1 else None
        scope.facts = RollFacts(0, natural, counts, any(g.zero for g in plan.groups),
                                max(read) if read else None, min(read) if read else None)
        total = as_number(evaluate(plan.expr, scope, dice), plan.expr.span)
        scope.facts = RollFacts(total, natural, counts, scope.facts.zero_dice, scope.facts.highest,
                                scope.facts.lowest)
        band, matches = classify(resolver, scope, total)
        key = (None if band is None else band.id, total)
        joint[key] = joint.get(key, 0) + weight
        if len(matches) > 1:
            result.overlaps[total] = tuple(b.id for b in matches)
    scope.facts = None
    joint, denominator = reroll_weights(joint, denominator, rerolled(resolver, scope))
    for (band_id, total), weight in joint.items():
        _record(result, band_id, total, Fraction(weight, denominator))
    return result


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


def _record(result: Distribution, band_id: str | None, total: int | str, probability: Fraction) -> None:
    result.totals[total] = result.totals.get(total, 0) + probability
    if band_id is None:
        result.unmatched[total] = result.unmatched.get(total, 0) + probability
    else:
        result.outcomes[band_id] = result.outcomes.get(band_id, 0) + probability


def odds(resolver: m.Resolver, inputs: Mapping[str, object], definitions: frozenset[str]) -> dict[str, Fraction]:
    """Probability of each outcome id, in band order, zero-probability bands included."""
    found = distribution(resolver, inputs, definitions)
    return {band.id: found.outcomes.get(band.id, Fraction(0)) for band in resolver.bands}


OddsRows = list[tuple[dict[str, object], dict[str, Fraction]]]


def odds_table(checked: m.CheckedRuleset, resolver: m.Resolver, axis: str | None = None) -> OddsRows:
    """Odds for each value of one input (others at their defaults), for the sheets."""
    base = defaults(resolver)
    names = frozenset(d.name for d in checked.definitions)
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
