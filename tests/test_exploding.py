"""Exploding dice (`d6!`, `2d6 explode`) end to end: exact odds against an independent enumeration, the
compiled resolver against its own odds, the sheet and the JSON in words, and the mistakes the checker
refuses. Fixture: tests/fixtures/dice/exploding.rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from compiler.api import load, load_text
from compiler.backends.python import generate
from compiler.backends.render import export_data
from compiler.diagnostics import CompileError
from compiler.semantics.odds import definition_names, odds

from .conftest import compile_module

FIXTURE = Path(__file__).parent / "fixtures" / "dice" / "exploding.rules"


@pytest.fixture(scope="module")
def loaded() -> Any:
    return load(str(FIXTURE))


@pytest.fixture(scope="module")
def game(loaded: Any) -> Any:
    return compile_module(generate(loaded.checked), "exploding_dice")


def one_die(sides: int, up_to: int) -> dict[int, Fraction]:
    """P(an exploding die shows v) for v up to `up_to`, from the closed form v = S*k + r, chance S^-(k+1)."""
    return {v: Fraction(1, sides ** (v // sides + 1)) for v in range(1, up_to + 1) if v % sides}


def enumerate_odds(dice: list[tuple[int, bool]], shift: int, band: Callable[[int], str], up_to: int,
                   beyond: str) -> dict[str, Fraction]:
    """Odds of each band by summing the dice's chances total by total up to `up_to`; whatever chance is
    left (every total above) goes to `beyond`, the band the rules give every total past `up_to`."""
    totals: dict[int, Fraction] = {0: Fraction(1)}
    for sides, explodes in dice:
        faces = one_die(sides, up_to) if explodes else {v: Fraction(1, sides) for v in range(1, sides + 1)}
        following: dict[int, Fraction] = {}
        for total, p in totals.items():
            for face, q in faces.items():
                if total + face <= up_to:
                    following[total + face] = following.get(total + face, Fraction(0)) + p * q
        totals = following
    out: dict[str, Fraction] = {}
    for total, p in totals.items():
        out[band(total + shift)] = out.get(band(total + shift), Fraction(0)) + p
    out[beyond] = out.get(beyond, Fraction(0)) + 1 - sum(totals.values())
    return out


def both(loaded: Any, game: Any, name: str, **inputs: object) -> dict[str, Fraction]:
    """The compiler's odds and the generated module's, which must agree."""
    resolver = next(r for r in loaded.checked.resolvers() if r.name == name)
    found = odds(resolver, inputs | {i.name: i.effective_default for i in resolver.inputs if i.name not in inputs},
                 definition_names(loaded.checked))
    assert game.odds(name, **inputs) == found
    return {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("bonus", range(4))
def test_one_exploding_die_has_the_odds_an_enumeration_gives(loaded: Any, game: Any, bonus: int) -> None:
    def band(total: int) -> str:
        return "big" if total >= 8 else "hit" if total >= 4 else "graze"
    expected = enumerate_odds([(6, True)], bonus, band, 40, "big")
    assert both(loaded, game, "damage", bonus=bonus) == {k: v for k, v in expected.items() if v}
    if bonus == 0:  # by hand: a 6 then anything but a 1 (the second die explodes too)
        assert game.odds("damage")["big"] == Fraction(1, 6) * Fraction(5, 6)


@pytest.mark.parametrize("dv", range(4, 15))
def test_an_exploding_pool_against_an_input(loaded: Any, game: Any, dv: int) -> None:
    expected = enumerate_odds([(6, True), (6, True)], 0, lambda t: "success" if t >= dv else "failure", 60,
                              "success")
    assert both(loaded, game, "pool", dv=dv) == {k: v for k, v in expected.items() if v}


def test_an_exploding_die_beside_a_plain_one(loaded: Any, game: Any) -> None:
    expected = enumerate_odds([(4, True), (8, False)], -1, lambda t: "great" if t >= 12 else "fine", 50, "great")
    assert both(loaded, game, "mixed") == expected


def test_the_resolver_rolls_what_its_odds_say(game: Any) -> None:
    rng = random.Random(5)
    rolls = [game.pool(dv=10, rng=rng) for _ in range(20_000)]
    share = Counter(r.outcome.id for r in rolls)["success"] / len(rolls)
    p = float(game.odds("pool", dv=10)["success"])
    assert abs(share - p) < 4 * (p * (1 - p) / len(rolls)) ** 0.5  # four standard errors
    long = max(rolls, key=lambda r: len(r.dice))
    assert len(long.dice) > 2 and long.total == sum(long.dice) and long.dice.count(6) == len(long.dice) - 2


def test_a_six_is_rolled_again_and_added(game: Any) -> None:
    class Loaded(random.Random):
        faces = iter([6, 6, 2])

        def randint(self, a: int, b: int) -> int:
            return next(self.faces)
    result = game.damage(bonus=1, rng=Loaded())
    assert (result.dice, result.total, result.outcome.id) == ((6, 6, 2), 15, "big")
    assert result.trace.startswith("Damage: rolled d6!: 6, 6, 2 → 14 + 1 = 15")


def test_totals_list_each_total_up_to_the_horizon_then_the_rest_as_one(game: Any) -> None:
    totals = game.totals("damage", bonus=2)
    assert totals == {3: Fraction(1, 6), 4: Fraction(1, 6), 5: Fraction(1, 6), 6: Fraction(1, 6),
                      7: Fraction(1, 6), "9+": Fraction(1, 6)}
    assert sum(totals.values()) == 1


def test_the_sheet_and_the_json_say_it_in_words(loaded: Any) -> None:
    data = export_data(loaded.checked)
    damage = next(d for d in data["definitions"] if d["name"] == "damage")
    assert damage["dice"] == [{"when": None, "roll": "d6! + bonus", "notes": [
        "d6! explodes: a die showing its highest face is rolled again and added, and again"]}]


HEADER = 'ruleset "Bad"\n\ndie rune "Rune" [B-0]\n  sides: 2\n  - a: "A"\n  - b: "B"\n\n'


@pytest.mark.parametrize(("rule", "found"), [
    ("roll: d6! - d6\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "adds its dice up"),
    ("roll: d6!\n  - when count(6) >= 1: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "compares the total"),
    ("roll: d1!\n  - 2+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "explode forever"),
    ("roll: 2 rune!\n  - otherwise: lo \"Lo\"", "only numbered dice explode"),
    ("roll: 3d6! highest\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "one is allowed for now"),
])
def test_what_exploding_dice_cannot_do_yet_is_refused_at_its_place(rule: str, found: str) -> None:
    with pytest.raises(CompileError) as raised:
        load_text(HEADER + f'roll r "R" [B-1]\n  {rule}\n', "bad.rules", "bad")
    messages = [d.message for d in raised.value.report.diagnostics if d.severity == "error"]
    assert any(found in message for message in messages), messages
    assert all(d.span.line >= 9 for d in raised.value.report.diagnostics if d.severity == "error")


def test_the_formatter_writes_an_exploding_die_touching_its_bang() -> None:
    from compiler.syntax.fmt import format_source

    assert format_source(FIXTURE.read_text(encoding="utf-8")) == FIXTURE.read_text(encoding="utf-8")
    text = 'ruleset "T"\n\nroll r "R" [T-1]\n  roll: 2d6 !+1\n  - 5+: hi "Hi"\n  - otherwise: lo "Lo"\n'
    assert "  roll: 2d6! + 1\n" in format_source(text)


def test_a_simulation_shows_a_total_past_the_horizon_as_the_rest(game: Any) -> None:
    sim = game.simulate("damage", 6_000, seed=3, bonus=2)
    assert set(sim.totals) <= {3, 4, 5, 6, 7, "9+"} and "9+" in sim.totals
    assert sim.counts["big"] == sim.totals.count("9+")  # every big hit is past the horizon here


def one_die_from(sides: int, least: int, up_to: int) -> dict[int, Fraction]:
    """P(a die exploding on `least` or more shows v), v up to `up_to`, by following it roll by roll: a face
    below `least` stops it, one at or above goes on with the rest of the total still to make."""
    chances: dict[int, Fraction] = {}
    for value in range(1, up_to + 1):
        stop = Fraction(1, sides) if value < least and value <= sides else Fraction(0)
        goes_on = sum((Fraction(1, sides) * chances[value - face] for face in range(least, sides + 1)
                       if value - face > 0), Fraction(0))
        chances[value] = stop + goes_on
    return chances


@pytest.mark.parametrize(("sides", "least"), [(10, 9), (10, 8), (6, 5), (6, 6), (20, 15), (4, 2)])
def test_dice_exploding_on_a_named_face_or_more_have_the_odds_roll_by_roll(sides: int, least: int) -> None:
    text = (HEADER + f'roll r "R" [T-1]\n  input line: 1..30 = 12\n  roll: 2d{sides}! on {least}+\n'
            '  - when total >= line: over "Over"\n  - otherwise: under "Under"\n')
    loaded = load_text(text, "least.rules", "least")
    module = compile_module(generate(loaded.checked), f"explode_on_{sides}_{least}")
    one = one_die_from(sides, least, 30)
    two: dict[int, Fraction] = {}
    for a, p in one.items():
        for b, q in one.items():
            two[a + b] = two.get(a + b, Fraction(0)) + p * q
    for line in (2, 9, 12, 21, 30):
        under = sum((p for total, p in two.items() if total < line), Fraction(0))
        assert both(loaded, module, "r", line=line) == {k: v for k, v in
                                                        {"over": 1 - under, "under": under}.items() if v}
    rng = random.Random(2)
    for _ in range(300):  # each of the two dice rolls on while it shows `least` or more, and stops below it
        result = module.r(rng=rng)
        assert sum(1 for face in result.dice if face < least) == 2 and result.dice[-1] < least
        assert result.total == sum(result.dice)


@pytest.mark.parametrize(("rule", "found"), [
    ("d6! on 1+", "explode forever"), ("d6! on 7+", "never explodes"), ("d10 explode on 11+", "never explodes")])
def test_exploding_on_a_face_no_die_shows_or_every_die_shows_is_refused(rule: str, found: str) -> None:
    with pytest.raises(CompileError) as raised:
        load_text(HEADER + f'roll r "R" [B-1]\n  roll: {rule}\n  - 5+: hi "Hi"\n  - otherwise: lo "Lo"\n',
                  "bad.rules", "bad")
    assert any(found in d.message for d in raised.value.report.diagnostics), raised.value.report.diagnostics
