"""Section 3: exact odds. The full input grid of every roll; pools and sums against icepool; scaling."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

from .context import Context, clear_compiler_caches, compile_error_text, compiler_caches, progress
from .report import MISS, NA, PASS, Section, Table, verdict
from .timing import Candidate, Stats, compare, ratio, ratio_text, seconds, spread, stats_of, times

GRID_TARGET = 1.0  # seconds for the whole grid of all five rulesets
Odds = dict[Any, Fraction]


# ---------------------------------------------------------------- the grid


def _grid_jobs(ctx: Context, ruleset: str) -> tuple[Callable[[], int], int, int]:
    """A callable running the full grid of one ruleset (returns failures), its resolver and combination counts."""
    from compiler import model as m
    from compiler import odds

    checked = ctx.loaded(ruleset).checked
    names = frozenset(d.name for d in checked.definitions)
    rolls = [r for r in checked.definitions if isinstance(r, m.Resolver) and r.bands and r.dice]
    combos = sum(sum(1 for _ in odds.input_grid(r)) for r in rolls)

    def grid() -> int:
        failures = 0
        for r in rolls:
            for inputs in odds.input_grid(r):
                try:
                    odds.distribution(r, inputs, names).outcomes  # noqa: B018  (the fractions, made on first read)
                except Exception:
                    failures += 1
        return failures

    return grid, len(rolls), combos


def grid_part(ctx: Context, section: Section) -> None:
    section.text("### 3.1 The full input grid of every roll")
    jobs: dict[str, tuple[Callable[[], int], int, int]] = {}
    for ruleset in ctx.rulesets:
        progress(f"odds: loading {ruleset}")
        jobs[ruleset] = _grid_jobs(ctx, ruleset)
    hooks = compiler_caches()
    section.text(
        "For each ruleset: `loaded = compiler.api.load(id)` (not timed: loading runs the design check, which "
        "works out the same grids; see section 4), then for every `Resolver` with bands and dice and every "
        "`inputs` in `compiler.odds.input_grid(r)`: `compiler.odds.distribution(r, inputs, names).outcomes` "
        "(each outcome's probability as a `Fraction`). The engine "
        "may share work between the inputs of one grid (that is its algorithm); nothing is shared between "
        "repeats: the compiler's caches are emptied before each one"
        + (f" ({', '.join(f'`{c}`' for c in hooks)})." if hooks else " (none were found)."))
    failures = {ruleset: job[0]() for ruleset, job in jobs.items()}  # a warm-up pass, which also counts failures
    progress("odds: timing the grids")
    found = compare([Candidate(r, job[0], clear_compiler_caches) for r, job in jobs.items()], ctx.settings)
    table = Table(("ruleset", "rolls", "input combinations", "median", "spread", "per combination", "failed"))
    for ruleset, (_, rolls, combos) in jobs.items():
        s = found[ruleset]
        table.add(ruleset, rolls, f"{combos:,}", seconds(s.median), spread(s),
                  seconds(s.median / combos) if combos else "", failures[ruleset])
    repeats = min(s.repeats for s in found.values())
    total = stats_of([sum(found[r].times[i] for r in jobs) for i in range(repeats)])
    combos_all = sum(job[2] for job in jobs.values())
    table.add("**all**", sum(job[1] for job in jobs.values()), f"{combos_all:,}", f"**{seconds(total.median)}**",
              spread(total), seconds(total.median / combos_all) if combos_all else "", sum(failures.values()))
    section.table(table)
    whole = set(ctx.rulesets) == {"dice_ladder", "errant", "everrain", "tides_of_gold", "wyrd_wolds"}
    ok = total.median < GRID_TARGET and not sum(failures.values())
    section.text(f"Target: the grids of all five rulesets in under {GRID_TARGET:.0f} s: **{verdict(ok)}**"
                 + ("" if whole else " (quick run: only " + ", ".join(ctx.rulesets) + ")") + ".")
    section.target(f"exact odds of every roll's full input grid, all five rulesets, < {GRID_TARGET:.0f} s"
                   + ("" if whole else " (quick: " + ", ".join(ctx.rulesets) + ")"), seconds(total.median),
                   verdict(ok))


# ---------------------------------------------------------------- against icepool


def _icepool() -> Any | None:
    try:
        import icepool  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    return icepool


def _fractions(die: Any) -> Odds:
    denominator = die.denominator()
    return {outcome: Fraction(q, denominator) for outcome, q in die.items() if q}


def _nonzero(found: dict[Any, Fraction]) -> Odds:
    return {k: v for k, v in found.items() if v}


def _tides_band(dots: int) -> Callable[[int], str]:
    def band(natural: int) -> str:
        if natural == 12:
            return "advantage"
        total = natural + dots
        return "failure" if total <= 6 else "costly" if total <= 9 else "heroic"

    return band


def _blades_band(highest_and_count: tuple[int, int]) -> str:
    highest, count = highest_and_count
    if highest == 6:
        return "critical" if count >= 2 else "full"
    return "partial" if highest >= 4 else "bad"


def icepool_tides(icepool: Any, dots: int, bonus_die: bool) -> Odds:
    die = icepool.Die(range(1, 7))  # a new die: nothing cached from an earlier call
    natural = die.pool(3).highest(2).sum() if bonus_die else 2 @ die
    return _fractions(natural.map(_tides_band(dots)))


def icepool_blades(icepool: Any, n: int) -> Odds:
    # `d6.pool(n).highest_outcome_and_count()`, with a new evaluator so that its cache starts empty
    evaluator = icepool.evaluator.HighestOutcomeAndCountEvaluator()
    return _fractions(evaluator.evaluate(icepool.Die(range(1, 7)).pool(n)).map(_blades_band))


def icepool_sum(icepool: Any, k: int) -> Odds:
    # `k @ d6` adds one die at a time, recursively: 1000 dice pass Python's default recursion limit
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * k + 1000))
    return _fractions(k @ icepool.Die(range(1, 7)))


BLADES = '''ruleset "Bench: highest of {n}d6"
  zero_dice: 2d6 lowest

roll pool "Highest of {n}d6, critical on two 6s" [BENCH-1]
  roll: {n}d6 highest
  - when count(6) >= 2 and not zero_dice: critical "Critical"
  - 6: full "You do it."
  - 4/5: partial "You do it, but there's a consequence."
  - 1-3: bad "Things go badly."
'''

SUMS = '''ruleset "Bench: sum of {n}d6"

roll total "Sum of {n}d6" [BENCH-2]
  roll: {n}d6
  - {n}+: any "Any total"
'''


@dataclass
class Row:
    label: str
    n: int | None
    ours: Stats | None
    theirs: Stats | None
    identical: str
    problem: str | None = None

    @property
    def ratio(self) -> float | None:
        if self.ours is None or self.theirs is None:
            return None
        return ratio(self.ours, self.theirs).value


def _ours(resolver: Any, inputs: dict[str, object], names: frozenset[str], read: str) -> Callable[[], Odds]:
    from compiler import odds

    def run() -> Odds:
        found = odds.distribution(resolver, inputs, names)
        return _nonzero(found.totals if read == "totals" else found.outcomes)

    return run


def _tiny(template: str, n: int) -> tuple[Any, frozenset[str]]:
    from compiler import api
    from compiler import model as m

    loaded = api.load_text(template.format(n=n), "<bench>", f"bench_{n}")
    resolver = next(d for d in loaded.checked.definitions if isinstance(d, m.Resolver))
    return resolver, frozenset(d.name for d in loaded.checked.definitions)


def _race(ctx: Context, label: str, n: int | None, ours: Callable[[], Odds] | None, theirs: Callable[[], Odds] | None,
          icepool: Any) -> Row:
    """Check identical fractions, then time both cold, interleaved."""
    if ours is None:
        return Row(label, n, None, None, "", "not built")
    try:
        clear_compiler_caches()
        mine, mine_took = _timed_once(ours)
    except Exception as problem:
        return Row(label, n, None, None, "", compile_error_text(problem))

    def cold_icepool() -> None:
        icepool.math.comb_row_cache.clear()

    def ours_alone() -> Stats:
        if mine_took >= ctx.settings.slow_call:
            return stats_of([mine_took])  # that call was a full cold measurement: not paid twice
        return compare([Candidate("ours", ours, clear_compiler_caches)], ctx.settings)["ours"]

    if theirs is None:
        return Row(label, n, ours_alone(), None, "icepool not installed")
    try:
        cold_icepool()
        reference, their_took = _timed_once(theirs)
    except Exception as problem:  # icepool's own failure: ours is still timed, the row cannot be judged
        return Row(label, n, ours_alone(), None, f"icepool failed: {type(problem).__name__}: {str(problem)[:80]}")
    identical = "yes" if mine == reference else "**no**"
    if mine != reference:
        differing = sorted({str(k) for k in set(mine) | set(reference) if mine.get(k) != reference.get(k)})[:3]
        identical += f" (differ at {', '.join(differing)})"
    if their_took >= ctx.settings.slow_call:  # icepool's cold call took seconds: that one call is its measurement
        return Row(label, n, ours_alone(), stats_of([their_took]), identical)
    found = compare([Candidate("ours", ours, clear_compiler_caches), Candidate("icepool", theirs, cold_icepool)],
                    ctx.settings)
    return Row(label, n, found["ours"], found["icepool"], identical)


def _timed_once(fn: Callable[[], Odds]) -> tuple[Odds, float]:
    start = time.perf_counter()
    found = fn()
    return found, time.perf_counter() - start


def _row_cells(row: Row) -> tuple[str, ...]:
    if row.problem is not None:
        return (f"**refused**: {row.problem}", "", "", "", "", "", MISS)
    assert row.ours is not None
    if row.theirs is None:
        return (seconds(row.ours.median), spread(row.ours), "n/a", "", "n/a", row.identical, NA)
    r = ratio(row.ours, row.theirs)
    ok = row.identical == "yes" and r.value <= 1.0
    return (seconds(row.ours.median), spread(row.ours), seconds(row.theirs.median), spread(row.theirs),
            ratio_text(r), row.identical, verdict(ok))


def icepool_part(ctx: Context, section: Section) -> None:
    icepool = _icepool()
    section.text("### 3.2 Pools and sums against icepool")
    section.text(
        "Ours: `compiler.odds.distribution` on a loaded resolver, its caches emptied before every call. icepool: "
        "the same mechanic written the way its documentation does (`2 @ d6`, `d6.pool(3).highest(2).sum()`, "
        "`d6.pool(n).highest_outcome_and_count()`, `k @ d6`, for which the bench raises Python's recursion limit: "
        "icepool adds the dice one at a time, recursively), then mapped to the same outcomes; each call builds a "
        "new die and evaluator, and its binomial table is emptied, so icepool too starts cold (icepool memoises "
        "results: a repeat of the same question costs it almost nothing). Both answers are converted to "
        "`{outcome: Fraction}` and must be identical. A verdict is PASS when the fractions are identical and ours "
        "takes at most as long (ours / icepool ≤ 1).")
    if icepool is None:
        section.text("icepool is not installed in this environment (`make bench` installs it in `bench/.venv`): "
                     "only our times are shown.")
    header = ("mechanic", "ours", "spread", "icepool", "spread", "ours / icepool", "identical", "verdict")
    rows: list[Row] = []

    # Tides of Gold's action roll, as compiled from the ruleset
    from compiler import model as m

    checked = ctx.loaded("tides_of_gold").checked
    names = frozenset(d.name for d in checked.definitions)
    action = next(d for d in checked.definitions if isinstance(d, m.Resolver) and d.name == "action_roll")
    from compiler import odds

    base = odds.defaults(action)
    tides = Table(header)
    for bonus_die in (False, True):
        for dots in (0, 2, 4):
            label = ("3d6 keep highest 2" if bonus_die else "2d6") + f" + {dots} (bonus_die={bonus_die})"
            progress(f"odds: tides_of_gold action_roll {label}")
            inputs = dict(base, dots=dots, bonus_die=bonus_die)
            row = _race(ctx, label, None, _ours(action, inputs, names, "outcomes"),
                        partial(icepool_tides, icepool, dots, bonus_die) if icepool else None, icepool)
            rows.append(row)
            tides.add(label, *_row_cells(row))
    section.text("**Tides of Gold action roll** (`rulesets/tides_of_gold.rules`, natural 12 first, then "
                 "6 or less / 7-9 / 10+):")
    section.table(tides)

    # Blades-style pools: highest of N d6, critical on two 6s (bands of wyrd_wolds' action roll)
    pool_sizes = (1, 2, 3, 4, 5, 6, 10) if ctx.quick else (1, 2, 3, 4, 5, 6, 10, 25, 50, 100)
    sum_sizes = (10, 100) if ctx.quick else (10, 100, 1000)
    scaling = Table(("mechanic", "N", "ours", "spread", "icepool", "spread", "ours / icepool", "identical",
                     "verdict"))
    blades: list[Row] = []
    for n in pool_sizes:
        progress(f"odds: highest of {n}d6")
        try:
            resolver, pool_names = _tiny(BLADES, n)
            ours: Callable[[], Odds] | None = _ours(resolver, {}, pool_names, "outcomes")
            problem = None
        except Exception as error:
            ours, problem = None, compile_error_text(error)
        row = (Row(f"highest of {n}d6", n, None, None, "", f"the ruleset does not load: {problem}") if ours is None
               else _race(ctx, f"highest of {n}d6", n, ours,
                          partial(icepool_blades, icepool, n) if icepool else None, icepool))
        blades.append(row)
        scaling.add("highest of N d6, critical on two 6s", n, *_row_cells(row))
    sums: list[Row] = []
    for k in sum_sizes:
        progress(f"odds: sum of {k}d6")
        try:
            resolver, sum_names = _tiny(SUMS, k)
            ours, problem = _ours(resolver, {}, sum_names, "totals"), None
        except Exception as error:
            ours, problem = None, compile_error_text(error)
        row = (Row(f"sum of {k}d6", k, None, None, "", f"the ruleset does not load: {problem}") if ours is None
               else _race(ctx, f"sum of {k}d6", k, ours, partial(icepool_sum, icepool, k) if icepool else None,
                          icepool))
        sums.append(row)
        scaling.add("sum of N d6 (every total)", k, *_row_cells(row))
    section.text("**Scaling**: highest of N d6 with a critical on two 6s (the bands of `wyrd_wolds` "
                 "`action_roll`: critical / 6 / 4-5 / 1-3, in a small ruleset written by the bench, "
                 "`bench/exact_odds.py`), and the sum of N d6 (every total's probability):")
    section.table(scaling)
    if "wyrd_wolds" in ctx.rulesets:
        section.text(_same_as_wyrd(ctx))

    _judge(section, rows + blades + sums, blades, sums, icepool is not None, ctx.quick)


def _same_as_wyrd(ctx: Context) -> str:
    """The bench's small ruleset must give wyrd_wolds' own action roll odds (rating 1 to 4, no bonus dice)."""
    from compiler import model as m
    from compiler import odds

    checked = ctx.loaded("wyrd_wolds").checked
    names = frozenset(d.name for d in checked.definitions)
    action = next(d for d in checked.definitions if isinstance(d, m.Resolver) and d.name == "action_roll")
    agree = []
    for rating in (1, 2, 3, 4):
        real = _nonzero(odds.distribution(action, dict(odds.defaults(action), rating=rating), names).outcomes)
        resolver, tiny_names = _tiny(BLADES, rating)
        agree.append(real == _nonzero(odds.distribution(resolver, {}, tiny_names).outcomes))
    return ("The small ruleset's odds for N = 1 to 4 are identical to `wyrd_wolds` `action_roll` with rating 1 to 4: "
            + ("yes." if all(agree) else f"**no** ({agree})."))


def _judge(section: Section, everything: list[Row], blades: list[Row], sums: list[Row], have_icepool: bool,
           quick: bool) -> None:
    if not have_icepool:
        section.target("pools: at least as fast as icepool, identical fractions", "icepool not installed", NA)
    else:
        judged = [r for r in everything if r.problem is None and r.ratio is not None]
        refused = [r for r in everything if r.problem is not None]
        worst = max(judged, key=lambda r: r.ratio or 0.0, default=None)
        ok = not refused and all(r.identical == "yes" and (r.ratio or 0.0) <= 1.0 for r in judged)
        measured = (f"worst ours / icepool {times(worst.ratio or 0.0)} ({worst.label})" if worst else "none measured")
        if refused:
            measured += f"; {len(refused)} refused"
        if any(r.identical != "yes" for r in judged):
            measured += "; fractions differ"
        section.target("pools and sums: at least as fast as icepool, identical fractions", measured, verdict(ok))
    for rows, what in ((blades, "highest of N d6 with critical"), (sums, "sum of N d6")):
        top = rows[-1]
        answered = top.problem is None and top.ours is not None
        if not answered:
            section.target(f"scaling: {what}, N = {top.n}", f"refused: {top.problem}", MISS)
            continue
        assert top.ours is not None
        title = f"scaling: {what}, N = {top.n}, identical to icepool and no slower" + (" (quick)" if quick else "")
        if top.theirs is None:
            section.target(title, f"{seconds(top.ours.median)}; {top.identical}", NA)
            continue
        ok = top.identical == "yes" and ratio(top.ours, top.theirs).value <= 1.0
        section.target(title, f"{seconds(top.ours.median)}, {times(ratio(top.ours, top.theirs).value)} icepool's time"
                       + ("" if top.identical == "yes" else "; fractions differ"), PASS if ok else MISS)


def run(ctx: Context) -> Section:
    section = Section("odds", "Exact odds")
    grid_part(ctx, section)
    icepool_part(ctx, section)
    return section
