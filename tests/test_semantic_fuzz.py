"""A short seeded pass of the semantic fuzzer (tests/semantic_fuzz.py); `make fuzz` runs it long.

Every generated ruleset is refused with located errors or builds into products that agree (the module's
odds, the compiler's, the JSON's), rolls land on their bands and nothing raises but a ValueError with a
message. The tests below the pass hold the fuzzer itself to account: it generates what it claims to, its
property fails on a disagreement, a stray exception and a hang, and it shrinks a failing ruleset.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

import rulecraft.semantics.odds as odds_module
from rulecraft.api import load_text

from .semantic_fuzz import Timeout, budget, generate, run_case, shrink

SEEDS = range(1, 301)  # the pass: 300 rulesets, in chunks so that xdist workers share them
CHUNK = 50
PER_CASE = 10.0  # seconds: a ruleset past it is a failure (a hang), not a stuck run


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """Where the generated modules are written and imported from."""
    path = Path(tempfile.mkdtemp(prefix="rulecraft-semantic-fuzz-"))
    sys.path.insert(0, str(path))
    yield path
    sys.path.remove(str(path))
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("first", range(SEEDS.start, SEEDS.stop, CHUNK), ids=lambda s: f"seeds{s}-{s + CHUNK - 1}")
def test_generated_rulesets_are_refused_with_located_errors_or_build_into_products_that_agree(
        first: int, folder: Path) -> None:
    failures = []
    for seed in range(first, first + CHUNK):
        failure = run_case(generate(seed), folder, seed, PER_CASE)
        if failure is not None:
            failures.append(f"seed {seed}: {failure.text()[:300]}")
    assert not failures, ("rerun one with `python -m tests.semantic_fuzz -n 1 --seed SEED --out tmp/f`:\n"
                          + "\n".join(failures))


# ---------------------------------------------------------------- the fuzzer itself


def outcomes(seeds: range) -> tuple[list[str], int]:
    texts, built = [], 0
    for seed in seeds:
        text = generate(seed)
        texts.append(text)
        try:
            load_text(text, "fuzz.rules", "fuzz")
        except Exception:  # a refusal; a crash of the check is the pass's business, not this test's
            continue
        built += 1
    return texts, built


def test_the_generator_is_deterministic_and_writes_what_it_claims() -> None:
    assert generate(7) == generate(7) and generate(7) != generate(8)
    texts, built = outcomes(range(1, 201))
    assert 0.15 * len(texts) <= built <= 0.9 * len(texts), built  # both sides of the check are reached
    whole = "\n".join(texts)
    wanted = {
        "names that meet when joined": r"^roll a_b .*\n  input c:|^(roll|table) a .*\n  input b_c:",
        "a_b beside a__b or AB": r"^\w+ (a__b|AB|A_B) ",
        "a track or clock": r"^(track|clock) ", "a deck": r"^deck ", "a custom die": r"^die ",
        "names of the runtime and Python": r"^\w+ (type|random|rng|check_int|dice|keep) ",
        "a let named like an earlier let or input": r"^  let (\w+) = .*(\n  let .*)*\n  let \1 = ",
        "a formula naming itself": r"^formula (\w+) .*\n(  .*\n)*  value: \1 \+ 1",
        "keep highest and lowest": r"keep highest \d", "keep lowest": r"keep lowest \d",
        "exploding dice": r"d\d+(!| explode)", "a pool sized by an input": r"\(\w+\)d\d+",
        "a die sized by a choice": r"d\(\w+\)", "zero dice": r"zero_dice:|\b0d\d", "chains": r" -> \w+",
        "a chain picked by a flag": r" -> \w+ if \w+ else \w+", "gaps and overlaps": r"otherwise|natural \d+",
        "a type defined as itself": r"^type (\w+): \1$", "choices with numbers": r"one of \w+ \(\d+\)",
        "choices without numbers": r"one of [a-z_]\w*(,| =|$)", "flags": r": flag", "ranges": r": -?\d+\.\.-?\d+",
        "numbers near 10^18": r"9{17,18}|10{17}", "U+2029": "\u2029", "control characters": "\x1b",
        "jinja and html": r"\{\{|<script>", "a re-roll": r"^  reroll", "a lookup": r"^lookup ",
        "a track of ticks, by rank": r"^  ticks: \d+\n  ranks:",
    }
    missing = [what for what, pattern in wanted.items() if not re.search(pattern, whole, re.MULTILINE)]
    assert not missing, missing


def test_the_property_catches_a_disagreement_between_the_products(folder: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    text = 'ruleset "T"\n\nroll r "R" [T-1]\n  roll: d6\n  - 4+: hi "Hi"\n  - otherwise: lo "Lo"\n'
    assert run_case(text, folder, 1) is None
    real = odds_module.odds

    def skewed(resolver: object, inputs: object, names: object) -> dict[str, Fraction]:
        found = real(resolver, inputs, names)  # type: ignore[arg-type]
        return {k: v + Fraction(1, 100) if k == "hi" else v - Fraction(1, 100) for k, v in found.items()}

    monkeypatch.setattr(odds_module, "odds", skewed)
    failure = run_case(text, folder, 2)
    assert failure is not None and (failure.stage, failure.kind) == ("odds", "disagree"), failure


def test_the_property_catches_an_exception_and_names_where(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rulecraft.backends.render as render

    def broken(data: object) -> str:
        raise KeyError("boom")

    monkeypatch.setattr(render, "to_yaml", broken)
    failure = run_case('ruleset "T"\n\nrule r "R" [T-1]\n  text: "x"\n', folder, 3)
    assert failure is not None and (failure.stage, failure.kind) == ("export", "KeyError"), failure
    assert failure.where == "test_semantic_fuzz.py:broken"


def test_a_hang_is_a_failure_within_the_budget(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rulecraft.api as api

    def slow(*args: object) -> None:
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(api, "load_text", slow)
    start = time.perf_counter()
    failure = run_case('ruleset "T"\n', folder, 4, seconds=0.3)
    assert failure is not None and (failure.stage, failure.kind) == ("check", "timeout"), failure
    assert time.perf_counter() - start < 3
    with pytest.raises(Timeout), budget(0.05):
        time.sleep(1)


def test_shrinking_keeps_the_failure_and_drops_the_rest() -> None:
    text = generate(11) + 'roll culprit "C" [T-1]\n  input q: 0..3 = 1\n  roll: d6\n  - 1+: any "Any"\n'
    small = shrink(text, lambda t: "roll culprit" in t and "d6\n" in t)
    assert small.split("\n")[1:] == ["roll culprit \"C\" [T-1]", "  roll: d6", ""], small
