"""Diagnostics: every message a designer sees, with its place, caret and hint.

Stages collect diagnostics in a `Report` instead of raising, so a file's
mistakes are all shown at once (sorted by position). `CompileError` carries a
report out of a stage that cannot go on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0


NOWHERE = Span()


class Code(StrEnum):
    """Every diagnostic code: what it means and a line that triggers it (docs/reference.md's table of codes is
    these, tested). A member is its code as text (`Code.TYPE == "TYPE"`), as the JSON output gives it."""

    meaning: str
    example: str

    def __new__(cls, code: str, meaning: str, example: str) -> Code:
        member = str.__new__(cls, code)
        member._value_ = code
        member.meaning = meaning
        member.example = example
        return member

    SYNTAX = 'SYNTAX', 'a line that does not parse and fits none of the mistakes below', '`roll: 2d6 ^ 2`'
    INDENT = 'INDENT', 'a line indented to a column no line above starts at', '` - 7-9: x` (one space)'
    TAB_INDENT = 'TAB-INDENT', 'a line indented with a tab', '`→text: "x"` (a tab)'
    UNEXPECTED_INDENT = ('UNEXPECTED-INDENT', 'a line indented deeper than the line above for no reason',
                         '`    text: "x"` under `  roll: 2d6`')
    BODY_NOT_INDENTED = ('BODY-NOT-INDENTED', "a definition's line written at column 1",
                         '`roll: 2d6` under `roll r "R" [X-1]`')
    EMPTY_BODY = ('EMPTY-BODY', "nothing indented under a definition's first line",
                  '`roll r "R" [X-1]`, then the next definition')
    EMPTY_VALUE = 'EMPTY-VALUE', '`name:` with nothing after it and no block under it', '`roll:`'
    UNKNOWN_KIND = ('UNKNOWN-KIND', 'a definition that starts with no kind (did you mean...)',
                    '`tabel loot "Loot" [X-1]`')
    MISSPELT_KEYWORD = ('MISSPELT-KEYWORD', 'a word close to a keyword that fits there (did you mean...)',
                        '`roll: 3d6 keep hightest 2`')
    MISSING_NAME = 'MISSING-NAME', 'a definition with no name', '`roll "Action roll" [X-1]`'
    NAME_DIGIT = 'NAME-DIGIT', 'a name starting with a digit', '`roll 2nd_roll "R" [X-1]`'
    NAME_HYPHEN = 'NAME-HYPHEN', 'a name with a `-`', '`roll action-roll "R" [X-1]`'
    UNQUOTED_LABEL = 'UNQUOTED-LABEL', "a definition's label without quotes", '`roll r Action roll [X-1]`'
    LABEL_ORDER = 'LABEL-ORDER', 'the label after the citation', '`roll r [X-1] "Action roll"`'
    HEADER_COLON = 'HEADER-COLON', "a colon at the end of a definition's first line", '`roll r "R" [X-1]:`'
    UNQUOTED_TITLE = 'UNQUOTED-TITLE', 'a section or ruleset title without quotes', '`section Primary actions`'
    TYPE_COLON = 'TYPE-COLON', '`type` without its colon', '`type wealth 0..5`'
    CITATION_ID = 'CITATION-ID', 'an inventory ID not in capitals', '`roll r "R" [c-1]`'
    CITATION_LINES = 'CITATION-LINES', 'line numbers without `line`/`lines`', '`roll r "R" [C-1, 7-17]`'
    CITATION_COMMA = 'CITATION-COMMA', 'citation parts without commas', '`roll r "R" [C-1 line 7]`'
    LINE_RANGE = 'LINE-RANGE', '`line 7-9`, `lines 7` or `lines 7 to 9`', '`roll r "R" [C-1, line 7-9]`'
    UNCLOSED_CITATION = ('UNCLOSED-CITATION', 'a `[` never closed (reported where it opens)',
                         '`roll r "R" [C-1, lines 7-9`')
    MISSING_COLON = 'MISSING-COLON', 'an attribute without its colon', '`roll 2d6 + wealth`'
    EQUALS_FOR_COLON = 'EQUALS-FOR-COLON', '`=` where an attribute takes `:`', '`roll = 2d6`'
    LET_EQUALS = 'LET-EQUALS', '`:` where a `let` takes `=`', '`let bonus: 1`'
    IF_TEST = 'IF-TEST', '`if` with no test', '`roll if: 3d6`'
    INPUT_COLON = 'INPUT-COLON', 'an input without its colon', '`input dots 0..4`'
    RANGE_DOTS = 'RANGE-DOTS', 'a range of values not written `A..B`', '`input dots: 1-4`'
    INPUT_DEFAULT = 'INPUT-DEFAULT', 'a default value without `=`', '`input dots: 0..4 1`'
    CHOICE_COMMAS = 'CHOICE-COMMAS', 'options of `one of` without commas', '`input market: one of scarce normal`'
    MISSING_VALUE = 'MISSING-VALUE', 'nothing after `=`', '`let bonus =`'
    DICE_SPACE = 'DICE-SPACE', 'dice written with a space', '`roll: 2d 6`'
    DICE_NOTATION = 'DICE-NOTATION', 'dice-roller shorthand', '`roll: 4d6 kh3`'
    KEEP = 'KEEP', '`keep` without `highest` or `lowest`', '`roll: 3d6 keep 2`'
    DANGLING_OPERATOR = 'DANGLING-OPERATOR', 'a sign with nothing after it', '`roll: 2d6 +`'
    MISSING_OPERATOR = 'MISSING-OPERATOR', 'two values with nothing between them', '`roll: 2d6 dots`'
    TIMES_X = 'TIMES-X', '`x` used to multiply', '`value: dots x 2`'
    COMPARE_ORDER = 'COMPARE-ORDER', '`=>` or `=<`', '`- when total => 10: success`'
    DICE_HERE = 'DICE-HERE', 'an exploding die where no dice are rolled: a band key, a default, an option', '`- d6!: x`'
    EXPLODE_LIMIT = ('EXPLODE-LIMIT', '`at most N times` or `once` after dice that do not explode',
                     '`roll: d6 at most 2`')
    OPERATOR_WORDS = 'OPERATOR-WORDS', '`&&`, `\\|\\|` or `!` for and, or, not', '`- when total >= 10 && bonus: x`'
    DECIMAL = 'DECIMAL', 'a number with a decimal point', '`roll: 2d6 * 1.5`'
    UNCLOSED_PAREN = 'UNCLOSED-PAREN', 'a `(` never closed (reported where it opens)', '`roll: (dots + 1d6`'
    STRAY_CLOSE = 'STRAY-CLOSE', 'a `)` that closes nothing', '`roll: dots + 1)`'
    UNCLOSED_TEXT = 'UNCLOSED-TEXT', 'text without its closing quote', '`text: "Roll 2d6.`'
    UNCLOSED_LONG_TEXT = 'UNCLOSED-LONG-TEXT', 'a `"""` text never closed', '`text: """Roll 2d6.`'
    UNQUOTED_TEXT = 'UNQUOTED-TEXT', 'text without quotes', '`text: Player rolls dice`'
    SINGLE_QUOTES = 'SINGLE-QUOTES', 'text in single quotes', "`text: 'Roll 2d6.'`"
    CURLY_QUOTE = 'CURLY-QUOTE', 'a curly quote pasted from a PDF or word processor', '`text: “Roll 2d6.”`'
    UNICODE_DASH = 'UNICODE-DASH', 'an en dash, em dash or minus sign for `-`', '`- 7–9: costly`'
    ODD_SPACE = 'ODD-SPACE', 'an invisible space (no-break, zero-width, ...)', '`roll:` + a no-break space + `2d6`'
    BOM = 'BOM', 'the file starts with a byte-order mark', '(saved as "UTF-8 with BOM")'
    BAND_RANGE = 'BAND-RANGE', "a band's range in a form Rulecraft does not read", '`- 7 to 9: costly`'
    RANGE_OPEN = 'RANGE-OPEN', '`6-` for "6 or less"', '`- 6-: failure`'
    REROLL_FACES = 'REROLL-FACES', '`reroll` without faces written as a range', '`roll: 2d6 reroll 1s`'
    ENTRY_COLON = 'ENTRY-COLON', 'a band without the colon after its range', '`- 10+ heroic "..."`'
    EMPTY_KEY = 'EMPTY-KEY', 'a band with nothing before its colon', '`- : costly "..."`'
    NATURAL_NUMBER = 'NATURAL-NUMBER', '`natural` without its total', '`- natural: advantage`'
    WHEN_TEST = 'WHEN-TEST', '`when` without its test', '`- when: success`'
    OTHERWISE_RANGE = 'OTHERWISE-RANGE', '`otherwise` with a range', '`- otherwise 7: failure`'
    TABLE_CELLS = 'TABLE-CELLS', "a row's cells without `\\|` between them", '`- 1-3: "Memories" "Looters"`'
    CHAIN_TARGET = 'CHAIN-TARGET', '`->` without the next table', '`- 7-9: "..." ->`'
    CHAIN_SEVERAL = ('CHAIN-SEVERAL', 'a table rolled several times, or several tables, written otherwise than '
                     '`-> gems x2` or `-> weather, foes`', '`- 6: "Hoard" -> gems twice`')
    FLAG_LINE = 'FLAG-LINE', 'a flag written on a line of its own, not under `flags:`', '`flag match: doubles(g)`'
    COLUMNS_COLON = 'COLUMNS-COLON', '`columns by ...` without its colon', '`columns by position`'
    ERRATA_ID = 'ERRATA-ID', 'an errata entry without its ID in capitals', '`errata "Fix the gap"`'
    RESOLVES_IN = 'RESOLVES-IN', '`resolves:` without `in`', '`resolves: RANGE-GAP consequence_clock`'
    RESOLVES_CODE = 'RESOLVES-CODE', 'a check code not in capitals', '`resolves: range-gap in consequence_clock`'
    FIX_TO = 'FIX-TO', '`set`/`move` without `to`', '`set healing_clock.size 4`'
    PATH = 'PATH', 'a fix naming more than a definition and one of its lines', '`set healing_clock.size.max to 4`'
    RANGE_BACKWARDS = 'RANGE-BACKWARDS', 'a range whose first number is the larger', '`- 9-7: costly`'
    POOL = 'POOL', "a number between a pool's `)` and its `d`", '`roll: (rating)2d6`'
    NO_FILE = 'NO-FILE', 'no such ruleset, or it cannot be read', '`rulecraft check my_gmae`'
    BAD_CHARACTER = 'BAD-CHARACTER', 'not a UTF-8 text file (a NUL byte, another encoding)', 'a file saved as UTF-16'
    TOO_LARGE = ('TOO-LARGE', 'past a hard limit: file size, digits, nesting, sides, boxes, entries, chain length',
                 '`roll: 2d6 + 1234567890123456789`')
    UNDEFINED = 'UNDEFINED', 'a name that is no input, let, option or definition (did you mean...)', '`roll: 2d6 + dot`'
    DUPLICATE = ('DUPLICATE', 'two definitions, inputs, lets, bands, faces or cards with one name',
                 'a second `roll action_roll ...`')
    RESERVED_NAME = ('RESERVED-NAME',
                     ("a name the generated Python module cannot use (a definition named like Python or the module's "
                      "own names; an input named `rng` or `seed`, like a Python word, or starting with `_`)"),
                     '`roll class "Class" [X-1]`')
    TYPE = 'TYPE', 'a value of the wrong kind, or an attribute a kind does not take', '`size: "four"`'
    NO_DICE = 'NO-DICE', 'a roll or table without `roll:`', '`table loot "Loot" [X-1]` with rows only'
    EVAL = 'EVAL', 'an expression that fails for some input', '`value: 10 / (dots - 1)` with `dots` 1'
    MISSING = ('MISSING',
               'W: a value the document lost, written `unknown` (an error: a card without the pile its deck splits by)',
               '`size: unknown`')
    NO_SOURCE = ('NO-SOURCE', 'W: a definition citing no inventory ID, in a ruleset whose header declares a '
                 '`source:` it transcribes (an original game has none)', '`roll r "R" [line 7]`')
    RANGE_GAP = 'RANGE-GAP', 'W: totals of the roll no band takes', '`- 7-9` and `- 11+` on `2d6` (10 is missing)'
    RANGE_OVERLAP = 'RANGE-OVERLAP', 'W: totals two bands take', '`- 6-8` and `- 8-10`'
    UNREACHABLE = 'UNREACHABLE', 'W: a band that can never come up', '`- 13+` on `2d6`'
    DIE_ROWS = 'DIE-ROWS', 'W: a table whose rows fit no standard die', '7 rows of `1`..`7`'
    DUP = 'DUP', 'W: a list with the same entry twice', '`- "Cause harm"` twice'
    COUNT = ('COUNT',
             'W: a declared count that differs from the entries (an error: die faces that do not cover `sides:`)',
             '`count: 6` over five entries')
    TRUNCATED = 'TRUNCATED', 'W: text that stops mid-sentence', '`text: "face a complication (and mark"`'
    XREF = 'XREF', 'W: a page reference outside the ruleset, or `see:` naming nothing', '`text: "see page 12"`'
    CHAIN_LOOP = 'CHAIN-LOOP', 'W: `->` chains that lead back to themselves', '`- 1: -> zone_2` in `zone_1` and back'
    PLACEHOLDER = ('PLACEHOLDER', 'W: dice faces or cards supplied by an erratum, not from the document',
                   '`set attack.faces to placeholder`')
    UNRESOLVED_ERRATA = ('UNRESOLVED-ERRATA', 'W: an errata entry whose defect is no longer found',
                         '`resolves: RANGE-GAP in action_roll` once fixed')
    TEMPLATE = 'TEMPLATE', 'a custom sheet template that fails', '`{{ nosuch.name }}` in a template'
    PDF_ENGINE = ('PDF-ENGINE',
                  'PDFs asked for where WeasyPrint cannot load (its system libraries, Pango and others, missing)',
                  '`rulecraft build --format pdf` without Pango')

Severity = Literal["error", "warning", "note"]

MAX_SHOWN = 50
MAX_OUTPUT_BYTES = 20_000_000  # characters of one output file (module, JSON, YAML, sheet): refused, not written


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: Code
    message: str
    path: str
    span: Span = NOWHERE
    hint: str | None = None
    notes: tuple[str, ...] = ()
    item: str | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)


@dataclass
class Report:
    """Diagnostics of one run, with the source text of each file for carets."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def add(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def error(self, code: Code, message: str, path: str, span: Span = NOWHERE, hint: str | None = None,
              item: str | None = None) -> None:
        self.add(Diagnostic("error", code, message, path, span, hint, item=item))

    def warning(self, code: Code, message: str, path: str, span: Span = NOWHERE,
                hint: str | None = None, notes: tuple[str, ...] = (), item: str | None = None) -> None:
        self.add(Diagnostic("warning", code, message, path, span, hint, notes, item))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=Diagnostic.sort_key)

    def counts(self) -> tuple[int, int]:
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        warnings = sum(1 for d in self.diagnostics if d.severity == "warning")
        return errors, warnings

    # -------------------------------------------------------------- output

    def format_text(self, limit: int = MAX_SHOWN, colour: bool = False) -> str:
        """Every diagnostic (the first `limit`), then the counts. With `colour`, for a terminal: control
        characters already escaped (see `escape_controls`) and the severity, code and caret in colour."""
        shown = self.sorted()
        lines: list[str] = []
        for diagnostic in shown[:limit]:
            lines.append(format_diagnostic(diagnostic, self.sources.get(diagnostic.path), colour))
        if len(shown) > limit:
            lines.append(f"... and {len(shown) - limit} more")
        errors, warnings = self.counts()
        if shown:
            lines.append(f"{plural(errors, 'error')}, {plural(warnings, 'warning')}")
        return "\n".join(lines)

    def format_json(self) -> str:
        return json.dumps(
            {
                "diagnostics": [
                    {
                        "severity": d.severity,
                        "code": d.code,
                        "message": d.message,
                        "path": d.path,
                        "line": d.span.line,
                        "column": d.span.column,
                        "end_line": d.span.end_line,
                        "end_column": d.span.end_column,
                        "hint": d.hint,
                        "notes": list(d.notes),
                        "item": d.item,
                    }
                    for d in self.sorted()
                ],
                "errors": self.counts()[0],
                "warnings": self.counts()[1],
            },
            indent=2,
            ensure_ascii=False,
        )


def plural(count: int, word: str) -> str:
    """`1 error`, `2 errors`."""
    return f"{count} {word}" + ("" if count == 1 else "s")


SHOWN_WIDTH = 100  # characters of a source line a diagnostic shows (a longer line: the part around the caret)


# What a terminal would act on instead of showing: C0 controls but tab and newline, DEL, C1 controls (ESC [,
# ESC ], CSI, OSC: move the cursor, clear the screen, set the window title) and the bidirectional overrides
# (text shown in another order than it is stored).
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character written out visibly (ESC as `\\x1b`); tab and newline kept."""
    return CONTROLS.sub(_escaped, text) if CONTROLS.search(text) else text


# Colours of a diagnostic on a terminal (SGR sequences): the severity and code, and the caret line.
COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
BOLD, RESET = "\x1b[1m", "\x1b[0m"


def format_diagnostic(diagnostic: Diagnostic, source: str | None, colour: bool = False) -> str:
    """`path:line:col: severity[CODE]: message`, the line, a caret under the span, the hint. With `colour`:
    the text's control characters escaped, and the severity, code and caret coloured by severity."""
    text = format_plain(diagnostic, source)
    if not colour:
        return text
    paint = COLOURS.get(diagnostic.severity, BOLD)
    lines = escape_controls(text).split("\n")
    head = f"{diagnostic.severity}[{diagnostic.code}]"
    first, found, rest = lines[0].partition(f": {head}: ")
    if found:
        lines[0] = f"{BOLD}{first}:{RESET} {paint}{head}{RESET}: {rest}"
    for index, line in enumerate(lines[1:], 1):
        if line.strip() and set(line.strip()) == {"^"} and index >= 2:
            lines[index] = f"{line[:len(line) - len(line.lstrip())]}{paint}{line.lstrip()}{RESET}"
    return "\n".join(lines)


def format_plain(diagnostic: Diagnostic, source: str | None) -> str:
    """A diagnostic as plain text: its place and message, the source line with a caret, notes and hint."""
    span = diagnostic.span
    where = diagnostic.path
    if span.line:
        where += f":{span.line}:{span.column}"
    out = [f"{where}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}"]
    if source is not None and span.line:
        lines = [line.rstrip("\r") for line in source.split("\n")]  # as the parser counts lines
        if 0 < span.line <= len(lines):
            text = lines[span.line - 1].expandtabs(1)
            gutter = f"{span.line:>4} | "
            start = max(span.column - 1, 0)
            if span.end_line == span.line and span.end_column > span.column:
                width = span.end_column - span.column
            else:
                width = max(len(text.rstrip()) - start, 1)
            if len(text) > SHOWN_WIDTH:  # a long line: the part around the caret, not 40 kB of it
                first = max(0, min(start - SHOWN_WIDTH // 4, len(text) - SHOWN_WIDTH))
                last = first + SHOWN_WIDTH
                text = ("…" if first else "") + text[first:last] + ("…" if last < len(text) else "")
                start = start - first + (1 if first else 0)
                width = min(width, SHOWN_WIDTH - (start - (1 if first else 0)))
            out.append(gutter + text)
            out.append(" " * len(gutter) + " " * start + "^" * max(width, 1))
    for note in diagnostic.notes:
        out.append(f"  note: {note}")
    if diagnostic.hint:
        out.append(f"  hint: {diagnostic.hint}")
    return "\n".join(out)


class CompileError(Exception):
    """A stage found errors; the report says which."""

    def __init__(self, report: Report) -> None:
        super().__init__(report.format_text())
        self.report = report


def output_too_large(what: str, path: str, limit: int, span: Span = NOWHERE) -> CompileError:
    """The hard cap on an output file's size, as a diagnostic at the definition being written (or line 1)."""
    report = Report()
    report.error(Code.TOO_LARGE, f"the {what} would be more than {limit:,} characters; the limit is {limit:,}"
                 + (" (reached while writing this definition)" if span.line else ""), path,
                 span if span.line else Span(1, 1, 1, 2),
                 "split the game into several rulesets, or shorten what repeats (long tables, big tracks, choices)")
    return CompileError(report)
