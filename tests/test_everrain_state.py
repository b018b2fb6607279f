"""The Everrain played through its game state (issue 26, item 6): Strain suffered in a Storm is doubled on the
Crew member's Health/Strain track, a full track (a death) lowers Loyalty, and the Island test's choice of who
takes it and its traits are one roll. What the document leaves out is `unknown`, reported by the checker and
resolved in errata. Line numbers are `cat -n` lines of ../shared/seeds/004_*.txt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from rulecraft.api import Loaded, load
from rulecraft.backends.python import generate
from rulecraft.diagnostics import Code
from tests.conftest import ROOT, compile_module
from tests.test_game_state import Faces  # rolls the faces it is given, in order


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    return load(str(ROOT / "rulesets" / "everrain.rules"))


@pytest.fixture(scope="module")
def evr(loaded: Loaded) -> types.ModuleType:
    return compile_module(generate(loaded.checked), "generated_everrain_state")


def test_strain_in_a_storm_is_doubled_on_the_health_strain_track(evr: types.ModuleType) -> None:
    # Line 204: "Strain suffered by Crew is doubled if in tile with a Storm"; line 142: "whenever Strain is
    # suffered they are placed in the right".
    game = evr.game(rng=Faces(), sizes={"health_strain": 10, "loyalty": 5})
    storm = game.roll("storm_strain", strain=2, storm=True)
    assert storm.result.total == 4 and storm.changes == ("Health/Strain track: 4 of 10 (strain 4)",)
    crew = game.tracks["health_strain"]
    # `by strain`: Strain pegs, from the right, though damage (the left side) is the track's first marker
    assert crew.MARKERS == (("damage", "start"), ("strain", "end"))
    assert crew.at == {"damage": 0, "strain": 4}
    calm = game.roll("storm_strain", strain=2)  # out of the Storm: as suffered
    assert calm.result.outcome.id == "suffered" and crew.at["strain"] == 6
    assert game.roll("storm_strain", strain=0, storm=True).changes == ("Health/Strain track: 6 of 10 (strain 6)",)
    # A plain call only reports what it would mark.
    pure = evr.storm_strain(strain=3, storm=True)
    assert [(e.verb, e.target, e.amount, e.marker) for e in pure.effects] == [("mark", "health_strain", 6, "strain")]
    assert pure.effects[0].words == "mark strain × 2 boxes of Health/Strain track (strain)"


def test_damage_pegs_are_a_ruling_from_the_left(evr: types.ModuleType) -> None:
    # Line 142: "When damage is taken, pegs are placed in the left side". What lands may still be Countered (533),
    # so the table rules it rather than crew_attack's `damage_to_crew`.
    game = evr.game(rng=Faces(), sizes={"health_strain": 6, "loyalty": 5})
    assert game.act("mark", "health_strain", 2, marker="damage") == ("Health/Strain track: 2 of 6 (damage 2)",)
    game.roll("storm_strain", strain=1, storm=True)
    assert game.tracks["health_strain"].at == {"damage": 2, "strain": 2}
    with pytest.raises(ValueError, match="health_strain has no marker 'hull'; its markers are damage, strain"):
        game.act("mark", "health_strain", 1, marker="hull")


def test_a_crew_member_who_dies_lowers_loyalty_by_1(evr: types.ModuleType) -> None:
    # Line 142: "If the track ever fills, the Crew member dies!"; lines 425-427: "Loyalty decreases by 1 when: A
    # Crew member dies".
    game = evr.game(rng=Faces(), sizes={"health_strain": 6, "loyalty": 5})
    game.tracks["loyalty"].marked = 4  # the document gives no starting Loyalty (D-EVR-8)
    game.act("mark", "health_strain", 3, marker="damage")  # damage taken: pegs from the left
    turn = game.roll("storm_strain", strain=2, storm=True)  # 4 Strain pegs meet the 3 damage pegs
    assert turn.changes == ("Health/Strain track is full: If the track ever fills, the Crew member dies!",
                            "Loyalty track: 3 of 5")
    assert game.tracks["health_strain"].at == {"strain": 3, "damage": 3} and game.tracks["loyalty"].marked == 3
    again = game.roll("storm_strain", strain=1)  # a Crew member dies once
    assert game.tracks["loyalty"].marked == 3 and not any("Loyalty" in c for c in again.changes)
    game.undo()
    game.undo()
    game.undo()
    assert game.tracks["loyalty"].marked == 4 and game.tracks["health_strain"].at == {"strain": 0, "damage": 0}


def test_a_death_asks_for_the_loyalty_tracks_length(evr: types.ModuleType) -> None:
    # Lines 423-434 give the Loyalty track no length (D-EVR-8): a death cannot lower it until one is given.
    game = evr.game(rng=Faces(), sizes={"health_strain": 2})
    with pytest.raises(ValueError, match=r"loyalty has no size.*sizes=\{'loyalty': N\}"):
        game.roll("storm_strain", strain=1, storm=True)


def test_the_island_test_is_taken_by_who_the_crew_and_traits_say(evr: types.ModuleType) -> None:
    # Line 262: "The Crew member with the highest number of the stat being tested is the one who is taking the
    # test"; 596: "Arrogant – This Crew's stats are always the ones tested"; 600: "Hermit - +1 to test results if
    # someone else is on the Expedition -1 to test results if alone"; 592: "Selfless - -1 to test results".
    game = evr.game(rng=Faces(7, 7, 3, 4, 7, 8, 5))
    best = game.roll("expedition_test", crew=3, stat=7)
    assert best.result.values["tested"] == 7 and best.result.outcome.id == "success"
    arrogant = game.roll("expedition_test", crew=3, stat=7, arrogant=3)  # a 7 fails the Arrogant Crew's 3
    assert arrogant.result.values["tested"] == 3 and arrogant.result.outcome.id == "failure"
    with_others = game.roll("expedition_test", crew=3, stat=7, arrogant=3, hermit=True)  # 3 + 1 > 3
    assert with_others.result.total == 4 and with_others.result.outcome.id == "failure"
    alone = game.roll("expedition_test", crew=1, stat=3, hermit=True)  # 4 - 1 = 3: equal succeeds
    assert alone.result.total == 3 and alone.result.outcome.id == "success"
    selfless = game.roll("expedition_test", crew=2, stat=6, selfless=True)  # 7 - 1
    assert selfless.result.total == 6 and selfless.result.outcome.id == "success"
    # Line 590, Fortuitous: "re roll the result if failed. The new result is final", with the Arrogant Crew's 3.
    lucky = game.roll("expedition_test", crew=2, stat=9, arrogant=3, fortuitous=True)  # 8 fails 3; 5 fails too
    assert [first.total for first in lucky.result.rerolled] == [8] and lucky.result.outcome.id == "failure"
    assert lucky.changes == ()  # an Island test changes no track: its card's result is read by the narrator
    assert evr.odds("expedition_test", crew=1, stat=9, arrogant=3, hermit=True)["success"] == \
        evr.odds("expedition_test", stat=4)["success"]  # the Arrogant 3, alone: -1 as a 4 with no Hermit


def test_a_game_with_a_dead_crew_member_saves_and_loads(evr: types.ModuleType) -> None:
    game = evr.game(rng=Faces(), sizes={"health_strain": 4, "loyalty": 6})
    game.tracks["loyalty"].marked = 6
    game.roll("storm_strain", strain=2, storm=True)
    saved = json.loads(json.dumps(game.state()))
    again = evr.load_game(saved)
    assert again.state() == game.state() and again.tracks["health_strain"].at == {"strain": 4, "damage": 0}
    assert again.tracks["loyalty"].marked == 5


def test_rulecraft_play_doubles_strain_in_a_storm_and_a_death_lowers_loyalty(tmp_path: Path) -> None:
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"ruleset": "everrain", "tracks": {
        "health_strain": {"size": 6, "marked": 0, "at": {"strain": 0, "damage": 0}},
        "loyalty": {"size": 5, "marked": 5}}}), encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    said = "storm_strain strain=2 storm=yes\nmark health_strain 1 by damage\nstorm_strain strain=2\nstate\n"
    done = subprocess.run([sys.executable, "-m", "rulecraft", "play", str(ROOT / "rulesets" / "everrain.rules"),
                           "--load", str(start)], input=said, capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert "  → Health/Strain track: 4 of 6 (strain 4)" in lines  # Strain from the right, then a ruled damage peg
    assert "  → Health/Strain track: 5 of 6 (damage 1)" in lines
    assert "  → Health/Strain track is full: If the track ever fills, the Crew member dies!" in lines
    assert "  → Loyalty track: 4 of 5" in lines and "Loyalty track [####.] 4/5" in lines


@pytest.mark.parametrize(("item", "message", "erratum"), [
    ("expedition", "`expedition.max_crew` is unknown", "D-EVR-23"),
    ("loyalty", "`loyalty.start` is unknown", "D-EVR-8"),
    ("loyalty", "the document gives no size for `loyalty`", "D-EVR-8"),
    ("health_strain", "the document gives no size for `health_strain`", "D-EVR-21"),
])
def test_values_the_document_leaves_out_are_unknown_and_resolved(loaded: Any, item: str, message: str,
                                                                  erratum: str) -> None:
    reported = [d for d in loaded.report.diagnostics if d.code == Code.MISSING and d.message == message]
    assert len(reported) == 1 and reported[0].severity == "note"  # a note: its erratum resolves it
    applied = next(e for e in loaded.checked.errata if e.id == erratum)
    assert any("MISSING" in r.codes and item in r.items for r in applied.resolves)
