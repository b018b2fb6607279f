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

from rulecraft.api import load, load_text
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data
from rulecraft.diagnostics import CompileError
from rulecraft.semantics.odds import definition_names, odds

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
    assert damage["dice"] == [{"when": None, "roll": "d6! + bonus", "terms": [
        {"text": "d6!", "count": 1, "sides": 6, "die": None, "ops": [{"op": "explode", "on": None, "times": None}]}],
        "notes": [
        "d6! explodes: a die showing its highest face is rolled again and added, and again"]}]


HEADER = 'ruleset "Bad"\n\ndie rune "Rune" [B-0]\n  sides: 2\n  - a: "A"\n  - b: "B"\n\n'


@pytest.mark.parametrize(("rule", "found"), [
    ("roll: d6! - d6\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "adds its dice up"),
    ("roll: d6!\n  - when count(6) >= 1: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "compares the total"),
    ("roll: d1!\n  - 2+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "explode forever"),
    ("roll: 2 rune!\n  - otherwise: lo \"Lo\"", "only numbered dice explode"),
    ("roll: 3d6! highest\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "compound the explosions"),
    ("roll: d6!!!\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "explodes twice"),
    ("roll: 2d6 reroll 1 highest\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "compounding then keeping"),
    ("roll: max(d6! + 1, d8!)\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "with no amount"),
    ("roll: d6! at most 0\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "at most 1 to 100 times"),
    ("roll: d6 at most 2\n  - 5+: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "do not explode"),
    ("roll: d6! once\n  - when count(6) >= 1: hi \"Hi\"\n  - otherwise: lo \"Lo\"", "reads its total"),
])
def test_what_exploding_dice_cannot_do_is_refused_at_its_place(rule: str, found: str) -> None:
    with pytest.raises(CompileError) as raised:
        load_text(HEADER + f'roll r "R" [B-1]\n  {rule}\n', "bad.rules", "bad")
    messages = [d.message for d in raised.value.report.diagnostics if d.severity == "error"]
    assert any(found in message for message in messages), messages
    assert all(d.span.line >= 9 for d in raised.value.report.diagnostics if d.severity == "error")


def test_the_formatter_writes_an_exploding_die_touching_its_bang() -> None:
    from rulecraft.syntax.fmt import format_source

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


# ---------------------------------------------------------------- at most N times, compounding, the higher of two


def die_rolls(sides: int, least: int, times: int, depth: int) -> tuple[dict[int, Fraction], Fraction]:
    """One exploding die by brute force, roll by roll: every sequence of faces it can show in at most `depth`
    rolls (it goes on while a face is `least` or more, and `times` explosions at most; 0: without limit), the
    chance of each sum, and the chance of the sequences still going on at the depth (the remainder)."""
    values: dict[int, Fraction] = {}
    rest = Fraction(0)
    stack: list[tuple[int, int, Fraction]] = [(0, 0, Fraction(1))]  # sum, rolls made, chance
    while stack:
        total, made, chance = stack.pop()
        if made == depth:
            rest += chance
            continue
        for face in range(1, sides + 1):
            p = chance / sides
            if face >= least and (not times or made < times):
                stack.append((total + face, made + 1, p))
            else:
                values[total + face] = values.get(total + face, Fraction(0)) + p
    return values, rest


def kept_sums(dice: list[dict[int, Fraction]], keep: int, highest: bool) -> dict[int, Fraction]:
    """Every combination of the dice's values (each a die of its own), the `keep` highest (lowest) added."""
    out: dict[int, Fraction] = {}
    combos: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    for die in dice:
        combos = [((*values, v), p * q) for values, p in combos for v, q in die.items()]
    for values, p in combos:
        kept = sorted(values, reverse=highest)[:keep]
        out[sum(kept)] = out.get(sum(kept), Fraction(0)) + p
    return out


def module_of(text: str, name: str) -> tuple[Any, Any]:
    loaded = load_text(text, f"{name}.rules", name)
    return loaded, compile_module(generate(loaded.checked), name)


@pytest.mark.parametrize(("count", "sides", "least", "times", "bang"), [
    (1, 6, 0, 2, "!"), (2, 6, 0, 1, "!"), (3, 6, 5, 2, "!"), (2, 10, 9, 3, "!"), (1, 4, 2, 10, "!"),
    (2, 6, 0, 2, "!!"), (3, 8, 7, 1, "!!")])
def test_dice_exploding_at_most_n_times_list_every_total_exactly(count: int, sides: int, least: int, times: int,
                                                                 bang: str) -> None:
    limit = "once" if times == 1 else f"at most {times} times"
    on = f" on {least}+" if least else ""
    text = (HEADER + f'roll r "R" [T-1]\n  input line: 1..80 = 9\n  roll: {count}d{sides}{bang}{on} {limit} + 1\n'
            '  - when total % 3 = 0: three "Three"\n  - when total >= line: over "Over"\n'
            '  - otherwise: under "Under"\n')
    loaded, module = module_of(text, f"at_most_{count}_{sides}_{least}_{times}_{len(bang)}")
    one, rest = die_rolls(sides, least or sides, times, times + 1)
    assert rest == 0 and sum(one.values()) == 1  # finite: the enumeration is complete
    totals = {t + 1: p for t, p in kept_sums([one] * count, count, True).items()}
    assert module.totals("r", line=9) == dict(sorted(totals.items()))  # every total, no remainder
    for line in (2, 9, 17, 40):
        expected = {"three": Fraction(0), "over": Fraction(0), "under": Fraction(0)}
        for total, p in totals.items():
            expected["three" if total % 3 == 0 else "over" if total >= line else "under"] += p
        assert both(loaded, module, "r", line=line) == {k: v for k, v in expected.items() if v}
    rng = random.Random(7)
    for _ in range(200):  # no die rolls more than `times` explosions
        result = module.r(line=9, rng=rng)
        assert result.total <= count * sides * (times + 1) + 1


def test_a_die_exploding_at_most_twice_stops_after_two_explosions() -> None:
    class Sixes(random.Random):
        def randint(self, a: int, b: int) -> int:
            return b
    text = HEADER + 'roll r "R" [T-1]\n  roll: 2d6! at most 2 times\n  - 36: hi "Hi"\n  - otherwise: lo "Lo"\n'
    _, module = module_of(text, "at_most_sixes")
    result = module.r(rng=Sixes())
    assert (result.dice, result.total, result.outcome.id) == ((6, 6, 6, 6, 6, 6), 36, "hi")
    assert module.odds("r") == {"hi": Fraction(1, 6**6), "lo": 1 - Fraction(1, 6**6)}


@pytest.mark.parametrize(("count", "sides", "keep", "highest"), [
    (3, 6, 2, True), (2, 6, 1, True), (3, 6, 1, False), (3, 4, 2, True), (2, 8, 1, False)])
def test_compounded_dice_kept_have_the_odds_of_a_deep_enumeration(count: int, sides: int, keep: int,
                                                                  highest: bool) -> None:
    word = "highest" if highest else "lowest"
    text = (HEADER + f'roll r "R" [T-1]\n  input line: 1..40 = 12\n  roll: {count}d{sides}!! keep {word} {keep}\n'
            '  - when total >= line: over "Over"\n  - otherwise: under "Under"\n')
    loaded, module = module_of(text, f"compound_{count}_{sides}_{keep}_{word}")
    deep, rest = die_rolls(sides, sides, 0, 9 if sides >= 6 else 11)  # every sequence of up to 9 (11) rolls
    left = 1 - (1 - rest) ** count  # the chance some die goes past the depth
    assert left < Fraction(1, 10**6)
    deep_sums = kept_sums([deep] * count, keep, highest)
    for line in (2, 7, 12, 19, 25, 33, 40):
        # exact, by arithmetic: a die past `line` is one value `line` (every sum it is kept in reaches the line)
        near = {v: p for v, p in deep.items() if v < line}
        near[line] = 1 - sum(near.values())
        over = sum((p for total, p in kept_sums([near] * count, keep, highest).items() if total >= line), Fraction(0))
        assert both(loaded, module, "r", line=line) == {k: v for k, v in {"over": over, "under": 1 - over}.items()
                                                        if v}
        # and bracketed by the deep truncation: what it finds, plus at most what it leaves out
        found = sum((p for total, p in deep_sums.items() if total >= line), Fraction(0))
        assert found <= over <= found + left
    rng = random.Random(3)
    rolls = [module.r(line=12, rng=rng) for _ in range(3000)]
    for result in rolls[:300]:
        assert len(result.dice) == count and len(result.kept) == keep
        assert result.kept == tuple(sorted(result.dice, reverse=highest)[:keep]) and result.total == sum(result.kept)
    assert any(face > sides for result in rolls for face in result.dice)
    share = sum(r.outcome.id == "over" for r in rolls) / len(rolls)
    p = float(module.odds("r", line=12)["over"])
    assert abs(share - p) < 4 * (p * (1 - p) / len(rolls)) ** 0.5 + 1e-9


def test_a_compounded_die_shows_its_explosions_added_in() -> None:
    class Loaded(random.Random):
        faces = iter([6, 6, 2, 3, 1])  # three dice rolled, then the first's explosion (3), the second's (1)

        def randint(self, a: int, b: int) -> int:
            return next(self.faces)
    text = HEADER + 'roll r "R" [T-1]\n  roll: 3d6!! keep highest 2\n  - 12+: hi "Hi"\n  - otherwise: lo "Lo"\n'
    _, module = module_of(text, "compound_loaded")
    result = module.r(rng=Loaded())
    assert (result.dice, result.kept, result.total, result.outcome.id) == ((9, 7, 2), (9, 7), 16, "hi")
    assert result.trace.startswith("R: rolled 3d6!! keep highest 2: 9, 7, 2 (kept 9, 7)")


SAVAGE = (HEADER + 'roll trait "Trait" [C-41]\n  input die: one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12) = d6\n'
          '  input mod: -2..+2 = 0\n  roll: max(d(die)!, d6!) + mod\n  - when total >= 12: raise2 "Two raises"\n'
          '  - when total >= 8: raise "Raise"\n  - when total >= 4: success "Success"\n'
          '  - otherwise: failure "Failure"\n')


@pytest.fixture(scope="module")
def savage() -> tuple[Any, Any]:
    return module_of(SAVAGE, "savage_trait")


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12])
@pytest.mark.parametrize("mod", [-2, 0, 2])
def test_the_higher_of_a_trait_die_and_a_wild_die(savage: tuple[Any, Any], sides: int, mod: int) -> None:
    loaded, module = savage
    band = lambda total: ("raise2" if total >= 12 else "raise" if total >= 8 else  # noqa: E731
                          "success" if total >= 4 else "failure")
    horizon = 12 - mod  # the highest value of max(...) the bands tell apart
    trait, trait_rest = die_rolls(sides, sides, 0, 16)
    wild, wild_rest = die_rolls(6, 6, 0, 16)
    # exact, by arithmetic: each die's values up to the horizon, and one value past it for every higher one
    lumped = []
    for die in (trait, wild):
        near = {v: p for v, p in die.items() if v <= horizon}
        near[horizon + 1] = 1 - sum(near.values())
        lumped.append(near)
    expected: dict[str, Fraction] = {}
    for (a, p), (b, q) in ((x, y) for x in lumped[0].items() for y in lumped[1].items()):
        expected[band(max(a, b) + mod)] = expected.get(band(max(a, b) + mod), Fraction(0)) + p * q
    found = both(loaded, module, "trait", die=f"d{sides}", mod=mod)
    assert found == {k: v for k, v in expected.items() if v}
    # the deep truncation (16 rolls of each die) agrees within what it leaves out, under 10^-9
    left = 1 - (1 - trait_rest) * (1 - wild_rest)
    assert left < Fraction(1, 10**9)
    deep: dict[str, Fraction] = {}
    for (a, p), (b, q) in ((x, y) for x in trait.items() for y in wild.items()):
        deep[band(max(a, b) + mod)] = deep.get(band(max(a, b) + mod), Fraction(0)) + p * q
    for outcome, p in found.items():
        assert deep.get(outcome, Fraction(0)) <= p <= deep.get(outcome, Fraction(0)) + left
    totals = module.totals("trait", die=f"d{sides}", mod=mod)
    assert list(totals)[-1] == f"{13}+" and sum(totals.values()) == 1


def test_the_trait_roll_rolls_what_its_odds_say(savage: tuple[Any, Any]) -> None:
    _, module = savage
    rng = random.Random(11)
    rolls = [module.trait(die="d8", rng=rng) for _ in range(20_000)]
    exact = module.odds("trait", die="d8")
    for outcome in ("raise2", "raise", "success", "failure"):
        share = sum(r.outcome.id == outcome for r in rolls) / len(rolls)
        p = float(exact[outcome])
        assert abs(share - p) < 4 * (p * (1 - p) / len(rolls)) ** 0.5, outcome


def test_the_sheet_says_at_most_n_times_and_compounds_in_words() -> None:
    text = (HEADER + 'roll r "R" [T-1]\n  roll: d10! on 9+ at most 3 times + d6!! once + 2d6 compound\n'
            '  - 30+: hi "Hi"\n  - otherwise: lo "Lo"\n')
    data = export_data(load_text(text, "words.rules", "words").checked)
    r = next(d for d in data["definitions"] if d["name"] == "r")
    assert r["dice"] == [{"when": None, "roll": "d10! on 9+ at most 3 times + d6!! once + 2d6!!", "terms": [
        {"text": "d10! on 9+ at most 3 times", "count": 1, "sides": 10, "die": None,
         "ops": [{"op": "explode", "on": 9, "times": 3}]},
        {"text": "d6!! once", "count": 1, "sides": 6, "die": None, "ops": [{"op": "compound", "on": None, "times": 1}]},
        {"text": "2d6!!", "count": 2, "sides": 6, "die": None, "ops": [{"op": "compound", "on": None, "times": None}]}],
        "notes": [
        "d10! on 9+ at most 3 times explodes: a die showing 9 or more is rolled again and added, at most 3 times",
        "d6!! once compounds: a die showing its highest face is rolled again and the roll added into the same die, "
        "at most once",
        "2d6!! compounds: a die showing its highest face is rolled again and the roll added into the same die, "
        "and again"]}]


def test_the_formatter_keeps_every_form_of_explosion() -> None:
    from rulecraft.syntax.fmt import format_source

    for roll in ("d10! on 9+ at most 3 times", "d6! once + 1", "3d6!! keep highest 2", "d6!! on 5+ at most 2 times",
                 "max(d(die)!, d6!) + 1"):
        text = (f'ruleset "T"\n\nroll r "R" [T-1]\n  input die: 4..12 = 6\n  roll: {roll}\n  - 5+: hi "Hi"\n'
                '  - otherwise: lo "Lo"\n')
        assert format_source(text) == text
    words = 'ruleset "T"\n\nroll r "R" [T-1]\n  roll: d6! at most 1 time\n  - 5+: hi "Hi"\n  - otherwise: lo "Lo"\n'
    assert "  roll: d6! at most 1 time\n" in format_source(words)  # the formatter keeps the words as written


def test_odds_totals_says_in_words_that_the_rest_is_one_remainder(tmp_path: Path, capsys: Any) -> None:
    import json

    from rulecraft.cli.main import main

    source = tmp_path / "damage.rules"
    source.write_text(HEADER + 'roll damage "Damage" [T-1]\n  roll: d6!\n  - 10+: huge "Huge"\n'
                      '  - otherwise: light "Light"\n', encoding="utf-8")
    assert main(["odds", str(source), "damage", "--totals"]) == 0
    shown = capsys.readouterr().out
    assert "11 or more" in shown and "is one remainder" in shown and "explode without limit" in shown
    assert main(["odds", str(source), "damage", "--totals", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["outcomes"][-1]["id"] == "11+" and data["outcomes"][-1]["label"] == "11 or more"
    assert data["remainder"]["from"] == 11 and data["remainder"]["probability"] == "1/18"
    assert "one remainder" in data["remainder"]["note"]
    limited = tmp_path / "limited.rules"
    limited.write_text(HEADER + 'roll damage "Damage" [T-1]\n  roll: d6! at most 2\n  - 10+: huge "Huge"\n'
                       '  - otherwise: light "Light"\n', encoding="utf-8")
    assert main(["odds", str(limited), "damage", "--totals", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "remainder" not in data and data["outcomes"][-1]["id"] == "18"  # finite: every total, none lumped
