"""The odds stage shares work between input combinations (what is rolled, what the dice part
makes before amounts are added, a `when` band's verdict on a total); every shared answer must be
the one worked out alone. Checked against enumeration written out here, in any order of inputs."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import rulecraft.semantics.odds as odds
from rulecraft import model as m
from rulecraft.api import load_text
from rulecraft.diagnostics import CompileError

RULESET = '''ruleset "Sharing"

type edges: one of low (1), high (3)

roll shifted "Shifted" [T-1]
  input bonus: -2..3 = 0 "Bonus"
  input penalty: 0..2 = 0 "Penalty"
  input target: 2..14 = 7 "Target"
  roll: 2d6 + bonus - penalty
  - when total >= target + 3: great
  - when total >= target: hit
  - otherwise: miss

roll shifted_again "Shifted, read otherwise" [T-1]
  input bonus: -2..3 = 0 "Bonus"
  input penalty: 0..2 = 0 "Penalty"
  input target: 2..14 = 7 "Target"
  roll: 2d6 + bonus - penalty
  - when total = target: exact
  - otherwise: other

roll left "Bonus first" [T-1]
  input bonus: 0..4 = 0 "Bonus"
  roll: bonus + d6
  - 1-3: low
  - 4-6: mid
  - 7+: high

roll taken "Taken from a number" [T-1]
  input base: 6..9 = 6 "Base"
  roll: base - d6 + 1
  - 3 or less: low
  - 4+: high

roll highest_plus "Highest plus" [T-1]
  input dice: 1..3 = 1 "Dice"
  input bonus: 0..2 = 0 "Bonus"
  input edge: 0..1 = 0 "Edge"
  let step = bonus + edge
  roll: max(d6, (dice)d8 highest) + step
  roll if dice == 3: max(d6, 2d8 highest) + step - 1
  - when step > 2: capped
  - when total > 8: high
  - otherwise: low

roll opposed "Opposed" [T-1]
  input mine: 4..8 = 6 "My die"
  input theirs: 4..8 = 6 "Their die"
  roll: d(mine) + 3 - d(theirs) - 1
  - when total > 2: win
  - otherwise: lose

roll tested "Tested" [T-1]
  input dv: -1..4 = 2 "DV"
  input edge: edges = low "Edge"
  input bonus: 0..1 = 0 "Bonus"
  let cap = 10 + bonus
  roll: d12 + bonus
  - when dv < 0: auto
  - when total > dv + edge and total < cap: success
  - when not (total > 2) or total * 2 - bonus >= 23: extreme
  - otherwise: failure

roll tested_alike "Tested for equality" [T-1]
  input dv: 0..4 = 2 "DV"
  roll: d12
  - when total % 4 == dv and total != 8: remainder
  - when total == dv * 3 or total > 10: special
  - when total > dv: success
  - otherwise: failure

roll tested_by_call "Tested through a call" [T-1]
  input dv: 0..4 = 2 "DV"
  roll: d12
  - when max(total, dv) > 11: top
  - when total == dv * 3: special
  - otherwise: failure

roll doubled "Doubled" [T-1]
  input bonus: 0..2 = 0 "Bonus"
  roll: (d6 + bonus) * 2
  - 10+: high
  - otherwise: low
'''


def enumerate_totals(dice: list[int], make: Callable[[tuple[int, ...]], int]) -> Counter[int]:
    return Counter(make(faces) for faces in itertools.product(*(range(1, s + 1) for s in dice)))


def band_of(name: str, inputs: dict[str, Any], total: int) -> str:
    if name == "shifted":
        return "great" if total >= inputs["target"] + 3 else "hit" if total >= inputs["target"] else "miss"
    if name == "shifted_again":
        return "exact" if total == inputs["target"] else "other"
    if name == "left":
        return "low" if total <= 3 else "mid" if total <= 6 else "high"
    if name == "taken":
        return "low" if total <= 3 else "high"
    if name == "opposed":
        return "win" if total > 2 else "lose"
    if name == "tested":
        edge = {"low": 1, "high": 3}[inputs["edge"]]
        return ("auto" if inputs["dv"] < 0 else "success" if inputs["dv"] + edge < total < 10 + inputs["bonus"]
                else "extreme" if not total > 2 or total * 2 - inputs["bonus"] >= 23 else "failure")
    if name == "tested_alike":
        return ("remainder" if total % 4 == inputs["dv"] and total != 8 else "special"
                if total == inputs["dv"] * 3 or total > 10 else "success" if total > inputs["dv"] else "failure")
    if name == "tested_by_call":
        return "top" if max(total, inputs["dv"]) > 11 else "special" if total == inputs["dv"] * 3 else "failure"
    if name == "highest_plus":
        return "capped" if inputs["bonus"] + inputs["edge"] > 2 else "high" if total > 8 else "low"
    return "high" if total >= 10 else "low"


def expected(name: str, inputs: dict[str, Any]) -> tuple[dict[int, Fraction], dict[str, Fraction]]:
    """Every total and outcome of `name`, by listing every way the dice can fall."""
    if name in ("shifted", "shifted_again"):
        counts = enumerate_totals([6, 6], lambda f: f[0] + f[1] + inputs["bonus"] - inputs["penalty"])
    elif name == "left":
        counts = enumerate_totals([6], lambda f: inputs["bonus"] + f[0])
    elif name == "taken":
        counts = enumerate_totals([6], lambda f: inputs["base"] - f[0] + 1)
    elif name == "highest_plus":
        step = inputs["bonus"] + inputs["edge"]
        if inputs["dice"] == 3:
            counts = enumerate_totals([6, 8, 8], lambda f: max(f[0], max(f[1:])) + step - 1)
        else:
            counts = enumerate_totals([6] + [8] * inputs["dice"], lambda f: max(f) + step)
    elif name == "tested":
        counts = enumerate_totals([12], lambda f: f[0] + inputs["bonus"])
    elif name in ("tested_alike", "tested_by_call"):
        counts = enumerate_totals([12], lambda f: f[0])
    elif name == "opposed":
        counts = enumerate_totals([inputs["mine"], inputs["theirs"]], lambda f: f[0] + 3 - f[1] - 1)
    else:
        counts = enumerate_totals([6], lambda f: (f[0] + inputs["bonus"]) * 2)
    size = sum(counts.values())
    totals = {total: Fraction(n, size) for total, n in counts.items()}
    outcomes: dict[str, Fraction] = {}
    for total, chance in totals.items():
        band = band_of(name, inputs, total)
        outcomes[band] = outcomes.get(band, Fraction(0)) + chance
    return totals, outcomes


@pytest.fixture(scope="module")
def checked() -> m.CheckedRuleset:
    return load_text(RULESET, "sharing.rules", "sharing").checked


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_every_input_combination_has_the_odds_of_its_own_dice(checked: m.CheckedRuleset, order: str) -> None:
    names = frozenset(d.name for d in checked.definitions)
    odds.forget()
    compared = 0
    for resolver in checked.resolvers():
        grid = list(odds.input_grid(resolver))
        for inputs in grid if order == "forward" else reversed(grid):
            found = odds.distribution(resolver, inputs, names)
            totals, outcomes = expected(resolver.name, inputs)
            assert found.totals == totals, (resolver.name, inputs)
            assert {k: v for k, v in found.outcomes.items() if v} == outcomes, (resolver.name, inputs)
            compared += 1
    assert compared == 2 * 6 * 3 * 13 + 5 + 4 + 3 * 3 * 2 + 6 * 2 * 2 + 5 + 5 + 5 * 5 + 3


def test_the_shared_roll_and_dice_part_are_worked_out_once(checked: m.CheckedRuleset) -> None:
    """`2d6 + bonus - penalty` for every bonus, penalty and target: one plan and one dice part per
    (bonus, penalty); the sum of two dice is enumerated once, not 234 times."""
    names = frozenset(d.name for d in checked.definitions)
    shifted = next(r for r in checked.resolvers() if r.name == "shifted")
    odds.forget()
    for inputs in odds.input_grid(shifted):
        odds.distribution(shifted, inputs, names)
    found = odds.analysis(shifted)
    assert found.by_total
    assert len(found.known) == 6 * 3 * 13
    assert len(found.rolls) == 6 * 3
    assert len(found.cores) == 1
    again = next(r for r in checked.resolvers() if r.name == "shifted_again")
    assert odds.analysis(again).rolls is found.rolls  # the same dice and inputs: rolled alike, bands apart


def test_lets_are_worked_out_once_per_value_of_the_inputs_they_read(checked: m.CheckedRuleset,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`let step = bonus + edge` reads two of three inputs: a grid of 3 x 3 x 2 works it out for the six
    (bonus, edge) pairs, and a scope is made only for those and for odds not yet worked out."""
    names = frozenset(d.name for d in checked.definitions)
    resolver = next(r for r in checked.resolvers() if r.name == "highest_plus")
    made: list[dict[str, object]] = []
    make_scope = odds.make_scope

    def counted(resolver: m.Resolver, inputs: dict[str, object], definitions: frozenset[str]) -> Any:
        made.append(dict(inputs))
        return make_scope(resolver, inputs, definitions)

    monkeypatch.setattr(odds, "make_scope", counted)
    odds.forget()
    grid = list(odds.input_grid(resolver))
    first = [odds.distribution(resolver, inputs, names) for inputs in grid]
    found = odds.analysis(resolver)
    (_, memo), = found.let_memos
    assert sorted(memo.values()) == [0, 1, 1, 2, 2, 3]  # bonus + edge, for each pair
    assert len(made) <= len(found.known) + len(memo) and len(made) < len(grid)  # not one per combination
    made.clear()
    again = [odds.distribution(resolver, inputs, names) for inputs in reversed(grid)]
    assert made == [] and [id(d) for d in again] == [id(d) for d in reversed(first)]  # nothing made twice


def test_totals_alike_are_classified_by_the_plain_bands_once(checked: m.CheckedRuleset) -> None:
    names = frozenset(d.name for d in checked.definitions)
    doubled = next(r for r in checked.resolvers() if r.name == "doubled")
    odds.forget()
    for inputs in odds.input_grid(doubled):
        odds.distribution(doubled, inputs, names)
    columns = odds.analysis(doubled).columns
    assert sorted(columns) == [tuple(range(2 + 2 * b, 14 + 2 * b, 2)) for b in range(3)]
    assert [[band.id for band, _ in column] for column in columns.values()] == [
        ["low"] * 4 + ["high"] * 2, ["low"] * 3 + ["high"] * 3, ["low"] * 2 + ["high"] * 4]


def test_a_total_past_the_limit_after_an_amount_is_added_is_refused_at_the_sum() -> None:
    text = ('ruleset "T"\n\nroll r "R" [T-1]\n  input big: 0..1 = 0 "Big"\n  let huge = 999999999999999999\n'
            '  roll: 2d6 + huge + big\n  - 7+: hi\n  - otherwise: lo\n')
    with pytest.raises(CompileError) as raised:
        load_text(text, "t.rules", "t")
    errors = [(d.code, d.span.line, d.span.column) for d in raised.value.report.diagnostics if d.severity == "error"]
    assert errors == [("TOO-LARGE", 6, 9)]  # `2d6 + huge + big`: the outer sum, where it first passes 10^18
    assert "numbers stop there" in raised.value.report.diagnostics[0].message


def test_a_sum_that_passes_the_limit_part_way_is_refused_where_it_passes_it() -> None:
    """`d6 + 999999999999999999 - d4` ends within 10^18 at times, but its first sum passes it."""
    text = ('ruleset "T"\n\nroll r "R" [T-1]\n  roll: d6 + 999999999999999999 - d4\n'
            '  - 7+: hi\n  - otherwise: lo\n')
    with pytest.raises(CompileError) as raised:
        load_text(text, "t.rules", "t")
    errors = [(d.code, d.span.line, d.span.column, d.span.end_column)
              for d in raised.value.report.diagnostics if d.severity == "error"]
    assert errors == [("TOO-LARGE", 4, 9, 32)]  # `d6 + 999999999999999999`


def test_an_input_named_like_the_total_is_read_as_the_input() -> None:
    """`total` in a band is the input of that name when there is one, for every value of it."""
    text = ('ruleset "T"\n\nroll r "R" [T-1]\n  input total: 1..3 = 1 "T"\n  roll: d6\n'
            '  - when total >= 2: a\n  - otherwise: b\n')
    checked = load_text(text, "t.rules", "t").checked
    resolver = checked.resolvers()[0]
    odds.forget()
    assert [odds.distribution(resolver, inputs, frozenset()).outcomes for inputs in odds.input_grid(resolver)] == [
        {"b": 1}, {"a": 1}, {"a": 1}]


@pytest.mark.parametrize(("test", "error"), [
    ("12 / (total - 6) > 1", ("EVAL", "r with dv=0: division by zero", 6, 10)),
    ("total % (dv - 2) == 0", ("EVAL", "r with dv=2: division by zero", 6, 10)),
    ("total > dv and 12 / (dv - 2) > 1", ("EVAL", "r with dv=2: division by zero", 6, 25)),
    ("total == 3 and 1 / 0 > 1", ("EVAL", "r with dv=0: division by zero", 6, 25)),
])
def test_a_test_failing_for_some_totals_is_reported_as_one_at_a_time(test: str,
                                                                     error: tuple[str, str, int, int]) -> None:
    """The first input and the part that fails, found where a short-circuit lets the test reach it."""
    text = (f'ruleset "T"\n\nroll r "R" [T-1]\n  input dv: 0..4 = 2 "DV"\n  roll: d12\n  - when {test}: a\n'
            '  - otherwise: b\n')
    with pytest.raises(CompileError) as raised:
        load_text(text, "t.rules", "t")
    assert [(d.code, d.message, d.span.line, d.span.column) for d in raised.value.report.diagnostics
            if d.severity == "error"] == [error]
