"""The Errant-style Core Quick Reference (rulesets/errant.rules): one test per inventory item ERR-01 .. ERR-46.

Expected numbers come from the document (seeds/003_27054e6f72989487.txt, quoted below) and are
counted by hand with itertools + Fraction; the compiled resolvers are only ever the thing tested.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.cli.main import main as cli_main
from rulecraft.semantics.odds import distribution
from tests.conftest import ROOT, compile_module

LADDER = ["one", "d4", "d6", "d8", "d10", "d12", "d20"]
SIDES = {"one": 1, "d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}


@pytest.fixture(scope="module")
def loaded():  # type: ignore[no-untyped-def]
    return load(str(ROOT / "rulesets" / "errant.rules"))


@pytest.fixture(scope="module")
def game(loaded):  # type: ignore[no-untyped-def]  # the compiled module
    return compile_module(generate(loaded.checked), "generated_errant")


class Faces:
    """A scripted rng: randint hands out preset faces, checking each fits the die."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.asked: list[int] = []

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high, f"face {face} does not fit d{high}"
        self.asked.append(high)
        return face


def window(dv: int, attribute: int) -> Fraction:
    """Hand count: D20 faces with DV < face < Attribute."""
    return Fraction(sum(1 for face in range(1, 21) if dv < face < attribute), 20)


def entries(game, name):  # type: ignore[no-untyped-def]
    return tuple((e.id, e.text) for e in game.DOCUMENTS[name].entries)


def texts(game, name):  # type: ignore[no-untyped-def]
    return game.DOCUMENTS[name].texts()


def children(loaded, name, index):  # type: ignore[no-untyped-def]
    return [child.text for child in loaded.checked.get(name).entries[index].children]


def data(loaded, name, index):  # type: ignore[no-untyped-def]
    from rulecraft import model as m

    out = {}
    for key, expr in loaded.checked.get(name).entries[index].values:
        out[key] = expr.value if isinstance(expr, (m.Number, m.Text, m.Boolean)) else m.expr_text(expr)
    return out


# ---------------------------------------------------------------- Core Quick Reference


def test_err_01_check_window_and_automatic_success(game):  # type: ignore[no-untyped-def]
    odds = game.odds("check", dv=4, attribute=12)
    assert odds == {"automatic_success": 0, "success": Fraction(7, 20), "failure": Fraction(13, 20)}
    assert game.odds("check", dv=-1, attribute=12)["automatic_success"] == 1
    assert game.odds("check", dv=-1, attribute=1)["automatic_success"] == 1  # even when no face could pass
    for dv, attribute in product(range(-10, 31, 3), range(1, 21, 2)):
        got = game.odds("check", dv=dv, attribute=attribute)
        expected = Fraction(1) if dv < 0 else window(dv, attribute)
        assert got["automatic_success"] + got["success"] == expected, (dv, attribute)
    # strict on both sides: rolling exactly the DV or the Attribute fails
    assert game.check(dv=4, attribute=12, rng=Faces(4)).outcome.id == "failure"
    assert game.check(dv=4, attribute=12, rng=Faces(12)).outcome.id == "failure"
    assert game.check(dv=4, attribute=12, rng=Faces(5)).outcome.id == "success"
    assert game.check(dv=4, attribute=12, rng=Faces(11)).values["success"] is True
    assert game.check(dv=0, attribute=10, rng=Faces(1)).outcome.id == "success"  # DV 0 is not automatic


def test_err_02_saving_throw_dv_is_threat_or_renown(game):  # type: ignore[no-untyped-def]
    for threat_renown, attribute in [(0, 10), (5, 12), (9, 10), (15, 20), (20, 20)]:
        assert game.odds("saving_throw", threat_renown=threat_renown, attribute=attribute)["success"] == \
            window(threat_renown, attribute)
    assert game.saving_throw(threat_renown=5, attribute=12, rng=Faces(6)).outcome.id == "success"
    assert game.saving_throw(threat_renown=5, attribute=12, rng=Faces(5)).outcome.id == "failure"


def test_err_03_attributes(game):  # type: ignore[no-untyped-def]
    assert entries(game, "attributes") == (
        ("phys", "power, toughness, and endurance."),
        ("skill", "quickness, precision, and perception."),
        ("mind", "knowledge, focus, and reason."),
        ("pres", "charm, confidence, and willpower."),
    )


def test_err_04_position_default_risky(game, loaded):  # type: ignore[no-untyped-def]
    assert [i for i, _ in entries(game, "position")] == ["shaky", "risky", "dire"]
    assert texts(game, "position")[2] == "worse than you even imagined."
    doc = loaded.checked.get("position")
    assert doc.text == "Position determines the outcome of failure. The default Position is risky."
    assert dict(doc.details)["default"].value == "risky"


def test_err_05_impact_default_fair(game, loaded):  # type: ignore[no-untyped-def]
    assert [i for i, _ in entries(game, "impact")] == ["strong", "fair", "weak"]
    assert texts(game, "impact")[0] == "this went better than expected."
    assert dict(loaded.checked.get("impact").details)["default"].value == "fair"


def test_err_06_check_procedure_has_six_steps(game, loaded):  # type: ignore[no-untyped-def]
    steps = texts(game, "check_procedure")
    assert len(steps) == 6  # printed 1, 2, 3, 1, 2, 3 (D-ERR-1)
    assert steps[0] == "Errant describes action with potential for meaningful failure."
    assert steps[2] == "Guide sets DV for Check."
    assert steps[3] == "Guide sets Position and Impact for Check."
    assert steps[5] == "Guide describes outcome of Check."
    assert children(loaded, "check_procedure", 2) == ["If DV < 0, Check automatically succeeds."]


def test_err_07_reaction_roll_modifiers(game):  # type: ignore[no-untyped-def]
    printed = ["DV +8", "DV +4", "-", "DV -2", "DV -4"]
    for column, (text, dv) in enumerate(zip(printed, [8, 4, None, -2, -4], strict=True), start=1):
        result = game.reaction_roll(column=column)
        assert result.outcome.text == text
        assert result.values.get("dv") == dv


def test_err_08_negotiations(game, loaded):  # type: ignore[no-untyped-def]
    assert loaded.checked.get("negotiations").text == \
        "Reaction Roll result = disposition.\nInitial Disposition = # of exchanges."
    kinds = texts(game, "exchange_kinds")
    assert (kinds[0], kinds[-1]) == ("Banal exchanges require no Check.", "Bribe exchanges require no Checks.")
    assert [data(loaded, "exchange_kinds", i)["check"] for i in range(5)] == [False, True, True, True, False]
    exchanges = game.TRACKS["exchanges"](size=3)  # size = initial disposition
    assert exchanges.mark(3) == ["Exchanges is full"]
    with pytest.raises(TypeError):
        game.TRACKS["exchanges"]()  # the number of exchanges comes from the disposition


def test_err_09_giving_exchange(game):  # type: ignore[no-untyped-def]
    expected = {
        ("failure", "strong"): ("unimpressed", None), ("failure", "fair"): ("unimpressed", None),
        ("failure", "weak"): ("unimpressed", None), ("success", "weak"): ("unimpressed", None),
        ("success", "fair"): ("success", 1), ("success", "strong"): ("strong_success", 3),
    }
    for (result, impact), (outcome, disposition) in expected.items():
        got = game.giving_exchange(result=result, impact=impact)
        assert (got.outcome.id, got.values.get("disposition")) == (outcome, disposition), (result, impact)
    assert game.giving_exchange(result="failure").outcome.text == \
        "Failure or success with weak Impact: NPC is unimpressed."


def exchange_expectation(result: str, position: str, impact: str) -> str:
    """The most specific line of a Taking/Convincing exchange (lines 65-81)."""
    if result == "failure":
        return {"dire": "dire_failure", "risky": "failure", "shaky": "middle"}[position]
    return {"weak": "middle", "fair": "success", "strong": "strong_success"}[impact]


def test_err_10_taking_exchange(game):  # type: ignore[no-untyped-def]
    for result, position, impact in product(["success", "failure"], ["shaky", "risky", "dire"],
                                            ["strong", "fair", "weak"]):
        got = game.taking_exchange(result=result, position=position, impact=impact)
        assert got.outcome.id == exchange_expectation(result, position, impact).replace("middle", "compromise")
    assert game.taking_exchange(result="failure", position="dire").values["disposition"] == -3
    assert game.taking_exchange(result="failure").values["disposition"] == -1
    assert game.taking_exchange(result="success", impact="strong").outcome.text == \
        "Success with strong Impact: NPC agrees, and offers to do more than asked for!"


def test_err_11_convincing_exchange(game):  # type: ignore[no-untyped-def]
    for result, position, impact in product(["success", "failure"], ["shaky", "risky", "dire"],
                                            ["strong", "fair", "weak"]):
        got = game.convincing_exchange(result=result, position=position, impact=impact)
        assert got.outcome.id == exchange_expectation(result, position, impact).replace("middle", "unconvinced")
    assert game.convincing_exchange(result="failure", position="dire").values["disposition"] == -3
    assert game.convincing_exchange(result="failure").values["disposition"] == -1
    assert game.convincing_exchange(result="success").outcome.text == "Success: NPC is receptive, but requires proof."


# ---------------------------------------------------------------- Items Quick Reference


def test_err_12_item_slots_and_encumbrance(game):  # type: ignore[no-untyped-def]
    assert game.item_slots(phys=13).total == 13
    for phys, filled, exhaustion in product([1, 4, 8, 10, 13, 20], [0, 1, 2, 3, 5, 9, 12, 20], [0, 1, 3]):
        used = filled + exhaustion
        quarters = 0
        while quarters < 4 and Fraction(used) >= Fraction(phys * (quarters + 1), 4):  # each 25% reached
            quarters += 1
        expected = quarters + max(0, used - phys)
        assert game.encumbrance(phys=phys, filled=filled, exhaustion=exhaustion).total == expected, \
            (phys, filled, exhaustion)
    assert game.encumbrance(phys=10, filled=10).total == 4  # 100% = 4
    assert game.encumbrance(phys=10, filled=11, exhaustion=1).total == 6  # then 1 per Item Slot


def test_err_13_depletion_and_supply(game):  # type: ignore[no-untyped-def]
    assert game.restore_depletion(item_slots=1).total == 4
    assert game.restore_depletion(item_slots=3).total == 12
    assert game.restore_depletion().values["supply_per_item_slot"] == 4
    depletion = game.TRACKS["depletion"](size=2)
    assert depletion.mark(1) == []
    assert depletion.mark(1) == ["Depletion is full: If not restored when Depletion = 0, item removed from inventory."]


def test_err_14_supply_available_per_downtime_turn(game):  # type: ignore[no-untyped-def]
    printed = {
        "hamlet": [10, 20, None, None, None, None],
        "village": [20, 40, 80, None, None, None],
        "town": [40, 80, 160, 320, None, None],
        "city": [80, 160, 320, 640, 1280, None],
        "metropolis": [160, 320, 640, 1280, 2560, 5120],
    }
    for rank, (settlement, row) in enumerate(printed.items()):
        assert sum(v is not None for v in row) == rank + 2  # triangular
        for column, value in enumerate(row, start=1):
            text = game.supply_available(settlement=settlement, column=column).outcome.text
            assert text == (None if value is None else str(value)), (settlement, column)
            if value is not None and column > 1:
                assert value == 2 * row[column - 2]  # each column doubles


# ---------------------------------------------------------------- Travel Turn Quick Reference

TRAVEL = ["Encounter", "Rest (+1 negative Event Die) or gain 1 Exhaustion",
          "Deplete all rations or lower all Supply by 1", "Local effect", "Encounter sign", "Free"]


def test_err_15_travel_event_die(game):  # type: ignore[no-untyped-def]
    odds = game.odds("travel_event_die")
    assert {k: v for k, v in odds.items() if v} == {str(face): Fraction(1, 6) for face in range(1, 7)}
    for face, text in enumerate(TRAVEL, start=1):
        assert game.travel_event_die(rng=Faces(face)).outcome.text == text
    # no watch: rolls of 5 are rolls of 1 (line 129)
    unwatched = game.odds("travel_event_die", no_watch=True)
    assert unwatched["5"] == 0 and unwatched["1"] + unwatched["unwatched_encounter"] == Fraction(2, 6)
    assert game.travel_event_die(no_watch=True, rng=Faces(5)).outcome.text == "Encounter"


def test_err_16_travel_turn_actions_and_watch(game, loaded):  # type: ignore[no-untyped-def]
    # a lookup of the Company's action (line 139), so that Orient can carry its -4 (D-ERR-23)
    ids = [b.id for b in loaded.checked.get("travel_turn_actions").bands]
    assert ids == ["peregrinate", "explore", "orient", "forage", "make_camp", "take_watch", "sleep"]
    assert game.travel_turn_actions(action="orient").values == {"next_navigation_dv": -4}
    assert game.travel_turn_actions(action="forage").values == {"supply": 2}
    assert game.travel_turn_actions(action="sleep").values == {"travel_turns": 2}
    assert game.travel_turn_actions(action="sleep").outcome.text == "2 Travel Turns sleeping = night’s Rest."
    assert game.take_watch(watchers=2).values == {"exhaustion": False}
    assert game.take_watch(watchers=0).values == {"event_die_5_is_1": True}
    assert game.take_watch(watchers=1).values == {}  # not stated (D-ERR-13)


def test_err_17_travel_turn_procedure(game, loaded):  # type: ignore[no-untyped-def]
    steps = texts(game, "travel_turn_procedure")
    assert steps == ["Guide declares start of Travel Turn; timekeeper notes which # Travel Turn.",
                     "Caller relays Company’s action to Guide.", "Timekeeper rolls Event Die.",
                     "Event Die and Company’s actions resolved."]
    assert children(loaded, "travel_turn_procedure", 0) == ["Check for night-time."]
    assert children(loaded, "travel_turn_procedure", 1) == [
        "If peregrinating, determine Pace; then pathfinder makes navigation Check."]


def test_err_18_travel_pace(game):  # type: ignore[no-untyped-def]
    printed = {
        "mount": ("+1/x", None), "road": ("+1/x", None), "slowly": ("x/+1", None), "quickly": ("+1/x", None),
        "rough": ("x/+1", 2), "wild": ("x/+2", 4), "night": ("x/+1", 4), "inclement": ("x/+1", 2),
        "severe": ("x/+2", 4), "detailed_map": (None, -4), "general_map": (None, -2), "misleading_map": (None, None),
    }
    for condition, (pace, dv) in printed.items():
        values = game.travel_pace(condition=condition).values
        assert (values.get("pace"), values.get("navigation_dv")) == (pace, dv), condition
    assert game.travel_pace(condition="road").outcome.text == "Can’t get lost"
    assert game.travel_pace(condition="slowly").values["positive_event_dice"] == 1
    assert game.travel_pace(condition="quickly").values["negative_event_dice"] == 1
    misleading = game.travel_pace(condition="misleading_map").values
    assert (misleading["navigation_dv_low"], misleading["navigation_dv_high"]) == (2, 4)
    assert game.travel_pace(condition="severe").outcome.text == "Navigation DV +4, Exhaustion if not camping"


def test_err_19_weather(game):  # type: ignore[no-untyped-def]
    rows = {"2 or less": range(-10, 3), "3-5": range(3, 6), "6-8": range(6, 9), "9-11": range(9, 12),
            "12+": range(12, 30)}
    for shift in (0, 2, -2):
        counts = Counter(a + b + shift for a, b in product(range(1, 7), repeat=2))
        expected = {row: Fraction(sum(n for t, n in counts.items() if t in span), 36) for row, span in rows.items()}
        assert game.odds("weather", modifier=shift) == expected, shift
    cells = {  # roll 2+5 = 7 (row 6-8) in each column
        "spring": "Cloudy", "summer": "Sunny", "autumn": "Overcast (-2 to next weather roll)",
        "winter": "Inclement weather (e.g. sleet)",
    }
    for season, text in cells.items():
        assert game.weather(season=season, rng=Faces(2, 5)).outcome.text == text
    assert game.weather(season="autumn", rng=Faces(3, 4)).values["next_roll"] == -2
    assert game.weather(season="summer", rng=Faces(6, 6)).outcome.text == \
        "Beautiful day (only need to spend one Travel Turn sleeping)"
    assert game.weather(season="summer", rng=Faces(6, 6)).values["sleep_travel_turns"] == 1
    assert game.weather(season="winter", rng=Faces(6, 6)).values["next_roll"] == 2
    assert game.weather(season="spring", rng=Faces(5, 5)).values["next_roll"] == 2
    assert game.weather(season="winter", rng=Faces(1, 1)).values["severe"] is True
    # +2 on a 12 stays on the 12 row; -2 on a 2 stays on the 2 row (D-ERR-5)
    assert game.weather(modifier=2, season="autumn", rng=Faces(6, 6)).outcome.text == \
        "Clear skies (+2 to next weather roll)"
    assert game.weather(modifier=-2, season="spring", rng=Faces(1, 1)).outcome.text == \
        "Inclement weather (e.g. downpour)"



def test_err_44_fall_damage_from_40_feet_is_d6_times_d8(game):  # type: ignore[no-untyped-def]
    # Lines 440-450: 40' is 1D6 x 1D8; the whole distribution of damage, counted by hand.
    counts = Counter(a * b for a in range(1, 7) for b in range(1, 9))
    assert game.totals("fall_damage", height="ft40") == {t: Fraction(n, 48) for t, n in sorted(counts.items())}


def test_err_19_weather_carries_its_modifier_into_the_next_roll(game):  # type: ignore[no-untyped-def]
    # Lines 166-174: "Clear skies (+2 to next weather roll)". Summer, 4+5 = 9: clear skies; the next
    # roll of 4+4 reads 8 + 2 = 10, clear skies again; then 6+6+2 = 14: a beautiful day, which carries 0.
    session = game.session(Faces(4, 5, 4, 4, 6, 6, 3, 3))
    first = session.roll("weather", season="summer")
    assert (first.total, first.values["next_roll"]) == (9, 2)
    second = session.roll("weather", season="summer")
    assert (second.inputs["modifier"], second.total) == (2, 10)
    third = session.roll("weather", season="summer")
    assert third.total == 14 and third.values["next_roll"] == 0
    fourth = session.roll("weather", season="summer")
    assert (fourth.inputs["modifier"], fourth.total) == (0, 6)
    # An explicit input wins over what was carried.
    explicit = game.session(Faces(4, 5, 3, 3))
    explicit.roll("weather", season="summer")
    assert explicit.roll("weather", season="summer", modifier=0).total == 6


# ---------------------------------------------------------------- Exploration Turn Quick Reference


def test_err_20_exploration_event_die(game):  # type: ignore[no-untyped-def]
    expected = list(TRAVEL)
    expected[2] = "Burn all light sources or lower all Supply by 1. Deplete active Sorceries and Miracles by 1"
    for face, text in enumerate(expected, start=1):
        assert game.exploration_event_die(rng=Faces(face)).outcome.text == text
    assert game.odds("exploration_event_die") == {str(face): Fraction(1, 6) for face in range(1, 7)}


def test_err_21_exploration_pace(game):  # type: ignore[no-untyped-def]
    printed = {"slowly": "x/+1", "quickly": "+2/x", "large": "x/+1", "huge": "x/+2", "explored": "+3/x"}
    for condition, pace in printed.items():
        assert game.exploration_pace(condition=condition).values["pace"] == pace
    assert game.exploration_pace(condition="quickly").outcome.text == "+1 negative Event Die."
    assert game.exploration_pace(condition="huge").outcome.text is None


def test_err_22_stealth(game):  # type: ignore[no-untyped-def]
    for skill, encumbrance in [(10, 0), (12, 3), (15, 6), (5, 5)]:
        assert game.odds("stealth", skill=skill, encumbrance=encumbrance)["success"] == window(encumbrance, skill)
    for skill, group in [(12, 0), (12, 7), (16, 9), (20, 40)]:
        assert game.odds("group_stealth", skill=skill, group_encumbrance=group)["success"] == \
            window(group // 2, skill)  # DV = group Encumbrance/2, rounded down (D-ERR-18)


def test_err_23_illumination(game):  # type: ignore[no-untyped-def]
    for burn, members in product(range(0, 13), range(1, 9)):
        got = game.illumination(burn=burn, members=members).outcome.id
        if burn > members:
            assert got == "bright"
        elif Fraction(burn) < Fraction(members, 2):
            assert got == "dim"
        else:
            assert got == "neither"  # not stated (D-ERR-14)
    assert game.illumination(burn=3).values["people_lit"] == 3  # 1 Burn = light for 1 person


def test_err_24_harvesting(game):  # type: ignore[no-untyped-def]
    for threat in (0, 3, 7, 12):
        components = game.creature_components(threat=threat)
        assert components.total == threat // 2
        assert components.values["item_slots"] == components.values["harvest_dv"] == threat // 2
        assert game.odds("harvesting", skill=14, threat=threat)["success"] == window(threat // 2, 14)
    assert game.creature_components().values["per_errant_per_exploration_turn"] == 1


def test_err_25_doors(game, loaded):  # type: ignore[no-untyped-def]
    assert game.odds("stuck_door", phys=12)["opened"] == window(4, 12)  # DV 4 phys Check
    assert game.odds("stuck_door", phys=12, helpers=1)["opened"] == window(2, 12)
    assert game.odds("stuck_door", phys=12, helpers=2)["opened"] == window(0, 12)
    assert game.odds("stuck_door", phys=12, helpers=3)["automatic_success"] == 1  # DV -2 < 0
    details = dict(loaded.checked.get("break_down_door").details)
    assert (details["exploration_turns"].value, details["negative_event_dice"].value) == (2, 1)


def test_err_26_locks(game):  # type: ignore[no-untyped-def]
    printed = [("Strange", "Twist, Tap, Twist", "Spiked"), ("Adamantine", "Twist, Tap, Turn", "Spiked"),
               ("Mythril", "Twist, Turn, Twist", "Secured"), ("Diamond", "Twist, Turn, Tap", "Secured"),
               ("Dwarven", "Tap, Twist, Tap", "Weathered"), ("Elvish", "Tap, Twist, Turn", "Weathered"),
               ("Steel", "Tap, Turn, Twist", "Cracked"), ("Iron", "Tap, Turn, Tap", "Cracked"),
               ("Brass", "Turn, Twist, Tap", "Normal"), ("Copper", "Turn, Twist, Turn", "Normal"),
               ("Tin", "Turn, Tap, Twist", "Normal"), ("Crude", "Turn, Tap, Turn", "Normal")]
    for face, (material, sequence, state) in enumerate(printed, start=1):
        result = game.locks(rng=Faces(face))  # one D12 reads the whole row
        assert (result.outcome.text, result.values["sequence"], result.values["state"]) == (material, sequence, state)
    assert game.odds("locks") == {str(face): Fraction(1, 12) for face in range(1, 13)}
    moves = ("Twist", "Tap", "Turn")
    orders = {", ".join(s) for s in product(moves, repeat=3) if s[0] != s[1] and s[1] != s[2]}
    assert {sequence for _, sequence, _ in printed} == orders and len(orders) == 12


def test_err_27_exploration_turn_procedure(game, loaded):  # type: ignore[no-untyped-def]
    steps = texts(game, "exploration_turn_procedure")
    assert len(steps) == 4  # printed 1, 2, 1, 2 (D-ERR-1)
    assert steps[2] == "Timekeeper rolls Event Die."
    assert children(loaded, "exploration_turn_procedure", 1) == ["If moving, determine Pace."]


# ---------------------------------------------------------------- Downtime Turn Quick Reference


def test_err_28_downtime_event_die_chains(game):  # type: ignore[no-untyped-def]
    printed = ["Encounter", "Complication", "Expiration", "Trend", "Intimation", "Free"]
    for face, text in enumerate(printed, start=1):
        rng = Faces(face, 3) if face in (2, 4) else Faces(face)
        result = game.downtime_event_die(rng=rng)
        assert result.outcome.text == text
        assert [link.name for link in result.chain] == {2: ["downtime_complications"], 4: ["downtime_trends"]}.get(
            face, [])
    assert game.downtime_event_die(rng=Faces(2, 3)).chain[0].outcome.text == "Major figure assassinated."
    assert game.downtime_event_die(rng=Faces(4, 3)).chain[0].outcome.text == "A scandal is revealed."


def test_err_29_downtime_complications(game):  # type: ignore[no-untyped-def]
    odds = game.odds("downtime_complications")
    assert odds == {str(face): Fraction(1, 11) for face in range(1, 12)}  # D11 after D-ERR-7
    assert game.downtime_complications(rng=Faces(11)).outcome.text == "An ally of the Company dies."
    siege = game.downtime_complications(rng=Faces(9, 3))
    assert siege.outcome.text.endswith("If not dealt with in D4 Downtime Turns it will be successful.")
    assert siege.values["downtime_turns"] == 3
    rng = Faces(9, 4)
    game.downtime_complications(rng=rng)
    assert rng.asked == [11, 4]


def test_err_30_downtime_trends(game):  # type: ignore[no-untyped-def]
    assert game.odds("downtime_trends") == {str(face): Fraction(1, 7) for face in range(1, 8)}
    assert game.downtime_trends(rng=Faces(5)).outcome.text == "A rival Company arrives in the area"
    assert game.downtime_trends(rng=Faces(7)).outcome.text == "A new Faction emerges."


def test_err_31_downtime_turn_actions(game):  # type: ignore[no-untyped-def]
    for modifiers in range(-6, 7):
        capped = max(-3, min(3, modifiers))
        totals = [a + b + capped for a, b in product(range(1, 7), repeat=2)]
        expected = {"success": Fraction(sum(t >= 10 for t in totals), 36),
                    "setback": Fraction(sum(7 <= t <= 9 for t in totals), 36),
                    "failure": Fraction(sum(t <= 6 for t in totals), 36)}
        assert game.odds("downtime_action", modifiers=modifiers) == expected, modifiers
    assert game.downtime_action(rng=Faces(5, 5)).values == {"progress": 1}


def test_err_32_activity_trackers(game):  # type: ignore[no-untyped-def]
    sizes = {"minor": 1, "significant": 3, "campaign": 5, "major": 7}
    for goal, size in sizes.items():
        assert game.activity_tracker(goal=goal).values["size"] == size
    assert game.activity_tracker(goal="major").outcome.text == "Major Campaign Defining Goal"
    tracker = game.TRACKS["activity_progress"](size=3)
    tracker.mark(2)
    assert not tracker.full and tracker.mark(1) == ["Activity tracker is full"]


def test_err_33_conspicuous_consumption(game, loaded):  # type: ignore[no-untyped-def]
    assert texts(game, "conspicuous_consumption") == ["Carousing (phys)", "Frippery (skill)",
                                                      "Obscurantism (mind)", "Do-goodery (pres)"]
    assert [data(loaded, "conspicuous_consumption", i)["attribute"] for i in range(4)] == [
        "phys", "skill", "mind", "pres"]
    printed = {"hamlet": (4, 200), "village": (6, 400), "town": (8, 600), "city": (10, 800),
               "metropolis": (12, 1000)}
    names = frozenset(d.name for d in loaded.checked.definitions)
    resolver = loaded.checked.get("amount_wasted")
    for settlement, (sides, times) in printed.items():
        assert distribution(resolver, {"settlement": settlement}, names).totals == \
            {face * times: Fraction(1, sides) for face in range(1, sides + 1)}
        rng = Faces(sides)
        result = game.amount_wasted(settlement=settlement, rng=rng)
        assert rng.asked == [sides]
        assert result.total == result.values["amount"] == sides * times
        assert result.values["debt_saving_throw_dv"] == sides  # the die, not the amount
    details = dict(resolver.details)
    assert details["debt_table"].__class__.__name__ == "Unknown"  # p. 184 (D-ERR-10)


def test_err_34_downtime_turn_procedure(game, loaded):  # type: ignore[no-untyped-def]
    steps = texts(game, "downtime_turn_procedure")
    assert len(steps) == 13  # printed 1, 2, 3, 1, ..., 10 (D-ERR-1)
    assert steps[0] == "Guide declares start of Downtime Turn; timekeeper notes which # Downtime Turn."
    assert steps[4] == "Company debt doubles."
    assert steps[10] == "Guide advances in-game calendar."
    assert steps[11] == "Repeat steps 1-11 until Company ends Downtime Turns."
    assert steps[12] == "Lifestyle expenses are paid."
    loop = data(loaded, "downtime_turn_procedure", 11)
    assert (loop["repeat_from"], loop["repeat_to"]) == (1, 11)  # step 12 loops back over steps 1..11
    assert data(loaded, "downtime_turn_procedure", 4)["debt_multiplier"] == 2
    assert children(loaded, "downtime_turn_procedure", 2) == [
        "Guide Checks if any Scourges triggered.",
        "If setbacks rolled, Company decides if they wish to postpone Downtime Turn to resolve setback."]


# ---------------------------------------------------------------- Initiative Turn Quick Reference


def test_err_35_combat_distance(game, loaded):  # type: ignore[no-untyped-def]
    names = frozenset(d.name for d in loaded.checked.definitions)
    totals = distribution(loaded.checked.get("combat_distance"), {}, names).totals
    assert totals == {10 * face: Fraction(1, 6) for face in range(1, 7)}
    result = game.combat_distance(rng=Faces(4))
    assert result.values == {"distance": 40, "unit": "feet/yards"}


def test_err_36_surprise(game):  # type: ignore[no-untyped-def]
    odds = game.odds("surprise")
    assert odds["1, 2"] == odds["5, 6"] == odds["no_surprise"] == Fraction(1, 3)
    assert [game.surprise(rng=Faces(face)).outcome.text for face in (1, 2, 5, 6)] == [
        "NPCs", "NPCs", "Company", "Company"]
    assert game.surprise(rng=Faces(3)).outcome.id == "no_surprise"


def test_err_37_initiative(game):  # type: ignore[no-untyped-def]
    for call, parity in (("odd", 1), ("even", 0)):
        right = Fraction(sum((a + b) % 2 == parity for a, b in product(range(1, 7), repeat=2)), 36)
        assert game.odds("initiative", call=call) == {"company_first": right, "called_wrong": 1 - right}
    assert game.initiative(call="even", rng=Faces(3, 5)).values["company_first"] is True
    assert game.initiative(call="odd", rng=Faces(3, 5)).values["company_first"] is False
    assert texts(game, "initiative_order") == ["Winning side acts quickly.", "Losing side acts quickly.",
                                               "Winning side acts slowly.", "Losing side acts slowly."]


def test_err_38_speed_and_movement(game, loaded):  # type: ignore[no-untyped-def]
    assert game.spd(skill=12, encumbrance=3).total == 9
    for spd in range(-11, 21):
        expected = 0 if spd < 4 else min(5, spd // 4)  # 0-3: 0, 4-7: 1, ... 20: 5
        assert game.movement_dice(spd=spd).values["value"] == expected, spd
    assert game.movement_roll(movement_dice=3, rng=Faces(4, 1, 3)).values["distance"] == 80
    assert game.movement_roll(movement_dice=0, rng=Faces()).values["distance"] == 0
    assert game.shift(movement_dice=3).total == 30
    names = frozenset(d.name for d in loaded.checked.definitions)
    totals = distribution(loaded.checked.get("movement_roll"), {"movement_dice": 2}, names).totals
    assert totals == {t: Fraction(n, 16) for t, n in Counter(a + b for a, b in product(range(1, 5), repeat=2)).items()}


def attack_expectation(die: str, blocks: int, enhance: int, missile: bool) -> dict[str, Fraction]:
    place = max(0, min(6, LADDER.index(die) + enhance - blocks))
    sides = SIDES[LADDER[place]]
    out = Counter()
    for face in range(1, sides + 1):
        if face == 1 and face >= sides:
            out["one_and_max"] += 1
        elif face == 1:
            out["rolled_one"] += 1
        elif face >= sides:
            out["max_damage"] += 1
        else:
            out["damage"] += 1
    return {k: Fraction(out[k], sides) for k in ("one_and_max", "rolled_one", "max_damage", "damage")}


def test_err_39_attack_roll(game):  # type: ignore[no-untyped-def]
    for die, blocks, enhance in product(LADDER, range(0, 4), range(0, 3)):
        assert game.odds("attack_roll", die=die, blocks=blocks, enhance=enhance) == \
            attack_expectation(die, blocks, enhance, False), (die, blocks, enhance)
    one = game.attack_roll(die="d8", rng=Faces(1))
    assert one.values == {"damage": 1, "target_action": True, "weapon_quality": -1}
    missile = game.attack_roll(die="d8", missile=True, rng=Faces(8))
    assert missile.outcome.id == "max_damage" and missile.values["deplete_ammunition"] is True
    assert game.attack_roll(die="d8", rng=Faces(8)).values["deplete_ammunition"] is False
    assert texts(game, "attacking")[1] == "Rolling 1 on damage die = target makes action and weapon Quality -1."


def test_err_40_enhance_impair_ladder_and_block(game):  # type: ignore[no-untyped-def]
    assert game.enhance_impair(die="d12", enhance=1).values["sides"] == 20  # no step between D12 and D20
    assert game.enhance_impair(die="d20", enhance=2).values["sides"] == 20
    assert game.enhance_impair(die="d4", blocks=1).outcome.text == "1"
    assert game.enhance_impair(die="d4", blocks=3).values["sides"] == 1
    assert game.enhance_impair(die="d10", blocks=2).values["sides"] == 6  # 1 Block = impair 1 step
    for die in LADDER:
        for blocks in range(0, 7):
            place = max(0, LADDER.index(die) - blocks)
            assert game.enhance_impair(die=die, blocks=blocks).outcome.id == LADDER[place]
    # impaired down to 1: always 1, which is both max damage and a roll of 1; on a Block, armour Quality -1
    rng = Faces(1)
    blocked = game.attack_roll(die="d6", blocks=2, missile=True, rng=rng)
    assert rng.asked == [1]
    assert game.odds("attack_roll", die="d6", blocks=2)["one_and_max"] == 1
    assert blocked.values["weapon_quality"] == -1 and blocked.values["deplete_ammunition"] is True
    assert blocked.values["armour_quality"] == -1
    assert game.attack_roll(die="d6", blocks=1, rng=Faces(4)).values["armour_quality"] == -1
    assert game.attack_roll(die="d6", rng=Faces(6)).values["armour_quality"] == 0


WOUNDS = {
    1: ("Slow internal bleeding. On death’s door, but in Exploration Turns.", "Zapped. Stunned for an Initiative Turn.",
        "Eye destroyed. If both eyes go, you’re blind.", "Nauseous. 1 point of Exhaustion."),
    2: ("Leg mangled. Can’t run. If both legs go, you can’t walk.", "Knocked out. Unconscious (Depletion 1).",
        "Mouth melted. Can’t speak, only grunt and moan (unable to cast Sorceries or Miracles.)",
        "Immune system compromised. HP halved."),
    3: ("Arm wrecked. If both arms go, you can’t hold anything.",
        "Concussed. Knocked out for D12 Initiative Turns and 1 point of Exhaustion.", "Face melted.",
        "Blood tainted. Can’t recover HP."),
    4: ("On death’s door.", "Cardiac arrest. On death’s door and 1 point of Exhaustion.", "Fingers burnt off.",
        "Bleeding from nose and eyes. On death’s door, but in Exploration Turns."),
    5: ("Leg destroyed. Can’t run. If both legs go, you can’t walk. Also on death’s door.",
        "Scrambled. Major brain trauma and on death’s door.", "Suffocating. On death’s door and 1 point of Exhaustion.",
        "Excreting blood from pores. On death’s door, but in Exploration Turns, and 1 point of Exhaustion."),
    6: ("Arm destroyed. If both arms go, you can’t hold anything. Also on death’s door.",
        "Deep fried. Unconscious (Depletion 1), major brain trauma, and on death’s door.",
        "Nose is burnt off, inner ears ruined. Deaf and can no longer smell or taste. Also on death’s door.",
        "Rupture. You’re throwing up black acrid blood. On death’s door."),
    7: ("Head shot. On death’s door and major brain trauma.",
        "Internal damage. Coughing up blood or bleeding from eyes and mouth. Consigned to the reaper.",
        "Your lungs and face are burnt off. Also on death’s door and 1 point of Exhaustion.",
        "Nervous system shutdown. Can’t move and on death’s door."),
    8: ("Throat or lung torn open. Consigned to the reaper.", "Respiratory system failure. Consigned to the reaper.",
        "Skin burned off. Consigned to the reaper.", "Immune system shutdown. Consigned to the reaper."),
    9: ("Guts hanging out. Consigned to the reaper and out of action.",
        "Brain dead. Consigned to the reaper and out of action.",
        "Burnt to a crisp. Consigned to the reaper and out of action.",
        "Total organ failure. consigned to the reaper and out of action."),
}
COLUMNS = ("physical", "shock", "burn", "toxic")


def test_err_41_wounds_read_the_right_column(game):  # type: ignore[no-untyped-def]
    for damage, row in WOUNDS.items():
        for column, text in zip(COLUMNS, row, strict=True):
            result = game.wounds(damage=damage, damage_type=column, rng=Faces(7))
            assert result.outcome.text == text, (damage, column)
            tags = result.values
            lower = text.lower()
            assert bool(tags.get("deaths_door")) == ("death’s door" in lower), (damage, column)
            assert bool(tags.get("in_exploration_turns")) == ("exploration turns" in lower), (damage, column)
            assert bool(tags.get("consigned_to_the_reaper")) == ("consigned to the reaper" in lower)
            assert bool(tags.get("out_of_action")) == ("out of action" in lower)
            assert tags.get("exhaustion", 0) == (1 if "1 point of exhaustion" in lower else 0), (damage, column)
            assert bool(tags.get("unconscious")) == ("unconscious" in lower)
            assert bool(tags.get("brain_trauma")) == ("brain trauma" in lower)
            assert bool(tags.get("hp_halved")) == ("hp halved" in lower)
            assert bool(tags.get("no_hp_recovery")) == ("can’t recover hp" in lower)
    assert game.wounds(damage=3, damage_type="shock", rng=Faces(7)).values["knocked_out_initiative_turns"] == 7
    assert game.wounds(damage=1, damage_type="shock").values["stunned_initiative_turns"] == 1
    for damage in range(10, 16):
        assert game.wounds(damage=damage, damage_type="burn").outcome.text == "Dead."  # 15 stays Dead. (D-ERR-9)
    for damage in (16, 22, 30):
        assert game.wounds(damage=damage, damage_type="toxic").outcome.text == "Deader than Dead."
    assert game.wounds(damage=12).values == {"dead": True}
    assert game.wounds(damage=20, damage_type="shock").outcome.column == "shock?"


def test_err_42_death_and_dying(game):  # type: ignore[no-untyped-def]
    for phys, damage in [(10, 0), (12, 4), (15, 9), (8, 8)]:
        odds = game.odds("zero_hp_saving_throw", phys=phys, damage_taken=damage)
        assert odds["stays_in_action"] == window(damage, phys)
    assert game.zero_hp_saving_throw(phys=12, damage_taken=4, rng=Faces(4)).values == {"out_of_action": True}
    door = game.TRACKS["deaths_door"](size=3)  # Renown 3
    assert door.mark(2) == [] and door.mark(1) == ["On death’s door is full: dead"]
    reaper = game.TRACKS["consigned_to_the_reaper"](size=1)
    assert reaper.mark(1) == ["Consigned to the reaper is full: dead"]


def chase_expectation(dice: int) -> dict[str, Fraction]:
    """One side's chance of two 4s (escape) and of doubles (lines 431-432), every face counted."""
    out: Counter[str] = Counter()
    for faces in product(range(1, 5), repeat=dice):
        counts = Counter(faces)
        out["we_escape"] += counts[4] >= 2
        out["our_doubles"] += any(n >= 2 for n in counts.values())
    total = 4 ** dice
    return {"we_escape": Fraction(out["we_escape"], total), "our_doubles": Fraction(out["our_doubles"], total)}


def test_err_43_chases(game):  # type: ignore[no-untyped-def]
    # chase_turn rolls both sides (D-ERR-19); with no dice on the other side it is one side's movement roll.
    for dice in range(0, 6):
        flags = game.flag_odds("chase_turn", our_dice=dice, their_dice=0)
        found = {name: sum(flags[name].values()) for name in ("we_escape", "our_doubles")}
        assert found == chase_expectation(dice), dice
    escaped = game.chase_turn(our_dice=2, their_dice=0, rng=Faces(4, 4))  # the other side, with no dice, is lowest
    assert escaped.flags == ("we_escape", "our_doubles", "they_rolled_lowest") and escaped.total == 8
    assert game.chase_turn(our_dice=2, their_dice=0, rng=Faces(3, 3)).flags == ("our_doubles", "they_rolled_lowest")
    assert game.chase_turn(our_dice=2, their_dice=0, rng=Faces(3, 4)).flags == ("they_rolled_lowest",)
    assert texts(game, "chases")[1] == "If two 4’s are rolled, that side escapes/catches quarry."


def test_err_44_fall_damage(game, loaded):  # type: ignore[no-untyped-def]
    names = frozenset(d.name for d in loaded.checked.definitions)
    resolver = loaded.checked.get("fall_damage")
    for height, second in [("ft10", 1), ("ft20", 4), ("ft30", 6), ("ft40", 8), ("ft50", 10), ("ft60", 12),
                           ("ft70", 20)]:
        counts = Counter(a * b for a, b in product(range(1, 7), range(1, second + 1)))
        expected = {total: Fraction(n, 6 * second) for total, n in counts.items()}
        assert distribution(resolver, {"height": height}, names).totals == expected, height
    # 40 feet is 1D6 x 1D8: every pair of faces through the compiled resolver
    for a, b in product(range(1, 7), range(1, 9)):
        rng = Faces(a, b)
        result = game.fall_damage(height="ft40", rng=rng)
        assert rng.asked == [6, 8] and result.total == result.values["damage"] == a * b
    forty = Counter(a * b for a, b in product(range(1, 7), range(1, 9)))
    assert forty[12] == 4 and forty[48] == 1 and len(forty) == 27  # 2x6, 3x4, 4x3, 6x2; only 6x8
    printed = {"ft10": "1D6", "ft20": "1D6 × 1D4", "ft30": "1D6 × 1D6", "ft40": "1D6 × 1D8",
               "ft50": "1D6 × 1D10", "ft60": "1D6 × 1D12", "ft70": "1D6 × 1D20"}
    for height, text in printed.items():
        assert game.fall_damage_table(height=height).outcome.text == text
    assert game.fall_damage_table(height="ft70", rng=Faces(6, 20)).values["damage"] == 120
    rng = Faces(5, 1)
    assert game.fall_damage(height="ft10", rng=rng).total == 5 and rng.asked == [6, 1]  # 10' is 1D6 x 1


def test_err_45_burning_and_holding_breath(game):  # type: ignore[no-untyped-def]
    assert game.odds("burning") == {"damage": 1}
    assert game.burning(rng=Faces(4)).values == {"damage": 4}
    for phys in range(1, 21):
        result = game.hold_breath(phys=phys)
        assert result.total == phys - 10
        assert result.values["initiative_turns"] == max(0, phys - 10)
        assert result.outcome.id == ("turns" if phys > 10 else "no_turns")  # D-ERR-12
    assert game.out_of_breath(rng=Faces(6)).values == {"damage": 6}


def test_err_46_initiative_turn_procedure(game, loaded):  # type: ignore[no-untyped-def]
    steps = texts(game, "initiative_turn_procedure")
    assert steps == ["Determine combat distance.", "Determine surprise.", "Determine Initiative Turn order.",
                     "Winning side acts quickly.", "Losing side acts quickly.", "Winning side acts slowly.",
                     "Losing side acts slowly.", "Effects or conditions expire.",
                     "Repeat steps 3-8 until combat is resolved."]
    loop = data(loaded, "initiative_turn_procedure", 8)
    assert (loop["repeat_from"], loop["repeat_to"]) == (3, 8)
    assert steps[loop["repeat_from"] - 1] == "Determine Initiative Turn order."
    assert steps[loop["repeat_to"] - 1] == "Effects or conditions expire."
    assert [data(loaded, "initiative_turn_procedure", i).get("see") for i in range(3)] == [
        "combat_distance", "surprise", "initiative"]


# ---------------------------------------------------------------- how it will be tried, and the whole module


def test_cli_odds_check_dv4_attribute12(capsys):  # type: ignore[no-untyped-def]
    assert cli_main(["odds", "errant", "check", "dv=4", "attribute=12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {o["id"]: o["probability"] for o in out["outcomes"]} == {
        "automatic_success": "0/1", "success": "7/20", "failure": "13/20"}
    assert out["inputs"] == {"dv": 4, "attribute": 12}


def test_check_reports_each_published_defect_as_resolved(loaded):  # type: ignore[no-untyped-def]
    diagnostics = loaded.report.diagnostics
    assert [d for d in diagnostics if d.severity in ("error", "warning")] == []
    notes = {(d.code, d.item) for d in diagnostics if d.severity == "note"}
    assert notes == {
        ("MISSING", "reaction_roll"), ("MISSING", "supply_available"), ("MISSING", "travel_pace"),
        ("MISSING", "exploration_pace"), ("MISSING", "weather"), ("RANGE-GAP", "weather"), ("MISSING", "locks"),
        ("DIE-ROWS", "downtime_complications"), ("RANGE-GAP", "downtime_complications"),
        ("DIE-ROWS", "downtime_trends"), ("RANGE-GAP", "downtime_trends"), ("MISSING", "movement_dice"),
        ("RANGE-GAP", "movement_dice"), ("MISSING", "wounds"), ("RANGE-OVERLAP", "wounds"),
        ("MISSING", "amount_wasted"), ("MISSING", "chases"), ("XREF", "amount_wasted"), ("XREF", "chases"),
        ("RANGE-GAP", "hold_breath"),
        ("RANGE-GAP", "take_watch"), ("RANGE-GAP", "illumination"), ("RANGE-GAP", "surprise"),
    }
    # 22: the title; 23: the navigation DV summed and Orient carried (issue 26)
    assert [e.id for e in loaded.checked.errata] == [f"D-ERR-{n}" for n in range(1, 24)]


def test_every_inventory_item_is_cited(loaded):  # type: ignore[no-untyped-def]
    cited = {i for d in loaded.checked.definitions if d.citation for i in d.citation.ids}
    assert {f"ERR-{n:02d}" for n in range(1, 47)} <= cited


def test_every_roll_and_table_rolls_with_default_inputs(game, loaded):  # type: ignore[no-untyped-def]
    for name, resolver in game.RESOLVERS.items():
        banded = bool(loaded.checked.get(name).bands)  # formulas without bands give a number only
        for seed in range(21):
            result = resolver(rng=random.Random(seed))
            assert (result.outcome is not None) == banded, (name, seed)
            assert result.trace and (banded or isinstance(result.total, int))
