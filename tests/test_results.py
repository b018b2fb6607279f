"""What a compiled resolver returns: its dice, its band and its trace, however the roll was compiled.

Rolls are compiled by shape (one die read straight into the locals, one fixed term,
a pool through the dice source; a table of named values as one look-up), and a
result's trace is told in words only when first read. These tests hold every shape
to the same behaviour a user relies on.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import pickle
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import band_table, generate
from tests.conftest import compile_module

SOURCE = """\
ruleset "Shapes"

roll event "Event die" [S-1]
  roll: d6
  - 1-2: quiet "Nothing stirs"
  - 3: sign "Tracks"
  - 4, 6: beast "A beast"

roll reaction "Reaction" [S-2]
  roll: 2d6
  - 2-5: hostile "Attacks"
  - 6-8: wary "Keeps away"
  - otherwise: friendly "Talks"

roll attack "Attack" [S-3]
  input bonus: 0..3 = 0
  roll: 3d6 keep highest 2 + bonus
  - natural 12: crit "Double damage"
  - 10+: hit "Hit"
  - otherwise: miss "Miss"

roll pool "Pool" [S-4]
  input rating: 1..4 = 2
  roll: (rating)d6 highest
  - 6: success "Success"
  - 4/5: partial "Partial"
  - 1-3: failure "Failure"
"""


class Scripted(random.Random):
    """An RNG whose randint returns preset faces: a user's test double must drive every shape of roll."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


@pytest.fixture(scope="module")
def shapes() -> Any:
    return compile_module(generate(load_text(SOURCE, "shapes.rules", "shapes").checked), "shapes_results")


@pytest.fixture(scope="module")
def checked() -> Any:
    return load_text(SOURCE, "shapes.rules", "shapes").checked


def test_one_die_table_reads_every_face_and_leaves_the_gap_unbanded(shapes: Any) -> None:
    got = {face: shapes.event(rng=Scripted([face])) for face in range(1, 7)}
    assert {face: r.outcome.id if r.outcome else None for face, r in got.items()} == {
        1: "quiet", 2: "quiet", 3: "sign", 4: "beast", 5: None, 6: "beast"}
    assert got[3].dice == got[3].kept == (3,) and got[3].total == 3
    assert got[3].trace == "Event die: rolled d6: 3 → 3: Sign — Tracks"
    assert got[5].trace == "Event die: rolled d6: 5 → no band takes this result"


def test_a_table_with_otherwise_sends_every_other_value_there(shapes: Any, checked: Any) -> None:
    reaction = next(r for r in checked.resolvers() if r.name == "reaction")
    table, default = band_table(reaction)  # type: ignore[misc]
    assert default == 2 and table[5] == 0 and table[8] == 1 and 9 not in table
    assert shapes.reaction(rng=Scripted([6, 6])).outcome.id == "friendly"
    assert shapes.reaction(rng=Scripted([1, 1])).outcome.id == "hostile"
    assert shapes.reaction(rng=Scripted([3, 4])).trace == "Reaction: rolled 2d6: 3, 4 → 6-8: Wary — Keeps away"


def test_rolls_with_special_bands_are_no_table(checked: Any) -> None:
    attack = next(r for r in checked.resolvers() if r.name == "attack")
    assert band_table(attack) is None  # `natural 12` and `10+` are tests, not a list of values


def test_kept_dice_and_pools_read_the_same_faces_as_rolled(shapes: Any) -> None:
    attack = shapes.attack(bonus=1, rng=Scripted([6, 2, 6]))
    assert (attack.dice, attack.kept, attack.total, attack.outcome.id) == ((6, 2, 6), (6, 6), 13, "crit")
    assert attack.trace == ("Attack: rolled 3d6 keep highest 2: 6, 2, 6 (kept 6, 6) → 12 + 1 = 13 → "
                            "natural 12: Crit — Double damage")
    pool = shapes.pool(rating=3, rng=Scripted([2, 5, 1]))
    assert (pool.dice, pool.kept, pool.total, pool.outcome.id) == ((2, 5, 1), (5,), 5, "partial")
    assert pool.trace == "Pool: rolled 3d6 highest: 2, 5, 1 (kept 5) → 4/5: Partial — Partial"


@pytest.mark.parametrize("name", ["event", "reaction", "attack", "pool"])
def test_a_seeded_roll_rolls_its_dice_as_draw_does_whatever_its_shape(shapes: Any, name: str) -> None:
    """Every shape of roll rolls what `_draw` rolls (one `randint` per die) and leaves the generator where
    `_draw` leaves it: the same seed, the same roll."""
    for seed in range(40):
        rng, again = random.Random(seed), random.Random(seed)
        seeded = getattr(shapes, name)(rng=rng)
        assert seeded.dice == shapes._draw(again, len(seeded.dice), 6)
        assert rng.getstate() == again.getstate()
    # and a user's test double that loads randint drives every shape
    assert getattr(shapes, name)(rng=Scripted([4, 1, 3, 2])).dice == (4, 1, 3, 2)[:len(seeded.dice)]


def test_draw_rolls_each_face_with_the_same_chance(shapes: Any) -> None:
    rng = random.Random(1)
    counts = Counter(shapes._draw(rng, 2, 6) for _ in range(36_000))
    assert len(counts) == 36 and all(abs(n - 1000) < 6 * 31 for n in counts.values())  # 6 sigma
    assert len(shapes._draw(rng, 1000, 1000)) == 1000 and shapes._draw(rng, 0, 6) == ()


def test_each_call_makes_its_own_plain_result(shapes: Any) -> None:
    first = shapes.attack(bonus=2, rng=random.Random(3))
    again = shapes.attack(bonus=2, rng=random.Random(3))
    assert again == first and again is not first  # same dice, same inputs: an equal result, made anew
    assert type(first.values) is dict and type(first.inputs) is dict  # the caller's own, to change at will
    first.values["note"] = "seen"  # type: ignore[index]
    assert "note" not in again.values
    assert json.dumps(again.inputs) == '{"bonus": 2}'
    assert pickle.loads(pickle.dumps(again)) == again and copy.deepcopy(again) == again
    # bad inputs are refused: True is no number, though True == 1
    with pytest.raises(ValueError, match="bonus must be a whole number"):
        shapes.attack(bonus=True, rng=random.Random(1))


def test_a_call_without_a_generator_rolls_with_the_modules_own(shapes: Any) -> None:
    faces = {shapes.event().total for _ in range(200)}
    assert faces == set(range(1, 7))  # a new roll each call, every face reached


class Level(enum.IntEnum):
    TWO = 2


def test_a_number_given_as_an_int_subclass_is_kept_as_the_number(shapes: Any) -> None:
    rolled = shapes.attack(bonus=Level.TWO, rng=random.Random(3))
    assert type(rolled.inputs["bonus"]) is int and rolled == shapes.attack(bonus=2, rng=random.Random(3))


def test_the_trace_is_text_wherever_it_is_read(shapes: Any) -> None:
    result = shapes.reaction(rng=random.Random(3))
    text = result.trace
    assert isinstance(text, str) and text.startswith("Reaction: rolled 2d6: ")
    assert text in repr(result) and result.as_dict()["trace"] == text
    assert dataclasses.asdict(result)["trace"] == text
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.trace = "changed"  # type: ignore[misc]


def test_a_resolver_result_is_the_frozen_dataclass_its_constructor_makes(shapes: Any) -> None:
    rolled = shapes.attack(bonus=1, rng=random.Random(5))
    fields = {f.name: getattr(rolled, f.name) for f in dataclasses.fields(shapes.Result)}
    made = shapes.Result(**fields)
    assert type(rolled) is shapes.Result and rolled == made and repr(rolled) == repr(made)
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rolled, name, None)


def test_a_roll_of_several_fixed_rules_rolls_the_one_its_inputs_choose() -> None:
    """The first rule whose condition holds is rolled, else the first without one (a second plain
    line, as a fuzzed file had, is never rolled, as in the odds)."""
    source = SOURCE.split("\n\n")[0] + '''

roll stance "Stance" [S-5]
  input mode: one of calm, bold = calm
  roll: 2d6 + 1
  roll: d4
  roll if mode = bold: 3d6 keep highest 2 - 1
  - 9+: high "High"
  - otherwise: low "Low"
'''
    module = compile_module(generate(load_text(source, "stance.rules", "stance").checked), "stance_results")
    calm = module.stance(rng=random.Random(4))
    faces = module._draw(random.Random(4), 2, 6)
    assert (calm.dice, calm.total) == (faces, sum(faces) + 1)
    bold = module.stance(mode="bold", rng=random.Random(4))
    faces3 = module._draw(random.Random(4), 3, 6)
    assert (bold.dice, bold.total) == (faces3, sum(sorted(faces3)[1:]) - 1)
    assert module.stance(rng=Scripted([5, 2])).dice == (5, 2)  # loaded dice: asked die by die
    assert module.odds("stance")["high"] == Fraction(15, 36)  # 2d6 + 1 >= 9: 8 or more on 2d6
