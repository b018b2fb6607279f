"""The design analyzer on the documents' own defects, written exactly as published: one fixture per class.

Each fixture in tests/fixtures/defects/ says what `check` must report, as `# expect: CODE at LINE`
comments; the test holds the analyzer to exactly those warnings, at those lines, and no others.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulecraft.api import load
from rulecraft.diagnostics import Report

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "defects").glob("*.rules"))
EXPECT = re.compile(r"^# expect: ([A-Z-]+) at (\d+)$", re.M)


def test_every_checkable_defect_class_of_the_inventory_has_a_fixture() -> None:
    classes = {code for path in FIXTURES for code, _ in EXPECT.findall(path.read_text(encoding="utf-8"))}
    assert classes >= {"RANGE-GAP", "RANGE-OVERLAP", "DIE-ROWS", "DUP", "COUNT", "MISSING", "XREF", "TRUNCATED",
                       "UNREACHABLE", "CHAIN-LOOP"}


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_a_published_defect_is_reported_where_it_is(path: Path) -> None:
    expected = sorted((code, int(line)) for code, line in EXPECT.findall(path.read_text(encoding="utf-8")))
    assert expected, f"{path.name} says nothing about what to expect"
    report = Report()
    load(str(path), report)
    found = sorted((d.code, d.span.line) for d in report.diagnostics)
    assert found == expected
    assert all(d.severity == "warning" and d.hint for d in report.diagnostics if d.code != "MISSING")


def test_a_band_beyond_the_roll_says_what_the_roll_gives() -> None:
    report = Report()
    load(str(Path(__file__).parent / "fixtures" / "defects" / "unreachable.rules"), report)
    assert [d.message for d in report.diagnostics] == [
        "band `8-9` of `reaction` is beyond the roll, which gives 1-6",
        "band `10-12` of `reaction` is beyond the roll, which gives 1-6"]
