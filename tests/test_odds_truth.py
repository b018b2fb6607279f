"""Truth: exact odds agree three ways for every roll and every input combination.

1. the generated module's odds() (compiled expression, multiset enumeration),
2. the compiler's interpreter (compiler.odds, reading the model),
3. exhaustive enumeration of the generated resolver over every sequence of dice.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from compiler import model as m
from compiler.odds import input_grid, odds

MAX_SEQUENCES = 6**5


class Scripted(random.Random):
    """An RNG whose randint returns a preset sequence of faces."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def dice_resolvers(checked: m.CheckedRuleset) -> list[m.Resolver]:
    return [r for r in checked.resolvers() if r.dice and r.bands]


def test_every_roll_has_identical_interpreted_and_compiled_odds(tog_loaded, tog) -> None:  # type: ignore[no-untyped-def]
    checked = tog_loaded.checked
    names = frozenset(d.name for d in checked.definitions)
    compared = 0
    for resolver in dice_resolvers(checked):
        for inputs in input_grid(resolver):
            compiled = tog.odds(resolver.name, **inputs)
            interpreted = odds(resolver, inputs, names)
            assert compiled == interpreted, (resolver.name, inputs)
            assert sum(compiled.values()) == 1
            compared += 1
    assert compared > 100


def sequences_for(module, name: str, inputs: dict[str, object]) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """How many dice the resolver rolls and their size, found by rolling once with a counting RNG."""

    class Counting(random.Random):
        def __init__(self) -> None:
            super().__init__(1)
            self.calls: list[int] = []

        def randint(self, a: int, b: int) -> int:
            self.calls.append(b)
            return b

    rng = Counting()
    result = module.RESOLVERS[name](**inputs, rng=rng)
    main = len(result.dice)
    return main, (rng.calls[0] if rng.calls else 0)


def test_odds_equal_exhaustive_enumeration_of_the_resolver(tog_loaded, tog) -> None:  # type: ignore[no-untyped-def]
    checked = tog_loaded.checked
    enumerated = 0
    for resolver in dice_resolvers(checked):
        if any(b.chain is not None for b in resolver.bands):
            continue  # a chain rolls the next table too; its own odds are tested on that table
        for inputs in input_grid(resolver):
            count, sides = sequences_for(tog, resolver.name, inputs)
            if sides == 0 or sides**count > MAX_SEQUENCES:
                continue
            tally: Counter[str] = Counter()
            for faces in itertools.product(range(1, sides + 1), repeat=count):
                result = tog.RESOLVERS[resolver.name](**inputs, rng=Scripted(faces + (1,) * 8))
                tally[result.outcome.id if result.outcome else "none"] += 1
            total = sides**count
            exhaustive = {k: Fraction(v, total) for k, v in tally.items()}
            expected = {k: v for k, v in tog.odds(resolver.name, **inputs).items() if v}
            assert exhaustive == expected, (resolver.name, inputs)
            enumerated += 1
    assert enumerated > 100


@pytest.mark.parametrize("dots, expected", [
    (2, {"failure": Fraction(1, 6), "costly": Fraction(5, 12), "heroic": Fraction(7, 18),
         "advantage": Fraction(1, 36)}),
    (0, {"failure": Fraction(15, 36), "costly": Fraction(15, 36), "heroic": Fraction(5, 36),
         "advantage": Fraction(1, 36)}),
])
def test_action_roll_odds_match_a_hand_count(tog, dots: int, expected: dict[str, Fraction]) -> None:  # type: ignore[no-untyped-def]
    assert tog.odds("action_roll", dots=dots) == expected


def test_bonus_die_keeps_the_highest_two_of_three(tog) -> None:  # type: ignore[no-untyped-def]
    counts: Counter[str] = Counter()
    for faces in itertools.product(range(1, 7), repeat=3):
        top = sorted(faces)[1:]
        total = sum(top) + 2
        if top == [6, 6]:
            counts["advantage"] += 1
        elif total >= 10:
            counts["heroic"] += 1
        elif total >= 7:
            counts["costly"] += 1
        else:
            counts["failure"] += 1
    expected = {k: Fraction(counts[k], 216) for k in ("failure", "costly", "heroic", "advantage")}
    assert tog.odds("action_roll", dots=2, bonus_die=True) == expected
