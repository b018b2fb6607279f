"""The documented limits bound the work, not only the text (issue 21, item 6): the cost of a roll's exact odds
is estimated before the work (`runtime.readings_cost`), and a roll past a limit is refused at its dice, naming
the input values that make it too big and saying what would fit. Each case ran for seconds to minutes before
(`1000d1000` for minutes, `500d1000` 187 s and 1.2 GB); here each runs under an alarm, so that a regression
fails instead of hanging. Nothing is timed: the alarm is ten times the second the README promises."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from fractions import Fraction
from types import FrameType
from typing import Any

import pytest

import rulecraft.semantics.odds as odds
import rulecraft.semantics.runtime as runtime
from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.diagnostics import Code, CompileError

from .conftest import compile_module

ALARM = 10  # seconds: a case that took this long would be a hang, not a limit


@pytest.fixture(autouse=True)
def alarm() -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still working after {ALARM} s: a limit no longer bounds the work")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(ALARM)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def roll(dice: str, inputs: str = "", bands: str = '  - 1-3: low "Low"\n  - 4+: high "High"\n') -> str:
    return f'ruleset "T"\n\nroll r "R" [T-1]\n{inputs}  roll: {dice}\n{bands}'


def errors(text: str) -> list[tuple[str, str, int, int]]:
    """(code, message, line, column) of each error; [] when the ruleset is accepted."""
    try:
        loaded = load_text(text, "limits.rules", "limits")
    except CompileError as refused:
        return [(d.code, d.message, d.span.line, d.span.column) for d in refused.report.diagnostics
                if d.severity == "error"]
    assert not loaded.report.has_errors
    return []


def too_much(dice: str, written: str = "") -> str:
    """The message for one group past runtime.MAX_WORK, as a pattern (the numbers come from the estimate)."""
    count, sides = dice.split("d")
    spec = runtime._dice(int(count), int(sides))
    shown = f"{written} = {dice}" if written else dice
    return (re.escape(f"exact odds of {shown} would take about ") + r"[\d,]+ steps to work out; the limit is "
            + re.escape(f"{runtime.MAX_WORK:,} (about 0.4 s); {runtime.fitting_text(spec)}"))


@pytest.mark.parametrize("count", [1000, 500])
def test_a_thousand_or_five_hundred_d1000_are_refused_at_the_dice(count: int) -> None:
    """Was accepted, then minutes of `check` (500d1000: 187 s and 1.2 GB)."""
    found = errors(roll(f"{count}d1000", bands='  - 500 or less: low "Low"\n  - 501+: high "High"\n'))
    assert len(found) == 1 and found[0][0] == Code.TOO_LARGE and found[0][2:] == (4, 9), found
    assert re.fullmatch("r with no inputs: " + too_much(f"{count}d1000"), found[0][1]), found
    assert found[0][1].endswith(f"2d1000 or {count}d{27 if count == 1000 else 44} would fit")


def test_a_pool_of_d1000_set_by_an_input_names_the_value_that_is_too_big() -> None:
    """`(n)d1000` for n from 1 to 40 took 105 s; the first n past the limit is refused, by name."""
    bands = '  - 500 or less: low "Low"\n  - 501+: high "High"\n'
    found = errors(roll("(n)d1000", '  input n: 1..40 = 1 "Dice"\n', bands))
    assert len(found) == 1 and found[0][0] == Code.TOO_LARGE and found[0][2:] == (5, 9), found
    assert re.fullmatch("r with n=3: " + too_much("3d1000", "(n)d1000"), found[0][1]), found
    two, three = (runtime.readings_cost(runtime._dice(n, 1000)) for n in (2, 3))
    assert two <= runtime.MAX_WORK < three


def test_a_wide_pool_of_d100_stops_at_the_ruleset_budget_at_once() -> None:
    """`(n)d100` for n up to 200 was refused, but only after 28 s: each pool's readings are paid before the work."""
    bands = '  - 50 or less: low "Low"\n  - 51+: high "High"\n'
    found = errors(roll("(n)d100", '  input n: 1..200 = 1 "Dice"\n', bands))
    assert len(found) == 1 and found[0][0] == Code.TOO_LARGE and found[0][2:] == (3, 6), found
    assert re.fullmatch(r"r with n=\d+: checking the exact odds of this ruleset takes more than "
                        f"{odds.MAX_ANALYSIS:,}" + r" steps \(working out dice readings, then "
                        r"reading them into bands, for every input of every roll\); the limit is reached here",
                        found[0][1]), found


def test_a_total_is_classified_once_however_many_joint_readings_make_it() -> None:
    """The highest of three dice of their own sizes, less armor, with an input that moves nothing but the total:
    the budget charged each of the 1,728 joint readings into the bands for every input (over the limit); the
    bands read the total, worked out once per set of dice, so each total is charged once."""
    sizes = 'one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12) = d6'
    inputs = "".join(f'  input {name}: {sizes} "{name}"\n' for name in ("a", "b", "c"))
    inputs += '  input armor: 0..15 = 0 "Armor"\n  input more: 0..3 = 0 "More"\n'
    text = roll("max(d(a), d(b), d(c)) + more - armor", inputs, '  - 1+: harm "Harm"\n  - 0 or less: none "None"\n')
    assert errors(text) == []
    loaded = load_text(text, "limits.rules", "limits")
    resolver = loaded.checked.resolvers()[0]
    found = odds.odds(resolver, {"a": "d12", "b": "d12", "c": "d12", "armor": 11, "more": 0},
                      odds.definition_names(loaded.checked))
    assert found == {"harm": 1 - Fraction(11, 12) ** 3, "none": Fraction(11, 12) ** 3}  # a 12 on any die


def test_counting_successes_on_fifty_dice_is_refused_saying_what_fits() -> None:
    """50d6 counting fives and sixes was refused after 4 s (the walk's own counter); now before the walk."""
    bands = '  - when count(5) + count(6) >= 3: success "Success"\n  - otherwise: failure "Failure"\n'
    found = errors(roll("50d6", bands=bands))
    assert len(found) == 1 and found[0][0] == Code.TOO_LARGE and found[0][2:] == (4, 9), found
    fives = frozenset({5, 6})
    assert found[0][1].startswith("r with no inputs: exact odds of 50d6 would take about ")
    assert found[0][1].endswith(runtime.fitting_text(runtime._dice(50, 6), fives))
    fits = int(runtime.fitting_text(runtime._dice(50, 6), fives).split("d6")[0])
    assert runtime.readings_cost(runtime._dice(fits, 6), fives) <= runtime.MAX_WORK
    assert runtime.readings_cost(runtime._dice(fits + 1, 6), fives) > runtime.MAX_WORK
    assert errors(roll(f"{fits}d6", bands=bands)) == []  # what the message says fits, fits


@pytest.mark.parametrize(("dice", "bands"), [
    ("1000d6", '  - 3500 or less: low "Low"\n  - 3501+: high "High"\n'),
    ("100d100", '  - 5000 or less: low "Low"\n  - 5001+: high "High"\n'),
    ("100d6 highest", '  - when count(6) >= 2: critical "Critical"\n  - 6: full "Full"\n  - 4/5: partial "Partial"\n'
                      '  - 1-3: bad "Bad"\n'),
    ("20d6", '  - when count(5) + count(6) >= 3: success "Success"\n  - otherwise: failure "Failure"\n'),
])
def test_what_the_limits_allow_is_still_worked_out(dice: str, bands: str) -> None:
    assert errors(roll(dice, bands=bands)) == []


def test_the_estimate_grows_with_the_work() -> None:
    """More dice, more sides, or more read of them never costs less; a sum of many dice costs more than one."""
    for sides in (6, 20, 100):
        costs = [runtime.readings_cost(runtime._dice(n, sides)) for n in (1, 10, 100, 1000)]
        assert costs == sorted(costs) and costs[0] < costs[-1]
    plain = runtime.readings_cost(runtime._dice(20, 6))
    assert runtime.readings_cost(runtime._dice(20, 6), frozenset({6})) > plain
    assert runtime.readings_cost(runtime._dice(20, 6), frozenset({5, 6})) > runtime.readings_cost(
        runtime._dice(20, 6), frozenset({6}))
    assert runtime.readings_cost(runtime._dice(20, 6, (("highest", 3),)), frozenset(), True, True) > \
        runtime.readings_cost(runtime._dice(20, 6, (("highest", 1),)))


def test_the_generated_odds_refuse_a_pool_too_big_before_the_work() -> None:
    """A roll without bands is not worked out by the check; its module's `odds()` estimates and refuses."""
    text = 'ruleset "T"\n\nroll r "R" [T-1]\n  input n: 1..40 = 1 "Dice"\n  roll: (n)d1000\n'
    module: Any = compile_module(generate(load_text(text, "limits.rules", "limits").checked), "generated_limits")
    assert sum(module.odds("r", n=1).values()) == Fraction(1)
    with pytest.raises(ValueError, match="^" + too_much("40d1000") + "$"):
        module.odds("r", n=40)
    with pytest.raises(ValueError, match=r"^exact odds of 3d1000 would take about [\d,]+ steps"):
        runtime.exact_joint([runtime._dice(3, 1000)], lambda values, held: sum(values), None)
