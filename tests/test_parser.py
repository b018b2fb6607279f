"""The parser: one path on Lark's public API, a model that follows the text's meaning, a cache that never
stands in the way.

`syntax.parse` runs every text through Lark's LALR parser, `check_depth` and the `ToModel` transformer;
the curated mistakes (tests/test_syntax_errors.py) word its errors. Here: the model of every ruleset and
fixture is the same after `rulecraft fmt` and after its whitespace is scrambled, its spans point at what
they name, and the built parser kept in the cache folder (Lark's `cache=`) parses as a fresh one does.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark.exceptions import UnexpectedToken

import rulecraft.syntax.parse as syntax
from rulecraft import model as m
from rulecraft.diagnostics import CompileError
from rulecraft.syntax.fmt import format_checked
from rulecraft.syntax.mistakes import MISTAKES, clean
from tests.conftest import ROOT
from tests.fuzz_strategies import rulesets
from tests.test_fmt import perturb

SOURCES = sorted([*(ROOT / "rulesets").glob("*.rules"), *(ROOT / "tests" / "fixtures").rglob("*.rules")])


def everything(node: Any) -> Any:
    """A model as plain data, spans and exact types included (model equality leaves spans out)."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__, tuple((f.name, everything(getattr(node, f.name)))
                                           for f in dataclasses.fields(node)))
    if isinstance(node, (tuple, list)):
        return (type(node).__name__, tuple(everything(item) for item in node))
    if isinstance(node, dict):
        return ("dict", tuple((everything(k), everything(v)) for k, v in node.items()))
    return (type(node).__name__, node)


def nodes(node: Any) -> Iterator[Any]:
    """Every dataclass in a model, the root first."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        yield node
        for f in dataclasses.fields(node):
            yield from nodes(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from nodes(item)


NAMED = {m.Item: "name", m.Input: "name", m.Let: "name", m.Attr: "name", m.Name: "name", m.OptionKey: "name",
         m.NamedType: "name", m.Errata: "id"}


def spans_point_at_their_text(model: m.Ruleset, text: str) -> int:
    """Each named node's span covers its name in `text`; every span lies in the text. Returns how many named."""
    lines = (text if text.endswith("\n") else text + "\n").replace("\r\n", "\n").split("\n")  # as parse reads it
    named = 0
    for node in nodes(model):
        span = getattr(node, "span", None)
        if not isinstance(span, m.Span) or span == m.NOWHERE:
            continue
        assert 1 <= span.line <= span.end_line <= len(lines), (node, span)
        assert (span.line, span.column) < (span.end_line, span.end_column), (node, span)
        field = NAMED.get(type(node))
        if field is not None:
            assert span.line == span.end_line, (node, span)
            assert lines[span.line - 1][span.column - 1:span.end_column - 1] == getattr(node, field), (node, span)
            named += 1
    return named


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_ruleset_and_fixture_keeps_its_model_through_fmt_and_scrambled_whitespace(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    model = syntax.parse(text, str(path))
    assert spans_point_at_their_text(model, text) > 0
    for seed, variant in enumerate((format_checked(text), perturb(text, random.Random(1)),
                                    perturb(text, random.Random(2)))):
        other = syntax.parse(variant, str(path))
        assert other == model, f"variant {seed} of {path.name} parses to another model"
        spans_point_at_their_text(other, variant)
    assert everything(syntax.parse(format_checked(text), str(path))) == everything(syntax.parse(
        format_checked(format_checked(text)), str(path)))  # spans included, once the layout is fmt's


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(text=rulesets(), seed=st.integers(0, 2**16))
def test_random_rulesets_parse_to_the_same_model_after_fmt_and_scrambling(text: str, seed: int) -> None:
    try:
        model = syntax.parse(text, "random.rules")
    except CompileError as error:  # refused: fmt leaves it alone, and it is refused the same way again
        codes = [d.code for d in error.report.diagnostics]
        with pytest.raises(CompileError) as again:
            syntax.parse(text, "random.rules")
        assert [d.code for d in again.value.report.diagnostics] == codes
        return
    spans_point_at_their_text(model, text)
    assert syntax.parse(format_checked(text), "random.rules") == model
    assert syntax.parse(perturb(text, random.Random(seed)), "random.rules") == model


# ---------------------------------------------------------------- the parser kept in the cache folder


@pytest.fixture
def cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """`parser()` built again, with the cache folder in this test's own folder (and as it was after)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    syntax.parser.cache_clear()
    yield tmp_path
    syntax.parser.cache_clear()


SMALL = (ROOT / "rulesets" / "tides_of_gold.rules").read_text(encoding="utf-8")


def outcomes() -> list[Any]:
    """The model of every ruleset (spans included) and the diagnostics of every curated mistake."""
    found: list[Any] = [everything(syntax.parse(path.read_text(encoding="utf-8"), path.name))
                        for path in SOURCES if path.parent.name == "rulesets"]
    for mistake in MISTAKES:
        with pytest.raises(CompileError) as raised:
            syntax.parse(clean(mistake.examples[0])[0], "mistake.rules")
        found.append([(d.code, d.message, d.span, d.hint) for d in raised.value.report.diagnostics])
    return found


def test_the_parser_is_kept_loaded_back_and_built_again_when_damaged(cache_home: Path) -> None:
    built = outcomes()
    (saved,) = (cache_home / "rulecraft").glob("parser-*.lark")
    os.utime(saved, ns=(10**18, 10**18))  # Lark writes the file whenever it builds the parser
    syntax.parser.cache_clear()
    assert outcomes() == built
    assert saved.stat().st_mtime_ns == 10**18, "the parser was built again, not loaded"
    size = saved.stat().st_size
    for damage in (b"", b"garbage", saved.read_bytes()[:size // 2], saved.read_bytes()[:70] + b"\x80\x04" * 50):
        saved.write_bytes(damage)
        os.utime(saved, ns=(10**18, 10**18))
        syntax.parser.cache_clear()
        assert isinstance(syntax.parse(SMALL, "t.rules"), m.Ruleset)
        assert saved.stat().st_mtime_ns != 10**18 and saved.stat().st_size > size // 2  # saved anew
    syntax.parser.cache_clear()
    assert outcomes() == built


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_time(cache_home: Path) -> None:
    (cache_home / "rulecraft").write_text("a file where the folder would go")
    assert isinstance(syntax.parse(SMALL, "t.rules"), m.Ruleset)


def test_curated_mistakes_follow_the_parser_in_use_whose_states_another_build_numbered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark numbers a parser's states its own way in each build (by the hash seed); the curated mistakes
    are recognised by state, so they are matched on the parser they are given, also after it was replaced
    (a cache folder with a parser another process built)."""
    broken = 'ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  - 7 to 9: ok "ok"\n'
    states = []
    try:
        for seed in ("1", "2"):  # two builds whose states are numbered differently (checked below)
            folder = tmp_path / f"seed{seed}"
            subprocess.run([sys.executable, "-c", "from rulecraft.syntax.parse import parser; parser()"], check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(folder)}, timeout=120)
            monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
            syntax.parser.cache_clear()
            with pytest.raises(UnexpectedToken) as failed:
                syntax.parser().parse(broken)
            states.append(getattr(failed.value.state, "position", failed.value.state))
            with pytest.raises(CompileError) as raised:
                syntax.parse(broken, "game.rules")
            assert [d.code for d in raised.value.report.diagnostics] == ["BAND-RANGE"]
        assert states[0] != states[1]
    finally:
        syntax.parser.cache_clear()
