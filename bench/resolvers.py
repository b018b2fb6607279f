"""Section 1: a compiled resolver call against a hand-written one, and against d20 from a string."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from . import handwritten
from .context import Context, progress
from .report import MISS, NA, Section, Table, verdict
from .timing import Candidate, Stats, compare, ratio, ratio_text, seconds, spread, times

MAX_VS_HANDWRITTEN = 1.3
MIN_VS_D20 = 15.0


@dataclass(frozen=True)
class Mechanic:
    label: str
    ruleset: str
    name: str
    inputs: dict[str, object]  # the inputs of the timed call
    d20: str  # the same dice as a d20 string
    write: Callable[[ModuleType], handwritten.Resolver]
    grid: tuple[dict[str, object], ...]  # inputs the equivalence check covers
    seeds: int  # seeds per input combination
    bad: tuple[dict[str, object], ...]  # inputs that must fail the same way


def _grid(**axes: tuple[object, ...]) -> tuple[dict[str, object], ...]:
    return tuple(dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values()))


MECHANICS = (
    Mechanic("Tides of Gold action roll", "tides_of_gold", "action_roll", {"dots": 2}, "2d6+2",
             handwritten.tides_action_roll,
             _grid(dots=(0, 1, 2, 3, 4), bonus_die=(False, True), edge=("none", "edge", "major"),
                   penalty=("none", "penalty", "major")), 40,
             ({"dots": 5}, {"dots": -1}, {"dots": True}, {"dots": "2"}, {"dots": 2.0}, {"bonus_die": 1},
              {"edge": "big"}, {"edge": None}, {"penalty": "minor"}, {"dots": 9, "edge": "big"}, {"luck": 1})),
    Mechanic("Wyrd Wolds action roll", "wyrd_wolds", "action_roll", {"rating": 2, "position": "risky"}, "2d6kh1",
             handwritten.wyrd_action_roll,
             _grid(rating=(0, 1, 2, 3, 4), position=("controlled", "risky", "desperate"), assistance=(False, True),
                   push_or_bargain=("none", "push", "bargain"), ability_dice=(0, 1, 2), moderate_harm=(False, True)),
             8,
             ({"rating": 5}, {"rating": -1}, {"position": "safe"}, {"assistance": "yes"},
              {"push_or_bargain": "both"}, {"ability_dice": 3}, {"moderate_harm": 0}, {"rating": 1.0})),
    Mechanic("Errant exploration event die (d6 table)", "errant", "exploration_event_die", {}, "1d6",
             handwritten.errant_exploration_event_die, ({},), 3000, ({"season": "spring"},)),
    Mechanic("Errant check (d20 vs DV and attribute)", "errant", "check", {"dv": 4, "attribute": 12}, "1d20",
             handwritten.errant_check,
             _grid(dv=tuple(range(-10, 31)), attribute=tuple(range(1, 21))), 4,
             ({"dv": 31}, {"dv": -11}, {"attribute": 0}, {"attribute": 21}, {"dv": None}, {"attribute": "10"})),
)


def _call(fn: Callable[..., Any], inputs: dict[str, object], rng: random.Random | None) -> tuple[str, Any]:
    try:
        return "ok", fn(**inputs, rng=rng)
    except (ValueError, TypeError) as problem:
        return type(problem).__name__, str(problem)


def _difference(a: Any, b: Any) -> str:
    """The first field in which two results differ (for the report)."""
    for name in ("name", "inputs", "dice", "kept", "total", "outcome", "values", "trace", "chain", "seed",
                 "rerolled"):
        if getattr(a, name, None) != getattr(b, name, None):
            return f"{name}: compiled {getattr(a, name, None)!r} vs hand-written {getattr(b, name, None)!r}"
    return "type or another field"


def equivalence(mechanic: Mechanic, compiled: Callable[..., Any], written: Callable[..., Any],
                quick: bool) -> tuple[int, int, str | None]:
    """(results compared, bad inputs compared, the first difference or None)."""
    seeds = max(1, mechanic.seeds // (5 if quick else 1))
    compared = 0
    for inputs in mechanic.grid:
        for seed in range(seeds):
            r1, r2 = random.Random(seed), random.Random(seed)
            a, b = _call(compiled, inputs, r1), _call(written, inputs, r2)
            compared += 1
            if a != b:
                detail = _difference(a[1], b[1]) if a[0] == b[0] == "ok" else f"{a} vs {b}"
                return compared, 0, f"{mechanic.name}({inputs}, seed {seed}): {detail}"
            if r1.getstate() != r2.getstate():
                return compared, 0, f"{mechanic.name}({inputs}, seed {seed}): the RNG was used differently"
    for inputs in mechanic.bad:
        a, b = _call(compiled, inputs, random.Random(1)), _call(written, inputs, random.Random(1))
        if a[0] == "ok" or a != b:
            return compared, 0, f"bad input {inputs}: compiled {a} vs hand-written {b}"
    return compared, len(mechanic.bad), None


def call_site(fn: Callable[..., Any], args: tuple[object, ...] = (), kwargs: dict[str, object] | None = None, *,
              clear: Callable[[], None] | None = None, read: str = "") -> Callable[[], Any]:
    """`fn(*args, **kwargs)` as a user's code makes the call: keywords written in the call, not a `partial`
    (which passes them as a dict, and costs a fast function more than its own work). `clear` is called
    first (a resolver's store of results, emptied); `read` names an attribute of the result to read."""
    names = {f"a{i}": value for i, value in enumerate(args)}
    kwargs = kwargs or {}
    names |= {f"k{i}": value for i, value in enumerate(kwargs.values())}
    written = [f"a{i}" for i in range(len(args))] + [f"{key}=k{i}" for i, key in enumerate(kwargs)]
    call = f"fn({', '.join(written)})" + (f".{read}" if read else "")
    source = f"lambda: (clear(), {call})[1]" if clear is not None else f"lambda: {call}"
    made: Callable[[], Any] = eval(source, {"fn": fn, "clear": clear, **names})
    return made


def _d20() -> Any | None:
    try:
        import d20  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    return d20


def run(ctx: Context) -> Section:
    section = Section("resolvers", "Resolvers: one call")
    section.text(
        "Each compiled resolver is imported from `output/python/<id>.py` and called with keyword inputs and a "
        "`random.Random`. Its hand-written twin (`bench/handwritten.py`) validates the same inputs with the same "
        "errors, rolls the dice with the same calls of the generator (one `getrandbits` pick among every roll "
        "of the dice) and returns the generated module's own `Result` (dice, kept, total, `Outcome`, values, "
        "trace), a new one on every call. Before timing, the bench asserts that both give equal results and "
        "leave the RNG in the same state for every input combination below and many seeds, and raise the same "
        "error for bad inputs. d20 rolls the same dice from a string (`d20.roll(...)`, its own `random` calls). "
        "They are timed interleaved; each repeat calls one of them in a loop.")
    d20 = _d20()
    checks = Table(("mechanic", "call", "results compared", "bad inputs compared", "equal"))
    speed = Table(("mechanic", "compiled", "spread", "hand-written", "spread", "compiled / hand-written",
                   f"target ≤ {MAX_VS_HANDWRITTEN}x", "verdict", "compiled, every result new", "/ hand-written",
                   "the same, `.trace` read", "/ hand-written"))
    versus = Table(("mechanic", "d20 string", "d20", "spread", "d20 / compiled", f"target ≥ {MIN_VS_D20:.0f}x",
                    "verdict", "d20 / hand-written", "d20 / compiled, every result new"))
    compiled_medians: dict[str, float] = {}
    for mechanic in MECHANICS:
        progress(f"resolvers: {mechanic.label}")
        module = ctx.module(mechanic.ruleset)
        compiled = getattr(module, mechanic.name)
        written = mechanic.write(module)
        call = f"{mechanic.ruleset}.{mechanic.name}({', '.join(f'{k}={v!r}' for k, v in mechanic.inputs.items())})"
        compared, bad, problem = equivalence(mechanic, compiled, written, ctx.quick)
        checks.add(mechanic.label, f"`{call}`", f"{compared:,}", bad, "yes" if problem is None else
                   f"**no**: {problem}")
        rng_a, rng_b, rng_c, rng_d = (random.Random(1) for _ in range(4))
        inputs = mechanic.inputs
        kept: dict[object, Any] = getattr(module, f"_MEMO_{mechanic.name}")  # emptied: a first roll's cost
        candidates = [Candidate("compiled", call_site(compiled, kwargs={**inputs, "rng": rng_a})),
                      Candidate("hand-written", call_site(written, kwargs={**inputs, "rng": rng_b})),
                      Candidate("compiled, trace read", call_site(compiled, kwargs={**inputs, "rng": rng_d},
                                                                  clear=kept.clear, read="trace")),
                      Candidate("compiled, every result new", call_site(compiled, kwargs={**inputs, "rng": rng_c},
                                                                        clear=kept.clear))]
        if d20 is not None:
            candidates.append(Candidate("d20", call_site(d20.roll, (mechanic.d20,))))
        measured = compare(candidates, ctx.settings)
        a, b = measured["compiled"], measured["hand-written"]
        compiled_medians[f"{mechanic.ruleset}.{mechanic.name}"] = a.median
        r = ratio(a, b)
        ok = problem is None and r.value <= MAX_VS_HANDWRITTEN
        told, anew = measured["compiled, trace read"], measured["compiled, every result new"]
        speed.add(mechanic.label, seconds(a.median), spread(a), seconds(b.median), spread(b), ratio_text(r),
                  f"≤ {MAX_VS_HANDWRITTEN}x", verdict(ok) if problem is None else f"{MISS} (not equal)",
                  seconds(anew.median), ratio_text(ratio(anew, b)), seconds(told.median), ratio_text(ratio(told, b)))
        section.target(f"{mechanic.label}: compiled ≤ {MAX_VS_HANDWRITTEN}x hand-written", times(r.value),
                       verdict(ok) if problem is None else MISS)
        if d20 is None:
            versus.add(mechanic.label, f"`{mechanic.d20}`", "d20 not installed", "", "", f"≥ {MIN_VS_D20:.0f}x", NA,
                       "", "")
            section.target(f"{mechanic.label}: ≥ {MIN_VS_D20:.0f}x faster than d20", "d20 not installed", NA)
            continue
        d = measured["d20"]
        r20 = ratio(d, a)
        versus.add(mechanic.label, f"`{mechanic.d20}`", seconds(d.median), spread(d), ratio_text(r20),
                   f"≥ {MIN_VS_D20:.0f}x", verdict(r20.value >= MIN_VS_D20), ratio_text(ratio(d, b)),
                   ratio_text(ratio(d, anew)))
        section.target(f"{mechanic.label}: ≥ {MIN_VS_D20:.0f}x faster than d20", times(r20.value),
                       verdict(r20.value >= MIN_VS_D20))
    ctx.shared["resolver_medians"] = compiled_medians
    section.text("### 1.1 Equivalence of the hand-written resolvers")
    section.table(checks)
    section.text("### 1.2 Compiled against hand-written (median per call)")
    section.table(speed)
    section.text("A compiled resolver rolls its dice first and looks them up with its inputs: a roll that neither "
                 "re-rolls, chains nor rolls more dice makes the same result from the same dice and inputs, so it "
                 "keeps the results it made (up to 1,024 per roll) and hands the same frozen one out again. The "
                 "hand-written twins make a new result on every call, as one would by hand. \"Every result new\" "
                 "times the compiled call with nothing kept (its store emptied before each call): what a first "
                 "roll of those dice costs. A new result keeps its trace as the arguments of `describe` and writes "
                 "the words when `.trace` is first read (most results of a simulation or a bot are never read as "
                 "text); the hand-written twins write them on every call. The last two columns time a new result "
                 "followed by reading `.trace`, so the words are paid for too.")
    section.text("### 1.3 Compiled against d20 from a string")
    section.table(versus)
    section.text("The hand-written twin rolls the same dice the same way and makes its result on every call; "
                 "the last column is the compiled resolver with nothing kept. Both are that much faster than d20: "
                 "making a result (a frozen dataclass of eleven fields, its trace's arguments, its values) costs "
                 "more than rolling the dice, and a kept result costs nothing to make.")
    section.text("### 1.4 d20 against plain Python (the issue's 21x and 40x)")
    if d20 is None:
        section.text("d20 is not installed in this environment (`make bench` installs it in `bench/.venv`).")
    else:
        section.table(_plain(ctx, d20))
        section.text("Plain Python is written two ways: with `random.randint` and with `int(random() * 6) + 1` "
                     "(the fastest standard-library die, slightly biased). The issue's 21x and 40x are quoted as "
                     "measured elsewhere; the ratios here are this run's.")
    return section


def _plain(ctx: Context, d20: Any) -> Table:
    randint, rand = random.randint, random.random

    def two_randint() -> int:
        return randint(1, 6) + randint(1, 6) + 2

    def two_random() -> int:
        return int(rand() * 6) + int(rand() * 6) + 4

    def four_randint() -> int:
        dice = sorted([randint(1, 6), randint(1, 6), randint(1, 6), randint(1, 6)])
        return dice[1] + dice[2] + dice[3]

    def four_random() -> int:
        dice = sorted([int(rand() * 6), int(rand() * 6), int(rand() * 6), int(rand() * 6)])
        return dice[1] + dice[2] + dice[3] + 3

    table = Table(("dice", "d20", "plain (randint)", "plain (random())", "d20 / plain (randint)",
                   "d20 / plain (random())", "issue's figure"))
    for notation, plain_a, plain_b, quoted in (("2d6+2", two_randint, two_random, "21x"),
                                               ("4d6kh3", four_randint, four_random, "40x")):
        progress(f"resolvers: d20 {notation} against plain Python")
        found = compare([Candidate("d20", call_site(d20.roll, (notation,))), Candidate("randint", plain_a),
                         Candidate("random", plain_b)], ctx.settings)
        d, pa, pb = found["d20"], found["randint"], found["random"]
        table.add(f"`{notation}`", _cell(d), _cell(pa), _cell(pb), ratio_text(ratio(d, pa)),
                  ratio_text(ratio(d, pb)), quoted)
    return table


def _cell(stats: Stats) -> str:
    return f"{seconds(stats.median)} ({spread(stats)})"
