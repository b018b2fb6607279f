"""Rules that act on each other (issue 26): effects on outcomes, state that feeds rolls, conditions that forbid
them, tracks that set things off when full, and the generated module's `Game` that plays them through."""

from __future__ import annotations

import json
import re
import types

import jsonschema
import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.backends.render import JSON_SCHEMA, export_data, to_html
from rulecraft.backends.words import Words
from rulecraft.diagnostics import CompileError
from rulecraft.model import Effect
from tests.conftest import compile_module

STATE = '''ruleset "State"

clock danger "Danger"
  size: 4
  on_full: "Trouble arrives."
  full:
    clear danger
    set hunted
    -> trouble

track harm "Harm"
  size: 3
  levels:
    - 1: lesser "Lesser"
        boxes: 2
        penalty: "-1"
    - 2: moderate "Moderate"
        boxes: 1
        penalty: "-2"

resource coin "Coin"
  start: 2
  max: 5

condition hunted "Hunted"
  text: "Hunted: you cannot rest."
  forbids: rest

roll act "Act"
  input dots: 0..4 = 1 "Dots"
  input hurt: 0..2 = 0 "Harm level" from level(harm)
  roll: d6 + dots - hurt
  - 3 or less: miss "Miss"
      segments: 2
      mark danger segments
      mark harm at 1
  - 4-5: partial "Partial"
      mark danger 1
      spend coin 1
  - 6+: hit "Hit"
      gain coin 2
      add 1 to act dots
      mark: yes

table trouble "Trouble"
  roll: d6
  - 1-3: "Ambush"
      spend coin 1
  - 4-6: "Storm"

roll rest "Rest"
  input paid: flag "Pay for a room"
  roll: d6
  when paid:
    spend coin 1
  - 1-6: done "Rested"
      clear harm
      clear hunted
'''


class Faces:
    """A generator that rolls the faces it is given, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high
        return face


@pytest.fixture(scope="module")
def module() -> types.ModuleType:
    return compile_module(generate(load_text(STATE, "state.rules", "state").checked), "state_game")


def test_a_resolver_reports_its_effects_and_changes_nothing(module: types.ModuleType) -> None:
    result = module.act(dots=1, rng=Faces(1))
    assert result.outcome.id == "miss"
    assert [(e.verb, e.target, e.amount, e.level) for e in result.effects] == [
        ("mark", "danger", 2, None), ("mark", "harm", None, 1)]  # `segments` is the band's own datum: 2
    assert [e.words for e in result.effects] == ["mark 2 segments of Danger", "mark Harm at level 1"]
    assert result.as_dict()["effects"][0]["verb"] == "mark"
    assert module.act(dots=1, rng=Faces(6)).values == {"mark": True}  # `mark: yes` stays a datum


def test_outcomes_mark_clocks_and_a_full_clock_sets_off_its_effects(module: types.ModuleType) -> None:
    game = module.game(rng=Faces(1, 1, 5))
    first = game.roll("act")
    assert first.result.outcome.id == "miss" and game.tracks["danger"].marked == 2
    assert "harm recorded at level 1 (Lesser)" in first.changes
    second = game.roll("act")  # hurt 1 now (level 1 harm): 1 + 1 - 1; danger fills: cleared, hunted, trouble
    assert second.result.inputs["hurt"] == 1
    assert game.tracks["danger"].marked == 0 and game.conditions == {"hunted"}
    assert any(change.startswith("Danger is full") for change in second.changes)
    assert "now Hunted" in second.changes and any(c.startswith("rolled trouble") for c in second.changes)
    assert game.resources["coin"] == 2  # the trouble roll was a 5: a storm, which costs nothing


def test_a_condition_forbids_a_roll_until_cleared(module: types.ModuleType) -> None:
    game = module.game(rng=Faces(1, 1, 2, 3))
    game.roll("act")
    game.roll("act")  # danger fills: hunted; the trouble roll (2) is an ambush: coin 2 -> 1
    assert game.resources["coin"] == 1
    with pytest.raises(module.Forbidden, match="rest cannot be rolled now: Hunted: you cannot rest"):
        game.roll("rest")
    game.conditions.discard("hunted")
    turn = game.roll("rest")
    assert "Harm: cleared" in turn.changes and game.level("harm") == 0


def test_resources_stay_in_range_and_a_carry_feeds_the_next_roll_once(module: types.ModuleType) -> None:
    game = module.game(rng=Faces(6, 4, 4, 4, 4, 5, 4))
    hit = game.roll("act", dots=0)
    assert game.resources["coin"] == 4 and game.carried == {"act": {"dots": 1}} and hit.result.outcome.id == "hit"
    carried = game.roll("act", dots=0)  # 4 + (0 + 1): a partial
    assert carried.result.inputs["dots"] == 1 and game.carried == {}
    for _ in range(3):  # the third fills danger, which rolls trouble (a 5: a storm) before the coin is spent
        game.roll("act", dots=0)
    assert game.resources["coin"] == 0 and game.conditions == {"hunted"}
    assert game.roll("act", dots=0).changes[-1] == "Coin: 0 (not enough: it stops at 0)"
    game.resources["coin"] = 5
    game.apply([module.Effect("gain", "coin", 3, None, None, "gain 3 Coin")], [])
    assert game.resources["coin"] == 5  # at most 5


def test_a_when_block_acts_whatever_the_outcome_where_its_test_holds(module: types.ModuleType) -> None:
    game = module.game(rng=Faces(1, 2))
    assert game.roll("rest", paid=True).changes == ("Coin: 1", "Harm: cleared")  # its own, then the outcome's
    assert game.roll("rest").changes == ("Harm: cleared",) and game.resources["coin"] == 1
    assert [e.verb for e in module.rest(paid=True, rng=Faces(3)).effects] == ["spend", "clear", "clear"]
    data = export_data(load_text(STATE, "state.rules", "state").checked)
    rest = next(d for d in data["definitions"] if d["name"] == "rest")
    assert rest["guards"] == [{"when": "paid", "when_words": "paid", "label": None, "effects": [{
        "verb": "spend", "target": "coin", "amount": 1, "level": None, "marker": None, "input": None, "roll": None,
        "text": "spend coin 1", "words": "spend 1 Coin"}]}]
    assert "if paid:</span> → spend 1 Coin" in to_html(data)


def test_the_state_saves_as_json_loads_and_undoes(module: types.ModuleType) -> None:
    game = module.game(rng=Faces(1, 4))
    game.roll("act")
    game.roll("act")
    saved = json.loads(json.dumps(game.state()))
    again = module.load_game(saved)
    assert again.state() == saved and saved["tracks"]["harm"]["rows"] == {"1": ["harm"], "2": []}
    assert game.undo() == "act" and game.tracks["danger"].marked == 2 and game.resources["coin"] == 2
    with pytest.raises(ValueError, match="this state is of 'other'"):
        module.load_game(dict(saved, ruleset="other"))
    with pytest.raises(ValueError, match="no resource named 'gold'"):
        module.load_game(dict(saved, resources={"gold": 1}))


def test_the_export_and_the_sheet_say_the_effects(module: types.ModuleType) -> None:
    data = export_data(load_text(STATE, "state.rules", "state").checked)
    assert not list(jsonschema.Draft202012Validator(JSON_SCHEMA).iter_errors(json.loads(json.dumps(data))))
    act = next(d for d in data["definitions"] if d["name"] == "act")
    assert act["bands"][0]["effects"][0] == {
        "verb": "mark", "target": "danger", "amount": 2, "level": None, "marker": None, "input": None, "roll": None,
        "text": "mark danger 2", "words": "mark 2 segments of Danger"}
    assert act["bands"][2]["effects"][1]["words"] == "+1 to dots of the next Act"
    assert act["inputs"][1]["source"] == {"expr": "level(harm)", "words": "level of harm"}
    danger = next(d for d in data["definitions"] if d["name"] == "danger")
    assert [e["words"] for e in danger["full_effects"]] == ["clear Danger", "now Hunted", "roll Trouble"]
    html = to_html(data)
    assert "→ mark 2 segments of Danger" in html and "→ clear Danger · → now Hunted · → roll Trouble" in html
    # the effect says the datum it marks by: the player's sheet does not tag it again; the proof does
    assert "segments: 2" not in html and "segments: 2" in to_html(data, sheet="proof")
    unsized = load_text('ruleset "U"\n\nclock quiet "Quiet" [U-1]\n  size: unknown\n', "u.rules", "u").checked
    assert 'id="quiet"' not in to_html(export_data(unsized))  # nothing to draw or read: left off
    assert 'id="quiet"' in to_html(export_data(unsized), sheet="proof")


@pytest.mark.parametrize(("line", "message"), [
    ("      mark coin 1", "`mark coin`: `mark` acts on a track or clock; `coin` is a resource"),
    ("      set danger", "`set danger`: a clock is set to a number of boxes marked"),
    ("      set coin 2", "`set coin`: `set` acts on a condition or track or clock; `coin` is a resource"),
    ("      gain gold 1", "`gain gold`: `gain` acts on a resource; this ruleset defines no `gold`"),
    ("      add 2 to rest bonus", "`add ... to rest bonus`: rest has no whole-number input `bonus`"),
    ("      mark danger bogus", "`mark`'s amount reads `bogus`, which is not here"),
    ("      mark danger 1 at 2", "`mark danger at ...`: `at` is a level of a harm track, and danger has no levels"),
    ("      -> nowhere", "`-> nowhere` names no roll or table"),
    ("    spend coin lots", "`spend`'s amount reads `lots`, which is not here"),
])
def test_an_effect_on_the_wrong_thing_is_a_located_error(line: str, message: str) -> None:
    where = "  when paid:\n    spend coin 1\n" if line.startswith("    spend") else "      clear hunted\n"
    source = STATE.replace(where, f"{where}{line}\n", 1)
    with pytest.raises(CompileError) as caught:
        load_text(source, "state.rules", "state")
    errors = [d for d in caught.value.report.diagnostics if d.severity == "error"]
    assert [d.message for d in errors] == [message]
    assert errors[0].span.line == source.splitlines().index(line) + 1


@pytest.mark.parametrize(("old", "new", "message"), [
    ("forbids: rest", "forbids: resting", "`forbids: resting` names no roll"),
    ("from level(harm)", "from level(coin)", "`level(coin)` reads a harm track with `levels:`"),
    ("from level(harm)", "from dots", "`from dots` reads `dots`, which is not state"),
    ("  max: 5", "  max: many", "a resource's `max:` is a whole number"),
    ("  max: 5\n", "  max: 5\n  when yes:\n    gain coin 1\n",
     "a resource has no `when ...:` effects: they are what a roll does whatever its outcome"),
])
def test_state_a_roll_reads_or_forbids_is_checked(old: str, new: str, message: str) -> None:
    with pytest.raises(CompileError) as caught:
        load_text(STATE.replace(old, new), "state.rules", "state")
    assert [d.message for d in caught.value.report.diagnostics if d.severity == "error"] == [message]


def test_the_sheet_says_how_many_rolls_fill_a_clock() -> None:
    """Issue 26, item 5 on the sheet: by hand, at dots 0 a d6 misses (2 segments) on 1-3, is partial (1) on 4-5
    and hits (0) on 6. E(n), the rolls to mark n more: E(1) = 1 + E(1)/6 = 6/5; E(2) = 1 + E(1)/3 + E(2)/6 =
    42/25; E(3) = 1 + E(1)/2 + E(2)/3 + E(3)/6 = 324/125; E(4) = 1 + E(2)/2 + E(3)/3 + E(4)/6 = 2028/625."""
    data = export_data(load_text(STATE, "state.rules", "state").checked)
    act = next(d for d in data["definitions"] if d["name"] == "act")
    (danger,) = act["fills"]
    assert (danger["clock"], danger["size"], danger["axis"]) == ("danger", 4, "dots")
    assert danger["rows"][0] == {"value": 0, "expected": "2028/625", "mean": 3.24}
    assert "Rolls to fill Danger</b> (4 segments), on average: 3.2 at dots 0 · " in to_html(data)
    rest = next(d for d in data["definitions"] if d["name"] == "rest")
    assert rest["fills"] == []  # it marks nothing


@pytest.mark.parametrize("bad", [[], {"ruleset": "state", "tracks": {"danger": {"marked": 1}}},
                                 {"ruleset": "state", "resources": 3}, {"ruleset": "state", "conditions": 5}])
def test_a_malformed_state_is_a_value_error_and_leaves_the_game_as_it_was(module: types.ModuleType,
                                                                         bad: object) -> None:
    game = module.game(rng=Faces(1))
    game.roll("act")
    before = game.state()
    with pytest.raises(ValueError, match=r"not a game state of 'state'|is missing|this state"):
        game.restore(bad)
    assert game.state() == before


HARM = '''ruleset "Harm"

track harm "Harm"
  levels:
    - 1: lesser "Lesser"
        boxes: 1
        penalty: "Reduced effect"
    - 2: moderate "Moderate"
        boxes: 1
        penalty: "-1D"
        note: "Moderate harm hurts."
    - 3: fatal "Fatal"
  on_full: "A catastrophe."
  full:
    set ruined

condition ruined "Ruined"
  text: "Ruined."

track stress "Stress"
  size: 9

condition down "Down"
  text: "Down: you cannot act unless helped or you push yourself."
  while: level(harm) >= 2
  forbids: act
  unless: help or push = pushed

roll act "Act"
  input rating: 1..4 = 1 "Rating"
  input help: flag "Help"
  input push: one of none "No" (0), pushed "Push (2 stress)" (1) = none "Push?"
  input hurt: flag "Moderate harm: -1D" from row(harm, 2) > 0
  roll: (rating + help + push - hurt)d6 highest
  zero_dice: 2d6 lowest
  - 6: full "You do it."
  - 4/5: partial "Consequence."
  - 1-3: bad "Bad."
'''


@pytest.fixture(scope="module")
def harmed() -> types.ModuleType:
    return compile_module(generate(load_text(HARM, "harm.rules", "harm").checked), "harm_game")


def test_a_condition_the_state_puts_in_force_forbids_unless_the_inputs_lift_it(harmed: types.ModuleType) -> None:
    game = harmed.game(rng=Faces(*[6] * 20))
    assert game.roll("act", rating=2).result.inputs["hurt"] is False and not game.value("down")
    changes: list[str] = []
    game.apply([harmed.Effect("mark", "harm", None, 2, None, "")], changes)
    assert changes == ["harm recorded at level 2 (Moderate)"] and game.value("down") and game.row("harm", 2) == 1
    with pytest.raises(harmed.Forbidden, match="act cannot be rolled now: Down: you cannot act unless helped"):
        game.roll("act", rating=2)
    helped = game.roll("act", rating=2, help=True)  # `unless: help`: allowed, and the harm's -1D is read
    assert helped.result.inputs["hurt"] is True and len(helped.result.dice) == 2
    game.roll("act", rating=2, push="pushed")
    game.apply([harmed.Effect("clear", "harm", 1, None, None, "")], changes)  # every harm down a level
    assert not game.value("down") and game.roll("act", rating=2).result.inputs["hurt"] is False
    assert game.state()["conditions"] == []  # in force by the state, never saved as set


def test_harm_past_the_top_row_fills_the_track_and_harm_given_at_a_boxless_level_is_named(
        harmed: types.ModuleType) -> None:
    game = harmed.game()
    changes: list[str] = []
    game.apply([harmed.Effect("mark", "harm", None, 2, None, "")] * 2, changes)
    assert changes == ["harm recorded at level 2 (Moderate)",
                       "Harm is full: harm goes past the top row: A catastrophe.", "now Ruined"]
    assert game.tracks["harm"].add(3) == ["harm at level 3: Fatal"]


@pytest.mark.parametrize(("old", "new", "message"), [
    ("  while: level(harm) >= 2", "  while: rating > 2", "`while: rating > 2` reads `rating`, which is not state"),
    ("  while: level(harm) >= 2", "  while: row(harm) > 0", "`while: row(harm) > 0`: the state has no `row(harm)`"),
    ("  unless: help or push = pushed", "  unless: helper", "`unless: helper` reads `helper`, which act does not take"),
    ("  forbids: act\n", "  forbids: all\n",
     "`unless:` reads inputs of the rolls a condition `forbids:`, which it names"),
    ("  full:\n    set ruined", "  full:\n    set down",
     "`set down`: `set` acts on a condition or track or clock; `down` is a condition in force while its test holds"),
    ("  while: level(harm) >= 2", "  while: down",
     "`while: down` reads `down`, a condition in force by the state itself"),
])
def test_a_condition_in_force_by_the_state_is_checked(old: str, new: str, message: str) -> None:
    assert old in HARM
    with pytest.raises(CompileError) as caught:
        load_text(HARM.replace(old, new), "harm.rules", "harm")
    assert [d.message for d in caught.value.report.diagnostics if d.severity == "error"] == [message]


def test_a_levels_other_lines_reach_the_export_and_the_sheet() -> None:
    data = export_data(load_text(HARM, "harm.rules", "harm").checked)
    harm = next(d for d in data["definitions"] if d["name"] == "harm")
    assert [level["notes"] for level in harm["levels"]] == [{}, {"note": "Moderate harm hurts."}, {}]
    assert "<b>Moderate:</b> Moderate harm hurts." in to_html(data)


def test_a_tracks_marked_block_acts_each_time_it_is_marked() -> None:
    source = HARM.replace('  on_full: "A catastrophe."\n', '  on_full: "A catastrophe."\n  marked:\n    clear stress\n')
    module = compile_module(generate(load_text(source, "harm.rules", "harm").checked), "harm_marked")
    game = module.game()
    changes: list[str] = []
    game.apply([module.Effect("mark", "stress", 4, None, None, ""), module.Effect("mark", "harm", None, 1, None, "")],
               changes)
    assert changes == ["Stress: 4 of 9", "harm recorded at level 1 (Lesser)", "Stress: 0 of 9"]
    data = export_data(load_text(source, "harm.rules", "harm").checked)
    assert "<b>When marked:</b> → clear Stress" in to_html(data)
    assert next(d for d in data["definitions"] if d["name"] == "harm")["marked_effects"][0]["words"] == "clear Stress"


SHARED = '''ruleset "Shared"

clock project "Project"
  size: 6

clock healing "Healing"
  size: 4

bands segments "Segments"
  - 5-6: many "Many"
      segments: 2
  - 1-4: few "Few"
      segments: 1

roll work "Work"
  input push: flag "Push"
  roll: d6
  when push "Push yourself":
    mark healing 1
  outcomes: segments
  every_outcome:
    mark project segments

roll heal "Heal"
  roll: d6
  outcomes: segments
  every_outcome:
    mark healing segments
'''


def test_every_outcome_gives_shared_bands_this_rolls_effects_and_a_when_block_its_words() -> None:
    checked = load_text(SHARED, "shared.rules", "shared").checked
    module = compile_module(generate(checked), "shared_game")
    game = module.game(rng=Faces(6, 1, 2))
    assert game.roll("work").changes == ("Project: 2 of 6",)
    assert game.roll("heal").changes == ("Healing: 1 of 4",)
    assert game.roll("work", push=True).changes == ("Healing: 2 of 4", "Project: 3 of 6")
    data = export_data(checked)
    html, proof = to_html(data), to_html(data, sheet="proof")
    assert "Push yourself:</span> → mark 1 segment of Healing" in html
    assert "Rolls to fill Healing</b> (4 segments), on average: 3.2" in html  # each outcome marks its segments
    quiet = export_data(load_text(SHARED.replace('"Push yourself"', '""'), "shared.rules", "shared").checked)
    assert "mark 1 segment of Healing" not in to_html(quiet)
    assert "if push:</span> → mark 1 segment of Healing" in to_html(quiet, sheet="proof")
    with pytest.raises(CompileError) as caught:
        load_text(SHARED.replace("mark healing segments", "mark healing amount"), "shared.rules", "shared")
    assert [d.message for d in caught.value.report.diagnostics] == [
        "`mark`'s amount reads `amount`, which is not here"] * 2  # once for each outcome
    assert "Push yourself" in proof


def test_clear_takes_a_resource_to_nothing(module: types.ModuleType) -> None:
    game = module.game()
    assert game.act("clear", "coin") == ("Coin: 0",)
    game.act("gain", "coin", 4)
    assert game.act("clear", "coin", 3) == ("Coin: 1",)
    assert Words(kinds={"coin": "resource"}).effect(Effect("clear", "coin")) == "clear coin"


PEGS = '''ruleset "Pegs"

track crew "Crew"
  size: 6
  markers:
    damage: left
    strain: right
  on_full: "The Crew member dies!"

track stress "Stress"
  size: 4

condition shaken "Shaken"
  text: "Shaken: the next test is harder."

table hurt "Hurt"
  input strain: 0..6 = 1 "Strain suffered"
  roll: d6
  - 1-3: strained "Strained"
      mark crew strain * 2 by strain
  - 4-5: wounded "Wounded"
      mark crew by damage
  - 6: first "First marker"
      mark crew 2
'''


@pytest.fixture(scope="module")
def pegs() -> types.ModuleType:
    return compile_module(generate(load_text(PEGS, "pegs.rules", "pegs").checked), "pegs_game")


def test_mark_by_a_marker_moves_that_marker_of_a_track_with_markers(pegs: types.ModuleType) -> None:
    pure = pegs.hurt(strain=2, rng=Faces(1))
    assert [(e.verb, e.target, e.amount, e.marker) for e in pure.effects] == [("mark", "crew", 4, "strain")]
    assert pure.effects[0].words == "mark strain × 2 boxes of Crew (strain)"
    game = pegs.game(rng=Faces(1, 4, 6))
    assert game.roll("hurt", strain=1).changes == ("Crew: 2 of 6 (strain 2)",)
    assert game.tracks["crew"].at == {"damage": 0, "strain": 2}  # pegs from the right
    assert game.roll("hurt").changes == ("Crew: 3 of 6 (damage 1)",)  # no amount: one box
    assert game.tracks["crew"].at == {"damage": 1, "strain": 2}
    game.roll("hurt")  # without `by`, the first marker listed (damage) moves, as before
    assert game.tracks["crew"].at == {"damage": 3, "strain": 2}
    assert game.act("mark", "crew", 2, marker="strain") == ("Crew is full: The Crew member dies!",)
    assert game.tracks["crew"].at == {"damage": 3, "strain": 3} and game.undo() == "mark crew"
    assert game.tracks["crew"].at == {"damage": 3, "strain": 2}
    for verb, target, marker, message in [
            ("mark", "crew", "luck", "crew has no marker 'luck'; its markers are damage, strain"),
            ("mark", "stress", "damage", "stress has no markers: `by` names the marker to move on a track with "
                                         "markers"),
            ("clear", "crew", "damage", "`by` names the marker a mark moves; clear takes none"),
            ("set", "shaken", "damage", "`by` names the marker a mark moves; set takes none")]:
        with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
            game.act(verb, target, 1, marker=marker)
    assert game.tracks["crew"].at == {"damage": 3, "strain": 2}


def test_mark_by_says_its_marker_in_the_export_and_on_the_sheet() -> None:
    data = export_data(load_text(PEGS, "pegs.rules", "pegs").checked)
    assert not list(jsonschema.Draft202012Validator(JSON_SCHEMA).iter_errors(json.loads(json.dumps(data))))
    hurt = next(d for d in data["definitions"] if d["name"] == "hurt")
    assert [(e["marker"], e["text"], e["words"]) for band in hurt["bands"] for e in band["effects"]] == [
        ("strain", "mark crew strain * 2 by strain", "mark strain × 2 boxes of Crew (strain)"),
        ("damage", "mark crew by damage", "mark 1 box of Crew (damage)"),
        (None, "mark crew 2", "mark 2 boxes of Crew")]
    assert "→ mark 1 box of Crew (damage)" in to_html(data)


@pytest.mark.parametrize(("line", "message"), [
    ("      mark crew 1 by luck", "`mark crew ... by luck`: crew has no marker `luck`"),
    ("      mark stress 1 by damage", "`mark stress ... by damage`: stress has no markers, so `by` has none to choose"),
])
def test_mark_by_a_marker_the_track_lacks_is_a_located_error(line: str, message: str) -> None:
    source = PEGS.replace("      mark crew 2\n", f"      mark crew 2\n{line}\n")
    with pytest.raises(CompileError) as caught:
        load_text(source, "pegs.rules", "pegs")
    errors = [d for d in caught.value.report.diagnostics if d.severity == "error"]
    assert [d.message for d in errors] == [message]
    assert errors[0].span.line == source.splitlines().index(line) + 1
    assert errors[0].hint == ("its markers are damage, strain" if "luck" in line
                              else "write `mark stress N`, or give stress `markers:`")


def test_setting_a_track_the_document_gives_no_size_says_so() -> None:
    source = ('ruleset "U"\n\nclock quiet "Quiet" [U-1]\n  size: unknown\n\nroll hush "Hush" [U-2]\n  roll: d6\n'
              '  - 1-6: done "Done"\n      set quiet 2\n')
    module = compile_module(generate(load_text(source, "u.rules", "u").checked), "unsized_set")
    with pytest.raises(ValueError, match="quiet has no size: the document gives none"):
        module.game(rng=Faces(3)).roll("hush")
    assert module.game(rng=Faces(3), sizes={"quiet": 4}).roll("hush").changes == ("Quiet: 2 of 4",)
