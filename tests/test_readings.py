"""Dice readings: the exact-odds core agrees with brute force, and scales without listing rolls."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import comb

import pytest

from rulecraft.semantics.runtime import Faces, Reading, dice_readings, polynomial_power

Key = tuple[int, tuple[tuple[int | str, int], ...], int | None, int | None]


def brute(count: int, sides: int, mode: str, keep: int, die: Faces | None,
          counted: frozenset[int | str] | None, high: bool, low: bool) -> Counter[Key]:
    """Every sequence of dice, one by one: the definition the readings must match."""
    out: Counter[Key] = Counter()
    for roll in itertools.product(range(1, sides + 1), repeat=count):
        ordered = sorted(roll, reverse=mode != "lowest")
        kept = ordered if mode == "sum" else ordered[:keep]
        if die is not None:
            shown: list[int | str] = [die.symbols[s - 1] for s in roll]
            value = sum(die.values[s - 1] for s in roll)
            kept = []
        else:
            shown = list(roll)
            value = sum(kept)
        faces = Counter(f for f in shown if counted is None or f in counted)
        out[(value, tuple(sorted(faces.items(), key=str)), max(kept) if high and kept else None,
             min(kept) if low and kept else None)] += 1
    return out


def normal(readings: list[Reading]) -> Counter[Key]:
    out: Counter[Key] = Counter()
    for value, shown, high, low, weight in readings:
        out[(value, tuple(sorted(((f, n) for f, n in shown.items() if n), key=str)), high, low)] += weight
    return out


@pytest.mark.parametrize("count", range(0, 5))
@pytest.mark.parametrize("sides", [1, 2, 3, 6])
@pytest.mark.parametrize(("mode", "keep"), [("sum", 0), ("highest", 1), ("lowest", 1), ("highest", 2), ("lowest", 3)])
def test_readings_match_every_sequence_of_dice(count: int, sides: int, mode: str, keep: int) -> None:
    for counted in (frozenset(), frozenset({sides}), frozenset({1, 2}), None):
        for high, low in itertools.product((False, True), repeat=2):
            got = normal(dice_readings(count, sides, mode, keep, None, counted, high, low))
            assert got == brute(count, sides, mode, min(keep, count), None, counted, high, low), (counted, high, low)


@pytest.mark.parametrize("count", range(0, 5))
def test_custom_dice_readings_count_symbols_and_sum_values(count: int) -> None:
    die = Faces("attack", ("hit", "hit", "two", "blank", "blank", "special"), (1, 1, 2, 0, 0, 0))
    for counted in (frozenset(), frozenset({"hit"}), frozenset({"two", "special"}), None):
        got = normal(dice_readings(count, 6, "sum", 0, die, counted))
        assert got == brute(count, 6, "sum", 0, die, counted, False, False), counted


def test_a_sum_of_a_thousand_dice_is_its_closed_form() -> None:
    """1,000d6: 5,001 totals from a polynomial power, each the inclusion-exclusion count."""
    readings = dice_readings(1000, 6, "sum", 0)
    weights = {value: weight for value, _, _, _, weight in readings}
    assert len(weights) == 5001 and sum(weights.values()) == 6**1000
    for total in (1000, 1001, 3500, 5999, 6000):
        k = total - 1000
        expected = sum((-1) ** j * comb(1000, j) * comb(k - 6 * j + 999, 999) for j in range(k // 6 + 1))
        assert weights[total] == expected


def test_highest_of_a_hundred_d6_with_a_critical_is_exact() -> None:
    """100d6 highest, counting sixes: P(two or more sixes) by the binomial, P(highest = k) by (k/6)^100."""
    readings = dice_readings(100, 6, "highest", 1, None, frozenset({6}))
    total = 6**100
    critical = sum(w for value, shown, _, _, w in readings if dict(shown).get(6, 0) >= 2)
    assert Fraction(critical, total) == 1 - Fraction(5, 6) ** 100 - 100 * Fraction(1, 6) * Fraction(5, 6) ** 99
    for k in range(1, 7):
        share = Fraction(sum(w for value, _, _, _, w in readings if value == k), total)
        assert share == Fraction(k, 6) ** 100 - Fraction(k - 1, 6) ** 100
    assert len(readings) < 200  # readings, not the 10^77 sequences or 96 million multisets


def test_polynomial_power_matches_repeated_multiplication() -> None:
    poly = [2, 0, 1, 3]
    expected = [1]
    for n in range(0, 7):
        assert polynomial_power(poly, n) == expected
        expected = [sum(expected[i] * poly[k - i] for i in range(len(expected)) if 0 <= k - i < len(poly))
                    for k in range(len(expected) + len(poly) - 1)]
