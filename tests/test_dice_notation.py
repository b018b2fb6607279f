"""Fate dice (`4dF`, `(n)dF`), percentile dice (`d%`) and digit dice (`d66`, `d666`), held against an
enumeration written here: every way the dice can fall, counted."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.model import dice_text
from rulecraft.semantics.odds import definition_names
from rulecraft.semantics.odds import odds as compiler_odds
from tests.conftest import compile_module

RULES = '''ruleset "Fate"

roll ladder "Ladder" [F-1]
  input dice: 1..4 = 4
  input skill: -2..3 = 0
  roll: (dice)dF + skill
  - when total >= 3: great "Great"
  - when total >= 1: fair "Fair"
  - otherwise: poor "Poor"

roll percentile "Percentile" [F-2]
  roll: d% - 1
  - 95+: top "Top"
  - otherwise: rest "Rest"
'''


@pytest.fixture(scope="module")
def game() -> tuple[Any, Any]:
    checked = load_text(RULES, "fate.rules", "fate").checked
    return checked, compile_module(generate(checked), "fate_dice_game")


def enumerated(dice: int, skill: int) -> dict[str, Fraction]:
    ways: Counter[str] = Counter()
    for faces in itertools.product((-1, 0, 1), repeat=dice):
        total = sum(faces) + skill
        ways["great" if total >= 3 else "fair" if total >= 1 else "poor"] += 1
    return {band: Fraction(ways[band], 3**dice) for band in ("great", "fair", "poor")}


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
@pytest.mark.parametrize("skill", [-2, 0, 3])
def test_fate_dice_odds_are_the_enumeration_in_the_compiler_and_the_module(game: Any, dice: int, skill: int) -> None:
    checked, module = game
    resolver = next(r for r in checked.resolvers() if r.name == "ladder")
    expected = enumerated(dice, skill)
    assert module.odds("ladder", dice=dice, skill=skill) == expected
    found = compiler_odds(resolver, {"dice": dice, "skill": skill}, definition_names(checked))
    assert {k: v for k, v in found.items() if k in expected} == expected


def test_fate_dice_roll_each_face_a_third_of_the_time_and_say_what_they_show(game: Any) -> None:
    _, module = game
    rng = random.Random(5)
    faces: Counter[object] = Counter(face for _ in range(750) for face in module.ladder(dice=4, rng=rng).dice)
    assert set(faces) == {"-", "0", "+"} and all(900 < n < 1100 for n in faces.values()), faces
    result = module.ladder(dice=2, skill=1, rng=random.Random(1))
    shown = {"-": -1, "0": 0, "+": 1}
    assert result.total == sum(shown[f] for f in result.dice) + 1
    assert result.trace.startswith("Ladder: rolled 2dF: ")


def test_percentile_dice_are_a_d100(game: Any) -> None:
    _, module = game
    assert module.odds("percentile") == {"top": Fraction(5, 100), "rest": Fraction(95, 100)}
    assert set(module.totals("percentile")) == set(range(0, 100))


def test_fate_and_percentile_dice_print_as_written() -> None:
    checked = load_text(RULES, "fate.rules", "fate").checked
    dice = [node for r in checked.resolvers() for rule in r.dice for node in [rule.expr]]
    assert [dice_text(d.left) for d in dice] == ["(dice)dF", "d100"]  # type: ignore[attr-defined]


def test_d66_and_d666_are_d6s_read_as_digits_against_an_enumeration() -> None:
    text = ('ruleset "D"\n\ntable t "T" [D-1]\n  input cut: 11..66 = 35\n  roll: d66\n'
            '  - when total <= cut: low "Low"\n  - otherwise: high "High"\n\n'
            'table u "U" [D-2]\n  roll: d666 - 111\n  - 0-99: a "A"\n  - otherwise: b "B"\n')
    checked = load_text(text, "d.rules", "d").checked
    module = compile_module(generate(checked), "digits_game")
    for cut in (11, 16, 35, 61, 66):
        low = sum(1 for a, b in itertools.product(range(1, 7), repeat=2) if 10 * a + b <= cut)
        assert module.odds("t", cut=cut) == {"low": Fraction(low, 36), "high": Fraction(36 - low, 36)}
    ways = Counter(100 * a + 10 * b + c - 111 for a, b, c in itertools.product(range(1, 7), repeat=3))
    assert module.totals("u") == {total: Fraction(n, 216) for total, n in sorted(ways.items())}
    rolled = module.t(rng=random.Random(9))
    assert rolled.total in {10 * a + b for a, b in itertools.product(range(1, 7), repeat=2)}
