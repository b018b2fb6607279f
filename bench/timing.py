"""The timing core: repeats of auto-sized loops, candidates interleaved, medians and spreads.

`compare` measures several callables side by side. Each is first calibrated like
`timeit.Timer.autorange` (1, 2, 5, 10, 20, ... calls until one repeat lasts at
least `min_time`); then the repeats run interleaved, A B C, B C A, C A B, ..., so
that a burst of machine noise (another process, a frequency change) lands on
every candidate rather than on one. Garbage collection is off inside a timed
loop, as in timeit.

A candidate with a `before` hook (clearing caches for a cold measurement) is
timed one call at a time, the hook run outside the timed region.

Statistics: the median seconds per call, and the spread as the interquartile
range (q1-q3) of the repeats. A ratio between two candidates is the ratio of
their medians; its spread runs from A's q1 over B's q3 to A's q3 over B's q1,
so it always holds the ratio and widens with either side's noise.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Clock = Callable[[], float]
CLOCK: Clock = time.perf_counter


@dataclass(frozen=True)
class Candidate:
    """One thing to time: `run()` is one call; `before()`, if given, runs untimed before each call."""

    name: str
    run: Callable[[], object]
    before: Callable[[], None] | None = None


@dataclass(frozen=True)
class Stats:
    """Seconds per call, one value per repeat."""

    times: tuple[float, ...]
    loops: int = 1

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def q1(self) -> float:
        return quartiles(self.times)[0]

    @property
    def q3(self) -> float:
        return quartiles(self.times)[1]

    @property
    def low(self) -> float:
        return min(self.times)

    @property
    def high(self) -> float:
        return max(self.times)

    @property
    def repeats(self) -> int:
        return len(self.times)


@dataclass(frozen=True)
class Ratio:
    """A / B: the ratio of the medians, and its spread (A's q1 / B's q3 to A's q3 / B's q1)."""

    value: float
    q1: float
    q3: float


@dataclass
class Settings:
    """How hard to measure: the run's mode decides (full or quick)."""

    min_time: float = 0.05  # seconds one repeat of a fast callable lasts at least
    repeats: int = 15  # repeats of each candidate, if the budget allows
    min_repeats: int = 3  # repeats even when over budget (unless one call is very slow)
    budget: float = 6.0  # seconds one comparison may take, all candidates together
    slow_call: float = 2.0  # a call at least this long is timed fewer times (down to once)
    clock: Clock = CLOCK  # wall time; time.process_time for this process's CPU time (in-process sections)


def quartiles(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0], values[0]) if values else (math.nan, math.nan)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def _timed(candidate: Candidate, loops: int, clock: Clock = CLOCK) -> float:
    """Seconds for `loops` calls (the `before` hook, if any, outside the timed region)."""
    run = candidate.run
    enabled = gc.isenabled()
    if candidate.before is not None:
        total = 0.0
        for _ in range(loops):
            candidate.before()
            gc.disable()
            try:
                start = clock()
                run()
                total += clock() - start
            finally:
                if enabled:
                    gc.enable()
        return total
    gc.disable()
    try:
        start = clock()
        for _ in range(loops):
            run()
        return clock() - start
    finally:
        if enabled:
            gc.enable()


def calibrate(candidate: Candidate, min_time: float, clock: Clock = CLOCK) -> tuple[int, float]:
    """(loops, seconds per call): the smallest of 1, 2, 5, 10, 20, 50, ... whose repeat lasts min_time.

    A candidate with a `before` hook, or whose first call already lasts min_time, runs one call a repeat.
    """
    first = _timed(candidate, 1, clock)
    if candidate.before is not None or first >= min_time:
        return 1, first
    loops = 1
    while True:
        for factor in (1, 2, 5):
            n = loops * factor
            if n == 1:
                continue
            elapsed = _timed(candidate, n, clock)
            if elapsed >= min_time:
                return n, elapsed / n
        loops *= 10


def compare(candidates: Sequence[Candidate], settings: Settings) -> dict[str, Stats]:
    """Time every candidate, interleaved; returns Stats by candidate name.

    The number of repeats is `settings.repeats`, cut to fit `settings.budget`
    (never below `min_repeats`, except that candidates whose single call lasts
    `slow_call` or more are run fewer times, at least once, the calibration call included).
    """
    clock = settings.clock
    sizing = [calibrate(c, settings.min_time, clock) for c in candidates]
    cost = sum(loops * per_call for loops, per_call in sizing) or 1e-9
    repeats = max(settings.min_repeats, min(settings.repeats, int(settings.budget / cost)))
    slowest = max(per_call for _, per_call in sizing)
    if slowest >= settings.slow_call:
        repeats = max(1, min(repeats, int(settings.budget / cost)))
    times: dict[str, list[float]] = {c.name: [] for c in candidates}
    if repeats == 1 and slowest >= settings.slow_call:
        # the calibration call was a full measurement: keep it rather than pay for another
        for candidate, (loops, per_call) in zip(candidates, sizing, strict=True):
            times[candidate.name].append(per_call if loops == 1 else _timed(candidate, loops, clock) / loops)
        return {c.name: Stats(tuple(times[c.name]), 1) for c in candidates}
    order = list(range(len(candidates)))
    for r in range(repeats):
        shift = r % len(order)
        for i in order[shift:] + order[:shift]:
            loops = sizing[i][0]
            times[candidates[i].name].append(_timed(candidates[i], loops, clock) / loops)
    return {c.name: Stats(tuple(times[c.name]), loops) for c, (loops, _) in zip(candidates, sizing, strict=True)}


def measure(candidate: Candidate, settings: Settings) -> Stats:
    return compare([candidate], settings)[candidate.name]


def ratio(a: Stats, b: Stats) -> Ratio:
    """a / b: the ratio of the medians; the spread combines both interquartile ranges."""
    if b.median <= 0:
        return Ratio(math.inf, math.nan, math.nan)
    if a.repeats < 2 and b.repeats < 2:
        return Ratio(a.median / b.median, math.nan, math.nan)
    return Ratio(a.median / b.median, a.q1 / b.q3 if b.q3 > 0 else math.inf, a.q3 / b.q1 if b.q1 > 0 else math.inf)


def once(fn: Callable[[], object], clock: Clock = CLOCK) -> float:
    """Seconds for one call (for things measured a single time, like a cold start)."""
    start = clock()
    fn()
    return clock() - start


def stats_of(values: Sequence[float]) -> Stats:
    return Stats(tuple(values), 1)


# ---------------------------------------------------------------- formatting


def seconds(value: float) -> str:
    """A duration with three significant digits and a unit: 812 ns, 3.41 µs, 27.0 ms, 1.25 s."""
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "∞"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if abs(value) >= scale or unit == "ns":
            return f"{_three(value / scale)} {unit}"
    return f"{value} s"  # pragma: no cover


def _three(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def spread(stats: Stats) -> str:
    """The interquartile range of the repeats (a single repeat has none)."""
    if stats.repeats < 2:
        return "1 run"
    return f"{seconds(stats.q1)}–{seconds(stats.q3)}"


def times(x: float) -> str:
    """A ratio: 1.23x, 15.4x, 210x; below 0.1 two significant digits (0.0047x)."""
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞"
    return f"{x:.2g}x" if 0 < x < 0.1 else f"{_three(x)}x"


def ratio_text(r: Ratio) -> str:
    if math.isnan(r.q1) or r.q1 == r.q3:
        return times(r.value)
    return f"{times(r.value)} ({times(r.q1)[:-1]}–{times(r.q3)[:-1]})"
