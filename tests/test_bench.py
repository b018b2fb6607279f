"""The benchmark suite keeps running: a quick pass of two sections, in the project's own environment.

No time is asserted (speed is `make bench`'s report, measured as ratios in one run). Without the
bench environment's d20 and icepool, their comparisons must say n/a rather than fail. What is
asserted is what the bench's verdicts rest on: each hand-written twin rolls the distribution of
its generated resolver, and the chi-square test that says so tells a fair die from a loaded one.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from bench.stats import chi_square, chi_square_sf

from .conftest import ROOT


def test_a_quick_bench_run_writes_a_report_with_its_summary(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--only", "resolvers,odds", "--output",
                           str(report)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = report.read_text(encoding="utf-8")
    assert "## 1. Resolvers: one call" in text and "## 2. Exact odds against icepool" in text
    summary = text.split("## Summary", 1)[1]
    assert summary.count("a plain twin (inputs changing every call, rng given)") == 4
    assert summary.count("a plain twin (inputs changing every call, rng omitted)") == 4
    for group in ("sums", "keep highest / lowest", "highest of N with a critical", "success counts",
                  "issue 23 mechanics"):
        assert f"exact odds, {group}:" in summary
    assert "the section runs" not in summary  # no section raised
    twins = text.split("### 1.1", 1)[1].split("### 1.2", 1)[0]
    rows = [line for line in twins.splitlines() if line.startswith("| ") and "mechanic" not in line]
    assert len(rows) == 4 and all(row.rstrip(" |").endswith("yes") for row in rows), twins


@pytest.mark.parametrize(("statistic", "dof", "p"), [(3.841458820694124, 1, 0.05), (18.307038053275146, 10, 0.05),
                                                      (0.5, 3, 0.918891411654676), (9.21034037197618, 2, 0.01)])
def test_chi_square_tail_matches_the_tables(statistic: float, dof: int, p: float) -> None:
    assert chi_square_sf(statistic, dof) == pytest.approx(p, rel=1e-9)


def test_chi_square_tells_a_fair_die_from_a_loaded_one() -> None:
    fair = {str(face): Fraction(1, 6) for face in range(1, 7)}
    rng = random.Random(5)
    honest = Counter(str(rng.randint(1, 6)) for _ in range(6000))
    loaded = Counter(rng.choices("123456", weights=(3, 3, 3, 3, 3, 4))[0] for _ in range(6000))  # a 6 in 5.3
    assert chi_square(honest, fair).p > 0.001
    assert chi_square(loaded, fair).p < 1e-6
    assert chi_square(Counter({"7": 1, **honest}), fair).impossible == ("7",)


def test_the_cold_odds_empty_the_compilers_caches() -> None:
    """Section 2 times exact odds from cold: it finds the odds module's `forget()` and lru_caches by their
    module names, and emptying them leaves nothing for the next call to reuse."""
    import rulecraft.semantics.odds as odds
    from bench.context import clear_compiler_caches, compiler_caches
    from rulecraft import api

    hooks = compiler_caches()
    assert {"rulecraft.semantics.odds.forget", "rulecraft.semantics.odds._readings",
            "rulecraft.semantics.odds._cost"} <= set(hooks)
    assert not any(hook.startswith(("rulecraft.syntax.", "rulecraft.backends.")) for hook in hooks)
    text = 'ruleset "Cold"\n\nroll r "r" [C-1]\n  roll: 3d6\n  - 1-10: low "Low"\n  - 11+: high "High"\n'
    loaded = api.load_text(text, "<test>", "cold")
    resolver = next(d for d in loaded.checked.definitions if d.name == "r")
    odds.odds(resolver, {}, odds.definition_names(loaded.checked))
    assert odds._readings.cache_info().currsize > 0
    clear_compiler_caches()
    assert odds._readings.cache_info().currsize == 0 and odds._cost.cache_info().currsize == 0 and not odds._ANALYSES
