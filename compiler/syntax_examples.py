"""Curated syntax mistakes: each example is both the data that names an error and a test.

Lark's `match_examples` re-parses every example and matches the failing
parser state of a real error against them, so a designer's `roll 2d6`
(missing colon) gets "put a colon after `roll`" instead of a token list.
tests/test_syntax_errors.py parses each example and asserts its code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from lark.exceptions import UnexpectedInput


@dataclass(frozen=True)
class Mistake:
    code: str
    hint: str
    examples: tuple[str, ...]


_HEAD = 'roll r "R" [X-1]\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "MISSING-COLON",
        "put a colon between an attribute's name and its value, like `roll: 2d6`",
        (_HEAD + "  roll 2d6\n", _HEAD + "  text \"x\"\n", _HEAD + "  size 4\n"),
    ),
    Mistake(
        "BAND-RANGE",
        "a band starts with its range and a colon, like `- 7-9: costly \"...\"`; "
        "ranges look like `7-9`, `10+`, `6 or less`, `less than 6`, `4/5` or `natural 12`",
        (_HEAD + "  - 7 to 9: costly\n", _HEAD + "  - 6 or: x\n", _HEAD + "  - less 6: x\n",
         _HEAD + "  - 10 +: x\n"),
    ),
    Mistake(
        "ENTRY-COLON",
        "after a band's range comes a colon, then its id and text: `- 10+: heroic \"...\"`",
        (_HEAD + "  - 10+ heroic\n", _HEAD + "  - 7-9 \"text\"\n"),
    ),
    Mistake(
        "DICE",
        "write dice with no space, like `2d6`, `d20` or `(rating)d6`",
        (_HEAD + "  roll: 2 d6\n", _HEAD + "  roll: d 6\n"),
    ),
    Mistake(
        "UNCLOSED-TEXT",
        'close the text with a `"` on the same line, or use `"""` for text over several lines',
        (_HEAD + '  text: "abc\n',),
    ),
    Mistake(
        "CITATION",
        "a citation looks like `[TOG-01, lines 7-17]`: inventory IDs, then `line N` or `lines A-B`",
        ('roll r "R" [tog-01]\n  roll: 2d6\n', 'roll r "R" [TOG-01, 7-17]\n  roll: 2d6\n',
         'roll r "R" [TOG-01\n  roll: 2d6\n'),
    ),
    Mistake(
        "EMPTY-BODY",
        "a definition needs an indented body under its first line (two spaces in)",
        ('roll r "R" [X-1]\nroll s "S" [X-2]\n  roll: 2d6\n', 'roll r "R" [X-1]\n'),
    ),
    Mistake(
        "UNKNOWN-KIND",
        "a definition starts with one of: roll, table, lookup, bands, formula, list, procedure, "
        "track, clock, rule (or section, type, errata)",
        ('rol r "R" [X-1]\n  roll: 2d6\n', 'tabel t "T" [X-1]\n  roll: d6\n'),
    ),
    Mistake(
        "INPUT",
        "an input looks like `input dots: 0..4 = 1`, `input bonus: flag` or "
        "`input market: one of scarce, normal, overflowing = normal`",
        (_HEAD + "  input dots 0..4\n", _HEAD + "  input dots: 0 to 4\n", _HEAD + "  input dots: 0..\n"),
    ),
    Mistake(
        "KEEP",
        "keep dice with `keep highest 2` or `keep lowest 2` (or just `highest`/`lowest` for one die)",
        (_HEAD + "  roll: 3d6 keep 2\n", _HEAD + "  roll: 3d6 keep top 2\n"),
    ),
    Mistake(
        "EXPRESSION",
        "an expression is numbers, names and dice joined by + - * /, like `2d6 + dots`",
        (_HEAD + "  roll: 2d6 +\n", _HEAD + "  roll: 2d6 + + 1\n", _HEAD + "  let x = \n"),
    ),
    Mistake(
        "TABLE-CELLS",
        'separate a row\'s cells with `|`, like `- 1-3: "Memories" | "Looters"`',
        (_HEAD + '  - 1-3: "Memories" "Looters"\n',),
    ),
)


MISSING_COLON = MISTAKES[0]


@cache
def _examples() -> dict[int, list[str]]:
    return {index: list(mistake.examples) for index, mistake in enumerate(MISTAKES)}


def match(error: UnexpectedInput) -> Mistake | None:
    from .syntax import parser

    try:
        label = error.match_examples(parser().parse, _examples(), use_accepts=True)
    except Exception:  # an example that fails oddly must never hide the real error
        return None
    return MISTAKES[label] if isinstance(label, int) else None


def _missing_colon(error: UnexpectedInput, line_text: str) -> bool:
    expected = getattr(error, "expected", None) or set()
    return "COLON" in expected and ":" not in line_text


def hint_for(error: UnexpectedInput, line_text: str) -> str | None:
    if _missing_colon(error, line_text):
        return MISSING_COLON.hint
    mistake = match(error)
    if mistake is not None:
        return mistake.hint
    stripped = line_text.strip()
    if stripped.startswith("-") and ":" not in stripped:
        return "an entry looks like `- 7-9: costly \"text\"` or `- \"text\"`"
    return "compare the line with the examples in docs/language.md"


def code_for(error: UnexpectedInput, line_text: str) -> str | None:
    if _missing_colon(error, line_text):
        return MISSING_COLON.code
    mistake = match(error)
    return mistake.code if mistake is not None else None
