"""`rulecraft fill` (issue 26, item 5): exact analytics of "roll until". The module's fractions are held against
closed forms, a brute-force enumeration of every sequence of rolls, and a second way of working the expectation
out; the command against the module, and every refusal as one line and exit status 1."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from collections.abc import Mapping
from fractions import Fraction as F
from functools import cache

import pytest

from rulecraft.semantics import fill

from .conftest import ROOT

FIXTURE = str(ROOT / "tests" / "fixtures" / "fill" / "fill.rules")
NEVER = F(2)  # a `done` no chance reaches: `within` lists every row asked for


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulecraft", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def fill_json(*args: str) -> dict[str, object]:
    done = run("fill", *args, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def ratio(p: F) -> str:
    return f"{p.numerator}/{p.denominator}"


# ---------------------------------------------------------------- independent ways to the same numbers


def brute_within(step: Mapping[int, F], target: int, rolls: int) -> F:
    """The chance of being full within `rolls` rolls: every sequence of that many steps, one by one."""
    total = F(0)
    for sequence in itertools.product(step.items(), repeat=rolls):
        state, chance = 0, F(1)
        for _, p in sequence:
            chance *= p
        for amount, _ in sequence:
            state = max(0, state + amount)
            if state >= target:
                total += chance
                break
    return total


def recursive_expected(step: Mapping[int, F], target: int) -> F:
    """Steps never negative: E(s) = (1 + sum over a > 0 of p(a) E(s + a)) / (1 - p(0)), from the top down."""
    assert all(a >= 0 for a in step)

    @cache
    def expected(state: int) -> F:
        if state >= target:
            return F(0)
        return (1 + sum((p * expected(state + a) for a, p in step.items() if a > 0), F(0))) / (1 - step.get(0, F(0)))

    return expected(0)


def series_bounds(step: Mapping[int, F], target: int, terms: int) -> tuple[F, F]:
    """E = sum over k >= 0 of P(not full after k rolls), cut after `terms` terms, with a bound on the rest: after
    `terms` rolls the chain is nowhere worse than its start-free worst state, so the rest is at most
    P(not full after terms) x the worst expected time, bounded by blocks of `target` rolls that each fill with at
    least `least` chance."""
    def after(start: int, rolls: int) -> F:  # P(not full after `rolls` rolls from `start`)
        at = {start: F(1)}
        for _ in range(rolls):
            nxt: dict[int, F] = {}
            for state, p in at.items():
                for amount, q in step.items():
                    moved = max(0, state + amount)
                    if moved < target:
                        nxt[moved] = nxt.get(moved, F(0)) + p * q
            at = nxt
        return sum(at.values(), F(0))

    lower, at = F(0), {0: F(1)}  # P(not full after k rolls) for k = 0, 1, ...: the mass still in the states
    for _ in range(terms):
        lower += sum(at.values(), F(0))
        nxt: dict[int, F] = {}
        for state, p in at.items():
            for amount, q in step.items():
                if max(0, state + amount) < target:
                    nxt[max(0, state + amount)] = nxt.get(max(0, state + amount), F(0)) + p * q
        at = nxt
    least = 1 - max(after(s, target) for s in range(target))  # every block of `target` rolls fills with this
    worst = target / least  # the expected rolls from any state, at most
    return lower, lower + sum(at.values(), F(0)) * worst


def brute_race(joint: Mapping[tuple[int, int], F], first: int, second: int,
               rounds: int) -> tuple[F, F, F, F, F]:
    """Every sequence of `rounds` rounds: the chance each way the race ends within them, the expected rounds
    over those races, and the chance that it has not ended."""
    ends = [F(0), F(0), F(0)]
    expected = F(0)
    unfinished = F(0)
    for sequence in itertools.product(joint.items(), repeat=rounds):
        s = t = 0
        chance = math.prod((p for _, p in sequence), start=F(1))
        for turn, ((a, b), _) in enumerate(sequence, 1):
            s, t = max(0, s + a), max(0, t + b)
            if s >= first or t >= second:
                ends[0 if t < second else 1 if s < first else 2] += chance
                expected += turn * chance
                break
        else:
            unfinished += chance
    return ends[0], ends[1], ends[2], expected, unfinished


STEPS: list[dict[int, F]] = [
    {1: F(1, 3), 0: F(2, 3)},
    {0: F(1, 6), 1: F(5, 12), 2: F(7, 18), 4: F(1, 36)},  # obstacle_clock, dots=2
    {2: F(1, 36), 1: F(1, 4), 0: F(13, 18)},  # consequence_clock, dots=1 (two segments, one, none)
    {3: F(1, 2), 0: F(1, 4), 1: F(1, 4)},
]
NEGATIVE: list[dict[int, F]] = [
    {-1: F(1, 3), 1: F(1, 2), 2: F(1, 6)},  # the fixture's tug of war, edge=1
    {-2: F(1, 4), 0: F(1, 4), 3: F(1, 2)},
    {-1: F(1, 2), 1: F(1, 2)},
]


# ---------------------------------------------------------------- the module


@pytest.mark.parametrize("p", [F(1, 2), F(1, 3), F(5, 6), F(1)])
@pytest.mark.parametrize("target", [1, 2, 5])
def test_one_step_of_one_is_a_negative_binomial(p: F, target: int) -> None:
    step = {1: p, 0: 1 - p} if p < 1 else {1: p}
    assert fill.expected_rolls(step, target) == target / p
    rows, capped = fill.within(step, target, done=NEVER, rows=12)
    assert capped
    for k, got in enumerate(rows, 1):
        want = sum((math.comb(j - 1, target - 1) * p ** target * (1 - p) ** (j - target)
                    for j in range(target, k + 1)), F(0))
        assert got == want, (k, got, want)


@pytest.mark.parametrize("step", STEPS + NEGATIVE)
@pytest.mark.parametrize("target", [1, 2, 3, 4])
def test_within_k_is_every_sequence_of_k_rolls(step: dict[int, F], target: int) -> None:
    rows, _ = fill.within(step, target, done=NEVER, rows=5)
    assert list(rows) == [brute_within(step, target, k) for k in range(1, 6)]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("target", [1, 2, 3, 6, 9])
def test_expected_is_the_recursive_expectation(step: dict[int, F], target: int) -> None:
    assert fill.expected_rolls(step, target) == recursive_expected(step, target)


@pytest.mark.parametrize("step", STEPS[:2] + NEGATIVE)
@pytest.mark.parametrize("target", [2, 3])
def test_expected_lies_within_the_bounded_series(step: dict[int, F], target: int) -> None:
    expected = fill.expected_rolls(step, target)
    lower, upper = series_bounds(step, target, 200)
    assert lower <= expected <= upper
    assert upper - lower < F(1, 1000)  # the bound is tight enough to catch a wrong fraction


@pytest.mark.parametrize("target", [1, 2, 3, 5, 8])
def test_a_fair_walk_that_never_goes_below_zero_takes_n_times_n_plus_one(target: int) -> None:
    # from 0, a step of +1 or -1 (clamped at 0) reaches N after N(N + 1) rolls on average
    assert fill.expected_rolls({1: F(1, 2), -1: F(1, 2)}, target) == target * (target + 1)


def test_within_stops_at_ninety_nine_percent_or_at_the_cap() -> None:
    result = fill.fill({1: F(1, 2), 0: F(1, 2)}, 3)
    assert result.within[-1] >= fill.DONE > result.within[-2] and not result.capped
    slow = fill.fill({1: F(1, 100), 0: F(99, 100)}, 5)
    assert len(slow.within) == fill.MAX_ROWS and slow.capped and slow.within[-1] < fill.DONE
    assert slow.expected == 500


def test_refusals() -> None:
    with pytest.raises(ValueError, match="never fill"):
        fill.fill({0: F(1, 2), -1: F(1, 2)}, 3)
    with pytest.raises(ValueError, match="at least 1"):
        fill.fill({1: F(1)}, 0)
    with pytest.raises(ValueError, match="sum to 1"):
        fill.fill({1: F(1, 2)}, 2)
    with pytest.raises(ValueError, match="neither can ever fill"):
        fill.race({(0, -1): F(1)}, 2, 2)


JOINTS: list[dict[tuple[int, int], F]] = [  # every round gains on one clock at least, and loses on none
    {(1, 0): F(1, 2), (0, 1): F(1, 2)},
    {(2, 0): F(1, 6), (1, 0): F(1, 3), (0, 1): F(1, 3), (0, 2): F(1, 6)},  # success bands, failure bands
    fill.independent({1: F(1, 2), 2: F(1, 2)}, {1: F(2, 3), 3: F(1, 3)}),
]


@pytest.mark.parametrize("joint", JOINTS)
@pytest.mark.parametrize(("first", "second"), [(1, 1), (2, 3), (3, 2), (3, 3)])
def test_race_is_every_sequence_of_rounds(joint: dict[tuple[int, int], F], first: int, second: int) -> None:
    # each round gains on a clock, so every race has ended after first + second - 1 rounds
    got = fill.race(joint, first, second)
    assert (got.first, got.second, got.together, got.expected, F(0)) == \
        brute_race(joint, first, second, first + second - 1)
    assert got.first + got.second + got.together == 1


@pytest.mark.parametrize(("first", "second"), [(2, 2), (2, 3)])
def test_race_where_a_clock_s_gain_is_the_other_s_loss(first: int, second: int) -> None:
    joint = {(1, -1): F(1, 3), (-1, 1): F(1, 3), (1, 1): F(1, 3), (0, 0): F(0)}
    got = fill.race(joint, first, second)
    one, two, both, partial, unfinished = brute_race(joint, first, second, 9)
    assert 0 < unfinished < F(1, 20)
    for exact, seen in ((got.first, one), (got.second, two), (got.together, both)):
        assert seen <= exact <= seen + unfinished
    assert partial + 10 * unfinished <= got.expected
    if first == second:  # the clocks are alike: each fills first as often
        assert got.first == got.second


def test_race_with_rounds_that_gain_nothing() -> None:
    # one clock of 1 against one of 1, each round: the first fills (1/4), the second (1/4), both (1/4), none (1/4)
    got = fill.race(fill.independent({1: F(1, 2), 0: F(1, 2)}, {1: F(1, 2), 0: F(1, 2)}), 1, 1)
    assert (got.first, got.second, got.together, got.expected) == (F(1, 3), F(1, 3), F(1, 3), F(4, 3))
    # a clock that never gains loses every race, and the race lasts as long as the other clock
    lone = fill.race(fill.independent({1: F(1, 3), 0: F(2, 3)}, {0: F(1)}), 4, 2)
    assert (lone.first, lone.second, lone.together) == (1, 0, 0)
    assert lone.expected == fill.expected_rolls({1: F(1, 3), 0: F(2, 3)}, 4)


# ---------------------------------------------------------------- the command

OBSTACLE = {"no_segments": 0, "one_segment": 1, "two_segments": 2, "four_segments": 4}  # the ruleset's bands
CONSEQUENCE = {"two_segments": 2, "one_segment": 1, "no_segments": 0}


def by_outcome(odds: Mapping[str, F], amounts: Mapping[str, int]) -> dict[int, F]:
    step: dict[int, F] = {}
    for outcome, p in odds.items():
        step[amounts[outcome]] = step.get(amounts[outcome], F(0)) + p
    return step


def test_fill_json_is_the_module_on_the_roll_s_odds(tog) -> None:  # type: ignore[no-untyped-def]
    data = fill_json("tides_of_gold", "obstacle_clock", "segments", "6", "dots=2")
    assert list(data) == ["ruleset", "roll", "field", "target", "inputs", "expected", "within"]
    assert (data["ruleset"], data["roll"], data["field"], data["target"], data["inputs"]) == \
        ("tides_of_gold", "obstacle_clock", "segments", 6, {"dots": 2})
    step = by_outcome(tog.odds("obstacle_clock", dots=2), OBSTACLE)
    want = fill.fill(step, 6)
    assert data["expected"] == ratio(want.expected) == "5899/1200"
    assert data["within"] == [{"rolls": k, "probability": ratio(p)} for k, p in enumerate(want.within, 1)]
    assert [row["probability"] for row in data["within"][:5]] == [
        ratio(brute_within(step, 6, k)) for k in range(1, 6)]
    assert fill_json("tides_of_gold", "obstacle_clock", "segments", "6")["inputs"] == {"dots": 1}  # the default


def test_fill_race_json(tog) -> None:  # type: ignore[no-untyped-def]
    data = fill_json("tides_of_gold", "obstacle_clock", "segments", "6", "dots=2",
                     "--against", "consequence_clock:segments", "4")
    race = data["race"]
    assert isinstance(race, dict)
    assert race["against"] == {"roll": "consequence_clock", "field": "segments", "target": 4,
                               "inputs": {"dots": 2}, "same_roll": False}
    want = fill.race(fill.independent(by_outcome(tog.odds("obstacle_clock", dots=2), OBSTACLE),
                                      by_outcome(tog.odds("consequence_clock", dots=2), CONSEQUENCE)), 6, 4)
    assert [race[k] for k in ("first", "second", "together", "expected")] == \
        [ratio(want.first), ratio(want.second), ratio(want.together), ratio(want.expected)]
    # the same roll marks both clocks: its amounts move together
    same = fill_json("tides_of_gold", "obstacle_clock", "segments", "6", "--against", "segments", "3")["race"]
    assert isinstance(same, dict) and same["against"]["same_roll"] is True
    step = by_outcome(tog.odds("obstacle_clock", dots=1), OBSTACLE)
    together = fill.race({(a, a): p for a, p in step.items()}, 6, 3)
    assert (same["first"], same["second"], same["expected"]) == \
        ("0/1", ratio(together.second), ratio(together.expected))
    # an input goes to each roll that has it
    split = fill_json("tides_of_gold", "obstacle_clock", "segments", "3", "wealth=2", "dots=0",
                      "--against", "coin_roll:coin_spent", "2")
    assert split["inputs"] == {"dots": 0}
    assert split["race"]["against"]["inputs"] == {"wealth": 2}  # type: ignore[index]


def test_values_that_read_the_dice() -> None:
    # errant's fall damage twice: a lookup whose band rolls 1D6 x 1D4, and a roll whose damage is its total
    table = fill_json("errant", "fall_damage_table", "damage", "20", "height=ft20")
    roll = fill_json("errant", "fall_damage", "damage", "20", "height=ft20")
    assert (table["expected"], table["within"]) == (roll["expected"], roll["within"])
    d6 = {n: F(1, 6) for n in range(1, 7)}
    burning = fill_json("errant", "burning", "damage", "10")
    assert burning["expected"] == ratio(recursive_expected(d6, 10))
    assert [row["probability"] for row in burning["within"][:4]] == [  # type: ignore[index]
        ratio(brute_within(d6, 10, k)) for k in range(1, 5)]
    # a value that counts the sixes of a pool the bands do not read: exact odds keep the faces apart for it
    pool = fill_json(FIXTURE, "pool", "hits", "2", "dice=2")
    assert pool["expected"] == ratio(recursive_expected({0: F(25, 36), 1: F(10, 36), 2: F(1, 36)}, 2))


def test_negative_steps_through_the_command() -> None:
    data = fill_json(FIXTURE, "tug", "progress", "3")
    step = {-1: F(1, 3), 1: F(1, 2), 2: F(1, 6)}
    assert data["expected"] == ratio(fill.expected_rolls(step, 3)) == "39/8"
    assert [row["probability"] for row in data["within"][:5]] == [  # type: ignore[index]
        ratio(brute_within(step, 3, k)) for k in range(1, 6)]


def test_fill_text() -> None:
    done = run("fill", "tides_of_gold", "obstacle_clock", "segments", "6", "dots=2",
               "--against", "consequence_clock:segments", "4")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "obstacle_clock: rolls until 6 segments (dots=2)"
    assert lines[1] == "  expected rolls: 5899/1200 = 4.916"
    assert "      2  29/1296                 2.238%  █" in lines
    race = "race: obstacle_clock segments 6 against consequence_clock segments 4 (one roll of each every round)"
    assert race in lines
    slow = run("fill", FIXTURE, "grind", "progress", "10")
    assert slow.returncode == 0 and slow.stdout.splitlines()[-1] == "  (stopped at 200 rolls, still under 99%)"
    capped = fill_json(FIXTURE, "grind", "progress", "10")
    assert capped["capped"] is True and len(capped["within"]) == 200  # type: ignore[arg-type]
    assert capped["expected"] == "200/1"


@pytest.mark.parametrize(("args", "message"), [
    (["tides_of_gold", "nope", "segments", "3"], "tides_of_gold has no roll or table named 'nope'; there are: "),
    (["tides_of_gold", "obstacle_clock", "segmentz", "6"],
     "no band of obstacle_clock gives 'segmentz'; the values its bands give are: segments"),
    (["tides_of_gold", "heritage_connect", "segments", "2"], "no band of heritage_connect gives 'segments'; its "
     "bands give no values"),
    (["tides_of_gold", "obstacle_clock", "segments", "0"], "N is how much fills the clock: a whole number of at "
     "least 1, not 0"),
    (["tides_of_gold", "obstacle_clock", "segments", "x"], "argument N: invalid int value: 'x'"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "dots=9"], "dots must be from 0 to 4, not 9"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "zz=1"], "obstacle_clock has no input 'zz'"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "dots"], "write inputs as key=value, not 'dots'"),
    (["tides_of_gold", "coin_roll", "complication", "2"],
     "complication of coin_roll is yes in band lose_coin_complication, not a whole number"),
    (["everrain", "sea_event_deck", "x", "2"], "sea_event_deck is a deck"),
    ([FIXTURE, "stuck", "progress", "2"],
     "stuck never gives progress above 0 (no inputs), so a clock of 2 never fills"),
    ([FIXTURE, "stuck", "mood", "2"], "mood of stuck is 'grim' in band still, not a whole number"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "--against", "nope:segments", "2"],
     "has no roll or table named 'nope'"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "--against", "consequence_clock:foo", "2"],
     "no band of consequence_clock gives 'foo'"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "--against", "segments", "x"],
     "--against takes [ROLL:]FIELD and M, a whole number of at least 1; not 'x'"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "--against", "segments", "0"], "M must be at least 1"),
    (["tides_of_gold", "obstacle_clock", "segments", "3", "zz=2", "--against", "coin_roll:coin_spent", "2"],
     "neither obstacle_clock nor coin_roll has an input 'zz'; their inputs are: obstacle_clock: dots; coin_roll: "
     "wealth"),
])
def test_every_mistake_is_one_line_and_exit_1(args: list[str], message: str) -> None:
    done = run("fill", *args)
    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert len([line for line in done.stderr.splitlines() if not line.startswith(("usage:", " "))]) == 1


def test_fill_is_in_the_completion_of_commands() -> None:
    from rulecraft.cli.complete import answer
    from rulecraft.cli.main import build_parser

    offered = [line.split("\t")[0] for line in answer(["zsh", "f"], build_parser).splitlines()[1:]]
    assert "fill" in offered
    rolls = [line.split("\t")[0] for line in answer(["zsh", "fill", "everrain", "sea"], build_parser).splitlines()[1:]]
    assert "sea_event_deck" not in rolls  # fill refuses decks
