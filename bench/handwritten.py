"""Hand-written resolvers: what a person would write for one game with the standard library alone.

`rng.randint(1, sides)` for each die (the module's own `random.randint` when no `rng` is given), a few
`if`s, input checks that raise `ValueError`, and a small frozen dataclass as the result: the dice, the
total, the outcome's id and the outcome's data. No caches, no tables of every roll, no bit tricks, no
trace text. The bench times the generated resolvers against these (section 1) and checks, before timing,
that each twin rolls the same distribution as its generated resolver's exact `odds()`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Twin = Callable[..., "Roll"]


@dataclass(frozen=True)
class Roll:
    dice: tuple[int, ...]
    total: int
    outcome: str
    values: Mapping[str, object]


# ---------------------------------------------------------------- Tides of Gold: action roll

_EDGE = {"none": 0, "edge": 1, "major": 2}
_PENALTY = {"none": 0, "penalty": 1, "major": 2}


def tides_action_roll(*, dots: int = 1, bonus_die: bool = False, edge: str = "none", penalty: str = "none",
                      rng: random.Random | None = None) -> Roll:
    """2d6 + dots (3d6 keep highest 2 with a bonus die), plus an edge, minus a penalty; a natural 12 first."""
    if not isinstance(dots, int) or not 0 <= dots <= 4:
        raise ValueError(f"dots must be a whole number from 0 to 4, not {dots!r}")
    if not isinstance(bonus_die, bool):
        raise ValueError(f"bonus_die must be True or False, not {bonus_die!r}")
    if edge not in _EDGE:
        raise ValueError(f"edge must be one of none, edge, major; not {edge!r}")
    if penalty not in _PENALTY:
        raise ValueError(f"penalty must be one of none, penalty, major; not {penalty!r}")
    randint = rng.randint if rng is not None else random.randint
    if bonus_die:
        dice: tuple[int, ...] = (randint(1, 6), randint(1, 6), randint(1, 6))
        natural = dice[0] + dice[1] + dice[2] - min(dice)
    else:
        dice = (randint(1, 6), randint(1, 6))
        natural = dice[0] + dice[1]
    total = natural + dots + _EDGE[edge] - _PENALTY[penalty]
    if natural == 12:
        return Roll(dice, total, "advantage", {"advantage_token": True})
    if total <= 6:
        return Roll(dice, total, "failure", {"complication": True})
    if total <= 9:
        return Roll(dice, total, "costly", {"complication": True})
    return Roll(dice, total, "heroic", {})


# ---------------------------------------------------------------- Wyrd Wolds: action roll

_POSITIONS = ("controlled", "risky", "desperate")
_PUSH = {"none": 0, "push": 1, "bargain": 1}
_PROFILE = {
    "controlled": "*You act on your terms. You exploit a dominant advantage.*",
    "risky": "*You go head to head. You act under fire. You take a chance.*",
    "desperate": "*You overreach your capabilities. You're in serious trouble.*",
}
_XP = {"controlled": 0, "risky": 0, "desperate": 1}
_CONSEQUENCES: dict[str, dict[str, dict[str, object]]] = {  # outcome, then position
    "critical": {p: {"effect_levels": 1} for p in _POSITIONS},
    "full": {p: {} for p in _POSITIONS},
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
_WYRD_VALUES = {(outcome, p): {**data, "profile": _PROFILE[p], "xp": _XP[p]}
                for outcome, by_position in _CONSEQUENCES.items() for p, data in by_position.items()}


def wyrd_action_roll(*, rating: int = 1, position: str = "risky", assistance: bool = False,
                     push_or_bargain: str = "none", ability_dice: int = 0, moderate_harm: bool = False,
                     rng: random.Random | None = None) -> Roll:
    """A pool of d6s, the highest counts; two 6s are a critical; no dice: roll two and take the lowest."""
    if not isinstance(rating, int) or not 0 <= rating <= 4:
        raise ValueError(f"rating must be a whole number from 0 to 4, not {rating!r}")
    if position not in _PROFILE:
        raise ValueError(f"position must be one of controlled, risky, desperate; not {position!r}")
    if not isinstance(assistance, bool):
        raise ValueError(f"assistance must be True or False, not {assistance!r}")
    if push_or_bargain not in _PUSH:
        raise ValueError(f"push_or_bargain must be one of none, push, bargain; not {push_or_bargain!r}")
    if not isinstance(ability_dice, int) or not 0 <= ability_dice <= 2:
        raise ValueError(f"ability_dice must be a whole number from 0 to 2, not {ability_dice!r}")
    if not isinstance(moderate_harm, bool):
        raise ValueError(f"moderate_harm must be True or False, not {moderate_harm!r}")
    randint = rng.randint if rng is not None else random.randint
    count = rating + min(assistance + _PUSH[push_or_bargain], 2) + ability_dice - moderate_harm
    dice: tuple[int, ...]
    if count <= 0:
        dice = (randint(1, 6), randint(1, 6))
        top = min(dice)
        critical = False
    else:
        dice = tuple([randint(1, 6) for _ in range(count)])
        top = max(dice)
        critical = dice.count(6) >= 2
    if critical:
        outcome = "critical"
    elif top == 6:
        outcome = "full"
    elif top >= 4:
        outcome = "partial"
    else:
        outcome = "bad"
    return Roll(dice, top, outcome, _WYRD_VALUES[outcome, position])


# ---------------------------------------------------------------- Errant: a d6 table and the check


def errant_exploration_event_die(*, rng: random.Random | None = None) -> Roll:
    """A d6 table of six rows: the row's id is the face."""
    face = rng.randint(1, 6) if rng is not None else random.randint(1, 6)
    return Roll((face,), face, str(face), {})


def errant_check(*, dv: int = 4, attribute: int = 10, rng: random.Random | None = None) -> Roll:
    """d20 over the DV and under the attribute; a DV below 0 always succeeds."""
    if not isinstance(dv, int) or not -10 <= dv <= 30:
        raise ValueError(f"dv must be a whole number from -10 to 30, not {dv!r}")
    if not isinstance(attribute, int) or not 1 <= attribute <= 20:
        raise ValueError(f"attribute must be a whole number from 1 to 20, not {attribute!r}")
    roll = rng.randint(1, 20) if rng is not None else random.randint(1, 20)
    if dv < 0:
        return Roll((roll,), roll, "automatic_success", {"success": True})
    if dv < roll < attribute:
        return Roll((roll,), roll, "success", {"success": True})
    return Roll((roll,), roll, "failure", {"success": False})
