"""Wyrd Wolds played through its game state (issue 26, item 6): harm's penalties reach the rolls, level-3 harm
incapacitates unless helped or pushing, pushing and resisting cost stress, recovery fills the healing clock,
which heals harm, new harm clears it, and opposed fortune rolls are a resolver. What the document leaves out
(the stress track's length, trauma) stays `unknown`, reported by the checker. Line numbers are `cat -n` lines of
../shared/seeds/001_*.txt."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from rulecraft.api import Loaded, load
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data, to_html
from rulecraft.diagnostics import Code
from tests.conftest import ROOT, compile_module
from tests.test_game_state import Faces  # rolls the faces it is given, in order

STRESS = 9  # the document gives the stress track no length (D-WW-5): a game is started with one


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    return load(str(ROOT / "rulesets" / "wyrd_wolds.rules"))


@pytest.fixture(scope="module")
def ww(loaded: Loaded) -> types.ModuleType:
    return compile_module(generate(loaded.checked), "wyrd_wolds_state")


def harm(ww: types.ModuleType, game: Any, level: int) -> list[str]:
    """The GM's ruling: harm of `level` (line 501: "record the specific injury ... equal to the level")."""
    return list(game.act("mark", "harm", None, level))


def test_moderate_harm_takes_a_die_from_the_action_and_resistance_rolls(ww: types.ModuleType) -> None:
    # Line 505: the penalty at the end of the row applies; level 2 is "-1D" (line 516).
    game = ww.game(rng=Faces(*[3] * 12), sizes={"stress": STRESS})
    assert len(game.roll("action_roll", rating=2).result.dice) == 2
    assert harm(ww, game, 2) == ["harm recorded at level 2 (Moderate)"]
    turn = game.roll("action_roll", rating=2)
    assert turn.result.inputs["moderate_harm"] is True and len(turn.result.dice) == 1
    assert len(game.roll("resistance_roll", attribute=2).result.dice) == 1
    assert len(game.roll("action_roll", rating=2, moderate_harm=False).result.dice) == 2  # it does not apply here
    harm(ww, game, 1)
    assert game.row("harm", 1) == 1 and game.roll("action_roll", rating=2).result.inputs["moderate_harm"]


def test_level_3_harm_incapacitates_unless_helped_or_pushing(ww: types.ModuleType) -> None:
    # Line 505: "incapacitated and can't do anything unless you have help from someone else or push yourself".
    game = ww.game(rng=Faces(*[5] * 12), sizes={"stress": STRESS})
    harm(ww, game, 3)
    assert game.value("incapacitated")
    with pytest.raises(ww.Forbidden, match="action_roll cannot be rolled now: Incapacitated: When you're impaired"):
        game.roll("action_roll", rating=2)
    assert game.roll("action_roll", rating=2, assistance=True).changes == ()
    pushed = game.roll("action_roll", rating=2, push_to_act=True)  # line 217: take action when incapacitated
    assert pushed.changes == ("Stress: 2 of 9",)
    game.act("clear", "harm", 1)  # healed a level: no longer in the top row
    assert not game.value("incapacitated") and game.roll("action_roll", rating=2).result.outcome.id == "partial"


def test_pushing_yourself_costs_two_stress_on_every_roll_that_allows_it(ww: types.ModuleType) -> None:
    # Lines 211-217: "For each bonus you choose below, take 2 stress".
    game = ww.game(rng=Faces(*[4] * 12), sizes={"stress": STRESS})
    assert game.roll("action_roll", rating=1, push_or_bargain="push").changes == ("Stress: 2 of 9",)
    assert game.roll("action_roll", rating=1, push_or_bargain="bargain").changes == ()  # a bargain costs no stress
    assert game.roll("downtime_roll", rating=1, push=True).changes == ("Stress: 4 of 9",)
    turn = game.roll("long_term_project", rating=1, push=True)
    assert turn.changes[0] == "Stress: 6 of 9" and turn.changes[1].startswith("Long-term Project: 2 of")


def test_resisting_costs_six_stress_less_the_highest_die_and_a_critical_clears_one(ww: types.ModuleType) -> None:
    # Line 547: "6 stress ... minus the highest die result"; Daniel rolls a 2 and marks 4 (line 207).
    game = ww.game(rng=Faces(2, 1, 4, 6, 6, 6), sizes={"stress": STRESS})
    assert game.roll("resistance_roll", attribute=2).changes == ("Stress: 4 of 9",)
    assert game.roll("resistance_roll", attribute=1).changes == ("Stress: 6 of 9",)  # "if you rolled a 4, 2 stress"
    assert game.roll("resistance_roll", attribute=3).changes == ("Stress: 5 of 9",)  # a critical: clear 1 stress
    with pytest.raises(ValueError, match="stress has no size"):
        ww.game(rng=Faces(3)).roll("resistance_roll", attribute=1)  # D-WW-5: the document gives none


def test_recovery_fills_the_healing_clock_which_heals_every_harm_a_level(ww: types.ModuleType) -> None:
    # Lines 842-848: Cross has level 3 and level 1 harm; a critical gives five segments; four fill the clock,
    # every harm drops a level ("Battered" goes away) and the fifth segment rolls over.
    game = ww.game(rng=Faces(6, 6))
    harm(ww, game, 3)
    harm(ww, game, 1)
    turn = game.roll("recovery", healer_rating=2)
    assert turn.result.outcome.id == "critical"
    assert game.tracks["harm"].rows == {1: [], 2: ["harm"], 3: []}
    assert game.tracks["healing_clock"].marked == 1 and game.tracks["healing_clock"].size == 4  # D-WW-3
    assert "harm (level 1) is healed" in turn.changes and "harm drops to level 2" in turn.changes


def test_new_harm_clears_the_healing_clock_and_treatment_costs_stress(ww: types.ModuleType) -> None:
    # Line 854: "Whenever you suffer new harm, clear any ticks on your healing clock"; line 850: healing yourself
    # takes 2 stress, toughing it out 1 (and rolls 0d: two dice, the lower).
    game = ww.game(rng=Faces(4, 5, 2, 3), sizes={"stress": STRESS})
    healed = game.roll("recovery", healer_rating=2, treatment="self_treated")
    assert healed.changes == ("Stress: 2 of 9", "Healing clock: 2 of 4")
    assert harm(ww, game, 1) == ["harm recorded at level 1 (Lesser)", "Healing clock: 0 of 4"]
    tough = game.roll("recovery", healer_rating=2, treatment="tough_it_out")
    assert tough.result.outcome.id == "bad" and tough.changes == ("Stress: 3 of 9", "Healing clock: 1 of 4")


def test_harm_past_the_top_row_is_the_catastrophic_consequence(ww: types.ModuleType) -> None:
    # D-WW-2: lines 507 and 592 against the caption (519): past level 3 is the catastrophic, permanent consequence;
    # level 4 "Fatal" is harm given as such (line 525), which kills unless resisted (line 591).
    game = ww.game()
    harm(ww, game, 3)
    past = harm(ww, game, 3)
    assert past[0].startswith("Harm is full: harm goes past the top row: If you run out of spaces on the top row")
    assert game.tracks["harm"].add(4, "Stabbed in the Heart") == ["Stabbed in the Heart at level 4: Fatal"]


def test_an_opposed_fortune_roll_compares_each_sides_result(ww: types.ModuleType) -> None:
    # Line 617: "make a fortune roll for each side ..., then ... comparing their performance levels".
    def level(dice: tuple[int, ...]) -> int:
        return 4 if dice.count(6) >= 2 else 3 if 6 in dice else 2 if max(dice) >= 4 else 1

    for ours, theirs in product(range(1, 5), repeat=2):
        counts = {"first_side": 0, "even": 0, "other_side": 0}
        for one in product(range(1, 7), repeat=ours):
            for other in product(range(1, 7), repeat=theirs):
                diff = level(one) - level(other)
                counts["first_side" if diff > 0 else "even" if diff == 0 else "other_side"] += 1
        whole = 6 ** (ours + theirs)
        assert ww.odds("opposed_fortune", side_dice=ours, other_dice=theirs) == {
            k: Fraction(v, whole) for k, v in counts.items()}, (ours, theirs)
    assert ww.opposed_fortune(side_dice=2, other_dice=1, rng=Faces(6, 6, 6)).outcome.id == "first_side"  # 4 against 3


def test_the_incapacitated_text_and_what_the_state_does_reach_every_output(loaded: Loaded) -> None:
    data = export_data(loaded.checked)
    named = {d["name"]: d for d in data["definitions"]}
    assert named["incapacitated"]["text"].startswith("When you're impaired by harm in the top row")
    assert named["incapacitated"]["details"]["while"]["expr"] == "level(harm) >= 3"
    assert [e["text"] for e in named["harm"]["marked_effects"]] == ["clear healing_clock"]
    assert [e["text"] for e in named["healing_clock"]["full_effects"]] == ["clear harm 1"]
    html = to_html(data)
    assert "can&#39;t do anything unless you have help" in html or "can't do anything unless you have help" in html
    assert "Push yourself:</span> → mark 2 boxes of Stress" in html


def test_what_the_document_leaves_out_is_reported(loaded: Loaded) -> None:
    missing = {(d.code, d.message) for d in loaded.report.diagnostics}
    assert (Code.MISSING, "the document gives no size for `stress`") in missing
    assert (Code.MISSING, "`stress.on_full` is unknown") in missing  # trauma (D-WW-5)


def test_rulecraft_play_refuses_the_incapacitated_and_lets_help_through(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    commands = "mark harm at 3\naction_roll\naction_roll assistance=yes\nstate\n"
    done = subprocess.run([sys.executable, "-m", "rulecraft", "play", "wyrd_wolds", "--seed", "3", "--size",
                           f"stress={STRESS}"], cwd=ROOT, input=commands, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "  → harm recorded at level 3 (Severe)" in out
    assert "refused: action_roll cannot be rolled now: Incapacitated:" in out
    assert "in force: Incapacitated" in out
