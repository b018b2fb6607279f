"""The dice-ladder game played through its game state (issue 26, item 6): harm flows from HP to critical harm
and STR in the generated module's `game()`, from one attacker or several with dice of their own sizes, and the
reaction roll sets an NPC's reaction that won leverage improves. Line numbers are `cat -n` lines of
../shared/seeds/002_*.txt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.diagnostics import Code
from tests.conftest import ROOT, compile_module
from tests.test_game_state import Faces  # rolls the faces it is given, in order


@pytest.fixture(scope="module")
def lad_loaded() -> Any:
    return load(str(ROOT / "rulesets" / "dice_ladder.rules"))


@pytest.fixture(scope="module")
def lad(lad_loaded: Any) -> types.ModuleType:
    return compile_module(generate(lad_loaded.checked), "generated_dice_ladder_state")


def character(lad: types.ModuleType, *faces: int, hp: int = 6, strength: int = 8) -> Any:
    """A game of one character with `hp` HP left and a STR die of size `strength` (D-LAD-1: the document gives
    neither)."""
    game = lad.game(rng=Faces(*faces))
    game.resources["hp"], game.resources["strength"] = hp, strength
    return game


def test_harm_subtracts_from_hp(lad: types.ModuleType) -> None:
    # Line 63: "roll your weapon's damage die and subtract your opponents armor. Deal what's left as harm—first
    # to HP"; line 81: "Harm subtracts from HP."
    game = character(lad, 5, 4)
    first = game.roll("attack", weapon="d6", armor=1)  # 5 - 1: 4 harm
    assert first.result.inputs["hp"] == 6 and first.result.outcome.id == "harm"
    assert first.changes == ("HP: 2",) and game.resources["hp"] == 2
    exact = character(lad, 3, hp=3)
    turn = exact.roll("attack", weapon="d6")  # 3 harm on 3 HP: all of it goes to HP, none is left for STR
    assert turn.result.outcome.id == "harm" and exact.resources["hp"] == 0 and exact.conditions == set()
    assert game.roll("attack", weapon="d4", armor=3).changes == ("HP: 1",)  # a 4 on the d4, less 3 armor


def test_harm_past_hp_is_critical_harm_and_a_failed_test_lowers_str(lad: types.ModuleType) -> None:
    # Line 63: "first to HP, then to STR"; line 81: "Once out of HP, harm becomes critical harm"; line 82: "roll a
    # test with the affected attribute. If you fail, lower the attribute one step—you're taken out of the fight".
    game = character(lad, 6, 3, hp=4)
    turn = game.roll("attack", weapon="d8")  # 6 harm on 4 HP: critical harm, a STR test on the d8 rolls 3
    assert turn.result.outcome.id == "critical"
    assert turn.changes[0] == "HP: 0" and turn.changes[1].startswith("rolled critical_harm: ")
    assert "Lowered" in turn.changes[1] and turn.changes[2:] == ("STR: 6", "now Taken out")
    assert game.resources == {"hp": 0, "strength": 6} and game.conditions == {"taken_out"}


def test_once_out_of_hp_any_harm_is_critical_harm(lad: types.ModuleType) -> None:
    # Line 81: "Once out of HP, harm becomes critical harm"; a pass on the test (DN 4, line 6) lowers nothing.
    game = character(lad, 1, 5, 2, 1, hp=0, strength=6)
    passed = game.roll("attack", weapon="d4")  # 1 harm on 0 HP; the STR test on a d6 rolls 5: passed
    assert passed.result.outcome.id == "critical" and passed.changes[1].startswith("rolled critical_harm")
    assert game.resources["strength"] == 6 and game.conditions == set()
    failed = game.roll("attack", weapon="d4")  # 2 harm; the test rolls 1: STR lowered d6 to d4
    assert failed.result.inputs["hp"] == 0 and game.resources["strength"] == 4


def test_critical_harm_on_a_d4_is_death_and_the_dead_roll_nothing(lad: types.ModuleType) -> None:
    # Line 83: "When an attribute would be lowered below d4 from critical harm, you are dead."
    game = character(lad, 3, 2, hp=1, strength=4)
    turn = game.roll("attack", weapon="d6")  # 3 harm on 1 HP; the STR test on the d4 rolls 2
    assert "now Dead" in turn.changes and game.resources["strength"] == 4 and game.conditions == {"dead"}
    with pytest.raises(lad.Forbidden, match="test cannot be rolled now: Dead"):
        game.roll("test")


def test_str_is_read_from_the_game_and_given_inputs_win(lad: types.ModuleType) -> None:
    # The critical harm test reads STR's die (D-LAD-8); a referee naming another attribute gives it.
    game = character(lad, 9, strength=10)
    assert game.roll("critical_harm").result.inputs["attribute"] == 10
    other = character(lad, 2, strength=10)
    turn = other.roll("critical_harm", attribute=6)  # a fail on the given d6 still lowers the game's STR
    assert turn.result.values["lowered_to"] == 4 and other.resources["strength"] == 8


def test_a_plain_attack_only_reports_its_effects(lad: types.ModuleType) -> None:
    result = lad.attack(weapon="d8", hp=2, rng=Faces(5))
    assert result.outcome.id == "critical"
    assert [(e.verb, e.target, e.amount) for e in result.effects] == [("clear", "hp", None), ("roll", "critical_harm",
                                                                                            None)]
    assert [(e.verb, e.target, e.amount) for e in lad.attack(weapon="d8", rng=Faces(5)).effects] == [
        ("spend", "hp", 5)]


def test_several_attackers_spend_hp_and_harm_past_it_is_critical(lad: types.ModuleType) -> None:
    # Line 64: "roll all dice and use the highest single die result. Then add one harm for each attacker beyond
    # the first"; line 81: "Once out of HP, harm becomes critical harm".
    game = character(lad, 2, 3, 1, hp=6)
    turn = game.roll("several_attackers", weapon="d6", second="d8", third="d4", armor=1)  # 3 + 2 - 1 = 4 harm
    assert turn.result.values == {"harm": 4} and turn.changes == ("HP: 2",)
    game = character(lad, 2, 5, 1, 1, hp=4)  # 5 + 2 - 1 = 6 harm on 4 HP; the STR test on the d8 rolls 1
    turn = game.roll("several_attackers", weapon="d6", second="d8", third="d4", armor=1)
    assert turn.changes[0].startswith("rolled critical_harm: ")
    assert turn.changes[-1] == "HP: 0 (not enough: it stops at 0)"
    assert game.resources["strength"] == 6 and game.conditions == {"taken_out"}


def test_the_reaction_roll_sets_the_reaction_and_won_leverage_improves_it(lad: types.ModuleType) -> None:
    # Lines 53-59: the reaction table; line 61: "you may improve an NPC's reaction by winning a WIL contest"
    # (D-LAD-9: one row).
    game = character(lad, 5, 6, 2, 2, 4)
    assert game.roll("reaction", wil="d6").changes == ("NPC's reaction: 2 of 5",)  # 5: Wary
    assert game.roll("leverage", mine="d6", theirs="d6").changes == ("NPC's reaction: 3 of 5",)  # 6 against 2
    assert game.roll("leverage", mine="d6", theirs="d4").changes == ()  # 2 against 4: lost
    assert lad.leverage(mine="d8", theirs="d6", rng=Faces(3, 3)).effects[0].target == "npc_reaction"  # a tie won
    assert lad.leverage(mine="d6", theirs="d8", rng=Faces(3, 3)).effects == ()  # a tie lost
    with pytest.raises(ValueError, match="set npc_reaction takes the boxes to mark"):
        game.act("set", "npc_reaction")
    assert game.act("set", "npc_reaction", 5) == ("NPC's reaction: 5 of 5",)


def test_a_dice_ladder_game_saves_and_loads(lad: types.ModuleType) -> None:
    game = character(lad, 6, 3, hp=4)
    game.roll("attack", weapon="d8")
    saved = json.loads(json.dumps(game.state()))
    again = lad.load_game(saved)
    assert again.state() == saved and again.resources == {"hp": 0, "strength": 6}
    assert again.conditions == {"taken_out"}
    assert game.undo() == "attack" and game.resources == {"hp": 4, "strength": 8} and game.conditions == set()


@pytest.mark.parametrize(("item", "attribute"), [("hp", "start"), ("strength", "start")])
def test_values_the_document_leaves_out_are_unknown_and_resolved(lad_loaded: Any, item: str, attribute: str) -> None:
    reported = [d for d in lad_loaded.report.diagnostics
                if d.code == Code.MISSING and d.message == f"`{item}.{attribute}` is unknown"]
    assert len(reported) == 1 and reported[0].severity == "note"
    applied = next(e for e in lad_loaded.checked.errata if e.id == "D-LAD-1")
    assert any("MISSING" in r.codes and item in r.items for r in applied.resolves)


def test_rulecraft_play_plays_the_harm_flow(tmp_path: Path, lad: types.ModuleType) -> None:
    saved = lad.game().state()
    saved["resources"] = {"hp": 2, "strength": 4}
    (tmp_path / "start.json").write_text(json.dumps(saved), encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    commands = "state\nroll attack weapon=d12\nstate\nroll test\n"
    done = subprocess.run([sys.executable, "-m", "rulecraft", "play", str(ROOT / "rulesets" / "dice_ladder.rules"),
                           "--seed", "3", "--load", "start.json"], cwd=tmp_path, input=commands,
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2:5] == ["NPC's reaction [.....] 0/5", "HP: 2", "STR: 4"]
    attack = lines.index("play> roll attack weapon=d12")  # seed 3: the d12 rolls 4, past the 2 HP left
    assert lines[attack + 1].startswith("Attacks: rolled d12: 4 → when total > hp: Critical")
    assert lines[attack + 3:attack + 4] == ["  from the state: hp=2"] and lines[attack + 4] == "  → HP: 0"
    assert "Dead" in lines[attack + 5] and lines[attack + 6] == "  → now Dead"  # the d4 STR test fails
    assert "refused: test cannot be rolled now: Dead" in lines
