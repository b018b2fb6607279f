"""Custom dice: faces declared once; a placeholder warns, builds, and is replaced in one place."""

from __future__ import annotations

from fractions import Fraction

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.diagnostics import Report
from tests.conftest import ROOT, compile_module

SOURCE = (ROOT / "tests" / "fixtures" / "dice_forms.rules").read_text(encoding="utf-8")
PLACEHOLDER = '''  set enemy.faces to placeholder
  add to enemy:
    - strike "Strike"
        count: 3
    - blank "Blank"
        count: 3
'''


def build(tmp_path, text: str, name: str):  # type: ignore[no-untyped-def]
    path = tmp_path / f"{name}.rules"
    path.write_text(text, encoding="utf-8")
    report = Report()
    loaded = load(str(path), report)
    return report, compile_module(generate(loaded.checked), f"dice_{name}")


def test_placeholder_faces_warn_and_still_build(tmp_path) -> None:  # type: ignore[no-untyped-def]
    report, module = build(tmp_path, SOURCE, "placeholder")
    assert [d.code for d in report.diagnostics if d.severity == "warning"] == ["PLACEHOLDER"]
    assert module.DICE["enemy"].symbols == ("strike",) * 3 + ("blank",) * 3
    # one attack die (hit 3/6 worth 1, double 1/6 worth 2, miss 2/6) against one enemy die (strike 1/2)
    assert module.odds("fight", combat=1, foes=1) == {"wound": Fraction(5, 12), "parried": Fraction(7, 12)}


def test_writing_the_real_faces_in_one_place_changes_every_roll(tmp_path) -> None:  # type: ignore[no-untyped-def]
    real = SOURCE.replace(PLACEHOLDER, '''  add to enemy:
    - strike "Strike"
        count: 5
    - blank "Blank"
''')
    assert real != SOURCE
    report, module = build(tmp_path, real, "real")
    assert not [d for d in report.diagnostics if d.severity == "warning"]
    # strike is now 5/6: a wound needs a double (2 beats any one strike) or a hit against a blank
    expected = Fraction(3, 6) * Fraction(1, 6) + Fraction(1, 6)
    assert module.odds("fight", combat=1, foes=1)["wound"] == expected


def test_faces_still_to_be_supplied_block_only_their_own_rolls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lost = SOURCE.replace(PLACEHOLDER, "")
    report, module = build(tmp_path, lost, "lost")
    assert [d.code for d in report.diagnostics if d.severity == "warning"] == []
    assert [d.code for d in report.diagnostics if d.severity == "note"] == ["MISSING"]
    assert module.odds("test", die="d6") == {"success": Fraction(1, 2), "failure": Fraction(1, 2)}
    try:
        module.fight(combat=1, foes=1)
    except ValueError as problem:
        assert "faces of the enemy die are to be supplied" in str(problem)
    else:
        raise AssertionError("a roll of a die without faces must say so")
