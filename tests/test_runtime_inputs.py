"""What a generated module does with wrong values from the program that imports it (issue 22): a clear
TypeError or ValueError naming the value, never an AttributeError from deep inside, and no loop or
memory without bound."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from tests.conftest import compile_module

RULES = '''ruleset "Inputs"

roll strike "Strike" [T-1]
  input bonus: 0..3 = 0
  roll: 2d6 + bonus
  - 7+: hit "Hit"
  - otherwise: miss "Miss"

lookup load "Load" [T-2]
  input items: 0..10 = 0
  key: items
  - 0-5: light "Light"
  - otherwise: heavy "Heavy"

track stress "Stress" [T-3]
  size: 4

clock healing "Healing" [T-4]
  size: 4
  roll_over: yes

deck fate "Fate" [T-5]
  - ace "Ace"
  - knave "Knave"
      copies: 2
'''


@pytest.fixture(scope="module")
def game() -> Any:
    return compile_module(generate(load_text(RULES, "inputs.rules", "inputs").checked), "runtime_inputs_game")


@pytest.mark.parametrize("rng", [42, "seed", object(), [1, 2]])
def test_a_wrong_generator_is_a_type_error_for_every_kind_of_rule(game: Any, rng: object) -> None:
    for resolver in (game.strike, game.load):  # a lookup rolls no dice, and still says so
        with pytest.raises(TypeError, match=r"rng must be a random\.Random"):
            resolver(rng=rng)
    with pytest.raises(TypeError, match=r"rng must be a random\.Random"):
        game.Fate(rng=rng)
    with pytest.raises(TypeError, match=r"rng must be a random\.Random"):
        game.session(rng)


def test_a_generator_of_any_random_kind_is_taken(game: Any) -> None:
    class Loaded(random.Random):
        def randint(self, a: int, b: int) -> int:
            return b

    assert game.strike(rng=Loaded()).total == 12
    assert game.strike(rng=random.SystemRandom()).outcome.id in ("hit", "miss")
    assert game.Fate(rng=random.Random(3)).draw() is not None

    class Sixes:  # not a Random at all: a test double, or a bot's own dice, rolling through randint
        def randint(self, a: int, b: int) -> int:
            return 6

    assert game.strike(rng=Sixes()).total == 12
    with pytest.raises(TypeError, match=r"no randint\(\) or shuffle\(\)"):
        game.Fate(rng=Sixes())  # a deck shuffles too


@pytest.mark.parametrize("size", [2.5, True, "4", 0, -1, 10**9])
def test_a_track_refuses_a_size_that_is_not_a_whole_number_of_boxes_within_the_cap(game: Any, size: object) -> None:
    with pytest.raises(ValueError, match="size must be"):
        game.Stress(size=size)


@pytest.mark.parametrize("count", [2.5, True, "1", 10**9, -(10**9)])
def test_marking_refuses_what_is_not_a_whole_number_of_boxes_within_the_cap(game: Any, count: object) -> None:
    for track in (game.Stress(size=4), game.Healing(size=4)):
        with pytest.raises(ValueError, match="count must be"):
            track.mark(count)


def test_a_rolling_over_clock_marked_by_many_fills_once_per_lap_and_stops(game: Any) -> None:
    clock = game.Healing(size=4)
    happened = clock.mark(10_000)  # the cap: 2,500 laps, each reported, then done
    assert len(happened) == 2_500 and clock.marked == 0
    assert clock.mark(6) == [happened[0]] and clock.marked == 2


def test_a_track_starting_marked_is_checked_like_a_mark(game: Any) -> None:
    with pytest.raises(ValueError, match="marked must be"):
        game.Stress(size=4, marked=5)
    assert game.Stress(size=4, marked=4).full


def test_an_input_may_be_called_like_the_parameters_of_odds_totals_and_simulate() -> None:
    text = ('ruleset "T"\n\nroll r "R" [T-1]\n  input name: 0..2 = 0\n  input n: 0..2 = 0\n  roll: d6 + name + n\n'
            '  - 6+: hi "Hi"\n  - otherwise: lo "Lo"\n')
    game = compile_module(generate(load_text(text, "names.rules", "names").checked), "runtime_input_names")
    assert game.odds("r", name=2, n=2) == {"hi": Fraction(5, 6), "lo": Fraction(1, 6)}
    assert sum(game.totals("r", name=1).values()) == 1
    assert game.simulate("r", 10, seed=3, name=1, n=0).n == 10
