"""Named groups of dice (`let challenge = 2d10`), rolled once and read by name and die by die: the compiler's
odds and the module's against an enumeration written here (every face of every die), the module's rolls
against what they show, and the located errors for what cannot be read so."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from types import ModuleType

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.diagnostics import CompileError
from rulecraft.semantics.odds import definition_names, distribution
from rulecraft.semantics.odds import odds as compiler_odds
from tests.conftest import compile_module

Faces = tuple[int, ...]


def enumerate_odds(groups: Iterable[tuple[int, int]], band: Callable[[list[Faces]], str]) -> dict[str, Fraction]:
    """Every roll of each (count, sides) group, in order, each equally likely: the chance of each band."""
    shapes = [list(itertools.product(range(1, sides + 1), repeat=count)) for count, sides in groups]
    tally: Counter[str] = Counter()
    for rolled in itertools.product(*shapes):
        tally[band(list(rolled))] += 1
    total = sum(tally.values())
    return {name: Fraction(n, total) for name, n in tally.items()}


def check(text: str, name: str, inputs: dict[str, object], expected: dict[str, Fraction],
          module: ModuleType) -> None:
    """The module's odds and the compiler's equal `expected` (bands it never gives are 0)."""
    checked = load_text(text, "n.rules", "n").checked
    resolver = next(r for r in checked.resolvers() if r.name == name)
    found = module.odds(name, **inputs)
    assert {k: v for k, v in found.items() if v} == expected
    interpreted = compiler_odds(resolver, inputs, definition_names(checked))
    assert {k: v for k, v in interpreted.items() if v} == expected


def build(text: str, module_name: str) -> ModuleType:
    return compile_module(generate(load_text(text, "n.rules", "n").checked), module_name)


IRONSWORN = '''ruleset "Named dice"

roll action "Action roll" [C-1]
  input stat: 1..5 = 2
  input adds: 0..3 = 0
  let challenge = 2d10
  roll: min(d6 + stat + adds, 10)
  - when all(challenge < total): strong "Strong hit"
  - when total > challenge: strong_sum "Never: the sum of two d10s is 2 or more"
  - when any(total > challenge): weak "Weak hit"
  - when doubles(challenge): miss_match "Miss, with a match"
  - otherwise: miss "Miss"
'''


def test_an_action_die_against_two_challenge_dice() -> None:
    module = build(IRONSWORN, "named_ironsworn")
    for stat, adds in ((1, 0), (2, 0), (4, 3), (5, 3)):
        def band(rolled: list[Faces], stat: int = stat, adds: int = adds) -> str:
            challenge, (action,) = rolled
            score = min(action + stat + adds, 10)
            beaten = sum(score > die for die in challenge)
            return ("strong" if beaten == 2 else "strong_sum" if score > sum(challenge) else "weak" if beaten
                    else "miss_match" if challenge[0] == challenge[1] else "miss")
        expected = enumerate_odds([(2, 10), (1, 6)], band)
        check(IRONSWORN, "action", {"stat": stat, "adds": adds}, expected, module)


HITS = '''ruleset "Named dice"

roll hits "Hits" [C-2]
  input dice: 1..6 = 4
  let pool = (dice)d6
  roll: count(pool >= 5)
  - when count(pool = 1) > dice / 2 and total = 0: critical_glitch "Critical glitch"
  - when count(pool = 1) > dice / 2: glitch "Glitch"
  - 0: none "No hits"
  - 1-2: some "Some hits"
  - 3+: many "Many hits"

roll botch "Ones cancel successes" [C-3]
  input dice: 1..4 = 3
  let pool = (dice)d10
  roll: count(pool >= 8) - count(pool = 1)
  - when none(pool >= 8) and any(pool = 1): botch "Botch"
  - 1+: success "Success"
  - otherwise: failure "Failure"
'''


@pytest.mark.parametrize("dice", [1, 2, 3, 5, 6])
def test_success_counts_with_glitches(dice: int) -> None:
    module = build(HITS, f"named_hits_{dice}")

    def band(rolled: list[Faces]) -> str:
        (pool,) = rolled
        hits, ones = sum(f >= 5 for f in pool), pool.count(1)
        if ones > dice // 2:
            return "critical_glitch" if hits == 0 else "glitch"
        return "none" if hits == 0 else "some" if hits <= 2 else "many"
    check(HITS, "hits", {"dice": dice}, enumerate_odds([(dice, 6)], band), module)
    totals: Counter[int] = Counter()
    for pool in itertools.product(range(1, 7), repeat=dice):
        totals[sum(f >= 5 for f in pool)] += 1
    assert module.totals("hits", dice=dice) == {t: Fraction(n, 6 ** dice) for t, n in sorted(totals.items())}


@pytest.mark.parametrize("dice", [1, 2, 4])
def test_ones_cancel_successes(dice: int) -> None:
    module = build(HITS, f"named_botch_{dice}")

    def band(rolled: list[Faces]) -> str:
        (pool,) = rolled
        hits, ones = sum(f >= 8 for f in pool), pool.count(1)
        return "botch" if hits == 0 and ones else "success" if hits - ones >= 1 else "failure"
    check(HITS, "botch", {"dice": dice}, enumerate_odds([(dice, 10)], band), module)


SETS = '''ruleset "Named dice"

roll sets "Sets" [C-4]
  input target: 1..7 = 4
  let pool = 3d6
  let theirs = d8
  roll: highest(pool)
  - when matches(pool) = 3: triple "Triple"
  - when doubles(pool) and lowest(pool) >= target: high_pair "High pair"
  - when count(pool >= target) = 0: nothing "Nothing reaches the target"
  - when pool > theirs + 6: beats "Beats theirs by more than 6"
  - when total = theirs: tie "The highest die ties theirs"
  - otherwise: plain "Plain"
'''


@pytest.mark.parametrize("target", [1, 4, 7])
def test_matches_doubles_and_tests_read_by_an_input(target: int) -> None:
    module = build(SETS, f"named_sets_{target}")

    def band(rolled: list[Faces]) -> str:
        pool, (theirs,) = rolled
        most = max(Counter(pool).values())
        if most == 3:
            return "triple"
        if most == 2 and min(pool) >= target:
            return "high_pair"
        if not any(f >= target for f in pool):
            return "nothing"
        if sum(pool) > theirs + 6:
            return "beats"
        return "tie" if max(pool) == theirs else "plain"
    check(SETS, "sets", {"target": target}, enumerate_odds([(3, 6), (1, 8)], band), module)


def test_rolls_read_the_dice_they_show() -> None:
    module = build(IRONSWORN + HITS.removeprefix('ruleset "Named dice"\n'), "named_rolls")
    for seed in range(200):
        result = module.action(stat=3, rng=random.Random(seed))
        challenge, action = result.dice[:2], result.dice[2]
        assert result.total == min(action + 3, 10)
        beaten = sum(result.total > die for die in challenge)
        assert result.outcome.id == ("strong" if beaten == 2 else "weak" if beaten
                                     else "miss_match" if challenge[0] == challenge[1] else "miss")
        assert result.trace.startswith(f"Action roll: rolled challenge 2d10: {challenge[0]}, {challenge[1]} and d6")
        hits = module.hits(dice=5, rng=random.Random(seed))
        assert hits.total == sum(f >= 5 for f in hits.dice)
    seen = Counter(module.hits(dice=2, rng=random.Random(seed)).outcome.id for seed in range(3600))
    expected = module.odds("hits", dice=2)
    for band, p in expected.items():
        assert abs(seen[band] - 3600 * p) < 150, (band, seen)


@pytest.mark.parametrize(("body", "message", "hint"), [
    ("  let challenge = 2d10\n  let beaten = challenge + 1\n  roll: d6\n  reroll if beaten > 12: any\n",
     "`beaten` reads the roll, so a re-roll's condition cannot read it", "read `beaten` in a band's `when`"),
    ("  let twice = total * 2\n  roll: d6 + twice\n", "`twice` reads the roll, so the roll cannot read it", None),
    ("  let action = min(d6 + 2, 10)\n  roll: d6\n",
     "a let holds one group of dice, or a value worked out from the inputs; `min(d6 + 2, 10)` mixes them",
     "name the dice alone, `let action_dice = d6`"),
    ("  let pool = 3d6 keep highest 2\n  roll: d6\n  - when doubles(pool): double \"Double\"\n",
     "doubles() reads every die of `pool`, and `3d6 keep highest 2` keeps only some", "name the dice without"),
    ("  let wild = d6!\n  roll: d6 + wild\n", "`wild` names exploding dice; a named group does not explode yet",
     "write `d6!` in `roll:` itself"),
    ("  roll: 3d6\n  - when all(total > 3): big \"Big\"\n",
     "all() tests each die of a named group of dice", "name the dice with a let, `let challenge = 2d10`"),
    ("  roll: 3d6\n  - when doubles(total): big \"Big\"\n", "doubles() reads a named group of dice",
     "then `doubles(challenge)`"),
    ("  roll: count(3d6 >= 5)\n", "count() tests each die of a named group of dice",
     "name the dice first, `let pool = 3d6`"),
    ("  let pool = 3 attack\n  roll: d6\n  - when count(pool = hit) > 1: big \"Big\"\n",
     "count() reads numbered dice die by die, and `pool` rolls `3 attack`, a die of symbols",
     "count its symbols with `count(hit)`"),
    ("  input dots: 1..3 = 1\n  let dots = 2d6\n  roll: d6\n", "`dots` is already an input, let or option",
     "give the dice a name of their own"),
    ("  let pool = 2d6\n  roll if pool > 6: d8\n  roll: d6\n",
     "`roll if` chooses the dice before they are rolled: it cannot read the dice `pool`", None),
])
def test_what_cannot_be_read_so_is_a_located_error(body: str, message: str, hint: str | None) -> None:
    die = 'die attack "Attack die" [C-9]\n  sides: 2\n  - hit "Hit"\n  - miss "Miss"\n\n' if "attack" in body else ""
    text = f'ruleset "R"\n\n{die}roll r "R" [C-1]\n{body}'
    if "  - " not in body:
        text += '  - otherwise: any "Any"\n'
    with pytest.raises(CompileError) as caught:
        load_text(text, "r.rules", "r")
    found = [d for d in caught.value.report.diagnostics if message in d.message]
    assert found, [d.message for d in caught.value.report.diagnostics]
    assert found[0].span.line > 1
    if hint is not None:
        assert hint in (found[0].hint or ""), found[0].hint


FLAGS = '''ruleset "Named dice"

roll action "Action roll" [C-1]
  input stat: 1..5 = 2
  let challenge = 2d10
  roll: min(d6 + stat, 10)
  reroll if stat = 1: miss
  - when all(challenge < total): strong "Strong hit"
  - when any(challenge < total): weak "Weak hit"
  - otherwise: miss "Miss"
  flags:
    match: doubles(challenge)
    high: challenge >= 15 and total > 6
'''


def flag_enumeration(stat: int) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]]]:
    """Outcomes and flags of FLAGS's action by enumeration, with its re-roll of a miss when stat is 1."""
    once: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for first, second, action in itertools.product(range(1, 11), range(1, 11), range(1, 7)):
        score = min(action + stat, 10)
        beaten = (first < score) + (second < score)
        band = "strong" if beaten == 2 else "weak" if beaten else "miss"
        raised = tuple(name for name, holds in (("match", first == second),
                                                ("high", first + second >= 15 and score > 6)) if holds)
        once[band, raised] += 1
    weights: Counter[tuple[str, tuple[str, ...]]] = Counter()
    missed = sum(n for (band, _), n in once.items() if band == "miss")
    for (band, raised), n in once.items():
        if stat == 1 and band == "miss":
            continue
        weights[band, raised] += n * 600 if stat == 1 else n
    if stat == 1:
        for (band, raised), n in once.items():
            weights[band, raised] += missed * n
    denominator = sum(weights.values())
    outcomes: dict[str, Fraction] = {}
    flags: dict[str, dict[str, Fraction]] = {"match": {}, "high": {}}
    for (band, raised), n in weights.items():
        outcomes[band] = outcomes.get(band, Fraction(0)) + Fraction(n, denominator)
        for name in raised:
            flags[name][band] = flags[name].get(band, Fraction(0)) + Fraction(n, denominator)
    return outcomes, flags


@pytest.mark.parametrize("stat", [1, 2, 5])
def test_flags_beside_the_outcome(stat: int) -> None:
    module = build(FLAGS, f"named_flags_{stat}")
    outcomes, flags = flag_enumeration(stat)
    check(FLAGS, "action", {"stat": stat}, outcomes, module)
    assert module.flag_odds("action", stat=stat) == flags
    checked = load_text(FLAGS, "n.rules", "n").checked
    found = distribution(checked.resolvers()[0], {"stat": stat}, definition_names(checked))
    assert {name: {band: Fraction(w, found.denominator) for band, w in row.items()}
            for name, row in found.flag_weights.items()} == flags
    if stat > 1:  # no re-roll: two d10s match 1 time in 10
        assert sum(flags["match"].values()) == Fraction(1, 10)
    for seed in range(100):
        result = module.action(stat=stat, rng=random.Random(seed))
        challenge = result.dice[-3:-1]
        expected = tuple(name for name, holds in (("match", challenge[0] == challenge[1]),
                                                  ("high", sum(challenge) >= 15 and result.total > 6)) if holds)
        assert result.flags == expected and result.as_dict()["flags"] == list(expected)
        assert (", with " in result.trace.rsplit("the new result is final", 1)[-1]) == bool(expected)


def test_a_roll_without_flags_has_none() -> None:
    module = build(IRONSWORN, "named_no_flags")
    assert module.flag_odds("action") == {}
    assert module.action(rng=random.Random(1)).flags == ()


@pytest.mark.parametrize(("body", "message"), [
    ("  roll: 2d6\n  - otherwise: any \"Any\"\n  flags:\n    big: total\n",
     "a flag is yes or no, and `total` is not a yes/no input"),
    ("  roll: 2d6\n  - otherwise: any \"Any\"\n  flags:\n    big: total + 1\n",
     "a flag is yes or no, and `total + 1` is not a test"),
    ("  roll: 2d6\n  - otherwise: any \"Any\"\n  flags:\n    big: total > 9\n    big: total > 10\n",
     "`big` is already a flag of `r`"),
    ("  roll: 2d6\n  flags: total > 9\n  - otherwise: any \"Any\"\n",
     "`flags:` is followed by its flags, one on each line below it"),
    ("  roll: d6!\n  - 6+: high \"High\"\n  - otherwise: low \"Low\"\n  flags:\n    big: total > 9\n",
     "`r` rolls exploding dice, and its flags are not worked out for them yet"),
])
def test_what_a_flag_cannot_be(body: str, message: str) -> None:
    with pytest.raises(CompileError) as caught:
        load_text(f'ruleset "R"\n\nroll r "R" [C-1]\n{body}', "r.rules", "r")
    assert any(message in d.message and d.span.line > 3 for d in caught.value.report.diagnostics), [
        d.message for d in caught.value.report.diagnostics]


def test_a_flag_that_reads_an_input_is_worked_out_for_each_value() -> None:
    text = ('ruleset "R"\n\nroll r "R" [C-1]\n  input mood: one of calm, wild = calm\n  roll: d20\n'
            '  - otherwise: any "Any"\n  flags:\n    wild: mood = wild and total > 10\n')
    checked = load_text(text, "r.rules", "r").checked
    module = build(text, "named_flag_input")
    resolver = checked.resolvers()[0]
    for mood, chance in (("calm", Fraction(0)), ("wild", Fraction(1, 2))):
        found = distribution(resolver, {"mood": mood}, definition_names(checked))
        assert found.flags == {"wild": chance}
        assert sum(module.flag_odds("r", mood=mood)["wild"].values(), Fraction(0)) == chance


@pytest.mark.parametrize(("text", "message", "line"), [
    ('lookup l "L" [C-2]\n  input x: 1..2\n  let t = d6\n  key: x\n  - 1-2: a "A"\n',
     "a lookup rolls no dice: `t` names dice", 5),
    ('roll r "R" [C-2]\n  let die = d8\n  let die = 3d8\n  roll: die\n  - otherwise: a "A"\n',
     "`die` is already an input, let or option of `r`", 5),
])
def test_named_dice_only_once_and_only_in_rolls(text: str, message: str, line: int) -> None:
    with pytest.raises(CompileError) as caught:
        load_text('ruleset "R"\n\n' + text, "r.rules", "r")
    assert [(d.message, d.span.line) for d in caught.value.report.diagnostics] == [(message, line)]


def test_only_rolls_and_tables_have_flags() -> None:
    text = 'ruleset "R"\n\nlookup l "L" [C-2]\n  input x: 1..2\n  key: x\n  flags:\n    a: x > 1\n  - 1-2: a "A"\n'
    with pytest.raises(CompileError) as caught:
        load_text(text, "r.rules", "r")
    assert [(d.message, d.span.line) for d in caught.value.report.diagnostics] == [
        ("a lookup has no `flags:`: flags ride beside a roll's outcome", 6)]


DEPENDENT = '''ruleset "Named dice"

roll action "Action" [C-1]
  input stat: 1..5 = 2
  input edge: 0..3 = 0
  let challenge = 2d10
  roll: min(d6 + stat, 10)
  reroll if edge = 3: miss
  - when all(challenge < total): strong "Strong"
  - when count(challenge <= total + edge) = 1: weak "Weak"
  - otherwise: miss "Miss"
  flags:
    close: any(challenge = total)
'''


@pytest.mark.parametrize(("stat", "edge"), [(1, 0), (2, 1), (5, 3)])
def test_dice_read_against_the_total_alone(stat: int, edge: int) -> None:
    """The compiler reads such dice by the faces each test passes, for each total (odds.dependent_group)."""
    from rulecraft.semantics.odds import analysis
    checked = load_text(DEPENDENT, "n.rules", "n").checked
    assert [name for _, name, _, _ in analysis(checked.resolvers()[0]).dependent] == ["challenge"]
    once: Counter[tuple[str, bool]] = Counter()
    for first, second, action in itertools.product(range(1, 11), range(1, 11), range(1, 7)):
        score = min(action + stat, 10)
        band = ("strong" if first < score and second < score
                else "weak" if (first <= score + edge) + (second <= score + edge) == 1 else "miss")
        once[band, score in (first, second)] += 1
    weights: Counter[tuple[str, bool]] = Counter()
    missed = sum(n for (band, _), n in once.items() if band == "miss")
    for (band, close), n in once.items():
        if edge == 3:
            weights[band, close] += (0 if band == "miss" else n * 600) + missed * n
        else:
            weights[band, close] += n
    denominator = sum(weights.values())
    outcomes: dict[str, Fraction] = {}
    close_by: dict[str, Fraction] = {}
    for (band, close), n in weights.items():
        outcomes[band] = outcomes.get(band, Fraction(0)) + Fraction(n, denominator)
        if close:
            close_by[band] = close_by.get(band, Fraction(0)) + Fraction(n, denominator)
    module = build(DEPENDENT, f"named_dependent_{stat}_{edge}")
    check(DEPENDENT, "action", {"stat": stat, "edge": edge}, outcomes, module)
    assert module.flag_odds("action", stat=stat, edge=edge) == {"close": close_by}
    found = distribution(checked.resolvers()[0], {"stat": stat, "edge": edge}, definition_names(checked))
    assert found.flags == {"close": sum(close_by.values(), Fraction(0))}


def test_the_sheet_and_the_json_say_the_groups_and_flags_in_words() -> None:
    from rulecraft.backends.render import export_data, to_html
    checked = load_text(FLAGS, "n.rules", "n").checked
    action = next(d for d in export_data(checked)["definitions"] if d["name"] == "action")
    assert action["groups"] == [{"name": "challenge", "dice": "2d10", "terms": [
        {"text": "2d10", "count": 2, "sides": 10, "die": None, "ops": []}], "words": "2d10"}]
    assert action["flags"][0] == {"name": "match", "test": "doubles(challenge)", "words": "doubles on challenge",
                                  "probability": "1/10", "percent": 10.0}
    assert action["bands"][0]["key"] == "when all(challenge < total)"
    assert action["bands"][0]["key_words"] == "when every die of challenge is below total"
    html = to_html(export_data(checked))
    assert "every die of challenge is below total" in html and "doubles on challenge" in html
    assert "10.0% of rolls" in html  # the player's sheet lists no inputs: the proof says which the odds take
    assert "10.0% of rolls, inputs at their defaults" in to_html(export_data(checked), sheet="proof")


ROLL_LETS = '''ruleset "Roll lets"

roll action "Action roll" [C-1]
  input stat: 1..5 = 2
  let challenge = 2d10
  let beaten = count(challenge < total)
  roll: min(d6 + stat, 10)
  - when beaten = 2: strong "Strong hit"
  - when beaten = 1: weak "Weak hit"
  - otherwise: miss "Miss"
      margin: total - highest(challenge)

roll hits "Hits" [C-2]
  input dice: 1..6 = 3
  let pool = (dice)d6
  let hits = count(pool >= 5)
  let ones = count(pool = 1)
  let glitch = ones > dice / 2
  roll: hits + 1
  - when glitch and hits = 0: critical_glitch "Critical glitch"
  - 2+: hit "Hit"
  - otherwise: miss "Miss"
  flags:
    glitched: glitch
'''


@pytest.mark.parametrize("dice", [1, 3, 5])
def test_lets_that_read_the_roll_are_worked_out_with_each_roll(dice: int) -> None:
    module = build(ROLL_LETS, f"named_roll_lets_{dice}")

    def band(rolled: list[Faces]) -> str:
        (pool,) = rolled
        hits, ones = sum(f >= 5 for f in pool), pool.count(1)
        return "critical_glitch" if ones > dice // 2 and hits == 0 else "hit" if hits + 1 >= 2 else "miss"
    check(ROLL_LETS, "hits", {"dice": dice}, enumerate_odds([(dice, 6)], band), module)
    glitched = sum(Fraction(1, 6 ** dice) for pool in itertools.product(range(1, 7), repeat=dice)
                   if pool.count(1) > dice // 2)
    assert sum(module.flag_odds("hits", dice=dice)["glitched"].values(), Fraction(0)) == glitched

    def action(rolled: list[Faces]) -> str:
        challenge, (die,) = rolled
        beaten = sum(min(die + 2, 10) > c for c in challenge)
        return "strong" if beaten == 2 else "weak" if beaten == 1 else "miss"
    check(ROLL_LETS, "action", {"stat": 2}, enumerate_odds([(2, 10), (1, 6)], action), module)
    for seed in range(30):
        result = module.action(rng=random.Random(seed))
        if result.outcome.id == "miss":
            assert result.values["margin"] == result.total - max(result.dice[:2])
        assert result.outcome.key in ("when beaten = 2", "when beaten = 1", "otherwise")
    checked = load_text(ROLL_LETS, "n.rules", "n").checked
    action_data = next(r for r in checked.resolvers() if r.name == "action")
    assert [let.name for let in action_data.roll_lets] == ["beaten"] and not action_data.lets


LEVELS = '''ruleset "Levels"

roll level "Fortune level" [C-30]
  input dice: 1..3 = 2
  let pool = (dice)d6
  let result = 4 if count(pool = 6) >= 2 else 3 if highest(pool) = 6 else 2 if highest(pool) >= 4 else 1
  roll: result
  - 4: critical "Critical"
  - 3: full "6"
  - 2: partial "4/5"
  - 1: bad "1-3"
'''


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_an_if_else_between_values_reads_the_dice_once_rolled(dice: int) -> None:
    # An if-else whose branches hold no dice is worked out with the roll (it once was taken for a choice of
    # dice, made before the roll, and refused: "`pool` is a group of dice: it is read once the dice are rolled").
    module = build(LEVELS, f"named_levels_{dice}")

    def band(rolled: list[Faces]) -> str:
        (pool,) = rolled
        return "critical" if pool.count(6) >= 2 else "full" if 6 in pool else "partial" if max(pool) >= 4 else "bad"
    check(LEVELS, "level", {"dice": dice}, enumerate_odds([(dice, 6)], band), module)
