"""The parser's two paths give one answer, and its cache never stands in the way.

`syntax.parse` first runs a text through the fast path (Lark's LALR tables and
lexers, driven by one loop that builds the model as it reduces) and falls back
to Lark's own parser, `check_depth` and `ToModel` for anything unusual, which
alone words the diagnostics. The built parser is kept in the user's cache folder.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from compiler import model as m
from compiler import syntax
from compiler.diagnostics import CompileError
from compiler.syntax_examples import MISTAKES
from tests.conftest import ROOT
from tests.fuzz_strategies import rulesets

RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))


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


def full_pipeline(text: str, path: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What `parse` gives without the fast path: a model, or the diagnostics it raises."""
    with monkeypatch.context() as patch:
        patch.setattr(syntax, "_fast_parser", lambda: None)
        return outcome(text, path)


def outcome(text: str, path: str) -> Any:
    try:
        return everything(syntax.parse(text, path))
    except CompileError as error:
        return [(d.code, d.message, d.span, d.hint) for d in error.report.diagnostics]


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_the_fast_path_parses_every_ruleset_to_the_same_model_spans_included(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text(encoding="utf-8")
    fast = syntax._fast_parser()
    assert fast is not None, "this Lark no longer fits the fast path: every parse takes the slow one"
    model = fast.parse(text, syntax.ToModel(path.stem, str(path), text))  # no fallback: it must not give up
    assert isinstance(model, m.Ruleset)
    assert everything(model) == full_pipeline(text, str(path), monkeypatch)


SLIPS = [(mistake.code, example) for mistake in MISTAKES for example in mistake.examples]


def test_every_curated_mistake_gets_the_same_diagnostics_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(SLIPS) > 100
    for code, text in SLIPS:
        got = outcome(text, "mistake.rules")
        assert isinstance(got, list) and got, (code, text)  # a mistake is never parsed
        assert got == full_pipeline(text, "mistake.rules", monkeypatch), (code, text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(text=rulesets())
def test_random_rulesets_parse_alike_either_way(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert outcome(text, "random.rules") == full_pipeline(text, "random.rules", monkeypatch)


@pytest.fixture
def fresh_parser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """`parser()` and the fast path built again, with the cache in a folder of this test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    syntax.parser.cache_clear()
    syntax._fast_parser.cache_clear()
    yield tmp_path  # type: ignore[misc]
    syntax.parser.cache_clear()
    syntax._fast_parser.cache_clear()


SMALL = (ROOT / "rulesets" / "tides_of_gold.rules").read_text(encoding="utf-8")


def test_the_parser_is_cached_and_loaded_back(fresh_parser: Path) -> None:
    first = syntax.parse(SMALL, "t.rules")
    saved = list((fresh_parser / "rulecraft").glob("parser-*.pickle"))
    assert len(saved) == 1
    syntax.parser.cache_clear()
    syntax._fast_parser.cache_clear()
    assert everything(syntax.parse(SMALL, "t.rules")) == everything(first)


def test_a_damaged_cache_is_built_again(fresh_parser: Path) -> None:
    syntax.parse(SMALL, "t.rules")
    (saved,) = (fresh_parser / "rulecraft").glob("parser-*.pickle")
    header = saved.read_bytes().split(b"\n", 1)[0]
    for damage in (b"", b"garbage", header + b"\nnot a pickle", header + b"\n" + b"\x80\x04" * 50):
        saved.write_bytes(damage)
        syntax.parser.cache_clear()
        syntax._fast_parser.cache_clear()
        assert isinstance(syntax.parse(SMALL, "t.rules"), m.Ruleset)
        assert saved.read_bytes().startswith(header + b"\n") and len(saved.read_bytes()) > 1000  # saved anew


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_time(fresh_parser: Path) -> None:
    (fresh_parser / "rulecraft").write_text("a file where the folder would go")
    assert isinstance(syntax.parse(SMALL, "t.rules"), m.Ruleset)


def test_curated_mistakes_follow_the_parser_in_use_whose_states_another_build_numbered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lark numbers a parser's states its own way in each build (by the hash seed); the curated mistakes
    are recognised by state, so they are matched on the parser in use, also after it was replaced (a cache
    folder with a parser another process built)."""
    import os
    import subprocess
    import sys

    folders = []
    for seed in ("1", "2"):  # two builds whose states are numbered differently (checked below)
        folder = tmp_path / f"seed{seed}"
        subprocess.run([sys.executable, "-c", "from compiler.syntax import parser; parser()"], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(folder)}, timeout=120)
        folders.append(folder)
    broken = 'ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  - 7 to 9: ok "ok"\n'
    starts = []
    try:
        for folder in folders:
            monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
            syntax.parser.cache_clear()
            syntax._fast_parser.cache_clear()
            starts.append(syntax.parser().parser.parser._parse_table.start_states["start"])
            with pytest.raises(CompileError) as raised:
                syntax.parse(broken, "game.rules")
            assert [d.code for d in raised.value.report.diagnostics] == ["BAND-RANGE"]
        assert starts[0] != starts[1]
    finally:
        syntax.parser.cache_clear()
        syntax._fast_parser.cache_clear()
