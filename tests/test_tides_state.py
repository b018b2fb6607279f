"""Tides of Gold played through its game state (issue 26, item 6): the mechanics the document defines act on
each other in the generated module's `game()`: clocks take the segments their rolls give, harm and the
compare-wealth and gossip modifiers reach the rolls, full clocks and tracks set off what the document says,
and coin is spent. What the document leaves out is `unknown`, reported by the checker and resolved in errata.
Line numbers are `cat -n` lines of ../shared/seeds/000_*.txt."""

from __future__ import annotations

import types
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from rulecraft.diagnostics import Code
from tests.test_game_state import Faces  # rolls the faces it is given, in order


def mark(tog: types.ModuleType, target: str, amount: int | None, level: int | None = None) -> Any:
    """An effect, as an outcome or the table would apply it."""
    return tog.Effect("mark", target, amount, level, None, f"mark {target}")


def test_three_failed_consequence_rolls_fill_the_consequence_clock(tog: types.ModuleType) -> None:
    # Lines 57-63: "less than 6: 2 segments; 7-9: 1 segment; 10+: no segments" (6 included: D-TOG-4).
    game = tog.game(rng=Faces(1, 2, 2, 3, 3, 3, 6, 6), sizes={"consequence": 6})
    first = game.roll("consequence_clock", dots=1)
    assert first.result.outcome.id == "two_segments" and game.tracks["consequence"].marked == 2
    game.roll("consequence_clock", dots=1)
    assert game.tracks["consequence"].marked == 4
    third = game.roll("consequence_clock", dots=0)  # a total of exactly 6
    assert game.tracks["consequence"].full and any(c.startswith("Consequence clock is full") for c in third.changes)
    assert game.roll("consequence_clock", dots=1).changes == ()  # 13: no segments, nothing marked
    assert tog.consequence_clock(dots=1, rng=Faces(1, 2)).effects[0].amount == 2  # a plain call only reports


def test_the_obstacle_clock_takes_one_two_and_four_segments(tog: types.ModuleType) -> None:
    # Lines 69-74: "less than 6: no segments; 7-9: 1; 10+: 2; Natural 12: 4 segments".
    game = tog.game(rng=Faces(1, 1, 4, 5, 5, 5, 6, 6), sizes={"obstacle": 8})
    assert game.roll("obstacle_clock", dots=0).changes == ()
    game.roll("obstacle_clock", dots=0)
    assert game.tracks["obstacle"].marked == 1
    game.roll("obstacle_clock", dots=0)
    assert game.tracks["obstacle"].marked == 3
    turn = game.roll("obstacle_clock", dots=0)
    assert turn.result.outcome.id == "four_segments" and game.tracks["obstacle"].marked == 7


def test_harm_at_level_2_lowers_the_action_roll(tog: types.ModuleType) -> None:
    # Line 54: "All actions under that attribute take the penalty while harm remains" (the -2 of level 2).
    assert tog.action_roll(dots=1, rng=Faces(4, 5)).outcome.id == "heroic"  # 10, unharmed
    game = tog.game(rng=Faces(4, 5, 4, 5, 4, 5, 6, 4, 5))
    changes: list[str] = []
    game.apply([mark(tog, "harm", None, 2)], changes)
    assert changes == ["harm recorded at level 2 (-2)"]
    turn = game.roll("action_roll", dots=1)
    assert turn.result.inputs["harm"] == 2 and turn.result.total == 8 and turn.result.outcome.id == "costly"
    game.apply([mark(tog, "harm", None, 2)], changes)  # level 2 is taken: the harm moves up to -3
    assert game.level("harm") == 3 and game.roll("action_roll", dots=1).result.total == 7
    bonus = game.roll("action_roll", dots=1, bonus_die=True)  # 4, 5, 6 keep 5 + 6, plus 1, minus 3
    assert bonus.result.total == 9
    game.apply([tog.Effect("clear", "harm", None, None, None, "clear harm")], changes)  # all harm healed
    healed = game.roll("action_roll", dots=1)
    assert healed.result.inputs["harm"] == 0 and healed.result.outcome.id == "heroic"


def test_a_ship_trait_caps_the_dots_of_an_action_done_with_the_ship(tog: types.ModuleType) -> None:
    # Line 94: "ship TRAIT sets the maximum modifer for any actions done with the ship".
    assert tog.action_roll(dots=3, rng=Faces(3, 4)).total == 10
    assert tog.action_roll(dots=3, with_ship=True, ship_trait=1, rng=Faces(3, 4)).total == 8
    assert tog.action_roll(dots=1, with_ship=True, ship_trait=4, rng=Faces(3, 4)).total == 8  # a cap, not a bonus
    assert tog.odds("action_roll", dots=3, with_ship=True, ship_trait=1) == tog.odds("action_roll", dots=1)


def test_harm_past_minus_3_incapacitates_until_the_table_lifts_it(tog: types.ModuleType) -> None:
    # Line 55: "Become INCAPACITATED if attribute already has -3 harm ...; cannot act until all harm is healed".
    game = tog.game(rng=Faces(3, 4))
    assert game.act("mark", "harm", None, 3) == ("harm recorded at level 3 (-3)",)
    past = game.act("mark", "harm", None, 3)
    assert past[0].startswith("Harm is full: harm goes past the top row") and past[-1] == "now INCAPACITATED"
    with pytest.raises(tog.Forbidden, match="action_roll cannot be rolled now: INCAPACITATED: cannot act"):
        game.roll("action_roll", dots=1)
    game.act("clear", "harm")
    game.act("clear", "incapacitated")  # healed (the document heals only by going home, line 395)
    assert game.roll("action_roll", dots=1).result.total == 8


def test_the_compare_wealth_modifier_reaches_the_action_roll(tog: types.ModuleType) -> None:
    # Lines 272-274: 3+ higher, +2 on all actions; 1-2 lower, -1.
    higher = tog.compare_wealth(own_wealth=5, enemy_wealth=1).total
    lower = tog.compare_wealth(own_wealth=1, enemy_wealth=2).total
    assert (higher, lower) == (2, -1)
    game = tog.game(rng=Faces(3, 4, 3, 5))
    assert game.roll("action_roll", dots=1, wealth_edge=higher).result.outcome.id == "heroic"  # 7 + 1 + 2
    assert game.roll("action_roll", dots=1, wealth_edge=lower).result.outcome.id == "costly"  # 8 + 1 - 1


def test_gossip_adds_2_to_an_engagement_roll_beyond_the_plan_cap(tog: types.ModuleType) -> None:
    # Line 443: "Take +2 on an engagement roll against a faction of your choice"; line 127 caps the plan's
    # modifier at +2, and the gossip's +2 comes on top (D-TOG-20).
    game = tog.game(rng=Faces(3, 3, 3, 3, 4, 4))
    plan = {"bold": True, "vulnerability": True, "aid": True}
    assert game.roll("score_engagement", **plan).result.total == 8
    turn = game.roll("score_engagement", gossip=True, **plan)
    assert turn.result.total == 10 and turn.result.outcome.id == "good"
    assert game.roll("odyssey_engagement", gossip=True).result.total == 10


def test_a_full_fallout_clock_rolls_the_crisis_table(tog: types.ModuleType) -> None:
    # Line 295: "Start related progress clock with 2 segments filled ... If a clock fills, ... a crisis is
    # triggered"; the crisis is rolled on 1d6 (line 299), a 6 here: hull damage.
    game = tog.game(rng=Faces(6), sizes={"fallout_clock": 4})
    assert game.tracks["fallout_clock"].marked == 2
    changes: list[str] = []
    game.apply([mark(tog, "fallout_clock", 1)], changes)
    assert not [c for c in changes if c.startswith("rolled")]
    game.apply([mark(tog, "fallout_clock", 1)], changes)
    rolled = [c for c in changes if c.startswith("rolled crisis")]
    assert len(rolled) == 1 and "Hull damage" in rolled[0]


def test_a_full_sinking_clock_sets_nothing_off(tog: types.ModuleType) -> None:
    # Line 305 never says what a full sinking clock does (D-TOG-25): the game reports it full, and no more.
    game = tog.game(rng=Faces(), sizes={"sinking_clock": 3})
    changes: list[str] = []
    game.apply([mark(tog, "sinking_clock", 3)], changes)
    assert changes == ["Sinking clock is full"]


def test_resistance_marks_stress_and_a_full_stress_track_clears_it_with_a_new_chain(tog: types.ModuleType) -> None:
    # Line 44: "PC takes stress equal to 6 minus the highest dice result"; line 48: on the last box "all stress
    # is gone but you have a new CHAIN".
    game = tog.game(rng=Faces(1, 2, 3, 1), sizes={"stress": 9})
    game.roll("resistance_roll", attribute=2)  # 1, 2: the highest is 2, 4 stress
    assert game.tracks["stress"].marked == 4 and game.resources["chains_held"] == 0
    turn = game.roll("resistance_roll", attribute=2)  # 3, 1: 3 more stress; 7 of 9
    assert game.tracks["stress"].marked == 7 and turn.changes == ("Stress: 7 of 9",)
    game = tog.game(rng=Faces(1, 1), sizes={"stress": 9})
    game.roll("resistance_roll", attribute=1)
    full = game.roll("resistance_roll", attribute=1)  # 5 + 5 passes the last box
    assert any(c.startswith("Stress is full") for c in full.changes)
    assert game.tracks["stress"].marked == 0 and game.resources["chains_held"] == 1


def test_seek_your_anchor_reads_the_stress_marked_and_clears_it(tog: types.ModuleType) -> None:
    # Line 390: "clear stress equal to the highest die ... If you clear more stress than marked, you become
    # homesick".
    game = tog.game(rng=Faces(1, 3, 6), sizes={"stress": 9})
    game.roll("resistance_roll", attribute=1)  # 5 stress
    cleared = game.roll("seek_your_anchor", lowest_attribute=1)
    assert cleared.result.inputs["stress_marked"] == 5 and cleared.result.outcome.id == "cleared"
    assert game.tracks["stress"].marked == 2
    homesick = game.roll("seek_your_anchor", lowest_attribute=1)
    assert homesick.result.outcome.id == "homesick" and game.tracks["stress"].marked == 0


def test_the_coin_roll_spends_coin_and_a_sea_raid_marks_the_stormfront(tog: types.ModuleType) -> None:
    # Line 90: "10+ doesn't use up coin; 7-9 lose coin; 6 or less, lose coin"; line 311: "On a 7-9 mark the
    # box \"stormfront.\""
    game = tog.game(rng=Faces(3, 4, 6, 6, 1, 1, 3, 4), sizes={"stormfront": 3})
    assert game.resources["coin"] == 0  # the document gives no starting coin (D-TOG-29)
    game.resources["coin"] = 3
    assert game.roll("coin_roll", wealth=1).changes == ("Coin: 2",)
    assert game.roll("coin_roll", wealth=1).changes == ()
    game.roll("coin_roll", wealth=1)
    assert game.resources["coin"] == 1
    raid = game.roll("sea_raid", wealth=1)
    assert raid.result.outcome.id == "stormfront" and game.tracks["stormfront"].marked == 1


def test_a_stormfront_point_re_rolls_the_raid_and_keeps_the_highest(tog: types.ModuleType) -> None:
    # Line 317: "1 point: Roll an additional raid or re-roll raid and keep highest" (the player's choice).
    game = tog.game(rng=Faces(6, 6, 2, 5), sizes={"stormfront": 3})
    game.roll("sea_raid", wealth=1)  # 6 + 6 + 1: raided, nothing marked
    game.act("mark", "stormfront", 2)
    turn = game.roll("raid_type", wealth=1, stormfront_reroll=True)  # 2, and 5 rolled again: the 5 is kept
    assert turn.result.total == 5 and turn.changes == ("Stormfront points: 1 of 3",)
    whole = {face: Fraction(1, 6) for face in range(1, 7)}
    best = {k: sum(p * q for (a, p), (b, q) in product(whole.items(), whole.items()) if max(a, b) == k)
            for k in range(1, 7)}
    assert tog.totals("raid_type", wealth=1, stormfront_reroll=True) == best


def test_a_sale_earns_the_price_less_the_profits_decrease(tog: types.ModuleType) -> None:
    # Lines 408-420: the seller roll decreases the total profit by 2, 1 or nothing; the sale price is the coin.
    game = tog.game(rng=Faces(1, 2, 4, 4, 6, 6))
    assert game.roll("seller_roll", price=15).changes == ("Coin: 13",)
    assert game.roll("seller_roll", price=15).changes == ("Coin: 27",)
    assert game.roll("seller_roll", price=1).changes == ("Coin: 28",)
    assert tog.seller_roll(price=1, rng=Faces(1, 1)).effects[0].amount == 0  # never below nothing


def test_a_tides_game_saves_and_loads(tog: types.ModuleType) -> None:
    game = tog.game(rng=Faces(1, 2), sizes={"consequence": 6, "stress": 9})
    game.resources["coin"] = 4
    game.roll("consequence_clock", dots=1)
    again = tog.load_game(game.state())
    assert again.state() == game.state() and again.tracks["consequence"].marked == 2


@pytest.mark.parametrize(("item", "attribute", "erratum"), [
    ("heritage_connect", "dice", "D-TOG-6"),
    ("action_roll", "max_dots", "D-TOG-19"),
    ("resistance_roll", "min_attribute", "D-TOG-21"),
    ("coin", "start", "D-TOG-29"),
])
def test_values_the_document_leaves_out_are_unknown_and_resolved(tog_loaded: Any, item: str, attribute: str,
                                                                  erratum: str) -> None:
    reported = [d for d in tog_loaded.report.diagnostics
                if d.code == Code.MISSING and d.message == f"`{item}.{attribute}` is unknown"]
    assert len(reported) == 1 and reported[0].severity == "note"  # a note: its erratum resolves it
    applied = next(e for e in tog_loaded.checked.errata if e.id == erratum)
    assert any("MISSING" in r.codes and item in r.items for r in applied.resolves)
