"""Section 2: exact odds against icepool, on every mechanic both express; identical fractions asserted.

Issue 21, item 5: exact odds at least as fast as icepool used as its documentation recommends: sums, keep
highest / lowest, highest of N with a critical, and success counts.

Rulecraft's side goes through the public path only: a small ruleset's text through `compiler.api.load_text`
(not timed), then `odds.odds(resolver, inputs, odds.definition_names(checked))` (`compiler.semantics.odds`),
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

GROUPS = ("sums", "keep highest / lowest", "highest of N with a critical", "success counts")


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


def cases() -> list[Case]:
    return [
        sum_case(2, 6, 1, None, quick=True), sum_case(3, 6, 0, None), sum_case(10, 6, 0, None, quick=True),
        sum_case(100, 6, 0, None), sum_case(100, 6, 0, 10), sum_case(1000, 6, 0, 10),
        keep_case(3, 6, "highest", 2, quick=True), keep_case(4, 6, "highest", 3), keep_case(4, 6, "lowest", 3),
        keep_case(2, 20, "highest", 1, quick=True), keep_case(2, 20, "lowest", 1), keep_case(10, 6, "highest", 3),
        *(highest_case(n, quick=n in (1, 3, 10)) for n in (1, 2, 3, 4, 5, 6, 10, 25, 50, 100)),
        *(count_case(n, quick=n in (5, 10)) for n in (5, 10, 20, 50)),
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
    import compiler.semantics.odds as odds
    from compiler import api

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
    import compiler.api
    import compiler.semantics.odds  # noqa: F401 (imported before their caches are listed)

    hooks = compiler_caches()
    if not any(hook.endswith(".forget") for hook in hooks):
        raise RuntimeError(f"no forget() among the compiler's caches ({', '.join(hooks) or 'none'}): the exact odds "
                           "would be timed warm; see bench/context.py, compiler_caches")
    section.text(
        "Each mechanic is a small ruleset written by the bench (`bench/exact_odds.py`): one roll without inputs. "
        "Rulecraft: the text through `compiler.api.load_text` (not timed: loading checks the ruleset, and the "
        "check works the odds out once), then `odds.odds(resolver, {}, odds.definition_names(checked))` "
        "(`compiler.semantics.odds`), the compiler's caches emptied before every timed call ("
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
        section.table(table)
        _judge(section, group, mine, icepool is not None, ctx.quick)
    section.text("The rulesets, as the bench writes them (the largest cut short):")
    shown = [row.case for row in rows if row.case.label.startswith(("2d6 + 1", "3d6 keep highest 2", "10d6 highest",
                                                                    "5d6, count"))]
    for case in shown:
        lines = case.ruleset.rstrip().splitlines()
        section.text("```\n" + "\n".join(lines[:12] + (["  ..."] if len(lines) > 12 else [])) + "\n```")
    return section


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
