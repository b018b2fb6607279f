"""Section 2: exact odds against icepool, on every mechanic both express; identical fractions asserted.

Issue 21, item 5: exact odds at least as fast as icepool used as its documentation recommends: sums, keep
highest / lowest, highest of N with a critical, and success counts. Issue 23 adds a group of its mechanics: a
trait die and a wild die exploding (the higher of the two), a d6 pool with glitches, an action die against two
challenge dice, 4dF, and a d10 pool whose ones cancel successes, with a botch.

Rulecraft's side goes through the public path only: a small ruleset's text through `rulecraft.api.load_text`
(not timed), then `odds.odds(resolver, inputs, odds.definition_names(checked))` (`rulecraft.semantics.odds`),
the compiler's caches emptied before every timed call (a run that finds no `forget()` fails the section: its
times would be warm). icepool's side is the mechanic written as its documentation writes it, in each
documented form (the fastest is the reference), a new die per call and its caches emptied too. Both answers
become `{outcome id: Fraction}` and must be identical.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .context import CPU, Context, clear_compiler_caches, compile_error_text, compiler_caches, progress
from .report import MISS, NA, Section, Table, verdict
from .timing import Candidate, Stats, compare, ratio, ratio_text, seconds, spread, stats_of, times

Odds = dict[str, Fraction]
Form = tuple[str, Callable[[Any], Odds]]  # (how icepool is written, fn(icepool) -> odds)
SLOWER_FORM = 10.0  # an icepool form this many times slower than its fastest, on its first call, is not repeated

MECHANICS = "issue 23 mechanics"
GROUPS = ("sums", "keep highest / lowest", "highest of N with a critical", "success counts", MECHANICS)


@dataclass(frozen=True)
class Case:
    group: str
    label: str
    ruleset: str  # the Rulecraft text: one roll named `r`, no inputs
    forms: tuple[Form, ...]  # icepool, each documented way of writing it
    quick: bool = False  # also in a quick run


# ---------------------------------------------------------------- icepool


def _icepool() -> Any | None:
    try:
        import icepool  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    return icepool


def icepool_cold(icepool: Any) -> None:
    """Empty icepool's caches, so that it too starts cold: its binomial rows, every functools cache of its
    modules and classes, and the results kept by its module-level evaluators (each call also makes a new die)."""
    icepool.math.comb_row_cache.clear()
    base = icepool.evaluator.multiset_evaluator_base.MultisetEvaluatorBase
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "icepool" or name.startswith("icepool.")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, base):
                vars(value).pop("_cache", None)
            elif isinstance(value, type) and value.__module__.startswith("icepool"):
                for member in vars(value).values():
                    clear = getattr(getattr(member, "__func__", member), "cache_clear", None)
                    if callable(clear):
                        clear()
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and str(getattr(value, "__module__", "")).startswith("icepool"):
                clear()


def _fractions(die: Any) -> Odds:
    denominator = die.denominator()
    return {str(outcome): Fraction(q, denominator) for outcome, q in die.items() if q}


def _d(icepool: Any, sides: int) -> Any:
    return icepool.Die(range(1, sides + 1))  # a new die: nothing cached on it from an earlier call


# ---------------------------------------------------------------- the cases


def _banded(lo: int, hi: int, width: int) -> tuple[str, Callable[[int], str]]:
    """Bands of `width` totals each from lo to hi (`- 7: t7 "7"`, `- 10-19: t10 "10-19"`), and total -> id."""
    lines = []
    for start in range(lo, hi + 1, width):
        end = min(start + width - 1, hi)
        when = f"{start}" if start == end else f"{start}-{end}"
        lines.append(f'  - {when}: t{start} "{when}"')
    return "\n".join(lines), lambda total: f"t{lo + (total - lo) // width * width}"


def _roll(title: str, dice: str, body: str, header: str = "") -> str:
    return f'ruleset "Bench: {title}"\n{header}\nroll r "{title}" [BENCH-1]\n  roll: {dice}\n{body}\n'


def sum_case(count: int, sides: int, plus: int, bands: int | None, quick: bool = False) -> Case:
    lo, hi = count + plus, count * sides + plus
    width = 1 if bands is None else math.ceil((hi - lo + 1) / bands)
    body, band = _banded(lo, hi, width)
    dice = f"{count}d{sides}" + (f" + {plus}" if plus else "")
    shape = "every total" if width == 1 else f"{len(body.splitlines())} bands of {width} totals"
    label = f"{dice}, {shape}"

    def at(icepool: Any) -> Odds:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * count + 1000))  # `@` adds dice recursively
        return _fractions((count @ _d(icepool, sides) + plus).map(band))

    return Case("sums", label, _roll(label, dice, body), ((f"`{count} @ d{sides}" + (f" + {plus}`" if plus else "`"),
                                                           at),), quick)


def keep_case(count: int, sides: int, which: str, keep: int, quick: bool = False) -> Case:
    lo, hi = keep, keep * sides
    body, band = _banded(lo, hi, 1)
    dice = f"{count}d{sides} keep {which} {keep}"
    method = "highest" if which == "highest" else "lowest"

    def pooled(icepool: Any) -> Odds:
        pool = _d(icepool, sides).pool(count)
        return _fractions(getattr(pool, method)(keep).sum().map(band))

    def die_method(icepool: Any) -> Odds:
        return _fractions(getattr(_d(icepool, sides), method)(count, keep).map(band))

    return Case("keep highest / lowest", f"{dice}, every total", _roll(dice, dice, body),
                ((f"`d{sides}.pool({count}).{method}({keep}).sum()`", pooled),
                 (f"`d{sides}.{method}({count}, {keep})`", die_method)), quick)


_CRITICAL = """  - when count(6) >= 2 and not zero_dice: critical "Critical"
  - 6: full "You do it."
  - 4/5: partial "You do it, but there's a consequence."
  - 1-3: bad "Things go badly.\""""


def _blades(top: int, sixes: int) -> str:
    if top == 6:
        return "critical" if sixes >= 2 else "full"
    return "partial" if top >= 4 else "bad"


def highest_case(count: int, quick: bool = False) -> Case:
    """Highest of N d6, a critical on two 6s: the bands of Wyrd Wolds' action roll."""
    def expand(icepool: Any) -> Odds:
        def band(top_two: tuple[int, ...]) -> str:
            return _blades(top_two[-1], sum(1 for face in top_two if face == 6))

        return _fractions(_d(icepool, 6).pool(count).highest(2).expand().map(band))

    def highest_and_count(icepool: Any) -> Odds:
        def band(found: tuple[int, int]) -> str:
            return _blades(found[0], found[1] if found[0] == 6 else 0)

        return _fractions(_d(icepool, 6).pool(count).highest_outcome_and_count().map(band))

    return Case("highest of N with a critical", f"{count}d6 highest, critical on two 6s",
                _roll(f"highest of {count}d6", f"{count}d6 highest", _CRITICAL, "  zero_dice: 2d6 lowest\n"),
                ((f"`d6.pool({count}).highest(2).expand()`", expand),
                 (f"`d6.pool({count}).highest_outcome_and_count()`", highest_and_count)), quick)


def count_case(count: int, quick: bool = False) -> Case:
    """Successes: how many of N d6 show 5 or 6; three or more succeed."""
    body = ('  - when count(5) + count(6) >= 3: success "Three or more successes"\n'
            '  - otherwise: failure "Fewer"')

    def named(die: Any) -> Odds:
        return _fractions(die.map(lambda hits: "success" if hits >= 3 else "failure"))

    def die_count(icepool: Any) -> Odds:
        return named(_d(icepool, 6).count(count, {5, 6}))

    def at(icepool: Any) -> Odds:
        return named(count @ (_d(icepool, 6) >= 5))

    def pooled(icepool: Any) -> Odds:
        return named(_d(icepool, 6).pool(count).keep_outcomes({5, 6}).size())

    return Case("success counts", f"{count}d6, count(5) + count(6) >= 3",
                _roll(f"successes on {count}d6", f"{count}d6", body),
                ((f"`d6.count({count}, {{5, 6}})`", die_count), (f"`{count} @ (d6 >= 5)`", at),
                 (f"`d6.pool({count}).keep_outcomes({{5, 6}}).size()`", pooled)), quick)


# ---------------------------------------------------------------- issue 23's mechanics

_TRAIT = """  - when total >= 12: raise2 "Success with two raises"
  - when total >= 8: raise "Success with a raise"
  - when total >= 4: success "Success"
  - otherwise: failure "Failure\""""


def _trait(total: int) -> str:
    return "raise2" if total >= 12 else "raise" if total >= 8 else "success" if total >= 4 else "failure"


def explode_depth(icepool: Any) -> int:
    """icepool's default explosion depth (additional dice after the first; the last of them does not explode)."""
    import inspect

    return int(inspect.signature(icepool.Die.explode).parameters["depth"].default)


def trait_case(sides: int, mod: int, at_most: int | None = None, quick: bool = False) -> Case:
    """Savage Worlds: a trait die and a wild d6, both exploding, the higher of the two; success at 4, a raise per 4.

    Unbounded (`d8!`), Rulecraft's odds are exact and icepool's `explode()` stops at its default depth (9 more
    dice): every band lies below 12, far under the truncated totals (10 maximum faces and more), so the bands'
    fractions are identical. With `at_most` (icepool's depth), both are the same finite roll, compared total by
    total.
    """
    cap = "" if at_most is None else f" at most {at_most} times"
    dice = f"max(d{sides}!{cap}, d6!{cap}) + {mod}"
    band: Callable[[int], str] = _trait
    body, shape = _TRAIT, "success at 4, a raise per 4 (bands up to 12)"
    if at_most is not None:
        hi = max(sides, 6) * (at_most + 1) + mod
        body, band = _banded(1 + mod, hi, 1)
        shape = "every total"

    def highest(icepool: Any) -> Odds:
        return _fractions((icepool.highest(_d(icepool, sides).explode(), _d(icepool, 6).explode()) + mod).map(band))

    def mapped(icepool: Any) -> Odds:
        return _fractions(icepool.map(lambda a, b: band(max(a, b) + mod), _d(icepool, sides).explode(),
                                      _d(icepool, 6).explode()))

    label = f"{dice}, {shape}"
    return Case(MECHANICS, label, _roll(label, dice, body),
                ((f"`highest(d{sides}.explode(), d6.explode()) + {mod}`", highest),
                 (f"`map(max, d{sides}.explode(), d6.explode())`", mapped)), quick)


def _named(title: str, lets: str, dice: str, body: str) -> str:
    """A roll whose dice are held by name (`let pool = 20d6`) before its `roll:` line."""
    return f'ruleset "Bench: {title}"\n\nroll r "{title}" [BENCH-1]\n  {lets}\n  roll: {dice}\n{body}\n'


def _pool_evaluator(icepool: Any, hit: Callable[[int], bool], one: Callable[[int], bool],
                    band: Callable[[int, int], str]) -> Any:
    """An icepool `MultisetEvaluator` subclass (its documentation's faster way than `multiset_function`): the
    state is (hits, ones) as the pool's outcomes go by; the final outcome is the band."""
    class HitsAndOnes(icepool.MultisetEvaluator):  # type: ignore[misc,name-defined,unused-ignore]
        def next_state(self, state: tuple[int, int] | None, order: Any, outcome: int, count: int) -> tuple[int, int]:
            hits, ones = state or (0, 0)
            if hit(outcome):
                return hits + count, ones
            return (hits, ones + count) if one(outcome) else (hits, ones)

        def final_outcome(self, state: tuple[int, int] | None, *_: Any) -> str:
            return band(*(state or (0, 0)))

    return HitsAndOnes()


def _glitches(dice: int) -> Callable[[int, int], str]:
    def band(hits: int, ones: int) -> str:
        if ones > dice / 2:
            return "critical_glitch" if hits == 0 else "glitch"
        return "solid" if hits >= 4 else "hit" if hits >= 1 else "miss"

    return band


def glitch_case(dice: int, quick: bool = False) -> Case:
    """Shadowrun: hits are 5s and 6s; more than half the dice showing 1 is a glitch, with no hit a critical one."""
    body = (f"  - when count(pool = 1) > {dice / 2:g} and total = 0: critical_glitch \"Critical glitch\"\n"
            f"  - when count(pool = 1) > {dice / 2:g}: glitch \"Glitch\"\n"
            "  - 4+: solid \"Four hits or more\"\n"
            "  - 1-3: hit \"A hit\"\n"
            "  - otherwise: miss \"No hit\"")
    band = _glitches(dice)

    def evaluator(icepool: Any) -> Odds:
        found = _pool_evaluator(icepool, lambda face: face >= 5, lambda face: face == 1, band)
        return _fractions(found.evaluate(_d(icepool, 6).pool(dice)))

    def function(icepool: Any) -> Odds:
        @icepool.multiset_function  # type: ignore[untyped-decorator,misc,unused-ignore]
        def hits_and_ones(pool: Any) -> Any:
            return pool.keep_outcomes([5, 6]).size(), pool.keep_outcomes([1]).size()

        return _fractions(hits_and_ones(_d(icepool, 6).pool(dice)).map(lambda found: band(*found)))

    def vectors(icepool: Any) -> Odds:
        face = _d(icepool, 6).map(lambda x: icepool.Vector((int(x >= 5), int(x == 1))))
        return _fractions((dice @ face).map(lambda found: band(found[0], found[1])))

    label = f"{dice}d6, count(pool >= 5), glitch on over half ones"
    return Case(MECHANICS, label, _named(label, f"let pool = {dice}d6", "count(pool >= 5)", body),
                ((f"`MultisetEvaluator` subclass on `d6.pool({dice})`", evaluator),
                 ("`multiset_function`: `keep_outcomes([5, 6]).size(), keep_outcomes([1]).size()`", function),
                 (f"`{dice} @ d6.map(Vector((x >= 5, x == 1)))`", vectors)), quick)


def _action(strong: int) -> str:
    return "strong" if strong == 2 else "weak" if strong == 1 else "miss"


def action_case(stat: int, quick: bool = False) -> Case:
    """Ironsworn: an action die (d6 + stat, at most 10) against two challenge dice; beating both is a strong hit."""
    body = ('  - when all(challenge < total): strong "Strong hit"\n'
            '  - when any(challenge < total): weak "Weak hit"\n'
            '  - otherwise: miss "Miss"')

    def action_die(icepool: Any) -> Any:
        return (_d(icepool, 6) + stat).clip(max_outcome=10)

    def three(icepool: Any) -> Odds:
        def band(action: int, first: int, second: int) -> str:
            return _action((first < action) + (second < action))

        return _fractions(icepool.map(band, action_die(icepool), _d(icepool, 10), _d(icepool, 10)))

    def beaten(icepool: Any) -> Odds:
        return _fractions(action_die(icepool).map(lambda action: (2 @ (_d(icepool, 10) < action)).map(_action)))

    label = f"min(d6 + {stat}, 10) against 2d10, strong / weak / miss"
    return Case(MECHANICS, label, _named(label, "let challenge = 2d10", f"min(d6 + {stat}, 10)", body),
                ((f"`map(band, (d6 + {stat}).clip(max_outcome=10), d10, d10)`", three),
                 ("`action.map(lambda a: 2 @ (d10 < a))`", beaten)), quick)


def fate_case(skill: int, difficulty: int, quick: bool = False) -> Case:
    """Fate: 4dF + skill against a difficulty; shifts of 3 or more succeed with style."""
    def band(total: int) -> str:
        shifts = total - difficulty
        return "style" if shifts >= 3 else "success" if shifts >= 1 else "tie" if shifts == 0 else "fail"

    body = (f'  - {difficulty + 3}+: style "Succeed with style"\n'
            f'  - {difficulty + 1}-{difficulty + 2}: success "Succeed"\n'
            f'  - {difficulty}: tie "Tie"\n'
            '  - otherwise: fail "Fail"')

    def fudge(icepool: Any) -> Any:
        return icepool.Die([-1, 0, 1])

    def at(icepool: Any) -> Odds:
        return _fractions((4 @ fudge(icepool) + skill).map(band))

    def pooled(icepool: Any) -> Odds:
        return _fractions((fudge(icepool).pool(4).sum() + skill).map(band))

    label = f"4dF + {skill} against {difficulty}, style / success / tie / fail"
    return Case(MECHANICS, label, _roll(label, f"4dF + {skill}", body),
                ((f"`4 @ Die([-1, 0, 1]) + {skill}`", at), (f"`Die([-1, 0, 1]).pool(4).sum() + {skill}`", pooled)),
                quick)


def botch_case(dice: int, quick: bool = False) -> Case:
    """Old World of Darkness: successes are 8+, each 1 cancels one; ones and no success at all is a botch."""
    body = ('  - when none(pool >= 8) and any(pool = 1): botch "Botch"\n'
            '  - 3+: great "Three successes or more"\n'
            '  - 1-2: success "Success"\n'
            '  - otherwise: failure "Failure"')

    def band(hits: int, ones: int) -> str:
        if hits == 0 and ones > 0:
            return "botch"
        net = hits - ones
        return "great" if net >= 3 else "success" if net >= 1 else "failure"

    def evaluator(icepool: Any) -> Odds:
        found = _pool_evaluator(icepool, lambda face: face >= 8, lambda face: face == 1, band)
        return _fractions(found.evaluate(_d(icepool, 10).pool(dice)))

    def vectors(icepool: Any) -> Odds:
        face = _d(icepool, 10).map(lambda x: icepool.Vector((int(x >= 8), int(x == 1))))
        return _fractions((dice @ face).map(lambda found: band(found[0], found[1])))

    label = f"{dice}d10, count(pool >= 8) - count(pool = 1), botch"
    return Case(MECHANICS, label,
                _named(label, f"let pool = {dice}d10", "count(pool >= 8) - count(pool = 1)", body),
                ((f"`MultisetEvaluator` subclass on `d10.pool({dice})`", evaluator),
                 (f"`{dice} @ d10.map(Vector((x >= 8, x == 1)))`", vectors)), quick)


def mechanics() -> list[Case]:
    return [
        trait_case(4, 1, quick=True), trait_case(8, 1), trait_case(12, 1), trait_case(8, 1, at_most=9),
        glitch_case(20), action_case(2), fate_case(3, 2, quick=True), botch_case(10),
    ]


def cases() -> list[Case]:
    return [
        sum_case(2, 6, 1, None, quick=True), sum_case(3, 6, 0, None), sum_case(10, 6, 0, None, quick=True),
        sum_case(100, 6, 0, None), sum_case(100, 6, 0, 10), sum_case(1000, 6, 0, 10),
        keep_case(3, 6, "highest", 2, quick=True), keep_case(4, 6, "highest", 3), keep_case(4, 6, "lowest", 3),
        keep_case(2, 20, "highest", 1, quick=True), keep_case(2, 20, "lowest", 1), keep_case(10, 6, "highest", 3),
        *(highest_case(n, quick=n in (1, 3, 10)) for n in (1, 2, 3, 4, 5, 6, 10, 25, 50, 100)),
        *(count_case(n, quick=n in (5, 10)) for n in (5, 10, 20, 50)),
        *mechanics(),
    ]


# ---------------------------------------------------------------- racing one case


@dataclass
class Row:
    case: Case
    ours: Stats | None = None
    reference: tuple[str, Stats] | None = None  # icepool's fastest form
    others: list[str] = field(default_factory=list)  # the other forms, timed
    identical: str = ""
    problem: str | None = None  # refused by Rulecraft (a miss), or another failure

    @property
    def ratio(self) -> float | None:
        if self.ours is None or self.reference is None:
            return None
        return ratio(self.ours, self.reference[1]).value

    @property
    def passed(self) -> bool:
        return self.problem is None and self.identical == "yes" and self.ratio is not None and self.ratio <= 1.0


def _ours(text: str) -> Callable[[], Odds]:
    import rulecraft.semantics.odds as odds
    from rulecraft import api

    loaded = api.load_text(text, "<bench>", "bench")
    resolver: Any = next(d for d in loaded.checked.definitions if getattr(d, "name", None) == "r")
    names = odds.definition_names(loaded.checked)

    def run() -> Odds:
        return {k: v for k, v in odds.odds(resolver, {}, names).items() if v}

    return run


def _first(fn: Callable[[], Odds], before: Callable[[], None]) -> tuple[Odds, float]:
    before()
    start = CPU()
    found = fn()
    return found, CPU() - start


def _differ(a: Odds, b: Odds) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    return ", ".join(keys[:3]) + (" ..." if len(keys) > 3 else "")


def race(ctx: Context, case: Case, icepool: Any | None) -> Row:
    row = Row(case)
    try:
        ours = _ours(case.ruleset)
    except Exception as problem:
        row.problem = f"refused: {compile_error_text(problem)}"
        return row
    try:
        mine, mine_took = _first(ours, clear_compiler_caches)
    except Exception as problem:
        row.problem = f"odds() failed: {compile_error_text(problem)}"
        return row
    if icepool is None:
        row.ours = _alone(ctx, ours, mine_took)
        row.identical = "icepool not installed"
        return row

    def cold() -> None:
        icepool_cold(icepool)

    firsts: dict[str, float] = {}
    forms: dict[str, Callable[[], Odds]] = {}
    differ: list[str] = []
    for name, form in case.forms:
        def call(form: Callable[[Any], Odds] = form) -> Odds:
            return form(icepool)

        try:
            theirs, took = _first(call, cold)
        except Exception as problem:
            differ.append(f"{name} failed: {type(problem).__name__}: {str(problem)[:80]}")
            continue
        if theirs != mine:
            differ.append(f"{name} differs at {_differ(mine, theirs)}")
            continue
        forms[name], firsts[name] = call, took
    row.identical = "yes" if not differ else "**no**: " + "; ".join(differ)
    if not forms:
        row.ours = _alone(ctx, ours, mine_took)
        return row
    fastest = min(firsts.values())
    timed = {name: fn for name, fn in forms.items() if firsts[name] <= fastest * SLOWER_FORM}
    row.others = [f"{name} {seconds(firsts[name])} (once: over {SLOWER_FORM:.0f}x the fastest)"
                  for name in forms if name not in timed]
    if max(firsts[name] for name in timed) >= ctx.settings.slow_call:
        # icepool takes seconds: its first (cold) calls are its measurement, one run each; ours is timed alone
        found = {"ours": _alone(ctx, ours, mine_took), **{name: stats_of([firsts[name]]) for name in timed}}
    elif mine_took >= ctx.settings.slow_call:
        found = {"ours": stats_of([mine_took]), **{name: stats_of([firsts[name]]) for name in timed}}
    else:
        found = compare([Candidate("ours", ours, clear_compiler_caches),
                         *(Candidate(name, fn, cold) for name, fn in timed.items())], ctx.settings)
    best = min(timed, key=lambda name: found[name].median)
    row.ours, row.reference = found["ours"], (best, found[best])
    row.others = [f"{name} {seconds(found[name].median)}" for name in timed if name != best] + row.others
    return row


def _alone(ctx: Context, ours: Callable[[], Odds], took: float) -> Stats:
    if took >= ctx.settings.slow_call:
        return stats_of([took])
    return compare([Candidate("ours", ours, clear_compiler_caches)], ctx.settings)["ours"]


def _cells(row: Row) -> tuple[str, ...]:
    if row.problem is not None:
        return (f"**{row.problem}**", "", "", "", "", "", "", MISS, "")
    assert row.ours is not None
    if row.reference is None:
        return (seconds(row.ours.median), spread(row.ours), "n/a", "", "", "n/a", row.identical,
                NA if row.identical == "icepool not installed" else MISS, "")
    name, theirs = row.reference
    return (seconds(row.ours.median), spread(row.ours), name, seconds(theirs.median), spread(theirs),
            ratio_text(ratio(row.ours, theirs)), row.identical, verdict(row.passed), "; ".join(row.others))


def run(ctx: Context) -> Section:
    section = Section("odds", "Exact odds against icepool")
    icepool = _icepool()
    import rulecraft.api
    import rulecraft.semantics.odds  # noqa: F401 (imported before their caches are listed)

    hooks = compiler_caches()
    if not any(hook.endswith(".forget") for hook in hooks):
        raise RuntimeError(f"no forget() among the compiler's caches ({', '.join(hooks) or 'none'}): the exact odds "
                           "would be timed warm; see bench/context.py, compiler_caches")
    section.text(
        "Each mechanic is a small ruleset written by the bench (`bench/exact_odds.py`): one roll without inputs. "
        "Rulecraft: the text through `rulecraft.api.load_text` (not timed: loading checks the ruleset, and the "
        "check works the odds out once), then `odds.odds(resolver, {}, odds.definition_names(checked))` "
        "(`rulecraft.semantics.odds`), the compiler's caches emptied before every timed call ("
        + ", ".join(f"`{c}`" for c in hooks) + "). "
        "icepool: the same mechanic in each form its documentation gives (`n @ d6`, "
        "`d6.pool(n).highest(k).sum()`, `d6.highest(n, k)`, `pool.highest(2).expand()`, "
        "`pool.highest_outcome_and_count()`, `d6.count(n, {5, 6})`, ...), mapped to the same outcome ids; "
        "every form must give the identical `Fraction`s, and the fastest form is the reference. Each icepool "
        "call makes a new die and empties icepool's caches first (its binomial rows, its evaluators' kept "
        "results), so icepool too starts cold. Ours and every form are timed interleaved; a form over "
        f"{SLOWER_FORM:.0f}x slower than the fastest on its first call, or a call that takes seconds, is timed "
        "once (`1 run`). PASS when the fractions "
        "are identical and ours takes at most icepool's time. A ruleset Rulecraft refuses is a MISS.")
    if icepool is None:
        section.text("icepool is not installed in this environment (`make bench` installs it in `bench/.venv`): "
                     "only our times are shown.")
    rows: list[Row] = []
    for case in cases():
        if ctx.quick and not case.quick:
            continue
        progress(f"odds: {case.label}")
        rows.append(race(ctx, case, icepool))
    header = ("mechanic", "ours", "spread", "icepool's fastest form", "icepool", "spread", "ours / icepool",
              "identical", "verdict", "icepool's other forms")
    for group in GROUPS:
        mine = [row for row in rows if row.case.group == group]
        if not mine:
            continue
        table = Table(header)
        for row in mine:
            table.add(row.case.label, *_cells(row))
        section.text(f"### {group[0].upper()}{group[1:]}")
        if group == MECHANICS:
            section.text(_mechanics_note(icepool))
        section.table(table)
        _judge(section, group, mine, icepool is not None, ctx.quick)
    section.text("The rulesets, as the bench writes them (the largest cut short):")
    shown = [row.case for row in rows if row.case.label.startswith(("2d6 + 1", "3d6 keep highest 2", "10d6 highest",
                                                                    "5d6, count", "max(d4!, d6!)", "20d6, count",
                                                                    "min(d6", "10d10, count"))]
    for case in shown:
        lines = case.ruleset.rstrip().splitlines()
        section.text("```\n" + "\n".join(lines[:12] + (["  ..."] if len(lines) > 12 else [])) + "\n```")
    return section


def _mechanics_note(icepool: Any | None) -> str:
    depth = f"{explode_depth(icepool)} more dice" if icepool is not None else "9 more dice in icepool 2.1"
    return (
        "Issue 23's mechanics. The trait die and the wild die (Savage Worlds): Rulecraft's `d8!` explodes without "
        f"end and its odds are exact; icepool's `explode()` stops at its default depth ({depth}, the last not "
        "exploding again: `d8.explode()` ends at 80). Compared, therefore, (a) by bands: success at 4, a raise at 8 "
        "and at 12, all far below the totals the depth cuts short, so the bands' fractions are identical; and (b) "
        "by every total, with Rulecraft's `at most 9 times` (the same finite roll as icepool's default depth). "
        "The pools (`let pool = 20d6`, `count(pool >= 5)`, glitch bands; `10d10`, `count(pool >= 8) - count(pool = "
        "1)`, a botch band) against icepool's pool evaluators: a `MultisetEvaluator` subclass keeping (hits, ones) "
        "(its documentation's faster way), a `multiset_function`, and a sum of count vectors (`n @ "
        "d6.map(Vector(...))`). The action die against two challenge dice (Ironsworn) against `icepool.map` over "
        "the three dice, and over the action die with `2 @ (d10 < a)`; 4dF against `4 @ Die([-1, 0, 1])` and a "
        "pool's sum.")


def _judge(section: Section, group: str, rows: list[Row], have_icepool: bool, quick: bool) -> None:
    title = f"exact odds, {group}: at least as fast as icepool, identical fractions" + (" (quick)" if quick else "")
    if not have_icepool:
        section.target(title, "icepool not installed", NA)
        return
    judged = [row for row in rows if row.ratio is not None]
    refused = [row for row in rows if row.problem is not None]
    worst = max(judged, key=lambda row: row.ratio or 0.0, default=None)
    parts = []
    if worst is not None:
        parts.append(f"worst {times(worst.ratio or 0.0)} icepool's time ({worst.case.label})")
    if refused:
        parts.append(f"{len(refused)} refused ({', '.join(row.case.label for row in refused)})")
    unequal = [row for row in rows if row.problem is None and row.identical != "yes"]
    if unequal:
        parts.append(f"fractions differ ({', '.join(row.case.label for row in unequal)})")
    passed = sum(row.passed for row in rows)
    parts.append(f"{passed} of {len(rows)} rows pass")
    section.target(title, "; ".join(parts), verdict(passed == len(rows)))
