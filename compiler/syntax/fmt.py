"""Format: one canonical layout for a ruleset, comments kept, meaning proven unchanged.

The formatter changes whitespace only; it never splits, joins or rewrites a
token. Per line it sets

- the indentation: two spaces per level, and four under an entry (`- ...`) so an
  entry's attributes line up with its text;
- the spacing between tokens: ranges, citations and errata paths are tight
  (`7-9`, `10+`, `4/5`, `[TOG-01, lines 7-17]`); expressions have one space
  around binary operators (`2d6 + dots`) and none after a unary minus; one space
  after `:` and `,`, none before; two spaces before a trailing comment;
- blank lines: at most one inside a body, at most two between definitions, at
  least one before a definition that follows a body; none at the start, one
  newline at the end.

Multi-line `\"\"\"` text moves with its line (its value is dedented, so it is
unchanged). Whether a word touches a following `(` (`d(x)` is a die, `d (x)` a
call) is kept as written, and so is whether `)` touches a word (`(n)d6`).

Before anything is written, the formatted text is parsed again and its tree
compared with the original's, strings by value: if they differ, formatting
stops with an error and the file is left alone. A file that does not parse is
not formatted; its diagnostics are shown instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lark import Token, Tree

_TOKEN = re.compile(
    r'(?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*")'
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\r?\n)"
    r"|(?P<space>[ \t\f\v]+)"
    r"|(?P<word>(?:[A-Z]+-)+\d+[a-z]?(?![A-Za-z0-9_])|[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![A-Za-z0-9_])"
    r"|\d+(?:,\d{3})+(?!\d)|[A-Za-z0-9_]+|—)"
    r"|(?P<op>->|\.\.|>=|<=|==|!=|!|[:,|()\[\]+\-*/%=<>≥≤×.])"
    r"|(?P<other>.)",
    re.S,
)

_BINARY = {"+", "-", "*", "/", "%", "×", "=", "==", "!=", ">=", "<=", ">", "<", "≥", "≤", "->", "|"}
_KEYWORDS = {"if", "else", "and", "or", "not", "to", "in", "by", "of", "keep", "add", "at", "when"}
_TIGHT = {"..", "."}
_OPENERS = {"roll", "table", "lookup", "bands", "formula", "list", "procedure", "track", "clock", "rule", "die",
            "deck", "priority", "section", "errata"}


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # string, comment, word, op, other
    text: str
    touching: bool  # no whitespace between this token and the one before it on the line


@dataclass
class Line:
    indent: int  # the written indentation, tabs counted as 8
    tokens: list[Tok]
    verbatim: str | None = None  # a continuation line inside brackets: kept as written


class FormatError(Exception):
    """The formatted text would not mean the same as the original (a formatter bug): nothing is written."""


def split_lines(text: str) -> list[Line]:
    """Source -> physical lines of tokens; a multi-line string stays one token on the line it starts on."""
    lines: list[Line] = []
    current: list[Tok] = []
    indent = 0
    at_start = True
    touching = True
    depth = 0
    continuation = False
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        value = match.group()
        if kind == "newline":
            lines.append(Line(indent, current, verbatim=None))
            if continuation:
                lines[-1].verbatim = text[_line_start(text, match.start()):match.start()].rstrip()
            continuation = depth > 0
            current, indent, at_start, touching = [], 0, True, True
            continue
        if kind == "space":
            if at_start:
                indent = len(value.expandtabs(8))
            touching = False
            continue
        if value in ("(", "["):
            depth += 1
        elif value in (")", "]"):
            depth = max(depth - 1, 0)
        current.append(Tok(kind, value, touching and not at_start))
        at_start, touching = False, True
    if current or not lines:
        lines.append(Line(indent, current))
        if continuation:
            lines[-1].verbatim = text[_line_start(text, len(text)):].rstrip()
    return lines


def _line_start(text: str, position: int) -> int:
    return text.rfind("\n", 0, position) + 1


def _ends_value(tok: Tok | None) -> bool:
    if tok is None:
        return False
    if tok.kind in ("string",) or tok.text == "!":  # `d6!`: an exploding die is a value
        return True
    if tok.kind == "word":
        return tok.text not in _KEYWORDS
    return tok.text in (")", "]")


def join_tokens(tokens: list[Tok]) -> str:
    """One line's tokens with canonical spacing (see the module docstring)."""
    if not tokens:
        return ""
    entry = tokens[0].kind == "op" and tokens[0].text == "-"
    key_end = _key_end(tokens) if entry else -1
    key_is_range = entry and key_end > 1 and tokens[1].text != "when"
    move = tokens[0].text == "move"
    errata_fix = tokens[0].text in ("move", "set", "drop")  # `move r[7-9] to ...`: a path touches its `[`
    out: list[str] = []
    bracket = 0
    after_to = False
    face_plus = {i for i, tok in enumerate(tokens)  # `d10! on 9+ at most 3 times`: the `+` touches its face
                 if tok.text == "+" and i >= 2 and tokens[i - 2].text == "on" and tokens[i - 1].text.isdigit()}
    faces = False  # in the face test after `reroll`, where `1-2` and `1 - 2` differ (the grammar's FACE_ terminals)
    for index, tok in enumerate(tokens):
        prev = tokens[index - 1] if index else None
        tight_context = bracket > 0 or (key_is_range and 0 < index <= key_end) or after_to
        faces = prev is not None and (prev.text == "reroll" or (faces and (
            tok.text in _FACE_WORDS or tok.text == "," or tok.text.isdigit())))
        if index == 0 or index in face_plus:
            out.append(tok.text)
        elif index - 1 in face_plus:
            out.append(("" if tok.text in (":", ",", ")", "]") else "  " if tok.kind == "comment" else " ") + tok.text)
        elif faces and prev is not None and (tok.text in ("-", "/", "+") or prev.text in ("-", "/", "+")):
            out.append(("" if tok.touching else " ") + tok.text)  # kept as written: tight is a range, spaced a sum
        else:
            out.append(_gap(prev, tok, tokens[index - 2] if index > 1 else None, tight_context,
                            entry and index == 1, errata_fix) + tok.text)
        if tok.text == "[":
            bracket += 1
        elif tok.text == "]":
            bracket = max(bracket - 1, 0)
        if move and tok.text == "to" and bracket == 0:
            after_to = True
    return "".join(out)


_FACE_WORDS = frozenset({"-", "/", "+", "or", "less", "lower", "fewer", "more", "higher", "than"})


def _key_end(tokens: list[Tok]) -> int:
    """The index of the `:` that ends an entry's key, or -1 (`- "text"` has no key)."""
    depth = 0
    for index, tok in enumerate(tokens[1:], start=1):
        if tok.kind == "string" or tok.text == "->":
            return -1
        if tok.text in ("(", "["):
            depth += 1
        elif tok.text in (")", "]"):
            depth -= 1
        elif tok.text == ":" and depth == 0:
            return index
    return -1


def _gap(prev: Tok | None, tok: Tok, before_prev: Tok | None, tight: bool, after_lead: bool, path: bool) -> str:
    """The whitespace between `prev` and `tok`: "" or " " (or two spaces before a comment)."""
    assert prev is not None
    if tok.kind == "comment":
        return "  "
    if after_lead:
        return " "
    if tok.kind == "other" or prev.kind == "other":
        return "" if tok.touching else " "
    if tok.text in (":", ",", ")", "]", "!") or tok.text in _TIGHT or prev.text in _TIGHT:
        return ""
    if prev.text in ("(", "["):
        return ""
    if prev.text in (":", ","):
        return " "
    if tok.text == "[":
        return "" if path and prev.kind == "word" else " "
    if tok.text == "(":
        if prev.kind == "word" or prev.text in (")", "]"):
            return "" if tok.touching else " "
        return " "
    if prev.text == ")" and tok.kind == "word":
        return "" if tok.touching else " "
    if tight:
        words = prev.kind in ("word", "string") and tok.kind in ("word", "string")
        return " " if words else ""
    if prev.text in _BINARY and prev.kind == "op":
        unary = prev.text in ("-", "+") and not _ends_value(before_prev)
        return "" if unary else " "
    return " "


def format_source(text: str) -> str:
    """The canonical layout of `text` (which must parse); raises FormatError if meaning would change."""
    lines = split_lines(text.replace("\r\n", "\n"))
    out: list[str] = []
    stack: list[tuple[int, int]] = [(0, 0)]  # (written indent, canonical indent)
    previous_code: Line | None = None
    in_comments = False  # the line before was a comment (blank lines aside)
    blanks = 0
    for index, line in enumerate(lines):
        if line.verbatim is not None:
            out.append(line.verbatim)
            continue
        if not line.tokens:
            blanks += 1
            continue
        comment = line.tokens[0].kind == "comment"
        target = _next_code(lines, index) if comment else line
        indent = _canonical_indent(stack, target, previous_code, peek=comment) if target else 0
        opens = target is not None and target.tokens[0].text in _OPENERS
        _flush_blanks(out, blanks, indent, previous_code, separate=not in_comments, opens=opens)
        blanks = 0
        in_comments = comment
        if comment:
            out.append(" " * indent + line.tokens[0].text.rstrip())
            continue
        body = join_tokens([_reindent_string(t, indent - line.indent) for t in line.tokens])
        out.append(" " * indent + body.rstrip())
        previous_code = line
    formatted = "\n".join(out).strip("\n") + "\n"
    return formatted


def _next_code(lines: list[Line], index: int) -> Line | None:
    for line in lines[index + 1:]:
        if line.tokens and line.tokens[0].kind != "comment" and line.verbatim is None:
            return line
    return None


def _canonical_indent(stack: list[tuple[int, int]], line: Line, previous: Line | None, peek: bool) -> int:
    """Where `line` starts in the canonical layout; updates the block stack unless peeking."""
    work = list(stack)
    if line.indent > work[-1][0]:
        opener_is_entry = previous is not None and previous.tokens[0].text == "-"
        work.append((line.indent, work[-1][1] + (4 if opener_is_entry else 2)))
    else:
        while len(work) > 1 and line.indent < work[-1][0]:
            work.pop()
    if not peek:
        stack[:] = work
    return work[-1][1]


def _flush_blanks(out: list[str], blanks: int, indent: int, previous: Line | None, separate: bool,
                  opens: bool) -> None:
    """Blank lines before a line at `indent`: the written ones, capped; when `separate`, one at least
    where a top-level line follows a body or starts a definition (`opens`), or a comment above one does."""
    if not out:
        return
    if indent == 0:
        count = min(blanks, 2)
        if separate and count == 0 and previous is not None and (previous.indent > 0 or opens):
            count = 1
    else:
        count = min(blanks, 1)
    out.extend([""] * count)


def _reindent_string(tok: Tok, shift: int) -> Tok:
    """A multi-line `\"\"\"` string moved `shift` columns with its line, when that cannot change its value."""
    if tok.kind != "string" or not tok.text.startswith('"""') or "\n" not in tok.text or shift == 0:
        return tok
    first, *rest = tok.text.split("\n")
    if first[3:].strip():
        return tok  # text on the opening line: its value is not dedented, so it cannot move
    if shift < 0 and any(line.strip() and len(line) - len(line.lstrip(" ")) < -shift for line in rest):
        return tok
    moved = [(" " * shift + line if shift > 0 else line[min(-shift, len(line) - len(line.lstrip(" "))):])
             if line.strip() else line for line in rest]
    return Tok(tok.kind, "\n".join([first, *moved]), tok.touching)


# ---------------------------------------------------------------- proof


def same_meaning(original: str, formatted: str) -> bool:
    """Both texts parse to the same tree, comparing strings by their value and ignoring positions."""
    from .parse import parser

    return _same(parser().parse(_terminated(original)), parser().parse(_terminated(formatted)))


def _terminated(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _same(a: object, b: object) -> bool:
    from .parse import decode_string

    if isinstance(a, Tree) and isinstance(b, Tree):
        return a.data == b.data and len(a.children) == len(b.children) and all(
            _same(x, y) for x, y in zip(a.children, b.children, strict=True))
    if isinstance(a, Token) and isinstance(b, Token):
        if a.type != b.type:
            return False
        if a.type == "STRING":
            return decode_string(str(a)) == decode_string(str(b))
        return str(a) == str(b)
    return a == b


def format_checked(text: str) -> str:
    """`format_source`, then the proof: raises FormatError rather than return a text that means otherwise."""
    formatted = format_source(text)
    if formatted != text and not same_meaning(text, formatted):
        first = next((i for i, (x, y) in enumerate(zip(text.splitlines(), formatted.splitlines(), strict=False))
                      if x != y), 0)
        raise FormatError(f"formatting would change the meaning near line {first + 1}; the file was left as "
                          "it is (please report this)")
    if format_source(formatted) != formatted:
        raise FormatError("formatting is not stable on this file; the file was left as it is (please report this)")
    return formatted
