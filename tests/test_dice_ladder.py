"""The untitled dice-ladder system (seeds/002_9a541ab1b0476299.txt), one test per inventory item LAD-01 .. LAD-23.

Expected numbers are the document's own (bands, rows, caps, thresholds) and exact odds counted here by
enumerating the dice with itertools, never by asking the generated module twice.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from rulecraft import model as m
from rulecraft.api import load
from rulecraft.backends.python import generate
from tests.conftest import ROOT, compile_module

LADDER = ("d4", "d6", "d8", "d10", "d12")
SIDES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12}
RULES = ROOT / "rulesets" / "dice_ladder.rules"
SEED = Path("/work/shared/seeds/002_9a541ab1b0476299.txt")  # outside the repository: the text test skips without it


@pytest.fixture(scope="module")
def loaded():  # type: ignore[no-untyped-def]
    return load(str(RULES))


@pytest.fixture(scope="module")
def game(loaded):  # type: ignore[no-untyped-def]  # the compiled module
    return compile_module(generate(loaded.checked), "generated_dice_ladder")


def definition(loaded, name):  # type: ignore[no-untyped-def]
    return next(d for d in loaded.checked.definitions if d.name == name)


def details(loaded, name):  # type: ignore[no-untyped-def]
    return {k: v.value if isinstance(v, m.Text) else m.expr_text(v) for k, v in definition(loaded, name).details}


class Script:
    """An rng whose dice show preset faces, in the order the resolver draws them."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high, (face, high)
        return face


# ---------------------------------------------------------------- hand counts


def kept(sides: int, mode: str) -> Counter[int]:
    """Ways each kept face comes up: one die, or two dice keeping the higher (adv) or lower (dis)."""
    if mode == "plain":
        return Counter(range(1, sides + 1))
    pick = max if mode == "adv" else min
    return Counter(pick(a, b) for a, b in itertools.product(range(1, sides + 1), repeat=2))


def probability(ways: Counter[int], test) -> Fraction:  # type: ignore[no-untyped-def]
    return Fraction(sum(n for face, n in ways.items() if test(face)), sum(ways.values()))


def hand_test_roll(die: str, dn: int, adv: bool, dis: bool, enhanced: int = 0, impaired: int = 0) -> dict:
    """The test as the document and errata D-LAD-3/-4/-5 read it, counted face by face."""
    rung = LADDER.index(die) + 1 + enhanced - impaired
    if rung < 1:
        return {"cannot_roll": Fraction(1), "pass": Fraction(0), "fail": Fraction(0)}
    sides = SIDES[LADDER[min(rung, 5) - 1]]
    has_adv = adv or rung > 5
    mode = "adv" if has_adv and not dis else "dis" if dis and not has_adv else "plain"
    ways = kept(sides, mode)
    passed = probability(ways, lambda face: face >= dn)
    return {"cannot_roll": Fraction(0), "pass": passed, "fail": 1 - passed}


def contest_by_hand(mine: str, theirs: str, my_mode: str = "plain", their_mode: str = "plain") -> dict:
    mine_ways, their_ways = kept(SIDES[mine], my_mode), kept(SIDES[theirs], their_mode)
    out = dict.fromkeys(("win", "lose", "tie"), Fraction(0))
    total = sum(mine_ways.values()) * sum(their_ways.values())
    for (a, n), (b, k) in itertools.product(mine_ways.items(), their_ways.items()):
        if a > b or (a == b and SIDES[mine] > SIDES[theirs]):  # a tie goes to the die higher up the ladder
            band = "win"
        elif a < b or (a == b and SIDES[mine] < SIDES[theirs]):
            band = "lose"
        else:
            band = "tie"
        out[band] += Fraction(n * k, total)
    return out


# ---------------------------------------------------------------- the ruleset as a whole


def test_lad_check_is_clean_and_every_defect_is_resolved(loaded) -> None:  # type: ignore[no-untyped-def]
    report = loaded.report
    assert [d for d in report.diagnostics if d.severity in ("error", "warning")] == []
    notes = {(d.code, d.item): d.notes[0].split(" (line")[0] for d in report.diagnostics if d.severity == "note"}
    assert notes == {
        ("RANGE-GAP", "contest"): "resolved by errata D-LAD-6",
        ("RANGE-GAP", "surprise"): "resolved by errata D-LAD-6",
        ("RANGE-GAP", "hireling_contest"): "resolved by errata D-LAD-6",
        ("RANGE-GAP", "leverage"): "resolved by errata D-LAD-6",
        ("RANGE-GAP", "morale_check"): "resolved by errata D-LAD-6",
        ("MISSING", "attributes"): "resolved by errata D-LAD-1",
        ("MISSING", "hp"): "resolved by errata D-LAD-1",
        ("MISSING", "strength"): "resolved by errata D-LAD-1",
        ("MISSING", "impaired_and_enhanced"): "resolved by errata D-LAD-4",
        ("MISSING", "advancement"): "resolved by errata D-LAD-7",
        ("MISSING", "leverage"): "resolved by errata D-LAD-9",
        ("MISSING", "luck_die"): "resolved by errata D-LAD-11",
    }
    assert [e.id for e in loaded.checked.errata] == [f"D-LAD-{n}" for n in range(1, 16)]  # 14: the title


def test_lad_every_item_is_cited(loaded) -> None:  # type: ignore[no-untyped-def]
    cited = {i for d in loaded.checked.definitions if d.citation for i in d.citation.ids}
    assert {f"LAD-{n:02d}" for n in range(1, 24)} <= cited
    assert all(d.citation and d.citation.ids for d in loaded.checked.definitions)


def test_lad_rule_texts_are_copied_from_the_document(loaded) -> None:  # type: ignore[no-untyped-def]
    if not SEED.is_file():
        pytest.skip("the source document is not here")
    source = SEED.read_text(encoding="utf-8")
    texts = []
    for d in loaded.checked.definitions:
        texts += (d.text or "").splitlines()
        if isinstance(d, m.Resolver):
            texts += [b.text for b in d.bands if b.text]
        elif isinstance(d, m.Document):
            texts += [e.text for e in d.entries if e.text]
    assert len(texts) > 100
    for text in texts:
        if text != "Equal dice: no one wins.":  # erratum D-LAD-6's band
            assert text in source, text


def test_lad_every_roll_rolls_with_default_inputs(game) -> None:  # type: ignore[no-untyped-def]
    for name, resolver in game.RESOLVERS.items():
        for seed in range(21):
            first = resolver(rng=random.Random(seed))
            again = resolver(rng=random.Random(seed))
            assert first == again, name
            if name not in ("skills_known", "spells_known", "hirelings_max", "item_slots", "slots_filled",
                            "hireling_share", "armor", "fatigue", "fatigue_rest", "week_of_rest",
                            "advancement_reached"):
                assert first.outcome is not None, (name, seed, first.trace)
        assert sum(game.odds(name).values()) == 1, name


# ---------------------------------------------------------------- one test per item


def test_lad_01_test_roll_over_dn_at_every_rung(game) -> None:  # type: ignore[no-untyped-def]
    # "Compare the result to the difficulty number (DN), which is usually 4." (line 6): d6 passes on 4, 5, 6.
    assert game.odds("test", die="d6") == {"cannot_roll": 0, "pass": Fraction(1, 2), "fail": Fraction(1, 2)}
    assert game.odds("test", die="d4")["pass"] == Fraction(1, 4)
    assert game.odds("test", die="d12")["pass"] == Fraction(9, 12)
    for die, dn in itertools.product(LADDER, range(1, 13)):
        for adv, dis in itertools.product((False, True), repeat=2):
            assert game.odds("test", die=die, dn=dn, advantage=adv, disadvantage=dis) == \
                hand_test_roll(die, dn, adv, dis), (die, dn, adv, dis)
    # "If you meet or exceed the difficulty number, the test passes" (line 7): 4 on DN 4 passes, 3 fails.
    assert game.test(die="d6", rng=Script(4)).outcome.id == "pass"
    assert game.test(die="d6", rng=Script(3)).outcome.id == "fail"
    assert game.test(die="d6", rng=Script(3)).values == {"passed": False, "trouble": True}
    assert game.test(die="d10", dn=7, rng=Script(7)).outcome.id == "pass"


def test_lad_02_tasks_and_help(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert definition(loaded, "tasks").text.startswith("A task is any action you attempt to do.")
    assert details(loaded, "tasks") == {"roll_needed": "no"}
    assert details(loaded, "help_rule") == {"requires": "a relevant skill", "grants": "advantage",
                                            "shared_trouble": "yes", "see": "test"}
    # Help grants advantage: a d6 test at DN 4 passes unless both dice show 1-3.
    assert game.odds("test", die="d6", advantage=True)["pass"] == 1 - Fraction(3, 6) ** 2


def test_lad_03_contest_tie_goes_to_the_higher_die(game) -> None:  # type: ignore[no-untyped-def]
    for mine, theirs in itertools.product(LADDER, repeat=2):
        assert game.odds("contest", mine=mine, theirs=theirs) == contest_by_hand(mine, theirs), (mine, theirs)
    # d8 against d6: 27 wins, 15 losses and 6 ties of 48, and the d8 takes every tie: 33 wins.
    assert game.odds("contest", mine="d8", theirs="d6") == {
        "win": Fraction(33, 48), "lose": Fraction(15, 48), "tie": 0}
    assert game.contest(mine="d8", theirs="d6", rng=Script(5, 5)).outcome.id == "win"
    assert game.contest(mine="d8", theirs="d6", rng=Script(5, 5)).values == {"won": True}
    assert game.contest(mine="d4", theirs="d12", rng=Script(2, 2)).outcome.id == "lose"
    assert game.contest(mine="d4", theirs="d12", rng=Script(2, 2)).values == {"won": False}
    assert game.contest(mine="d4", theirs="d12", rng=Script(4, 3)).outcome.id == "win"
    # Equal dice: the document names no winner (D-LAD-6); the erratum's tie band takes it.
    assert game.contest(mine="d6", theirs="d6", rng=Script(3, 3)).outcome.id == "tie"
    assert game.odds("contest", mine="d6", theirs="d6")["tie"] == Fraction(1, 6)
    # "You each roll as normal": advantage or disadvantage on one side.
    modes = {"adv": ("adv", "plain"), "dis": ("dis", "plain"), "their_adv": ("plain", "adv"),
             "their_dis": ("plain", "dis")}
    for edge, (mine_mode, their_mode) in modes.items():
        for mine, theirs in (("d6", "d6"), ("d4", "d12"), ("d12", "d8")):
            assert game.odds("contest", mine=mine, theirs=theirs, edge=edge) == \
                contest_by_hand(mine, theirs, mine_mode, their_mode), (edge, mine, theirs)


def test_lad_04_advantage_and_disadvantage(game) -> None:  # type: ignore[no-untyped-def]
    rows = {r: game.advantage_and_disadvantage(roll_with=r) for r in ("adv", "dis")}
    assert rows["adv"].outcome.text == "With advantage, roll an additional die and keep the higher result."
    assert rows["adv"].values == {"additional_dice": 1, "keep": "higher"}
    assert rows["dis"].values == {"additional_dice": 1, "keep": "lower"}
    for die in LADDER:
        s = SIDES[die]
        # at DN 4 a face of 4+ passes: (s - 3) of s faces
        plain = Fraction(s - 3, s)
        assert game.odds("test", die=die, advantage=True)["pass"] == 1 - (1 - plain) ** 2
        assert game.odds("test", die=die, disadvantage=True)["pass"] == plain ** 2
        # ADV and DIS together cancel (D-LAD-5)
        assert game.odds("test", die=die, advantage=True, disadvantage=True)["pass"] == plain
    assert game.test(die="d6", advantage=True, rng=Script(1, 4)).outcome.id == "pass"
    assert game.test(die="d6", disadvantage=True, rng=Script(6, 3)).outcome.id == "fail"
    assert game.test(die="d6", advantage=True, rng=Script(1, 4)).kept == (4,)


def test_lad_05_impaired_and_enhanced_move_one_step(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert game.impaired_and_enhanced(roll_is="imp").outcome.text == "Impaired rolls use lower dice."
    assert game.impaired_and_enhanced(roll_is="imp").values == {"direction": -1}
    assert game.impaired_and_enhanced(roll_is="enh").values == {"direction": 1}
    assert details(loaded, "impaired_and_enhanced")["step_size"] == "1"  # set by errata D-LAD-4
    # an enhanced d6 rolls a d8, an impaired d6 a d4; ENH and IMP cancel step for step
    assert game.odds("test", die="d6", enhanced=1)["pass"] == Fraction(5, 8)
    assert game.odds("test", die="d6", impaired=1)["pass"] == Fraction(1, 4)
    assert game.odds("test", die="d6", enhanced=2, impaired=2) == game.odds("test", die="d6")
    assert game.test(die="d6", enhanced=1, rng=Script(8)).dice == (8,)
    for die, enh, imp in itertools.product(LADDER, range(6), range(6)):
        for adv, dis in ((False, False), (True, False), (False, True)):
            assert game.odds("test", die=die, enhanced=enh, impaired=imp, advantage=adv, disadvantage=dis) == \
                hand_test_roll(die, 4, adv, dis, enh, imp), (die, enh, imp, adv, dis)


def test_lad_06_dice_ladder_steps_at_both_ends(game) -> None:  # type: ignore[no-untyped-def]
    # d4 -> d6 -> d8 -> d10 -> d12 (line 18)
    for die, steps in itertools.product(LADDER, range(-5, 6)):
        rung = LADDER.index(die) + 1 + steps
        result = game.dice_ladder(die=die, steps=steps)
        if rung < 1:
            assert result.outcome.id == "below_d4" and result.values == {"can_roll": False}
        elif rung > 5:
            assert result.outcome.id == "above_d12" and result.values == {"sides": 12, "advantage": True}
        else:
            assert result.values == {"sides": (4, 6, 8, 10, 12)[rung - 1]}
    assert game.dice_ladder(die="d4", steps=-1).outcome.text == \
        "If a die would be lowered below a d4, you cannot roll it."
    assert game.dice_ladder(die="d12", steps=1).outcome.text == "If it would be raised above a d12, gain advantage."
    # the test at the bottom: a d4 impaired once cannot be rolled
    assert game.odds("test", die="d4", impaired=1) == {"cannot_roll": 1, "pass": 0, "fail": 0}
    assert game.test(die="d4", impaired=1, rng=random.Random(1)).outcome.id == "cannot_roll"
    # the test at the top: a d12 enhanced once rolls 2d12 and keeps the higher (ADV)
    assert game.odds("test", die="d12", enhanced=1)["pass"] == 1 - Fraction(3, 12) ** 2
    assert game.test(die="d12", enhanced=3, rng=Script(2, 11)).kept == (11,)
    # raised above d12 with DIS: the gained ADV and the DIS cancel (D-LAD-5)
    assert game.odds("test", die="d12", enhanced=1, disadvantage=True)["pass"] == Fraction(9, 12)
    # every rung can fall off the bottom and go past the top within the inputs' range
    assert game.odds("test", die="d12", impaired=5)["cannot_roll"] == 1
    assert game.odds("test", die="d4", enhanced=5)["pass"] == 1 - Fraction(3, 12) ** 2
    # the ladder clamps: d10 enhanced 4 is a d12 with advantage, never a bigger die
    assert game.test(die="d10", enhanced=4, rng=Script(12, 1)).dice == (12, 1)


def test_lad_07_skills_enhance_one_step_each(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert details(loaded, "skills") == {"steps_per_skill": "1", "background_counts_as_skill": "yes", "see": "test"}
    # two applicable skills: a d4 test is rolled on a d8
    assert game.odds("test", die="d4", enhanced=2)["pass"] == Fraction(5, 8)
    # "a number of skills equal to your INT" (line 23): the die's size (D-LAD-2)
    assert [game.odds("skills_known", int_die=d) for d in LADDER] == [{str(s): 1} for s in (4, 6, 8, 10, 12)]


def test_lad_08_spells(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert game.odds("spell", concentration=True) == {"cast": 1, "pass": 0, "fail": 0}
    for die in LADDER:
        assert game.odds("spell", wil=die)["pass"] == Fraction(SIDES[die] - 3, SIDES[die])
    failed = game.spell(wil="d8", rng=Script(3))
    assert failed.outcome.text == "If you fail the test, choose one:"
    assert failed.values == {"choose": 1, "options": "spell_failure"}
    assert game.spell(wil="d8", rng=Script(4)).values == {"cast": True}
    assert game.DOCUMENTS["spell_failure"].texts() == [
        "The spell has an unintended side effect", "The spell is lessened", "Your WIL is impaired until dawn",
        "You cannot cast the spell again until dawn"]
    assert details(loaded, "spell_failure")["count"] == "4"
    assert definition(loaded, "unwilling_target").text == \
        "If a spell is aimed at an unwilling target, they may turn your test into a contest."
    assert game.odds("spells_known", wil="d10") == {"10": 1}


def test_lad_09_item_slots(game) -> None:  # type: ignore[no-untyped-def]
    assert [game.item_slots(str_die=d).total for d in LADDER] == [8, 12, 16, 20, 24]
    # a bulky item fills two slots; every hundred coins one (partial hundreds round down, D-LAD-13)
    assert game.slots_filled(items=3, bulky=2, coins=250).total == 3 + 4 + 2
    assert game.slots_filled(coins=99).total == 0
    assert game.slots_filled(coins=100).total == 1
    # STR d4: 8 slots; carrying more gives DIS and HP 0; never more than double (16)
    assert game.carrying(str_die="d4", filled=8).outcome.id == "within"
    over = game.carrying(str_die="d4", filled=9)
    assert over.outcome.id == "over" and over.values == {"disadvantage": True, "hp": 0}
    assert game.carrying(str_die="d4", filled=16).outcome.id == "over"
    assert game.carrying(str_die="d4", filled=17).outcome.id == "never"
    assert game.carrying(str_die="d12", filled=48).outcome.id == "over"


def test_lad_10_luck_die(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert game.odds("luck_die") == {"luck": 1}
    assert game.luck_die(rng=Script(5)).values == {"luck": 5}
    assert game.luck_die(die="d12", rng=Script(12)).values == {"luck": 12}
    assert game.luck_die(rng=Script(2)).outcome.text == "Higher is better. Lower is worse."
    assert game.DOCUMENTS["luck_rolls"].texts() == [
        "When you stop to rest in a dangerous location", "If you make a loud noise in a dungeon",
        "At the start of each exploration and travel round", "To see if a trap is triggered"]
    assert details(loaded, "luck_die")["outcome_bands"] == "unknown"  # D-LAD-11


def test_lad_11_detachments(game) -> None:  # type: ignore[no-untyped-def]
    def look(attacker: str, target: str, blast: bool = False):  # type: ignore[no-untyped-def]
        return game.detachments(attacker=attacker, target=target, blast=blast)

    assert look("detachment", "individual").values == {"advantage": True, "blast": True}
    assert look("individual", "detachment").values == {"disadvantage": True}
    assert look("individual", "detachment", blast=True).outcome.id == "no_change"
    assert look("individual", "individual").outcome.id == "no_change"
    assert look("detachment", "detachment").outcome.id == "no_change"


def test_lad_12_turns_rounds_and_surprise(game) -> None:  # type: ignore[no-untyped-def]
    lengths = {t: game.rounds(time=t).values["length"] for t in ("encounter", "exploring", "traveling")}
    assert lengths == {"encounter": "about ten seconds", "exploring": "about ten minutes",
                       "traveling": "about one hour"}
    assert game.rounds(time="traveling").values["miles"] == 3
    assert [game.rounds(time="encounter").values["seconds"], game.rounds(time="exploring").values["minutes"],
            game.rounds(time="traveling").values["hours"]] == [10, 10, 1]
    assert game.rounds(time="encounter").values["order"] == "PCs act first and as a group, taking their turns together."
    # surprise: a DEX contest with the same tie rule
    for mine, theirs in itertools.product(LADDER, repeat=2):
        assert game.odds("surprise", mine=mine, theirs=theirs) == contest_by_hand(mine, theirs)


def test_lad_13_hirelings(game) -> None:  # type: ignore[no-untyped-def]
    assert game.hireling_share(plunder=1000, shares=4, fee=50).total == 200
    assert game.hireling_share(plunder=1000, shares=3, fee=0).total == 333
    assert [game.hirelings_max(wil=d).total for d in LADDER] == [4, 6, 8, 10, 12]
    assert game.odds("hireling_contest", mine="d10", theirs="d8") == contest_by_hand("d10", "d8")
    assert game.hireling_contest(mine="d6", theirs="d8", rng=Script(6, 6)).outcome.id == "lose"


ROWS = {1: "Hostile", 2: "Hostile", 3: "Hostile", 4: "Wary", 5: "Wary", 6: "Indifferent", 7: "Indifferent",
        8: "Friendly", 9: "Friendly", 10: "Helpful", 11: "Helpful", 12: "Helpful"}


def test_lad_14_reactions(game) -> None:  # type: ignore[no-untyped-def]
    for face, text in ROWS.items():
        assert game.reaction(wil="d12", rng=Script(face)).outcome.text == text
    for die in LADDER:
        counts = Counter(ROWS[f] for f in range(1, SIDES[die] + 1))
        expected = {text.lower(): Fraction(counts[text], SIDES[die]) for text in dict.fromkeys(ROWS.values())}
        assert game.odds("reaction", wil=die) == expected, die
    # D-LAD-10: a d4 WIL only ever meets Hostile or Wary NPCs
    assert {k for k, p in game.odds("reaction", wil="d4").items() if p} == {"hostile", "wary"}


def test_lad_15_leverage(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert game.odds("leverage", mine="d12", theirs="d4") == contest_by_hand("d12", "d4")
    assert details(loaded, "leverage")["improvement"] == "1"  # set by errata D-LAD-9
    assert details(loaded, "leverage")["improves"] == "reaction"
    assert game.leverage(mine="d8", theirs="d4", rng=Script(3, 3)).values == {"won": True}


def attack_by_hand(dice: tuple[str, ...], multiple_weapons: bool, armor: int) -> dict:
    """Every face of every die: the highest, plus one for each attacker beyond the first, less armor."""
    faces = [range(1, SIDES[die] + 1) for die in dice]
    extra = 0 if multiple_weapons else len(dice) - 1
    outcomes = [max(roll) + extra - armor for roll in itertools.product(*faces)]
    harm = Fraction(sum(1 for h in outcomes if h >= 1), len(outcomes))
    return {"harm": harm, "no_harm": 1 - harm}


def test_lad_16_attacks_highest_die_plus_one_per_attacker(game) -> None:  # type: ignore[no-untyped-def]
    # d6 against armor 2: faces 3-6 deal harm (15 HP left or more: none of it is critical)
    assert game.odds("attack", armor=2) == {"critical": 0, "harm": Fraction(4, 6), "no_harm": Fraction(2, 6)}
    for weapon, armor in itertools.product(LADDER, range(4)):
        assert game.odds("attack", weapon=weapon, armor=armor) == dict(
            critical=0, **attack_by_hand((weapon,), False, armor))
    # line 64: every attacker's (or weapon's) die of its own size
    for weapon, second, third, multiple, armor in itertools.product(LADDER, ("d4", "d12"), ("none", "d4", "d10"),
                                                                    (False, True), range(4)):
        dice = (weapon, second) if third == "none" else (weapon, second, third)
        assert game.odds("several_attackers", weapon=weapon, second=second, third=third, multiple_weapons=multiple,
                         armor=armor) == attack_by_hand(dice, multiple, armor)
    # three attackers: highest single die 5, +2 harm, -1 armor = 6
    three = game.several_attackers(weapon="d6", second="d8", third="d4", armor=1, rng=Script(2, 5, 1))
    assert three.values == {"harm": 6}
    # one attacker with three weapons: highest die only
    assert game.several_attackers(weapon="d6", second="d8", third="d4", armor=1, multiple_weapons=True,
                                  rng=Script(2, 5, 1)).values["harm"] == 4
    assert game.attack(weapon="d4", armor=3, rng=Script(3)).values == {"harm": 0}


def test_lad_17_armor_never_beyond_3(game) -> None:  # type: ignore[no-untyped-def]
    assert [game.armor(armor_total=a).total for a in range(7)] == [0, 1, 2, 3, 3, 3, 3]
    spec = next(s for s in game.INPUTS["attack"] if s[0] == "armor")
    assert (spec[2], spec[3]) == (0, 3)


def test_lad_18_blast_targets_from_the_weapon_die(game) -> None:  # type: ignore[no-untyped-def]
    assert game.blast(weapon="d8", rng=Script(7)).values == {"targets": 7}
    assert game.blast(weapon="d4", rng=Script(1)).outcome.text == \
        "If unsure how many targets are affected, roll the weapon's die."
    assert game.odds("blast", weapon="d10") == {"targets": 1}


def test_lad_19_morale(game) -> None:  # type: ignore[no-untyped-def]
    rows = {1: "Hesitate", 3: "Hesitate", 4: "Retreat", 5: "Retreat", 6: "Flee", 7: "Flee",
            8: "Surrender Conditionally", 9: "Surrender Conditionally", 10: "Surrender Unconditionally",
            12: "Surrender Unconditionally"}
    for face, text in rows.items():
        assert game.morale(wil="d12", rng=Script(face)).outcome.text == text
    assert game.odds("morale", wil="d8") == {"hesitate": Fraction(3, 8), "retreat": Fraction(2, 8),
                                             "flee": Fraction(2, 8), "surrender_conditionally": Fraction(1, 8),
                                             "surrender_unconditionally": 0}
    for wil, theirs in itertools.product(LADDER, repeat=2):
        assert game.odds("morale_check", wil=wil, their_wil=theirs) == contest_by_hand(wil, theirs)
    # a win (here a tie on the higher die) goes on to the morale table rolled on your WIL
    won = game.morale_check(wil="d10", their_wil="d6", rng=Script(4, 4, 10))
    assert won.outcome.id == "win"
    assert [(link.name, link.inputs, link.outcome.text) for link in won.chain] == [
        ("morale", {"wil": "d10"}, "Surrender Unconditionally")]
    assert game.morale_check(wil="d10", their_wil="d6", rng=Script(1, 2)).chain == ()


def test_lad_20_deprivation_and_fatigue(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert details(loaded, "deprivation") == {"regain_hp": "no", "restore_attributes": "no"}
    # longer than a day: fatigued; each additional day worse
    assert [game.fatigue(days=d).total for d in range(5)] == [0, 0, 1, 2, 3]
    assert game.fatigue_rest(fatigue=3, nights=2).total == 1
    assert game.fatigue_rest(fatigue=1, nights=4).total == 0
    # two levels of fatigue impair a d8 test to a d4
    assert game.odds("test", die="d8", impaired=game.fatigue(days=3).total)["pass"] == Fraction(1, 4)


def test_lad_21_critical_harm_and_death(game) -> None:  # type: ignore[no-untyped-def]
    for die in LADDER:  # the attribute by its die's size (D-LAD-8): d8 is 8
        s = SIDES[die]
        fail = Fraction(3, s)
        expected = {"pass": 1 - fail, "dead": fail if die == "d4" else 0, "lowered": 0 if die == "d4" else fail}
        assert game.odds("critical_harm", attribute=s) == expected
    lowered = game.critical_harm(attribute=8, rng=Script(3))
    assert lowered.values == {"passed": False, "lowered_to": 6, "taken_out": True}
    assert lowered.outcome.text.endswith("you’re taken out of the fight and will die without treatment.")
    assert game.critical_harm(attribute=4, rng=Script(3)).values == {"passed": False, "dead": True}
    assert game.critical_harm(attribute=4, rng=Script(4)).values == {"passed": True}
    # no starting HP or STR in the document (D-LAD-1): a game starts them at 0
    assert game.RESOURCES["hp"][1:] == (0, None) and game.game().resources == {"hp": 0, "strength": 0}


def test_lad_22_healing_raises_a_lowered_attribute_one_step(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert details(loaded, "healing") == {"rest": "several minutes", "recovers": "all your HP"}
    assert game.odds("week_of_rest", attribute="d4", original="d8") == {"d6": 1}
    assert game.odds("week_of_rest", attribute="d6", original="d8") == {"d8": 1}
    assert game.odds("week_of_rest", attribute="d8", original="d8") == {"d8": 1}  # not lowered: unchanged
    assert game.odds("week_of_rest", attribute="d12", original="d12") == {"d12": 1}


def test_lad_23_advancement_thresholds(game, loaded) -> None:  # type: ignore[no-untyped-def]
    titles = ("novice", "professional", "expert", "veteran", "master", "legend")
    rows = [game.advancement(title=t) for t in titles]
    assert [r.values["hoard"] for r in rows] == [1000, 3000, 6000, 10000, 15000, 21000]
    hoards = [r.values["hoard"] for r in rows]
    assert [b - a for a, b in itertools.pairwise(hoards)] == [2000, 3000, 4000, 5000, 6000]
    assert [r.values["gain_hp"] for r in rows] == [True, True, False, True, False, True]
    assert [r.values["raise_attribute"] for r in rows] == [1, 0, 1, 0, 1, 1]
    assert rows[-1].values["retire"] is True
    assert rows[0].outcome.text == "1,000 C, gain HP and raise one attribute (novice)"
    assert details(loaded, "advancement")["hp_gain"] == "unknown"  # D-LAD-7
    reached = {h: game.advancement_reached(hoard=h).total for h in (0, 999, 1000, 2999, 3000, 20999, 21000, 500000)}
    assert reached == {0: 0, 999: 0, 1000: 1, 2999: 1, 3000: 2, 20999: 5, 21000: 6, 500000: 6}


def test_lad_attributes_list_names_the_four_the_text_uses(game, loaded) -> None:  # type: ignore[no-untyped-def]
    assert game.DOCUMENTS["attributes"].texts() == ["STR", "DEX", "INT", "WIL"]
    assert details(loaded, "attributes")["count"] == "unknown"  # D-LAD-1
