"""Hand-written resolvers: what a programmer would write with the standard library alone.

Each does what a compiled resolver does: the same input validation (the same
ValueError messages, in the same order), the same RNG calls (`_dice`: one
`getrandbits` pick among every roll of the dice, as the resolvers roll), and
the same result: the generated module's own `Result` and `Outcome` classes,
with the same dice, total, outcome, values and trace, the `Result` made by the
module's `_result` as the compiled resolvers make it. The bench asserts that
equality for many seeds and inputs before timing.

They are written plainly, as one would by hand for one game: outcomes and
their trace text as constants, no dice-expression machinery, and a new result
made on every call (a compiled resolver keeps the results it made).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any

Resolver = Callable[..., Any]

_ROLLS = {(count, sides): tuple(itertools.product(range(1, sides + 1), repeat=count))
          for count in range(1, 5) for sides in (6, 20) if sides ** count <= 4096}


def _dice(rng: random.Random, count: int, sides: int) -> tuple[int, ...]:
    """`count` dice of `sides` sides: one uniform pick among every roll of them (4d6's 1,296 at most), by
    rejection on `getrandbits` as `random.Random` picks; past that, each die so. The resolvers' own way."""
    rolls = _ROLLS.get((count, sides))
    if rolls is not None:
        bits = (len(rolls) - 1).bit_length()
        pick = rng.getrandbits(bits)
        while pick >= len(rolls):
            pick = rng.getrandbits(bits)
        return rolls[pick]
    bits = (sides - 1).bit_length()
    faces = []
    for _ in range(count):
        face = rng.getrandbits(bits)
        while face >= sides:
            face = rng.getrandbits(bits)
        faces.append(face + 1)
    return tuple(faces)


def _whole(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    if value < low or value > high:
        raise ValueError(f"{name} must be from {low} to {high}, not {value}")
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False (yes/no), not {value!r}")
    return value


def _choice(name: str, value: object, options: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; not {value!r}")
    return value


def _named(fn: Resolver) -> Resolver:
    """Name a resolver as its module-level twin is named (error messages quote it: `action_roll() got ...`)."""
    fn.__qualname__ = fn.__name__
    return fn


def _meaning(outcome: Any) -> str:
    """`key (column): label — text`, as the trace prints an outcome."""
    meaning = outcome.label if outcome.label != outcome.key else ""
    if outcome.text:
        meaning = f"{meaning} — {outcome.text}" if meaning else outcome.text
    where = f" ({outcome.column})" if outcome.column else ""
    return f"{outcome.key}{where}: {meaning}"


# ---------------------------------------------------------------- Tides of Gold: action roll


def tides_action_roll(module: ModuleType) -> Resolver:
    """Tides of Gold, action roll: 2d6 + dots (3d6 keep highest 2 with a bonus die), natural 12 first."""
    new_result, Outcome = module._result, module.Outcome
    failure = Outcome("failure", "Failure", "failure, face a complication (and mark", "6 or less", None)
    costly = Outcome("costly", "Costly", "costly success, act but face a complication", "7-9", None)
    heroic = Outcome("heroic", "Heroic", "heroic success, act without complications", "10+", None)
    advantage = Outcome("advantage", "Advantage", "succeed with an advantage; describe the advantage; when anyone "
                        "uses it, they get a bonus die", "natural 12", None)
    said = {o.id: _meaning(o) for o in (failure, costly, heroic, advantage)}
    edges = {"none": 0, "edge": 1, "major": 2}
    penalties = {"none": 0, "penalty": 1, "major": 2}

    def action_roll(*, dots: int = 1, bonus_die: bool = False, edge: str = "none", penalty: str = "none",
                    rng: random.Random | None = None) -> Any:
        _whole("dots", dots, 0, 4)
        _flag("bonus_die", bonus_die)
        _choice("edge", edge, ("none", "edge", "major"))
        _choice("penalty", penalty, ("none", "penalty", "major"))
        rng = rng if rng is not None else random.Random()
        dice: tuple[int, ...]
        if bonus_die:
            dice = _dice(rng, 3, 6)
            high = sorted(dice, reverse=True)
            kept: tuple[int, ...] = (high[0], high[1])
            rolled = f"3d6 keep highest 2: {dice[0]}, {dice[1]}, {dice[2]} (kept {high[0]}, {high[1]})"
        else:
            dice = kept = _dice(rng, 2, 6)
            a, b = dice
            rolled = f"2d6: {a}, {b}"
        natural = kept[0] + kept[1]
        total = natural + dots + edges[edge] - penalties[penalty]
        if natural == 12:
            outcome, values = advantage, {"advantage_token": True}
        elif total <= 6:
            outcome, values = failure, {"complication": True}
        elif total <= 9:
            outcome, values = costly, {"complication": True}
        else:
            outcome, values = heroic, {}
        if total != natural:
            rolled += f" → {natural} {'+' if total > natural else '-'} {abs(total - natural)} = {total}"
        trace = f"Action roll: rolled {rolled} → {said[outcome.id]}"
        inputs = {"dots": dots, "bonus_die": bonus_die, "edge": edge, "penalty": penalty}
        return new_result("action_roll", inputs, dice, kept, total, outcome, values, trace, ())

    return _named(action_roll)


# ---------------------------------------------------------------- Wyrd Wolds: action roll


_PROFILES = {
    "controlled": "*You act on your terms. You exploit a dominant advantage.*",
    "risky": "*You go head to head. You act under fire. You take a chance.*",
    "desperate": "*You overreach your capabilities. You're in serious trouble.*",
}
_PARTIAL = {
    "controlled": "You hesitate.\n- Withdraw and try a different approach, or\n- else do it with a minor consequence: "
                  "a **minor complication** occurs, you have **reduced effect**, you suffer **lesser harm**, you end "
                  "up in a **risky** position.",
    "risky": "You do it, but there's a consequence: you suffer **harm**, a **complication** occurs, you have "
             "**reduced effect**, you end up in a **desperate** position.",
    "desperate": "You do it, but there's a consequence: you suffer **severe harm**, a **serious complication** "
                 "occurs, you have **reduced effect**.",
}
_BAD = {
    "controlled": "You falter.\n- Press on by seizing a **risky** opportunity, or\n- withdraw and try a different "
                  "approach.",
    "risky": "Things go badly. You suffer **harm**, a **complication** occurs, you end up in a **desperate** "
             "position, you **lose this opportunity**.",
    "desperate": "It's the worst outcome. You suffer **severe harm**, a **serious complication** occurs, you **lose "
                 "this opportunity** for action.",
}
# The data each outcome carries, by position (xp and the profile are added for every outcome).
_DATA: dict[str, dict[str, dict[str, object]]] = {
    "critical": {"controlled": {"effect_levels": 1}, "risky": {"effect_levels": 1},
                 "desperate": {"effect_levels": 1}},
    "full": {"controlled": {}, "risky": {}, "desperate": {}},
    "partial": {
        "controlled": {"withdraw": True, "complication": "minor", "reduced_effect": True, "harm": 1,
                       "worse_position": "risky"},
        "risky": {"harm": 2, "complication": "standard", "reduced_effect": True, "worse_position": "desperate"},
        "desperate": {"harm": 3, "complication": "serious", "reduced_effect": True},
    },
    "bad": {
        "controlled": {"press_on": "risky", "withdraw": True, "gm_decides_effect": True},
        "risky": {"harm": 2, "complication": "standard", "worse_position": "desperate", "lost_opportunity": True,
                  "gm_decides_effect": True},
        "desperate": {"harm": 3, "complication": "serious", "lost_opportunity": True, "gm_decides_effect": True},
    },
}


def wyrd_action_roll(module: ModuleType) -> Resolver:
    """Wyrd Wolds, action roll: (rating + bonus dice)d6, highest die; two 6s a critical; zero dice: 2d6 lowest."""
    new_result, Outcome = module._result, module.Outcome
    positions = ("controlled", "risky", "desperate")
    columns = {"controlled": "CONTROLLED", "risky": "RISKY", "desperate": "DESPERATE"}
    critical_key = "when count(6) >= 2 and not zero_dice"
    outcomes = {
        p: {
            "critical": Outcome("critical", "Critical", "You do it with **increased effect**.", critical_key,
                                columns[p]),
            "full": Outcome("full", "6", "You do it.", "6", columns[p]),
            "partial": Outcome("partial", "4/5", _PARTIAL[p], "4/5", columns[p]),
            "bad": Outcome("bad", "1-3", _BAD[p], "1-3", columns[p]),
        }
        for p in positions
    }
    said = {(p, band): _meaning(o) for p in positions for band, o in outcomes[p].items()}
    values_of = {(p, band): {**_DATA[band][p], "profile": _PROFILES[p], "xp": 1 if p == "desperate" else 0}
                 for p in positions for band in _DATA}
    pushes = {"none": 0, "push": 1, "bargain": 1}

    def action_roll(*, rating: int = 1, position: str = "risky", assistance: bool = False,
                    push_or_bargain: str = "none", ability_dice: int = 0, moderate_harm: bool = False,
                    rng: random.Random | None = None) -> Any:
        _whole("rating", rating, 0, 4)
        _choice("position", position, positions)
        _flag("assistance", assistance)
        _choice("push_or_bargain", push_or_bargain, ("none", "push", "bargain"))
        _whole("ability_dice", ability_dice, 0, 2)
        _flag("moderate_harm", moderate_harm)
        rng = rng if rng is not None else random.Random()
        count = rating + min(assistance + pushes[push_or_bargain], 2) + ability_dice - moderate_harm
        dice: tuple[int, ...]
        if count <= 0:  # zero dice: roll two and take the lowest; no critical
            dice = _dice(rng, 2, 6)
            top = min(dice)
            rolled = f"2d6 lowest: {dice[0]}, {dice[1]} (kept {top})"
            critical = False
        else:
            dice = _dice(rng, count, 6)
            top = max(dice)
            shown = ", ".join(map(str, dice))
            rolled = (f"d6 highest: {shown}" if count == 1 else f"{count}d6 highest: {shown} (kept {top})")
            critical = dice.count(6) >= 2
        band = "critical" if critical else "full" if top == 6 else "partial" if top >= 4 else "bad"
        inputs = {"rating": rating, "position": position, "assistance": assistance,
                  "push_or_bargain": push_or_bargain, "ability_dice": ability_dice, "moderate_harm": moderate_harm}
        trace = f"ACTION ROLL: rolled {rolled} → {said[position, band]}"
        return new_result("action_roll", inputs, dice, (top,), top, outcomes[position][band],
                      dict(values_of[position, band]), trace, ())

    return _named(action_roll)


# ---------------------------------------------------------------- Errant: a d6 table and the check


def errant_exploration_event_die(module: ModuleType) -> Resolver:
    """Errant, exploration turn: a plain d6 table of six rows."""
    new_result, Outcome = module._result, module.Outcome
    rows = ("Encounter", "Rest (+1 negative Event Die) or gain 1 Exhaustion",
            "Burn all light sources or lower all Supply by 1. Deplete active Sorceries and Miracles by 1",
            "Local effect", "Encounter sign", "Free")
    outcomes = [Outcome(str(i), str(i), text, str(i), None) for i, text in enumerate(rows, start=1)]
    traces = [f"Exploration Turn Quick Reference: rolled d6: {i} → {i}: {text}" for i, text in enumerate(rows, 1)]

    def exploration_event_die(*, rng: random.Random | None = None) -> Any:
        face, = _dice(rng if rng is not None else random.Random(), 1, 6)
        return new_result("exploration_event_die", {}, (face,), (face,), face, outcomes[face - 1], {},
                      traces[face - 1], ())

    return _named(exploration_event_die)


def errant_check(module: ModuleType) -> Resolver:
    """Errant, check: d20 over DV and under the attribute (a DV below 0 always succeeds)."""
    new_result, Outcome = module._result, module.Outcome
    automatic = Outcome("automatic_success", "Automatic success", "If DV < 0, Check automatically succeeds.",
                        "when dv < 0", None)
    success = Outcome("success", "Success", None, "when total > dv and total < attribute", None)
    failure = Outcome("failure", "Failure", None, "otherwise", None)

    def check(*, dv: int = 4, attribute: int = 10, rng: random.Random | None = None) -> Any:
        _whole("dv", dv, -10, 30)
        _whole("attribute", attribute, 1, 20)
        roll, = _dice(rng if rng is not None else random.Random(), 1, 20)
        if dv < 0:
            outcome, values = automatic, {"success": True}
        elif dv < roll < attribute:
            outcome, values = success, {"success": True}
        else:
            outcome, values = failure, {"success": False}
        trace = f"Check: rolled d20: {roll} → {_meaning(outcome)}"
        return new_result("check", {"dv": dv, "attribute": attribute}, (roll,), (roll,), roll, outcome, values,
                          trace, ())

    return _named(check)
