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
        (_HEAD + "  - 7 to 9: costly\n", _HEAD + "  - 6 or: x\n", _HEAD + "  - less 6: x\n"),
    ),
    Mistake(
        "ENTRY-COLON",
        "after a band's range comes a colon, then its id and text: `- 10+: heroic \"...\"`",
        (_HEAD + "  - 10+ heroic\n", _HEAD + "  - 7-9 \"text\"\n"),
    ),
    Mistake(
        "DICE",
        "write dice with no space, like `2d6`, `d20` or `(rating)d6`",
        (_HEAD + "  roll: d 6\n", _HEAD + "  roll: 2d 6\n"),
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
        (_HEAD + "  roll: 2d6 +\n", _HEAD + "  roll: 2d6 * * 1\n", _HEAD + "  let x = \n"),
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
    # Each example is tried at the top of a file and after a ruleset header: the parser is in a
    # different state in each place, and match_examples compares states.
    headers = ("", 'ruleset "Example"\n\n', 'ruleset "Example"\n\nsection "Rolls"\n\n')
    return {index: [header + example for example in mistake.examples for header in headers]
            for index, mistake in enumerate(MISTAKES)}


def _signature(error: UnexpectedInput) -> tuple[object, str | None]:
    """Where the parser stood (its LALR state) and what it met: how two mistakes are the same."""
    state = getattr(error, "state", None)
    position = getattr(state, "position", state)
    token = getattr(error, "token", None)
    return position, getattr(token, "type", None)


def _lead(line_text: str) -> str:
    """The first word of the failing line (`input`, `-`, `roll`): LALR merges states, the line does not."""
    words = line_text.split()
    return words[0] if words else ""


@cache
def _signatures() -> tuple[tuple[tuple[object, str | None], str, int], ...]:
    from .syntax import parser

    found: list[tuple[tuple[object, str | None], str, int]] = []
    for index, examples in _examples().items():
        for example in examples:
            try:
                parser().parse(example)
            except UnexpectedInput as error:
                lines = example.splitlines()
                line = lines[error.line - 1] if 0 < getattr(error, "line", 0) <= len(lines) else ""
                found.append((_signature(error), _lead(line), index))
            except Exception:  # an example failing another way names nothing
                continue
    return tuple(found)


def match(error: UnexpectedInput, line_text: str = "") -> Mistake | None:
    """The curated mistake whose example failed in the same parser state on the same kind of token.

    (Lark's own match_examples does this too, but its debug logging breaks on contextual-lexer
    errors, so the comparison is done here.)
    """
    position, token = _signature(error)
    same = [(lead, index) for (p, t), lead, index in _signatures() if p == position and t == token]
    chosen = [index for lead, index in same if lead == _lead(line_text)] or [index for _, index in same]
    return MISTAKES[chosen[0]] if chosen else None


def _missing_colon(error: UnexpectedInput, line_text: str) -> bool:
    expected = getattr(error, "expected", None) or set()
    return "COLON" in expected and ":" not in line_text


def hint_for(error: UnexpectedInput, line_text: str) -> str | None:
    mistake = match(error, line_text)
    if mistake is not None:
        return mistake.hint
    if _missing_colon(error, line_text):
        return MISSING_COLON.hint
    stripped = line_text.strip()
    if stripped.startswith("-") and ":" not in stripped:
        return "an entry looks like `- 7-9: costly \"text\"` or `- \"text\"`"
    return "compare the line with the examples in docs/language.md"


def code_for(error: UnexpectedInput, line_text: str) -> str | None:
    mistake = match(error, line_text)
    if mistake is not None:
        return mistake.code
    return MISSING_COLON.code if _missing_colon(error, line_text) else None
