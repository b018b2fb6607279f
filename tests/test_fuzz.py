"""Fuzzing: no input makes `check` or `build` crash or hang; every error is a positioned diagnostic.

The property, for any input: the pipeline of `check` and `build` (load: parse and check; then for a
ruleset that checks clean: code generation, the JSON/YAML export, the HTML sheet, and the generated
module executed and each of its resolvers rolled and its odds taken) either succeeds or raises
CompileError whose report holds an error with a code, and every diagnostic's line and column lie
inside the file. Any other exception is a bug.

Profiles: `ci` (the default: reproducible, a few thousand cases in all) and `fuzz` (many more, with
whole real rulesets mutated): `HYPOTHESIS_PROFILE=fuzz` or `make fuzz`.

The regression tests below the property tests hold the minimal input of every crash fuzzing found,
and each hard cap (docs/language.md, "Limits") firing with its message.
"""

from __future__ import annotations

import functools
import os
import random
import re
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler import odds as odds_module
from compiler.api import load
from compiler.codegen import generate
from compiler.diagnostics import CompileError, Report
from compiler.render import export_data, to_html, to_json, to_yaml

from .fuzz_strategies import mutants, mutate, nested, rulesets, sources

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("fuzz", deadline=None, print_blob=True, suppress_health_check=list(HealthCheck))
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = 25 if PROFILE == "fuzz" else 1


def fuzz_settings(examples: int) -> settings:
    """The profile's settings with `examples` cases in CI (SCALE times more in the fuzz profile)."""
    return settings(settings.get_profile(PROFILE), max_examples=examples * SCALE)


# The design check's whole-ruleset budget, lowered so one case stays fast (the cap's path is then fuzzed too).
FUZZ_BUDGET = 200_000
WORKDIR = Path(tempfile.mkdtemp(prefix="rulecraft-fuzz-"))
CODE = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$")


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(odds_module, "MAX_ANALYSIS", FUZZ_BUDGET)
    yield


def assert_diagnostics(report: Report, source: str | None, positioned: bool = True) -> None:
    """At least one error; every diagnostic has a code, and its line and column are inside the file.

    Lines are the file's as Python reads text (universal newlines: `\r\n`, `\r` and `\n` end a line).
    """
    errors = [d for d in report.diagnostics if d.severity == "error"]
    assert errors, report.format_text()
    if source is not None:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines = source.split("\n") if source is not None else None
    for diagnostic in report.diagnostics:
        assert CODE.match(diagnostic.code), diagnostic
        assert diagnostic.message, diagnostic
        if diagnostic.severity == "error":
            assert diagnostic.hint is None or diagnostic.hint.strip(), diagnostic
        if lines is None or (not positioned and diagnostic.span.line == 0):
            continue
        span = diagnostic.span
        assert 1 <= span.line <= len(lines), (diagnostic, len(lines))
        assert 1 <= span.column <= len(lines[span.line - 1]) + 1, (diagnostic, lines[span.line - 1])
    report.format_text()
    report.format_json()


def exercise(source: str, name: str) -> None:
    """Execute a generated module; roll each resolver once (defaults, seeded) and take its odds; make each
    track and mark it, each deck and draw from it.

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


@fuzz_settings(1200)
@given(rulesets())
def test_grammar_shaped_rulesets_build_or_are_refused_with_diagnostics(text: str) -> None:
    pipeline(text)


@fuzz_settings(700)
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
@given(st.integers(40, 3000), st.sampled_from(["parens", "neg", "not", "sum", "calls", "ifelse", "pools"]))
def test_deep_nesting_is_refused_or_built_never_a_recursion_error(depth: int, kind: str) -> None:
    pipeline(nested(depth, kind))


@pytest.mark.skipif(PROFILE != "fuzz", reason="whole rulesets take seconds each: the fuzz profile only")
@settings(settings.get_profile(PROFILE), max_examples=20)
@given(mutants(whole=True))
def test_mutated_whole_rulesets_build_or_are_refused_with_diagnostics(text: str) -> None:
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
        "TOO-LARGE", "this is nested too deeply: expressions nest at most 50 levels")
    assert errors[0][2] == 4


@pytest.mark.parametrize("kind", ["parens", "neg", "sum", "calls", "ifelse"])
def test_nesting_just_under_the_limit_builds(kind: str) -> None:
    assert pipeline(nested(45, kind)) is None
