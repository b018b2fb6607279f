"""The resolver runtime: standard library only, copied verbatim into every generated module.

Generated modules hold this tested code, then data literals and thin
compiled functions (Lark's standalone pattern). The compiler's own odds
stage uses the same dice combinatorics (`dice_readings`, `combined_readings`),
so the exact fractions on the sheets and the generated `odds()` come from one
tested implementation, while band selection is compiled separately and
checked against it by the test-suite.
"""

###{runtime
# ---------------------------------------------------------------------------------------------------------------------
# Rulecraft's runtime: the same in every module Rulecraft generates (compiler/runtime.py, copied as it is). It holds the
# types results are made of (Result, Outcome, Group, Simulation, the Track and Deck classes ...: see __all__) and the
# machinery the rolls below call. That machinery is private: names starting with `_`, and every name not in
# __all__, may change in any release. The ruleset's own data and rolls follow the end of this section.
# ---------------------------------------------------------------------------------------------------------------------
import random
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from math import comb
from typing import Any as _Any
from typing import Generic as _Generic  # typing-only names kept private: a rule may be named `overload`
from typing import Literal as _Literal  # noqa: F401  (generated code types outcome ids with it)
from typing import NamedTuple, TypeVar
from typing import NoReturn as _NoReturn
from typing import Protocol as _Protocol
from typing import cast as _cast

MAX_DICE = 1000  # dice in one roll of one term
MAX_SIDES = 1000  # sides of one die
MAX_CHAIN = 16  # tables one roll chains through
MAX_OUTCOMES = 2_000_000  # joint readings of a roll's dice groups exact odds work through
MAX_SIMULATED = 100_000_000  # results one simulate() call draws
MAX_BOXES = 1000  # boxes of a track or segments of a clock (the sheet draws each)
MAX_MARKED = 10 * MAX_BOXES  # boxes one mark() or clear() of a track moves
MAX_TICKS = 100  # ticks one box of a track holds (the sheet draws each)
MAX_CARDS = 10_000  # cards of one deck, every copy counted


_Id = TypeVar("_Id", bound=str, covariant=True)


@dataclass(frozen=True, slots=True)
class Outcome(_Generic[_Id]):
    """The band or row a roll landed on."""

    id: _Id
    label: str
    text: str | None
    key: str = ""
    column: str | None = None


_Face = TypeVar("_Face", bound=int | str, covariant=True)


class Group(NamedTuple, _Generic[_Face]):
    """One dice term of a roll, as rolled (a named tuple: a roll makes one per term, so it is made cheaply).

    `Group[int]` is a term of numbered dice, `Group[str]` of custom dice with symbols.
    """

    notation: str
    dice: tuple[_Face, ...]
    kept: tuple[_Face, ...]
    value: int


class Held(NamedTuple):
    """A named group of dice (`let challenge = 2d10`) as a roll's expressions read it: its value, how many of
    its dice show each face (in exact odds, only the faces its reads tell apart), and how many dice it has."""

    value: int
    faces: Mapping[int, int]
    size: int


def held_count(held: Held, test: Callable[[int], bool]) -> int:
    """How many dice of a named group pass `test` (`count(challenge < total)`)."""
    return sum(n for face, n in held.faces.items() if test(face))


def held_most(held: Held) -> int:
    """The most dice of a named group showing one face (2 or more: doubles)."""
    return max(held.faces.values(), default=0)


class Effect(NamedTuple):
    """What an outcome does to the game's state (a band's `mark consequence_clock 2`), its amount worked out for
    the roll that landed there. `Game.roll` applies it; a plain resolver call only reports it.

    `verb` is mark, clear, gain, spend, set, carry or roll; `target` what it acts on (for `carry`, the roll;
    for `roll`, the table); `amount` None: 1 to mark, all to clear; `level` a harm level; `input` the input of
    the next roll a `carry` adds to; `words` the effect as the sheet says it; `marker` the marker a `mark` moves
    on a track with several (`mark health_strain 2 by strain`; None: its first)."""

    verb: str
    target: str
    amount: int | None
    level: int | None
    input: str | None
    words: str
    marker: str | None = None


_Landed = TypeVar("_Landed", bound="Outcome[str] | None", covariant=True)


@dataclass(frozen=True, slots=True)
class Result(_Generic[_Landed]):
    """One resolution: what was rolled, what was kept, the total and the outcome.

    `Result[Outcome[Literal["failure", "costly", "heroic"]]]`: a roll's resolver says which outcomes it
    can land on, and leaves out `None` where its bands take every total.
    """

    name: str
    inputs: Mapping[str, object]
    dice: tuple[int | str, ...]
    kept: tuple[int | str, ...]
    total: int | None
    outcome: _Landed
    values: Mapping[str, object]
    trace: str
    chain: tuple["AnyResult", ...] = ()  # every table rolled after this one (`->`), in order, each with its own chain
    seed: int | None = None
    rerolled: tuple["AnyResult", ...] = ()  # the first roll, when a `reroll:` rule rolled again
    flags: tuple[str, ...] = ()  # the rule's `flags:` this result raises (a match, a glitch), in the rules' order
    effects: tuple[Effect, ...] = ()  # what the outcome does to the game's state (Game.roll applies them)

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of a roll (see docs/reference.md)."""
        return {
            "name": self.name,
            "inputs": dict(self.inputs),
            "dice": list(self.dice) if self.dice or self.kept else None,
            "kept": list(self.kept) if self.dice or self.kept else None,
            "total": self.total,
            "outcome": None if self.outcome is None else {
                "id": self.outcome.id,
                "label": self.outcome.label,
                "text": self.outcome.text,
                "column": self.outcome.column,
            },
            "values": {k: v for k, v in self.values.items()},
            "chain": [link.as_dict() for link in self.chain],
            "trace": self.trace,
            "seed": self.seed,
            "rerolled": [first.as_dict() for first in self.rerolled],
            "flags": list(self.flags),
            "effects": [effect._asdict() for effect in self.effects],
        }


AnyResult = Result["Outcome[str] | None"]  # a result of any roll or table


@dataclass(frozen=True, slots=True)
class Entry:
    """One item of a list, one step of a procedure (with its sub-steps), with its data."""

    id: str | None
    label: str | None
    text: str | None
    values: Mapping[str, object] = field(default_factory=dict)
    children: tuple["Entry", ...] = ()


@dataclass(frozen=True, slots=True)
class Document:
    """A list, procedure or text-only rule, as data: what the sheet prints, for programs to read."""

    name: str
    kind: str
    label: str
    text: str | None
    entries: tuple[Entry, ...] = ()
    details: Mapping[str, object] = field(default_factory=dict)

    def texts(self) -> list[str | None]:
        return [entry.text for entry in self.entries]


@dataclass(frozen=True, slots=True)
class Faces:
    """A custom die: the symbol on each side and what each side is worth (`die attack` in the rules)."""

    name: str
    symbols: tuple[str, ...]
    values: tuple[int, ...]

    def check(self) -> None:
        if not self.symbols:
            raise ValueError(f"the faces of the {self.name} die are to be supplied (the document lost them)")


# ---------------------------------------------------------------- dice: one term, its operators

MAX_EXPLOSIONS = 100  # times one die explodes in a roll (a d6 gets that far once in 6^100 rolls)
MAX_EXPLODED_VALUE = 100_000  # values of an exploding group exact odds list one by one, before the rest


@dataclass(frozen=True, slots=True)
class DiceSpec:
    """One group of dice as rolled: `count` dice of `sides` sides (a custom die's symbols and worths in
    `die`), then each operator in `ops`, in order: `("highest", 2)` is `keep highest 2`, `("explode", 0)`
    is `!`. `cap` is for exact odds of an exploding group only: the values up to it are listed one by one,
    and every higher value lands on one reading (`cap + 1`), which the roll's bands read alike."""

    count: int
    sides: int
    ops: tuple[tuple[str, int], ...] = ()
    die: Faces | None = None
    cap: int | None = None

    @property
    def notation(self) -> str:
        """`3d6 keep highest 2`, `d6!`, `2 attack`: the dice as rolled."""
        if self.die is not None and self.die.name in ("dF", "d66", "d666"):  # the field's own (model.BUILTIN_DICE)
            base = f"{self.count if self.count != 1 else ''}{self.die.name}"
        elif self.die is not None:
            base = f"{self.count} {self.die.name}"
        else:
            base = f"{self.count}d{self.sides}" if self.count != 1 else f"d{self.sides}"
        return base + "".join(OPERATORS[name].notation(arg) for name, arg in self.ops)


def _dice(count: int, sides: int, ops: tuple[tuple[str, int], ...] = (), die: Faces | None = None,
         cap: int | None = None) -> DiceSpec:
    """The spec of a group as rolled: a pool's count worked out (none below 0), keeping at most every die."""
    count = max(count, 0)
    ops = tuple((name, min(arg, count)) if name in ("highest", "lowest") else (name, arg) for name, arg in ops)
    return DiceSpec(count, sides, ops, die, cap)


class _Keep:
    """`keep highest 2`, `highest` (and lowest): only the `arg` highest (lowest) dice are read; all are rolled."""

    def __init__(self, highest: bool) -> None:
        self.word = "highest" if highest else "lowest"

    def notation(self, arg: int) -> str:
        return f" {self.word}" if arg == 1 else f" keep {self.word} {arg}"

    def words(self, arg: int) -> str:
        return ""  # the notation says it in words already

    def roll(self, rng: random.Random, spec: DiceSpec, arg: int, rolled: list[int],
             kept: list[int]) -> tuple[list[int], list[int]]:
        if len(kept) <= 1:
            return rolled, kept
        return rolled, sorted(kept, reverse=self.word == "highest")[:arg]

    def readings(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool,
                 low: bool) -> tuple[list["Reading"], int]:
        """The group's readings (`dice_readings`), over every roll of its dice."""
        readings = dice_readings(spec.count, spec.sides, self.word, arg, spec.die, counted, high, low)
        return readings, spec.sides ** max(spec.count, 0)

    def cost(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool, low: bool) -> int:
        return _readings_cost(spec, self.word, arg, counted, high, low)


EXPLODE_TIMES = 10_000  # an exploding operator's argument: the face it explodes on + EXPLODE_TIMES x its limit
FINITE_EXPLOSIONS = 10  # a limit up to this: exact odds list every total (no horizon); past it, as `d6!` does


def explode_arg(least: int, times: int) -> int:
    """The argument of `!` or `!!`: `on 9+ at most 3 times` is 30009 (0 + 0: the highest face, without limit)."""
    return least + EXPLODE_TIMES * times


def explode_parts(arg: int) -> tuple[int, int]:
    """The face an exploding die explodes on (0: its highest) and how many times at most (0: without limit)."""
    return arg % EXPLODE_TIMES, arg // EXPLODE_TIMES


class _Explode:
    """`d6!`: a die showing its highest face is rolled again and the new die added, again and again.
    `d10! on 9+` (arg 9): a die showing 9 or more explodes; arg 0 is the highest face. `at most 2 times`
    (`explode_arg`): a die explodes twice at most, so three rolls of it at most.
    `d6!!` (compounding): the same rolls, added into the die that exploded, which then shows their sum
    (a group of 3d6!! is three dice, each possibly above 6), so `keep highest` can follow it."""

    def __init__(self, compound: bool) -> None:
        self.compound = compound

    def notation(self, arg: int) -> str:
        least, times = explode_parts(arg)
        limit = "" if not times else " once" if times == 1 else f" at most {times} times"
        return ("!!" if self.compound else "!") + (f" on {least}+" if least else "") + limit

    def words(self, arg: int) -> str:
        least, times = explode_parts(arg)
        shown = "its highest face" if not least else f"{least} or more"
        how = "at most once" if times == 1 else f"at most {times} times" if times else "and again"
        if self.compound:
            return f"compounds: a die showing {shown} is rolled again and the roll added into the same die, {how}"
        return f"explodes: a die showing {shown} is rolled again and added, {how}"

    def roll(self, rng: random.Random, spec: DiceSpec, arg: int, rolled: list[int],
             kept: list[int]) -> tuple[list[int], list[int]]:
        least, times = explode_parts(arg)
        least = least or spec.sides
        limit = min(times, MAX_EXPLOSIONS) if times else MAX_EXPLOSIONS
        out: list[int] = []
        for face in kept:
            out.append(face)
            for _ in range(limit):
                if face < least:
                    break
                face = rng.randint(1, spec.sides)
                if self.compound:
                    out[-1] += face
                else:
                    out.append(face)
        return out, out

    def one_die(self, spec: DiceSpec, arg: int) -> tuple[dict[int, int], int, int]:
        """One die, followed roll by roll: the weight of each value up to `spec.cap` (every value when the
        die explodes a few times at most and has no cap), the weight of all values past the cap together, and
        the denominator (sides ** rolls followed). A partial sum still exploding goes on; one past the cap joins
        the high reading whatever follows."""
        sides, cap = spec.sides, spec.cap
        least, times = explode_parts(arg)
        if sides < 2 or spec.die is not None or (cap is None and not 0 < times <= FINITE_EXPLOSIONS):
            raise ValueError(f"{spec.notation} has no exact odds here")
        if cap is not None and cap > MAX_EXPLODED_VALUE:
            raise ValueError(f"exact odds of {spec.notation} would list more than {MAX_EXPLODED_VALUE:,} values")
        least, depth = least or sides, _exploded_depth(spec, arg)
        one: dict[int, int] = {}
        alive = {0: 1}  # partial sums still exploding after k rolls, over sides^k
        for k in range(depth):
            rest = sides ** (depth - 1 - k)  # the rolls not made, for a die that stopped here
            last = times and k == times  # the last roll it may make: whatever it shows, it stops
            following: dict[int, int] = {}
            for partial, weight in alive.items():
                for face in range(1, sides + 1):
                    value = partial + face
                    if cap is not None and value > cap:
                        continue  # past the cap: the high reading, whatever follows
                    if face >= least and not last:
                        following[value] = following.get(value, 0) + weight
                    else:
                        one[value] = one.get(value, 0) + weight * rest
            alive = following
        return one, sides ** depth - sum(one.values()), sides ** depth

    def readings(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool,
                 low: bool) -> tuple[list["Reading"], int]:
        """Each value up to `spec.cap` with its exact weight, and one reading (`cap + 1`) for all above.

        One die is followed roll by roll (`one_die`), then the dice are convolved, every sum past the cap
        joining the one high reading. The weights are over S^(n*K), K the rolls of one die followed
        (`_exploded_depth`: each explosion adds at least the face it explodes on). Compounded dice add up to
        the same totals."""
        if counted or counted is None or high or low:
            raise ValueError(f"the bands of {spec.notation} can read its total only")
        one, one_high, whole = self.one_die(spec, arg)
        cap = spec.cap
        sums, high_weight = {0: 1}, 0
        for _ in range(max(spec.count, 0)):
            following: dict[int, int] = {}
            total_weight = sum(sums.values())
            high_weight = high_weight * whole + total_weight * one_high
            for value, weight in sums.items():
                for face, times in one.items():
                    if cap is None or value + face <= cap:
                        following[value + face] = following.get(value + face, 0) + weight * times
                    else:
                        high_weight += weight * times
            sums = following
        out: list[Reading] = [(value, Tally(), None, None, weight) for value, weight in sums.items()]
        if high_weight and cap is not None:
            out.append((cap + 1, Tally(), None, None, high_weight))
        return out, whole ** max(spec.count, 0)

    def faces(self, spec: DiceSpec, arg: int, lowest: bool) -> tuple[list["Face"], int]:
        """A compounded die as a die of weighted faces (highest first, or lowest first): each value up to the
        cap, and one face `cap + 1` for every value past it (above every value kept apart, so keeping the
        highest or lowest dice keeps it exactly where the true value would be); and their denominator."""
        one, one_high, whole = self.one_die(spec, arg)
        faces: list[Face] = [(None, value, value, one[value]) for value in sorted(one, reverse=not lowest)]
        if one_high and spec.cap is not None:
            high_face: Face = (None, spec.cap + 1, spec.cap + 1, one_high)
            faces = [*faces, high_face] if lowest else [high_face, *faces]
        return faces, whole

    def kept_readings(self, spec: DiceSpec, arg: int, mode: str, keep: int, high: bool,
                      low: bool) -> tuple[list["Reading"], int]:
        """`3d6!! keep highest 2`: the compounded dice walked as weighted faces (`faces`), as `_Reroll` does."""
        count = max(spec.count, 0)
        faces, whole = self.faces(spec, arg, mode == "lowest")
        return _read(faces, count, min(keep, count), high, low), whole ** count

    def kept_cost(self, spec: DiceSpec, arg: int, mode: str, keep: int, high: bool, low: bool) -> int:
        """Following one die (as `cost` does for one), then the walk over as many faces as it can show, three
        times a walk of equal faces (measured: the weights of a compounded die are long numbers)."""
        count, depth = max(spec.count, 0), _exploded_depth(spec, arg)
        shown = min(depth * spec.sides, spec.cap + 1 if spec.cap is not None else depth * spec.sides)
        faces: list[Face] = [(None, value, value, 1) for value in range(max(shown, 1), 0, -1)]
        bits = count * depth * spec.sides.bit_length()
        one = self.cost(DiceSpec(1, spec.sides, spec.ops, spec.die, spec.cap), arg, frozenset(), False, False)
        return one + 3 * _faces_cost(faces, count, min(keep, count), high, low, bits)

    def cost(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool, low: bool) -> int:
        """Every partial sum up to the cap (or the highest value), times every value one die adds."""
        depth = _exploded_depth(spec, arg)
        cap = max(spec.cap if spec.cap is not None else depth * spec.sides * max(spec.count, 0), 0)
        return max(spec.count, 0) * (cap + 1) * (min(cap, depth * spec.sides) + 1) // 2 + 1


class _Reroll:
    """`reroll 1-2`: each die whose face passes the test `arg` is rolled again, once, and the new face stands.

    `arg` holds the faces in one int: face f passes when bit f is set. A test open upwards (`reroll 5+`) is a
    negative int, `-(1 << 5)`: every bit from the 5th up is set, so it passes every face from 5 up on any die.
    The syntax (`parse.reroll_dice`) makes it, codegen writes it as it is; `_face_runs` reads it back."""

    def notation(self, arg: int) -> str:
        return " reroll " + ", ".join(str(low) if high == low else f"{low}+" if high is None else f"{low}-{high}"
                                      for low, high in _face_runs(arg))

    def words(self, arg: int) -> str:
        parts = [f"{low} or more" if high is None else str(low) if high == low else f"{low} to {high}"
                 for low, high in _face_runs(arg)]
        shown = ("a " + parts[0] if parts[0].isdigit() else parts[0]) if len(parts) == 1 else \
            ", ".join(parts[:-1]) + " or " + parts[-1]
        return f"re-rolls each die showing {shown}, once: the new roll stands"

    def roll(self, rng: random.Random, spec: DiceSpec, arg: int, rolled: list[int],
             kept: list[int]) -> tuple[list[int], list[int]]:
        final = [rng.randint(1, spec.sides) if arg >> face & 1 else face for face in kept]
        return rolled + [new for old, new in zip(kept, final, strict=True) if arg >> old & 1], final

    def faces(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None) -> list["Face"]:
        """Each face with its ways over sides^2 rolls of one die: kept as rolled (a face the test passes not), or
        rolled again from any face the test passes."""
        sides = spec.sides
        again = sum(arg >> f & 1 for f in range(1, sides + 1))
        return [(f if counted is None or f in counted else None, f, f, sides * (1 - (arg >> f & 1)) + again)
                for f in range(sides, 0, -1)]

    def readings(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool,
                 low: bool) -> tuple[list["Reading"], int]:
        count = max(spec.count, 0)
        faces = self.faces(spec, arg, counted)
        if low:
            faces.reverse()
        return _read(faces, count, count, high, low), spec.sides ** (2 * count)

    def cost(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool, low: bool) -> int:
        count = max(spec.count, 0)
        return _faces_cost(self.faces(spec, arg, counted), count, count, high, low, 2 * count * spec.sides.bit_length())


def _face_runs(test: int) -> list[tuple[int, int | None]]:
    """The faces a re-roll test passes (`_Reroll`), as runs from low to high: `(5, None)` is 5 and up."""
    open_from = (~test).bit_length() if test < 0 else None  # every face from here up passes
    top = open_from - 1 if open_from is not None else test.bit_length() - 1
    runs: list[tuple[int, int | None]] = []
    start: int | None = None
    for face in range(1, top + 2):
        if face <= top and test >> face & 1:
            start = face if start is None else start
        elif start is not None:
            runs.append((start, face - 1))
            start = None
    if open_from is not None:
        runs.append((open_from, None))
    return runs


class _RerollLowest:
    """`reroll lowest 2`: the `arg` lowest dice (the first rolled of equal faces) are rolled again, once, and the
    new faces stand. Exact odds: the dice that stay are the highest `count - arg` of the first roll (a walk over its
    multisets, top face first, with multinomial weights), then the fresh dice are added to every reading."""

    def notation(self, arg: int) -> str:
        return " reroll lowest" if arg == 1 else f" reroll lowest {arg}"

    def words(self, arg: int) -> str:
        return ("re-rolls the lowest die" if arg == 1 else f"re-rolls the {arg} lowest dice") + ", once: the new " \
            "roll stands"

    def roll(self, rng: random.Random, spec: DiceSpec, arg: int, rolled: list[int],
             kept: list[int]) -> tuple[list[int], list[int]]:
        lowest = sorted(sorted(range(len(kept)), key=kept.__getitem__)[:max(arg, 0)])
        final = list(kept)
        for i in lowest:
            final[i] = rng.randint(1, spec.sides)
        return rolled + [final[i] for i in lowest], final

    def readings(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool,
                 low: bool) -> tuple[list["Reading"], int]:
        if spec.die is not None:
            raise ValueError(f"{spec.notation}: a die of symbols has no lowest die")
        count = max(spec.count, 0)
        again = min(max(arg, 0), count)
        staying = _highest_staying(spec.sides, count, count - again, counted, high, low)
        fresh = dice_readings(again, spec.sides, "sum", 0, None, counted, high, low)
        joint: dict[tuple[int, tuple[tuple[int | str, int], ...], int | None, int | None], int] = {}
        for value, shown, top, bottom, weight in staying:
            for value2, shown2, top2, bottom2, weight2 in fresh:
                tally = dict(shown)
                for face, n in shown2.items():
                    tally[face] = tally.get(face, 0) + n
                key = (value + value2, tuple(sorted(tally.items(), key=str)),
                       top2 if top is None else top if top2 is None else max(top, top2),
                       bottom2 if bottom is None else bottom if bottom2 is None else min(bottom, bottom2))
                joint[key] = joint.get(key, 0) + weight * weight2
                if len(joint) > MAX_READINGS:
                    raise TooManyReadings()
        readings = [(value, Tally(shown), top, bottom, weight) for (value, shown, top, bottom), weight in joint.items()]
        return readings, spec.sides ** (count + again)

    def cost(self, spec: DiceSpec, arg: int, counted: frozenset[int | str] | None, high: bool, low: bool) -> int:
        """The walk over the first roll (faces x partial readings x ways to place the dice left), the fresh dice's
        own readings, and every pair of a staying and a fresh reading."""
        count = max(spec.count, 0)
        again = min(max(arg, 0), count)
        sides = max(spec.sides, 1)
        keep = count - again
        staying = _reading_shapes(sides, keep, counted, high, low)
        fresh = _reading_shapes(sides, again, counted, high, low)
        walk, labelled = 0, 0
        # the partial readings before the i-th face from the top, each of fewer than `keep` dice
        for i in range(1, sides + 1 if keep > 0 else 1):
            states = min(comb(keep - 1 + i - 1, i - 1), keep * ((keep - 1) * (i - 2) + 1 if i > 1 else 1)
                         * keep ** labelled * ((i - 1) if high and i > 1 else 1) * ((i - 1) if low and i > 1 else 1))
            walk += states * (count + 1)
            labelled += counted is None or sides - i + 1 in counted
            if walk > 10**15:
                break
        merged = 4 + 2 * (sides if counted is None else len(counted))  # a pair: its tallies merged and sorted
        return walk + _readings_cost(DiceSpec(again, sides), "sum", 0, counted, high, low) + merged * staying * fresh


def _reading_shapes(sides: int, dice: int, counted: frozenset[int | str] | None, high: bool, low: bool) -> int:
    """At most how many distinct readings `dice` dice of `sides` sides have: every multiset where every face is
    counted, else the totals times the counts of each counted face times the highest and lowest faces."""
    multisets = comb(dice + sides - 1, sides - 1)
    if counted is None:
        return multisets
    shapes = (dice * (sides - 1) + 1) * (sides if high else 1) * (sides if low else 1)
    for face in counted:
        if isinstance(face, int) and 1 <= face <= sides:
            shapes *= dice + 1
    return min(multisets, shapes)


# a partial reading of the dice staying: dice placed, total, counts, top and bottom face
_Partial = tuple[int, int, tuple[tuple[int | str, int], ...], int | None, int | None]


def _highest_staying(sides: int, count: int, keep: int, counted: frozenset[int | str] | None, high: bool,
                     low: bool) -> list["Reading"]:
    """The readings of the `keep` highest of `count` dice, the others not read (they are rolled again): faces walked
    from the top, j dice on each (C(left, j) ways); once `keep` dice are placed the rest lie on lower faces."""
    if keep <= 0:
        return [(0, Tally(), None, None, sides ** count)]
    states: dict[_Partial, int] = {(0, 0, (), None, None): 1}
    done: dict[tuple[int, tuple[tuple[int | str, int], ...], int | None, int | None], int] = {}
    for face in range(sides, 0, -1):
        label = face if counted is None or face in counted else None
        following: dict[_Partial, int] = {}
        for (placed, total, counts, top, bottom), weight in states.items():
            left = count - placed
            for j in range(0 if face > 1 else left, left + 1):
                k = min(j, keep - placed)
                shown = (*counts, (face, k)) if label is not None and k else counts
                new_top = face if high and k and top is None else top
                new_bottom = face if low and k else bottom
                ways = weight * comb(left, j)
                if placed + j >= keep:
                    key = (total + k * face, shown, new_top, new_bottom)
                    done[key] = done.get(key, 0) + ways * (face - 1) ** (left - j)
                else:
                    state = (placed + j, total + k * face, shown, new_top, new_bottom)
                    following[state] = following.get(state, 0) + ways
            if len(following) > MAX_READINGS:
                raise TooManyReadings()
        states = following
    return [(total, Tally(counts), top, bottom, weight) for (total, counts, top, bottom), weight in done.items()]


def _exploded_depth(spec: DiceSpec, arg: int = 0) -> int:
    """How many rolls of one exploding die its exact odds follow: enough to pass `spec.cap` (each explosion
    adds at least the face it explodes on, or the highest face), and no more than its limit allows."""
    least, times = explode_parts(arg)
    if spec.cap is None:
        return times + 1
    depth = max(spec.cap, 0) // (least or spec.sides) + 1
    return min(depth, times + 1) if times else depth


OPERATORS: dict[str, _Keep | _Explode | _Reroll | _RerollLowest] = {
    "highest": _Keep(True), "lowest": _Keep(False), "explode": _Explode(False), "compound": _Explode(True),
    "reroll": _Reroll(), "reroll_lowest": _RerollLowest()}
EXPLODING = ("explode", "compound")  # the operators whose dice explode (the checker gives them a horizon)
_REROLLED = frozenset({"reroll", "reroll_lowest"})  # operators after which a die shows its new face, not its first


def _roll_dice(rng: random.Random, spec: DiceSpec) -> "Group[int | str]":
    """Roll one group: `count` dice (`randint` each), then its operators in order."""
    rolled = list(_draw(rng, spec.count, spec.sides))
    kept = rolled
    for name, arg in spec.ops:
        rolled, kept = OPERATORS[name].roll(rng, spec, arg, rolled, kept)
    die = spec.die
    if die is None:
        return Group(spec.notation, tuple(rolled), tuple(kept), sum(kept))
    symbols = tuple(die.symbols[side - 1] for side in rolled)
    shown = tuple(die.symbols[side - 1] for side in kept)
    return Group(spec.notation, symbols, shown, sum(die.values[side - 1] for side in kept))


def spec_readings(spec: DiceSpec, counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                  low: bool = False, valued: bool = True,
                  merged: tuple[tuple[int, ...], ...] = ()) -> tuple[list["Reading"], int]:
    """The distinct readings of one group (see `dice_readings`) and the denominator of their weights."""
    if _compound_kept(spec):
        (_, arg), (mode, keep) = spec.ops
        if counted:
            raise ValueError(f"the bands of {spec.notation} can read its total only")
        return _COMPOUND.kept_readings(spec, arg, mode, keep, high, low)
    if len(spec.ops) > 1:
        raise ValueError(f"exact odds of {spec.notation} (several operators on one group) are not worked out yet")
    if spec.ops:
        name, arg = spec.ops[0]
        return OPERATORS[name].readings(spec, arg, counted, high, low)
    readings = dice_readings(spec.count, spec.sides, "sum", 0, spec.die, counted, high, low, valued, merged)
    return readings, spec.sides ** max(spec.count, 0)


_COMPOUND = _Explode(True)


def _compound_kept(spec: DiceSpec) -> bool:
    """`3d6!! keep highest 2`: compounded dice, then some kept (the one pair of operators with exact odds)."""
    return len(spec.ops) == 2 and spec.ops[0][0] == "compound" and spec.ops[1][0] in ("highest", "lowest")


def _check_spec(spec: DiceSpec, written: str) -> None:
    """The hard caps on one group (`written`: as the rules write it, naming the input that sets a pool)."""
    if spec.die is not None:
        spec.die.check()
    if spec.count > MAX_DICE or not 1 <= spec.sides <= MAX_SIDES:
        shown = spec.notation
        check_dice(spec.count, spec.sides, written if written == shown else f"{written} = {shown}")
    if spec.count <= 0 and any(name in ("highest", "lowest") for name, _ in spec.ops):
        keep = next(name for name, _ in spec.ops if name in ("highest", "lowest"))
        raise ValueError(f"{written}: a pool of {spec.count} dice has no {keep} die")


def _draw(rng: random.Random, count: int, sides: int) -> tuple[int, ...]:
    """Roll `count` dice of `sides` sides: the faces, in the order rolled, one `randint` each."""
    randint = rng.randint
    return tuple([randint(1, sides) for _ in range(count)])


_RNG = random.Random()  # what a resolver rolls with when the caller gives no generator (seeded by the system)


def check_dice(count: int, sides: int, notation: str) -> None:
    """The hard caps on one dice term: MAX_DICE dice, each of 1 to MAX_SIDES sides."""
    if count > MAX_DICE:
        raise ValueError(f"{notation} would roll {count:,} dice; the limit is {MAX_DICE:,}")
    if not 1 <= sides <= MAX_SIDES:
        raise ValueError(f"{notation} would roll a die of {sides:,} sides; a die has 1 to {MAX_SIDES:,}")


def count_text(number: int) -> str:
    """A count for a message: `68,923,264,410`, or `about 10^58` past a quadrillion."""
    return f"{number:,}" if number < 10**15 else f"about 10^{len(str(number)) - 1}"


class Tally(dict[int | str, int]):
    """The faces of a roll, counted: what bands read of the dice (`count(6)`) in exact odds."""

    __slots__ = ()

    def count(self, face: int | str) -> int:
        return self.get(face, 0)


class TooManyReadings(ValueError):
    """Exact odds of one group would work through more than MAX_READINGS readings."""

    def __init__(self) -> None:
        super().__init__(f"exact odds of these dice would work through more than {MAX_READINGS:,} readings")


Reading = tuple[int, Tally, int | None, int | None, int]  # value, faces counted, highest, lowest kept, weight
MAX_READINGS = 2_000_000  # distinct readings of one dice group exact odds work through


def dice_readings(count: int, sides: int, mode: str, keep: int, die: Faces | None = None,
                  counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                  low: bool = False, valued: bool = True, merged: tuple[tuple[int, ...], ...] = ()) -> list[Reading]:
    """Every distinct way one dice group can read, with its number of orderings, without listing rolls.

    A reading is (value, counts of the `counted` faces (every face if None), highest kept die,
    lowest kept die, weight); the weights sum to sides ** count (every value 0 unless `valued`: a
    named group read only die by die; then the faces of each class of `merged` are counted as its first).
    Only what a roll's bands read is kept apart, so 1,000d6
    summed is 5,001 readings, not 10^778 rolls or 10^10 multisets.

    A plain sum is a power of the die's polynomial (J. C. P. Miller's recurrence: O(count x sides)
    big-integer steps). Anything else walks the faces once, top face first for `highest` (bottom
    first for `lowest`), choosing how many dice show each face (binomial weights); a partial
    reading stops early, with its remaining dice spread over the remaining faces in one power,
    as soon as nothing still to come can change it.
    """
    if count > MAX_DICE:
        raise ValueError(f"{count} dice is more than the limit of {MAX_DICE}")
    count = max(count, 0)
    faces, mode, keep, high, low = _faces(sides, mode, keep, die, counted, high, low, valued, merged)
    kept_dice = count if mode == "sum" else min(keep, count)
    if counted is None and comb(len(faces) + count - 1, count) > MAX_READINGS:  # every multiset is a reading
        raise TooManyReadings()
    return _read(faces, count, kept_dice, high, low)


def _read(faces: list["Face"], count: int, kept_dice: int, high: bool, low: bool) -> list[Reading]:
    """The readings of `count` dice over `faces` (each with the number of ways it shows): a plain sum is a
    power of the die's polynomial, anything else a walk down the faces."""
    if not high and not low and kept_dice == count and all(label is None for label, _, _, _ in faces):
        return _summed(faces, count)
    return _walked(faces, count, kept_dice, high, low)


Face = tuple[int | str | None, int | None, int, int]  # label (None: not counted), face, value, sides showing it


MAX_WORK = 1_000_000  # steps (readings_cost) the exact odds of one dice group may take: about 0.4 s


def readings_cost(spec: DiceSpec, counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                  low: bool = False, valued: bool = True, merged: tuple[tuple[int, ...], ...] = ()) -> int:
    """About how many steps `spec_readings(spec, counted, high, low)` takes, worked out before the work.

    A step is about 0.4 microseconds of CPython (fitted to timings of sums, pools kept highest and
    lowest, success counts and exploding dice, 1 to 1,000 dice of 2 to 1,000 sides); the estimate
    errs high. A plain sum costs its coefficients times the die's faces (a big-integer step grows with
    the digits of sides ** count); a walk costs its partial readings times the ways to place the dice
    left (and grows with the count: binomials and powers of a thousand dice are long numbers).
    """
    if _compound_kept(spec) and spec.count > 0:
        (_, arg), (mode, keep) = spec.ops
        return _COMPOUND.kept_cost(spec, arg, mode, keep, high, low)
    if len(spec.ops) > 1 or spec.count <= 0:
        return 1
    if spec.ops:
        name, arg = spec.ops[0]
        return OPERATORS[name].cost(spec, arg, counted, high, low)
    return _readings_cost(spec, "sum", 0, counted, high, low, valued, merged)


def _readings_cost(spec: DiceSpec, name: str, arg: int, counted: frozenset[int | str] | None, high: bool,
                   low: bool, valued: bool = True, merged: tuple[tuple[int, ...], ...] = ()) -> int:
    """`readings_cost` of `dice_readings(spec.count, spec.sides, name, arg, ...)`: a sum, or a pool kept."""
    count = max(spec.count, 0)
    bits = count * max(spec.sides, len(spec.die.symbols) if spec.die else 1).bit_length()
    faces, mode, keep, high, low = _faces(spec.sides, name, arg, spec.die, counted, high, low, valued, merged)
    kept = count if mode == "sum" else min(keep, count)
    if counted is None and comb(len(faces) + count - 1, count) > MAX_READINGS:
        return 1  # every multiset is a reading: dice_readings refuses it at once (TooManyReadings)
    return _faces_cost(faces, count, kept, high, low, bits)


def _faces_cost(faces: list["Face"], count: int, kept: int, high: bool, low: bool, bits: int) -> int:
    """The steps `_read` takes over these faces: a polynomial power, or a walk."""
    if not high and not low and kept == count and all(label is None for label, _, _, _ in faces):
        values = {value for _, _, value, _ in faces}
        coefficients, terms = (max(values) - min(values)) * count + 1, len(values) - 1  # a term: one multiply-add
        operations = coefficients * (terms + 8) - min(coefficients, terms) ** 2 // 2  # coefficient k: min(k, terms)
        return operations * (4000 + bits) // 8000 + 1
    return _walk_cost(faces, count, kept, high, low) * 3 * (40_000 + count * count) // 80_000 + 1


def _walk_cost(faces: list[Face], count: int, kept: int, high: bool, low: bool) -> int:
    """A bound on the partial readings `_walked` makes and the ways it places dice, face by face.

    Before face i the partial readings number at most the ways to place up to `count` dice on the
    faces before it (C(count + i, i)), and at most the shapes they can take (dice placed, the total,
    the counts of the counted faces seen, the highest and lowest kept face). Once no counted face is
    to come, only readings with fewer than `kept` dice placed go on; the rest are done in one step."""
    last_counted = max((i + 1 for i, face in enumerate(faces) if face[0] is not None), default=0)
    work, states, weighted = 0, 1, count + 1  # states: partial readings; weighted: the ways they go on
    low_value = high_value = free_low = free_high = None  # the values seen, and those of faces not counted
    labelled = 0
    placings = 1  # C(count + i - 1, i - 1): the ways to place up to `count` dice on the faces before face i
    short = 1  # C(kept - 1 + i - 1, i - 1): the same for up to kept - 1 dice
    for i, (label, _, value, _) in enumerate(faces, start=1):
        tops = (i if high else 1) * (i if low else 1)
        if i > last_counted:  # only readings with fewer than `kept` dice go on
            spread = 0 if low_value is None or high_value is None else high_value - low_value
            going = min(states, short if kept > 0 else 0,
                        kept * ((kept - 1) * spread + 1) * comb(kept - 1 + labelled, labelled) * tops)
            step = min(going * (count + 1), weighted)
            work += states + step
        else:
            step = min(placings * (count + i) // i, states * (count + 1), weighted)
            work += step
        if work > 10**15:  # far past any limit: no need to be exact
            return work
        low_value = value if low_value is None else min(low_value, value)
        high_value = value if high_value is None else max(high_value, value)
        if label is None:
            free_low = value if free_low is None else min(free_low, value)
            free_high = value if free_high is None else max(free_high, value)
        else:
            labelled += 1
        tops = ((i + 1) if high else 1) * ((i + 1) if low else 1)
        if kept >= count:  # a sum: the counts seen, then m dice on faces not counted (m x their spread + 1 totals)
            a = labelled
            if free_low is None or free_high is None:
                shapes, ways = comb(count + a, a), comb(count + a + 1, a + 1)
            else:
                spread = free_high - free_low
                shapes = comb(count + a + 1, a + 1) + spread * comb(count + a + 1, a + 2)
                ways = comb(count + a + 2, a + 2) + spread * comb(count + a + 2, a + 3)
        else:
            shapes = (count + 1) * (kept * (high_value - low_value) + 1) * comb(count + labelled, labelled)
            ways = 0
        placings = placings * (count + i) // i
        short = short * (kept - 1 + i) // i if kept > 0 else 0
        states = min(step, placings, shapes * tops)
        weighted = ways * tops if ways else states * (count + 1)
    return work


def fitting_text(spec: DiceSpec, counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                 low: bool = False) -> str:
    """What would fit under MAX_WORK instead of `spec`: the most dice of its kind, or its count of a smaller die."""
    def fits(count: int, sides: int) -> bool:
        return readings_cost(DiceSpec(count, sides, spec.ops, spec.die, spec.cap), counted, high, low) <= MAX_WORK

    def largest(low_end: int, high_end: int, works: Callable[[int], bool]) -> int:  # the last that fits
        while low_end < high_end:
            middle = (low_end + high_end + 1) // 2
            low_end, high_end = (middle, high_end) if works(middle) else (low_end, middle - 1)
        return low_end

    fewer = largest(0, spec.count, lambda n: fits(n, spec.sides))
    options = [DiceSpec(fewer, spec.sides, spec.ops, spec.die, spec.cap).notation] if fewer else []
    if spec.die is None and not any(name in EXPLODING for name, _ in spec.ops):
        smaller = largest(1, spec.sides, lambda s: fits(spec.count, s))
        if fits(spec.count, smaller) and smaller > 1:
            options.append(DiceSpec(spec.count, smaller, spec.ops).notation)
    return " or ".join(options) + " would fit" if options else "no group of these dice fits"


def too_much_work(spec: DiceSpec, counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                  low: bool = False, valued: bool = True, merged: tuple[tuple[int, ...], ...] = ()) -> str | None:
    """Why `spec`'s exact odds are refused before any work (readings_cost past MAX_WORK), or None."""
    cost = readings_cost(spec, counted, high, low, valued, merged)
    return None if cost <= MAX_WORK else work_refusal(spec, cost, counted, high, low)


def work_refusal(spec: DiceSpec, cost: int, counted: frozenset[int | str] | None = frozenset(), high: bool = False,
                 low: bool = False, written: str = "") -> str:
    """What is too big (`spec`, as `written` in the rules if given, its estimated `cost`, the limit) and what
    would fit instead."""
    about = count_text(cost)
    shown = f"{written} = {spec.notation}" if written and written != spec.notation else spec.notation
    return (f"exact odds of {shown} would take {'' if about.startswith('about') else 'about '}{about} steps "
            f"to work out; the limit is {MAX_WORK:,} (about 0.4 s); {fitting_text(spec, counted, high, low)}")


def _faces(sides: int, mode: str, keep: int, die: Faces | None, counted: frozenset[int | str] | None, high: bool,
           low: bool, valued: bool = True, merged: tuple[tuple[int, ...], ...] = ()) -> tuple[
               list[Face], str, int, bool, bool]:
    """The faces `dice_readings` walks, in order (a custom die's alike faces as one), and what it reads of them.
    Of a sum whose value nobody reads (`valued` False), the faces nothing counts are one face worth 0."""
    if die is not None:  # custom dice: summed, counted by symbol, never read as numbers
        classes: dict[tuple[int | str | None, int], int] = {}
        for symbol, value in zip(die.symbols, die.values, strict=True):
            label = symbol if counted is None or symbol in counted else None
            classes[label, value] = classes.get((label, value), 0) + 1
        return [(label, None, value, times) for (label, value), times in classes.items()], "sum", 0, False, False
    order = range(sides, 0, -1) if mode != "lowest" else range(1, sides + 1)
    if not valued and mode == "sum" and not high and not low:
        firsts = {cls[0]: len(cls) for cls in merged}  # a class of faces counted as its first
        others = {face for cls in merged for face in cls[1:]}
        shown = [(f, f, 0, firsts.get(f, 1)) for f in order if (counted is None or f in counted) and f not in others]
        rest = sides - sum(times for _, _, _, times in shown)
        return shown + ([(None, None, 0, rest)] if rest else []), mode, keep, high, low
    return [(f if counted is None or f in counted else None, f, f, 1) for f in order], mode, keep, high, low


def _summed(faces: list[tuple[int | str | None, int | None, int, int]], count: int) -> list[Reading]:
    weights: dict[int, int] = {}
    for _, _, value, times in faces:
        weights[value] = weights.get(value, 0) + times
    least = min(weights)
    poly = [0] * (max(weights) - least + 1)
    for value, times in weights.items():
        poly[value - least] = times
    power = polynomial_power(poly, count)
    offset = least * count
    nothing_counted = Tally()  # a plain sum counts no face; one empty tally, never written to, serves all
    return [(offset + i, nothing_counted, None, None, w) for i, w in enumerate(power) if w]


def polynomial_power(poly: list[int], n: int) -> list[int]:
    """Coefficients of poly(x) ** n, poly[0] != 0: a[k] = sum_j ((n + 1) j - k) p[j] a[k - j] / (k p[0])."""
    degree = len(poly) - 1
    size = degree * n + 1
    out = [0] * size
    out[0] = poly[0] ** n
    first = poly[0]
    terms = [(j, poly[j]) for j in range(1, degree + 1) if poly[j]]
    for k in range(1, size):
        acc = 0
        for j, p in terms:
            if j > k:
                break
            acc += ((n + 1) * j - k) * p * out[k - j]
        out[k] = acc // (k * first)
    return out


def _walked(faces: list[tuple[int | str | None, int | None, int, int]], count: int, kept_dice: int,
            high: bool, low: bool) -> list[Reading]:
    # state: (dice placed, value, counts, highest kept, lowest kept) -> weight
    states: dict[tuple[int, int, tuple[tuple[int | str, int], ...], int | None, int | None], int] = {
        (0, 0, (), None, None): 1}
    done: dict[tuple[int, tuple[tuple[int | str, int], ...], int | None, int | None], int] = {}
    labelled_after = [False] * (len(faces) + 1)
    sides_after = [0] * (len(faces) + 1)
    for i in range(len(faces) - 1, -1, -1):
        labelled_after[i] = labelled_after[i + 1] or faces[i][0] is not None
        sides_after[i] = sides_after[i + 1] + faces[i][3]
    work = 0
    for i, (label, face, value, times) in enumerate(faces):
        last = i == len(faces) - 1
        following: dict[tuple[int, int, tuple[tuple[int | str, int], ...], int | None, int | None], int] = {}
        for (placed, total, counts, top, bottom), weight in states.items():
            left = count - placed
            if placed >= kept_dice and not labelled_after[i]:  # nothing to come changes this reading
                key = (total, counts, top, bottom)
                done[key] = done.get(key, 0) + weight * sides_after[i] ** left
                continue
            for j in range(left if last else 0, left + 1):
                kept = min(j, max(kept_dice - placed, 0))
                new_counts = (*counts, (label, j)) if label is not None and j else counts
                new_top, new_bottom = top, bottom
                if kept and face is not None:
                    if high:
                        new_top = face if top is None or face > top else top
                    if low:
                        new_bottom = face if bottom is None or face < bottom else bottom
                key5 = (placed + j, total + kept * value, new_counts, new_top, new_bottom)
                following[key5] = following.get(key5, 0) + weight * comb(left, j) * times ** j
            work += left + 1
            if work > MAX_READINGS:
                raise TooManyReadings()
        states = following
    for (_, total, counts, top, bottom), weight in states.items():
        key = (total, counts, top, bottom)
        done[key] = done.get(key, 0) + weight
    return [(total, Tally(counts), top, bottom, weight) for (total, counts, top, bottom), weight in done.items()]


class _Rolling:
    """A dice source that rolls: used by the resolvers."""

    __slots__ = ("groups", "held", "rerolled", "rng", "zero")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.groups: list[Group[int | str]] = []
        self.held: list[Held] = []  # the named groups, rolled first
        self.zero = False
        self.rerolled: set[int] = set()  # groups that re-rolled dice: read as the dice stand, not as first rolled

    def roll(self, spec: DiceSpec, written: str, zero: DiceSpec | None = None) -> int:
        """Roll `spec` (a pool of no dice rolls `zero` instead, when the rules give one); its value."""
        spec = _rolled(self, spec, written, zero)
        group = _roll_dice(self.rng, spec)
        self.groups.append(group)
        if spec.ops and spec.ops[0][0] in _REROLLED:
            self.rerolled.add(len(self.groups) - 1)
        return group.value

    def hold(self, spec: DiceSpec, written: str, name: str, zero: DiceSpec | None = None) -> Held:
        """Roll a named group (`let challenge = 2d10`): the group, read by name and die by die."""
        spec = _rolled(self, spec, written, zero)
        group = _roll_dice(self.rng, spec)
        self.groups.append(group._replace(notation=f"{name} {group.notation}"))
        if spec.ops and spec.ops[0][0] in _REROLLED:
            self.rerolled.add(len(self.groups) - 1)
        faces: dict[int, int] = {}
        for face in _cast("tuple[int, ...]", group.kept):  # the check allows numbered dice only
            faces[face] = faces.get(face, 0) + 1
        held = Held(group.value, faces, len(group.kept))
        self.held.append(held)
        return held

    def read(self) -> tuple[tuple[int | str, ...], tuple[int | str, ...], tuple[int, ...], int | None]:
        """What bands read of the roll: every face (a re-rolled die: its new face), the kept ones, the kept numbers,
        and the natural value."""
        groups = self.groups
        if len(groups) == 1:
            group = groups[0]
            kept = group.kept
            numbers = kept if not kept or type(kept[0]) is int else ()
            return kept if self.rerolled else group.dice, kept, numbers, group.value  # type: ignore[return-value]
        dice = tuple(f for i, g in enumerate(groups) for f in (g.kept if i in self.rerolled else g.dice))
        kept = tuple(f for g in groups for f in g.kept)
        return dice, kept, tuple(f for f in kept if isinstance(f, int)), None


class _Planning:
    """A dice source that records which dice a roll would use, without rolling."""

    __slots__ = ("specs", "zero")

    def __init__(self) -> None:
        self.specs: list[DiceSpec] = []
        self.zero = False

    def roll(self, spec: DiceSpec, written: str, zero: DiceSpec | None = None) -> int:
        self.specs.append(_rolled(self, spec, written, zero))
        return 0

    def hold(self, spec: DiceSpec, written: str, name: str, zero: DiceSpec | None = None) -> Held:
        self.specs.append(_rolled(self, spec, written, zero))
        return _NOTHING_HELD


def _rolled(source: "_Rolling | _Planning", spec: DiceSpec, written: str, zero: DiceSpec | None) -> DiceSpec:
    """The spec a dice source rolls for `spec`: `zero` for a pool of no dice when the rules give one (noted on
    the source), checked against the caps (`written`: as the rules write the group)."""
    if spec.count <= 0 and zero is not None:
        spec, source.zero = zero, True
    _check_spec(spec, written)
    return spec


class _Replaying:
    """A dice source that hands back preset group values, in order: used by `odds()`."""

    __slots__ = ("held", "index", "values")

    def __init__(self, values: tuple[int, ...], held: tuple[Held, ...] = ()) -> None:
        self.values = values
        self.held = held  # the named groups' readings, which come first
        self.index = 0

    def roll(self, spec: DiceSpec, written: str, zero: DiceSpec | None = None) -> int:
        value = self.values[self.index]
        self.index += 1
        return value

    def hold(self, spec: DiceSpec, written: str, name: str, zero: DiceSpec | None = None) -> Held:
        held = self.held[self.index]
        self.index += 1
        return held


_NOTHING_HELD = Held(0, {0: 0}, 0)  # what planning holds: a roll's total is worked out without its dice


_K = TypeVar("_K")
_T = TypeVar("_T")


ReadSpec = tuple[frozenset[int | str] | None, bool, bool]  # faces counted (None: all), highest, lowest
HeldSpec = tuple[frozenset[int | str] | None, bool, bool, bool, tuple[tuple[int, ...], ...]]  # a named group's
# ReadSpec, whether its value is read, and the classes of faces read alike (`evaluate.group_reads`)
READ_ALL: ReadSpec = (None, True, True)
READ_VALUES: ReadSpec = (frozenset(), False, False)


def combined_readings(per_group: Sequence[Sequence[Reading]]) -> Iterator[
        tuple[tuple[int, ...], Tally, int | None, int | None, int]]:
    """Each joint reading of a roll's dice groups: every group's value, the faces counted over all of
    them, the highest and lowest kept die, and the weight (one group's readings pass straight through)."""
    if len(per_group) == 1:
        for value, shown, high, low, weight in per_group[0]:
            yield (value,), shown, high, low, weight
        return
    for combination in product(*per_group):
        yield _joined(combination)


def _joined(combination: Sequence[Reading]) -> tuple[tuple[int, ...], Tally, int | None, int | None, int]:
    """One joint reading: each group's value, the faces counted over all of them, the highest and lowest kept
    die, and the weight."""
    weight = 1
    tally = Tally()
    top: int | None = None
    bottom: int | None = None
    for _, shown, high, low, w in combination:
        weight *= w
        for face, n in shown.items():
            tally[face] = tally.get(face, 0) + n
        if high is not None:
            top = high if top is None else max(top, high)
        if low is not None:
            bottom = low if bottom is None else min(bottom, low)
    return tuple(reading[0] for reading in combination), tally, top, bottom, weight


def held_readings(per_group: Sequence[Sequence[Reading]], sizes: Sequence[int]) -> Iterator[
        tuple[tuple[int, ...], Tally, int | None, int | None, int, tuple[Held, ...]]]:
    """`combined_readings`, and the first `len(sizes)` groups (a roll's named groups, of `sizes` dice) as
    `Held`s."""
    named = len(sizes)
    for combination in product(*per_group):
        held = tuple(Held(reading[0], reading[1], size)  # type: ignore[arg-type]  # numbered dice only
                     for reading, size in zip(combination[:named], sizes, strict=True))
        yield (*_joined(combination), held)


def exact_joint(
    specs: list[DiceSpec],
    total_of: Callable[[tuple[int, ...], tuple[Held, ...]], int],
    band_of: Callable[..., int] | None,
    rerolled: Collection[int] = (),
    reads: ReadSpec = READ_ALL,
    held: tuple[HeldSpec, ...] = (),
    flags_of: Callable[..., tuple[str, ...]] | None = None,
) -> tuple[dict[tuple[int, _Any], int], int]:
    """Weight of every (band index, total), and the denominator, from every group's distinct readings.

    `reads` says what the bands read of the dice (`dice_readings`); the bands get the faces
    counted and the highest and lowest kept dice. `held` says it of each named group (the first
    specs), which the total and the bands also get as `Held`s. A first result whose band is in
    `rerolled` is rolled again once and the new result is final. Without `band_of` every band
    index is -1. With `flags_of` (the flags a reading raises), each key is (band, (total, flags)).
    """
    per_group: list[list[Reading]] = []
    denominator = 1
    wanted: list[ReadSpec | HeldSpec] = [reads if band_of is not None else READ_VALUES] * len(specs)
    wanted[:len(held)] = held
    for spec, read in zip(specs, wanted, strict=True):  # every group's cost is estimated before any is worked out
        problem = too_much_work(spec, *read)
        if problem is not None:
            raise ValueError(problem)
    for spec, read in zip(specs, wanted, strict=True):
        readings, weights = spec_readings(spec, *read)
        per_group.append(readings)
        denominator *= weights
    size = 1
    for readings in per_group:
        size *= len(readings)
    if size > MAX_OUTCOMES:
        raise ValueError(f"exact odds of these dice would work through {count_text(size)} readings; the limit is "
                         f"{MAX_OUTCOMES:,}")
    joint: dict[tuple[int, _Any], int] = {}
    single = len(specs) == 1
    sizes = [max(spec.count, 0) for spec in specs[:len(held)]]
    for values, tally, top, bottom, weight, helds in held_readings(per_group, sizes) if held else (
            (*reading, ()) for reading in combined_readings(per_group)):
        total = total_of(values, helds)
        natural, kept = values[0] if single else None, tuple(x for x in (bottom, top) if x is not None)
        band = -1 if band_of is None else band_of(total, natural, tally, kept, *helds)
        key = total if flags_of is None else (total, flags_of(total, natural, tally, kept, *helds))
        joint[band, key] = joint.get((band, key), 0) + weight
    return reroll_weights(joint, denominator, rerolled)


def reroll_weights(joint: dict[tuple[_K, _T], int], denominator: int,
                   rerolled: Collection[_K]) -> tuple[dict[tuple[_K, _T], int], int]:
    """Weights after one re-roll of the outcomes in `rerolled`: P(b) = P(b, kept) + P(re-rolled) x P(b)."""
    if not rerolled:
        return joint, denominator
    again = sum(w for (band, _), w in joint.items() if band in rerolled)
    return ({key: (0 if key[0] in rerolled else w * denominator) + again * w for key, w in joint.items()},
            denominator * denominator)


class _JointWeights(_Protocol):
    """A joint's weights as odds and samples read them: ((band index, total), weight) pairs.

    A roll's dict has whole-number totals; a lookup's or a formula's may have text or yes/no.
    """

    def items(self) -> Iterable[tuple[tuple[int, object], int]]: ...


Joint = tuple[_JointWeights, int]  # weight of each (band index, total), and the denominator


def _odds_of(joint: Joint, ids: tuple[str, ...]) -> dict[str, Fraction]:
    """Exact probability of each band (two bands may share an outcome id: their odds add up).

    Every outcome is listed, zero or not, in band order; `none` is added where no band takes a
    result. Without bands (a plain value) the odds are of each value, as text.
    """
    weights, denominator = joint
    if not ids:
        return {str(total): Fraction(w, denominator) for (_, total), w in weights.items()}
    by_band = [0] * (len(ids) + 1)
    for (band, _), weight in weights.items():
        by_band[band] += weight
    out: dict[str, Fraction] = {}
    for i, band_id in enumerate(ids):
        out[band_id] = out.get(band_id, Fraction(0)) + Fraction(by_band[i], denominator)
    if by_band[-1]:
        out["none"] = Fraction(by_band[-1], denominator)
    return out


@dataclass(frozen=True, slots=True)
class Simulation:
    """`n` results of one roll for balance work, drawn from its exact odds (see `simulate`).

    Each draw is one roll's (outcome, total), with exactly the probability `odds()` gives it;
    `results` lists the distinct ones and `draws` says which came up on each roll, in order.
    """

    name: str
    inputs: Mapping[str, object]
    seed: int
    results: tuple[tuple[str, object], ...]  # (outcome id, total); `none` where no band takes it
    draws: list[int]  # an index into `results` for each roll

    @property
    def n(self) -> int:
        return len(self.draws)

    @property
    def outcomes(self) -> list[str]:
        """The outcome of each roll, in order."""
        results = self.results
        return [results[i][0] for i in self.draws]

    @property
    def totals(self) -> list[object]:
        """The total of each roll, in order."""
        results = self.results
        return [results[i][1] for i in self.draws]

    @property
    def counts(self) -> dict[str, int]:
        """How many rolls came up each outcome (every outcome listed, in band order)."""
        tally = [0] * len(self.results)
        for i in self.draws:
            tally[i] += 1
        out: dict[str, int] = {}
        for (outcome, _), times in zip(self.results, tally, strict=True):
            out[outcome] = out.get(outcome, 0) + times
        return out

    def share(self, outcome: str) -> float:
        """The fraction of rolls that came up `outcome`."""
        return self.counts.get(outcome, 0) / max(self.n, 1)


def _order(total: object) -> tuple[int, int, str]:
    return (0, total, "") if isinstance(total, int) else (1, 0, str(total))


def _sample(name: str, inputs: Mapping[str, object], joint: Joint, ids: tuple[str, ...], n: int,
           seed: int | None) -> Simulation:
    """`n` independent results drawn from `joint` with `random.choices` (one C call for all of them)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_SIMULATED:
        raise ValueError(f"n is a whole number of rolls from 0 to {MAX_SIMULATED:,}, not {n!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    weights, _ = joint
    entries = [(band, total, weight) for (band, total), weight in weights.items()]
    entries += [(i, None, 0) for i in range(len(ids)) if not any(band == i for band, _, _ in entries)]
    entries.sort(key=lambda entry: (entry[0] % (len(ids) + 1), _order(entry[1])))  # band order; `none` last
    results = tuple((ids[band] if band >= 0 else "none" if ids else str(total), total) for band, total, _ in entries)
    cumulative: list[int] = []
    running = 0
    for _, _, weight in entries:  # a band that cannot come up keeps its place with no weight: never drawn
        running += weight
        cumulative.append(running)
    if running >= 2**53:  # beyond a float's exact range: scale the weights down (a relative error under 2^-50)
        shift = running.bit_length() - 53
        cumulative = [c >> shift for c in cumulative]
    draws = random.Random(seed).choices(range(len(results)), cum_weights=cumulative, k=n)
    return Simulation(name, dict(inputs), seed, results, draws)


def _exact_totals(
    specs: list[DiceSpec],
    total_of: Callable[[tuple[int, ...], tuple[Held, ...]], int],
    band_of: Callable[..., int] | None = None,
    rerolled: Collection[int] = (),
    reads: ReadSpec = READ_ALL,
    held: tuple[HeldSpec, ...] = (),
) -> dict[int | str, Fraction]:
    """Exact probability of each total (lowest first); re-rolls need `band_of` to know the first band."""
    joint, denominator = exact_joint(specs, total_of, band_of, rerolled, reads, held)
    weights: dict[int, int] = {}
    for (_, total), weight in joint.items():
        weights[total] = weights.get(total, 0) + weight
    return {total: Fraction(weights[total], denominator) for total in sorted(weights)}


def _above(totals: Mapping[int | str, Fraction], horizon: int) -> dict[int | str, Fraction]:
    """Totals of exploding dice: each total up to `horizon` exactly, and every higher one as one `"N+"`."""
    out: dict[int | str, Fraction] = {total: p for total, p in totals.items()
                                      if isinstance(total, int) and total <= horizon}
    rest = sum((p for total, p in totals.items() if total not in out), Fraction(0))
    if rest:
        out[f"{horizon + 1}+"] = rest
    return out


def _joint_above(joint: "Joint", horizon: int) -> "Joint":
    """A joint of exploding dice with every total past `horizon` written as one `"N+"` (see `_above`): the
    odds read its bands only, and `simulate()` shows such a roll's total as `"N+"`, not one number."""
    weights, denominator = joint
    out: dict[tuple[int, object], int] = {}
    for (band, total), weight in weights.items():
        key = (band, total if not isinstance(total, int) or total <= horizon else f"{horizon + 1}+")
        out[key] = out.get(key, 0) + weight
    return out, denominator


def percent(probability: Fraction) -> float:
    return round(float(probability) * 100, 3)


def check_int(name: str, value: object, low: int | None, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be from {low} to {high}, not {value}")
    return int(value)  # an int subclass (an IntEnum) as the plain number, as results show it


def check_flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False (yes/no), not {value!r}")
    return value


def check_choice(name: str, value: object, options: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(options)}; not {value!r}")
    return options[options.index(value)]  # a str subclass as the option itself


# What the public functions call, under names no input can take (see names.reserved_input): an input is a
# parameter there, and may be called `type`, `int` or `check_int`.
_check_int = check_int
_check_flag = check_flag
_check_choice = check_choice


def _check_chain(links: list[int], name: str) -> None:
    """Count one more link of the roll's chain (`links` is shared by every link of one roll): past MAX_CHAIN in
    all, however the tables multiply (`x3` of a table that rolls `x3` again), the roll stops."""
    links[0] += 1
    if links[0] > MAX_CHAIN:
        raise ValueError(f"the chain of tables reached {name} after {MAX_CHAIN} links; it may be a loop")


def _floor_div(a: int, b: int) -> int:
    if b == 0:
        raise ValueError("division by zero in a formula")
    return a // b


def _floor_mod(a: int, b: int) -> int:
    if b == 0:
        raise ValueError("division by zero in a formula (the remainder of `x % 0`)")
    return a % b


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def step(order: tuple[str, ...], current: str, steps: int) -> str:
    """The option `steps` places along `order` from `current`, stopping at either end."""
    return order[max(0, min(len(order) - 1, order.index(current) + steps))]


def _join_dice(values: tuple[int | str, ...]) -> str:
    if len(values) == 1:
        return str(values[0])
    if len(values) == 2:
        return f"{values[0]}, {values[1]}"
    return ", ".join(map(str, values))


def _group_trace(group: Group[int | str]) -> str:
    if group.kept == group.dice:
        return f"{group.notation}: {_join_dice(group.dice)}"
    return f"{group.notation}: {_join_dice(group.dice)} (kept {_join_dice(group.kept)})"


def _no_band(name: str) -> _NoReturn:
    """What a roll whose bands take every total (the check proved it for every input) does if one does not."""
    raise RuntimeError(f"no band of {name} takes this result, though the check found every total taken")


def _outcome_trace(outcome: "Outcome[str]") -> str:
    """`7-9: Costly — costly success...`: how a trace names an outcome."""
    meaning = outcome.label if outcome.label != outcome.key else ""
    if outcome.text:
        meaning = f"{meaning} — {outcome.text}" if meaning else outcome.text
    where = f" ({outcome.column})" if outcome.column else ""
    return f"{outcome.key}{where}: {meaning}"


def _describe(
    label: str,
    groups: Sequence[Group[int | str]],
    total: object,
    outcome: "Outcome[str] | None",
    extra: Sequence[Group[int | str]],
    values: Mapping[str, object],
    bands: bool = True,
    flags: Sequence[str] = (),
) -> str:
    """A trace a player understands: what was rolled, kept, totalled, and what it means (a plain value, of a
    rule without bands, means itself)."""
    said = "no band takes this result" if outcome is None else _outcome_trace(outcome)
    if flags:
        said += ", with " + " and ".join(flags)
    if len(groups) == 1:
        group = groups[0]
        text = f"{label}: rolled {_group_trace(group)}"
        if isinstance(total, int) and total != group.value:
            diff = total - group.value
            text += f" → {group.value} {'+' if diff > 0 else '-'} {abs(diff)} = {total}"
    elif groups:
        text = f"{label}: rolled {' and '.join([_group_trace(g) for g in groups])}"
        if not all(isinstance(f, str) for g in groups for f in g.dice):
            text += f" → total {total}"
    else:
        shown = ("yes" if total else "no") if isinstance(total, bool) else total
        text = f"{label}: {shown}" if total is not None else label
    if bands:
        text += f" → {said}"
    for group in extra:
        text += f" → then {_group_trace(group)}"
    return text


# ---------------------------------------------------------------- rules: one roll or table as data, and its machinery

InputSpec = tuple[str, str, int | None, int | None, tuple[str, ...], object]  # name, kind, low, high, options, default
_Links = tuple[tuple[object, "int | tuple[int, int]"], ...]  # each table a row rolls next (its name), and how
# many times: a number, or (count, sides) of the dice rolled for it (`-> weather, encounters x2, foes x d4`)


@dataclass(frozen=True, slots=True)
class _Rule(_Generic[_Landed]):
    """One roll or table: its data, and the rule's own expressions as small compiled functions. `_run`,
    `_joint` and `_totals` below do the rest alike for every rule.

    The functions take the inputs in order, then the lets (`lets` works those out from the inputs):
    `total(dice, *args)` rolls through a dice source (or reads a table's key, or works a formula out);
    `band(total, natural, faces, kept, zero, *args, *held)` is the band's index (-1: none), `held` the named
    groups; `column(*args)` the column's; `values(band, column, more_dice, total, natural, faces, kept, zero,
    *args, *held)` the band's data;
    `rerolls(*args)` the outcome ids a first result is rolled again from; `horizon(*args)` the highest total
    of exploding dice listed one by one."""

    name: str
    label: str
    inputs: tuple[InputSpec, ...]
    outcomes: tuple[tuple[_Landed, ...], ...]  # by band, then by column
    ids: tuple[str, ...]  # each band's outcome id
    total: Callable[..., _Any]  # a roll's total is an int; a table's key or a formula's value may be text or yes/no
    band: Callable[..., int]
    lets: Callable[..., tuple[object, ...]] | None = None
    column: Callable[..., int] | None = None
    values: Callable[..., dict[str, object]] | None = None
    rerolls: Callable[..., frozenset[str]] | None = None
    horizon: Callable[..., int] | None = None
    flags: Callable[..., tuple[str, ...]] | None = None  # the flags a result raises (takes what `band` takes)
    flag_names: tuple[str, ...] = ()
    reads: ReadSpec = (frozenset(), False, False)  # what the bands read of the dice
    held: tuple[HeldSpec, ...] = ()  # what the roll reads of each named group (`let challenge = 2d10`)
    dice: bool = True  # False: a table read by its key, or a formula without dice
    covers: bool = False  # the check proved that a band takes every result (an outcome is never None)
    more: bool = False  # a band's data rolls dice
    chain: Callable[..., "_Links"] | None = None  # the tables a band rolls next (`->`), each with how many times
    effects: Callable[..., tuple[Effect, ...]] | None = None  # what band b does to the state (takes what `values` does)


_RULES: dict[str, _Rule[_Any]] = {}  # every rule of the module, by name (filled after the rules)


def _input(spec: InputSpec, value: object) -> object:
    """An input checked against its spec, as `odds()` and a chain pass them."""
    name, kind, low, high, options, _ = spec
    if kind == "int":
        return check_int(name, value, low, high)
    if kind == "flag":
        return check_flag(name, value)
    return check_choice(name, value, options)


def _given(rule: _Rule[_Any], given: Mapping[str, object]) -> tuple[object, ...]:
    """The inputs of `rule` from `given` (defaults where it says nothing), checked, in order."""
    return tuple(_input(spec, given.get(spec[0], spec[5])) for spec in rule.inputs)


def _run(rule: _Rule[_Landed], rng: random.Random | None, inputs: tuple[object, ...],
         links: list[int] | None = None) -> Result[_Landed]:
    """Resolve `rule` for checked inputs: roll, find the band and its data, say what happened, follow a chain."""
    rng = _generator(rng)
    args = _args(rule, inputs)
    d, total, (dice, kept, read, natural), b, c, outcome = _land(rule, rng, args)
    first: tuple[AnyResult, ...] = ()
    flags = rule.flags(total, natural, dice, read, d.zero, *args, *d.held) if rule.flags is not None else ()
    if rule.rerolls is not None and b >= 0 and rule.ids[b] in rule.rerolls(*args):
        trace = _describe(rule.label, d.groups, total, outcome, (), {}, flags=flags)
        first = (Result(rule.name, {}, dice, kept, _whole(total), outcome, {}, trace, flags=flags),)
        d, total, (dice, kept, read, natural), b, c, outcome = _land(rule, rng, args)
        flags = rule.flags(total, natural, dice, read, d.zero, *args, *d.held) if rule.flags is not None else ()
    extra = _Rolling(rng) if rule.more else None
    values = rule.values(b, c, extra, total, natural, dice, read, d.zero, *args, *d.held) if rule.values else {}
    given = {spec[0]: value for spec, value in zip(rule.inputs, inputs, strict=True)}
    trace = _describe(rule.label, d.groups, total, outcome, extra.groups if extra is not None else (), values,
                      bool(rule.ids), flags)
    if first:
        trace = first[0].trace + "; rolled again, the new result is final: " + trace.removeprefix(rule.label + ": ")
    chain: tuple[AnyResult, ...] = ()
    if rule.chain is not None and b >= 0:
        said, chain = _follow(rule, rule.chain(b, *args), rng, given, [0] if links is None else links)
        trace += said
    effects = rule.effects(b, c, None, total, natural, dice, read, d.zero, *args, *d.held) \
        if rule.effects is not None and b >= 0 else ()
    return Result(rule.name, given, dice, kept, _whole(total), outcome, values, trace, chain, rerolled=first,
                  flags=flags, effects=effects)


def _follow(rule: _Rule[_Any], links: _Links, rng: random.Random, given: Mapping[str, object],
            counted: list[int]) -> tuple[str, tuple[AnyResult, ...]]:
    """Roll each table of a row's `->` in turn, as many times as it says, each roll following its own chain; the
    trace after the row's own (each roll numbered, "Encounters (1 of 2): ...") and every link, in order, each
    followed by the links after it (as its trace holds them). A linked table takes the inputs of the same names."""
    said = ""
    chain: list[AnyResult] = []
    for target, times in links:
        if not (isinstance(target, str) and target in _RULES):
            continue
        table = _RULES[target]
        if isinstance(times, tuple):
            count, sides = times
            rolled = tuple(rng.randint(1, sides) for _ in range(count))
            times = sum(rolled)
            said += (f"; then {table.label} {count if count > 1 else ''}d{sides} times: rolled "
                     f"{_join_dice(rolled)}" + (f" = {times}" if count > 1 else ""))
        for turn in range(1, times + 1):
            _check_chain(counted, rule.name)
            link = _run(table, rng, _given(table, given), counted)
            shown = link.trace
            if times > 1:
                shown = f"{table.label} ({turn} of {times}):" + shown.removeprefix(table.label + ":")
            said += "; then " + shown
            chain.extend((link, *link.chain))
    return said, tuple(chain)


def _generator(rng: object, needs: tuple[str, ...] = ("randint",)) -> random.Random:
    """The generator a roll draws from: the caller's (a `random.Random`, or anything with the methods the
    roll calls: `randint(a, b)`, and `shuffle` for a deck), or the module's own."""
    if rng is None:
        return _RNG
    if not all(callable(getattr(rng, method, None)) for method in needs):
        raise TypeError(f"rng must be a random.Random (or None for the module's own), not {type(rng).__name__}: "
                        f"it has no {' or '.join(f'{method}()' for method in needs)}")
    return rng  # type: ignore[return-value]  # anything that rolls like one


def _land(rule: _Rule[_Landed], rng: random.Random, args: tuple[object, ...]) -> tuple[
        _Rolling, object, tuple[tuple[int | str, ...], tuple[int | str, ...], tuple[int, ...], int | None], int, int,
        _Landed]:
    """Roll once: the dice source, the total, what the bands read (`_Rolling.read`), the band's and column's
    index, and the outcome."""
    d = _Rolling(rng)
    total = rule.total(d, *args)
    reading = d.read()
    b = rule.band(total, reading[3], reading[0], reading[2], d.zero, *args, *d.held)
    c = rule.column(*args) if rule.column is not None else 0
    if b >= 0:
        return d, total, reading, b, c, rule.outcomes[b][c]
    if rule.covers:
        _no_band(rule.name)
    return d, total, reading, b, c, _cast(_Landed, None)  # a rule no band may take is a _Rule[Outcome | None]


def _whole(total: object) -> int | None:
    """A result's total: a whole number, or None (a table's key in words, a yes/no formula)."""
    return total if isinstance(total, int) and not isinstance(total, bool) else None


def _args(rule: _Rule[_Any], inputs: tuple[object, ...]) -> tuple[object, ...]:
    """What a rule's functions take: its checked inputs, then its lets worked out from them."""
    return inputs + rule.lets(*inputs) if rule.lets is not None else inputs


def _planned(rule: _Rule[_Any], given: Mapping[str, object]) -> tuple[tuple[object, ...], _Planning, object]:
    """For exact odds: the rule's arguments from `given`, the dice its total would roll, and the total of a
    rule that rolls none (a table's key, a formula's value)."""
    args = _args(rule, _given(rule, given))
    plan = _Planning()
    return args, plan, rule.total(plan, *args)


def _joint(rule: _Rule[_Any], given: Mapping[str, object]) -> Joint:
    """Exact weight of each (band, total) of `rule` for `given`, from the dice's distinct readings."""
    args, plan, total = _planned(rule, given)
    if not rule.dice:  # a table's key or a formula's value: one result
        return {(rule.band(total, None, (), (), False, *args), total): 1}, 1
    joint = exact_joint(plan.specs, lambda g, h: rule.total(_Replaying(g, h), *args),
                        lambda t, n, f, k, *h: rule.band(t, n, f, k, plan.zero, *args, *h), _rerolled(rule, args),
                        rule.reads, rule.held)
    return _joint_above(joint, rule.horizon(*args)) if rule.horizon is not None else joint


def _totals(rule: _Rule[_Any], given: Mapping[str, object]) -> dict[int | str, Fraction]:
    """Exact probability of each total of `rule` for `given`, lowest first."""
    args, plan, _ = _planned(rule, given)
    rerolled = _rerolled(rule, args)  # the first band decides a re-roll, so totals then need the bands too
    band = (lambda t, n, f, k, *h: rule.band(t, n, f, k, plan.zero, *args, *h)) if rerolled else None
    totals = _exact_totals(plan.specs, lambda g, h: rule.total(_Replaying(g, h), *args), band, rerolled,
                           rule.reads, rule.held)
    return _above(totals, rule.horizon(*args)) if rule.horizon is not None else totals


def _rerolled(rule: _Rule[_Any], args: tuple[object, ...]) -> set[int]:
    """The bands (by index) a first result is rolled again from, for these inputs."""
    if rule.rerolls is None:
        return set()
    again = rule.rerolls(*args)
    return {i for i, band in enumerate(rule.ids) if band in again}


def _known(name: str, inputs: Mapping[str, object], dice: bool = False) -> _Rule[_Any]:
    """The rule `name` (among those that roll dice, with `dice`), once `inputs` names only its inputs."""
    rules = [n for n, rule in _RULES.items() if rule.dice or not dice]
    if name not in rules:
        raise ValueError(f"no roll or table named {name!r} here; there are: {', '.join(rules)}")
    allowed = tuple(spec[0] for spec in _RULES[name].inputs)
    for key in inputs:
        if key not in allowed:
            raise ValueError(f"{name} has no input {key!r}; its inputs are: {', '.join(allowed) or 'none'}")
    return _RULES[name]


def odds(name: str, /, **inputs: object) -> dict[str, Fraction]:
    """Exact probability of each outcome of roll or table `name` for these inputs."""
    rule = _known(name, inputs)
    return _odds_of(_joint(rule, inputs), rule.ids)


def flag_odds(name: str, /, **inputs: object) -> dict[str, dict[str, Fraction]]:
    """Exact probability of each of roll `name`'s flags (`flags:`) for these inputs, with each outcome: `{"match":
    {"strong": 1/40, ...}}`; a flag's chance whatever the outcome is the sum of its row. `{}` for a roll or
    table without flags."""
    rule = _known(name, inputs)
    if rule.flags is None:
        return {}
    args, plan, _ = _planned(rule, inputs)
    joint, denominator = exact_joint(
        plan.specs, lambda g, h: rule.total(_Replaying(g, h), *args),
        lambda t, n, f, k, *h: rule.band(t, n, f, k, plan.zero, *args, *h), _rerolled(rule, args), rule.reads,
        rule.held, lambda t, n, f, k, *h: rule.flags(t, n, f, k, plan.zero, *args, *h))  # type: ignore[misc]
    out: dict[str, dict[str, Fraction]] = {flag: {} for flag in rule.flag_names}
    for (band, (_, raised)), weight in joint.items():
        outcome = rule.ids[band] if band >= 0 else "none"
        for flag in raised:
            out[flag][outcome] = out[flag].get(outcome, Fraction(0)) + Fraction(weight, denominator)
    return out


def simulate(name: str, n: int, /, *, seed: int | None = None, **inputs: object) -> Simulation:
    """`n` results of roll or table `name` for balance work, drawn from its exact odds.

    A million rolls take a fraction of a second; `seed` repeats a run (it is kept on the result).
    Follows no chain (`->`): simulate the chained table on its own."""
    rule = _known(name, inputs)
    return _sample(name, inputs, _joint(rule, inputs), rule.ids, n, seed)


def totals(name: str, /, **inputs: object) -> dict[int | str, Fraction]:
    """Exact probability of each total of roll or table `name` (e.g. damage), lowest first."""
    return _totals(_known(name, inputs, dice=True), inputs)


# One outcome of a table for given inputs, for exact chain odds: its id, its probability, the tables it rolls next.
_ChainOutcome = tuple[str, Fraction, _Links]
_Reached = tuple[tuple[int, int], ...]  # every outcome a chain reached: (table's rank, outcome's rank), sorted


def chain_weights(name: str, given: Mapping[str, object],
                  outcomes: Callable[[str, Mapping[str, object]], tuple[Mapping[str, object], list[_ChainOutcome]]],
                  labels: Callable[[str], tuple[str, ...]], tables: Collection[str]) -> dict[str, Fraction]:
    """Exact probability of each combination of outcomes a roll of `name` and every table its chain rolls reach,
    as `"trinket, ring"` (the ids in the order tables are first reached, each table's in band order).

    `outcomes(table, given)` gives a table's own inputs (of `given`, as a chain passes them) and, for those, each
    outcome with its probability and the tables it rolls next; `labels(table)` its outcome ids in band order;
    `tables` the names that are rolls or tables. A chain that can come back to a table it is still rolling has
    no end: refused, naming the loop."""
    ranks: dict[str, int] = {}
    memo: dict[tuple[str, tuple[tuple[str, object], ...]], dict[_Reached, Fraction]] = {}

    def reach(table: str, given: Mapping[str, object], path: tuple[str, ...]) -> dict[_Reached, Fraction]:
        if table in path:
            loop = " -> ".join((*path[path.index(table):], table))
            raise ValueError(f"the chain of {path[0]} loops ({loop}): it has no end, so no exact odds; "
                             f"`odds {table}` gives each table's own")
        rank = ranks.setdefault(table, len(ranks))
        own, listed = outcomes(table, given)
        key = (table, tuple(sorted((k, repr(v)) for k, v in own.items())))
        if key in memo:
            return memo[key]
        order = labels(table)
        out: dict[_Reached, Fraction] = {}
        for outcome, probability, links in listed:
            if not probability:
                continue
            here: dict[_Reached, Fraction] = {((rank, order.index(outcome) if outcome in order else len(order)),):
                                              probability}
            for target, times in links:
                if not (isinstance(target, str) and target in tables):
                    continue
                once = reach(target, own, (*path, table))
                here = _combine(here, _repeated(once, times))
            for reached, weight in here.items():
                out[reached] = out.get(reached, Fraction(0)) + weight
        memo[key] = out
        return out

    found = reach(name, given, ())
    names = {rank: table for table, rank in ranks.items()}
    odds: dict[str, Fraction] = {}
    for reached in sorted(found):
        text = ", ".join(_label(labels(names[table]), outcome) for table, outcome in reached)
        odds[text] = odds.get(text, Fraction(0)) + found[reached]
    return odds


def _label(ids: tuple[str, ...], index: int) -> str:
    return ids[index] if index < len(ids) else "none"


def _combine(a: dict[_Reached, Fraction], b: dict[_Reached, Fraction]) -> dict[_Reached, Fraction]:
    """Two independent parts of a chain together: every pair of their combinations, merged as multisets."""
    out: dict[_Reached, Fraction] = {}
    for ka, wa in a.items():
        for kb, wb in b.items():
            key = tuple(sorted(ka + kb))
            out[key] = out.get(key, Fraction(0)) + wa * wb
    if len(out) > MAX_OUTCOMES:
        raise ValueError(f"this chain reaches more than {MAX_OUTCOMES:,} combinations of outcomes")
    return out


def _repeated(once: dict[_Reached, Fraction], times: "int | tuple[int, int]") -> dict[_Reached, Fraction]:
    """A table rolled `times` times (a number, or as many as (count, sides) dice show), each roll independent."""
    counts: dict[int, Fraction] = {times: Fraction(1)} if isinstance(times, int) else _dice_sums(*times)
    out: dict[_Reached, Fraction] = {}
    power: dict[_Reached, Fraction] = {(): Fraction(1)}
    for n in range(max(counts) + 1):
        if n in counts:
            for reached, weight in power.items():
                out[reached] = out.get(reached, Fraction(0)) + weight * counts[n]
        power = _combine(power, once)
    return out


def _dice_sums(count: int, sides: int) -> dict[int, Fraction]:
    """The exact chance of each sum of `count` dice of `sides` sides."""
    sums = {0: Fraction(1)}
    for _ in range(count):
        nxt: dict[int, Fraction] = {}
        for total, weight in sums.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + weight / sides
        sums = nxt
    return sums


def _chain_outcomes(table: str, given: Mapping[str, object]) -> tuple[dict[str, object], list[_ChainOutcome]]:
    """For `chain_weights`: a rule's own inputs (from `given`, as `_run` passes them to a link) and each band's
    outcome, exact probability and links."""
    rule = _RULES[table]
    inputs = _given(rule, given)
    own = {spec[0]: value for spec, value in zip(rule.inputs, inputs, strict=True)}
    weights, denominator = _joint(rule, own)
    by_band: dict[int, int] = {}
    for (band, _), weight in weights.items():
        by_band[band] = by_band.get(band, 0) + weight
    args = _args(rule, inputs)
    listed = [(rule.ids[b] if b >= 0 else "none", Fraction(w, denominator),
               rule.chain(b, *args) if rule.chain is not None and b >= 0 else ())
              for b, w in sorted(by_band.items(), key=lambda item: (item[0] < 0, item[0]))]
    return own, listed


def chain_odds(name: str, /, **inputs: object) -> dict[str, Fraction]:
    """Exact probability of each combination of outcomes a roll of `name` reaches with every table its `->`
    rows roll (each roll of a table rolled several times counted), as `"trinket, ring"`. A chain that can loop
    has no end and no exact odds: a ValueError names the loop."""
    _known(name, inputs)
    return chain_weights(name, inputs, _chain_outcomes, lambda table: _RULES[table].ids, _RULES)


@dataclass(frozen=True, slots=True)
class Picked:
    """The candidate a priority list picks, and why."""

    candidate: Mapping[str, object] | None
    trace: str


def _pick_by_priority(order: Document, candidates: Sequence[Mapping[str, object]]) -> Picked:
    """The first candidate by `order`: nearest first (`nearest:`), then its entries in turn.

    A candidate is a mapping: `is` holds the entry names it answers to ("captain", or
    ("crew", "blue_nodes")), and numbers for what is compared (`distance`, `damage`).
    An entry with `most: damage` / `least: damage` prefers the highest / lowest value.
    """
    nearest = order.details.get("nearest")

    def number(candidate: Mapping[str, object], name: object) -> int:
        value = candidate.get(str(name))
        if not isinstance(value, int):
            raise ValueError(f"{order.label}: every candidate needs a number `{name}`; got {dict(candidate)!r}")
        return value

    def rank(candidate: Mapping[str, object]) -> tuple[int, ...]:
        found = candidate.get("is", ())
        tags = {found} if isinstance(found, str) else {str(t) for t in found} if isinstance(found, Iterable) else set()
        key = [number(candidate, nearest)] if isinstance(nearest, str) else []
        for entry in order.entries:
            if "most" in entry.values:
                key.append(-number(candidate, entry.values["most"]))
            elif "least" in entry.values:
                key.append(number(candidate, entry.values["least"]))
            else:
                key.append(0 if entry.id in tags else 1)
        return tuple(key)

    if not candidates:
        return Picked(None, f"{order.label}: no candidates")
    keys = [rank(candidate) for candidate in candidates]
    chosen = min(range(len(candidates)), key=keys.__getitem__)  # the first given wins a full tie
    best, best_key = candidates[chosen], keys[chosen]
    why = [f"{nearest} {best_key[0]}"] if isinstance(nearest, str) else []
    tied = [key for key in keys if key[:len(why)] == best_key[:len(why)]]
    decisive = next((p for p in range(len(why), len(best_key)) if any(k[p] != best_key[p] for k in tied)), None)
    if decisive is not None and (len(tied) > 1 or not why):
        entry = order.entries[decisive - len(why)]
        why.append(entry.label or entry.id or "")
    name = best.get("name", best.get("is"))
    return Picked(best, f"{order.label}: {name}" + (f" ({', then '.join(why)})" if why else ""))


# ---------------------------------------------------------------- state


class Session:
    """Rolls in a row: a result can carry values into the next roll of the same table.

    `session = module.session(random.Random(7)); session.roll("weather", season="spring")`
    rolls with whatever the last weather roll carried (e.g. +2 to the next weather roll);
    inputs given explicitly win.
    """

    def __init__(self, resolvers: Mapping[str, Callable[..., AnyResult]],
                 carry: Mapping[str, tuple[tuple[str, str], ...]], rng: random.Random | None = None) -> None:
        self.resolvers = resolvers
        self.carries = carry
        self.rng = random.Random() if rng is None else _generator(rng)
        self.carried: dict[str, dict[str, object]] = {}
        self.history: list[AnyResult] = []

    def roll(self, name: str, **inputs: object) -> AnyResult:
        if name not in self.resolvers:
            raise ValueError(f"no roll or table named {name!r}")
        given = {**self.carried.get(name, {}), **inputs}
        result = self.resolvers[name](**given, rng=self.rng)
        for input_name, value_name in self.carries.get(name, ()):
            if value_name in result.values:
                self.carried.setdefault(name, {})[input_name] = result.values[value_name]
        self.history.append(result)
        return result


@dataclass
class Track:
    """Boxes marked and cleared in play; reports the document's on-full event.

    `size` None means the document gives no length: pass it when you create
    the track (`Stress(size=9)`).
    """

    size: int
    marked: int = 0
    label: str = "track"
    on_full: str | None = None
    roll_over: bool = False
    reset_on_full: bool = False
    events: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.size is None:
            raise ValueError(f"{self.label} needs a size: the document does not give one (`{type(self).__name__}"
                             "(size=9)`)")
        self.size = check_int("size", self.size, 1, MAX_BOXES)
        self.marked = check_int("marked", self.marked, 0, self.size)

    @property
    def full(self) -> bool:
        return self.marked >= self.size

    def mark(self, count: int = 1) -> list[str]:
        """Mark `count` boxes; returns what happened (fills, with the document's text)."""
        count = check_int("count", count, -MAX_MARKED, MAX_MARKED)
        if count < 0:
            return self.clear(-count)
        happened: list[str] = []
        remaining = count
        while remaining > 0:
            room = self.size - self.marked
            step = min(room, remaining)
            self.marked += step
            remaining -= step
            if self.full:
                happened.append(f"{self.label} is full" + (f": {self.on_full}" if self.on_full else ""))
                if self.roll_over or self.reset_on_full:
                    self.marked = 0
                if not self.roll_over:
                    break
            if step == 0:
                break
        self.events.extend(happened)
        return happened

    def clear(self, count: int | None = None) -> list[str]:
        """Clear `count` boxes (all when None)."""
        self.marked = 0 if count is None else max(0, self.marked - check_int("count", count, 0, MAX_MARKED))
        return []


class Levels(Track):
    """Harm by level: a row of boxes per level; harm whose row is full moves up a level.

    `LEVELS` lists (level, name, boxes, penalty). A last level without boxes is what
    happens when harm goes past the top row (e.g. fatal).
    """

    LEVELS: tuple[tuple[int, str, int, str | None], ...] = ()

    def __post_init__(self) -> None:
        self.rows: dict[int, list[str]] = {level: [] for level, _, boxes, _ in self.LEVELS if boxes > 0}
        super().__post_init__()

    def _level(self, level: int) -> tuple[int, str, int, str | None]:
        return next(entry for entry in self.LEVELS if entry[0] == level)

    def add(self, level: int, what: str = "harm") -> list[str]:
        """Record harm of `level`; a full row sends it a level up, and past the top row the track is full (its
        `on_full`, and what filling it sets off). Harm given at a level with no boxes (fatal) is named as such.
        Returns what happened."""
        rows = sorted(self.rows)
        asked = level = max(level, rows[0])
        while level in self.rows and len(self.rows[level]) >= self._level(level)[2]:
            level += 1
        if level in self.rows:
            self.rows[level].append(what)
            self.marked += 1
            happened = [f"{what} recorded at level {level} ({self._level(level)[1]})"]
        elif level > asked:  # moved up past the top row
            happened = [f"{self.label} is full: {what} goes past the top row"
                        + (f": {self.on_full}" if self.on_full else "")]
        else:
            beyond = [entry for entry in self.LEVELS if entry[0] >= level and entry[2] == 0]
            name = beyond[0][1] if beyond else "past the last row"
            happened = [f"{what} at level {level}: {name}" + (f": {beyond[0][3]}" if beyond and beyond[0][3] else "")]
        self.events.extend(happened)
        return happened

    def mark(self, count: int = 1) -> list[str]:
        count = check_int("count", count, 0, MAX_MARKED)
        return [event for _ in range(count) for event in self.add(min(self.rows))]

    def heal(self) -> list[str]:
        """Every harm moves down a level (where the lower row has room); the lowest level's harm clears."""
        happened: list[str] = []
        for level in sorted(self.rows):
            lower = max((r for r in self.rows if r < level), default=None)
            for what in list(self.rows[level]):
                if lower is None:
                    self.rows[level].remove(what)
                    self.marked -= 1
                    happened.append(f"{what} (level {level}) is healed")
                elif len(self.rows[lower]) < self._level(lower)[2]:
                    self.rows[level].remove(what)
                    self.rows[lower].append(what)
                    happened.append(f"{what} drops to level {lower}")
        self.events.extend(happened)
        return happened

    def penalties(self) -> list[str]:
        """The penalties in force: one per level with harm in its row."""
        return [penalty for level, _, _, penalty in self.LEVELS if penalty and self.rows.get(level)]


class Markers(Track):
    """Several markers on one track.

    Markers from opposite ends share the boxes (damage pegs from the left, Strain pegs from
    the right): the track is full when they meet. Markers from the same end race (a player
    token and an enemy token): the first to reach a key point is recorded.
    """

    MARKERS: tuple[tuple[str, str], ...] = ()  # (marker, "start" | "end")
    PER_ROUND: tuple[tuple[str, int], ...] = ()  # (marker, boxes moved at each new round)
    key_points: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        self.at: dict[str, int] = {name: 0 for name, _ in self.MARKERS}
        self.first: dict[int, str] = {}  # key point -> the marker that reached it first

    @property
    def shared(self) -> bool:
        return len({end for _, end in self.MARKERS}) > 1

    def _filled(self) -> int:
        return sum(self.at.values()) if self.shared else max(self.at.values(), default=0)

    def move(self, marker: str, count: int = 1) -> list[str]:
        """Move `marker` `count` boxes along (back when negative); returns key points reached and a fill."""
        if marker not in self.at:
            raise ValueError(f"{self.label} has no marker {marker!r}; its markers are {', '.join(self.at)}")
        count = check_int("count", count, -MAX_MARKED, MAX_MARKED)
        before = self.at[marker]
        room = self.size - (sum(self.at.values()) - before if self.shared else 0)
        self.at[marker] = max(0, min(room, before + count))
        self.marked = self._filled()
        happened: list[str] = []
        for point in sorted(self.key_points):
            if before < point <= self.at[marker]:
                first = self.first.setdefault(point, marker)
                happened.append(f"{marker} reaches key point {point}" + (" first" if first == marker
                                                                         else f" after {first}"))
        if count > 0 and self.full:
            happened.append(f"{self.label} is full" + (f": {self.on_full}" if self.on_full else ""))
        self.events.extend(happened)
        return happened

    def mark(self, count: int = 1) -> list[str]:
        return self.move(self.MARKERS[0][0], count)

    def clear(self, count: int | None = None, marker: str | None = None) -> list[str]:
        """Clear `count` boxes of `marker` (every marker, all boxes, when not given)."""
        for name in ([marker] if marker is not None else list(self.at)):
            self.move(name, -(self.at.get(name, 0) if count is None else count))
        return []

    def new_round(self) -> list[str]:
        """Move every marker that advances each round (the document's "1 per round")."""
        return [event for marker, steps in self.PER_ROUND for event in self.move(marker, steps)]


class TickedTrack(Track):
    """A track whose boxes hold several ticks each (Ironsworn's progress tracks: 10 boxes of 4 ticks).

    `TICKS` is how many ticks a box holds; `RANKS` lists (rank, ticks): how many ticks one mark of
    progress is at each rank, e.g. ("dangerous", 8). `ticks` counts the ticks marked, `filled` (and
    `marked`) the boxes whose every tick is marked; the track is full when every tick is.
    """

    TICKS = 1
    RANKS: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        self.ticks = self.marked * self.TICKS

    @property
    def filled(self) -> int:
        """The boxes whose every tick is marked: a progress roll's progress score."""
        return self.ticks // self.TICKS

    def set_ticks(self, ticks: int) -> None:
        """Start with `ticks` ticks marked (from 0 to every tick of the track)."""
        self.ticks = check_int("ticks", ticks, 0, self.size * self.TICKS)
        self.marked = self.filled

    def progress(self, rank: str, times: int = 1) -> list[str]:
        """Mark progress `times` times at `rank` (`progress("dangerous")`: 8 ticks on boxes of 4);
        returns what happened, as mark() does."""
        ranks = dict(self.RANKS)
        if not isinstance(rank, str) or rank not in ranks:
            raise ValueError(f"{self.label} has no rank {rank!r}; its ranks are "
                             f"{', '.join(name for name, _ in self.RANKS) or 'none'}")
        times = check_int("times", times, 0, MAX_MARKED)
        return self.mark_ticks(ranks[rank] * times)

    def mark(self, count: int = 1) -> list[str]:
        """Mark `count` whole boxes (`count` x TICKS ticks); back when negative."""
        count = check_int("count", count, -MAX_MARKED, MAX_MARKED)
        return self.mark_ticks(count * self.TICKS)

    def mark_ticks(self, count: int = 1) -> list[str]:
        """Mark `count` ticks (clear them when negative); returns the boxes filled and a fill, with the
        document's text."""
        count = check_int("count", count, -MAX_MARKED * self.TICKS, MAX_MARKED * self.TICKS)
        if count < 0:
            return self.clear_ticks(-count)
        happened: list[str] = []
        total = self.size * self.TICKS
        remaining = count
        while remaining > 0:
            before = self.filled
            step = min(total - self.ticks, remaining)
            self.ticks += step
            remaining -= step
            self.marked = self.filled
            if self.filled > before:
                happened.append(f"{self.label}: {self.filled} of {self.size} boxes filled")
            if self.ticks >= total:
                happened.append(f"{self.label} is full" + (f": {self.on_full}" if self.on_full else ""))
                if self.roll_over or self.reset_on_full:
                    self.ticks = self.marked = 0
                if not self.roll_over:
                    break
            if step == 0:
                break
        self.events.extend(happened)
        return happened

    def clear(self, count: int | None = None) -> list[str]:
        """Clear `count` whole boxes' worth of ticks (every tick when None)."""
        if count is None:
            return self.clear_ticks(self.ticks)
        return self.clear_ticks(check_int("count", count, 0, MAX_MARKED) * self.TICKS)

    def clear_ticks(self, count: int = 1) -> list[str]:
        """Clear `count` ticks; returns the boxes no longer filled."""
        count = check_int("count", count, 0, MAX_MARKED * self.TICKS)
        before = self.filled
        self.ticks = max(0, self.ticks - count)
        self.marked = self.filled
        happened = [f"{self.label}: {self.filled} of {self.size} boxes filled"] if self.filled < before else []
        self.events.extend(happened)
        return happened


class Clock(Track):
    """A progress clock: segments filled by ticks."""

    def tick(self, segments: int = 1) -> list[str]:
        return self.mark(segments)



class Forbidden(ValueError):
    """A roll a condition in force forbids ("Incapacitated: you cannot act")."""


class Turn(NamedTuple):
    """One roll through a game: its result and what it changed, in order (the tables an effect rolled
    included), each said in words."""

    result: AnyResult
    changes: tuple[str, ...]


# What a ruleset's state is made of, as the generated module lists it: by name, a resource's (label, start,
# most), a condition's (ConditionSpec), what filling or marking a track sets off (TRIGGERS), and each roll's
# inputs the state gives (input, function of the game).
StateSources = Mapping[str, tuple[tuple[str, Callable[["Game"], object]], ...]]
# A condition: label, text, the rolls it forbids, a test of the state that puts it in force (`while:`; None: set
# and cleared by effects), a test of a roll's inputs under which it does not forbid it (`unless:`)
ConditionSpec = tuple[str, str | None, tuple[str, ...], Callable[["Game"], object] | None,
                      Callable[[Mapping[str, object]], object] | None]
MAX_TRIGGERED = 64  # effects one roll may set off, chained tables and full tracks included


class Game:
    """A game in play: every track, clock, resource and condition of a ruleset, and rolls that act on them.

    `game = module.game(rng=random.Random(7), sizes={"stress": 9})`; `turn = game.roll("action_roll", dots=2)`
    rolls with the inputs the state gives (a harm penalty, a carried "+2 to the next roll"; inputs given
    explicitly win), refuses a roll a condition forbids (`Forbidden`), applies the outcome's effects (marking
    clocks, setting conditions, spending coin, rolling tables; a track that fills sets off its own) and returns
    the result with what changed. `game.state()` is the state as JSON data and `Game.load` (the module's
    `load_game`) makes a game from it again; `undo()` goes back one roll. A plain resolver call stays pure.
    """

    def __init__(self, ruleset: str, resolvers: Mapping[str, Callable[..., AnyResult]],
                 inputs: Mapping[str, tuple[InputSpec, ...]], tracks: Mapping[str, type[Track]],
                 resources: Mapping[str, tuple[str, int, int | None]],
                 conditions: Mapping[str, ConditionSpec],
                 triggers: Mapping[str, Mapping[str, tuple[Effect, ...]]], sources: StateSources,
                 rng: random.Random | None = None, sizes: Mapping[str, int] | None = None) -> None:
        self.ruleset = ruleset
        self.resolvers, self.inputs, self.triggers, self.sources = resolvers, inputs, triggers, sources
        self.resource_specs, self.condition_specs = resources, conditions
        self.rng = random.Random() if rng is None else _generator(rng)
        sizes = dict(sizes or {})
        unknown = sorted(set(sizes) - set(tracks))
        if unknown:
            raise ValueError(f"no track or clock named {', '.join(unknown)}; there are: {', '.join(tracks) or 'none'}")
        self.tracks: dict[str, Track] = {}
        for name, kind in tracks.items():
            try:
                self.tracks[name] = kind(size=sizes[name]) if name in sizes else kind()  # type: ignore[call-arg]
            except (TypeError, ValueError):
                continue  # the document gives no size and none was given: effects on it say so
        self.track_kinds = dict(tracks)
        self.resources: dict[str, int] = {name: start for name, (_, start, _) in resources.items()}
        self.conditions: set[str] = set()
        self.carried: dict[str, dict[str, int]] = {}  # roll -> input -> an amount added to its next roll
        self.history: list[tuple[str, dict[str, object]]] = []  # (what was rolled, the state before it)

    # ---- what the state gives a roll

    def value(self, name: str) -> int | bool:
        """A track's or clock's marked boxes, a resource's amount, or whether a condition is in force."""
        if name in self.condition_specs:
            return self.in_force(name)
        if name in self.resources:
            return self.resources[name]
        return self._track(name).marked

    def row(self, name: str, level: int) -> int:
        """How many harms are recorded at `level` of harm track `name`."""
        return len(getattr(self._track(name), "rows", {}).get(level, ()))

    def level(self, name: str) -> int:
        """The highest level of harm track `name` with harm marked (0: none)."""
        track = self._track(name)
        rows = getattr(track, "rows", {})
        return max((level for level, marked in rows.items() if marked), default=0)

    def _track(self, name: str) -> Track:
        if name not in self.tracks:
            if name in self.track_kinds:
                raise ValueError(f"{name} has no size: the document gives none; start the game with "
                                 f"sizes={{{name!r}: N}}")
            raise ValueError(f"no track, clock, resource or condition named {name!r}")
        return self.tracks[name]

    def in_force(self, condition: str) -> bool:
        """Whether `condition` is in force: set by an effect, or, for one the state puts in force (`while:`),
        while its test holds."""
        test = self.condition_specs[condition][3]
        return condition in self.conditions or (test is not None and bool(test(self)))

    def forbidding(self, name: str, inputs: Mapping[str, object] | None = None) -> list[str]:
        """The conditions in force that forbid roll `name` (with `inputs`, all of them: an `unless:` of them
        lifts it), as "Label: text"."""
        return [text if text and text.startswith(label) else f"{label}: {text}" if text else label
                for condition, (label, text, rolls, _, unless) in sorted(self.condition_specs.items())
                if ("all" in rolls or name in rolls) and self.in_force(condition)
                and (unless is None or inputs is None or not unless(inputs))]

    def inputs_for(self, name: str, given: Mapping[str, object]) -> dict[str, object]:
        """The inputs a roll of `name` takes here: those given, else what the state gives, plus what an earlier
        outcome carried (kept within each input's range)."""
        specs = {spec[0]: spec for spec in self.inputs[name]}
        out = dict(given)
        for input_name, source in self.sources.get(name, ()):
            if input_name not in out:
                out[input_name] = source(self)
        for input_name, amount in self.carried.get(name, {}).items():
            _, _, low, high, _, default = specs[input_name]
            start = out.get(input_name, default)
            if isinstance(start, int) and not isinstance(start, bool):
                out[input_name] = max(low if low is not None else start + amount,
                                      min(high if high is not None else start + amount, start + amount))
        return out

    # ---- rolling

    def roll(self, name: str, /, **inputs: object) -> Turn:
        """Roll `name` with the state's inputs and apply what its outcome does; see the class's docstring."""
        if name not in self.resolvers:
            raise ValueError(f"no roll or table named {name!r}; there are: {', '.join(self.resolvers)}")
        given = self.inputs_for(name, inputs)
        forbidding = self.forbidding(name, {spec[0]: spec[5] for spec in self.inputs[name]} | given)
        if forbidding:
            raise Forbidden(f"{name} cannot be rolled now: " + "; ".join(forbidding))
        before = self.state()
        result = self.resolvers[name](**given, rng=self.rng)
        self.carried.pop(name, None)  # spent by this roll
        changes: list[str] = []
        budget = [MAX_TRIGGERED]
        self.apply(result.effects, changes, budget)
        self.history.append((name, before))
        return Turn(result, tuple(changes))

    def act(self, verb: str, target: str, amount: int | None = None, level: int | None = None,
            marker: str | None = None) -> tuple[str, ...]:
        """Apply one effect a person rules, not a roll (the GM's "take level 2 harm": `act("mark", "harm",
        level=2)`; "2 damage": `act("mark", "health_strain", 2, marker="damage")`), with what it sets off;
        returns what changed, and `undo()` takes it back."""
        kinds: dict[str, list[str]] = {"mark": list(self.tracks),
                                       "clear": [*self.tracks, *self.condition_specs, *self.resources],
                                       "gain": list(self.resources), "spend": list(self.resources),
                                       "set": [*self.condition_specs, *self.tracks]}
        if verb not in kinds:
            raise ValueError(f"{verb!r} is not an effect here; the effects are: {', '.join(kinds)}")
        if target not in kinds[verb]:
            if target in self.track_kinds:
                self._track(target)  # says it has no size
            raise ValueError(f"{verb} acts on one of: {', '.join(kinds[verb]) or 'none here'}; not {target!r}")
        if verb in ("set", "clear") and target in self.condition_specs and self.condition_specs[target][3]:
            raise ValueError(f"{target} is in force by the state alone: it cannot be set or cleared")
        if level is not None and not isinstance(self.tracks.get(target), Levels):
            raise ValueError(f"{target} has no levels: `at` is a level of a harm track")
        if marker is not None:
            track = self.tracks.get(target)
            if verb != "mark" or not isinstance(track, Markers):
                raise ValueError(f"{target} has no markers: `by` names the marker to move on a track with markers"
                                 if verb == "mark" else f"`by` names the marker a mark moves; {verb} takes none")
            if marker not in track.at:
                raise ValueError(f"{target} has no marker {marker!r}; its markers are {', '.join(track.at)}")
        if verb == "set" and (amount is None) == (target in self.tracks):
            raise ValueError(f"set {target} takes " + ("the boxes to mark: set NAME N" if target in self.tracks
                                                        else "no amount: a condition is set or not"))
        before = self.state()
        changes: list[str] = []
        try:
            self.apply([Effect(verb, target, amount, level, None, f"{verb} {target}", marker)], changes)
        except ValueError:
            self.restore(before)
            raise
        self.history.append((f"{verb} {target}", before))
        return tuple(changes)

    def apply(self, effects: Iterable[Effect], changes: list[str], budget: list[int] | None = None) -> None:
        """Apply `effects` in order, adding what each changed to `changes` (a track that fills sets off its own
        `full:` effects, and a rolled table its outcome's)."""
        budget = [MAX_TRIGGERED] if budget is None else budget
        for effect in effects:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError(f"more than {MAX_TRIGGERED} effects set off by one roll: a loop of full tracks "
                                 "and tables?")
            changes.extend(self._apply(effect, budget))

    def _apply(self, effect: Effect, budget: list[int]) -> list[str]:
        verb, target, amount = effect.verb, effect.target, effect.amount
        if verb == "roll":
            turn_result = self.resolvers[target](**self.inputs_for(target, {}), rng=self.rng)
            said = [f"rolled {target}: {turn_result.trace}"]
            self.apply(turn_result.effects, said, budget)
            return said
        if verb == "clear" and target in self.resources:  # all of it, or N of it
            verb, amount = "spend", self.resources[target] if amount is None else amount
        if verb in ("gain", "spend"):
            label, _, most = self.resource_specs[target]
            change = (amount or 0) * (1 if verb == "gain" else -1)
            now = max(0, self.resources[target] + change)
            now = min(now, most) if most is not None else now
            short = " (not enough: it stops at 0)" if verb == "spend" and self.resources[target] + change < 0 else ""
            self.resources[target] = now
            return [f"{label}: {now}{short}"]
        if verb in ("set", "clear") and target in self.condition_specs:
            label = self.condition_specs[target][0]
            if verb == "set":
                self.conditions.add(target)
                return [f"now {label}"]
            was = target in self.conditions
            self.conditions.discard(target)
            return [f"no longer {label}"] if was else []
        if verb == "carry":
            assert effect.input is not None
            pending = self.carried.setdefault(target, {})
            pending[effect.input] = pending.get(effect.input, 0) + (amount or 0)
            return [f"next {target}: {effect.input} {pending[effect.input]:+d}"]
        track = self._track(target)
        was_full = track.full
        if verb == "clear" and isinstance(track, Levels):  # all harm, or every harm down a level N times
            if amount is None:
                track.rows = {level: [] for level in track.rows}
                track.marked = 0
                said = [f"{track.label}: cleared"]
            else:
                said = [event for _ in range(amount) for event in track.heal()] or [f"{track.label}: no harm"]
        elif verb == "set":  # the boxes marked, whatever they were
            track.marked = check_int("amount", amount or 0, 0, track.size)
            said = [f"{track.label}: {track.marked} of {track.size}"]
        elif verb == "clear":
            marks_before = track.marked
            track.clear(amount)
            said = [f"{track.label}: {track.marked} of {track.size}"] if track.marked != marks_before else []
        elif effect.level is not None and isinstance(track, Levels) and track.rows:
            said = [event for _ in range(amount or 1) for event in track.add(effect.level)]
        elif effect.marker is not None and isinstance(track, Markers):
            said = track.move(effect.marker, 1 if amount is None else amount) or [
                f"{track.label}: {track.marked} of {track.size} ({effect.marker} {track.at[effect.marker]})"]
        else:
            said = track.mark(1 if amount is None else amount) or [f"{track.label}: {track.marked} of {track.size}"]
        if verb == "mark" and (amount is None or amount > 0):
            self.apply(self.triggers.get(target, {}).get("marked", ()), said, budget)
        if not was_full and (track.full or any(event.startswith(f"{track.label} is full") for event in said)):
            self.apply(self.triggers.get(target, {}).get("full", ()), said, budget)
        return said

    # ---- saving, loading, undoing

    def state(self) -> dict[str, object]:
        """The state as JSON data: every track's marks, every resource's amount, the conditions in force and
        what is carried to a next roll."""
        tracks: dict[str, object] = {}
        for name, track in self.tracks.items():
            data: dict[str, object] = {"size": track.size, "marked": track.marked}
            for extra in ("rows", "at", "ticks"):
                if hasattr(track, extra):
                    value = getattr(track, extra)
                    data[extra] = {str(k): v for k, v in value.items()} if isinstance(value, dict) else value
            tracks[name] = data
        return {"ruleset": self.ruleset, "tracks": tracks, "resources": dict(self.resources),
                "conditions": sorted(self.conditions),
                "carried": {roll: dict(amounts) for roll, amounts in sorted(self.carried.items())}}

    def restore(self, data: Mapping[str, object]) -> None:
        """Put the game in state `data` (from `state()`); a ValueError names what does not fit, and the game
        is as it was."""
        kept = self.state()
        try:
            self._restore(data)
        except KeyError as problem:
            self._restore(kept)
            raise ValueError(f"{problem.args[0]!r} is missing") from None
        except (TypeError, AttributeError) as problem:
            self._restore(kept)
            raise ValueError(f"this is not a game state of {self.ruleset!r} (state() gives one): {problem}") \
                from None
        except ValueError:
            self._restore(kept)
            raise

    def _restore(self, data: Mapping[str, object]) -> None:
        if not isinstance(data, Mapping):
            raise TypeError(f"a state is an object, not {type(data).__name__}")
        if data.get("ruleset") != self.ruleset:
            raise ValueError(f"this state is of {data.get('ruleset')!r}, not {self.ruleset!r}")
        tracks = data.get("tracks", {})
        if not isinstance(tracks, Mapping):
            raise ValueError("`tracks` is an object of tracks by name")
        for name, saved in tracks.items():
            if name not in self.track_kinds or not isinstance(saved, Mapping):
                raise ValueError(f"no track or clock named {name!r} here")
            track = self.track_kinds[name](size=saved["size"])
            track.marked = check_int("marked", saved.get("marked", 0), 0, track.size)
            if "rows" in saved and isinstance(track, Levels):
                track.rows = {int(k): list(v) for k, v in saved["rows"].items()}
            if "at" in saved and isinstance(track, Markers):
                track.at = dict(saved["at"])
            if "ticks" in saved and isinstance(track, TickedTrack):
                track.set_ticks(saved["ticks"])
            self.tracks[name] = track
        for name in set(self.tracks) - set(tracks):  # a track the state leaves out starts empty
            self.tracks[name] = self.track_kinds[name](size=self.tracks[name].size)
        resources = data.get("resources", {})
        for name, amount in dict(resources).items():  # type: ignore[call-overload]
            if name not in self.resource_specs:
                raise ValueError(f"no resource named {name!r} here")
            self.resources[name] = check_int(name, amount, 0, None)
        conditions = set(data.get("conditions", ()))  # type: ignore[call-overload]
        if conditions - set(self.condition_specs):
            raise ValueError(f"no condition named {', '.join(sorted(conditions - set(self.condition_specs)))} here")
        self.conditions = conditions
        carried = data.get("carried", {})
        self.carried = {roll: {k: check_int(k, v, None, None) for k, v in dict(amounts).items()}
                        for roll, amounts in dict(carried).items()}  # type: ignore[call-overload]

    def undo(self) -> str:
        """Go back to before the last roll; returns what was undone."""
        if not self.history:
            raise ValueError("nothing to undo")
        name, before = self.history.pop()
        self.restore(before)
        return name


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: copy `copy` of card `id`, from pile `pile` (a chapter, say)."""

    id: str
    label: str
    text: str | None
    copy: int
    pile: int | str | None


class Deck:
    """Cards drawn without replacement: no card comes up twice before the deck is shuffled again.

    `CARDS` lists (id, label, text, copies, pile). With piles (chapters), one pile is in play;
    `start(pile)` shuffles that pile into play. Drawn cards stay out until discarded;
    `RESHUFFLE` says whether an empty deck shuffles its discards back in or stays empty.
    """

    CARDS: tuple[tuple[str, str, str | None, int, int | str | None], ...] = ()
    LABEL = "deck"
    PILES: str | None = None  # the card data that splits the deck, e.g. "chapter"
    RESHUFFLE = False

    def __init__(self, rng: random.Random | None = None, pile: int | str | None = None) -> None:
        if not self.CARDS:
            raise ValueError(f"{self.LABEL} has no cards: the document lost them; list them in an errata entry")
        self.rng = random.Random() if rng is None else _generator(rng, ("randint", "shuffle"))
        self.piles: dict[int | str | None, list[Card]] = {}
        for card_id, label, text, copies, card_pile in self.CARDS:
            self.piles.setdefault(card_pile, []).extend(
                Card(card_id, label, text, n, card_pile) for n in range(1, copies + 1))
        self.pile: int | str | None = None
        self.cards: list[Card] = []  # the draw pile, top card last
        self.discards: list[Card] = []
        self.drawn: list[Card] = []  # out of the deck, in play
        self.events: list[str] = []
        self.start(next(iter(self.piles)) if pile is None else pile)

    def start(self, pile: int | str | None) -> None:
        """Put `pile` in play (its cards, with any added to it), shuffled: a new chapter's deck."""
        if pile not in self.piles:
            raise ValueError(f"{self.LABEL} has no pile {pile!r}; its piles are "
                             f"{', '.join(repr(p) for p in self.piles)}")
        self.pile = pile
        self.cards = list(self.piles[pile])
        self.discards, self.drawn = [], []
        self.rng.shuffle(self.cards)

    def shuffle(self) -> None:
        """Shuffle the discards back into the deck (drawn cards still in play stay out)."""
        self.cards.extend(self.discards)
        self.discards = []
        self.rng.shuffle(self.cards)
        self.events.append(f"{self.LABEL} shuffled ({len(self.cards)} cards)")

    @property
    def remaining(self) -> int:
        return len(self.cards)

    def draw(self) -> Card | None:
        """The top card, or None when the deck is empty (and does not reshuffle)."""
        if not self.cards and self.RESHUFFLE and self.discards:
            self.shuffle()
        if not self.cards:
            self.events.append(f"{self.LABEL} is empty")
            return None
        card = self.cards.pop()
        self.drawn.append(card)
        return card

    def discard(self, card: Card | None = None) -> None:
        """Discard a drawn card (the last one drawn when not given)."""
        if card is None:
            if not self.drawn:
                raise ValueError(f"no card of {self.LABEL} is in play to discard")
            card = self.drawn[-1]
        if card not in self.drawn:
            raise ValueError(f"{card.label} #{card.copy} is not in play")
        self.drawn.remove(card)
        self.discards.append(card)

    def redraw(self) -> Card | None:
        """Discard the card just drawn and draw another: the new card is final."""
        self.discard()
        return self.draw()

    def add(self, card_id: str, pile: int | str | None = None) -> Card:
        """Add a card, unseen, to `pile` (a future chapter's deck), or shuffle it into the deck in play."""
        known = {c[0]: c for c in self.CARDS}
        if card_id not in known:
            raise ValueError(f"{self.LABEL} has no card {card_id!r}; its cards are {', '.join(known)}")
        target = self.pile if pile is None else pile
        _, label, text, _, _ = known[card_id]
        copy = 1 + sum(1 for cards in self.piles.values() for c in cards if c.id == card_id)
        card = Card(card_id, label, text, copy, target)
        self.piles.setdefault(target, []).append(card)
        if target == self.pile:
            self.cards.insert(self.rng.randint(0, len(self.cards)), card)
        return card

    def chances(self) -> dict[str, Fraction]:
        """Exact chance of each card being the next one drawn."""
        if not self.cards:
            return {}
        counts: dict[str, int] = {}
        for card in self.cards:
            counts[card.id] = counts.get(card.id, 0) + 1
        return {card_id: Fraction(n, len(self.cards)) for card_id, n in counts.items()}


# ---------------------------------------------------------------------------------------------------------------------
# End of Rulecraft's runtime. What follows is this ruleset's: its data, one small function per step of each roll.
# ---------------------------------------------------------------------------------------------------------------------
###}runtime
