"""Section 1: a generated resolver call against a plain hand-written twin, and against d20 from a string.

Issue 21, item 5: a resolver call at most 1.5x a plain hand-written twin with inputs that change on every
call, given an `rng` and without one; at least 3x faster than d20 called from a string.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any

from . import handwritten
from .context import Context, progress
from .report import MISS, NA, Section, Table, verdict
from .stats import chi_square
from .timing import Candidate, compare, ratio, ratio_text, seconds, spread, times

MAX_VS_TWIN = 1.5  # a generated call at most this times its hand-written twin's
MIN_VS_D20 = 3.0  # d20 from a string at least this times slower than a generated call
MIN_P = 1e-5  # a twin whose counts fit odds() worse than this (chi-square) does not roll the same distribution

Inputs = dict[str, object]


@dataclass(frozen=True)
class Mechanic:
    label: str
    ruleset: str
    name: str
    twin: handwritten.Twin
    axes: dict[str, tuple[object, ...]]  # every input and its values: the grid the calls cycle through
    fixed: Inputs  # the inputs of the informative fixed-input call
    d20: Callable[[Inputs], str]  # the same dice as a d20 string, for these inputs
    bad: tuple[Inputs, ...]  # inputs both must refuse

    def grid(self) -> list[Inputs]:
        return [dict(zip(self.axes, combo, strict=True)) for combo in itertools.product(*self.axes.values())]


def _number(value: object) -> int:
    if not isinstance(value, int):
        raise TypeError(f"a whole number, not {value!r}")
    return value


def _tides_d20(inputs: Inputs) -> str:
    shift = _number(inputs["dots"]) + {"none": 0, "edge": 1, "major": 2}[str(inputs["edge"])] \
        - {"none": 0, "penalty": 1, "major": 2}[str(inputs["penalty"])]
    return f"{'3d6kh2' if inputs['bonus_die'] else '2d6'}{shift:+d}"


def _wyrd_d20(inputs: Inputs) -> str:
    bonus = min(_number(inputs["assistance"]) + (inputs["push_or_bargain"] != "none"), 2)
    count = _number(inputs["rating"]) + bonus + _number(inputs["ability_dice"]) - _number(inputs["moderate_harm"])
    return f"{count}d6kh1" if count > 0 else "2d6kl1"


MECHANICS = (
    Mechanic("Tides of Gold action roll", "tides_of_gold", "action_roll", handwritten.tides_action_roll,
             {"dots": (0, 1, 2, 3, 4), "bonus_die": (False, True), "edge": ("none", "edge", "major"),
              "penalty": ("none", "penalty", "major")},
             {"dots": 2}, _tides_d20,
             ({"dots": 5}, {"dots": -1}, {"dots": "2"}, {"dots": 2.0}, {"edge": "big"}, {"penalty": "minor"})),
    Mechanic("Wyrd Wolds action roll", "wyrd_wolds", "action_roll", handwritten.wyrd_action_roll,
             {"rating": (0, 1, 2, 3, 4), "position": ("controlled", "risky", "desperate"),
              "assistance": (False, True), "push_or_bargain": ("none", "push", "bargain"),
              "ability_dice": (0, 1, 2), "moderate_harm": (False, True)},
             {"rating": 2, "position": "risky"}, _wyrd_d20,
             ({"rating": 5}, {"rating": -1}, {"position": "safe"}, {"push_or_bargain": "both"},
              {"ability_dice": 3})),
    Mechanic("Errant exploration event die (d6 table)", "errant", "exploration_event_die",
             handwritten.errant_exploration_event_die, {}, {}, lambda _: "1d6", ()),
    Mechanic("Errant check (d20 vs DV and attribute)", "errant", "check", handwritten.errant_check,
             {"dv": tuple(range(-10, 31)), "attribute": tuple(range(1, 21))},
             {"dv": 4, "attribute": 12}, lambda _: "1d20",
             ({"dv": 31}, {"dv": -11}, {"attribute": 0}, {"attribute": 21}, {"attribute": "10"})),
)


# ---------------------------------------------------------------- call sites


def cycling(fn: Callable[..., Any], names: tuple[str, ...], rows: list[tuple[object, ...]],
            rng: random.Random | None, pass_rng: bool) -> Callable[[], Any]:
    """A call of `fn` with the next row of inputs on every call, written as user code writes it: keywords in
    the call (`fn(dots=a, edge=b, rng=rng)`), not a `**dict` or a `partial`, which would cost a fast function
    more than its own work. Both sides of a comparison pay the same `next()` of a cycling iterator."""
    values = [f"v{i}" for i in range(len(names))]
    arguments = [f"{name}={value}" for name, value in zip(names, values, strict=True)]
    if pass_rng:
        arguments.append("rng=rng")
    unpack = f"    {', '.join(values)}, = next(rows)\n" if names else ""
    source = f"def call():\n{unpack}    return fn({', '.join(arguments)})\n"
    scope: dict[str, Any] = {"fn": fn, "rows": itertools.cycle(rows), "rng": rng, "next": next}
    exec(source, scope)  # the bench's own source, built from the input names above
    call: Callable[[], Any] = scope["call"]
    return call


def fixed(fn: Callable[..., Any], inputs: Inputs, rng: random.Random) -> Callable[[], Any]:
    """`fn(<inputs>, rng=rng)` with the same inputs on every call (a result store could serve it)."""
    return cycling(fn, tuple(inputs), [tuple(inputs.values())], rng, True)


def d20_strings(roll: Callable[[str], Any], strings: list[str]) -> Callable[[], Any]:
    """`d20.roll(<the next string>)`."""
    rows: Iterator[str] = itertools.cycle(strings)

    def call() -> Any:
        return roll(next(rows))

    return call


# ---------------------------------------------------------------- does the twin roll what the resolver rolls?


def _outcome_id(result: Any) -> object:
    outcome = getattr(result, "outcome", None)
    return getattr(outcome, "id", outcome)


@dataclass
class Agreement:
    combinations: int = 0  # input combinations tested by counts
    draws: int = 0  # twin calls counted
    worst_p: float = 1.0
    worst_at: str = ""
    seeded: int = 0  # seeded pairs of calls
    same_dice: int = 0  # of which drew the same dice
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems and self.worst_p >= MIN_P


def _spread_out(grid: list[Inputs], most: int) -> list[Inputs]:
    if len(grid) <= most:
        return grid
    step = len(grid) / most
    return [grid[int(i * step)] for i in range(most)]


def agreement(mechanic: Mechanic, module: ModuleType, quick: bool) -> Agreement:
    """Counts of the twin's outcomes against the module's exact `odds()` (chi-square) on a spread of inputs;
    where a seed makes both draw the same dice, the same outcome and total; bad inputs refused by both."""
    generated = getattr(module, mechanic.name)
    found = Agreement()
    problems: list[str] = []
    grid = mechanic.grid() or [{}]
    draws = 3_000 if quick else 20_000
    rng = random.Random(20_21)
    for inputs in _spread_out(grid, 4 if quick else 12):
        exact: dict[str, Fraction] = {str(k): v for k, v in module.odds(mechanic.name, **inputs).items()}
        counts = Counter(str(mechanic.twin(**inputs, rng=rng).outcome) for _ in range(draws))
        test = chi_square(counts, exact)
        found.combinations += 1
        found.draws += draws
        if test.impossible:
            problems.append(f"{_call(mechanic, inputs)}: the twin gave {', '.join(test.impossible)}, which odds() "
                            "gives probability 0")
        if test.p < found.worst_p:
            found.worst_p, found.worst_at = test.p, _call(mechanic, inputs)
    seeds = max(2, (3_000 if not mechanic.axes else 8) // (4 if quick else 1))
    for inputs in grid:
        for seed in range(seeds):
            ours, twin = generated(**inputs, rng=random.Random(seed)), mechanic.twin(**inputs, rng=random.Random(seed))
            found.seeded += 1
            if tuple(ours.dice) != twin.dice:
                continue
            found.same_dice += 1
            if str(_outcome_id(ours)) != twin.outcome or ours.total != twin.total:
                problems.append(f"{_call(mechanic, inputs)}, seed {seed}, dice {twin.dice}: generated "
                                f"{_outcome_id(ours)} (total {ours.total}), twin {twin.outcome} (total {twin.total})")
                break
    for inputs in mechanic.bad:
        refused = []
        for fn in (generated, mechanic.twin):
            try:
                fn(**inputs, rng=random.Random(1))
                refused.append(False)
            except (ValueError, TypeError):
                refused.append(True)
        if refused != [True, True]:
            problems.append(f"bad input {inputs}: refused by the generated resolver: {refused[0]}, by the twin: "
                            f"{refused[1]}")
    found.problems = tuple(problems[:3])
    return found


def _call(mechanic: Mechanic, inputs: Inputs) -> str:
    return f"{mechanic.name}({', '.join(f'{k}={v!r}' for k, v in inputs.items())})"


# ---------------------------------------------------------------- the section


def _d20() -> Any | None:
    try:
        import d20  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    return d20


def run(ctx: Context) -> Section:
    section = Section("resolvers", "Resolvers: one call")
    section.text(
        "Each generated resolver is the module `rulecraft build --format python` writes now (built into a "
        "temporary folder at the start of the run, not the committed `output/python`), imported from its file. "
        "Its hand-written twin (`bench/handwritten.py`) is what a person would write for that one roll: "
        "`rng.randint(1, sides)` per die (`random.randint` without an `rng`), a few `if`s, `ValueError` for a bad "
        "input, and a small frozen dataclass as the result (dice, total, outcome id, the outcome's data); no "
        "caches, no trace text. **Changing inputs**: every call takes the next combination of the roll's whole "
        "input grid (cycled; the calls are written with keywords, and both sides pay the same `next()`), so no "
        "store of results can serve a repeat; given an `rng` (`random.Random`), and without one (the most "
        "natural call). d20 is called from a string (`d20.roll('2d6+2')`), the string of the same dice for the "
        "same inputs, cycled the same way. All candidates of a mechanic are timed interleaved, on this process's "
        "CPU time.")
    d20 = _d20()
    checks = Table(("mechanic", "input combinations counted", "draws", "worst chi-square p", "seeded pairs",
                    "same dice from the same seed", "same outcome and total where the dice are the same",
                    "bad inputs refused by both", "same distribution"))
    speed = Table(("mechanic", "inputs", "rng", "generated", "spread", "twin", "spread", "generated / twin",
                   f"target ≤ {MAX_VS_TWIN}x", "verdict"))
    versus = Table(("mechanic", "d20 strings", "d20", "spread", "d20 / generated (rng given)",
                    "d20 / generated (no rng)", f"target ≥ {MIN_VS_D20:.0f}x (the slower call)", "verdict",
                    "d20 / twin (no rng)"))
    medians: dict[str, float] = {}
    for mechanic in MECHANICS:
        progress(f"resolvers: {mechanic.label}")
        module = ctx.module(mechanic.ruleset)
        generated = getattr(module, mechanic.name)
        twin = mechanic.twin
        agree = agreement(mechanic, module, ctx.quick)
        checks.add(mechanic.label, agree.combinations, f"{agree.draws:,}",
                   f"{agree.worst_p:.3g}" + (f" ({agree.worst_at})" if agree.worst_p < 0.01 else ""),
                   f"{agree.seeded:,}", f"{agree.same_dice:,}",
                   "no pair drew the same dice" if not agree.same_dice else
                   ("yes" if not any("seed" in p for p in agree.problems) else "**no**"),
                   len(mechanic.bad), "yes" if agree.ok else "**no**: " + "; ".join(
                       agree.problems or (f"p = {agree.worst_p:.3g} < {MIN_P:g} at {agree.worst_at}",)))
        names = tuple(mechanic.axes)
        rows = [tuple(inputs.values()) for inputs in mechanic.grid()] or [()]
        shuffled = list(rows)
        random.Random(8).shuffle(shuffled)  # the order of the grid, mixed once: both sides get the same order
        strings = [mechanic.d20(dict(zip(names, row, strict=True))) for row in shuffled]
        candidates = [
            Candidate("generated, changing, rng", cycling(generated, names, shuffled, random.Random(1), True)),
            Candidate("twin, changing, rng", cycling(twin, names, shuffled, random.Random(1), True)),
            Candidate("generated, changing, no rng", cycling(generated, names, shuffled, None, False)),
            Candidate("twin, changing, no rng", cycling(twin, names, shuffled, None, False)),
            Candidate("generated, fixed, rng", fixed(generated, mechanic.fixed, random.Random(2))),
            Candidate("twin, fixed, rng", fixed(twin, mechanic.fixed, random.Random(2))),
        ]
        if d20 is not None:
            candidates.append(Candidate("d20", d20_strings(d20.roll, strings)))
        measured = compare(candidates, ctx.settings)
        medians[f"{mechanic.ruleset}.{mechanic.name}"] = measured["generated, changing, rng"].median
        shown = f"{len(rows):,} combinations, cycled" if mechanic.axes else "none (the roll has no inputs)"
        for rng_label, key, judged in (("given", "changing, rng", "(a)"), ("omitted", "changing, no rng", "(b)"),
                                       ("given", "fixed, rng", "")):
            a, b = measured[f"generated, {key}"], measured[f"twin, {key}"]
            r = ratio(a, b)
            ok = agree.ok and r.value <= MAX_VS_TWIN
            inputs_cell = shown if key != "fixed, rng" else ", ".join(
                f"{k}={v!r}" for k, v in mechanic.fixed.items()) + " every call (informative)"
            speed.add(mechanic.label, inputs_cell, rng_label, seconds(a.median), spread(a), seconds(b.median),
                      spread(b), ratio_text(r), f"≤ {MAX_VS_TWIN}x" if judged else "",
                      (verdict(ok) if agree.ok else f"{MISS} (twin disagrees)") if judged else "")
            if judged:
                what = "inputs changing every call, " + ("rng given" if rng_label == "given" else "rng omitted")
                section.target(f"{mechanic.label} {judged}: generated ≤ {MAX_VS_TWIN}x a plain twin ({what})",
                               times(r.value), verdict(ok))
        if d20 is None:
            versus.add(mechanic.label, _strings(strings), "d20 not installed", "", "", "", f"≥ {MIN_VS_D20:.0f}x",
                       NA, "")
            section.target(f"{mechanic.label}: ≥ {MIN_VS_D20:.0f}x faster than d20 from a string",
                           "d20 not installed", NA)
            continue
        d = measured["d20"]
        given, omitted = measured["generated, changing, rng"], measured["generated, changing, no rng"]
        slower = given if given.median >= omitted.median else omitted
        r20 = ratio(d, slower)
        versus.add(mechanic.label, _strings(strings), seconds(d.median), spread(d), ratio_text(ratio(d, given)),
                   ratio_text(ratio(d, omitted)), f"≥ {MIN_VS_D20:.0f}x", verdict(r20.value >= MIN_VS_D20),
                   ratio_text(ratio(d, measured["twin, changing, no rng"])))
        section.target(f"{mechanic.label}: ≥ {MIN_VS_D20:.0f}x faster than d20 from a string (changing inputs)",
                       times(r20.value), verdict(r20.value >= MIN_VS_D20))
    ctx.shared["resolver_medians"] = medians
    section.text("### 1.1 Does each twin roll what its resolver rolls?")
    section.text(
        "A twin draws its dice its own way, so its results are compared by counts: for a spread of input "
        "combinations, its outcomes over many draws against the generated module's exact `odds()` (Pearson's "
        f"chi-square, cells expected fewer than 5 times pooled; a p below {MIN_P:g} would say the distributions "
        "differ). Where a seed makes both draw the same dice (a resolver that draws `randint` per die in the same "
        "order does), the outcome and the total must be the same too. Bad inputs must be refused by both.")
    section.table(checks)
    section.text("### 1.2 Generated against hand-written (median per call)")
    section.table(speed)
    section.text(
        "(a) and (b) are issue 21's targets. The fixed-input row (the same inputs on every call) is informative: "
        "there a store of results made before can answer, which is what the old bench timed. A roll without "
        "inputs (the d6 table) has only its six results, changing inputs or not.")
    section.text("### 1.3 Generated against d20 from a string")
    section.table(versus)
    if d20 is None:
        section.text("d20 is not installed in this environment (`make bench` installs it in `bench/.venv`).")
    return section


def _strings(strings: list[str]) -> str:
    distinct = sorted(set(strings), key=strings.index)
    shown = ", ".join(f"`{s}`" for s in distinct[:4])
    return shown + (f" ... ({len(distinct)} strings)" if len(distinct) > 4 else "")
