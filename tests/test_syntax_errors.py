"""Syntax mistakes a designer makes: the curated table is the test data, and messages are exact."""

from __future__ import annotations

import pytest

from compiler.diagnostics import CompileError
from compiler.syntax import parse
from compiler.syntax_examples import MISTAKES

CASES = [(mistake.code, example) for mistake in MISTAKES for example in mistake.examples]


@pytest.mark.parametrize("code, example", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
@pytest.mark.parametrize("header", ["", 'ruleset "Game"\n\nsection "Rolls"\n\n'])
def test_every_curated_mistake_gets_its_own_code(code: str, example: str, header: str) -> None:
    with pytest.raises(CompileError) as raised:
        parse(header + example, "game.rules")
    assert [d.code for d in raised.value.report.diagnostics] == [code]


def message(text: str) -> str:
    with pytest.raises(CompileError) as raised:
        parse(text, "game.rules")
    return raised.value.report.format_text()


def test_missing_colon_message_is_exact() -> None:
    assert message('ruleset "E"\n\nroll r "R" [E-1]\n  roll 2d6\n') == (
        "game.rules:4:8: error[MISSING-COLON]: unexpected `2d6`; expected \":\", \"if\", the end of the line\n"
        "   4 |   roll 2d6\n"
        "              ^^^\n"
        "  hint: put a colon between an attribute's name and its value, like `roll: 2d6`\n"
        "1 error, 0 warnings")


def test_a_range_written_with_to_is_explained_on_a_band_and_on_an_input() -> None:
    band = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  - 7 to 9: ok "ok"\n')
    assert band.startswith("game.rules:5:7: error[BAND-RANGE]: unexpected `to`")
    assert "ranges look like `7-9`, `10+`, `6 or less`" in band
    entry = message('ruleset "E"\n\nroll r "R" [E-1]\n  input dots: 0 to 4\n  roll: 2d6\n')
    assert entry.startswith("game.rules:4:17: error[INPUT]: unexpected `to`")
    assert "an input looks like `input dots: 0..4 = 1`" in entry


def test_a_misspelt_definition_kind_lists_the_kinds() -> None:
    text = message('ruleset "E"\n\nrol r "R" [E-1]\n  roll: 2d6\n')
    assert text.startswith("game.rules:3:1: error[UNKNOWN-KIND]: unexpected `rol`")
    assert "a definition starts with one of: roll, table, lookup" in text
