"""Wyrd Wolds, item by item: one test per inventory item WW-01 .. WW-50.

Every expected number and text below is read from the rulebook
(seeds/001_247845909e808192.txt, cited by `cat -n` line), not from the ruleset.
Odds are counted here, independently, by enumerating every sequence of dice with
itertools or by the closed form for the highest die of a pool, and compared with
the compiled module's exact `odds()`. Single results are resolved with a scripted
RNG that hands the resolver preset faces (and fails if it draws more or fewer
dice). Where the document is defective the test asserts the erratum's resolution
and names the defect (D-WW-n).
"""

from __future__ import annotations

import itertools
import random
import types
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import pytest

from rulecraft import model as m
from rulecraft.api import Loaded, load
from rulecraft.backends.python import generate
from rulecraft.syntax.parse import parse
from tests.conftest import ROOT, compile_module

RULES = ROOT / "rulesets" / "wyrd_wolds.rules"
Module = types.ModuleType


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    return load(str(RULES))


@pytest.fixture(scope="module")
def ww(loaded: Loaded) -> Module:
    return compile_module(generate(loaded.checked), "generated_wyrd_wolds")


@pytest.fixture(scope="module")
def published(loaded: Loaded) -> m.Ruleset:
    """The ruleset as written, before errata (the source model)."""
    return parse(loaded.source, str(RULES), "wyrd_wolds")


# ---------------------------------------------------------------- helpers


class Scripted(random.Random):
    """An RNG whose randint hands back preset faces (resolvers draw every die with rng.randint(1, sides))."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6), "every Wyrd Wolds die is a d6"
        return self.faces.pop(0)


def roll(ww: Module, name: str, faces: Iterable[int], **inputs: Any) -> Any:
    """Resolve `name` on exactly these faces: all of them must be drawn, and no more."""
    rng = Scripted(faces)
    result = ww.RESOLVERS[name](**inputs, rng=rng)
    assert rng.faces == [], f"{name} drew fewer dice than scripted; left over {rng.faces}"
    return result


def resolve(ww: Module, name: str, **inputs: Any) -> Any:
    """A lookup or formula: no dice may be drawn."""
    return roll(ww, name, (), **inputs)


def pool_size(ww: Module, name: str, **inputs: Any) -> int:
    """How many dice `name` draws for these inputs (counted with an RNG that always shows 1)."""

    class Counting(random.Random):
        drawn = 0

        def randint(self, a: int, b: int) -> int:
            self.drawn += 1
            return 1

    rng = Counting(0)
    ww.RESOLVERS[name](**inputs, rng=rng)
    return rng.drawn


def core(faces: tuple[int, ...]) -> str:
    """Lines 47-51: the single highest die; more than one 6 is a critical."""
    if faces.count(6) >= 2:
        return "critical"
    top = max(faces)
    return "full" if top == 6 else "partial" if top >= 4 else "bad"


def zero(faces: tuple[int, ...]) -> str:
    """Line 53: two dice, the single lowest result, never a critical."""
    low = min(faces)
    return "full" if low == 6 else "partial" if low >= 4 else "bad"


def hand(pool: int, names: dict[str, str] | None = None) -> dict[str, Fraction]:
    """Exact odds of a pool of `pool` dice, counted over every sequence of faces."""
    dice, classify = (pool, core) if pool > 0 else (2, zero)
    tally = Counter(classify(faces) for faces in itertools.product(range(1, 7), repeat=dice))
    names = names or {}
    return {names.get(k, k): Fraction(n, 6**dice) for k, n in tally.items()}


def doc_texts(ww: Module, name: str) -> list[str | None]:
    """The entry texts of a list in the generated module's DOCUMENTS."""
    document = ww.DOCUMENTS[name]
    if hasattr(document, "entries"):
        return [entry.text for entry in document.entries]
    return [text for _, text in document]  # older codegen: (id, text) pairs


def nonzero(odds: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: v for k, v in odds.items() if v}


def plain(expr: object) -> object:
    if isinstance(expr, (m.Number, m.Text, m.Boolean)):
        return expr.value
    if isinstance(expr, m.Name):
        return expr.name
    if isinstance(expr, m.Unknown):
        return None
    return m.expr_text(expr)  # type: ignore[arg-type]


def details(loaded: Loaded, name: str) -> dict[str, object]:
    definition = loaded.checked.get(name)
    assert definition is not None and not isinstance(definition, m.Resolver), name
    return {k: plain(v) for k, v in definition.details}


def entries(loaded: Loaded, name: str) -> list[m.ListEntry]:
    definition = loaded.checked.get(name)
    assert isinstance(definition, m.Document), name
    return list(definition.entries)


def entry_values(entry: m.ListEntry) -> dict[str, object]:
    return {k: plain(v) for k, v in entry.values}


def bands(loaded: Loaded, name: str) -> list[m.Band]:
    resolver = loaded.checked.get(name)
    assert isinstance(resolver, m.Resolver), name
    return list(resolver.bands)


def band_values(band: m.Band) -> dict[str, object]:
    return {k: plain(v) for k, v in band.values}


def lookup_rows(ww: Module, name: str, key: str, values: Iterable[object], field: str | None = None,
                **inputs: Any) -> dict[object, object]:
    """Each key value -> the row's text (or its datum `field`)."""
    out: dict[object, object] = {}
    for value in values:
        result = resolve(ww, name, **{key: value}, **inputs)
        if result.outcome is None:
            out[value] = None
        else:
            out[value] = result.values[field] if field else result.outcome.text
    return out


# ---------------------------------------------------------------- the ruleset as a whole


def test_check_is_clean_and_every_defect_has_its_erratum(loaded: Loaded) -> None:
    problems = [d for d in loaded.report.diagnostics if d.severity in ("error", "warning")]
    assert problems == []
    assert [e.id for e in loaded.checked.errata] == [f"D-WW-{n}" for n in range(1, 20)]
    notes = {(d.code, d.item) for d in loaded.report.diagnostics if d.severity == "note"}
    assert notes == {
        ("DUP", "actions"), ("COUNT", "actions"), ("MISSING", "healing_clock"), ("MISSING", "stress"),
        ("MISSING", "heat"), ("MISSING", "gear"), ("MISSING", "stress_relief"), ("MISSING", "train"),
        ("MISSING", "inventions"),
        ("MISSING", "attribute_xp"), ("MISSING", "playbook_xp"), ("MISSING", "party_xp"),
        ("MISSING", "example_ratings"), ("RANGE-GAP", "effect_levels"), ("RANGE-GAP", "load_levels"),
        ("RANGE-GAP", "magnitude_area"),
    }


# ---------------------------------------------------------------- The Core System


def test_ww_01_core_dice_resolution(ww: Module, loaded: Loaded) -> None:
    # Lines 47-51: read the single highest die; 6 full, 4/5 partial, 1-3 bad; more than one 6 critical.
    for rating in range(1, 5):
        assert nonzero(ww.odds("simple_roll", rating=rating)) == hand(rating)
    assert roll(ww, "simple_roll", (6, 6, 1), rating=3).outcome.id == "critical"
    assert roll(ww, "simple_roll", (6, 5, 6), rating=3).outcome.id == "critical"
    assert roll(ww, "simple_roll", (2, 6, 5), rating=3).outcome.id == "full"
    assert roll(ww, "simple_roll", (5, 4, 1), rating=3).outcome.id == "partial"
    assert roll(ww, "simple_roll", (3, 1, 3), rating=3).outcome.id == "bad"
    # The critical is tested before the 6, in every roll that reads the core bands.
    for name in ("simple_roll", "action_roll", "resistance_roll", "fortune_roll", "downtime_roll",
                 "long_term_project", "recovery", "crafting_roll", "gather_information"):
        first = bands(loaded, name)[0]
        assert isinstance(first.condition, m.When), name
        assert m.expr_text(first.condition.test) == "count(6) >= 2 and not zero_dice", name
    assert [e.id for e in entries(loaded, "core_results")] == ["when count(6) >= 2 and not zero_dice",
                                                                "6", "4/5", "1-3"]


def test_ww_02_zero_dice_rule(ww: Module) -> None:
    # Line 53: zero (or negative) dice: roll two, take the single lowest, no critical.
    expected = {"full": Fraction(1, 36), "partial": Fraction(8, 36), "bad": Fraction(27, 36)}
    assert hand(0) == expected
    zero_pools: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("simple_roll", {"rating": 0}, {}),
        ("action_roll", {"rating": 0}, {}),
        ("action_roll", {"rating": 1, "moderate_harm": True}, {}),
        ("resistance_roll", {"attribute": 0}, {}),
        ("fortune_roll", {"trait": 0}, {"full": "good", "partial": "mixed"}),
        ("fortune_roll", {"trait": 1, "disadvantages": 3}, {"full": "good", "partial": "mixed"}),
        ("downtime_roll", {"rating": 0}, {}),
        ("long_term_project", {"rating": 0}, {}),
        ("recovery", {"healer_rating": 0}, {}),
        ("recovery", {"treatment": "tough_it_out"}, {}),
        ("crafting_roll", {"tinker": 0}, {}),
        ("gather_information", {"rating": 0}, {"full": "standard", "partial": "limited", "bad": "poor"}),
        ("magnitude_fortune", {"magnitude": 0}, {"partial": "reduced", "bad": "little"}),
    ]
    for name, inputs, names in zero_pools:
        odds = ww.odds(name, **inputs)
        assert odds.get("critical", Fraction(0)) == 0 and odds.get("great", Fraction(0)) == 0, name
        if name == "resistance_roll":
            assert nonzero(odds) == {"resisted": Fraction(1)}
        else:
            assert nonzero(odds) == hand(0, names), (name, inputs)
        assert pool_size(ww, name, **inputs) == 2, (name, inputs)
    # Two sixes on zero dice are a plain 6; the lower die is the result.
    assert roll(ww, "action_roll", (6, 6), rating=0).outcome.id == "full"
    assert roll(ww, "action_roll", (2, 5), rating=0).outcome.id == "bad"
    assert roll(ww, "action_roll", (5, 4), rating=0).outcome.id == "partial"


def test_ww_03_pool_sizing_from_a_rating(ww: Module, loaded: Loaded) -> None:
    # Line 57: "Even one die is pretty good in this game—a 50% chance of success" (4+ on one die).
    one_die = ww.odds("simple_roll", rating=1)
    assert one_die["full"] + one_die["partial"] == Fraction(1, 2)
    assert one_die["critical"] == 0
    # Take dice equal to the rating; ratings run from zero to 4 (lines 88, 100).
    for rating in range(0, 5):
        assert pool_size(ww, "action_roll", rating=rating) == (rating or 2)
        assert pool_size(ww, "resistance_roll", attribute=rating) == (rating or 2)
    specs = {spec[0]: spec for spec in ww.INPUTS["action_roll"]}
    assert specs["rating"][2:4] == (0, 4)
    assert {spec[0]: spec for spec in ww.INPUTS["resistance_roll"]}["attribute"][2:4] == (0, 4)
    with pytest.raises(ValueError):
        ww.action_roll(rating=5)
    assert "50% chance of success" in (loaded.checked.get("dice_pools").text or "")  # type: ignore[union-attr]


# ---------------------------------------------------------------- Actions & Attributes


def test_ww_04_actions_and_their_attributes(ww: Module, loaded: Loaded, published: m.Ruleset) -> None:
    twelve = ["Attune", "Command", "Consort", "Finesse", "Hunt", "Prowl", "Skirmish", "Study", "Survey",
              "Sway", "Tinker", "Wreck"]
    # As published (lines 70-86): "15 actions", Wreck listed four times (D-WW-1).
    item = published.item("actions")
    assert item is not None
    assert [e.cells[0] for e in item.entries] == twelve + ["Wreck"] * 3
    assert plain(item.attr("count").value) == 15  # type: ignore[union-attr]
    dups = [d for d in loaded.report.diagnostics if d.code == "DUP" and d.item == "actions"]
    assert len(dups) == 3 and all("D-WW-1" in d.notes[0] for d in dups)
    # After the erratum: the 12 distinct actions, count 12.
    assert doc_texts(ww, "actions") == twelve
    assert details(loaded, "actions")["count"] == 12
    # The grouping of the example tables (lines 116-145) and the descriptions (lines 151-197).
    groups = {"Insight": {"hunt", "study", "survey", "tinker"}, "Prowess": {"finesse", "prowl", "skirmish", "wreck"},
              "Resolve": {"attune", "command", "consort", "sway"}}
    for attribute, actions in groups.items():
        for action in actions:
            assert resolve(ww, "action_attribute", action=action).outcome.text == attribute
    described = entries(loaded, "action_descriptions")
    assert [e.id for e in described] == [a.lower() for a in twelve]
    assert described[0].text == "When you **Attune**, you open your mind to arcane power."
    assert {e.id: entry_values(e)["attribute"] for e in described} == {
        a: attr for attr, actions in groups.items() for a in actions}


def test_ww_05_attribute_rating_counts_the_first_column(ww: Module, loaded: Loaded) -> None:
    # Lines 116-145: Hunt 1 -> Insight 1; Prowl 1, Skirmish 2 -> Prowess 2; Attune 2, Command 1, Sway 1.
    assert resolve(ww, "insight_rating", hunt=1).total == 1
    assert resolve(ww, "prowess_rating", prowl=1, skirmish=2).total == 2
    assert resolve(ww, "resolve_rating", attune=2, command=1, consort=0, sway=1).total == 3
    assert resolve(ww, "prowess_rating", finesse=4, prowl=4, skirmish=4, wreck=4).total == 4
    assert resolve(ww, "insight_rating").total == 0
    # The example does not state Resolve (D-WW-13): the erratum records the derived 3.
    example = details(loaded, "example_ratings")
    assert (example["insight"], example["prowess"], example["resolve"]) == (1, 2, 3)


def test_ww_06_roll_types(loaded: Loaded, ww: Module) -> None:
    # Lines 59-64: action, downtime, fortune, resistance.
    listed = entries(loaded, "roll_types")
    assert [e.id for e in listed] == ["action", "downtime", "fortune", "resistance"]
    assert listed[2].text.startswith("**Fortune roll**. The GM can make a fortune roll")  # type: ignore[union-attr]
    for entry in listed:
        assert entry_values(entry)["see"] in ww.RESOLVERS


def test_ww_07_judgment_calls(loaded: Loaded) -> None:
    # Lines 39-43: players, GM, GM, GM, players.
    calls = entries(loaded, "judgment_calls")
    assert [entry_values(e)["final_say"] for e in calls] == ["players", "GM", "GM", "GM", "players"]
    assert calls[1].text.endswith("The GM has final say.")  # type: ignore[union-attr]
    assert calls[4].text.endswith("The players have final say.")  # type: ignore[union-attr]


# ---------------------------------------------------------------- Action Roll


def test_ww_08_action_roll_procedure(loaded: Loaded) -> None:
    steps = entries(loaded, "action_roll_steps")
    assert [e.text for e in steps] == [
        "The player states their **goal** for the action.",
        "The player chooses the **action rating**.",
        "The GM sets the **position** for the roll.",
        "The GM sets the **effect level** for the action.",
        "Add **bonus dice**.",
        "The player rolls the dice and we judge the result.",
    ]
    assert details(loaded, "action_roll_steps")["count"] == 6
    summary = entries(loaded, "action_roll_summary")
    assert len(summary) == 5
    assert entry_values(summary[3])["bonus_dice"] == 2


def test_ww_09_bonus_dice(ww: Module) -> None:
    # Lines 312-318, 362-366: 1d per dot, +1d assistance, +1d push -or- Devil's Bargain.
    assert pool_size(ww, "action_roll", rating=2) == 2
    assert pool_size(ww, "action_roll", rating=2, assistance=True) == 3
    assert pool_size(ww, "action_roll", rating=2, push_or_bargain="push") == 3
    assert pool_size(ww, "action_roll", rating=2, push_or_bargain="bargain") == 3
    assert pool_size(ww, "action_roll", rating=2, assistance=True, push_or_bargain="bargain") == 4
    # Both is impossible: one choice holds push and bargain.
    choice = {spec[0]: spec for spec in ww.INPUTS["action_roll"]}["push_or_bargain"]
    assert choice[1] == "choice" and choice[4] == ("none", "push", "bargain")
    # Special abilities may add dice beyond the normal two (line 314).
    assert pool_size(ww, "action_roll", rating=2, assistance=True, push_or_bargain="push", ability_dice=1) == 5
    # Rating 1 with assistance and a push: three dice, by hand.
    assert nonzero(ww.odds("action_roll", rating=1, assistance=True, push_or_bargain="push")) == hand(3)
    # Zero dots plus one bonus die is one die, not the zero-dice rule.
    assert nonzero(ww.odds("action_roll", rating=0, assistance=True)) == hand(1)


ACTION_TEXTS = {
    "controlled": {
        "partial": "You hesitate.\n- Withdraw and try a different approach, or\n- else do it with a minor "
                   "consequence: a **minor complication** occurs, you have **reduced effect**, you suffer "
                   "**lesser harm**, you end up in a **risky** position.",
        "bad": "You falter.\n- Press on by seizing a **risky** opportunity, or\n- withdraw and try a different "
               "approach.",
    },
    "risky": {
        "partial": "You do it, but there's a consequence: you suffer **harm**, a **complication** occurs, you have "
                   "**reduced effect**, you end up in a **desperate** position.",
        "bad": "Things go badly. You suffer **harm**, a **complication** occurs, you end up in a **desperate** "
               "position, you **lose this opportunity**.",
    },
    "desperate": {
        "partial": "You do it, but there's a consequence: you suffer **severe harm**, a **serious complication** "
                   "occurs, you have **reduced effect**.",
        "bad": "It's the worst outcome. You suffer **severe harm**, a **serious complication** occurs, you "
               "**lose this opportunity** for action.",
    },
}


def test_ww_10_action_roll_outcomes_by_position(ww: Module, loaded: Loaded) -> None:
    # Two dice, counted by hand: 1 - (5/6)**2 have a six, one of them a double six.
    sixes = 1 - Fraction(5, 6) ** 2
    expected = {"critical": Fraction(1, 36), "full": sixes - Fraction(1, 36),
                "partial": Fraction(5, 6) ** 2 - Fraction(1, 2) ** 2, "bad": Fraction(1, 2) ** 2}
    assert expected == {"critical": Fraction(1, 36), "full": Fraction(10, 36), "partial": Fraction(16, 36),
                        "bad": Fraction(9, 36)}
    for position in ("controlled", "risky", "desperate"):
        assert ww.odds("action_roll", rating=2, position=position) == expected
    # Zero dice: no critical possible.
    assert ww.odds("action_roll", rating=0) == {"critical": Fraction(0), "full": Fraction(1, 6) ** 2,
                                                "partial": Fraction(1, 2) ** 2 - Fraction(1, 6) ** 2,
                                                "bad": 1 - Fraction(1, 2) ** 2}
    for position, texts in ACTION_TEXTS.items():
        crit = roll(ww, "action_roll", (6, 6), rating=2, position=position)
        assert (crit.outcome.id, crit.outcome.text) == ("critical", "You do it with **increased effect**.")
        assert crit.outcome.column == position.upper()
        assert roll(ww, "action_roll", (6, 2), rating=2, position=position).outcome.text == "You do it."
        assert roll(ww, "action_roll", (4, 5), rating=2, position=position).outcome.text == texts["partial"]
        assert roll(ww, "action_roll", (1, 3), rating=2, position=position).outcome.text == texts["bad"]
    # The consequence menus are data too, one block per position: the rolled column's data only.
    controlled = roll(ww, "action_roll", (4, 5), rating=2, position="controlled").values
    assert (controlled["harm"], controlled["complication"], controlled["worse_position"]) == (1, "minor", "risky")
    assert controlled["withdraw"] is True
    risky = roll(ww, "action_roll", (4, 5), rating=2, position="risky").values
    assert (risky["harm"], risky["complication"], risky["worse_position"]) == (2, "standard", "desperate")
    assert "withdraw" not in risky
    desperate = roll(ww, "action_roll", (4, 5), rating=2, position="desperate").values
    assert (desperate["harm"], desperate["complication"]) == (3, "serious") and "worse_position" not in desperate


def test_ww_11_position(ww: Module) -> None:
    # "By default, an action roll is risky." (line 304)
    assert {spec[0]: spec[5] for spec in ww.INPUTS["action_roll"]}["position"] == "risky"
    assert resolve(ww, "positions").outcome.id == "risky"
    assert resolve(ww, "positions", position="desperate").outcome.text == \
        "*You overreach your capabilities. You're in serious trouble.*"
    # "from controlled, to risky, to desperate" (line 499); desperate stays desperate.
    worse = {p: resolve(ww, "worse_position", position=p).outcome.id for p in ("controlled", "risky", "desperate")}
    assert worse == {"controlled": "risky", "risky": "desperate", "desperate": "desperate"}


def test_ww_12_effect_levels_and_ticks(ww: Module, published: m.Ruleset) -> None:
    # Lines 410-414: GREAT 3, STANDARD 2, LIMITED 1.
    ticks = lookup_rows(ww, "effect_levels", "effect", ("great", "standard", "limited"), "ticks")
    assert ticks == {"great": 3, "standard": 2, "limited": 1}
    item = published.item("effect_levels")
    assert item is not None and [e.key.name for e in item.entries] == ["great", "standard", "limited"]  # type: ignore[union-attr]
    # Zero and extreme effect (line 434) have no ticks in the document (D-WW-10): the erratum's values.
    assert lookup_rows(ww, "effect_levels", "effect", ("zero", "extreme"), "ticks") == {"zero": 0, "extreme": 4}


def test_ww_13_effect_factors_thorn_and_bodyguard(ww: Module, loaded: Loaded) -> None:
    assert [e.id for e in entries(loaded, "effect_factors")] == ["potency", "quality", "scale"]
    # Thorn (line 428): Tier I with fine lock picks is effectively Tier II; the gang is Tier III.
    assert resolve(ww, "effective_quality", tier=1, fine=True).total == 2
    assert resolve(ww, "effective_quality", tier=1).total == 1
    outclassed = resolve(ww, "quality_factor", tier=1, fine=True, opposition=3)
    assert (outclassed.total, outclassed.outcome.id) == (-1, "disadvantage")
    # ... "so her effect will be limited": standard, one step down for quality.
    assert resolve(ww, "effect_level", gut="standard", quality="disadvantage").outcome.id == "limited"
    assert resolve(ww, "effect_level", gut="standard", quality="advantage", scale="advantage").outcome.id == "extreme"
    # "+1 effect" comes after the assessment (line 436): zero effect + Bodyguard = limited.
    assert resolve(ww, "effect_level", gut="limited", potency="disadvantage", scale="disadvantage",
                   bonus=1).outcome.id == "limited"
    # Push yourself: +1 effect (line 438); reduced effect after all other factors (line 481).
    assert resolve(ww, "effect_level", gut="standard", bonus=1).outcome.id == "great"
    assert resolve(ww, "effect_level", gut="standard", bonus=1, reduced_effect=True).outcome.id == "standard"
    assert resolve(ww, "effect_level", gut="limited", reduced_effect=True).outcome.id == "zero"


def test_ww_14_position_effect_combinations_and_trading(ww: Module, loaded: Loaded) -> None:
    # Line 444: a risky roll with standard effect traded for a desperate roll with great effect.
    assert resolve(ww, "traded_effect", effect="standard", trade="for_effect").outcome.id == "great"
    assert resolve(ww, "traded_position", position="risky", trade="for_effect").outcome.id == "desperate"
    assert resolve(ww, "traded_effect", effect="standard", trade="for_position").outcome.id == "limited"
    assert resolve(ww, "traded_position", position="risky", trade="for_position").outcome.id == "controlled"
    assert resolve(ww, "traded_position", position="risky").outcome.id == "risky"
    combos = details(loaded, "position_and_effect")
    assert (combos["combinations"], combos["default"]) == (9, "Risky / Standard")
    examples = entries(loaded, "position_and_effect")
    assert len(examples) == 4 and "(Desperate / Limited)" in (examples[0].text or "")


def test_ww_15_double_duty_rolls(loaded: Loaded) -> None:
    # Line 404: 6 the PC wins; 4/5 both have their effect; 1-3 the NPC wins.
    duty = entries(loaded, "double_duty")
    assert [e.id for e in duty] == ["6", "4/5", "1-3"]
    assert [(entry_values(e)["pc_effect"], entry_values(e)["npc_effect"]) for e in duty] == [
        (True, False), (True, True), (False, True)]
    assert duty[1].text == "On a **4/5**, it's a mix—both the PC and the NPC have their effect."


# ---------------------------------------------------------------- Consequences and Harm


def test_ww_16_consequence_types_and_complication_ticks(ww: Module, loaded: Loaded) -> None:
    assert [e.label for e in entries(loaded, "consequence_types")] == [
        "Reduced Effect", "Complication", "Lost Opportunity", "Worse Position", "Harm"]
    assert details(loaded, "consequence_types")["count"] == 5
    # Lines 487, 489: one tick minor, two standard, three serious; +1 heat, +2 heat.
    kinds = ("minor", "standard", "serious")
    assert lookup_rows(ww, "complication_ticks", "complication", kinds, "ticks") == \
        {"minor": 1, "standard": 2, "serious": 3}
    assert resolve(ww, "complication_ticks", complication="serious").values["heat"] == 2
    assert resolve(ww, "complication_ticks", complication="standard").values["heat"] == 1
    # Danger clocks tick on the same scale (line 243).
    assert details(loaded, "danger_clock")["ticks"] == "complication_ticks"
    clock = ww.DangerClock(size=4)
    assert clock.tick(resolve(ww, "complication_ticks", complication="serious").values["ticks"]) == []
    assert clock.tick(1) and clock.full


def test_ww_17_harm_track(ww: Module, published: m.Ruleset) -> None:
    # The harm tracker (lines 513-517): boxes 2, 2, 1 and level 4 fatal; penalties per row.
    harm = published.item("harm")
    assert harm is not None
    levels = harm.attr("levels")
    assert levels is not None and isinstance(levels.value, m.Block)
    rows = [(e.id, e.cells[0], plain(e.attr("boxes").value) if e.attr("boxes") else None,  # type: ignore[union-attr]
             plain(e.attr("penalty").value) if e.attr("penalty") else None)  # type: ignore[union-attr]
            for e in levels.value.entries]
    assert rows == [("lesser", "Lesser", 2, "Reduced Effect"), ("moderate", "Moderate", 2, "-1D"),
                    ("severe", "Severe", 1, "Need Help"), ("fatal", "Fatal", None, None)]
    assert plain(harm.attr("overflow").value) == "up"  # type: ignore[union-attr]
    track = ww.Harm()
    assert track.size == 5
    assert track.mark(4)[-1] == "harm recorded at level 2 (Moderate)"  # two in the bottom row, then up
    assert track.add(3, "Broken Leg") == ["Broken Leg recorded at level 3 (Severe)"]
    happened = track.add(3, "Impaled")  # the top row is full: past it, the catastrophic consequence (D-WW-2)
    assert happened == ["Harm is full: Impaled goes past the top row: If you run out of spaces on the top row and "
                        "need to mark harm there, your character suffers a **catastrophic, permanent consequence** "
                        "(loss of a limb, sudden death, etc., depending on the circumstances)."]
    assert track.add(4, "Stabbed in the Heart") == ["Stabbed in the Heart at level 4: Fatal"]  # harm given as fatal
    # Level 2 harm: -1D on the action roll.
    assert pool_size(ww, "action_roll", rating=3, moderate_harm=True) == 2


def test_ww_18_harm_examples(loaded: Loaded) -> None:
    examples = entries(loaded, "harm_examples")
    assert [entry_values(e)["level"] for e in examples] == [4, 3, 2, 1]
    counts = [len((e.text or "").split(": ", 1)[1].split(", ")) for e in examples]
    assert counts == [3, 5, 5, 5]
    assert examples[3].text == "**Lesser (1)**: *Battered, Drained, Distracted, Scared, Confused.*"


# ---------------------------------------------------------------- Resistance and Armor


def test_ww_19_resistance_roll_stress(ww: Module) -> None:
    # Line 207: Cross rolls Prowess and gets a 2: "Daniel marks off 4 stress".
    assert roll(ww, "resistance_roll", (2, 1), attribute=2).values["stress"] == 4
    # Line 545: a 4 costs 2 stress, a 6 zero; a critical also clears 1 stress.
    assert roll(ww, "resistance_roll", (4, 1), attribute=2).values["stress"] == 2
    assert roll(ww, "resistance_roll", (6, 3), attribute=2).values["stress"] == 0
    crit = roll(ww, "resistance_roll", (6, 6), attribute=2)
    assert (crit.outcome.id, crit.values["stress"]) == ("critical", -1)
    # Line 547: Silas rolls 3d Prowess, gets a 5, takes 1 stress; level 3 harm becomes level 2.
    assert roll(ww, "resistance_roll", (5, 2, 1), attribute=3).values["stress"] == 1
    assert resolve(ww, "resisted_harm", harm=3).outcome.id == "moderate"
    assert resolve(ww, "resisted_harm", harm=4).outcome.id == "severe"  # fatal -> severe (line 549)
    assert resolve(ww, "resisted_harm", harm=3, ruling="avoid").outcome.id == "no_harm"
    # Zero attribute: two dice, the lower one counts (a 2 and a 5 cost 4 stress), never a critical.
    assert roll(ww, "resistance_roll", (2, 5), attribute=0).values["stress"] == 4
    assert roll(ww, "resistance_roll", (6, 6), attribute=0).values["stress"] == 0
    # Odds: two dice, a critical is 1/36; otherwise every result is resisted.
    assert ww.odds("resistance_roll", attribute=2) == {"critical": Fraction(1, 36), "resisted": Fraction(35, 36)}
    stress_by_die = {top: roll(ww, "resistance_roll", (top,), attribute=1).values["stress"] for top in range(1, 7)}
    assert stress_by_die == {top: 6 - top for top in range(1, 7)}


def test_ww_20_resistance_attribute(ww: Module) -> None:
    chosen = lookup_rows(ww, "resistance_attribute", "consequence", ("deception", "physical", "mental"), "attribute")
    assert chosen == {"deception": "Insight", "physical": "Prowess", "mental": "Resolve"}
    assert resolve(ww, "resistance_attribute", consequence="physical").outcome.text == \
        "**Prowess**: Consequences from physical strain or injury."


def test_ww_21_armor(ww: Module, loaded: Loaded) -> None:
    # Line 583: level 2 "Cut to the Ribs" becomes level 1 "Bruised"; heavy armor reduces it again, to zero.
    assert resolve(ww, "armored_harm", harm=2).outcome.id == "lesser"
    assert resolve(ww, "armored_harm", harm=2, boxes="heavy").outcome.id == "no_harm"
    assert resolve(ww, "armored_harm", harm=2, boxes="heavy").total == 0
    armor, heavy = ww.Armor(), ww.HeavyArmor()
    assert (armor.size, heavy.size) == (1, 1)
    assert armor.mark(1) and armor.full
    assert "restored when you choose your **load**" in str(details(loaded, "armor")["restored"])


def test_ww_22_death(loaded: Loaded) -> None:
    ways = entries(loaded, "death")
    assert [entry_values(e)["harm"] for e in ways] == [4, 3]
    assert (ways[0].text or "").startswith("If they suffer level 4 fatal harm and they don't resist it, they die.")
    assert len(entries(loaded, "death_options")) == 1


# ---------------------------------------------------------------- Stress


def test_ww_23_stress_and_pushing_yourself(ww: Module, loaded: Loaded) -> None:
    # Line 213: each push bonus costs 2 stress: +1d, +1 effect level, act while incapacitated.
    pushes = entries(loaded, "push_yourself")
    assert [entry_values(e)["stress"] for e in pushes] == [2, 2, 2]
    assert entry_values(pushes[0])["dice"] == 1 and entry_values(pushes[1])["effect_levels"] == 1
    # Assist costs 1 stress (line 316); healing yourself 2, toughing it out 1 (line 850).
    assert details(loaded, "bonus_dice")["assistance_stress"] == 1
    assert details(loaded, "bonus_dice")["push_stress"] == 2
    assert lookup_rows(ww, "recovery_treatment", "treatment", ("treated", "self_treated", "tough_it_out"),
                       "stress") == {"treated": 0, "self_treated": 2, "tough_it_out": 1}
    # The stress track has no length in the document (D-WW-5): it must be given.
    with pytest.raises(TypeError):
        ww.Stress()
    assert ww.Stress(size=9).size == 9


def test_ww_24_devils_bargains(loaded: Loaded, ww: Module) -> None:
    bargains = entries(loaded, "devils_bargains")
    assert len(bargains) == 7
    assert bargains[0].text == "Collateral damage, unintended harm."
    assert bargains[-1].text == "Suffer harm."
    assert "regardless of the outcome of the roll" in str(details(loaded, "devils_bargains")["regardless"])
    assert pool_size(ww, "action_roll", rating=1, push_or_bargain="bargain") == 2


# ---------------------------------------------------------------- Progress clocks


def test_ww_25_clock_sizes(ww: Module) -> None:
    # Line 227: complex 4, more complicated 6, daunting 8; a basic long-term project 8 (line 265).
    sizes = lookup_rows(ww, "clock_size", "obstacle", ("complex", "complicated", "daunting"), "segments")
    assert sizes == {"complex": 4, "complicated": 6, "daunting": 8}
    assert ww.LongTermProjectClock().size == 8
    clock = ww.ProgressClock(size=sizes["complicated"])
    assert clock.tick(5) == [] and clock.tick(1) and clock.full


def test_ww_26_clock_types(ww: Module) -> None:
    for name in ("danger_clock", "racing_clock", "linked_clock", "mission_clock", "tug_of_war_clock",
                 "faction_clock"):
        assert name in ww.TRACKS
    # Racing clocks and the tie rule (line 247).
    tie = resolve(ww, "racing_result", first="both")
    assert tie.outcome.text == ("If both complete at the same time, the PCs escape to their lair, "
                                "but the hunting officers are outside!")
    assert (tie.values["escape"], tie.values["pursued"]) == (True, True)
    assert resolve(ww, "racing_result", first="opposition").values["escape"] is False
    # A tug-of-war clock is filled and emptied.
    tug = ww.TugOfWarClock(size=6)
    tug.tick(4)
    tug.tick(-3)
    assert tug.marked == 1
    assert "revolution begins" in ww.TugOfWarClock(size=6).on_full


# ---------------------------------------------------------------- Fortune roll, gathering information


def test_ww_27_fortune_roll(ww: Module) -> None:
    names = {"full": "good", "partial": "mixed"}
    # The 2d fortune roll for "human feelings" (line 627), by hand.
    assert nonzero(ww.odds("fortune_roll", trait=2)) == hand(2, names)
    # +1d per major advantage, -1d per major disadvantage (lines 635-637).
    assert ww.odds("fortune_roll", trait=1, advantages=1) == ww.odds("fortune_roll", trait=2)
    assert ww.odds("fortune_roll", trait=3, disadvantages=1) == ww.odds("fortune_roll", trait=2)
    assert nonzero(ww.odds("fortune_roll", trait=1, disadvantages=1)) == hand(0, names)
    assert nonzero(ww.odds("fortune_roll", trait=6)) == hand(6, names)
    texts = {faces: roll(ww, "fortune_roll", faces, trait=2).outcome.text
             for faces in ((6, 6), (6, 1), (5, 4), (3, 2))}
    assert texts == {(6, 6): "Exceptional result / Great, extreme effect.",
                     (6, 1): "Good result / Standard,  full effect.",
                     (5, 4): "Mixed result / Limited, partial  effect.",
                     (3, 2): "Bad result / Poor, little effect."}


def test_ww_28_gather_information(ww: Module) -> None:
    details_by_effect = lookup_rows(ww, "information_detail", "effect", ("great", "standard", "limited"))
    assert details_by_effect["standard"] == ("**Standard**: You get good details. Clarifying and follow-up "
                                             "questions are possible.")
    # One die: a 6 (standard) 1/6, a 4/5 (limited) 2/6, 1-3 half; no critical on one die.
    assert ww.odds("gather_information", rating=1) == {"great": Fraction(0), "standard": Fraction(1, 6),
                                                       "limited": Fraction(2, 6), "poor": Fraction(3, 6)}
    assert roll(ww, "gather_information", (6, 6), rating=2).outcome.text == details_by_effect["great"]
    assert roll(ww, "gather_information", (4, 2), rating=2).outcome.text == details_by_effect["limited"]


def test_ww_29_investigation(ww: Module) -> None:
    clock = ww.Investigation()
    assert clock.size == 8
    happened = clock.tick(8)
    assert len(happened) == 1 and "as if you had great effect" in happened[0]


# ---------------------------------------------------------------- Advancement


def test_ww_30_pc_advancement_nadja(ww: Module, loaded: Loaded) -> None:
    # Line 717: two desperate Hunt rolls mark 2 xp on Insight; 2 (playbook) + 2 (heritage, beliefs capped)
    # + 0 (vice) = 4 at the end of the session; that fills the Insight track.
    assert resolve(ww, "action_attribute", action="hunt").outcome.text == "Insight"
    desperate = roll(ww, "action_roll", (2,), rating=1, position="desperate")
    assert desperate.values["xp"] == 1
    assert roll(ww, "action_roll", (2,), rating=1, position="risky").values["xp"] == 0
    end = resolve(ww, "end_of_session_xp", playbook="often", beliefs="often", struggle="never")
    assert end.total == 4
    track = ww.AttributeXp()  # 6, inferred from this example (D-WW-6)
    assert track.mark(2 * desperate.values["xp"]) == []
    happened = track.mark(end.total)
    assert len(happened) == 1 and "**additional action dot**" in happened[0]
    assert track.marked == 0  # "clear all the marks and take an advance"
    assert lookup_rows(ww, "xp_award", "happened", ("never", "once", "often"), "xp") == \
        {"never": 0, "once": 1, "often": 2}
    assert len(entries(loaded, "xp_triggers")) == 3
    with pytest.raises(TypeError):
        ww.PlaybookXp()


def test_ww_31_party_advancement(ww: Module, loaded: Loaded) -> None:
    assert len(entries(loaded, "party_xp_triggers")) == 4
    assert resolve(ww, "party_session_xp", party="once", station="once", reputation="once", nature="once").total == 4
    assert resolve(ww, "party_session_xp", party="often", station="often", reputation="often",
                   nature="often").total == 8
    assert resolve(ww, "party_session_xp", station="often").total == 2
    track = ww.PartyXp(size=8)
    assert "**two party upgrade boxes**" in track.mark(8)[0]
    assert track.marked == 0


# ---------------------------------------------------------------- Character creation, playbook


def test_ww_32_load(ww: Module, published: m.Ruleset) -> None:
    # Lines 750-753: 1-3 light, 4/5 normal, 6 heavy, 7-9 encumbered.
    levels = lookup_rows(ww, "load_levels", "load", range(0, 13))
    ids = {load: resolve(ww, "load_levels", load=load).outcome.id for load in range(0, 13)}
    assert [ids[n] for n in range(1, 10)] == ["light"] * 3 + ["normal"] * 2 + ["heavy"] + ["encumbered"] * 3
    assert levels[6] == "**Heavy.** *You're slower. You look like an operative on a mission.*"
    # As published 0 and 10+ are in no band (D-WW-11); the erratum reads them as light and encumbered.
    item = published.item("load_levels")
    assert item is not None
    assert [m.condition_text(e.key) for e in item.entries] == ["1-3", "4/5", "6", "7-9"]  # type: ignore[arg-type]
    assert (ids[0], ids[10], ids[12]) == ("light", "encumbered", "encumbered")


# ---------------------------------------------------------------- Teamwork


def test_ww_33_assist(ww: Module, loaded: Loaded) -> None:
    # Line 788: take 1 stress, give +1d; only one character may assist.
    assist = details(loaded, "assist")
    assert (assist["stress"], assist["dice"], assist["assistants"]) == (1, 1, 1)
    assert pool_size(ww, "action_roll", rating=1, assistance=True) == 2
    assert {spec[0]: spec[1] for spec in ww.INPUTS["action_roll"]}["assistance"] == "flag"


def test_ww_34_group_action(ww: Module) -> None:
    # Line 796: the team counts the single best result; the leader takes 1 stress per PC with 1-3.
    result = resolve(ww, "group_action", first="full", second="bad", third="bad")
    assert (result.outcome.id, result.values["leader_stress"]) == ("full", 2)
    result = resolve(ww, "group_action", first="partial", second="critical", third="partial", fourth="bad")
    assert (result.outcome.id, result.values["leader_stress"]) == ("critical", 1)
    result = resolve(ww, "group_action", first="bad", second="bad", third="bad", fourth="bad")
    assert (result.outcome.id, result.values["leader_stress"]) == ("bad", 4)


def test_ww_35_protect_and_set_up(ww: Module, loaded: Loaded) -> None:
    # Set up: +1 effect level or improved position (line 812); zero to limited (lines 818, 820).
    assert resolve(ww, "effect_level", gut="zero", bonus=1).outcome.id == "limited"
    assert resolve(ww, "improved_position", position="risky").outcome.id == "controlled"
    assert resolve(ww, "improved_position", position="desperate").outcome.id == "risky"
    assert resolve(ww, "improved_position", position="controlled").outcome.id == "controlled"
    assert details(loaded, "set_up")["effect_levels"] == 1
    assert "**You suffer it instead of them. You may roll to resist it as normal.**" in \
        (loaded.checked.get("protect").text or "")  # type: ignore[union-attr]
    assert [e.id for e in entries(loaded, "teamwork_maneuvers")] == ["assist", "group_action", "protect", "set_up"]


# ---------------------------------------------------------------- Downtime


def test_ww_36_long_term_project(ww: Module) -> None:
    # Line 830: 1-3 one segment, 4/5 two, 6 three, critical five.
    segments = {faces: roll(ww, "long_term_project", faces, rating=2).values["segments"]
                for faces in ((3, 1), (5, 2), (6, 2), (6, 6))}
    assert segments == {(3, 1): 1, (5, 2): 2, (6, 2): 3, (6, 6): 5}
    assert nonzero(ww.odds("long_term_project", rating=2)) == hand(2)
    assert pool_size(ww, "long_term_project", rating=2, push=True) == 3
    clock = ww.LongTermProjectClock()
    assert clock.tick(5) == [] and clock.tick(3)


def test_ww_37_recovery_cross(ww: Module, loaded: Loaded) -> None:
    # Line 848: quality 2, the player rolls 2d and gets a 6: three segments.
    six = roll(ww, "recovery", (6, 4), healer_rating=2)
    assert (six.outcome.id, six.values["segments"]) == ("full", 3)
    # 1 coin raises the result to a critical: five segments (D-WW-4).
    assert resolve(ww, "improved_result", result="full", coin=1).outcome.id == "critical"
    crit = roll(ww, "recovery", (6, 6), healer_rating=2)
    assert (crit.outcome.id, crit.values["segments"]) == ("critical", 5)
    # "Four segments fill the clock ... then he clears the clock and marks one more segment." (D-WW-3: size 4)
    clock = ww.HealingClock()
    assert clock.size == 4
    happened = clock.tick(crit.values["segments"])
    assert len(happened) == 1 and "reduce each instance of harm on your sheet by one level" in happened[0]
    assert clock.marked == 1
    healing = loaded.checked.get("healing_clock")
    assert isinstance(healing, m.Track) and healing.roll_over
    # Toughing it out rolls 0d: two dice, the lowest.
    assert roll(ww, "recovery", (6, 2), treatment="tough_it_out").values["segments"] == 1
    assert pool_size(ww, "recovery", treatment="tough_it_out", healer_rating=4) == 2
    assert pool_size(ww, "recovery", treatment="self_treated", healer_rating=3) == 3


def test_ww_38_train(ww: Module) -> None:
    # Line 858: mark 1 xp, +1 xp (2 total) with the party Training upgrade.
    assert resolve(ww, "train").total == 1
    assert resolve(ww, "train", training_upgrade=True).total == 2
    assert resolve(ww, "train").values["limit"] == "*You can train a given xp track only once per downtime.*"


# ---------------------------------------------------------------- Magnitude


def test_ww_39_area_and_scale(ww: Module) -> None:
    scale = lookup_rows(ww, "magnitude_scale", "magnitude", range(7))
    assert scale == {0: "1 or 2 people", 1: "A small gang (3-6)", 2: "A medium gang (12)", 3: "A large gang (20)",
                     4: "A huge gang (40)", 5: "A massive gang (80)", 6: "A colossal gang (160)"}
    area = lookup_rows(ww, "magnitude_area", "magnitude", range(7))
    # As published: six cells, column 2 merged, column 6 empty (D-WW-9): no row for 6.
    assert area == {0: "A closet", 1: "A small room", 2: "A large room& Several rooms", 3: "A small building",
                    4: "A large building", 5: "A city block", 6: None}


def test_ww_40_duration_and_range(ww: Module) -> None:
    duration = lookup_rows(ww, "magnitude_duration", "magnitude", range(7))
    assert list(duration.values()) == ["A few moments", "A few minutes", "An hour", "A few hours", "A day",
                                       "Several days", "A week"]
    distance = lookup_rows(ww, "magnitude_range", "magnitude", range(7))
    assert list(distance.values()) == ["Within reach", "A dozen paces", "A stone's throw", "Down the road",
                                       "Several blocks away", "Across the district", "Across the city"]


def test_ww_41_tier_quality_and_force(ww: Module) -> None:
    quality = lookup_rows(ww, "magnitude_quality", "magnitude", range(7))
    assert list(quality.values()) == ["Poor", "Adequate", "Good", "Excellent", "Superior", "Impeccable",
                                      "Legendary"]
    force = lookup_rows(ww, "magnitude_force", "magnitude", range(7))
    assert list(force.values()) == ["Weak", "Moderate", "Strong", "Serious", "Powerful", "Overwhelming",
                                    "Devastating"]


def test_ww_42_quality_examples(ww: Module, loaded: Loaded) -> None:
    assert [b.key_text for b in bands(loaded, "quality_examples")] == ["6", "5", "4", "3", "2", "1", "0"]
    examples = lookup_rows(ww, "quality_examples", "quality", (6, 2, 0))
    assert examples == {6: "*A mansion, large ship, rare essences or arcane artifacts, powerful demon*",
                        2: "*A pistol, respectable clothing, private rented room, typical ghost*",
                        0: "*A rusty knife, worn & tattered clothing, rickety shack on the street*"}


def test_ww_43_force_examples(ww: Module, loaded: Loaded) -> None:
    assert [b.key_text for b in bands(loaded, "force_examples")] == ["6", "5", "4", "3", "2", "1", "0"]
    examples = lookup_rows(ww, "force_examples", "force", (6, 1))
    assert examples == {6: "*Hurricane wind, molten lava, tidal wave, electrical maelstrom*",
                        1: "*A solid punch, steady wind, torch flame, electrical shock*"}


def test_ww_44_magnitude_and_ritual_stress(ww: Module) -> None:
    # Line 875: force 6 and range 5: "the Whisper will suffer 11 stress!"; a few hours: "reduced to 8".
    assert resolve(ww, "ritual_stress", magnitude=6, added=5, casting_time="moments").total == 11
    assert resolve(ww, "ritual_stress", magnitude=6, added=5, casting_time="hours").total == 8
    # "A few hours" is magnitude 3 on the duration row.
    assert resolve(ww, "magnitude_duration", magnitude=3).outcome.text == "A few hours"
    assert resolve(ww, "ritual_stress", magnitude=1, casting_time="week").total == 0
    # Line 869: a fortune roll of 6d for the demon: 1-3 little, 4-5 reduced, 6 full, critical.
    names = {"partial": "reduced", "bad": "little"}
    assert nonzero(ww.odds("magnitude_fortune", magnitude=6)) == hand(6, names)
    assert roll(ww, "magnitude_fortune", (1, 2, 3, 4, 5, 6), magnitude=6).outcome.id == "full"
    assert roll(ww, "magnitude_fortune", (1, 2, 3, 4, 5, 5), magnitude=6).outcome.id == "reduced"


# ---------------------------------------------------------------- Rituals, crafting


def test_ww_45_rituals(ww: Module, loaded: Loaded) -> None:
    assert ww.RitualLearning().size == 8  # "an 8-segment progress clock to learn" (line 947)
    questions = entries(loaded, "ritual_questions")
    assert [entry_values(q)["asks"] for q in questions] == ["GM", "Player", "GM"]
    assert entry_values(entries(loaded, "example_ritual_answers")[1])["stress"] == 3
    # Coin 1-for-1 raises the result level (line 973); a critical is the top.
    assert resolve(ww, "improved_result", result="bad", coin=2).outcome.id == "full"
    assert resolve(ww, "improved_result", result="partial").outcome.id == "partial"
    assert resolve(ww, "improved_result", result="full", coin=3).outcome.id == "critical"


def test_ww_46_inventing(ww: Module, loaded: Loaded) -> None:
    assert ww.Invention().size == 8  # "an 8-segment progress clock to invent and learn" (line 983)
    questions = entries(loaded, "creation_questions")
    assert len(questions) == 4
    assert (questions[1].text or "").startswith("Player asks: **\"What's the minimum quality level of this item?\"**")
    assert entry_values(questions[3])["see"] == "drawbacks"


def test_ww_47_crafting_roll(ww: Module) -> None:
    # Lines 1014-1017 at Tier 2: critical Tier +2, 6 Tier +1, 4/5 Tier, 1-3 Tier -1.
    quality = {faces: roll(ww, "crafting_roll", faces, tinker=2, tier=2).values["quality"]
               for faces in ((6, 6), (6, 1), (4, 5), (2, 3))}
    assert quality == {(6, 6): 4, (6, 1): 3, (4, 5): 2, (2, 3): 1}
    # +1 quality per coin, beyond Tier +2 (line 1023); Workshop +1, counted once (D-WW-12).
    assert roll(ww, "crafting_roll", (6, 6), tinker=2, tier=2, coin=2).values["quality"] == 6
    assert roll(ww, "crafting_roll", (4, 1), tinker=2, tier=2, workshop=True).values["quality"] == 3
    # The GM's minimum quality.
    assert roll(ww, "crafting_roll", (6, 1), tinker=2, tier=2, minimum=3).values["crafted"] is True
    assert roll(ww, "crafting_roll", (5, 1), tinker=2, tier=2, minimum=3).values["crafted"] is False
    assert nonzero(ww.odds("crafting_roll", tinker=3)) == hand(3)


def test_ww_48_modification_requirements(ww: Module) -> None:
    required = lookup_rows(ww, "modification_requirement", "modification", ("simple", "significant", "special"),
                           "quality", tier=2)
    assert required == {"simple": 3, "significant": 4, "special": 5}
    assert resolve(ww, "modification_requirement", modification="special").outcome.text == \
        "An arcane, spark-craft, or alchemical modification requires Tier +3 quality."


def test_ww_49_drawbacks(loaded: Loaded) -> None:
    drawbacks = entries(loaded, "drawbacks")
    assert [e.id for e in drawbacks] == ["complex", "conspicuous", "consumable", "rare", "unreliable", "volatile"]
    assert entry_values(drawbacks[1])["heat"] == 1
    assert entry_values(drawbacks[4])["see"] == "fortune_roll"


# ---------------------------------------------------------------- Character playbook


def test_ww_50_playbook_template(loaded: Loaded) -> None:
    assert len(entries(loaded, "xp_trigger_methods")) == 14
    friends = entries(loaded, "friends_rivals")
    assert len(friends) == 25
    assert (friends[0].text, friends[-1].text) == ("A spy", "a supernatural entity")
    assert details(loaded, "friends_rivals")["per_playbook"] == 5
    assert details(loaded, "playbook_template")["placeholder"] is True


def test_harm_track_overflows_upward_and_heals_down(ww) -> None:  # type: ignore[no-untyped-def]
    # Lines 507-519: a full row sends harm up a row; past the top row is catastrophic (D-WW-2's reading).
    harm = ww.Harm()
    assert harm.size == 5  # 2 + 2 + 1 boxes, from the levels
    harm.add(1, "Drained")
    harm.add(1, "Battered")
    assert harm.add(1, "Exhausted") == ["Exhausted recorded at level 2 (Moderate)"]
    assert harm.add(3, "Shattered Right Leg") == ["Shattered Right Leg recorded at level 3 (Severe)"]
    assert harm.add(3, "Impaled")[0].startswith("Harm is full: Impaled goes past the top row: If you run out")
    assert harm.penalties() == ["Reduced Effect", "-1D", "Need Help"]
    harm.heal()  # the healing clock filled: every harm drops a level, level-1 harm clears
    assert harm.rows == {1: ["Exhausted"], 2: ["Shattered Right Leg"], 3: []}
