"""The diagnostic codes are one enum (`diagnostics.Code`), and the table of codes in docs/reference.md is that
enum: the same codes, in the same order, each with what it means and a line that triggers it."""

from __future__ import annotations

import re

from rulecraft.diagnostics import Code

from .conftest import ROOT

ROW = re.compile(r"^\| `([A-Z][A-Z-]*)` \| (.*?) \| (.*?) \|$", re.M)


def test_the_readme_table_is_the_enum() -> None:
    rows = ROW.findall((ROOT / "docs" / "reference.md").read_text(encoding="utf-8"))
    assert rows == [(code.value, code.meaning, code.example) for code in Code]


def test_every_code_the_compiler_raises_is_in_the_enum() -> None:
    """Codes written in the compiler's source as text, where a call reports one, are all members."""
    used = set()
    for path in (ROOT / "compiler").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'(?:error|warning|Defect|SyntaxProblem|Mistake)\(\s*"([A-Z][A-Z-]+)"', text))
        used |= {Code[name].value for name in re.findall(r"Code\.([A-Z_]+)", text)}
    assert used and used <= {code.value for code in Code}
