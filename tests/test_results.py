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
import itertools
import json
import pickle
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from compiler.api import load_text
from compiler.codegen import band_table, generate
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
    """Fixed dice are rolled inline, a pool through a `_Tape` on its first roll and `_throw` after:
    all of them roll what `_draw` rolls, and leave the generator where it leaves it."""
    for seed in range(40):
        rng, again = random.Random(seed), random.Random(seed)
        seeded = getattr(shapes, name)(rng=rng)
        assert seeded.dice == shapes._draw(again, len(seeded.dice), 6)
        assert rng.getstate() == again.getstate()
    # and a generator that is not a plain random.Random is asked die by die, with randint
    assert getattr(shapes, name)(rng=Scripted([4, 1, 3, 2])).dice == (4, 1, 3, 2)[:len(seeded.dice)]


def test_draw_picks_any_roll_of_the_dice_with_the_same_chance(shapes: Any) -> None:
    rolls, number, bits = shapes._listed(3, 6)
    assert sorted(rolls) == sorted(itertools.product(range(1, 7), repeat=3)) and number == 216
    assert 2 ** (bits - 1) < number <= 2 ** bits  # as few bits as pick one: at most half the draws go again
    rng = random.Random(1)
    counts = Counter(shapes._draw(rng, 2, 6) for _ in range(36_000))
    assert len(counts) == 36 and all(abs(n - 1000) < 6 * 31 for n in counts.values())  # 6 sigma
    faces = Counter(shapes._draw(rng, 5, 6) for _ in range(2_000))  # 7,776 rolls: not listed, die by die
    assert shapes._listed(5, 6)[0] == () and all(len(roll) == 5 for roll in faces)
    assert set(itertools.chain.from_iterable(faces)) == set(range(1, 7))
    assert len(shapes._draw(rng, 1000, 1000)) == 1000 and shapes._draw(rng, 0, 6) == ()


def test_a_roll_keeps_its_results_and_hands_the_same_one_out_again(shapes: Any) -> None:
    first = shapes.attack(bonus=2, rng=random.Random(3))
    again = shapes.attack(bonus=2, rng=random.Random(3))
    assert again is first  # same dice, same inputs: the result kept
    shapes._MEMO_attack.clear()
    made = shapes.attack(bonus=2, rng=random.Random(3))
    assert made is not first and made == first  # made anew, equal
    with pytest.raises(TypeError, match="cannot be changed"):
        first.values["damage"] = 3  # type: ignore[index]
    with pytest.raises(TypeError, match="cannot be changed"):
        first.inputs.update(bonus=3)  # type: ignore[attr-defined]
    assert dict(first.inputs) == {"bonus": 2} and json.dumps(first.inputs) == '{"bonus": 2}'
    bare = shapes.event(rng=random.Random(1))  # no inputs, no values: the one empty frozen dict
    with pytest.raises(TypeError, match="cannot be changed"):
        bare.values.setdefault("seen", True)  # type: ignore[attr-defined]
    assert bare.inputs == bare.values == {} and pickle.loads(pickle.dumps(bare)) == bare
    assert pickle.loads(pickle.dumps(first)) == first and copy.deepcopy(first) == first
    # a pool: the dice the inputs throw are noted on their first roll
    pool = shapes.pool(rating=3, rng=random.Random(8))
    assert shapes._THROWN_pool[(3,)][0][:2] == (3, 6) and shapes.pool(rating=3, rng=random.Random(8)) is pool
    assert shapes.pool(rating=3, rng=Scripted([2, 5, 1])).dice == (2, 5, 1)  # loaded dice, through _throw
    # 4d6 can fall 1,296 ways, more than a roll keeps: made anew each time, nothing noted
    four = shapes.pool(rating=4, rng=random.Random(8))
    assert shapes.pool(rating=4, rng=random.Random(8)) == four is not shapes.pool(rating=4, rng=random.Random(8))
    assert (4,) not in shapes._THROWN_pool and all(given != (4,) for _, given in shapes._MEMO_pool)
    # bad inputs are refused whatever was kept: True is no number, though True == 1
    shapes.pool(rating=1, rng=random.Random(1))
    with pytest.raises(ValueError, match="rating must be a whole number"):
        shapes.pool(rating=True, rng=random.Random(1))


def test_a_roll_keeps_only_so_many_results() -> None:
    source = SOURCE.split("\n\n")[0] + '''

roll big "Big" [S-9]
  input mode: 1..2 = 1
  roll: d1000
  - otherwise: any "Any"
'''
    module = compile_module(generate(load_text(source, "big.rules", "big").checked), "big_results")
    rng = random.Random(2)
    for _ in range(3 * module.MAX_REMEMBERED):
        assert 1 <= module.big(rng=rng).total <= 1000
    assert 0 < len(module._MEMO_big) <= module.MAX_REMEMBERED


class Level(enum.IntEnum):
    TWO = 2


def test_a_number_given_as_an_int_subclass_is_kept_as_the_number(shapes: Any) -> None:
    rolled = shapes.attack(bonus=Level.TWO, rng=random.Random(3))
    assert type(rolled.inputs["bonus"]) is int and rolled == shapes.attack(bonus=2, rng=random.Random(3))


def test_the_trace_is_text_wherever_it_is_read(shapes: Any) -> None:
    result = shapes.reaction(rng=random.Random(3))
    twin = shapes.reaction(rng=random.Random(3))
    assert result == twin  # compared before either trace was read: equality reads them
    text = result.trace
    assert isinstance(text, str) and text.startswith("Reaction: rolled 2d6: ")
    assert result.trace is text  # told once, then kept
    assert text in repr(twin)
    assert result.as_dict()["trace"] == text
    assert dataclasses.asdict(result)["trace"] == text
    assert dataclasses.replace(result, seed=5).trace == text
    assert pickle.loads(pickle.dumps(shapes.reaction(rng=random.Random(3)))).trace == text
    assert copy.deepcopy(shapes.reaction(rng=random.Random(3))).trace == text
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.trace = "changed"  # type: ignore[misc]


def test_a_resolver_result_is_the_frozen_dataclass_its_constructor_makes(shapes: Any) -> None:
    rolled = shapes.attack(bonus=1, rng=random.Random(5))
    fields = {f.name: getattr(rolled, f.name) for f in dataclasses.fields(shapes.Result)}
    made = shapes.Result(**fields)
    assert type(rolled) is shapes.Result and rolled == made and repr(rolled) == repr(made)
    assert list(vars(rolled)) == list(fields)  # every field is the result's own, none left to a class default
    for name in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rolled, name, None)
    shapes._MEMO_attack.clear()  # made anew, not handed out again (see test_a_roll_keeps_its_results)
    unread = shapes.attack(bonus=1, rng=random.Random(5))
    assert type(vars(unread)["trace"]) is tuple  # not told yet ...
    assert type(unread.__getstate__()["trace"]) is str  # ... but pickled and copied as text
    assert vars(unread)["trace"] == rolled.trace


def test_a_roll_of_several_fixed_rules_rolls_the_one_its_inputs_choose() -> None:
    """Rules of one fixed term each are rolled straight into the resolver: the first rule whose
    condition holds, else the first without one (a second plain line, as a fuzzed file had, is
    never rolled, as in the odds)."""
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
