"""The printed form of a band's test (`model.condition_text`, through `model.expr_text`) is the language's own:
`=`, never Python's `==`, with the parentheses its meaning needs, so the text printed on the sheet, in the
odds table, in the JSON and in a roll's trace parses back to the same test."""

from __future__ import annotations

import json

import pytest

from rulecraft import model as m
from rulecraft.api import load_text
from rulecraft.backends.render import export_data
from rulecraft.syntax.parse import parse

TESTS = (
    "total = dv",
    "total == dv",
    "total ≥ 10",
    "total != 12 and bonus",
    "(total > dv or bonus) and total != 12",
    "total > dv or bonus and total != 12",
    "not (bonus or total = 2)",
    "not total = 2",
    "(not bonus) = yes",
    "(total = 2) = bonus",
    "total - (dv - 2) > 0",
    "total - dv - 2 > 0",
    "-(total + dv) * 2 < 0",
    "total / (dv * 2) = 1",
    "total % 3 = 0",
    "(dv if bonus else 2) + total > 7",
    "total > (dv if bonus else 2)",
    "total = dv if bonus else total = 2",
    "(total = dv if bonus else no) or total = 12",
    "total > 1 if (bonus if yes else no) else no",
    "count(6) >= 2 and not bonus",
    "max(total, dv) - min(2, dv) >= 3",
    "total >= (dv)d6",
    "total = 2d6 keep highest 1 + 1",
    'mood = "d10"',
    "total > -2 - -dv",
)


def _test_of(text: str) -> m.Expr:
    ruleset = parse(f'ruleset "T"\nroll r "R" [X-1]\n  roll: 2d6\n  - when {text}: a "A"\n', "t.rules")
    key = ruleset.items[0].entries[0].key
    assert isinstance(key, m.When)
    return key.test


@pytest.mark.parametrize("text", TESTS)
def test_printed_test_parses_back_to_the_same_test(text: str) -> None:
    test = _test_of(text)
    printed = m.condition_text(m.When(test))
    assert printed.startswith("when ")
    assert "==" not in printed
    assert _test_of(printed.removeprefix("when ")) == test, printed


def test_equals_prints_as_the_language_writes_it() -> None:
    assert m.condition_text(m.When(_test_of("total == dv"))) == "when total = dv"
    assert m.condition_text(m.When(_test_of("(total > dv or bonus) and total = 12"))) \
        == "when (total > dv or bonus) and total = 12"


RULES = """ruleset "T"
roll r "R" [X-1]
  input dv: 2..12 = 7
  input bonus: flag
  roll: 2d6
  - when total = dv: "Exact"
  - when (total > dv or bonus) and total != 12: "Over"
  - otherwise: "Else"
"""
LABELS = ["when total = dv", "when (total > dv or bonus) and total != 12", "otherwise"]


def test_the_json_names_bands_as_the_language_writes_them() -> None:
    # the odds and a roll's trace: tests/fixtures/constructs/band_text.md
    data = json.dumps(export_data(load_text(RULES, "t.rules", "t").checked), ensure_ascii=False)
    assert "==" not in data
    for label in LABELS:
        assert f'"id": {json.dumps(label, ensure_ascii=False)}' in data
