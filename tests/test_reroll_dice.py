"""Re-rolling some dice, once: `NdS reroll TEST` (each die whose face passes the test, written as a band's
range is) and `NdS reroll lowest N` (the N lowest dice). Their exact odds against an enumeration written
here, by brute force over every first roll and every second roll of the dice re-rolled, in the compiler and
the generated module, reading the total, the highest and lowest die and counted faces (of the dice as they
stand); their rolls against the odds; the face test as parsed, printed and put in words."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from types import ModuleType

import pytest

from rulecraft import model as m
from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.semantics.odds import definition_names
from rulecraft.semantics.odds import odds as compiler_odds
from rulecraft.semantics.runtime import MAX_WORK, OPERATORS, DiceSpec, readings_cost, too_much_work
from tests.conftest import compile_module

Faces = tuple[int, ...]


def by_face(count: int, sides: int, passes: Callable[[int], bool]) -> Counter[Faces]:
    """Every way the dice end, weighted over sides^(2 x count): each first roll, then each second roll of the
    dice whose first face passes (a die not re-rolled stands for any of its `sides` unrolled second faces)."""
    out: Counter[Faces] = Counter()
    for first in itertools.product(range(1, sides + 1), repeat=count):
        again = [i for i, face in enumerate(first) if passes(face)]
        spare = sides ** (count - len(again))
        for second in itertools.product(range(1, sides + 1), repeat=len(again)):
            final = list(first)
            for i, face in zip(again, second, strict=True):
                final[i] = face
            out[tuple(final)] += spare
    return out


def by_lowest(count: int, sides: int, again: int) -> Counter[Faces]:
    """Every way the dice end over sides^(count + again'): each first roll, its `again'` lowest dice (again' =
    at most every die) rolled again in every way."""
    again = min(again, count)
    out: Counter[Faces] = Counter()
    for first in itertools.product(range(1, sides + 1), repeat=count):
        lowest = sorted(range(count), key=lambda i: (first[i], i))[:again]
        for second in itertools.product(range(1, sides + 1), repeat=again):
            final = list(first)
            for i, face in zip(lowest, second, strict=True):
                final[i] = face
            out[tuple(final)] += 1
    return out


BANDS = ('  - when count({top}) >= 2: pair "Pair"\n  - when lowest = 1: one "One"\n'
         '  - when highest = {top}: top "Top"\n  - when count(2) = 1: two "Two"\n'
         '  - when total >= line: over "Over"\n  - otherwise: under "Under"\n')


def band(faces: Faces, top: int, line: int) -> str:
    return ("pair" if faces.count(top) >= 2 else "one" if min(faces) == 1 else "top" if max(faces) == top
            else "two" if faces.count(2) == 1 else "over" if sum(faces) >= line else "under")


def assert_three_ways(dice: str, count: int, sides: int, ways: Counter[Faces], name: str) -> ModuleType:
    """The compiler's odds and the module's odds and totals are the enumeration's, at three lines."""
    text = (f'ruleset "R"\n\nroll r "R" [R-1]\n  input line: 1..{count * sides} = {count * sides // 2}\n'
            f'  roll: {dice}\n' + BANDS.format(top=sides))
    checked = load_text(text, "r.rules", "r").checked
    module = compile_module(generate(checked), name)
    resolver = checked.resolvers()[0]
    denominator = sum(ways.values())
    for line in (1, count * sides // 2 + 1, count * sides):
        tally: Counter[str] = Counter()
        for faces, weight in ways.items():
            tally[band(faces, sides, line)] += weight
        expected = {b: Fraction(tally[b], denominator) for b in ("pair", "one", "top", "two", "over", "under")}
        assert module.odds("r", line=line) == expected
        found = compiler_odds(resolver, {"line": line}, definition_names(checked))
        assert {b: found[b] for b in expected} == expected
    totals: Counter[int] = Counter()
    for faces, weight in ways.items():
        totals[sum(faces)] += weight
    assert module.totals("r") == {t: Fraction(n, denominator) for t, n in sorted(totals.items())}
    return module


FACE_TESTS: list[tuple[int, int, str, Callable[[int], bool]]] = [
    (1, 20, "1", lambda f: f == 1),
    (2, 6, "1-2", lambda f: f <= 2),
    (2, 6, "2", lambda f: f == 2),  # exactly 2: ones stand
    (3, 6, "2-5", lambda f: 2 <= f <= 5),  # Year Zero's push: every die not showing 1 or 6
    (3, 4, "1/3", lambda f: f in (1, 3)),
    (2, 6, "5+", lambda f: f >= 5),
    (2, 8, "2 or less", lambda f: f <= 2),
    (2, 6, "1, 6", lambda f: f in (1, 6)),
    (2, 6, "less than 3", lambda f: f < 3),
    (2, 6, "more than 4", lambda f: f > 4),
    (3, 6, "1, 3-4, 6+", lambda f: f != 2 and f != 5),
]


@pytest.mark.parametrize(("count", "sides", "test", "passes"), FACE_TESTS, ids=[t[2] for t in FACE_TESTS])
def test_dice_rerolled_by_face_odds_are_the_enumeration(count: int, sides: int, test: str,
                                                        passes: Callable[[int], bool]) -> None:
    ways = by_face(count, sides, passes)
    assert sum(ways.values()) == sides ** (2 * count)
    name = "reroll_" + "".join(c if c.isalnum() else "_" for c in f"{count}d{sides}_{test}")
    assert_three_ways(f"{count}d{sides} reroll {test}", count, sides, ways, name)


@pytest.mark.parametrize(("count", "sides", "again"), [(2, 6, 1), (3, 6, 1), (4, 6, 1), (4, 4, 2), (5, 4, 2),
                                                       (3, 5, 2)])
def test_lowest_dice_rerolled_odds_are_the_enumeration(count: int, sides: int, again: int) -> None:
    ways = by_lowest(count, sides, again)
    assert sum(ways.values()) == sides ** (count + again)
    dice = f"{count}d{sides} reroll lowest" + (f" {again}" if again > 1 else "")
    assert_three_ways(dice, count, sides, ways, f"reroll_lowest_{count}d{sides}_{again}")


def test_a_pool_re_rolls_at_most_every_die() -> None:
    """`(n)d6 reroll lowest 2` from an input: a pool of one die re-rolls it (the odds of one d6), of none rolls
    nothing; the enumeration agrees for every pool."""
    text = ('ruleset "R"\n\nroll r "R" [R-1]\n  input n: 0..3 = 3\n  roll: (n)d6 reroll lowest 2\n'
            '  - when count(6) >= 1: six "Six"\n  - 7+: high "High"\n  - otherwise: low "Low"\n')
    loaded = load_text(text, "r.rules", "r")
    assert not loaded.report.has_errors, loaded.report.diagnostics
    checked = loaded.checked
    module = compile_module(generate(checked), "reroll_lowest_pool")
    resolver = checked.resolvers()[0]
    for n in range(4):
        ways = by_lowest(n, 6, 2)
        denominator = sum(ways.values())
        tally: Counter[str] = Counter()
        for faces, weight in ways.items():
            tally["six" if 6 in faces else "high" if sum(faces) >= 7 else "low"] += weight
        expected = {b: Fraction(tally[b], denominator) for b in ("six", "high", "low")}
        assert module.odds("r", n=n) == expected
        found = compiler_odds(resolver, {"n": n}, definition_names(checked))
        assert {b: found[b] for b in expected} == expected
    assert module.odds("r", n=1)["six"] == Fraction(1, 6)


def test_the_push_re_rolls_only_dice_not_showing_1_or_6() -> None:
    """The issue's example: one die pushed shows a 6 in 5/18 (1/6, then 4/6 x 1/6), not the 11/36 of re-rolling
    the whole roll; and a die showing 1 stands, so a bane is 1/6 + 4/6 x 1/6 too."""
    text = ('ruleset "R"\n\nroll push "Push" [R-1]\n  input dice: 1..10 = 3\n  input pushed: flag\n'
            '  roll: (dice)d6\n  roll if pushed: (dice)d6 reroll 2-5\n'
            '  - when count(6) >= 1: hit "Hit"\n  - otherwise: miss "Miss"\n')
    checked = load_text(text, "r.rules", "r").checked
    module = compile_module(generate(checked), "reroll_push")
    assert module.odds("push", dice=1, pushed=True)["hit"] == Fraction(5, 18)
    assert module.odds("push", dice=1, pushed=False)["hit"] == Fraction(1, 6)
    assert module.odds("push", dice=3, pushed=True)["hit"] == 1 - Fraction(13, 18) ** 3
    resolver = checked.resolvers()[0]
    assert compiler_odds(resolver, {"dice": 1, "pushed": True}, definition_names(checked))["hit"] == Fraction(5, 18)


def roll_many(text: str, name: str, n: int, seed: int) -> list[object]:
    module = compile_module(generate(load_text(text, "r.rules", "r").checked), name)
    rng = random.Random(seed)
    return [module.r(rng=rng) for _ in range(n)]


def test_dice_rerolled_by_face_roll_as_their_odds_say() -> None:
    text = ('ruleset "R"\n\nroll r "R" [R-1]\n  roll: d6 reroll 1-2\n'
            '  - when count(1) = 1: one "One"\n  - 1-6: any "Any"\n')
    results = roll_many(text, "reroll_rolls", 36_000, 11)
    seen = Counter(r.total for r in results)  # type: ignore[attr-defined]
    for face, n in seen.items():  # 1 and 2 in 2 of 36, 3 to 6 in 8 of 36
        assert abs(n - (2_000 if face <= 2 else 8_000)) < 400, seen
    ones = sum(r.outcome.id == "one" for r in results)  # type: ignore[attr-defined]
    assert abs(ones - 2_000) < 250  # count(1) reads the die as it stands (2 in 36), not a 1 re-rolled away (1/6)
    for seed in range(40):  # the trace shows the first roll, then the new faces; the result, the dice as they stand
        result = roll_many(text, "reroll_rolls", 1, seed)[0]
        assert result.dice == result.kept == (result.total,)  # type: ignore[attr-defined]
        trace = result.trace  # type: ignore[attr-defined]
        first = int(trace.split("reroll 1-2: ")[1].split(",")[0].split(" ")[0])
        assert (", " in trace.split(" → ")[0]) == (first <= 2), trace


def test_lowest_dice_rerolled_roll_as_their_odds_say() -> None:
    text = 'ruleset "R"\n\nroll r "R" [R-1]\n  roll: 3d4 reroll lowest\n  - 1-12: any "Any"\n'
    results = roll_many(text, "reroll_lowest_rolls", 32_000, 5)
    ways = by_lowest(3, 4, 1)
    totals: Counter[int] = Counter()
    for faces, weight in ways.items():
        totals[sum(faces)] += weight
    seen = Counter(r.total for r in results)  # type: ignore[attr-defined]
    for total, weight in totals.items():
        expected = 32_000 * weight / 256
        assert abs(seen[total] - expected) < 5 * expected ** 0.5 + 5, (total, seen)
    for result in results[:50]:  # four dice in the trace (three, then the fresh one); three stand
        assert len(result.kept) == 3 and result.total == sum(result.kept)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("written", "faces", "printed", "words"), [
    ("1", {1}, "1", "a 1"),
    ("2", {2}, "2", "a 2"),
    ("1-2", {1, 2}, "1-2", "1 to 2"),
    ("2 or less", {1, 2}, "1-2", "1 to 2"),
    ("less than 3", {1, 2}, "1-2", "1 to 2"),
    ("1/2", {1, 2}, "1-2", "1 to 2"),
    ("2-5", {2, 3, 4, 5}, "2-5", "2 to 5"),
    ("5+", None, "5+", "5 or more"),
    ("5 or more", None, "5+", "5 or more"),
    ("more than 4", None, "5+", "5 or more"),
    ("1, 6", {1, 6}, "1, 6", "1 or 6"),
    ("1 or 6", {1, 6}, "1, 6", "1 or 6"),
    ("1, 3-4, 9+", None, "1, 3-4, 9+", "1, 3 to 4 or 9 or more"),
])
def test_a_face_test_is_parsed_printed_and_put_in_words(written: str, faces: set[int] | None, printed: str,
                                                       words: str) -> None:
    text = f'ruleset "R"\n\nroll r "R" [R-1]\n  roll: d10 reroll {written}\n  - 1-10: any "Any"\n'
    loaded = load_text(text, "r.rules", "r")
    dice = loaded.checked.resolvers()[0].dice[0].expr
    assert isinstance(dice, m.Dice)
    op = dice.ops[0]
    passing = {f for f in range(1, 11) if op.arg >> f & 1}
    if faces is not None:
        assert passing == faces
    assert m.expr_text(dice) == f"d10 reroll {printed}"
    assert OPERATORS["reroll"].words(op.arg) == f"re-rolls each die showing {words}, once: the new roll stands"
    assert DiceSpec(1, 10, (("reroll", op.arg),)).notation == f"d10 reroll {printed}"


@pytest.mark.parametrize(("written", "printed"), [("d20 reroll 1 + 2", "d20 reroll 1 + 2"),
                                                  ("d20 reroll 1 - bonus", "d20 reroll 1 - bonus"),
                                                  ("d20 reroll 1 / bonus", "d20 reroll 1 / bonus"),
                                                  ("(d20 reroll 1) - 2", "d20 reroll 1 - 2")])
def test_a_sum_after_a_face_test_stays_a_sum(written: str, printed: str) -> None:
    text = (f'ruleset "R"\n\nroll r "R" [R-1]\n  input bonus: 1..3 = 1\n  roll: {written}\n'
            '  - 10+: hit "Hit"\n  - otherwise: miss "Miss"\n')
    loaded = load_text(text, "r.rules", "r")
    assert not loaded.report.has_errors, loaded.report.diagnostics
    expr = loaded.checked.resolvers()[0].dice[0].expr
    assert isinstance(expr, m.Binary) and isinstance(expr.left, m.Dice) and expr.left.ops[0].arg == 1 << 1
    assert m.expr_text(expr) == printed


def test_big_pools_re_rolled_lowest_are_refused_before_work_with_what_fits() -> None:
    """The cost estimate errs high against the work done, and past the limit names what would fit."""
    import time
    for count, sides, again in ((8, 6, 1), (12, 6, 2), (20, 10, 3), (30, 6, 2)):
        spec = DiceSpec(count, sides, (("reroll_lowest", again),))
        cost = readings_cost(spec, frozenset({sides}), True, False)
        started = time.perf_counter()
        OPERATORS["reroll_lowest"].readings(spec, again, frozenset({sides}), True, False)
        took = time.perf_counter() - started
        assert took < max(cost, 2_000) * 4e-6, (count, sides, again, cost, took)  # 0.4 us a step, 10x slack
    refusal = too_much_work(DiceSpec(200, 20, (("reroll_lowest", 2),)), None)
    assert refusal is not None and "would fit" in refusal and "reroll lowest 2" in refusal
    assert readings_cost(DiceSpec(200, 20, (("reroll_lowest", 2),)), None) > MAX_WORK


def test_fmt_keeps_a_face_test_tight_and_a_sum_after_it_spaced() -> None:
    """`rulecraft fmt` spaces sums, but `1-2` after `reroll` is one range and `1 - 2` a refusal: kept as written."""
    from rulecraft.syntax.fmt import format_source
    text = ('ruleset "R"\n\nroll t "T" [X-3]\n  input b: 1..3 = 1\n'
            '  roll: d20   reroll 5+ +   2 + (d8 reroll 1/2,4-5 ,  7 or more)-b\n  - 1+: a "A"\n')
    assert format_source(text).splitlines()[4] == "  roll: d20 reroll 5+ + 2 + (d8 reroll 1/2, 4-5, 7 or more) - b"
