"""Exact analytics of "roll until": how many rolls it takes to gather N of what a roll gives (segments,
progress, damage), and two clocks racing.

A clock is a Markov chain over its filled amount 0..N-1; a roll moves it by a step drawn from the roll's
distribution of the amount (never below 0: a negative step is clamped there), and N or more is full. The
expected number of rolls solves (I - Q) E = 1 over the states not yet full (Q: the chance of each move
between them); the chance of being done within k rolls walks the distribution of the state k times. Two
clocks race over pairs of states: a round moves both at once, by the same roll (a joint step of two
amounts) or by two rolls made once each (`independent`). Everything is exact: `Fraction`s, no floats.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

MAX_ROWS = 200  # the list of "done within k rolls" stops here even before 99%
DONE = Fraction(99, 100)  # ... and at the first k whose chance reaches this
MAX_STATES = 20_000  # states of an exact solve (a race has N x M)

_S = TypeVar("_S", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Fill:
    """How many rolls one clock takes to fill: the expected number, and the chance of being full within k rolls
    for k = 1, 2, ... up to the first k where it reaches `DONE` (`capped`: the list stopped at `MAX_ROWS` first)."""

    target: int
    expected: Fraction
    within: tuple[Fraction, ...]  # within[k - 1]: the chance of being full within k rolls
    capped: bool


@dataclass(frozen=True, slots=True)
class Race:
    """Two clocks filled at once, round by round, until either is full: the chance that the first fills strictly
    first, that the second does, that both fill in the same round (they sum to 1), and the expected rounds."""

    first: Fraction
    second: Fraction
    together: Fraction
    expected: Fraction


def _checked(step: Mapping[_S, Fraction]) -> dict[_S, Fraction]:
    """The step without its impossible amounts; its chances must sum to 1."""
    if any(p < 0 for p in step.values()) or sum(step.values(), Fraction(0)) != 1:
        raise ValueError(f"a step's chances must be at least 0 and sum to 1, not {dict(step)}")
    return {amount: Fraction(p) for amount, p in step.items() if p}


def _gains(step: Mapping[int, Fraction]) -> bool:
    return any(amount > 0 for amount in step)


def _target(target: int) -> None:
    if target < 1:
        raise ValueError(f"a clock to fill needs a target of at least 1, not {target}")


def moved(state: int, amount: int) -> int:
    """The clock after a step: never below 0 (a full clock is any state >= its target)."""
    return max(0, state + amount)


def fill(step: Mapping[int, Fraction], target: int, *, done: Fraction = DONE, rows: int = MAX_ROWS) -> Fill:
    """How many rolls, each gaining an amount drawn from `step` ({amount: chance}), gather `target` or more."""
    step = _checked(step)
    _target(target)
    if not _gains(step):
        raise ValueError("no roll gains anything above 0, so the clock can never fill")
    return Fill(target, expected_rolls(step, target), *within(step, target, done=done, rows=rows))


def expected_rolls(step: Mapping[int, Fraction], target: int) -> Fraction:
    """The exact expected number of rolls until the clock holds `target` or more."""
    step = _checked(step)
    _target(target)
    if not _gains(step):
        raise ValueError("no roll gains anything above 0, so the clock can never fill")
    return _solve(list(range(target)), lambda s: [(moved(s, a), p) for a, p in step.items()],
                  lambda s: s >= target, lambda _: [Fraction(0)], 1)[0]


def within(step: Mapping[int, Fraction], target: int, *, done: Fraction = DONE,
           rows: int = MAX_ROWS) -> tuple[tuple[Fraction, ...], bool]:
    """The chance of being full within k rolls for k = 1, 2, ... up to the first k where it reaches `done`, at most
    `rows` of them; and whether the list stopped at `rows` before reaching `done`."""
    step = _checked(step)
    _target(target)
    at: dict[int, Fraction] = {0: Fraction(1)}
    full = Fraction(0)
    out: list[Fraction] = []
    while len(out) < rows:
        after: dict[int, Fraction] = {}
        for state, p in at.items():
            for amount, q in step.items():
                nxt = moved(state, amount)
                if nxt >= target:
                    full += p * q
                else:
                    after[nxt] = after.get(nxt, Fraction(0)) + p * q
        at = after
        out.append(full)
        if full >= done:
            return tuple(out), False
    return tuple(out), True


def independent(first: Mapping[int, Fraction], second: Mapping[int, Fraction]) -> dict[tuple[int, int], Fraction]:
    """The joint step of two rolls made once each per round, independently."""
    return {(a, b): p * q for a, p in _checked(first).items() for b, q in _checked(second).items()}


def race(step: Mapping[tuple[int, int], Fraction], first_target: int, second_target: int) -> Race:
    """Two clocks moved each round by a joint step ({(first amount, second amount): chance}: one roll that marks
    both, or `independent` rolls): who fills first, and the expected rounds until either does."""
    step = _checked(step)
    _target(first_target)
    _target(second_target)
    if not any(a > 0 for a, _ in step) and not any(b > 0 for _, b in step):
        raise ValueError("no round gains anything above 0 on either clock, so neither can ever fill")
    states = [(s, t) for s in range(first_target) for t in range(second_target)]

    def ends(pair: tuple[int, int]) -> list[Fraction]:  # (rounds, first only, second only, both) at a full state
        s, t = pair
        return [Fraction(0), Fraction(s >= first_target and t < second_target),
                Fraction(s < first_target and t >= second_target), Fraction(s >= first_target and t >= second_target)]

    expected, first, second, together = _solve(
        states, lambda pair: [((moved(pair[0], a), moved(pair[1], b)), p) for (a, b), p in step.items()],
        lambda pair: pair[0] >= first_target or pair[1] >= second_target, ends, 4)
    return Race(first, second, together, expected)


def _solve(states: Sequence[_S], moves: Callable[[_S], list[tuple[_S, Fraction]]], full: Callable[[_S], bool],
           ends: Callable[[_S], list[Fraction]], width: int) -> list[Fraction]:
    """Values of an absorbing chain at `states[0]`: x(s) = (1, 0, ...) + the sum of p x(s') over the `moves` of s,
    where a `full` state s' is worth `ends(s')` and the others are solved for: the first value counts rounds
    (a full state's is 0), the others the chance of ending in each kind of full state."""
    if len(states) > MAX_STATES:
        raise ValueError(f"this needs an exact solve over {len(states):,} states; the limit is {MAX_STATES:,}")
    index = {s: i for i, s in enumerate(states)}
    rows: list[dict[int, Fraction]] = []
    rhs: list[list[Fraction]] = []
    for s in states:
        row: dict[int, Fraction] = {index[s]: Fraction(1)}
        right = [Fraction(1)] + [Fraction(0)] * (width - 1)
        for nxt, p in moves(s):
            if full(nxt):
                right = [r + p * e for r, e in zip(right, ends(nxt), strict=True)]
            else:
                row[index[nxt]] = row.get(index[nxt], Fraction(0)) - p
        rows.append(row)
        rhs.append(right)
    return gauss(rows, rhs)[0]


def gauss(rows: list[dict[int, Fraction]], rhs: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve A x = b exactly, A given by sparse rows ({column: value}) with a non-zero pivot on each diagonal
    as eliminated in order (an absorbing chain's I - Q is a non-singular M-matrix, so it needs no pivoting),
    b with one column per right-hand side. Upper-triangular rows (steps never negative) eliminate nothing."""
    n = len(rows)
    below: list[set[int]] = [set() for _ in range(n)]  # below[j]: the rows after j with an entry in column j
    for i, row in enumerate(rows):
        for j in row:
            if j < i:
                below[j].add(i)
    for j in range(n):
        pivot = rows[j][j]
        for i in sorted(below[j]):
            entry = rows[i].pop(j, None)
            if entry is None:  # cancelled to 0 by an earlier elimination
                continue
            factor = entry / pivot
            for col, value in rows[j].items():
                if col == j:
                    continue
                updated = rows[i].get(col, Fraction(0)) - factor * value
                if updated:
                    rows[i][col] = updated
                else:
                    rows[i].pop(col, None)
                if j < col < i:
                    below[col].add(i)
            rhs[i] = [r - factor * b for r, b in zip(rhs[i], rhs[j], strict=True)]
    x: list[list[Fraction]] = [[] for _ in range(n)]
    for i in range(n - 1, -1, -1):
        x[i] = [(r - sum((v * x[col][k] for col, v in rows[i].items() if col > i), Fraction(0))) / rows[i][i]
                for k, r in enumerate(rhs[i])]
    return x
