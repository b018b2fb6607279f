"""`NdS reroll A`: each die showing A or less is rolled again, once. Its exact odds against an enumeration
written here (every first roll, and every second roll of the dice re-rolled), in the compiler and the
module, reading the total, the highest die and a counted face; and its rolls against the odds."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from compiler.api import load_text
from compiler.backends.python import generate
from compiler.semantics.odds import definition_names
from compiler.semantics.odds import odds as compiler_odds
from tests.conftest import compile_module


def finals(count: int, sides: int, again: int) -> Counter[tuple[int, ...]]:
    """Every way the dice end, over sides^(2 x count): a die above `again` stands (sides ways: any second
    roll, unrolled), one at or below it shows its second roll."""
    one: Counter[int] = Counter()
    for first, second in itertools.product(range(1, sides + 1), repeat=2):
        one[first if first > again else second] += 1
    out: Counter[tuple[int, ...]] = Counter()
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        weight = 1
        for face in faces:
            weight *= one[face]
        out[faces] += weight
    return out


@pytest.mark.parametrize(("count", "sides", "again"), [(1, 20, 1), (2, 6, 2), (3, 6, 1), (3, 4, 3)])
def test_rerolled_dice_odds_are_the_enumeration(count: int, sides: int, again: int) -> None:
    text = (f'ruleset "R"\n\nroll r "R" [R-1]\n  input line: 1..{count * sides} = {count * sides // 2}\n'
            f'  roll: {count}d{sides} reroll {again}\n  - when count({sides}) >= 2: pair "Pair"\n'
            f'  - when highest = {sides}: top "Top"\n  - when total >= line: over "Over"\n'
            '  - otherwise: under "Under"\n')
    checked = load_text(text, "r.rules", "r").checked
    module = compile_module(generate(checked), f"reroll_{count}d{sides}_{again}")
    resolver = checked.resolvers()[0]
    ways = finals(count, sides, again)
    denominator = sides ** (2 * count)
    assert sum(ways.values()) == denominator
    for line in (1, count * sides // 2, count * sides):
        tally: Counter[str] = Counter()
        for faces, weight in ways.items():
            band = ("pair" if faces.count(sides) >= 2 else "top" if max(faces) == sides
                    else "over" if sum(faces) >= line else "under")
            tally[band] += weight
        expected = {band: Fraction(tally[band], denominator) for band in ("pair", "top", "over", "under")}
        assert module.odds("r", line=line) == expected
        found = compiler_odds(resolver, {"line": line}, definition_names(checked))
        assert {band: found[band] for band in expected} == expected
    totals: Counter[int] = Counter()
    for faces, weight in ways.items():
        totals[sum(faces)] += weight
    assert module.totals("r") == {t: Fraction(n, denominator) for t, n in sorted(totals.items())}


def test_rerolled_dice_roll_as_their_odds_say() -> None:
    text = 'ruleset "R"\n\nroll r "R" [R-1]\n  roll: d6 reroll 2\n  - 1-6: any "Any"\n'
    module = compile_module(generate(load_text(text, "r.rules", "r").checked), "reroll_rolls")
    rng = random.Random(11)
    seen = Counter(module.r(rng=rng).total for _ in range(36_000))
    for face, n in seen.items():  # 1 and 2 in 2 of 36, 3 to 6 in 8 of 36
        assert abs(n - (2_000 if face <= 2 else 8_000)) < 400, seen
    for seed in range(40):  # what was rolled first, then the face a re-roll gave; the kept face is the last
        result = module.r(rng=random.Random(seed))
        first = result.dice[0]
        assert len(result.dice) == (2 if first <= 2 else 1) and result.kept == (result.dice[-1],) == (result.total,)
