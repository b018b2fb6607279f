"""Truth: exact odds agree three ways for every roll and every input combination.

1. the generated module's odds() (compiled expression, distinct dice readings),
2. the compiler's interpreter (rulecraft.semantics.odds, reading the model),
3. exhaustive enumeration of the generated resolver over every sequence of dice.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from rulecraft import model as m
from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.semantics.evaluate import EvalError
from rulecraft.semantics.odds import distribution, input_grid, odds
from tests.conftest import ROOT, compile_module

MAX_SEQUENCES = 6**4  # dice sequences enumerated per input combination at most
BUDGET = 6_000  # sequences per roll, over all its input combinations (keeps CI in minutes)


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


RULESETS = [*sorted((ROOT / "rulesets").glob("*.rules")), ROOT / "tests" / "fixtures" / "dice_forms.rules"]


@pytest.fixture(scope="module", params=RULESETS, ids=lambda path: path.stem)
def compiled(request):  # type: ignore[no-untyped-def]
    loaded = load(str(request.param))
    return loaded.checked, compile_module(generate(loaded.checked), f"truth_{request.param.stem}")


def test_every_roll_has_identical_interpreted_and_compiled_odds(compiled) -> None:  # type: ignore[no-untyped-def]
    checked, module = compiled
    names = frozenset(d.name for d in checked.definitions)
    compared = 0
    for resolver in dice_resolvers(checked):
        for inputs in input_grid(resolver):
            try:
                interpreted = odds(resolver, inputs, names)
            except EvalError:
                with pytest.raises(ValueError):
                    module.odds(resolver.name, **inputs)
                continue
            compiled_odds = module.odds(resolver.name, **inputs)
            assert compiled_odds == interpreted, (resolver.name, inputs)
            totals = module.totals(resolver.name, **inputs)
            assert totals == distribution(resolver, inputs, names).totals, (resolver.name, inputs)
            assert list(totals) == sorted(totals) and sum(totals.values()) == 1
            assert sum(compiled_odds.values()) == 1
            compared += 1
    assert compared > 0 or not dice_resolvers(checked)


class Branching(random.Random):
    """Replays a prefix of die faces, then answers 1 to every further die, noting each die's size."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        super().__init__(0)
        self.prefix = prefix
        self.faces: list[int] = []
        self.sizes: list[int] = []

    def randint(self, a: int, b: int) -> int:
        assert a == 1 and b >= 1
        face = self.prefix[len(self.faces)] if len(self.faces) < len(self.prefix) else 1
        self.faces.append(face)
        self.sizes.append(b)
        return face


def enumerate_resolver(call, limit: int) -> tuple[dict[str, Fraction], int] | None:  # type: ignore[no-untyped-def]
    """Every sequence of dice the resolver can roll, each exactly once: outcome odds and the count.

    Walks the tree of dice: each run replays a prefix, takes 1 for every die after it, and
    schedules the other faces of those later dice as new prefixes. Dice sizes may depend on
    earlier dice (chains, pools sized by inputs), so nothing is assumed about them.
    """
    tally: dict[str, Fraction] = {}
    stack: list[tuple[int, ...]] = [()]
    leaves = 0
    while stack:
        prefix = stack.pop()
        rng = Branching(prefix)
        result = call(rng)
        leaves += 1
        if leaves > limit:
            return None
        weight = Fraction(1)
        for size in rng.sizes:
            weight /= size
        key = result.outcome.id if result.outcome else "none"
        tally[key] = tally.get(key, Fraction(0)) + weight
        for position in range(len(prefix), len(rng.faces)):
            for face in range(2, rng.sizes[position] + 1):
                stack.append((*rng.faces[:position], face))
    return tally, leaves


def test_odds_equal_exhaustive_enumeration_of_the_resolver(compiled) -> None:  # type: ignore[no-untyped-def]
    checked, module = compiled
    enumerated = 0
    for resolver in dice_resolvers(checked):
        if any(b.chain is not None for b in resolver.bands):
            continue  # a chain rolls the next table too; its own odds are tested on that table
        spent = 0
        for inputs in input_grid(resolver):
            try:
                expected = {k: v for k, v in module.odds(resolver.name, **inputs).items() if v}
            except ValueError:
                continue  # a die whose faces are to be supplied: tested in test_dice_forms
            function = module.RESOLVERS[resolver.name]
            found = enumerate_resolver(lambda rng, f=function, i=inputs: f(**i, rng=rng),
                                       min(MAX_SEQUENCES, BUDGET - spent))
            if found is None:
                continue
            exhaustive, leaves = found
            spent += leaves
            assert exhaustive == expected, (resolver.name, inputs)
            enumerated += 1
    assert enumerated > 0 or not dice_resolvers(checked)


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
