"""Generated modules are typed: `mypy --strict` passes on the built rulesets and on every shape of resolver.

design.md promises it; this test is how CI keeps the promise. One mypy run checks the
modules in output/python (one per ruleset) and modules built here from small rulesets that exercise what
the five may not: one die, fixed dice, pools with a zero-dice fallback, dice sized by a
choice, custom dice (one with lost faces), re-rolls, `natural` and `when` bands, lets,
chains, carried values, band data that rolls dice, lookups by option and by number,
2-D tables, formulas of every kind of value, tracks, clocks, harm levels, markers,
decks and documents.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import api

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from tests.conftest import ROOT, RULESET_IDS

ROLLS = '''ruleset "Rolls"
  zero_dice: 2d6 lowest

type ladder: one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12)

die attack "Attack die" [T-1]
  sides: 6
  - hit "Hit"
      count: 3
  - double "Two hits"
      value: 2
  - miss "Miss"
      count: 2

die lost "Lost die" [T-2]
  sides: 6
  faces: unknown

roll one "One die" [T-3]
  roll: d6
  - 1-2: low "Low"
  - 3: mid "Mid"
  - 4, 6: high "High"

roll fixed "Fixed dice" [T-4]
  input bonus: -2..3 = 0
  roll: 3d6 keep highest 2 + bonus
  - natural 12: crit "Critical"
      doubled: yes
  - when natural = 2: fumble "Fumble"
  - 10+: hit "Hit"
      damage: total - 9
  - otherwise: miss "Miss"

roll pool "Pool" [T-5]
  input rating: 0..4 = 2
  roll: (rating)d6 highest
  - when count(6) >= 2 and not zero_dice: critical "Critical"
      best: highest
      worst: lowest
  - 6: success "Success"
  - 4/5: partial "Partial"
      stress: 1d6
  - 1-3: failure "Failure"

roll ladder_test "Ladder" [T-6]
  input die: ladder = d6
  input steps: -2..2 = 0
  input edge: one of none, advantage, disadvantage = none
  input dn: 1..12 = 4
  let rung = rank(die) + steps
  let adv = edge = advantage or rung > 5
  let next = step(die, steps)
  let named = "high" if rung > 3 else unknown
  roll: d(step(die, steps))
  roll if adv: 2d(step(die, steps)) highest
  roll if edge = disadvantage: 2d(step(die, steps)) lowest
  - when rung < 1: none "Cannot roll"
  - when total >= dn: pass "Pass"
      rung: rung
      die: next
      named: named
  - otherwise: fail "Fail"

roll contest "Contest" [T-7]
  input mine: ladder = d6
  input theirs: ladder = d6
  roll: d(mine) - d(theirs) + abs(rank(mine) - rank(theirs)) * 0 + sign(0) + clamp(0, -1, 1) + 7 / 2 - 7 % 2
  - when total = 0 and mine > theirs: win_tie "Win the tie"
  - 1+: win "Win"
  - 0: tie "Tie"
  - less than 0: lose "Lose"

roll fight "Fight" [T-8]
  input combat: 0..3 = 2
  input foes: 1..2 = 1
  roll: (combat) attack + (foes) lost
  - when count(hit) + total > count(miss): wound "Wound"
      damage: count(hit) + total - count(miss)
  - otherwise: parried "Parried"

roll push "Push your luck" [T-9]
  input stat: 2..12 = 7
  input bold: flag "Re roll a partial"
  input cursed: flag "Re roll a success"
  roll: 2d6 + 1
  reroll if bold: partial
  reroll if cursed: success or partial
  - 11+: success "Success"
  - when total >= stat and total <= 10: partial "Partial"
  - otherwise: failure "Failure"
'''

TABLES = '''ruleset "Tables"

type position: one of controlled "Controlled", risky "Risky", desperate "Desperate"

table weather "Weather" [T-1]
  input modifier: -2..2 = 0 "Carried from the last weather roll"
  input wild: flag "Roll on the wild table next"
  roll: 2d6 + modifier
  carry:
    modifier: next_roll
  - 2-8: calm "Calm"
      next_roll: 0
  - 9-11: clear "Clear skies" -> encounter
      next_roll: 2
  - 12+: storm "Storm" -> wild_encounter if wild else encounter
      next_roll: -2
  - otherwise: still "Still"

table encounter "Encounter" [T-2]
  roll: d6
  - 1-3: wolves "Wolves"
      count: 2d4
  - 4-6: bandits "Bandits"

table wild_encounter "Wild encounter" [T-3]
  roll: d100
  - 1-50: bear "A bear"
  - 51-100: nothing "Nothing"

lookup effect "Effect" [T-4]
  input where: position = risky
  key: where
  - controlled: great "Great effect"
  - risky: standard "Standard effect"
  - desperate: limited "Limited effect"

lookup by_number "By number" [T-5]
  input score: 0..20 = 10
  input tired: flag
  key: score - tired
  - 0-5: weak "Weak"
  - 6-15: fair "Fair"
      bonus: 1
  - 16+: strong "Strong"
      bonus: 2
  - otherwise: off "Off the scale"

lookup consequences "Consequences" [T-6]
  input where: position = risky
  input result: 1..6 = 4
  key: result
  columns by where:
    - controlled: controlled "Controlled"
    - risky: risky "Risky"
      harm: 1
    - desperate: desperate "Desperate"
  - 6: full "You do it." | "You do it." | "You do it."
  - 4/5: partial "Minor trouble." | "Trouble." | 2
      risky:
        harm: 2
        complication: yes
  - 1-3: bad "Worse." | — | 3

formula damage "Damage" [T-7]
  input might: 0..5 = 1
  input armed: flag
  let base = might * 2 + armed
  value: max(base - 1, 0)

formula next_die "Next die" [T-8]
  input where: position = risky
  value: step(where, 1) if where != desperate else where

formula maybe "Maybe" [T-9]
  input known: flag
  value: 3 if known else unknown

formula verdict "Verdict" [T-10]
  input a: 0..3 = 1
  value: a > 1 and not a = 3
'''

STATE = '''ruleset "State"

track stress "Stress" [T-1]
  size: 9
  on_full: "You break."

track pool_track "Unknown size" [T-2]
  size: unknown

clock project "Project" [T-3]
  size: 6
  start: 1

track harm "Harm" [T-4]
  levels:
    - 1: lesser "Lesser"
        boxes: 2
        penalty: "Reduced Effect"
    - 2: severe "Severe"
        boxes: 1
        penalty: "Need Help"
    - 3: fatal "Fatal"
  overflow: up

track health_strain "Health and strain" [T-5]
  size: unknown
  markers:
    damage: left
    strain: right
  on_full: "The crew member dies."

track discovery "Discovery" [T-6]
  size: 20
  markers:
    player: start
    enemy: start
  per_round:
    enemy: 1

deck events "Events" [T-7]
  piles: chapter
  - storm "Storm"
      text: "Lose a turn."
      copies: 3
      chapter: 1
  - kraken "Kraken"
      copies: 2
      chapter: 2

deck loot "Loot" [T-8]
  on_empty: reshuffle
  - coin "Coin"
      copies: 5
  - gem "Gem"

deck lost "Lost cards" [T-9]
  cards: unknown

priority targeting "Targeting" [T-10]
  nearest: distance
  - captain: "Captain"
  - most_damaged: "The most damaged"
      most: damage

list options "Options" [T-11]
  - "One"
  - two: "Two"

procedure steps "Steps" [T-12]
  - "First"
  - "Second"

rule plain "Plain" [T-13]
  text: "Just words."
'''

SHAPES = {
    "shapes_rolls": ROLLS,
    "shapes_tables": TABLES,
    "shapes_state": STATE,
    "shapes_dice_forms": (ROOT / "tests" / "fixtures" / "dice_forms.rules").read_text(encoding="utf-8"),
}


def test_generated_modules_pass_mypy_strict(tmp_path: Path) -> None:
    """The built modules and every shape above, in one mypy run: no errors, and every file checked."""
    paths = [str(ROOT / "output" / "python" / f"{rid}.py") for rid in RULESET_IDS]
    for name, text in SHAPES.items():
        path = tmp_path / f"{name}.py"
        path.write_text(generate(load_text(text, f"{name}.rules", name).checked), encoding="utf-8")
        paths.append(str(path))
    config = tmp_path / "mypy.ini"  # plain `mypy --strict`: none of the project's settings
    config.write_text("[mypy]\n", encoding="utf-8")
    limit = sys.getrecursionlimit()
    try:
        out, err, status = api.run(["--strict", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
                                    *paths])
    finally:
        sys.setrecursionlimit(limit)  # mypy raises it for the whole process
    assert (status, out, err) == (0, f"Success: no issues found in {len(paths)} source files\n", ""), (
        f"mypy --strict on the generated modules:\n{out}{err}")


USER_CODE = '''\
import random

import tides_of_gold as tog

result = tog.action_roll(dots=2, rng=random.Random(1))
reveal_type(result.outcome.id)
if result.outcome.id == "heroicc":  # a typo: mypy --strict says so
    print(result.trace)
'''


def test_a_users_code_sees_each_outcome_id_and_no_none_where_every_total_is_taken(tmp_path: Path) -> None:
    """A roll whose bands take every total (the check proves it) returns `Result[Outcome[Literal[...]]]`: a
    user's `result.outcome.id` needs no None check, and a misspelt outcome is a type error."""
    (tmp_path / "tides_of_gold.py").write_text((ROOT / "output" / "python" / "tides_of_gold.py").read_text(
        encoding="utf-8"), encoding="utf-8")
    (tmp_path / "bot.py").write_text(USER_CODE, encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    limit = sys.getrecursionlimit()
    try:
        out, _, status = api.run(["--strict", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"),
                                  str(tmp_path / "bot.py"), str(tmp_path / "tides_of_gold.py")])
    finally:
        sys.setrecursionlimit(limit)
    assert status == 1
    assert ("Revealed type is \"Literal['failure'] | Literal['costly'] | Literal['heroic'] | Literal['advantage']\""
            in out)
    assert "Non-overlapping equality check" in out and "heroicc" in out
    assert out.count("error:") == 1  # the typo alone: no `outcome` may be None here
