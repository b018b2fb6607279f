"""Errant played through its game state (issue 26, item 6): the navigation DV of the Pace rows in force is summed,
Orient's -4 reaches the next navigation Check and no other, and one chase roll of both sides says which dice match
across sides and which side rolled lowest. What the document leaves open is in errata D-ERR-19 and D-ERR-23.
Line numbers are `cat -n` lines of ../shared/seeds/003_*.txt."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from tests.conftest import ROOT, compile_module
from tests.test_game_state import Faces  # rolls the faces it is given, in order
from tests.test_play import answers

# Lines 155-162: the Navigation DV of each Pace row.
TERRAIN = {"other": 0, "rough": 2, "wild": 4}
WEATHER = {"fair": 0, "inclement": 2, "severe": 4}
MAPS = {"none": 0, "detailed": -4, "general": -2, "misleading_2": 2, "misleading_3": 3, "misleading_4": 4}


@pytest.fixture(scope="module")
def err_loaded() -> Any:
    return load(str(ROOT / "rulesets" / "errant.rules"))


@pytest.fixture(scope="module")
def err(err_loaded: Any) -> types.ModuleType:
    return compile_module(generate(err_loaded.checked), "errant_state")


def test_navigation_dv_sums_every_pace_row_in_force(err: types.ModuleType) -> None:
    # Lines 155-162: "Deserts, forests, hills, broken land ... Navigation DV +2", "Jungle, mountain, swamps ...
    # +4", "Night-time/Darkness ... +4", "Inclement weather ... +2", "Severe weather ... +4", "Detailed map ...
    # -4", "General map or specific directions ... -2", "Misleading map or directions ... +2 to +4"; line 36:
    # "Guide sets DV for Check." Every combination adds up (D-ERR-23).
    for (terrain, t), night, (weather, w), (map_, m) in product(TERRAIN.items(), (False, True), WEATHER.items(),
                                                                MAPS.items()):
        found = err.navigation_dv(dv=4, terrain=terrain, night=night, weather=weather, map=map_).total
        assert found == 4 + t + 4 * night + w + m, (terrain, night, weather, map_)
    assert err.navigation_dv(dv=6, terrain="wild", night=True, weather="severe", map="misleading_4").total == 22
    assert err.navigation_dv(dv=0, map="detailed").total == -4


def test_the_summed_dv_decides_the_navigation_check(err: types.ModuleType) -> None:
    # Line 9: "Check = D20 > DV and < Attribute"; a rough night in inclement weather with a general map raises a
    # DV of 4 to 10, so a 9 that passes on open ground fails.
    dv = err.navigation_dv(dv=4, terrain="rough", night=True, weather="inclement", map="general").total
    assert dv == 10
    game = err.game(rng=Faces(9, 9))
    assert game.roll("navigation_check", dv=4, attribute=12).result.outcome.id == "success"
    assert game.roll("navigation_check", dv=dv, attribute=12).result.outcome.id == "failure"
    # With no modifier it is the Check of line 9, with the same odds at every DV.
    for value in range(-10, 31):
        assert err.odds("navigation_check", dv=value, attribute=10) == err.odds("check", dv=value, attribute=10)


def test_orient_takes_4_off_the_next_navigation_check_only(err: types.ModuleType) -> None:
    # Line 124: "Orient - DV of next navigation Check is -4."
    plain = err.travel_turn_actions(action="orient")
    assert [(e.verb, e.target, e.input, e.amount) for e in plain.effects] == [("carry", "navigation_check", "dv", -4)]
    game = err.game(rng=Faces(5, 5, 5))
    turn = game.roll("travel_turn_actions", action="orient")
    assert turn.changes == ("next navigation_check: dv -4",)
    assert game.roll("check", dv=6).result.outcome.id == "failure"  # another Check is not a navigation Check
    oriented = game.roll("navigation_check", dv=6)  # 5 > 6 - 4
    assert oriented.result.inputs["dv"] == 2 and oriented.result.outcome.id == "success"
    assert game.carried == {}  # spent by that Check
    assert game.roll("navigation_check", dv=6).result.outcome.id == "failure"  # the next one is back at 6
    assert game.roll("travel_turn_actions", action="forage").changes == ()  # only Orient carries


def test_orient_below_dv_0_succeeds_automatically(err: types.ModuleType) -> None:
    # Line 37: "If DV < 0, Check automatically succeeds." A detailed map (-4, line 160) and Orient (-4) on a DV of
    # 6 give -2: even a 20, which is not under the Attribute, succeeds.
    dv = err.navigation_dv(dv=6, map="detailed").total
    game = err.game(rng=Faces(20))
    game.roll("travel_turn_actions", action="orient")
    turn = game.roll("navigation_check", dv=dv, attribute=10)
    assert turn.result.inputs["dv"] == -2 and turn.result.outcome.id == "automatic_success"


def test_orient_is_kept_in_a_saved_game(err: types.ModuleType) -> None:
    game = err.game(rng=Faces(5))
    game.roll("travel_turn_actions", action="orient")
    again = err.load_game(game.state())
    assert again.state() == game.state() and again.carried == {"navigation_check": {"dv": -4}}
    assert again.roll("navigation_check", dv=6).result.inputs["dv"] == 2


def chase_by_hand(ours: int, theirs: int) -> Counter[str]:
    """How many of the 4^(ours + theirs) rolls raise each chase flag (lines 431-437)."""
    counts: Counter[str] = Counter()
    for a in product(range(1, 5), repeat=ours):
        for b in product(range(1, 5), repeat=theirs):
            counts["we_escape"] += a.count(4) >= 2
            counts["they_escape"] += b.count(4) >= 2
            counts["our_doubles"] += len(set(a)) < len(a)
            counts["their_doubles"] += len(set(b)) < len(b)
            counts["dice_match"] += bool(set(a) & set(b))
            counts["we_rolled_lowest"] += sum(a) < sum(b)
            counts["they_rolled_lowest"] += sum(b) < sum(a)
    return counts


@pytest.mark.parametrize(("ours", "theirs"), [(2, 2), (3, 1), (0, 2), (4, 3)])
def test_chase_flags_have_the_odds_counted_by_hand(err: types.ModuleType, ours: int, theirs: int) -> None:
    # Lines 431-437, every face of both sides' d4s enumerated.
    found = err.flag_odds("chase_turn", our_dice=ours, their_dice=theirs)
    counts = chase_by_hand(ours, theirs)
    for flag in ("we_escape", "they_escape", "our_doubles", "their_doubles", "dice_match", "we_rolled_lowest",
                 "they_rolled_lowest"):
        assert sum(found[flag].values()) == Fraction(counts[flag], 4 ** (ours + theirs)), flag


def test_dice_matching_across_sides_and_the_lowest_side(err: types.ModuleType) -> None:
    # Line 434: "If any dice across sides match, characters make ranged Attack Rolls."; line 437: "Side that
    # rolled lowest each Turn rolls for a Chase development".
    turn = err.game(rng=Faces(1, 3, 3, 2)).roll("chase_turn", our_dice=2, their_dice=2)  # 1, 3 against 3, 2
    assert turn.result.flags == ("dice_match", "we_rolled_lowest")
    apart = err.chase_turn(our_dice=2, their_dice=2, rng=Faces(1, 2, 3, 4))  # no face in common; 3 against 7
    assert apart.flags == ("we_rolled_lowest",)
    level = err.chase_turn(our_dice=2, their_dice=2, rng=Faces(1, 4, 2, 3))  # 5 and 5: no side rolled lowest
    assert level.flags == ()
    no_roll = err.chase_turn(our_dice=0, their_dice=1, rng=Faces(1))  # a failed Sprint: no movement roll (436)
    assert no_roll.flags == ("we_rolled_lowest",)


def test_two_4s_escape_and_are_doubles_on_either_side(err: types.ModuleType) -> None:
    # Line 431: "If two 4's are rolled, that side escapes/catches quarry."; 432: "If character rolls doubles, that
    # side makes Attack Rolls or other actions." Both sides rolling two 4s raises both (D-ERR-19).
    both = err.chase_turn(our_dice=2, their_dice=3, rng=Faces(4, 4, 4, 4, 1))  # 8 against 9
    assert both.flags == ("we_escape", "they_escape", "our_doubles", "their_doubles", "dice_match",
                          "we_rolled_lowest")
    theirs = err.chase_turn(our_dice=3, their_dice=2, rng=Faces(1, 1, 2, 3, 3))
    assert theirs.flags == ("our_doubles", "their_doubles", "we_rolled_lowest")


def test_errata_say_what_the_document_leaves_open(err_loaded: Any) -> None:
    errata = {e.id: e for e in err_loaded.checked.errata}
    assert "misleading_2" in errata["D-ERR-4"].text or "navigation_dv" in errata["D-ERR-4"].text
    assert "Orient" in errata["D-ERR-23"].text and "navigation_dv" in errata["D-ERR-23"].text
    assert "equal totals" in errata["D-ERR-19"].text and "Sprint" in errata["D-ERR-19"].text


def test_play_carries_orient_to_the_next_navigation_check(tmp_path: Path) -> None:
    commands = "roll travel_turn_actions action=orient\nstate\nroll navigation_check dv=6\nstate\n"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "rulecraft", "play", "errant", "--seed", "3"], cwd=ROOT,
                          input=commands, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and done.stderr == ""
    said = answers(done.stdout)
    assert "  → next navigation_check: dv -4" in said["roll travel_turn_actions action=orient"][0]
    before, after = said["state"]
    assert "carried: -4 to dv of the next navigation_check" in before
    assert not any(line.startswith("carried") for line in after)
    assert "  carried from before: dv -4" in said["roll navigation_check dv=6"][0]
