"""Fuzzing: no input makes `check` or `build` crash or hang; every error is a positioned diagnostic.

The property, for any input: the pipeline of `check` and `build` (load: parse and check; then for a
ruleset that checks clean: code generation, the JSON/YAML export, the HTML sheet, and the generated
module executed and each of its resolvers rolled and its odds taken) either succeeds or raises
CompileError whose report holds an error with a code, and every diagnostic's line and column lie
inside the file. Any other exception is a bug.

Profiles: `ci` (the default: reproducible, about 1,700 generated cases, about 75 s on two cores) and
`fuzz` (ten times more, and whole real rulesets mutated): `HYPOTHESIS_PROFILE=fuzz` or `make fuzz`.

The regression tests below the property tests hold the minimal input of every crash fuzzing found,
and each hard cap (docs/language.md, "Limits") firing with its message.
"""

from __future__ import annotations

import atexit
import functools
import os
import random
import re
import shutil
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulecraft.semantics.odds as odds_module
import rulecraft.semantics.runtime as runtime
from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data, to_html, to_json, to_yaml
from rulecraft.diagnostics import CompileError, Report

from .fuzz_strategies import mutants, mutate, nested, rulesets, sources

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("fuzz", deadline=None, print_blob=True, suppress_health_check=list(HealthCheck))
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = 10 if PROFILE == "fuzz" else 1


def fuzz_settings(examples: int) -> settings:
    """The profile's settings with `examples` cases in CI (SCALE times more in the fuzz profile)."""
    return settings(settings.get_profile(PROFILE), max_examples=examples * SCALE)


# The design check's whole-ruleset budget, lowered so one case stays fast (the cap's path is then fuzzed too).
FUZZ_BUDGET = 200_000
REAL_BUDGET = odds_module.MAX_ANALYSIS
WORKDIR = Path(tempfile.mkdtemp(prefix="rulecraft-fuzz-"))  # one file, rewritten by every case
atexit.register(shutil.rmtree, WORKDIR, True)
CODE = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$")


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(odds_module, "MAX_ANALYSIS", FUZZ_BUDGET)
    yield


def assert_diagnostics(report: Report, source: str | None, positioned: bool = True) -> None:
    """At least one error; every diagnostic has a code, every error a hint, and each line and column is
    inside the file (`positioned` False: a file that is not text may be refused as a whole, at no line).

    Lines are the file's as Python reads text (universal newlines: CR LF, a lone CR and LF each end a line).
    """
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert errors, report.format_text()
    if source is not None:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n") if source is not None else None
    for diagnostic in report.diagnostics:
        assert CODE.match(diagnostic.code), diagnostic
        assert diagnostic.message, diagnostic
        if diagnostic.severity == "error" and (positioned or diagnostic.span.line):
            assert diagnostic.hint and diagnostic.hint.strip(), diagnostic  # every error says what to do
        if lines is None or (not positioned and diagnostic.span.line == 0):
            continue
        span = diagnostic.span
        assert 1 <= span.line <= len(lines), (diagnostic, len(lines))
        assert 1 <= span.column <= len(lines[span.line - 1]) + 1, (diagnostic, lines[span.line - 1])
    report.format_text()
    report.format_json()


def exercise(source: str, name: str) -> None:
    """Execute a generated module; roll each resolver once (defaults, seeded) and take its odds; make each
    track and mark it, each deck and draw from it, and pick from two candidates with each priority list.

    The module's own messages for a bad roll are ValueErrors (a cap, a face to be supplied); anything
    else is a bug.
    """
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
        calls: list[Callable[[], object]] = []
        for resolver, specs in module.INPUTS.items():
            if all(spec[5] is not None for spec in specs):  # a required input: nothing to roll it with
                calls.append(functools.partial(module.RESOLVERS[resolver], rng=random.Random(1)))
                calls.append(functools.partial(module.odds, resolver))
        calls += [functools.partial(mark, track) for track in module.TRACKS.values()]
        calls += [functools.partial(lambda deck: deck(random.Random(1)).draw(), deck) for deck in module.DECKS.values()]
        candidates = [{"name": "Ann", "distance": 2, "damage": 1, "is": ("captain",)}, {"name": "Bo", "distance": 1}]
        calls += [functools.partial(module.pick, name, candidates) for name, document in module.DOCUMENTS.items()
                  if document.kind == "priority"]
        for call in calls:
            try:
                call()
            except ValueError as problem:
                assert str(problem)
    finally:
        del sys.modules[name]


def mark(track: Callable[..., Any]) -> None:
    made = track(size=4)
    made.mark(2)
    made.clear()


def pipeline(source: str | bytes) -> Report | None:
    """Run what `check` and `build` run (not the PDF); returns the report of a refused input, None if built."""
    path = WORKDIR / "fuzz.rules"
    path.write_bytes(source if isinstance(source, bytes) else source.encode("utf-8"))
    text = source if isinstance(source, str) else None
    report = Report()
    try:
        loaded = load(str(path), report)
        checked = loaded.checked
        module = generate(checked)
        data = export_data(checked)
        to_json(data)
        to_yaml(data)
        to_html(data)
    except CompileError as error:
        assert_diagnostics(error.report, text if text is not None else error.report.sources.get(str(path)),
                           positioned=text is not None)
        return error.report
    assert not report.has_errors
    exercise(module, "rulecraft_fuzz_module")
    return None


# ---------------------------------------------------------------- properties


@fuzz_settings(900)
@given(rulesets())
def test_grammar_shaped_rulesets_build_or_are_refused_with_diagnostics(text: str) -> None:
    pipeline(text)


@fuzz_settings(600)
@given(mutants())
def test_mutated_pieces_of_the_real_rulesets_build_or_are_refused_with_diagnostics(text: str) -> None:
    pipeline(text)


@fuzz_settings(150)
@given(st.sampled_from([s.name for s in sources()]), st.binary(min_size=1, max_size=16), st.integers(0, 10**6))
def test_random_bytes_in_a_real_ruleset_are_refused_or_built(name: str, junk: bytes, at: int) -> None:
    source = next(s for s in sources() if s.name == name)
    piece = "\n".join(source.header + source.blocks[at % len(source.blocks)]).encode("utf-8")
    at %= len(piece) + 1
    pipeline(piece[:at] + junk + piece[at:])


@fuzz_settings(60)
@given(st.integers(40, 600), st.sampled_from(["parens", "neg", "not", "sum", "calls", "ifelse", "pools"]))
def test_deep_nesting_is_refused_or_built_never_a_recursion_error(depth: int, kind: str) -> None:
    pipeline(nested(depth, kind))


@pytest.mark.skipif(PROFILE != "fuzz", reason="whole rulesets take seconds each: the fuzz profile only")
@settings(settings.get_profile(PROFILE), max_examples=40)
@given(mutants(whole=True))
def test_mutated_whole_rulesets_build_or_are_refused_with_diagnostics(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_module, "MAX_ANALYSIS", REAL_BUDGET)  # a whole real ruleset needs the real budget
        pipeline(text)


def test_mutations_apply() -> None:
    """The mutation operators do change the text (a fuzzer that mutates nothing tests nothing)."""
    text = "\n".join(sources()[0].lines[:60])
    changed = [mutate(text, [(op, 7, 11, "“")]) != text for op in
               ("delete line", "duplicate line", "swap line", "delete token", "duplicate token", "swap token",
                "insert", "huge number")]
    assert all(changed), changed


# ---------------------------------------------------------------- inputs that are too large


def refused(text: str) -> list[tuple[str, str, int, int]]:
    """The errors of an input that must be refused: (code, message, line, column)."""
    report = pipeline(text)
    assert report is not None, "built, but should have been refused"
    return [(d.code, d.message, d.span.line, d.span.column) for d in report.diagnostics if d.severity == "error"]


def test_a_10_mb_file_is_refused_at_once() -> None:
    text = 'ruleset "Big"\n\n' + 'rule r "R" [T-1]\n  text: "' + "x" * 10_000_000 + '"\n'
    start = time.perf_counter()
    errors = refused(text)
    assert time.perf_counter() - start < 5
    assert errors == [("TOO-LARGE", f"this file is {len(text.encode()):,} bytes; the limit is 1,000,000", 1, 1)]


@pytest.mark.parametrize("kind", ["parens", "neg", "not", "sum", "calls", "ifelse", "pools"])
def test_a_deeply_nested_expression_is_refused_fast(kind: str) -> None:
    start = time.perf_counter()
    errors = refused(nested(5000, kind))
    assert time.perf_counter() - start < 10
    assert len(errors) == 1 and errors[0][:2] == (
        "TOO-LARGE", TOO_DEEP)
    assert errors[0][2] == 4


@pytest.mark.parametrize("kind", ["parens", "neg", "sum", "calls", "ifelse"])
def test_nesting_just_under_the_limit_builds(kind: str) -> None:
    assert pipeline(nested(45, kind)) is None


# ---------------------------------------------------------------- crashes fuzzing found (minimal inputs)


def roll_with(dice: str, lines: str = "", bands: str = '  - 7+: hi "hi"\n  - otherwise: lo "lo"\n') -> str:
    return f'ruleset "T"\n\nroll r "R" [T-1]\n{lines}  roll: {dice}\n{bands}'


def test_a_number_too_long_for_python_to_read_is_refused() -> None:
    """Was VisitError (int() refuses more than 4300 digits), for a number or a die."""
    assert refused(roll_with("2d6 + " + "9" * 5000)) == [
        ("TOO-LARGE", "the number 999999999999… has 5000 digits; a number has at most 18", 4, 15)]
    assert refused(roll_with("1" + "0" * 5000 + "d6"))[0][:2] == (
        "TOO-LARGE", "the number 100000000000… has 5001 digits; a number has at most 18")
    assert refused(roll_with("2d6 + 1000000000000000000"))[0][0] == "TOO-LARGE"  # 19 digits
    assert pipeline(roll_with("2d6 - 999999999999999999 + 999999999999999999")) is None  # 18 digits
    assert refused(roll_with("2d6 + 999999999999999999"))[0][:2] == (  # 10^18 and more: not computed with
        "TOO-LARGE", "r with no inputs: this comes to more than 1,000,000,000,000,000,000 (10^18); numbers stop there")


TOO_DEEP = ("this expression is too deep: at most 50 operators, calls and dice one inside another (a sum of 60 terms "
            "is 59 `+`, each inside the next)")


def test_a_long_sum_is_refused_not_a_module_python_cannot_compile() -> None:
    """Was SyntaxError from compile(): 300 terms nest 300 parentheses in the generated module."""
    assert refused(nested(300, "sum")) == [
        ("TOO-LARGE", TOO_DEEP, 4, 9)]


def test_one_die_group_with_too_many_readings_is_refused_not_enumerated() -> None:
    """Was a hang: a single dice group was enumerated however many multisets it had (100d100: 10^58).

    Readings keep apart only what the bands read, so a sum of 100d100 is 9,901 totals; but a band
    counting a computed face (`count(x)`) must tell every multiset apart, and those are refused."""
    start = time.perf_counter()
    counting = '  input x: 1..20 = 1\n', '  - when count(x) > 1: hi "hi"\n  - otherwise: lo "lo"\n'
    assert refused(roll_with("20d20", *counting)) == [
        ("TOO-LARGE", "r with x=1: 20d20 has more than 2,000,000 readings to work out exactly", 5, 9)]
    assert refused(roll_with("100d100", *counting))[0][1] == (
        "r with x=1: 100d100 has more than 2,000,000 readings to work out exactly")
    with pytest.MonkeyPatch.context() as patch:  # its readings alone cost more than the fuzz budget
        patch.setattr(odds_module, "MAX_ANALYSIS", REAL_BUDGET)
        assert pipeline(roll_with("100d100")) is None
    assert time.perf_counter() - start < 5


def test_a_huge_input_range_is_counted_not_listed() -> None:
    """Was a hang: the check listed every value of `0..1000000000`, and the sheet drew a row for each."""
    start = time.perf_counter()
    assert refused(roll_with("2d6 + x", "  input x: 0..1000000000 = 0\n")) == [
        ("TOO-LARGE", "`r` has 1,000,000,001 input combinations to check; the limit is 20,000", 3, 6),
        ("TOO-LARGE", "the sheet would print more than 50,000 odds; `r` alone prints 2,000,000,002 "
         "(1,000,000,001 values of `x` x 2 bands)", 3, 6)]
    assert time.perf_counter() - start < 5


def test_a_pool_sized_by_a_wide_input_stops_at_the_check_budget() -> None:
    """Was a hang: `(x)d6` for x up to 1000 is 10^13 outcomes to check."""
    start = time.perf_counter()
    errors = refused(roll_with("(x)d6", "  input x: 0..1000 = 1\n"))
    assert time.perf_counter() - start < 10
    assert len(errors) == 1 and errors[0][2:] == (3, 6)
    assert re.fullmatch(r"r with x=\d+: checking the exact odds of this ruleset takes more than 200,000 steps "
                        r"\(working out dice readings, then reading them into bands, for every input of every "
                        r"roll\); the limit is reached here",
                        errors[0][1]), errors


def test_a_die_of_a_trillion_sides_is_refused_not_listed() -> None:
    """Was a hang: the faces of a custom die were listed side by side (10^12 of them)."""
    text = ('ruleset "T"\n\ndie att "A" [T-1]\n  sides: 1000000000000\n  - hit "Hit"\n      count: 1000000000000\n'
            'roll r "R" [T-1]\n  roll: 2 att\n  - when count(hit) > 0: h "h"\n  - otherwise: m "m"\n')
    assert refused(text) == [
        ("TOO-LARGE", "a die of 1,000,000,000,000 sides; the limit is 1,000", 4, 3),
        ("TOO-LARGE", "the faces of `att` cover 1,000,000,000,000 sides; the limit is 1,000", 3, 5)]


def test_a_track_of_a_billion_boxes_is_refused_not_drawn() -> None:
    """Was a hang: the sheet draws one box per box."""
    assert refused('ruleset "T"\n\ntrack t "T" [T-1]\n  size: 1000000000\n') == [
        ("TOO-LARGE", "a track of 1,000,000,000 boxes; the limit is 1,000", 4, 3)]
    levels = ('ruleset "T"\n\ntrack h "H" [T-1]\n  levels:\n    - 1: lesser "Lesser"\n        boxes: 5000\n'
              '    - 2: fatal "Fatal"\n')
    assert refused(levels) == [("TOO-LARGE", "the levels of `h` have 5,000 boxes; the limit is 1,000", 3, 7)]


def test_max_of_one_number_is_refused_not_a_type_error_in_the_module() -> None:
    """Was TypeError in the generated module: Python's max(3) reads 3 as a sequence (the interpreter agreed to it)."""
    text = 'ruleset "T"\n\nformula f "F" [T-1]\n  let m = 3\n  value: max(m) + min(1, 2, 3)\n'
    assert refused(text) == [("TYPE", "max() takes two or more numbers, not 1", 5, 10)]
    assert refused(text.replace("max(m)", "clamp(m, 1)")) == [
        ("TYPE", "clamp() takes three numbers (a value, the lowest, the highest), not 2", 5, 10)]


def test_a_remainder_by_zero_is_refused_by_the_check_or_a_value_error_in_the_module() -> None:
    """Was ZeroDivisionError from the generated module (`%` compiled bare; `/` already said what went wrong). A
    formula is now worked out for every input by the check, so there it is refused before any module is built;
    a band's data is worked out when it comes up, so there the module says what went wrong."""
    formula = 'ruleset "T"\n\nformula f "F" [T-1]\n  input a: 0..4 = 0\n  value: 3 % a\n'
    assert [(e[0], e[1], e[2]) for e in refused(formula)] == [("EVAL", "f with a=0: division by zero", 5)]
    text = 'ruleset "T"\n\nroll r "R" [T-1]\n  input a: 0..4 = 0\n  roll: d6\n  - 1+: hi "hi"\n      harm: 7 % a\n'
    module = built_module(text)
    with pytest.raises(ValueError, match=r"division by zero in a formula \(the remainder of `x % 0`\)"):
        module.r(a=0, rng=random.Random(1))
    assert module.r(a=2, rng=random.Random(1)).values["harm"] == 1


def test_an_error_in_an_entry_an_erratum_adds_is_reported() -> None:
    """Was ValueError from codegen (an unresolved name): errors of the errata pass were never reported."""
    text = ('ruleset "T"\n\ntable t "T" [T-1]\n  roll: d6\n  - 1-5: "x"\n'
            'errata E-1 "Title" [T-1]\n  resolves: RANGE-GAP in t\n  text: "why"\n  add to t:\n'
            '    - 6: "y" -> missing\n')
    errors = refused(text)
    assert [e[0] for e in errors] == ["UNDEFINED"] and errors[0][2] == 10, errors


def load_text(text: str) -> Any:
    path = WORKDIR / "case.rules"
    path.write_text(text, encoding="utf-8")
    return load(str(path))


# ---------------------------------------------------------------- the hard caps (docs/language.md, "Limits")


def test_cap_dice_per_roll_at_compile_time_and_at_run_time() -> None:
    assert refused(roll_with("5000d6")) == [("TOO-LARGE", "`5000d6` rolls 5,000 dice; the limit is 1,000", 4, 9)]
    assert pipeline(roll_with("1000d2")) is None
    module = built_module(data_dice("(a)d6"))  # dice in a band's data: rolled when the band comes up
    assert module.f(a=1000, rng=random.Random(1)).values["extra"] >= 1000
    with pytest.raises(ValueError, match=r"^\(a\)d6 = 2000d6 would roll 2,000 dice; the limit is 1,000$"):
        module.f(a=2000, rng=random.Random(1))


def test_cap_faces_per_die_at_compile_time_and_at_run_time() -> None:
    assert refused(roll_with("d1001")) == [
        ("TOO-LARGE", "`d1001` rolls a die of 1,001 sides; the limit is 1,000", 4, 9)]
    assert refused(roll_with("d0")) == [("TYPE", "a die has 1 to 1,000 sides, not 0", 4, 9)]
    module = built_module(data_dice("d(a)"))
    assert 1 <= module.f(a=1000, rng=random.Random(1)).values["extra"] <= 1000
    for sides in (0, 2000):
        with pytest.raises(ValueError, match=rf"^d\(a\) = d{sides} would roll a die of {sides:,} sides; a die has "
                                             r"1 to 1,000$"):
            module.f(a=sides, rng=random.Random(1))
    dice = ('ruleset "T"\n\ndie att "A" [T-1]\n  - hit "Hit"\n      count: 1001\n'
            'roll r "R" [T-1]\n  roll: 2 att\n  - when count(hit) > 0: h "h"\n  - otherwise: m "m"\n')
    assert refused(dice) == [("TOO-LARGE", "the faces of `att` cover 1,001 sides; the limit is 1,000", 3, 5)]


def data_dice(dice: str) -> str:
    """A formula whose one band rolls `dice` as its data (not part of the odds the check works out)."""
    return (f'ruleset "T"\n\nformula f "F" [T-1]\n  input a: 0..2000 = 1\n  value: a\n  - 0+: any "any"\n'
            f"      extra: {dice}\n")


def chain(links: int) -> str:
    tables = "".join(f'table t{i} "T" [T-1]\n  roll: d6\n  - 1-6: "next" -> t{i + 1}\n' for i in range(links))
    return f'ruleset "T"\n\n{tables}table t{links} "T" [T-1]\n  roll: d6\n  - 1-6: "end"\n'


def test_cap_chain_depth() -> None:
    assert refused(chain(17)) == [("TOO-LARGE", "a roll of `t0` can chain through 17 more tables; the limit is 16",
                                   3, 7)]
    module = built_module(chain(16))
    assert len(module.t0(rng=random.Random(1)).chain) == 16
    loop = 'ruleset "T"\n\ntable t "T" [T-1]\n  roll: d6\n  - 1-5: "done"\n  - 6: "roll again" -> t\n'
    loaded = load_text(loop)
    assert [(d.code, d.message, d.span.line) for d in loaded.report.diagnostics if d.severity == "warning"] == [
        ("CHAIN-LOOP", "`t` chains back to `t`: a roll that keeps looping stops with an error after 16 links", 6)]
    decided = load_text(loop + 'errata E-1 "Rolls again" [T-1]\n  resolves: CHAIN-LOOP in t\n  text: "as written"\n')
    assert [(d.severity, d.code) for d in decided.report.diagnostics] == [("note", "CHAIN-LOOP")]
    always = built_module(loop.replace("1-5", "0").replace("- 6:", "- 1-6:"))
    with pytest.raises(ValueError, match=r"^the chain of tables reached t after 16 links; it may be a loop$"):
        always.t(rng=random.Random(1))


def test_cap_rerolls_one_per_result() -> None:
    """Every result is rolled again, once: the second result is final even when it is one to roll again."""
    module = built_module(roll_with("d6", "  reroll: hi or lo\n", '  - 4+: hi "hi"\n  - otherwise: lo "lo"\n'))
    for seed in range(20):
        result = module.r(rng=random.Random(seed))
        assert len(result.rerolled) == 1 and result.rerolled[0].rerolled == ()
    assert module.odds("r") == {"hi": Fraction(1, 2), "lo": Fraction(1, 2)}


def test_cap_input_combinations() -> None:
    assert refused(roll_with("d2 + a + b", "  input a: 0..200 = 0\n  input b: 0..100 = 0\n")) == [
        ("TOO-LARGE", "`r` has 20,301 input combinations to check; the limit is 20,000", 3, 6)]
    assert pipeline(roll_with("d2 + a + b", "  input a: 0..199 = 0\n  input b: 0..99 = 0\n")) is None


def test_cap_readings_of_one_roll_at_compile_time_and_at_run_time() -> None:
    counting = '  input x: 1..3 = 1\n', '  - when count(x) > 1: hi "hi"\n  - otherwise: lo "lo"\n'
    assert refused(roll_with("6d100", *counting))[0][:2] == (
        "TOO-LARGE", "r with x=1: 6d100 has more than 2,000,000 readings to work out exactly")
    with pytest.raises(ValueError, match=r"^exact odds of these dice would work through more than 2,000,000 readings$"):
        runtime.exact_joint([runtime._dice(6, 100)], lambda values, held: sum(values), lambda *read: 0)
    # a plain sum: 595 totals
    joint, denominator = runtime.exact_joint([runtime._dice(6, 100)], lambda values, held: sum(values), None)
    assert len(joint) == 595 and denominator == 100**6


def test_cap_check_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole ruleset's exact odds share one budget: each distinct group's readings (once), each roll's totals
    from its readings (once), then totals x bands."""
    monkeypatch.setattr(odds_module, "MAX_ANALYSIS", 300)
    assert runtime.readings_cost(runtime._dice(3, 6)) == 99
    text = roll_with("3d6 + a", "  input a: 0..3 = 0\n")  # 99 for 3d6, 16 for its totals, 16 x 2 bands for 4 values
    assert pipeline(text) is None  # 243
    errors = refused(text + text.split("\n\n", 1)[1].replace("roll r ", "roll s "))  # twice (3d6 paid): 291, 323
    assert errors == [("TOO-LARGE", "s with a=1: checking the exact odds of this ruleset takes more than 300 steps "
                       "(working out dice readings, then reading them into bands, for every input of every roll); "
                       "the limit is reached here", 8, 6)]


def test_cap_entries_of_a_definition() -> None:
    rows = "".join(f'  - {i}: "row {i}"\n' for i in range(1, 1002))
    assert refused(f'ruleset "T"\n\ntable t "T" [T-1]\n  roll: d1000\n{rows}') == [
        ("TOO-LARGE", "`t` has 1,001 entries; the limit is 1,000", 1005, 3)]


def test_cap_options_of_choice_inputs() -> None:
    options = ", ".join(f"o{i}" for i in range(1000))
    formulas = "".join(f'formula f{i} "F" [T-1]\n  input c: big = o0\n  value: 1\n' for i in range(101))
    errors = refused(f'ruleset "T"\ntype big: one of {options}\n{formulas}')
    assert errors == [("TOO-LARGE", "the choice inputs of this ruleset list more than 100,000 options in all (the "
                       "module and the export list each input's options); the limit is reached here", 304, 9)]


def test_cap_odds_on_the_sheet() -> None:
    errors = refused(roll_with("d6 + a", "  input a: 0..19999 = 0\n",
                               '  - 7+: hi "hi"\n  - 4-6: mid "mid"\n  - otherwise: lo "lo"\n'))
    assert ("TOO-LARGE", "the sheet would print more than 50,000 odds; `r` alone prints 60,000 (20,000 values of "
            "`a` x 3 bands)", 3, 6) in errors


def test_cap_output_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """An output past the cap is refused as it is written (here with the cap lowered to 60,000 characters)."""
    import rulecraft.backends.python
    import rulecraft.backends.render

    for module_ in (rulecraft.backends.python, rulecraft.backends.render):
        monkeypatch.setattr(module_, "MAX_OUTPUT_BYTES", 60_000)
    big = "".join(f'rule r{i} "R" [T-1]\n  text: "{"x" * 100}"\n' for i in range(600))
    errors = refused(f'ruleset "T"\n\n{big}')
    assert errors == [("TOO-LARGE", "the generated module would be more than 60,000 characters; the limit is 60,000",
                       1, 1)]
    tracks = "".join(f'track t{i} "T" [T-1]\n  size: 1000\n' for i in range(3))
    errors = refused(f'ruleset "T"\n\n{tracks}')
    assert errors == [("TOO-LARGE", "the sheet would be more than 60,000 characters; the limit is 60,000", 1, 1)]


def built_module(text: str) -> Any:
    """The generated module of a ruleset that builds (it runs the whole pipeline first)."""
    assert pipeline(text) is None
    module = types.ModuleType("rulecraft_fuzz_built")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(generate(load_text(text).checked), "<built>", "exec"), module.__dict__)
    return module
