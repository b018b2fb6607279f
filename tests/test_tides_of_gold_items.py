"""Tides of Gold, item by item: one test per inventory item TOG-01 .. TOG-62.

Every expected number and text below is read from the rulebook
(seeds/000_ac0f3a1c3190eafa.txt, cited by `cat -n` line), not from the ruleset.
Odds are counted here, independently, by enumerating dice with itertools
(or by the closed form for the highest die of a pool) and compared with the
compiled module's exact `odds()`. Boundaries are resolved with a scripted RNG
that hands the resolver preset faces. Where the document is defective the
test asserts the erratum's resolution and names the defect (D-TOG-n).
"""

from __future__ import annotations

import itertools
import random
import re
import types
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import pytest

from rulecraft import model as m
from rulecraft.backends.render import export_data

Module = types.ModuleType
FITD = ("6 or less", "7-9", "10+")

# ---------------------------------------------------------------- helpers


class Scripted(random.Random):
    """An RNG whose randint hands back preset faces (resolvers draw every die with rng.randint(1, sides))."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)
        self.sides: list[int] = []

    def randint(self, a: int, b: int) -> int:
        assert a == 1, "dice are drawn as randint(1, sides)"
        self.sides.append(b)
        face = self.faces.pop(0)
        assert 1 <= face <= b
        return face


def roll(tog: Module, name: str, faces: Iterable[int], sides: int = 6, **inputs: Any) -> Any:
    """Resolve `name` on exactly these faces (all of them must be drawn, all from d`sides`)."""
    rng = Scripted(faces)
    result = tog.RESOLVERS[name](**inputs, rng=rng)
    assert rng.faces == [], f"{name} drew fewer dice than scripted; left over {rng.faces}"
    assert set(rng.sides) <= {sides}, f"{name} rolled d{set(rng.sides)}, expected d{sides}"
    return result


def resolve(tog: Module, name: str, **inputs: Any) -> Any:
    """Resolve a lookup or formula (no dice: the RNG must not be touched)."""
    return roll(tog, name, (), **inputs)


def count(n_dice: int, classify: Callable[[tuple[int, ...]], object], sides: int = 6) -> dict[object, Fraction]:
    """Exact distribution of classify(faces) over every sequence of n_dice dice."""
    tally = Counter(classify(faces) for faces in itertools.product(range(1, sides + 1), repeat=n_dice))
    return {key: Fraction(n, sides**n_dice) for key, n in tally.items()}


def nonzero(odds: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: v for k, v in odds.items() if v}


def fitd_band(kept: tuple[int, ...], modifier: int, names: tuple[str, str, str], natural: str | None = None) -> str:
    """The document's usual bands: 6 or less / 7-9 / 10+ (and 'natural 12' on the kept dice first)."""
    if natural is not None and sum(kept) == 12:
        return natural
    total = sum(kept) + modifier
    return names[0] if total <= 6 else names[1] if total <= 9 else names[2]


def top2(faces: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(faces)[1:])


def low2(faces: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(faces)[:2])


def definition(loaded: Any, name: str) -> Any:
    found = loaded.checked.get(name)
    assert found is not None, f"no definition {name}"
    return found


def cites(loaded: Any, name: str, item: str) -> None:
    citation = definition(loaded, name).citation
    assert citation is not None and item in citation.ids, f"{name} does not cite {item}"


def plain(expr: m.Expr) -> object:
    if isinstance(expr, (m.Number, m.Text, m.Boolean)):
        return expr.value
    if isinstance(expr, m.Name):
        return expr.name
    if isinstance(expr, m.Unknown):
        return None
    return m.expr_text(expr)


def details(loaded: Any, name: str) -> dict[str, object]:
    return {k: plain(v) for k, v in definition(loaded, name).details}


def entries(loaded: Any, name: str) -> list[m.ListEntry]:
    return list(definition(loaded, name).entries)


def entry_data(entry: m.ListEntry) -> dict[str, object]:
    return {k: plain(v) for k, v in entry.values}


def texts(tog: Module, name: str) -> list[str | None]:
    """A list's or procedure's entries, in order, as the generated module carries them."""
    return tog.DOCUMENTS[name].texts()  # type: ignore[no-any-return]


def int_input(tog: Module, name: str, input_name: str) -> tuple[int, int]:
    spec = next(s for s in tog.INPUTS[name] if s[0] == input_name)
    assert spec[1] == "int"
    return spec[2], spec[3]


def choices(tog: Module, name: str, input_name: str) -> tuple[str, ...]:
    spec = next(s for s in tog.INPUTS[name] if s[0] == input_name)
    assert spec[1] == "choice"
    return tuple(spec[4])


def errata(loaded: Any) -> dict[str, m.AppliedErratum]:
    return {e.id: e for e in loaded.checked.errata}


def resolved_items(loaded: Any, defect: str, code: str) -> set[str]:
    return {item for r in errata(loaded)[defect].resolves if code in r.codes for item in r.items}


# ---------------------------------------------------------------- texts from the document

ACTION_BANDS = {  # lines 15-17
    "failure": "failure, face a complication (and mark",
    "costly": "costly success, act but face a complication",
    "heroic": "heroic success, act without complications",
    "advantage": "succeed with an advantage; describe the advantage; when anyone uses it, they get a bonus die",
}
ENGAGEMENT = {  # lines 135-141 and 207-213
    "natural 12": "Exceptional result. You've already overcome the first obstacle and you're in an excellent "
    "position for what's next.",
    "10+": "Good result. You're in control when the action starts,",
    "7-9": "Tense result. Hit your first complication when the action starts.",
    "6 or less": "Bad result. Disaster has struck, and you're desperately responding when the action starts.",
}
ZONES = {  # lines 223-236, two columns read apart
    "zone_1": ["Wealth I Institution faction", "Wealth I Trade faction", "Wealth II Trade faction",
               "WealthI Underworld faction", "WealthI Underworld faction", "Next table"],
    "zone_2": ["Wealth II Institution faction", "Tier I Monster", "Wealth II Underworld faction",
               "Wealth III or IV Trade faction", "Wealth III or IV Trade faction", "Next table"],
    "zone_3": ["Wealth III Institution faction", "Tier II Monster", "Tier III Monster",
               "Wealth III Underworld faction", "Wealth III Underworld faction", "Next table"],
    "zone_4": ["Wealth IV or V Institution faction", "Tier IV Monster", "Tier V Monster",
               "Wealth IV or V Underworld faction", "Wealth IV or V Underworld faction",
               "Firestorm with Sea Raiders"],
}
NEXT_CHART = "Next chart or mythical monster"
TIERS = {  # lines 238-256 (garbled, D-TOG-1)
    "tier_i": ["Spotted shark", "Lightning Snake", "Vampire Pod", "Hook Eel", "Hook Eel", NEXT_CHART],
    "tier_ii": ["Venom Ringed Octopus", "Colossal Squid", "Spider Crab", "Banshee Sea Lion", "Banshee Sea Lion",
                NEXT_CHART],
    "tier_iii": ["Swallowfish", "Bedeviler Beetle", "Siren Seal", "Doppleganger Lizards", "Doppleganger Lizards",
                 NEXT_CHART],
    "tier_iv": ["Snapping Cay", "Bloody Maw", "Gulper", "Chameleon Shark", "Chameleon Shark", NEXT_CHART],
    "tier_v": ["Sickle Shark or mythical monster", "Abyssal Worm", "Leviathan Star", "Blobfish", "Lion Crab",
               "Sunken Salamander"],
}
MYTHICAL = ["Sea Raiders", "Primoridal", "Undine", "Merfolk", "Centaur", "Harpy"]  # lines 240-252
RAID_TABLE = {  # lines 355-358: row -> (Notoriety 0-3, 4-6, 7+)
    "1-3": ("Memories", "Looters", "Invasion"),
    "4/5": ("Taxes", "Dangerous Waters", "Examples"),
    "6": ("Stowaway", "Commandeer", "Hostile Takeover"),
}
SALE_PRICES = {  # lines 416-420
    "gems": [7, 15],
    "luxury": [6, 13, 25],
    "arms": [4, 9, 19, 30],
    "goods": [3, 7, 15, 25, 30],
}


# ---------------------------------------------------------------- Primary actions & rolls


def test_tog_01_action_roll(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "action_roll", "TOG-01")
    cites(tog_loaded, "action_roll_steps", "TOG-01")
    assert texts(tog, "action_roll_steps") == [  # lines 13-15
        "Player describes their approach and goal.",
        "Player chooses the action rating that fits description.",
        "Player rolls **2d6** and adds action dots to the total.",
    ]
    # Boundaries at dots=2: 2d6 + 2.
    for faces, total, band in [((1, 1), 4, "failure"), ((2, 2), 6, "failure"), ((3, 2), 7, "costly"),
                               ((4, 3), 9, "costly"), ((4, 4), 10, "heroic"), ((6, 5), 13, "heroic"),
                               ((6, 6), 14, "advantage")]:
        result = roll(tog, "action_roll", faces, dots=2)
        assert (result.dice, result.total, result.outcome.id) == (faces, total, band), faces
        assert result.outcome.text == ACTION_BANDS[band]  # D-TOG-3: the cut-off failure text is kept as printed
        # "face a complication" on failure and costly success; "without complications" on 10+.
        assert bool(result.values.get("complication")) == (band in ("failure", "costly"))
        assert bool(result.values.get("advantage_token")) == (band == "advantage")
    # "natural 12" is the dice, not the total: 5+5 with 2 dots totals 12 but is a heroic success.
    assert roll(tog, "action_roll", (5, 5), dots=2).outcome.id == "heroic"
    assert roll(tog, "action_roll", (6, 6), dots=0).outcome.id == "advantage"
    # D-TOG-19: the dot range is not stated; the erratum assumes 0..4.
    assert int_input(tog, "action_roll", "dots") == (0, 4)
    with pytest.raises(ValueError):
        tog.action_roll(dots=5)
    names = ("failure", "costly", "heroic")
    for dots in range(5):
        expected = count(2, lambda f, d=dots: fitd_band(f, d, names, "advantage"))
        assert nonzero(tog.odds("action_roll", dots=dots)) == expected, dots
    assert tog.odds("action_roll", dots=0)["advantage"] == Fraction(1, 36)


def test_tog_02_complications(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "complications", "TOG-02")
    # Line 11, six entries on one line.
    assert texts(tog, "complications") == [
        "New threat", "Use up resources", "Unintended consequences", "Terrible choice", "Brewing trouble",
        "Cause harm",
    ]
    assert details(tog_loaded, "complications")["count"] == 6
    assert "complications" not in tog.RESOLVERS  # no die is given: a list, not a table


def test_tog_03_bonus_dice(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "bonus_dice", "TOG-03")
    cites(tog_loaded, "action_roll", "TOG-03")
    assert definition(tog_loaded, "bonus_dice").text == "Roll 3d6 and keep the highest"  # line 21
    assert texts(tog, "bonus_dice") == [  # lines 23-25
        "**Invoke an advantage** (from a natural 12)",
        "Push yourself (spend 2 stress)",
        "**Teamwork** (act in sync with another PC or cohort)",
    ]
    push = next(e for e in entries(tog_loaded, "bonus_dice") if e.id == "push")
    assert entry_data(push)["stress"] == 2
    # D-TOG-2: "keep the highest" has no count; the erratum keeps the highest 2 (as in line 406).
    result = roll(tog, "action_roll", (1, 6, 6), dots=0, bonus_die=True)
    assert (result.dice, sorted(result.kept), result.total, result.outcome.id) == ((1, 6, 6), [6, 6], 12, "advantage")
    result = roll(tog, "action_roll", (1, 1, 5), dots=2, bonus_die=True)
    assert (sorted(result.kept), result.total, result.outcome.id) == ([1, 5], 8, "costly")
    assert roll(tog, "action_roll", (2, 4, 4), dots=1, bonus_die=True).outcome.id == "costly"  # 8 + 1 = 9
    assert roll(tog, "action_roll", (2, 5, 4), dots=1, bonus_die=True).outcome.id == "heroic"  # 9 + 1 = 10
    names = ("failure", "costly", "heroic")
    for dots in (0, 1, 3):
        expected = count(3, lambda f, d=dots: fitd_band(top2(f), d, names, "advantage"))
        assert nonzero(tog.odds("action_roll", dots=dots, bonus_die=True)) == expected, dots
    # A natural 12 on the kept two dice: 1 - P(at most one six in 3d6) = 16/216.
    assert tog.odds("action_roll", dots=0, bonus_die=True)["advantage"] == Fraction(16, 216)


def test_tog_04_edge_penalty(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "edge_penalty", "TOG-04")
    cites(tog_loaded, "action_roll", "TOG-04")
    assert definition(tog_loaded, "edge_penalty").text == (  # line 29
        "If you have an EDGE, add +1 to your roll (+2 if a major edge). If you have a **PENALTY**, take -1 to "
        "your roll (-2 if a major penalty)."
    )
    assert details(tog_loaded, "edge_penalty")["optional"] is True  # "(OPTIONAL RULES)", line 27
    kinds = [(e.text, entry_data(e)["kind"]) for e in entries(tog_loaded, "edge_penalty")]
    assert kinds == [  # lines 31-36 (D-TOG-26: the stray "+" and the bold are kept)
        ("+ Ten Steps Ahead: tactical advantage or clever strategy", "edge"),
        ("**Shock & Awe:** surprise or overwhelming power", "edge"),
        ("Finisher: builds on a teammate's previous actions", "edge"),
        ("Foolhardy: terrible idea or the wrong tools for a job", "penalty"),
        ("Outclassed: significantly more powerful adversary or surprised", "penalty"),
        ("Bad Conditions: environment is complicating the action, e.g. darkness, slippery ice", "penalty"),
    ]
    # +1 edge, +2 major edge, -1 penalty, -2 major penalty, on 3+3 with no dots.
    for edge, penalty, faces, total, band in [
        ("none", "none", (3, 3), 6, "failure"),
        ("edge", "none", (3, 3), 7, "costly"),
        ("major", "none", (3, 3), 8, "costly"),
        ("major", "none", (4, 4), 10, "heroic"),
        ("none", "penalty", (4, 3), 6, "failure"),
        ("none", "major", (4, 4), 6, "failure"),
        ("none", "major", (5, 4), 7, "costly"),
        ("edge", "penalty", (3, 3), 6, "failure"),  # D-TOG-20: an edge and a penalty add up (assumption)
    ]:
        result = roll(tog, "action_roll", faces, dots=0, edge=edge, penalty=penalty)
        assert (result.total, result.outcome.id) == (total, band), (edge, penalty, faces)
    # A natural 12 is read before modifiers, so even a major penalty keeps the advantage.
    assert roll(tog, "action_roll", (6, 6), dots=0, penalty="major").outcome.id == "advantage"
    edges = {"none": 0, "edge": 1, "major": 2}
    names = ("failure", "costly", "heroic")
    for edge, penalty in itertools.product(edges, ("none", "penalty", "major")):
        modifier = 1 + edges[edge] - {"none": 0, "penalty": 1, "major": 2}[penalty]
        expected = count(2, lambda f, d=modifier: fitd_band(f, d, names, "advantage"))
        assert nonzero(tog.odds("action_roll", dots=1, edge=edge, penalty=penalty)) == expected


def test_tog_05_resistance_roll(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "resistance_roll", "TOG-05")
    cites(tog_loaded, "resistance_steps", "TOG-05")
    assert texts(tog, "resistance_steps") == [  # lines 40-44 (D-TOG-26: "coomplication" as printed)
        "Player chooses to resist a complication.",
        "GM decides if the coomplication will be reduced or negated completely.",
        "GM determines which attribute applies to the complication.",
        "Player rolls a dice pool equal to that attribute.",
        "PC takes stress equal to 6 minus the highest dice result; the complication is negated or reduced.",
    ]
    # "a dice pool equal to that attribute"; "stress equal to 6 minus the highest dice result".
    for attribute, faces, stress in [(3, (2, 5, 1), 1), (1, (6,), 0), (4, (1, 1, 1, 1), 5), (2, (3, 4), 2)]:
        result = roll(tog, "resistance_roll", faces, attribute=attribute)
        assert len(result.dice) == attribute
        assert result.values["stress"] == stress, faces
    for attribute in (1, 2, 3):
        expected = count(attribute, lambda f: 6 - max(f))
        seen: Counter[object] = Counter()
        for faces in itertools.product(range(1, 7), repeat=attribute):
            seen[roll(tog, "resistance_roll", faces, attribute=attribute).values["stress"]] += 1
        assert {k: Fraction(v, 6**attribute) for k, v in seen.items()} == expected
    # D-TOG-21: a zero attribute is undefined; the erratum limits the input to 1..4.
    assert int_input(tog, "resistance_roll", "attribute") == (1, 4)
    with pytest.raises(ValueError):
        tog.resistance_roll(attribute=0)


def test_tog_06_stress_and_unmoored(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "stress", "TOG-06")
    cites(tog_loaded, "chains", "TOG-06")
    stress = definition(tog_loaded, "stress")
    assert stress.on_full.startswith("If you mark your last stress box, become confused, doubt yourself")  # line 48
    assert stress.on_full.endswith("profess, provide, dedicate, fix, glorify, entertain, cover, or blend.")
    assert texts(tog, "chains") == ["profess", "provide", "dedicate", "fix", "glorify", "entertain", "cover",
                                    "blend"]
    assert details(tog_loaded, "chains")["count"] == 8
    # D-TOG-15: the number of stress boxes is not given; the class asks for it.
    assert stress.size is None
    assert "stress" in resolved_items(tog_loaded, "D-TOG-15", "MISSING")
    with pytest.raises(TypeError):
        tog.Stress()
    track = tog.Stress(size=4)
    assert track.mark(3) == []
    happened = track.mark(1)
    assert len(happened) == 1 and "new CHAIN formed to your anchor" in happened[0]


def test_tog_07_harm(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "harm", "TOG-07")
    cites(tog_loaded, "harm_steps", "TOG-07")
    assert texts(tog, "harm_steps") == [  # lines 52-55
        "GM describes the harm and names an attribute",
        "The player writes it in the lowest level (-1, -2, -3)",
        "All actions under that attribute take the penalty while harm remains",
        "Become **INCAPACITATED** if attribute already has -3 harm or second attribute reaches -3 harm; cannot act "
        "until all harm is healed",
    ]
    # Three levels, -1, -2, -3 (line 53); one per level is the erratum's assumption (D-TOG-14).
    harm = definition(tog_loaded, "harm")
    assert harm.size == 3
    assert details(tog_loaded, "harm")["per"] == "attribute"
    track = tog.Harm()  # one per attribute
    assert track.size == 3
    # "writes it in the lowest level": each new harm takes the lowest free level.
    assert track.add(1, "Bruised") == ["Bruised recorded at level 1 (-1)"]
    assert track.add(1, "Cut") == ["Cut recorded at level 2 (-2)"]
    assert track.penalties() == ["-1", "-2"]
    assert track.add(1, "Broken arm") == ["Broken arm recorded at level 3 (-3)"]
    # "INCAPACITATED if attribute already has -3 harm".
    happened = track.add(1, "Stabbed")
    assert len(happened) == 1 and "INCAPACITATED" in happened[0] and "cannot act" in happened[0]


def test_tog_08_consequence_clocks(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "consequence_clock", "TOG-08")
    # Lines 59-63: "less than 6: 2 segments / 7-9: 1 segment / 10+: no segments".
    # D-TOG-4: 6 is in no band as printed; the erratum reads "6 or less" (as line 382 does).
    assert "consequence_clock" in resolved_items(tog_loaded, "D-TOG-4", "RANGE-GAP")
    for faces, dots, segments in [((1, 1), 0, 2), ((3, 3), 0, 2), ((1, 1), 4, 2), ((4, 3), 0, 1), ((5, 4), 0, 1),
                                  ((5, 5), 0, 0), ((6, 6), 0, 0), ((6, 6), 4, 0)]:
        result = roll(tog, "consequence_clock", faces, dots=dots)
        assert result.values["segments"] == segments, (faces, dots)
        assert result.outcome.text == {2: "2 segments", 1: "1 segment", 0: "no segments"}[segments]
    ids = {2: "two_segments", 1: "one_segment", 0: "no_segments"}
    for dots in range(5):
        expected = count(2, lambda f, d=dots: ids[2 if sum(f) + d <= 6 else 1 if sum(f) + d <= 9 else 0])
        assert nonzero(tog.odds("consequence_clock", dots=dots)) == expected


def test_tog_09_obstacle_clocks(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "obstacle_clock", "TOG-09")
    # Lines 71-74; D-TOG-4 again: "less than 6" read as "6 or less".
    assert "obstacle_clock" in resolved_items(tog_loaded, "D-TOG-4", "RANGE-GAP")
    for faces, dots, segments in [((3, 3), 0, 0), ((4, 3), 0, 1), ((5, 4), 0, 1), ((5, 5), 0, 2), ((6, 5), 0, 2),
                                  ((6, 6), 0, 4), ((5, 5), 2, 2), ((6, 6), 4, 4), ((1, 1), 4, 0)]:
        result = roll(tog, "obstacle_clock", faces, dots=dots)
        assert result.values["segments"] == segments, (faces, dots)
        assert result.outcome.text == {0: "no segments", 1: "1 segment", 2: "2 segments", 4: "4 segments"}[segments]
    names = ("no_segments", "one_segment", "two_segments")
    for dots in range(5):
        expected = count(2, lambda f, d=dots: fitd_band(f, d, names, "four_segments"))
        assert nonzero(tog.odds("obstacle_clock", dots=dots)) == expected


def test_tog_10_background(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "background", "TOG-10")
    background = definition(tog_loaded, "background")
    assert background.kind == "rule"
    assert background.text == (  # line 78
        "once per session, you can gather information within that knowledge area, and the GM will answer your "
        "question as if you rolled a 10+"
    )
    data = details(tog_loaded, "background")
    assert data["uses"] == "once per session"
    assert data["as_if_rolled"] == 10
    # "as if you rolled a 10+": a total of 10 is the 10+ band of the usual roll.
    assert roll(tog, "action_roll", (5, 5), dots=0).outcome.id == "heroic"
    assert roll(tog, "action_roll", (5, 4), dots=0).outcome.id == "costly"


def test_tog_11_heritage_connect(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "heritage_connect", "TOG-11")
    # Line 82: "6 or less, rival; 7-9, you owe them something; 10+ friendly". D-TOG-6: no dice; 2d6 assumed.
    assert tog.INPUTS["heritage_connect"] == ()
    for faces, text in [((3, 3), "rival"), ((1, 1), "rival"), ((4, 3), "you owe them something"),
                        ((5, 4), "you owe them something"), ((5, 5), "friendly"), ((6, 6), "friendly")]:
        assert roll(tog, "heritage_connect", faces).outcome.text == text, faces
    assert nonzero(tog.odds("heritage_connect")) == {"rival": Fraction(15, 36), "owe": Fraction(15, 36),
                                                      "friendly": Fraction(6, 36)}
    assert nonzero(tog.odds("heritage_connect")) == count(2, lambda f: fitd_band(f, 0, ("rival", "owe", "friendly")))


def test_tog_12_questionable_associates(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "associates", "TOG-12")
    associates = definition(tog_loaded, "associates")
    assert associates.text == (  # line 86, as printed ("oblgations", D-TOG-26)
        "call them into the scene up arrow = asset down arrow = obligation cannot have assets > oblgations reset "
        "arrows after port downtime"
    )
    data = details(tog_loaded, "associates")
    assert (data["up"], data["down"]) == ("asset", "obligation")
    assert data["invariant"] == "cannot have assets > oblgations"
    assert data["reset"] == "after port downtime"
    assert associates.size is None  # no count of arrows is given (D-TOG-15)
    assert "associates" in resolved_items(tog_loaded, "D-TOG-15", "MISSING")


def test_tog_13_coin_roll(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "coin_roll", "TOG-13")
    # Line 90: "use 1 Coin to roll 2d6 + Wealth 10+ doesn't use up coin; 7-9 lose coin; 6 or less, lose coin and
    # face a complication".
    for faces, text, spent, complication in [
        ((3, 2), "lose coin and face a complication", 1, True),
        ((3, 3), "lose coin", 1, False),
        ((4, 4), "lose coin", 1, False),
        ((5, 4), "doesn't use up coin", 0, False),
    ]:
        result = roll(tog, "coin_roll", faces, wealth=1)
        assert result.total == sum(faces) + 1
        assert result.outcome.text == text
        assert result.values["coin_spent"] == spent
        assert bool(result.values.get("complication")) == complication
    names = ("lose_coin_complication", "lose_coin", "keep_coin")
    for wealth in range(6):
        expected = count(2, lambda f, w=wealth: fitd_band(f, w, names))
        assert nonzero(tog.odds("coin_roll", wealth=wealth)) == expected


def test_tog_14_ship_actions(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "ship_actions", "TOG-14")
    assert definition(tog_loaded, "ship_actions").text == (  # line 94
        "ship TRAIT sets the maximum modifer for any actions done with the ship:"
    )
    assert choices(tog, "ship_actions", "trait") == ("speed", "durability", "firepower", "crew", "size")
    expected = {  # lines 96-104
        "speed": ("Speed", "Navigation, speed, piloting, any movement"),
        "durability": ("Durability", "Ramming a target, cutting a reckless path, any physical"),
        "firepower": ("Firepower", "Firing weapons, threatening statement, any force or danger"),
        "crew": ("Crew", "any actions that involve multiple people/locations"),
        "size": ("Size", "any actions involving the Corw's Nest, e.g. scouting, planning"),
    }
    for trait, (label, text) in expected.items():
        result = resolve(tog, "ship_actions", trait=trait)
        assert (result.outcome.label, result.outcome.text) == (label, text)
    # D-TOG-22: what the trait caps is not stated; the erratum leaves the cap to the GM.
    assert "D-TOG-22" in errata(tog_loaded)


# ---------------------------------------------------------------- Score phase


def test_tog_15_score_plans(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "score_plans", "TOG-15")
    plans = entries(tog_loaded, "score_plans")
    assert [(e.id, entry_data(e)["detail"]) for e in plans] == [  # lines 110-115
        ("assault", "The point of attack."),
        ("deception", "The method of deception."),
        ("stealth", "The point of infiltration."),
        ("occult", "The arcane method."),
        ("social", "The social connection."),
        ("transport", "The route and means"),
    ]
    assert texts(tog, "score_plans")[0] == "♦ Assault— Do violence to a target. **Detail:** The point of attack."
    assert texts(tog, "score_plans")[5] == (
        "♦ Transport— Use a vehicle, speed, or athletic prowess. Detail: The route and means"
    )
    assert details(tog_loaded, "score_plans")["count"] == 6


def test_tog_16_item_loadouts(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "loadout", "TOG-16")
    expected = {  # lines 119-123
        "light": (3, "Light Load (3)", "Unburdened. You carry very little, quick and agile."),
        "normal": (5, "Normal Load (5)",
                   "Prepared. You look like someone ready for action, able to maneuver normally."),
        "heavy": (7, "Heavy Load (7)", "Threatening. You are ready for war, slowed by your haul."),
    }
    assert choices(tog, "loadout", "load") == tuple(expected)
    for load, (slots, label, text) in expected.items():
        result = resolve(tog, "loadout", load=load)
        assert (result.values["slots"], result.outcome.label, result.outcome.text) == (slots, label, text)


FLAG_COMBOS = [dict(zip(("a", "b", "c", "x", "y", "z"), bits, strict=True))
               for bits in itertools.product((False, True), repeat=6)]


def test_tog_17_score_engagement_modifier(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "score_engagement_modifier", "TOG-17")
    cites(tog_loaded, "score_engagement_factors", "TOG-17")
    assert texts(tog, "score_engagement_factors") == [  # lines 129-131
        "» Bold or daring? Take +1. Overly complex or contingent on many factors? Take -1.",
        "» Plan's detail expose a vulnerability of the target or hit them where they're weakest? Take +1. Target "
        "strongest against this approach, or do they have particular defenses or special preparations? Take -1.",
        "» Can any of your friends, associates, contacts, or anchors provide aid or insight for this operation? "
        "Take +1. Are any enemies or rivals or obligations interfering in the operation? Take -1.",
    ]
    # Line 127: "Can never have more than +2 or -2". Three +1 factors, three -1 factors.
    seen = set()
    for combo in FLAG_COMBOS:
        flags = {"bold": combo["a"], "vulnerability": combo["b"], "aid": combo["c"],
                 "complex": combo["x"], "strongest": combo["y"], "interference": combo["z"]}
        raw = (combo["a"] + combo["b"] + combo["c"]) - (combo["x"] + combo["y"] + combo["z"])
        expected = max(-2, min(2, raw))
        assert resolve(tog, "score_engagement_modifier", **flags).total == expected, flags
        seen.add(expected)
    assert seen == {-2, -1, 0, 1, 2}
    # The roll uses the capped modifier: three +1s give +2, so 3+4 = 9 is Tense, not Good.
    all_plus = {"bold": True, "vulnerability": True, "aid": True}
    result = roll(tog, "score_engagement", (3, 4), **all_plus)
    assert (result.total, result.outcome.text) == (9, ENGAGEMENT["7-9"])
    all_minus = {"complex": True, "strongest": True, "interference": True}
    result = roll(tog, "score_engagement", (4, 4), **all_minus)
    assert (result.total, result.outcome.text) == (6, ENGAGEMENT["6 or less"])


def test_tog_18_engagement_roll_outcomes(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "engagement_results", "TOG-18")
    cites(tog_loaded, "score_engagement", "TOG-18")
    cites(tog_loaded, "odyssey_engagement", "TOG-18")
    # Listed top-down with Natural 12 first; D-TOG-27: the Good result ends with a comma, as printed.
    assert [(e.id, e.text) for e in tog.DOCUMENTS["engagement_results"].entries] == list(ENGAGEMENT.items())
    assert resolved_items(tog_loaded, "D-TOG-27", "TRUNCATED") & {"engagement_results", "score_engagement",
                                                                 "odyssey_engagement"}
    minus = {"complex": True, "strongest": True, "interference": True}
    plus = {"bold": True, "vulnerability": True, "aid": True}
    for flags, faces, key in [({}, (3, 3), "6 or less"), ({}, (4, 3), "7-9"), ({}, (5, 4), "7-9"),
                              ({}, (5, 5), "10+"), ({}, (6, 6), "natural 12"), (minus, (6, 6), "natural 12"),
                              (plus, (6, 5), "10+"), (plus, (4, 4), "10+"), (minus, (6, 5), "7-9")]:
        result = roll(tog, "score_engagement", faces, **flags)
        assert result.outcome.text == ENGAGEMENT[key], (flags, faces)
        assert result.outcome.key == key
    keys = {"bad": "6 or less", "tense": "7-9", "good": "10+", "exceptional": "natural 12"}
    for modifier, flags in [(0, {}), (2, plus), (-2, minus), (1, {"aid": True})]:
        expected = count(2, lambda f, d=modifier: fitd_band(f, d, ("bad", "tense", "good"), "exceptional"))
        assert nonzero(tog.odds("score_engagement", **flags)) == expected, flags
    # Odyssey (lines 205-213) reads the same bands.
    assert roll(tog, "odyssey_engagement", (6, 6)).outcome.text == ENGAGEMENT["natural 12"]
    assert roll(tog, "odyssey_engagement", (3, 3)).outcome.text == ENGAGEMENT["6 or less"]
    assert {keys[k] for k in tog.odds("odyssey_engagement")} == set(ENGAGEMENT)


def test_tog_19_flashback_costs(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "flashback_cost", "TOG-19")
    expected = {  # lines 145-149
        "ordinary": (0, "0 Stress", "An ordinary action for which you had easy opportunity."),
        "complex": (1, "1 Stress", "A complex action or unlikely opportunity."),
        "elaborate": (2, "2 (or more) Stress",
                      "An elaborate action that involved special opportunities or contingencies."),
    }
    for action, (stress, label, text) in expected.items():
        result = resolve(tog, "flashback_cost", action=action)
        assert (result.values["stress"], result.outcome.label, result.outcome.text) == (stress, label, text)
    assert resolve(tog, "flashback_cost", action="elaborate").values.get("or_more") is True
    assert "or_more" not in resolve(tog, "flashback_cost", action="complex").values


def test_tog_20_loot(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "loot", "TOG-20")
    expected = {  # lines 155-159
        "minor": (2, "A minor job; several full purses."),
        "small": (4, "A small job; a strongbox."),
        "standard": (6, "A standard score; decent loot."),
        "big": (8, "A big score; serious loot."),
        "major": (10, "A major score; impressive loot."),
    }
    assert choices(tog, "loot", "job") == tuple(expected)
    for job, (coin, text) in expected.items():
        result = resolve(tog, "loot", job=job)
        assert (result.values["coin"], result.outcome.text) == (coin, text)
        assert result.outcome.label == ("10+ coin" if job == "major" else f"{coin} coin")
    assert resolve(tog, "loot", job="major").values.get("or_more") is True  # "10+ coin"


def test_tog_21_cargo_seized(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "cargo_seized", "TOG-21")
    # Lines 163-166: Wealth 1-2 -> 1, 3-4 -> 2, 5 -> 3.
    # D-TOG-18: Wealth 0 is not in the table; the erratum gives it the lowest row (1 cargo).
    expected = {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 3}
    for wealth, cargo in expected.items():
        assert resolve(tog, "cargo_seized", wealth=wealth).values["value"] == cargo, wealth
    assert "cargo_seized" in resolved_items(tog_loaded, "D-TOG-18", "RANGE-GAP")
    assert int_input(tog, "cargo_seized", "wealth") == (0, 5)


def test_tog_22_cargo_storage(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "cargo_capacity", "TOG-22")
    # Line 168: "You can store cargo equal to your ship **Size** traits x 2"; line 262 repeats it.
    assert definition(tog_loaded, "cargo_capacity").text == (
        "You can store cargo equal to your ship **Size** traits x 2."
    )
    for size in range(6):
        assert resolve(tog, "cargo_capacity", size=size).total == 2 * size


def test_tog_23_giving_up(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "giving_up", "TOG-23")
    assert definition(tog_loaded, "giving_up").text == (  # line 172
        "When you give up on a score, go into the next game phase: you can move into any phase except trade, as you "
        "need some time to pass for things to die down before you return to the public markets."
    )


# ---------------------------------------------------------------- Odyssey phase


def test_tog_24_odyssey_trigger(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "odyssey_trigger", "TOG-24")
    # Line 176: "more than 2 hexes at sea or more than 1 hex in the Reef Lands".
    for sea, reef in itertools.product(range(6), range(4)):
        expected = sea > 2 or reef > 1
        assert tog.odds("odyssey_trigger", sea_hexes=sea, reef_hexes=reef) == {str(expected): Fraction(1)}, (sea, reef)
    # The value shows in the trace; the Result field is tested in test_boolean_formula_result_carries_its_value.
    assert tog.odyssey_trigger(sea_hexes=3).trace == "Use an Odyssey: yes"  # a yes/no value, in words
    assert tog.odyssey_trigger(sea_hexes=2, reef_hexes=1).trace == "Use an Odyssey: no"


def test_tog_25_odyssey_plans(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "odyssey_plans", "TOG-25")
    expected = {  # lines 182-187
        "assault": "firepower",
        "stealth": "size",
        "transport": "speed",
        "deception": "crew",
        "occult": "based on occult person or item",
        "social": "the crew's Wealth",  # D-TOG-24: Wealth is not a ship trait; recorded as printed
    }
    assert choices(tog, "odyssey_plans", "plan") == tuple(expected)
    for plan, trait in expected.items():
        result = resolve(tog, "odyssey_plans", plan=plan)
        assert result.values["trait"] == trait
        assert result.outcome.text.endswith(f"primary trait is {trait}")
    assert resolve(tog, "odyssey_plans", plan="social").outcome.text == (
        "\\Diamond Social: travel as part of a group or convoy, primary trait is the crew's Wealth"
    )


def test_tog_26_odyssey_engagement_modifier(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "odyssey_engagement_modifier", "TOG-26")
    cites(tog_loaded, "odyssey_engagement", "TOG-26")
    # Lines 193-203: three +1 conditions, three -1 conditions; D-TOG-5: no cap is stated, so -3..+3.
    seen = set()
    for combo in FLAG_COMBOS:
        flags = {"dominant_trait": combo["a"], "near_land": combo["b"], "ally": combo["c"],
                 "weak_trait": combo["x"], "indirect": combo["y"], "faction": combo["z"]}
        expected = (combo["a"] + combo["b"] + combo["c"]) - (combo["x"] + combo["y"] + combo["z"])
        assert resolve(tog, "odyssey_engagement_modifier", **flags).total == expected, flags
        seen.add(expected)
    assert seen == set(range(-3, 4))
    plus = {"dominant_trait": True, "near_land": True, "ally": True}
    minus = {"weak_trait": True, "indirect": True, "faction": True}
    assert roll(tog, "odyssey_engagement", (2, 2), **plus).total == 7  # uncapped: +3
    assert roll(tog, "odyssey_engagement", (3, 4), **plus).outcome.text == ENGAGEMENT["10+"]
    assert roll(tog, "odyssey_engagement", (6, 6), **minus).outcome.text == ENGAGEMENT["natural 12"]
    assert roll(tog, "odyssey_engagement", (6, 5), **minus).outcome.text == ENGAGEMENT["7-9"]  # 11 - 3 = 8
    for modifier, flags in [(3, plus), (-3, minus), (0, {})]:
        expected_odds = count(2, lambda f, d=modifier: fitd_band(f, d, ("bad", "tense", "good"), "exceptional"))
        assert nonzero(tog.odds("odyssey_engagement", **flags)) == expected_odds


def test_tog_27_odyssey_challenge_zones(tog: Module, tog_loaded: Any) -> None:
    for name in ZONES:
        cites(tog_loaded, name, "TOG-27")
    cites(tog_loaded, "odyssey_challenge", "TOG-27")
    assert "Roll 1d6 and consult the appropriate zone list." in definition(tog_loaded, "odyssey_challenge").text
    for name, rows in ZONES.items():
        assert nonzero(tog.odds(name)) == {"1": Fraction(1, 6), "2": Fraction(1, 6), "3": Fraction(1, 6),
                                           "4-5": Fraction(1, 3), "6": Fraction(1, 6)}
        for face, text in enumerate(rows[:5], start=1):
            result = roll(tog, name, (face,))
            assert result.outcome.text == text, (name, face)
            assert result.chain == ()
    # Row 6 "Next table" goes on to the next zone; Zone 4 row 6 is the end.
    for name, following in [("zone_1", "zone_2"), ("zone_2", "zone_3"), ("zone_3", "zone_4")]:
        result = roll(tog, name, (6, 1))
        assert result.outcome.text == "Next table"
        assert [link.name for link in result.chain] == [following]
        assert result.chain[0].outcome.text == ZONES[following][0]
    last = roll(tog, "zone_4", (6,))
    assert (last.outcome.text, last.chain) == ("Firestorm with Sea Raiders", ())
    walked = roll(tog, "zone_1", (6, 6, 6, 3))
    assert [link.name for link in walked.chain] == ["zone_2", "zone_3", "zone_4"]
    assert walked.chain[-1].outcome.text == "Tier V Monster"
    # "Tier N Monster" rows name the monster table to roll on.
    for name, face, tier in [("zone_2", 2, "tier_i"), ("zone_3", 2, "tier_ii"), ("zone_3", 3, "tier_iii"),
                             ("zone_4", 2, "tier_iv"), ("zone_4", 3, "tier_v")]:
        assert roll(tog, name, (face,)).values["monster"] == tier


def test_tog_28_monster_tables(tog: Module, tog_loaded: Any) -> None:
    # D-TOG-1: the page is garbled; the erratum's reconstruction (Tier I = Hook Eel from the external bestiary).
    for name in TIERS:
        cites(tog_loaded, name, "TOG-28")
    assert "D-TOG-1" in errata(tog_loaded)
    for name, rows in TIERS.items():
        for face, text in enumerate(rows, start=1):
            chain_faces = (1,) if text == NEXT_CHART else ()
            assert roll(tog, name, (face, *chain_faces)).outcome.text == text, (name, face)
    for name in ("tier_i", "tier_ii", "tier_iii", "tier_iv"):
        assert nonzero(tog.odds(name)) == {"1": Fraction(1, 6), "2": Fraction(1, 6), "3": Fraction(1, 6),
                                           "4-5": Fraction(1, 3), "6": Fraction(1, 6)}
    # Tier V splits 4 (Blobfish) and 5 (Lion Crab): six single rows.
    assert nonzero(tog.odds("tier_v")) == {str(face): Fraction(1, 6) for face in range(1, 7)}
    # "Next chart or mythical monster" (D-TOG-23: the GM's choice is the `mythical` flag).
    for name, following in [("tier_i", "tier_ii"), ("tier_ii", "tier_iii"), ("tier_iii", "tier_iv"),
                            ("tier_iv", "tier_v")]:
        onward = roll(tog, name, (6, 2))
        assert [link.name for link in onward.chain] == [following]
        assert onward.chain[0].outcome.text == TIERS[following][1]
        mythical = roll(tog, name, (6, 2), mythical=True)
        assert [link.name for link in mythical.chain] == ["mythical_monsters"]
        assert mythical.chain[0].outcome.text == MYTHICAL[1]
    # Tier V row 1 "Sickle Shark or mythical monster" (lines 238 + 240 joined) names the mythical table.
    assert roll(tog, "tier_v", (1,)).values["or_roll"] == "mythical_monsters"
    assert roll(tog, "tier_v", (6,)).chain == ()


def test_tog_29_mythical_monsters(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "mythical_monsters", "TOG-29")
    for face, text in enumerate(MYTHICAL, start=1):
        result = roll(tog, "mythical_monsters", (face,))
        assert (result.outcome.text, result.chain) == (text, ())
    assert nonzero(tog.odds("mythical_monsters")) == {str(face): Fraction(1, 6) for face in range(1, 7)}
    # D-TOG-10: "Sea Raiders" as a mythical monster is kept as the author's intent.
    assert "D-TOG-10" in errata(tog_loaded)


# ---------------------------------------------------------------- Seafaring reference


def test_tog_30_limiting_traits(tog: Module, tog_loaded: Any) -> None:
    for name in ("limiting_traits", "max_cohorts", "can_fight_back", "phases_at_sea", "cargo_capacity"):
        cites(tog_loaded, name, "TOG-30")
    expected = {  # lines 262-266
        "size": "» Size: carry cargo equal to your size x 2",
        "crew": "» Crew: number of max cohorts",
        "firepower": "» **Firepower**: can only choose the \"fight back\" option during a sea downtime raid if your "
        "firepower equals or exceeds your opponent's Wealth level",
        "durability": "» Durability: armor for ship can use and max fallout",
        "speed": "» Speed: once you leave port, can engage in speed + 1 phases before needing port downtime",
    }
    for trait, text in expected.items():
        assert resolve(tog, "limiting_traits", trait=trait).outcome.text == text
    for value in range(6):
        assert resolve(tog, "cargo_capacity", size=value).total == value * 2
        assert resolve(tog, "max_cohorts", crew=value).total == value
        assert resolve(tog, "phases_at_sea", speed=value).total == value + 1
        for wealth in range(6):
            allowed = value >= wealth  # "equals or exceeds"
            assert tog.odds("can_fight_back", firepower=value, opponent_wealth=wealth) == {str(allowed): Fraction(1)}


def test_tog_31_compare_wealth(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "compare_wealth", "TOG-31")

    def document(own: int, enemy: int) -> int:  # lines 272-274
        difference = own - enemy
        if 1 <= difference <= 2:
            return 1
        if difference >= 3:
            return 2
        if -2 <= difference <= -1:
            return -1
        if difference <= -3:
            return -2
        return 0

    for own, enemy in itertools.product(range(6), repeat=2):
        assert resolve(tog, "compare_wealth", own_wealth=own, enemy_wealth=enemy).total == document(own, enemy)
    assert resolve(tog, "compare_wealth", own_wealth=5, enemy_wealth=0).total == 2
    assert resolve(tog, "compare_wealth", own_wealth=1, enemy_wealth=3).total == -1


def test_tog_32_combat_jobs(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "combat_jobs", "TOG-32")
    jobs = texts(tog, "combat_jobs")
    assert [e.id for e in entries(tog_loaded, "combat_jobs")] == ["helm", "gundeck", "ships_crew", "crows_nest"]
    assert details(tog_loaded, "combat_jobs")["count"] == 4
    assert jobs[0] == ("♦ **Helm:** In charge of driving the ship and navigation. *Example actions:* escape, evasive "
                       "maneuver, pursue.")
    assert "Fire all weapons (+1 this round, -1 next round); target (gain +2 next round)" in jobs[1]
    assert "boost ally (+1 to their roll)" in jobs[2] and "repair (reduce a fallout clock)" in jobs[2]
    assert "the teammate gains +1 on their roll without exposing you to their complication" in jobs[3]


def test_tog_33_ship_encounter(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "ship_encounter", "TOG-33")
    assert texts(tog, "ship_encounter") == [  # lines 270, 276, 283, 287
        "Compare wealth:", "Choose combat jobs", "Play in rounds:", "Face sea-based consequences",
    ]
    steps = entries(tog_loaded, "ship_encounter")
    assert [entry_data(s).get("see") for s in steps] == ["compare_wealth", "combat_jobs", None, "sea_consequences"]
    assert entry_data(steps[2])["text"] == (  # line 285
        "Take 1 action per round. You can take an action based on your combat job, give your action to another PC, "
        "or respond to a crisis."
    )


def test_tog_34_sea_consequences(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "sea_consequences", "TOG-34")
    bands = definition(tog_loaded, "sea_consequences")
    assert bands.kind == "bands"
    # Lines 289-291: only 7-9 and 6 or less; nothing happens at sea on a 10+.
    assert [(e.id, e.text) for e in tog.DOCUMENTS["sea_consequences"].entries] == [
        ("7-9", "the GM chooses a normal complication or a sea consequence."),
        ("6 or less", "the GM must choose a sea consequence."),
    ]
    assert [entry_data(e)["sea_consequence"] for e in bands.entries] == ["GM's choice", True]
    assert "the players pick **fallout** or **crisis**" in bands.text
    assert "6 ot less" in bands.text  # D-TOG-26: kept as printed


def test_tog_35_fallout_clock(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "fallout_clock", "TOG-35")
    fallout = definition(tog_loaded, "fallout_clock")
    assert fallout.kind == "clock"
    assert fallout.start == 2  # "Start related progress clock with 2 segments filled" (line 295)
    assert details(tog_loaded, "fallout_clock")["per_round"] == 1  # "Each round fill 1 segment"
    assert fallout.on_full == ("If a clock fills, damage is permanent until repaired, actions take negative modifier, "
                               "and a crisis is triggered.")
    assert fallout.size is None and "fallout_clock" in resolved_items(tog_loaded, "D-TOG-15", "MISSING")
    clock = tog.FalloutClock(size=5)
    assert clock.marked == 2
    assert clock.tick() == [] and clock.tick() == []
    happened = clock.tick()
    assert len(happened) == 1 and "a crisis is triggered" in happened[0]


def test_tog_36_crisis_table(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "crisis", "TOG-36")
    assert definition(tog_loaded, "crisis").text == "Roll 1d6:"
    expected = {  # lines 301-305
        1: "**Cargo loss.** Supplies are falling out: could be coin lost, damaged cargo, decreased player load, lose "
        "access to crew upgrades. PCs can resist to stop the loss and/or recover the items.",
        3: "**Crew loss.** Crew are placed in danger: cohorts are damaged, NPCs are hurt, PCs take harm. PCs can "
        "protect NPCs and resist harm to themselves.",
        4: "**Rudder loss.** The helm cannot take actions until the combat ends or the ship's crew repairs the damage.",
        5: "**Gun deck fire.** The weapons area is on fire, threatening the entire ship. Two PCs must give their next "
        "actions to the ship's crew for damage control.",
        6: "**Hull damage.** The ship takes on water. Start a \"sinking\" progress clock with sections equal to the "
        "ship's size. Each round 1 PC must give up their action to water control or the sinking progress clock will "
        "advance.",
    }
    expected[2] = expected[1]  # "1-2: Cargo loss."
    for face, text in expected.items():
        assert roll(tog, "crisis", (face,)).outcome.text == text, face
    assert roll(tog, "crisis", (6,)).values["starts"] == "sinking_clock"
    assert nonzero(tog.odds("crisis")) == {"cargo_loss": Fraction(2, 6), "crew_loss": Fraction(1, 6),
                                           "rudder_loss": Fraction(1, 6), "gun_deck_fire": Fraction(1, 6),
                                           "hull_damage": Fraction(1, 6)}


def test_tog_37_sinking_clock(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "sinking_clock", "TOG-37")
    sinking = definition(tog_loaded, "sinking_clock")
    assert sinking.text == (  # line 305
        "Start a \"sinking\" progress clock with sections equal to the ship's size. Each round 1 PC must give up their "
        "action to water control or the sinking progress clock will advance."
    )
    # "sections equal to the ship's size": sized when created, from the ship.
    assert sinking.size is None and details(tog_loaded, "sinking_clock")["size_from"] == "ship_size"
    for size in (1, 3, 5):
        clock = tog.SinkingClock(size=size)
        assert [clock.tick() for _ in range(size - 1)] == [[]] * (size - 1)
        assert len(clock.tick()) == 1 and clock.full
    # D-TOG-25: what happens when it fills is not stated (see test_unknown_on_full_is_not_printed_as_text).
    assert "sinking_clock" in resolved_items(tog_loaded, "D-TOG-25", "MISSING")


# ---------------------------------------------------------------- Downtime


def test_tog_38_sea_raid(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "sea_raid", "TOG-38")
    text = definition(tog_loaded, "sea_raid").text
    assert text.startswith("Same as port downtime except: do not pay tithes; cannot seek your anchor.")  # line 309
    # Line 311: high is bad. "On a 10+, you are raided. On a 7-9 mark the box "stormfront." On a 6 or less, you
    # escape the attention of potential raiders."
    for faces, outcome, text in [((3, 2), "escape", "you escape the attention of potential raiders."),
                                 ((3, 3), "stormfront", "mark the box \"stormfront.\""),
                                 ((4, 4), "stormfront", "mark the box \"stormfront.\""),
                                 ((5, 4), "raided", "you are raided.")]:
        result = roll(tog, "sea_raid", faces, wealth=1)
        assert (result.outcome.id, result.outcome.text) == (outcome, text), faces
    assert roll(tog, "sea_raid", (3, 3), wealth=1).values["stormfront"] == 1
    assert roll(tog, "sea_raid", (5, 4), wealth=1).values["raid"] is True
    # D-TOG-11: the cargo adjustment (0..3) is added to the Wealth modifier.
    assert roll(tog, "sea_raid", (2, 2), wealth=0, cargo_adjustment=3).total == 7
    for wealth, adjustment in itertools.product(range(6), range(4)):
        expected = count(2, lambda f, d=wealth + adjustment: fitd_band(f, d, ("escape", "stormfront", "raided")))
        assert nonzero(tog.odds("sea_raid", wealth=wealth, cargo_adjustment=adjustment)) == expected


def test_tog_39_stormfront_points(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "stormfront", "TOG-39")
    cites(tog_loaded, "clear_stormfronts", "TOG-39")
    assert definition(tog_loaded, "stormfront").text == "Next port downtime must spend all Stormfront points:"
    assert details(tog_loaded, "stormfront")["marked_by"] == "sea_raid"
    assert definition(tog_loaded, "stormfront").size is None  # D-TOG-15
    assert [(entry_data(e)["points"], e.text) for e in entries(tog_loaded, "clear_stormfronts")] == [  # lines 317-318
        (1, "» 1 point: Roll an additional raid or re-roll raid and keep highest."),
        (2, "» 2 points: must choose the \"fight them off\" option for your raid"),
    ]
    track = tog.Stormfront(size=2)
    assert track.mark() == [] and len(track.mark()) == 1


def test_tog_40_tithes(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "tithe", "TOG-40")
    cites(tog_loaded, "tithe_clock", "TOG-40")
    # Line 322: "Pay Wealth + 1. If at war, it costs Wealth + 3".
    for wealth in range(6):
        assert resolve(tog, "tithe", wealth=wealth).total == wealth + 1
        assert resolve(tog, "tithe", wealth=wealth, at_war=True).total == wealth + 3
    clock = definition(tog_loaded, "tithe_clock")
    assert clock.on_full == "Each time the clock fills, lose 1 status with the related faction."  # line 324
    assert clock.reset_on_full is True and clock.size is None
    ticking = tog.TitheClock(size=3)
    assert ticking.tick() == [] and ticking.tick() == []
    assert len(ticking.tick()) == 1 and ticking.marked == 0  # "Each time": it starts again
    # D-TOG-7: "1. TITHES" is printed at line 67; the erratum makes it the first downtime step.
    first = entries(tog_loaded, "downtime_sequence")[0]
    assert (first.text, entry_data(first)["see"]) == ("TITHES", "tithe")


def test_tog_41_notoriety(tog: Module, tog_loaded: Any) -> None:
    for name in ("notoriety_gain", "notoriety_increase", "notoriety"):
        cites(tog_loaded, name, "TOG-41")
    expected = {  # lines 330-333
        "smooth": (0, "+0", "Smooth & quiet; low exposure."),
        "contained": (2, "+2", "Contained; standard exposure."),
        "loud": (4, "+4", "Loud & chaotic; high exposure."),
        "wild": (6, "+6", "Wild; devastating exposure."),
    }
    for exposure, (gain, label, text) in expected.items():
        result = resolve(tog, "notoriety_gain", exposure=exposure)
        assert (result.values["notoriety"], result.outcome.label, result.outcome.text) == (gain, label, text)
        # Line 335: "+1: high profile or well-connected target; +1: if at War or on hostile turf; +2: if killing".
        for high_profile, at_war, killing in itertools.product((False, True), repeat=3):
            total = resolve(tog, "notoriety_increase", exposure=exposure, high_profile=high_profile, at_war=at_war,
                            killing=killing).total
            assert total == gain + high_profile + at_war + 2 * killing
    tracker = definition(tog_loaded, "notoriety")
    assert tracker.on_full == ("When your tracker is filled, you are **AT WAR** with every citizenry faction. Effect "
                               "remains until you reduce notoriety.")  # line 337
    assert tracker.size is None  # D-TOG-15


def test_tog_42_bribe_and_fight_off(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "bribe", "TOG-42")
    cites(tog_loaded, "fight_off_harm", "TOG-42")
    # Line 341 "Pay your Wealth + associated Notoriety bribe"; line 355 bribes 3 / 5 / 8 coin for notoriety
    # 0-3 / 4-6 / 7+. D-TOG-12: read as Wealth + the column's bribe.
    for wealth, notoriety in itertools.product(range(6), range(13)):
        column = 3 if notoriety <= 3 else 5 if notoriety <= 6 else 8
        assert resolve(tog, "bribe", wealth=wealth, notoriety=notoriety).total == wealth + column
    # Line 343: "a total harm amount equal to the Wealth of the aggressor".
    for wealth in range(6):
        assert resolve(tog, "fight_off_harm", aggressor_wealth=wealth).total == wealth


def raid_rows(n_dice: int) -> dict[object, Fraction]:
    """Rows 1-3 / 4/5 / 6 of the raid table for a pool read by its highest die (2d6 lowest for 0 dice)."""
    if n_dice == 0:
        return count(2, lambda f: "1-3" if min(f) <= 3 else "6" if min(f) == 6 else "4/5")
    low = Fraction(3, 6) ** n_dice  # every die 1-3
    six = 1 - Fraction(5, 6) ** n_dice  # at least one 6
    return {"1-3": low, "4/5": 1 - low - six, "6": six}


def test_tog_43_raid_type_roll(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "raid_type", "TOG-43")
    cites(tog_loaded, "raid_wealth_adjustment", "TOG-43")
    # Lines 347-351: "If 2+ of Cargo Type | Add to Raid Wealth".
    for cargo, add in {"gems": 3, "luxury": 2, "arms": 1, "goods": 0}.items():
        assert resolve(tog, "raid_wealth_adjustment", cargo=cargo).values["value"] == add
    # Line 345: "roll dice equal to your Wealth; if you have 0 Wealth, roll two dice and keep the lowest".
    # D-TOG-11: the pool is read by its highest die, and the cargo adjustment adds dice.
    result = roll(tog, "raid_type", (1, 6, 2), wealth=3)
    assert (result.kept, result.outcome.id) == ((6,), "6")
    result = roll(tog, "raid_type", (2, 3), wealth=2)
    assert result.outcome.id == "1-3"
    result = roll(tog, "raid_type", (6, 2), wealth=0)
    assert (result.dice, result.kept, result.outcome.text) == ((6, 2), (2,), "Memories")
    result = roll(tog, "raid_type", (5, 4), wealth=0)
    assert (result.total, result.outcome.text) == (4, "Taxes")
    assert len(roll(tog, "raid_type", (1, 1, 1), wealth=2, cargo_adjustment=1).dice) == 3
    assert len(roll(tog, "raid_type", (1, 1), wealth=0, cargo_adjustment=2).dice) == 2
    assert roll(tog, "raid_type", (1, 5), wealth=0, cargo_adjustment=2).outcome.id == "4/5"  # a pool of 2: highest
    for wealth, adjustment in itertools.product(range(6), range(4)):
        expected = raid_rows(wealth + adjustment)
        assert tog.odds("raid_type", wealth=wealth, cargo_adjustment=adjustment) == expected, (wealth, adjustment)


def test_tog_44_raid_type_table(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "raid_type", "TOG-44")
    columns = [("Notoriety 0 - 3 (bribe: 3 coin)", 3, (0, 3)),  # line 355
               ("Notoriety 4 - 6 (bribe: 5 coin)", 5, (4, 6)),
               ("Notoriety 7+ (bribe: 8 coin)", 8, (7, 12))]
    # D-TOG-28: rows "1-3", "4/5" and "6" in mixed notation.
    faces_of = {"1-3": (1, 2, 3), "4/5": (4, 5), "6": (6,)}
    for row, cells in RAID_TABLE.items():
        for (label, bribe, notorieties), cell in zip(columns, cells, strict=True):
            for notoriety in notorieties:
                for face in faces_of[row]:
                    result = roll(tog, "raid_type", (face,), wealth=1, notoriety=notoriety)
                    assert (result.outcome.key, result.outcome.text) == (row, cell), (face, notoriety)
                    assert result.outcome.column == label
                    assert result.values["bribe"] == bribe
    # D-TOG-9: the raid named "Examples" keeps its printed name.
    assert roll(tog, "raid_type", (4,), wealth=1, notoriety=7).outcome.text == "Examples"


def test_tog_45_raid_descriptions(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "raid_descriptions", "TOG-45")
    described = {text.split(":", 1)[0]: text for text in texts(tog, "raid_descriptions")}
    assert list(described) == ["Commandeer", "Examples", "Hostile Takeover", "Invasion", "Dangerous Waters",
                               "Looters", "Memories", "Stowaway", "Taxes"]  # lines 353-376
    assert details(tog_loaded, "raid_descriptions")["count"] == 9
    assert set(described) == {cell for cells in RAID_TABLE.values() for cell in cells}
    # D-TOG-8: Commandeer is split by the table (lines 353 and 360) and rejoined with no words added.
    assert described["Commandeer"] == (
        "Commandeer: an Institution faction claims your cargo for official business. Give away 1 cargo, fight back, "
        "or agree to perform a raid for them on a faction with a higher Wealth than your crew."
    )
    assert described["Hostile Takeover"].endswith("Lose 1 Wealth (and an associated Expansion) and drop to a weak "
                                                  "hold, or go to war.")
    data = {e.id: entry_data(e) for e in entries(tog_loaded, "raid_descriptions")}
    assert data["memories"]["stress"] == "d6"  # "Roll 1d6; you take that much stress."
    assert data["stowaway"]["notoriety"] == 2  # "or increase Notoriety by 2"
    assert data["taxes"]["investments_lost"] == "1 + your Wealth"
    assert "Roll 1d6; you take that much stress." in described["Memories"]


def test_tog_46_downtime_sequence(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "downtime_sequence", "TOG-46")
    cites(tog_loaded, "downtime_activities", "TOG-46")
    # D-TOG-7: step 1 (TITHES) is printed at line 67; steps 2-4 at lines 326, 339, 378.
    assert texts(tog, "downtime_sequence") == ["TITHES", "NOTORIETY", "RAIDS",
                                               "DOWNTIME ACTIVITES (2 ACTIONS PER DOWNTIME)"]
    assert entry_data(entries(tog_loaded, "downtime_sequence")[3])["actions"] == 2
    assert texts(tog, "downtime_activities") == ["Acquire Asset", "LONG-TERM PROJECT", "RECOVER", "REDUCE NOTORIETY",
                                                 "TRAIN", "SEEK YOUR ANCHOR"]  # lines 380-390
    data = details(tog_loaded, "downtime_activities")
    assert (data["actions"], data["count"]) == (2, 6)


def test_tog_47_acquire_asset(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "acquire_asset", "TOG-47")
    # Line 380: "Roll 2d6 + Wealth modifier ...: 6 or less, you fail; 7-9 you succeed with a complication; 10+ you
    # succeed." No natural-12 band.
    middle = "you succeed with a complication"
    for faces, wealth, text in [((3, 3), 0, "you fail"), ((3, 2), 1, "you fail"), ((4, 3), 0, middle),
                                ((4, 4), 1, middle), ((5, 5), 0, "you succeed"), ((1, 1), 4, "you fail"),
                                ((1, 1), 5, middle), ((6, 6), 0, "you succeed")]:
        assert roll(tog, "acquire_asset", faces, wealth=wealth).outcome.text == text, (faces, wealth)
    assert roll(tog, "acquire_asset", (4, 3), wealth=0).values["complication"] is True
    for wealth in range(6):
        expected = count(2, lambda f, w=wealth: fitd_band(f, w, ("fail", "complication", "succeed")))
        assert nonzero(tog.odds("acquire_asset", wealth=wealth)) == expected


def test_tog_48_long_term_project(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "long_term_project", "TOG-48")
    cites(tog_loaded, "project_clock", "TOG-48")
    # Line 382: "6 or less: no segments; 7-9: 1 segment; 10+: 2 segments; Natural 12: 4 segments".
    for faces, dots, segments in [((3, 3), 0, 0), ((2, 2), 2, 0), ((4, 3), 0, 1), ((5, 4), 0, 1), ((5, 5), 0, 2),
                                  ((5, 5), 2, 2), ((6, 6), 0, 4), ((6, 6), 3, 4)]:
        assert roll(tog, "long_term_project", faces, dots=dots).values["segments"] == segments, (faces, dots)
    names = ("no_segments", "one_segment", "two_segments")
    for dots in range(5):
        expected = count(2, lambda f, d=dots: fitd_band(f, d, names, "four_segments"))
        assert nonzero(tog.odds("long_term_project", dots=dots)) == expected
    assert details(tog_loaded, "project_clock")["filled_by"] == "long_term_project"
    assert definition(tog_loaded, "project_clock").size is None  # set per project


def test_tog_49_recover(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "recover", "TOG-49")
    assert definition(tog_loaded, "recover").text == (  # line 384; D-TOG-13 "at 2nd level" printed as published
        "RECOVER: All harm decreases by 1 level naturally at the end of downtime. If you take the recover action, an "
        "attribute of your choice recovers at 2nd level. You must describe how you get access to a professional to "
        "treat your harm."
    )
    assert "D-TOG-13" in errata(tog_loaded)


def test_tog_50_reduce_notoriety(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "reduce_notoriety", "TOG-50")
    # Line 386: "6 or less: none; 7-9: 1 level; 10+: 2 levels; Natural 12: 4 levels".
    expected_text = {0: "none", 1: "1 level", 2: "2 levels", 4: "4 levels"}
    for faces, dots, levels in [((3, 3), 0, 0), ((4, 3), 0, 1), ((5, 4), 0, 1), ((5, 5), 0, 2), ((6, 6), 0, 4),
                                ((6, 5), 4, 2), ((1, 1), 4, 0)]:
        result = roll(tog, "reduce_notoriety", faces, dots=dots)
        assert (result.values["levels"], result.outcome.text) == (levels, expected_text[levels]), (faces, dots)
    names = ("none", "one_level", "two_levels")
    for dots in range(5):
        expected = count(2, lambda f, d=dots: fitd_band(f, d, names, "four_levels"))
        assert nonzero(tog.odds("reduce_notoriety", dots=dots)) == expected


def test_tog_51_train(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "xp", "TOG-51")
    xp = definition(tog_loaded, "xp")
    assert xp.text == "TRAIN: Mark 1 xp in playbook or attribute. Can only train each track 1 time per downtime."
    assert details(tog_loaded, "xp")["per"] == "playbook or attribute"
    assert xp.size is None and "xp" in resolved_items(tog_loaded, "D-TOG-15", "MISSING")
    track = tog.Xp(size=6)
    assert track.mark(1) == [] and track.marked == 1  # "Mark 1 xp"


def test_tog_52_seek_your_anchor(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "seek_your_anchor", "TOG-52")
    # Line 390: "Roll number of d6 equal to your lowest attribute and clear stress equal to the highest die. If you
    # have 0, roll 2d6 and keep the lowest. If you clear more stress than marked, you become homesick."
    result = roll(tog, "seek_your_anchor", (1, 4, 2), lowest_attribute=3, stress_marked=4)
    assert (result.values["stress_cleared"], result.values.get("homesick")) == (4, None)
    result = roll(tog, "seek_your_anchor", (1, 4, 2), lowest_attribute=3, stress_marked=3)
    assert (result.values["stress_cleared"], result.values.get("homesick")) == (4, True)
    result = roll(tog, "seek_your_anchor", (5, 2), lowest_attribute=0, stress_marked=2)
    assert (result.dice, result.values["stress_cleared"], result.outcome.id) == ((5, 2), 2, "cleared")
    result = roll(tog, "seek_your_anchor", (6, 3), lowest_attribute=0, stress_marked=2)
    assert (result.values["stress_cleared"], result.outcome.id) == (3, "homesick")

    def read(attribute: int) -> Callable[[tuple[int, ...]], int]:
        return (lambda f: min(f)) if attribute == 0 else (lambda f: max(f))

    for attribute, marked in itertools.product(range(5), range(8)):
        n_dice = attribute if attribute else 2
        expected = count(n_dice, lambda f, a=attribute, s=marked: "homesick" if read(a)(f) > s else "cleared")
        assert nonzero(tog.odds("seek_your_anchor", lowest_attribute=attribute, stress_marked=marked)) == expected


def test_tog_53_homesick_options(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "homesick", "TOG-53")
    options = entries(tog_loaded, "homesick")
    assert [e.id for e in options] == ["boastful", "combative", "guilt_ridden", "homebound", "restless"]
    assert details(tog_loaded, "homesick")["choose"] == 1  # "Choose 1:" (line 390)
    assert details(tog_loaded, "homesick")["count"] == 5
    assert entry_data(options[0])["notoriety"] == 2  # "Increase crew notoriety by +2."
    assert entry_data(options[2])["coin"] == "crew Wealth +2"  # "Pay coin equal to crew Wealth +2."
    listed = texts(tog, "homesick")
    assert listed[1] == ("» Combative: Take your negative feelings out on another group. Roll an additional raid or "
                         "take -1 status with a local faction.")
    assert listed[4].endswith("If you have no harm, gain a level 1 harm \"fatigue\" in the attribute of your choice.")


def test_tog_54_chain_upkeep(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "chain_upkeep", "TOG-54")
    assert definition(tog_loaded, "chain_upkeep").text == (  # line 398
        "If you have a **CHAIN**, you must **Seek Your Anchor**, pay 1 coin, or gain level 1 harm \"guilty.\""
    )


# ---------------------------------------------------------------- Trade phase + investment


def test_tog_55_trade_actions(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "trade_actions", "TOG-55")
    assert definition(tog_loaded, "trade_actions").text == (  # line 402
        "Crew gets Trade actions = Wealth +1. Choose the SELLER, BARTER, GOSSIP, or MANIPULATE MARKETS actions."
    )
    for wealth in range(6):
        assert resolve(tog, "trade_actions", wealth=wealth).total == wealth + 1


def test_tog_56_seller_roll(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "seller_roll", "TOG-56")
    # Line 406: scarce 3d6 keep the top 2; overflowing 3d6 keep the lower 2; otherwise 2d6; no Wealth added.
    # Lines 408-412; D-TOG-16: "decrease ... by -2" means a profit 2 lower.
    texts_by_profit = {-2: "decrease your total profit by -2", -1: "decrease your total profit by -1",
                       0: "standard profit"}
    for market, faces, total, profit in [("normal", (3, 3), 6, -2), ("normal", (4, 3), 7, -1),
                                         ("normal", (5, 5), 10, 0), ("scarce", (1, 5, 5), 10, 0),
                                         ("scarce", (1, 3, 3), 6, -2),
                                         ("overflowing", (6, 5, 1), 6, -2), ("overflowing", (6, 6, 6), 12, 0),
                                         ("overflowing", (6, 4, 3), 7, -1)]:
        result = roll(tog, "seller_roll", faces, market=market)
        assert (result.total, result.values["profit"]) == (total, profit), (market, faces)
        assert result.outcome.text == texts_by_profit[profit]
    names = ("minus_two", "minus_one", "standard")
    assert nonzero(tog.odds("seller_roll", market="normal")) == count(2, lambda f: fitd_band(f, 0, names))
    assert nonzero(tog.odds("seller_roll", market="scarce")) == count(3, lambda f: fitd_band(top2(f), 0, names))
    assert nonzero(tog.odds("seller_roll", market="overflowing")) == count(3, lambda f: fitd_band(low2(f), 0, names))
    assert tog.INPUTS["seller_roll"][0][4] == ("scarce", "normal", "overflowing")


def test_tog_57_sale_prices(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "sale_price", "TOG-57")
    # D-TOG-17: ragged rows; no price beyond a type's limit (empty cells).
    for cargo, prices in SALE_PRICES.items():
        for sold in range(1, 6):
            result = resolve(tog, "sale_price", cargo=cargo, sold=sold)
            assert result.outcome.column == f"{sold} sold"
            if sold <= len(prices):
                assert result.outcome.text is not None and int(result.outcome.text) == prices[sold - 1]
            else:
                assert result.outcome.text is None, (cargo, sold)
    exported = next(d for d in export_data(tog_loaded.checked)["definitions"] if d["name"] == "sale_price")
    cells = {band["id"]: band["cells"] for band in exported["bands"]}
    assert cells == {cargo: prices + [None] * (5 - len(prices)) for cargo, prices in SALE_PRICES.items()}
    # "Selling 4 Armaments and 5 Crafting Elements both earn 30" (as printed).
    assert SALE_PRICES["arms"][3] == SALE_PRICES["goods"][4] == 30


def test_tog_58_barter(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "barter_wealth", "TOG-58")
    cites(tog_loaded, "barter_value", "TOG-58")
    levels = {"gems": 5, "luxury": 4, "arms": 3, "goods": 2}  # lines 427-430
    for cargo, level in levels.items():
        assert resolve(tog, "barter_wealth", cargo=cargo).values["value"] == level
        # Line 424: "Cargo that is scarce takes +1 Wealth; cargo that is overflowing takes -1 Wealth."
        assert resolve(tog, "barter_value", level=level, market="scarce").total == level + 1
        assert resolve(tog, "barter_value", level=level, market="normal").total == level
        assert resolve(tog, "barter_value", level=level, market="overflowing").total == level - 1


def test_tog_59_gossip(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "gossip", "TOG-59")
    cites(tog_loaded, "gossip_options", "TOG-59")
    # Lines 434-438: "Roll 2d6 + Wealth. 6 or less: ...1 local faction they choose; 7-9: choose 2; on a 10+ choose 3".
    low = roll(tog, "gossip", (3, 2), wealth=1)
    assert low.outcome.text == "the GM will tell you the current stock of 1 local faction they choose"
    assert "choose" not in low.values
    assert roll(tog, "gossip", (3, 3), wealth=1).values["choose"] == 2
    assert roll(tog, "gossip", (4, 4), wealth=1).values["choose"] == 2
    assert roll(tog, "gossip", (5, 4), wealth=1).values["choose"] == 3
    assert roll(tog, "gossip", (5, 4), wealth=1).values["options"] == "gossip_options"
    assert texts(tog, "gossip_options") == [  # lines 440-443
        "» The GM will tell you the current stock of a faction of your choice;",
        "» The GM will tell you the current stock of 2 factions of their choice;",
        "» The GM will not change a faction's current stock during the next dynamic market turn; the players choose "
        "the faction",
        "» Take +2 on an engagement roll against a faction of your choice; hold this advantage until you use it",
    ]
    for wealth in range(6):
        expected = count(2, lambda f, w=wealth: fitd_band(f, w, ("one_local", "choose_two", "choose_three")))
        assert nonzero(tog.odds("gossip", wealth=wealth)) == expected


def test_tog_60_manipulate_markets(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "manipulate_markets", "TOG-60")
    assert "Normally the markets begin to shift every 2 player phases." in definition(
        tog_loaded, "manipulate_markets").text  # line 447
    low = roll(tog, "manipulate_markets", (3, 2), wealth=1)
    assert (low.outcome.text, low.values["choose"], low.values["where"]) == ("choose 1:", 1, "the current port")
    middle = roll(tog, "manipulate_markets", (4, 4), wealth=1)
    assert middle.outcome.text == "same as the above result, but you can choose any port within the same nation"
    high = roll(tog, "manipulate_markets", (5, 4), wealth=1)
    assert high.outcome.text == "same as the above result, except you can choose either:"
    assert high.values["where_options"] == "market_port_options"
    assert texts(tog, "market_options") == [  # lines 451-452
        "» The current port's scarce cargo type will remain the same during the next dynamic trade turn",
        "» The current port's overflowing cargo type will remain the same during the next dynamic trade turn",
    ]
    assert texts(tog, "market_port_options") == ["» any port regardless of nation",  # lines 458-459
                                                 "» choose two ports within the same nation"]
    for wealth in range(6):
        expected = count(2, lambda f, w=wealth: fitd_band(f, w, ("choose_one", "any_port_in_nation", "wider")))
        assert nonzero(tog.odds("manipulate_markets", wealth=wealth)) == expected


def test_tog_61_invest_in_crew(tog: Module, tog_loaded: Any) -> None:
    cites(tog_loaded, "investment", "TOG-61")
    cites(tog_loaded, "wealth_expansions", "TOG-61")
    investment = definition(tog_loaded, "investment")
    assert details(tog_loaded, "investment")["cost"] == 2  # "Spend 2 coin to fill in an Investment box."
    assert investment.on_full == ("When your investment track fills, increase your hold from weak to strong. If it is "
                                  "already strong, increase your Wealth by 1.")  # line 463
    assert investment.size is None and "investment" in resolved_items(tog_loaded, "D-TOG-15", "MISSING")
    assert texts(tog, "wealth_expansions") == ["fleet", "bribes", "fame"]  # line 465
    track = tog.Investment(size=4)
    assert track.mark(3) == [] and "increase your Wealth by 1" in track.mark(1)[0]


def test_tog_62_phase_structure(tog: Module, tog_loaded: Any) -> None:
    for name in ("score_phase", "odyssey_phase", "downtime_sequence", "phases_at_sea"):
        cites(tog_loaded, name, "TOG-62")
    # The phases in the document's order, with their first lines (5, 106, 174, 258, 307, 400).
    sections = tog_loaded.checked.sections
    starts = ["primary actions & rolls", "score phase", "odyssey phase", "seafaring reference", "downtime",
              "trade phase + investment"]
    assert [s.title.lower()[: len(start)] for s, start in zip(sections, starts, strict=True)] == starts
    assert [s.citation.lines[0][0] for s in sections] == [5, 106, 174, 258, 307, 400]
    assert texts(tog, "score_phase") == ["CHOOSE A PLAN & FILL IN THE DETAIL", "PICK ITEM LOADOUTS",
                                         "MAKE ENGAGEMENT ROLL"]  # lines 108, 117, 125
    assert [entry_data(e)["see"] for e in entries(tog_loaded, "score_phase")] == ["score_plans", "loadout",
                                                                                 "score_engagement"]
    assert texts(tog, "odyssey_phase") == ["PLAN", "ENGAGEMENT ROLL", "Odyssey Challenge"]  # lines 178, 189, 215
    assert texts(tog, "downtime_sequence")[1:] == ["NOTORIETY", "RAIDS", "DOWNTIME ACTIVITES (2 ACTIONS PER DOWNTIME)"]
    # Line 266: "speed + 1 phases before needing port downtime".
    assert [resolve(tog, "phases_at_sea", speed=s).total for s in range(6)] == [1, 2, 3, 4, 5, 6]


# ---------------------------------------------------------------- coverage and every roll


def test_every_item_is_cited_and_every_defect_has_an_erratum(tog_loaded: Any) -> None:
    cited = {ident for d in tog_loaded.checked.definitions if d.citation for ident in d.citation.ids}
    missing = [f"TOG-{n:02d}" for n in range(1, 63) if f"TOG-{n:02d}" not in cited]
    assert missing == []
    assert not {i for i in cited if i.startswith("TOG-") and not re.fullmatch(r"TOG-(0[1-9]|[1-5]\d|6[0-2])", i)}
    ids = [e.id for e in tog_loaded.checked.errata]
    # D-TOG-1 .. 28 are the inventory's defects; 29 (coin's start) and 30 (what a game leaves to the table) came
    # with the game state (issue 26).
    assert sorted(ids, key=lambda i: int(i.split("-")[-1])) == [f"D-TOG-{n}" for n in range(1, 31)]
    for erratum in tog_loaded.checked.errata:
        assert erratum.text.strip(), erratum.id


def test_every_roll_and_table_rolls_with_defaults_and_shows_its_chain(tog: Module, tog_loaded: Any) -> None:
    rolled = [r.name for r in tog_loaded.checked.resolvers() if r.kind in ("roll", "table")]
    assert len(rolled) >= 28 and set(rolled) <= set(tog.RESOLVERS)
    for name in set(tog.RESOLVERS) - set(rolled):  # lookups and formulas roll nothing
        assert tog.RESOLVERS[name](rng=random.Random(0)).dice == (), name
    chained_tables = {r.name for r in tog_loaded.checked.resolvers() if any(b.chain is not None for b in r.bands)}
    assert chained_tables == {"zone_1", "zone_2", "zone_3", "tier_i", "tier_ii", "tier_iii", "tier_iv"}
    chains_seen: Counter[str] = Counter()
    for name in rolled:
        for seed in range(21):
            result = tog.RESOLVERS[name](rng=random.Random(seed))
            assert result.name == name
            assert result.outcome is not None, (name, seed, result.trace)
            assert result.dice and isinstance(result.total, int), (name, seed)
            assert result.trace.startswith(definition(tog_loaded, name).label)
            following = result.values.get("next")
            if following is None:
                assert result.chain == (), (name, seed)
                continue
            chains_seen[name] += 1
            assert result.chain and result.chain[0].name == following, (name, seed)
            assert " then " in result.trace
            for link in result.chain:
                assert link.outcome is not None and link.outcome.text in result.trace
            tail = result.chain[-1]
            assert "next" not in tail.values and tail.chain == ()
    # Every chained table also shows its chain when forced onto its "Next" row.
    for name in chained_tables:
        result = roll(tog, name, (6, 1))
        assert len(result.chain) == 1 and result.chain[0].name == result.values["next"]
    assert sum(chains_seen.values()) > 0


# ---------------------------------------------------------------- results carry the document's data


def test_boolean_formula_result_carries_its_value(tog: Module) -> None:
    # TOG-24 (line 176) and TOG-30 (line 264) are yes/no formulas.
    assert tog.odyssey_trigger(sea_hexes=3).values["value"] is True
    assert tog.can_fight_back(firepower=1, opponent_wealth=2).values["value"] is False


def test_unknown_on_full_is_not_printed_as_text(tog: Module, tog_loaded: Any) -> None:
    # TOG-37 / D-TOG-25: the document does not say what happens when the sinking clock fills.
    assert definition(tog_loaded, "sinking_clock").on_full is None
    assert tog.SinkingClock(size=1).tick() == ["Sinking clock is full"]


def test_two_dimensional_lookup_cells_are_numbers(tog: Module) -> None:
    # TOG-57, line 419: Armaments / Knowledge, 4 sold, 30 coin.
    assert tog.cargo_seized(wealth=5).values["value"] == 3  # the 1-D form, for comparison
    assert tog.sale_price(cargo="arms", sold=4).values.get("value") == 30


def test_rule_text_is_in_the_generated_module(tog: Module) -> None:
    # TOG-10, line 78.
    background = tog.DOCUMENTS["background"]
    assert background.text.endswith("as if you rolled a 10+") and background.kind == "rule"
