"""simulate(): many rolls for balance work, drawn from the exact odds, repeatable by seed."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate

from .conftest import compile_module
from .test_cli import run


def within(counts: dict[str, int], exact: dict[str, Fraction], n: int) -> None:
    """Each share is within 5 standard deviations of its exact probability (fixed seeds: never flaky)."""
    for outcome, p in exact.items():
        sigma = math.sqrt(float(p * (1 - p)) / n)
        assert abs(counts[outcome] / n - float(p)) <= 5 * sigma + 1e-12, (outcome, counts[outcome], p)


def test_a_million_rolls_of_each_kind_of_roll_match_the_exact_odds(tog) -> None:  # type: ignore[no-untyped-def]
    for name, inputs in (("action_roll", {"dots": 2}), ("resistance_roll", {"attribute": 3}),
                         ("coin_roll", {})):
        if name not in tog.INPUTS:
            continue
        result = tog.simulate(name, 1_000_000, seed=11, **inputs)
        exact = tog.odds(name, **inputs)
        assert result.n == 1_000_000 and sum(result.counts.values()) == 1_000_000
        assert list(result.counts) == list(dict.fromkeys(exact))  # every outcome, in band order
        within(result.counts, exact, result.n)


def test_same_seed_same_rolls_and_each_roll_has_its_outcome_and_total(tog) -> None:  # type: ignore[no-untyped-def]
    first = tog.simulate("action_roll", 1000, seed=5, dots=1)
    again = tog.simulate("action_roll", 1000, seed=5, dots=1)
    other = tog.simulate("action_roll", 1000, seed=6, dots=1)
    assert first.draws == again.draws and first.draws != other.draws
    assert first.seed == 5 and first.inputs == {"dots": 1}
    bands = {"failure": range(3, 7), "costly": range(7, 10), "heroic": range(10, 14), "advantage": range(13, 14)}
    for outcome, total in zip(first.outcomes, first.totals, strict=True):
        assert total in bands[outcome], (outcome, total)  # 2d6 + 1 (natural 12 is 13): in its own band
    assert tog.simulate("action_roll", 10, dots=1).seed is not None  # an unseeded run reports its seed


def test_an_outcome_that_cannot_come_up_is_listed_and_never_drawn() -> None:
    module = build('roll r "R" [T-1]\n  roll: d6\n  - 1-6: any "Any"\n  - 7+: never "Never"\n')
    result = module.simulate("r", 10_000, seed=1)
    assert result.counts == {"any": 10_000, "never": 0}


def test_a_thousand_dice_simulate_without_overflowing_a_float() -> None:
    module = build('roll r "R" [T-1]\n  roll: 1000d6\n  - 3500+: high "High"\n  - otherwise: low "Low"\n')
    exact = module.odds("r")
    result = module.simulate("r", 200_000, seed=3)
    within(result.counts, exact, result.n)


def test_rerolls_and_lookups_simulate_like_their_odds() -> None:
    module = build('roll r "R" [T-1]\n  roll: d6\n  reroll: lo\n  - 1-2: lo "Lo"\n  - 3-6: hi "Hi"\n\n'
                   'lookup l "L" [T-2]\n  input x: 1..3 = 2\n  key: x\n  - 1: a "A"\n  - 2-3: b "B"\n')
    result = module.simulate("r", 100_000, seed=2)
    assert module.odds("r") == {"lo": Fraction(1, 9), "hi": Fraction(8, 9)}
    within(result.counts, module.odds("r"), result.n)
    assert module.simulate("l", 50, seed=1, x=1).counts == {"a": 50, "b": 0}


def test_bad_arguments_are_refused_with_what_is_allowed(tog) -> None:  # type: ignore[no-untyped-def]
    for bad in (-1, 1.5, True, 10**9):
        with pytest.raises(ValueError, match=r"^n is a whole number of rolls from 0 to 100,000,000"):
            tog.simulate("action_roll", bad)
    with pytest.raises(ValueError, match="no roll or table named 'nope'"):
        tog.simulate("nope", 10)
    with pytest.raises(ValueError, match="action_roll has no input 'speed'; its inputs are: dots"):
        tog.simulate("action_roll", 10, speed=2)
    with pytest.raises(ValueError, match="dots"):
        tog.simulate("action_roll", 10, dots=99)


def test_the_simulate_command_prints_counts_beside_the_exact_odds() -> None:
    done = run("simulate", "tides_of_gold", "action_roll", "dots=2", "-n", "100000", "--seed", "4", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["rolls"] == 100_000 and data["seed"] == 4 and data["inputs"]["dots"] == 2
    rows = {row["id"]: row for row in data["outcomes"]}
    assert sum(row["rolls"] for row in rows.values()) == 100_000
    assert rows["costly"]["exact_percent"] == pytest.approx(41.667, abs=0.001)
    assert abs(rows["costly"]["percent"] - 41.667) < 1
    again = run("simulate", "tides_of_gold", "action_roll", "dots=2", "-n", "100000", "--seed", "4", "--json")
    assert again.stdout == done.stdout
    text = run("simulate", "tides_of_gold", "action_roll", "-n", "1000", "--seed", "1")
    assert "1,000 rolls" in text.stdout and "--seed 1` repeats this run" in text.stdout
    refused = run("simulate", "tides_of_gold", "action_roll", "-n", "-5")
    assert refused.returncode == 1 and refused.stderr.startswith("rulecraft: n is a whole number of rolls")


def build(body: str) -> object:
    loaded = load_text(f'ruleset "T"\n\n{body}', "<test>", "simulated")
    return compile_module(generate(loaded.checked), f"simulated_{abs(hash(body))}")
