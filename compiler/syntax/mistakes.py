"""Curated syntax mistakes: each example is both the data that names an error and a test.

Every `Mistake` is a slip a hurried designer makes, with its own code, a message that says what is
wrong and a hint that shows the right form. Its examples are real broken lines; `«` and `»` mark
where the caret must go (`«»`: one caret at that column). They serve twice:

- matching: like Lark's `match_examples`, each example is parsed and the parser state it fails in
  is recorded; a real error failing in the same state on the same kind of token is that mistake.
  Where LALR merges states, `where` narrows it: a regex searched in the failing line with `⁁`
  standing for the place the parser stopped (`(?P<from>...)` and `(?P<to>...)` widen the caret).
  Mistakes with trigger "anywhere" are recognised by `where` in any state (pasted characters,
  dice-roller shorthand) or by a near-miss of a keyword; "unclosed" ones by a bracket still open
  from an earlier line; "indent" ones come from the indenter.
- testing: tests/test_syntax_errors.py parses every example and asserts its code and that the
  caret is exactly under the marked text.

`diagnose(failure, built)` turns a parse failure into code, message, hint and caret span. It is given
the built parser the failure happened in (`built`: its states number the signatures, its terminals
are the words); this module imports nothing of the compiler's.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Literal

from lark.exceptions import UnexpectedInput

from ..diagnostics import Code

if TYPE_CHECKING:
    from lark import Lark

Trigger = Literal["state", "anywhere", "unclosed", "indent"]
Place = Literal["token", "gap", "to-end", "indent"]

MARK = "⁁"  # in a `where` regex: the place in the line where the parser stopped


@dataclass(frozen=True)
class Mistake:
    """One designer's slip.

    `message` and `hint` may use {token} (the text under the caret), {prev} (the word before
    the error), {lead} (the first word of the line), {char} and {char_name} (a character),
    {with_colon} (the line with the colon put in), {suggestion}, {indent} and {column}.
    `expects`: terminals of which the parser must accept one where it stopped (`ROLL`: a definition
    may start here); with `!`, one it must not accept.
    `place`: "token" puts the caret under the offending text (widened by `where`'s groups),
    "gap" at the spot where something is missing (just after the last word before the error),
    "to-end" from the offending text to the end of its line, "indent" under the indentation.
    """

    code: Code
    message: str
    hint: str
    examples: tuple[str, ...]
    where: str | None = None
    trigger: Trigger = "state"
    place: Place = "token"
    near_keyword: bool = False
    expects: tuple[str, ...] = ()

    @property
    def filtered(self) -> bool:
        return self.where is not None or self.near_keyword or bool(self.expects)

    @property
    def pattern(self) -> re.Pattern[str] | None:
        return _compile(self.where) if self.where is not None else None


@cache
def _compile(where: str) -> re.Pattern[str]:
    return re.compile(where.replace(MARK, "\x00"))


_HEAD = 'roll r "R" [X-1]\n'
_ROLL = _HEAD + "  roll: 2d6\n"
_ERRATA = 'errata D-X-1 "Fix" [X-1]\n'

KINDS = ("roll", "table", "lookup", "bands", "formula", "list", "procedure", "track", "clock", "rule", "die",
         "deck", "priority")
TOP_WORDS = (*KINDS, "section", "type", "errata", "ruleset")
BODY_WORDS = ("input", "let", "columns", "resolves", "move", "set", "drop", "add")
KEY_WORDS = ("natural", "when", "otherwise", "less", "more")

_UNQUOTED = r"⁁(?P<to>[^\[\n#]*[^\[\n#\s])"  # text up to a citation's `[` or the end of the line

MISTAKES: tuple[Mistake, ...] = (
    # ------------------------------------------------------------ characters pasted from elsewhere
    Mistake(
        Code.CURLY_QUOTE,
        "`{char}` is a curly quote (pasted from a word processor or a PDF?)",
        'type a straight double quote `"` instead: `text: "Roll 2d6."`',
        (_HEAD + "  text: «“»Roll 2d6.”\n", _HEAD + "  text: «”»x”\n", _HEAD + "  label: «‘»x’\n"),
        where="⁁[“”„‟‘’‚‛]", trigger="anywhere",
    ),
    Mistake(
        Code.UNICODE_DASH,
        "`{char}` is the {char_name}, not a plain hyphen",
        "type a plain hyphen `-` instead, like `7-9` (`—` alone is an empty table cell)",
        (_ROLL + "  - 7«–»9: costly\n", _ROLL + "  - 7«—»9: costly\n", _HEAD + "  roll: 2d6 «−» 1\n"),
        where="⁁[\u2010-\u2015\u2212\ufe63\uff0d]", trigger="anywhere",
    ),
    Mistake(
        Code.BOM,
        "the file starts with an invisible byte-order mark",
        "save the file as `UTF-8` without a BOM (your editor's encoding setting), or delete the first character",
        ("«\ufeff»ruleset \"Game\"\n",),
        where="^⁁\ufeff", trigger="anywhere",
    ),
    Mistake(
        Code.ODD_SPACE,
        "an invisible {char_name} (pasted from a PDF or a web page?)",
        "delete it and type an ordinary space: `roll: 2d6`",
        (_HEAD + "  roll:«\u00a0»2d6\n", _HEAD + "  roll: 2d6«\u200b»\n", _HEAD + "  roll: 2d6 +«\u2009»1\n",
         _HEAD + "  roll: 2d6«\x0c»\n", 'roll ac«\u00ad»tion "R" [X-1]\n  roll: 2d6\n'),
        where="⁁[\u00a0\u00ad\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u2060\u3000\ufeff\x0b\x0c\x85]",
        trigger="anywhere",
    ),
    Mistake(
        Code.SINGLE_QUOTES,
        "text in single quotes",
        "put text in double quotes: `text: \"Roll 2d6.\"` (a `'` inside double quotes is fine)",
        (_HEAD + "  text: «'»Roll 2d6.'\n", _ROLL + "  - 7-9: costly «'»a cost'\n"),
        where="⁁'", trigger="anywhere",
    ),
    Mistake(
        Code.DICE_HERE,
        "`{token}` is an exploding die, and no dice are rolled here",
        "roll dice in `roll:` (like `roll: d6!`) or in an outcome's data (`damage: d6!`); here write a number, "
        "a range or a name, and a name holds no `!`",
        (_ROLL + "  - «d6!»: x\n", _HEAD + "  input n: 1..3 = «d6!»\n", _HEAD + "  input n: one of «d10!», b\n",
         "type t: one of «d12!», b\n"),
        where=r"(?P<from>(?<![\w])\d*[dD](?:\d+|[fF%]))⁁(?P<to>!)(?!=)", trigger="anywhere",
    ),
    Mistake(
        Code.EXPLODE_LIMIT,
        "`{token}` limits how often a die explodes, and these dice do not explode",
        "put `!` (or `!!`, to compound) before it: `d6! at most 2 times`, `d10! on 9+ once`",
        (_HEAD + "  roll: d6 «at most 2»\n", _HEAD + "  roll: 3d6 «at most 2 times» + 1\n",
         _HEAD + "  roll: d(die) «once»\n", _HEAD + "  roll: 3d6 keep highest 2 «once»\n"),
        where=r"(?:\d*[dD](?:\d+|[fF%]|\([^()\n]*\))|highest|lowest|\b\d+)\s+⁁(?P<to>at\s+most\s+\d+(?:\s+times?\b)?|once\b)",
        trigger="anywhere",
    ),
    Mistake(
        Code.FLAG_LINE,
        "`{token}`: flags are written under `flags:`, one on each line",
        "write `flags:`, then each flag on the next lines, indented: `    match: doubles(challenge)`",
        (_ROLL + "  «flag match»: doubles(challenge)\n", _ROLL + "  «flags glitch»: count(pool = 1) > 3\n"),
        where=r"^\s*(?P<from>flags?)\s+⁁(?P<to>\w+)\s*:", trigger="anywhere",
    ),
    Mistake(
        Code.OPERATOR_WORDS,
        "`{token}` is not a Rulecraft operator",
        "write the words `and`, `or`, `not`, like `- when total >= 10 and not bonus: ...`",
        (_ROLL + "  - when total >= 10 «&&» bonus: x\n", _ROLL + "  - when total >= 10 «||» bonus: x\n",
         _ROLL + "  - when «!»bonus: x\n"),
        where=r"⁁(?P<to>&&?|\|\||!(?!=))", trigger="anywhere",
    ),
    Mistake(
        Code.DECIMAL,
        "`{token}`: Rulecraft counts in whole numbers",
        "multiply and divide instead: `dots * 3 / 2` (division rounds down)",
        (_HEAD + "  roll: 2d6 * «1.5»\n", _HEAD + "  size: «2.5»\n"),
        where=r"(?P<from>\d+)⁁(?P<to>\.\d+)", trigger="anywhere",
    ),
    # ------------------------------------------------------------ text and brackets left open
    Mistake(
        Code.UNCLOSED_LONG_TEXT,
        'this `"""` text is never closed',
        'end text over several lines with `"""` on a line of its own, or use one line: `text: "..."`',
        (_HEAD + '  text: «"""Roll 2d6.»\n  roll: 2d6\n',),
        where='(?P<from>"")⁁"', trigger="anywhere", place="to-end",
    ),
    Mistake(
        Code.UNCLOSED_TEXT,
        "this text has no closing quote",
        'close the text with a `"` on the same line: `text: "Roll 2d6."`; use `"""` for text over several lines',
        (_HEAD + '  text: «"Roll 2d6.»\n', _ROLL + '  - 7-9: costly «"costly success»\n',
         'roll r «"Action roll [X-1]»\n  roll: 2d6\n'),
        where=r'⁁"(?:[^"\\\n]|\\.)*$', trigger="anywhere", place="to-end",
    ),
    Mistake(
        Code.UNCLOSED_CITATION,
        "this citation's `[` is never closed",
        "end the citation with `]`: `[C-1, lines 7-17]`",
        ('roll r "R" «[X-1, lines 7-9»\n  roll: 2d6\n', 'roll r "R" «[X-1»\n  roll: 2d6\n  - 7-9: x\n'),
        where=r"⁁\[", trigger="unclosed", place="to-end",
    ),
    Mistake(
        Code.UNCLOSED_PAREN,
        "this `(` is never closed",
        "close every `(` on the same line: `roll: (dots + 1)d6`",
        (_HEAD + "  roll: «(dots + 1d6»\n  - 7-9: x\n", _HEAD + "  roll: max«(dots, 1»\n"),
        where=r"⁁\(", trigger="unclosed", place="to-end",
    ),
    Mistake(
        Code.STRAY_CLOSE,
        "this `{token}` closes nothing",
        "check the brackets: each `)` closes one `(` on the same line, like `(dots + 1)d6`",
        (_HEAD + "  roll: dots + 1«)»\n", _HEAD + "  roll: (dots + 1)«)»d6\n"),
        where=r"^(?:[^()\n]|\([^()\n]*\))*⁁\)", trigger="anywhere",
    ),
    # ------------------------------------------------------------ indentation
    Mistake(
        Code.TAB_INDENT,
        "this line is indented with a tab",
        "indent with spaces only, two per level: `  roll: 2d6`",
        (_HEAD + "  roll: 2d6\n«\t»text: \"x\"\n", _HEAD + "  roll: 2d6\n« \t»text: \"x\"\n",
         _ROLL + "  - 7-9: x\n      harm: 1\n«\t»more: 2\n"),
        trigger="indent", place="indent",
    ),
    Mistake(
        Code.INDENT,
        "this line is indented by {indent}, but no line above starts at that column",
        "line it up with a line above it ({column}): a definition's lines start two spaces in, a band's data "
        "four further, like `      harm: 1` under `  - 7-9: costly`",
        (_ROLL + "« »- 7-9: x\n", _ROLL + "  - 7-9: x\n      harm: 1\n«     »more: 2\n"),
        trigger="indent", place="indent",
    ),
    Mistake(
        Code.UNEXPECTED_INDENT,
        "this line is indented more than the line above it",
        "line it up with the line above; only a band or a line ending in `:` takes indented lines, like "
        "`  - 7-9: costly` then `      harm: 1`",
        (_HEAD + "  roll: 2d6\n«    »text: \"x\"\n", _ROLL + "  - 7-9: x\n      harm: 2\n«        »more: 3\n"),
        trigger="indent", place="indent",
    ),
    # ------------------------------------------------------------ a definition's first line
    Mistake(
        Code.BODY_NOT_INDENTED,
        "this line is not indented, so it belongs to no definition",
        "indent a definition's lines two spaces under its first line: `  roll: 2d6`",
        (_HEAD + "«roll»: 2d6\n", _HEAD + "«text»: \"x\"\n", _HEAD + "«-» 7-9: x\n", _HEAD + "«input» dots: 0..4\n",
         _ROLL + "«text»: \"x\"\n", _ROLL + "«-» 7-9: x\n"),
        where=r"^⁁(?P<to>-|[A-Za-z_]\w*(?=\s*(?:\bif\b[^:]*)?:)|input(?=\s)|let(?=\s))",
        trigger="anywhere", expects=("_INDENT", "ROLL"),
    ),
    Mistake(
        Code.EMPTY_BODY,
        "nothing is indented under this line",
        "indent the lines that belong to it two spaces further in, like `  roll: 2d6` under `roll action_roll ...`",
        ('roll r "R" [X-1]«»\nroll s "S" [X-2]\n  roll: 2d6\n', 'roll r "R" [X-1]«»\n',
         'roll r "R" [X-1]«»\n\nsection "S"\n', 'list r«»\ntable t [X-2]\n  roll: d6\n'),
        where=r"^⁁|^\S.*⁁$", trigger="anywhere", place="gap", expects=("_INDENT", "!ROLL"),
    ),
    Mistake(
        Code.UNKNOWN_KIND,
        "`{token}` is not a kind of definition",
        "a definition starts with one of roll, table, lookup, bands, formula, list, procedure, track, clock, "
        "rule, die, deck, priority (or section, type, errata), like `table loot \"Loot\" [X-1]`",
        ("«tabel» t \"T\" [X-1]\n  roll: d6\n", "«rol» r \"R\" [X-1]\n  roll: 2d6\n",
         "«weapon» sword \"Sword\" [X-1]\n  text: \"x\"\n", "«Roll» r \"R\" [X-1]\n  roll: 2d6\n",
         _ROLL + "«procdure» p \"P\" [X-2]\n  - \"x\"\n", "«rulset» \"Game\"\n"),
        where=r"^⁁(?P<to>[A-Za-z_]\w*)", trigger="anywhere", expects=("ROLL",),
    ),
    Mistake(
        Code.MISSPELT_KEYWORD,
        "`{token}` is not a word Rulecraft knows here",
        "did you mean `{suggestion}`? Rulecraft's own words are lower case, like `keep highest 2`",
        (_HEAD + "  roll: 3d6 «kepe» highest 2\n", _HEAD + "  roll: 3d6 keep «hightest» 2\n",
         _HEAD + "  «inptu» dots: 0..4\n", _ROLL + "  - 6 or «lesss»: x\n", _ROLL + "  - «naturl» 12: x\n",
         _HEAD + "  «Input» dots: 0..4\n"),
        trigger="anywhere", near_keyword=True,
    ),
    Mistake(
        Code.MISSING_NAME,
        "this {lead} has no name",
        "put a name (letters, digits and `_`) between the kind and the label: "
        "`roll action_roll \"Action roll\" [X-1]`",
        ('roll «"Action roll"» [X-1]\n  roll: 2d6\n', "table «[»X-1]\n  roll: d6\n",
         'list «"Tricks"»\n  - "x"\n'),
        where=r"^[a-z]+\s+⁁(?P<to>\"[^\"\n]*\"?|\[)", trigger="anywhere", expects=("NAME",),
    ),
    Mistake(
        Code.NAME_DIGIT,
        "a name cannot start with a digit: `{token}`",
        "start the name with a letter, like `second_roll`; a name is letters, digits and `_`",
        ('roll «2nd_roll» "R" [X-1]\n  roll: 2d6\n', _HEAD + "  input «2nd»: flag\n",
         'list «2nd_list» "L" [X-1]\n  - "x"\n'),
        where=r"⁁(?P<to>\d+[A-Za-z_]\w*)", trigger="anywhere", expects=("NAME",),
    ),
    Mistake(
        Code.NAME_HYPHEN,
        "a name cannot contain `-`: `{token}`",
        "join the words with `_` instead, like `action_roll`",
        ('roll «action-roll» "R" [X-1]\n  roll: 2d6\n', _HEAD + "  input «bonus-die»: flag\n",
         _HEAD + "  «on-full»: \"x\"\n"),
        where=r"(?P<from>[A-Za-z_]\w*)⁁(?P<to>(?:-[A-Za-z_]\w*)+)",
    ),
    Mistake(
        Code.UNQUOTED_LABEL,
        "the label `{token}` is not in quotes",
        "put the label in double quotes: `roll action_roll \"Action roll\" [X-1]`",
        ("roll r «Action roll» [X-1]\n  roll: 2d6\n", "list tricks «Tricks»\n  - \"x\"\n"),
        where=_UNQUOTED,
    ),
    Mistake(
        Code.LABEL_ORDER,
        "the label comes after the citation",
        "write the label first, then the citation: `roll action_roll \"Action roll\" [X-1]`",
        ('roll r [X-1] «"R"»\n  roll: 2d6\n',),
        where=r'\]\s*⁁(?P<to>"[^"\n]*"?)',
    ),
    Mistake(
        Code.HEADER_COLON,
        "a definition's first line takes no colon",
        "delete the `:`; the body follows on the lines below, indented: `roll action_roll \"Action roll\" [X-1]`",
        ('roll r "R" [X-1]«:»\n  roll: 2d6\n', 'section "Rolls" [lines 1-9]«:»\n', 'roll r«:»\n  roll: 2d6\n',
         'list r "R" [X-1, lines 1-2]«:»\n  - "x"\n', 'list r "R: a list" [X-1, line 3]«:»\n  - "x"\n'),
        where=r'^(?:[a-z]+\s+[A-Za-z_]\w*(?:\s*"[^"\n]*")?|section\s*"[^"\n]*")(?:\s*\[[^\]\n]*\])?\s*⁁:\s*$',
        trigger="anywhere",
    ),
    Mistake(
        Code.UNQUOTED_TITLE,
        "the title `{token}` is not in quotes",
        "put the title in double quotes: `section \"Primary actions\" [lines 5-104]`",
        ("section «Primary actions»\n", "ruleset «My game»\n", "section «Rolls» [lines 1-9]\n"),
        where=_UNQUOTED,
    ),
    Mistake(
        Code.TYPE_COLON,
        "missing `:` after the type's name",
        "a type looks like `type wealth: 0..5` or `type market: one of scarce, normal`",
        ("type wealth«» 0..5\n", "type market«» one of a, b\n"),
        place="gap",
    ),
    # ------------------------------------------------------------ citations
    Mistake(
        Code.CITATION_ID,
        "`{token}` is not an inventory ID",
        "cite inventory IDs in capitals, as the inventory prints them: `[C-1, lines 7-17]`",
        ('roll r "R" [«cc-01»]\n  roll: 2d6\n', 'roll r "R" [X-1, «Cc-2»]\n  roll: 2d6\n'),
        where=r"⁁(?P<to>[A-Za-z][\w-]*)",
    ),
    Mistake(
        Code.CITATION_LINES,
        "line numbers in a citation need the word `line` or `lines`",
        "write `[C-1, line 7]` or `[C-1, lines 7-17]`",
        ('roll r "R" [X-1, «7-17»]\n  roll: 2d6\n', 'roll r "R" [X-1, «7»]\n  roll: 2d6\n',
         'list r "R" [X-1, X-2, «7-17»]\n  - "x"\n'),
        where=r"^[a-z].*\[[^\]]*,\s*⁁(?P<to>\d+(?:\s*-\s*\d+)?)", trigger="anywhere",
    ),
    Mistake(
        Code.CITATION_COMMA,
        "missing `,` between the parts of the citation",
        "separate them with commas: `[C-1, C-2, lines 7-17]`",
        ('roll r "R" [X-1«» line 7]\n  roll: 2d6\n', 'roll r "R" [X-1«» X-2]\n  roll: 2d6\n',
         'roll r "R" [X-1, line 7«» lines 9-10]\n  roll: 2d6\n'),
        where="⁁[A-Za-z]", place="gap",
    ),
    Mistake(
        Code.LINE_RANGE,
        "a range of lines is written `lines A-B`",
        "one line is `line 7`, several are `lines 7-9`: `[C-1, lines 7-9]`",
        ('roll r "R" [X-1, «line 7-9»]\n  roll: 2d6\n', 'roll r "R" [X-1, «lines 7»]\n  roll: 2d6\n',
         'roll r "R" [X-1, «lines 7 to 9»]\n  roll: 2d6\n'),
        where=r"(?P<from>\blines?\s+\d+\s*)⁁(?P<to>(?:-\s*\d+|to\s+\d+)?)",
    ),
    # ------------------------------------------------------------ attributes, inputs, lets
    Mistake(
        Code.EQUALS_FOR_COLON,
        "an attribute takes `:`, not `=`",
        "write `roll: 2d6`; `=` is for `let bonus = 1` and an input's default",
        (_HEAD + "  roll «=» 2d6\n", _HEAD + "  roll if bonus «=» 3d6\n"),
        where=r"^\s+[A-Za-z_]\w*\s*⁁=|^\s*\w+\s+if\b[^:=]*(?P<from>=)(?P<to>)[^=].*⁁$", trigger="anywhere",
    ),
    Mistake(
        Code.MISSING_COLON,
        "missing `:` after `{prev}`",
        "put a colon after the name: `{with_colon}`",
        (_HEAD + "  roll«» 2d6\n", _HEAD + "  text«» \"x\"\n", _HEAD + "  size«» 4\n",
         _HEAD + "  roll if bonus_die«» 3d6\n", _HEAD + "  steps«»\n    - \"x\"\n",
         _ERRATA + "  resolves«» RANGE-GAP in x\n", _ERRATA + "  add to x«»\n    - 7: y\n",
         _HEAD + "  roll«» d(die)\n", _HEAD + "  roll«» (rating)d6 highest\n"),
        where=r"^\s+(?:[A-Za-z_]\w*(?:\s+if\b[^:]*?\S)?|add\s+to\s+\w+)(?:\s+⁁(?![:=])|⁁$)",
        trigger="anywhere", place="gap", expects=("COLON",),
    ),
    Mistake(
        Code.LET_EQUALS,
        "a `let` takes `=`, not `:`",
        "write `let bonus = dots + 1`",
        (_HEAD + "  let x«:» 3\n",),
        where="⁁:",
    ),
    Mistake(
        Code.IF_TEST,
        "`if` needs a test before the colon",
        "write the test after `if`: `roll if bonus_die: 3d6 keep highest 2`",
        (_HEAD + "  roll if«:» 3d6\n",),
        where="⁁:",
    ),
    Mistake(
        Code.EMPTY_VALUE,
        "`{lead}` has nothing after its colon",
        "give the value on the same line, like `roll: 2d6`, or indent the lines that belong to it",
        (_HEAD + "  roll:«»\n  - 7-9: x\n", _HEAD + "  text:«»\n  roll: 2d6\n",
         _ROLL + "  steps:«»\nroll s \"S\" [X-2]\n  roll: d6\n"),
        where=r"^\s+⁁|^\s+\S.*⁁$", trigger="anywhere", place="gap", expects=("_INDENT", "!ROLL"),
    ),
    Mistake(
        Code.INPUT_COLON,
        "missing `:` after the input's name",
        "an input looks like `input dots: 0..4 = 1`, `input bonus: flag` or `input market: one of scarce, normal`",
        (_HEAD + "  input dots«» 0..4\n", _HEAD + "  input bonus«» flag\n"),
        place="gap",
    ),
    Mistake(
        Code.RANGE_DOTS,
        "a range of values is written with two dots",
        "write `input dots: 0..4` or `type wealth: 0..5` (whole numbers from the first to the last)",
        (_HEAD + "  input dots: 0 «to» 4\n", _HEAD + "  input dots: 1«-»4\n", _HEAD + "  input dots: 0..«»\n",
         "type wealth: 0«-»5\n"),
        where=r"^\s*(?:input|type)\s+\w+\s*:",
    ),
    Mistake(
        Code.INPUT_DEFAULT,
        "missing `=` before the default value",
        "write the default after `=`: `input dots: 0..4 = 1`",
        (_HEAD + "  input dots: 0..4«» 1\n", _HEAD + "  input bonus: flag«» yes\n"),
        where=r"^\s*input\b.*⁁\w+\s*(?:\"|#|$)", place="gap",
    ),
    Mistake(
        Code.CHOICE_COMMAS,
        "missing `,` between the options",
        "separate the options with commas: `one of scarce, normal, overflowing`",
        (_HEAD + "  input market: one of scarce«» normal\n", "type market: one of scarce«» normal\n"),
        where="⁁[A-Za-z_]", place="gap",
    ),
    # ------------------------------------------------------------ dice and expressions
    Mistake(
        Code.DICE_SPACE,
        "a die is written without spaces: `{token}`",
        "write dice with no space, like `2d6`, `d20` or `(rating)d6`",
        (_HEAD + "  roll: «d 6»\n", _HEAD + "  roll: «2d 6»\n", _HEAD + "  roll: «2 d 6»\n"),
        where=r"(?P<from>(?:\d+\s*)?[dD])\s+⁁(?P<to>\d+)",
    ),
    Mistake(
        Code.REROLL_FACES,
        "`reroll` takes the faces to re-roll, written as a band's range is",
        "like `reroll 1`, `reroll 1-2`, `reroll 5+` or `reroll 2 or less`; or the lowest dice: `reroll lowest 2` "
        "(a die of symbols, like `4dF`, is not re-rolled by face: use a `reroll:` line, like `reroll: failure`)",
        (_HEAD + "  roll: 2d6 reroll 1«s»\n", _HEAD + "  roll: 2d6 reroll «ones»\n",
         _HEAD + "  roll: 2d6 reroll «<=» 2\n", _HEAD + "  roll: 4dF reroll «-»\n", _HEAD + "  roll: 4d6 reroll«»\n"),
        where=r"\breroll(?:[ \t]+\d+⁁[A-Za-z]|[ \t]+⁁[^\s\d]|⁁)",
        trigger="anywhere",
    ),
    Mistake(
        Code.DICE_NOTATION,
        "`{token}` is dice-roller shorthand",
        "spell it out: `4d6 keep highest 3`, `4d6 keep lowest 1`, `2d20 highest` (one die)",
        (_HEAD + "  roll: 4d6 «kh3»\n", _HEAD + "  roll: 2d20 «kl1»\n", _HEAD + "  roll: 4d6 «dl1»\n",
         _HEAD + "  roll: 3d6 «k2» + dots\n"),
        where=r"⁁(?P<to>(?:kh|kl|k|dh|dl)\d*)\b", trigger="anywhere",
    ),
    Mistake(
        Code.KEEP,
        "say which dice to keep",
        "write `keep highest 2` or `keep lowest 2` (or just `highest` for one die)",
        (_HEAD + "  roll: 3d6 keep «2»\n", _HEAD + "  roll: 3d6 keep «top» 2\n", _HEAD + "  roll: 3d6 keep«»\n"),
    ),
    Mistake(
        Code.DANGLING_OPERATOR,
        "nothing after `{token}`",
        "finish the sum or delete the sign: `roll: 2d6 + dots`",
        (_HEAD + "  roll: 2d6 «+»\n", _HEAD + "  roll: (dots «*»)d6\n", _HEAD + "  let x = dots «-» \n"),
        where=r"(?P<from>[-+*/×%])\s*⁁(?:$|\))", trigger="anywhere",
    ),
    Mistake(
        Code.MISSING_VALUE,
        "nothing after `=`",
        "give the value: `let bonus = dots + 1`",
        (_HEAD + "  let x =«»\n", _HEAD + "  input dots: 0..4 =«»\n"),
        where=r"=\s*⁁", place="gap",
    ),
    Mistake(
        Code.CHAIN_SEVERAL,
        "a table rolled several times is written with `x` after it",
        "write the table, then `x` and how many times: `-> encounters x2` (twice), `x d4`; several tables go with "
        "commas: `-> weather, encounters`",
        (_ROLL + "  - 7-9: x -> «2x» t\n", _ROLL + "  - 7-9: x -> «2 x» t\n", _ROLL + "  - 7-9: x -> t «twice»\n",
         _ROLL + "  - 7-9: x -> t «thrice»\n", _ROLL + "  - 7-9: x -> t «x»\n", _ROLL + "  - 7-9: x -> t, u «again»\n"),
        where=r"->\s*(?P<from>\d+)\s*[xX]?\s*⁁\w|->[^#\n]*?\w\s+⁁[A-Za-z_]\w*\s*(?:#.*)?$",
    ),
    Mistake(
        Code.TIMES_X,
        "`x` does not multiply",
        "multiply with `*` or `×`: `dots * 2`",
        (_HEAD + "  roll: dots «x» 2\n", _HEAD + "  roll: 2d6 «x» 2\n", _HEAD + "  roll: 2 «x» dots\n"),
        where=r"(?P<from>\b[xX])\s+⁁\S|⁁(?P<to>[xX])\s",
    ),
    Mistake(
        Code.COMPARE_ORDER,
        "`{token}` is written the other way round",
        "write `>=` (at least) or `<=` (at most): `- when total >= 10: ...`",
        (_ROLL + "  - when total «=>» 10: x\n", _ROLL + "  - when total «=<» 10: x\n"),
        where="(?P<from>=)⁁(?P<to>[<>])",
    ),
    Mistake(
        Code.BAND_RANGE,
        "`{token}` is not part of a range",
        "a band starts with its range and a colon, like `- 7-9: costly \"...\"`; "
        "ranges look like `7-9`, `10+`, `6 or less`, `less than 6`, `4/5` or `natural 12`",
        (_ROLL + "  - 7 «to» 9: costly\n", _ROLL + "  - 6 or«:» x\n", _ROLL + "  - less «6»: x\n",
         _ROLL + "  - 10+«+»: x\n"),
        where=r"^\s*-.*⁁(?P<to>[^\s:]+|:)",
    ),
    Mistake(
        Code.RANGE_OPEN,
        "`{token}` is not a range",
        "for 6 and below write `6 or less` (or `less than 7`); for 10 and up, `10+`",
        (_ROLL + "  - «6-»: x\n", _ROLL + "  - 1-3, «6-»: x\n"),
        where=r"(?P<from>\d+\s*-)\s*⁁:",
    ),
    Mistake(
        Code.ENTRY_COLON,
        "missing `:` after the band's range",
        "after the range comes a colon, then the id and the text: `- 10+: heroic \"...\"`",
        (_ROLL + "  - 10+«» heroic\n", _ROLL + "  - 7-9«» \"text\"\n", _ROLL + "  - 1«» \"one\"\n",
         _ROLL + "  - 1-6«» resisted \"x\"\n", _ROLL + "  - 6«» full \"x\"\n", _ROLL + "  - 6 or less«» fail\n"),
        where=r"^\s*-[^:\"]*⁁[A-Za-z_\"][^:\"]*(?:\"|$)", trigger="anywhere", place="gap", expects=("COLON",),
    ),
    Mistake(
        Code.EMPTY_KEY,
        "nothing before the colon",
        "a band starts with its range: `- 7-9: costly \"...\"`; a list item has no colon: `- \"text\"`",
        (_ROLL + "  - «:» costly \"x\"\n",),
        where=r"^\s*-\s*⁁:",
    ),
    Mistake(
        Code.NATURAL_NUMBER,
        "`natural` needs the total it means",
        "write the total after `natural`: `- natural 12: advantage \"...\"`",
        (_ROLL + "  - natural«:» x\n", _ROLL + "  - natural «d6»: x\n"),
        where=r"\bnatural\s*⁁",
    ),
    Mistake(
        Code.WHEN_TEST,
        "`when` needs a test before the colon",
        "write the test after `when`: `- when total >= 10 and not zero_dice: ...`",
        (_ROLL + "  - when«:» x\n",),
        where=r"\bwhen\s*⁁:",
    ),
    Mistake(
        Code.OTHERWISE_RANGE,
        "`otherwise` takes no range",
        "`otherwise` alone catches what no other band takes: `- otherwise: failure \"...\"`",
        (_ROLL + "  - otherwise «7»: x\n", _ROLL + "  - otherwise «if» x: y\n"),
        where=r"\botherwise\s*⁁",
    ),
    Mistake(
        Code.TABLE_CELLS,
        "missing `|` between the cells",
        'separate a row\'s cells with `|`, like `- 1-3: "Memories" | "Looters"`',
        (_ROLL + '  - 1-3: "Memories"«» "Looters"\n', _ROLL + '  - 1-3: x "a" | "b"«» "c"\n'),
        where=r':.*"\s*⁁"', place="gap",
    ),
    Mistake(
        Code.CHAIN_TARGET,
        "`->` needs the table to go on to",
        "name the next table after `->`: `- 7-9: \"...\" -> treasure`",
        (_ROLL + "  - 7-9: x «->»\n", _ROLL + "  - 7-9: \"x\" «->» \n"),
        where=r"(?P<from>->)\s*⁁",
    ),
    Mistake(
        Code.COLUMNS_COLON,
        "missing `:` after `columns by ...`",
        "write `columns by position:` and then one indented entry per column",
        (_ROLL + "  columns by position«»\n    - risky: risky \"Risky\"\n",),
        where=r"^\s*columns\b", place="gap",
    ),
    # ------------------------------------------------------------ errata
    Mistake(
        Code.ERRATA_ID,
        "an errata entry starts with its ID, in capitals",
        "write the ID first: `errata D-4 \"A total of 6 falls in no band\" [C-8]`",
        ('errata «"Fix"»\n  text: "x"\n', 'errata «d-cc-4» "Fix"\n  text: "x"\n'),
        where=r'⁁(?P<to>"[^"\n]*"?|[\w-]+)',
    ),
    Mistake(
        Code.RESOLVES_IN,
        "missing `in` before the definitions it resolves",
        "write `resolves: RANGE-GAP in consequence_clock, obstacle_clock`",
        (_ERRATA + "  resolves: RANGE-GAP«» consequence_clock\n",),
        place="gap",
    ),
    Mistake(
        Code.RESOLVES_CODE,
        "`{token}` is not a check code",
        "name the codes `rulecraft check` printed, in capitals: `resolves: RANGE-GAP in consequence_clock`",
        (_ERRATA + "  resolves: «range-gap» in x\n", _ERRATA + "  resolves: «in» x\n"),
        where=r"^\s*resolves\s*:\s*(?:[A-Z][\w-]*\s*,\s*)*⁁(?P<to>[\w-]+)", trigger="anywhere",
    ),
    Mistake(
        Code.PATH,
        "a fix names a definition and at most one of its lines",
        "write `set healing_clock.size to 4` or `set zone_1[7-9].text to \"...\"`",
        (_ERRATA + "  set x.size«.max» to 4\n", _ERRATA + "  drop x[6].text«.more»\n"),
        where=r"^\s*(?:set|move|drop)\s+\w+(?:\[[^\]]*\])?(?:\.\w+)?⁁(?P<to>(?:\.\w+)+)", trigger="anywhere",
    ),
    Mistake(
        Code.FIX_TO,
        "missing `to` in this fix",
        "write `set healing_clock.size to 4` or `move consequence_clock[less than 6] to 6 or less`",
        (_ERRATA + "  set x.size«» 4\n", _ERRATA + "  move x[6]«» 6 or less\n"),
        place="gap",
    ),
    Mistake(
        Code.UNQUOTED_TEXT,
        "text that is not in quotes",
        "put text in double quotes: `text: \"Roll 2d6 and add your dots.\"`",
        (_HEAD + "  text: «Player rolls dice»\n", _ROLL + "  - 7-9: costly «costly success»\n",
         _HEAD + "  input dots: 0..4 = 1 «Action dots»\n", _HEAD + "  text: «Player rolls»\n"),
        where=r"^\s*(?:text|label|note|description)\s*:\s*(?P<from>[^\"\x00]*)⁁[A-Za-z]"
              r"|:[^:\"]*⁁[A-Za-z][\w']*(?:[ \t]+[A-Za-z][\w',.;!?]*)+\s*(?:#.*)?$",
        trigger="anywhere", place="to-end",
    ),
    Mistake(
        Code.MISSING_OPERATOR,
        "two values with nothing between them",
        "join values with an operator: `2d6 + dots + bonus`",
        (_HEAD + "  roll: 2d6 «dots»\n", _HEAD + "  roll: 2d6 + dots «bonus»\n", _HEAD + "  roll: 2d6 «3»\n"),
        where=r"⁁\w+\s*(?:#.*)?$",
    ),
    # ------------------------------------------------------------ bands, rows, entries
)


@dataclass(frozen=True)
class Failure:
    """A parse failure, in the words `diagnose` needs.

    kind "token": the parser met a token it cannot take (its type, text and end column);
    "character": no token starts here; "unclosed": (line, column) is a bracket still open;
    "indent": the indenter refused the line (code and fields from it).
    """

    kind: Literal["token", "character", "unclosed", "indent"]
    lines: tuple[str, ...]
    line: int
    column: int
    token_type: str | None = None
    token_text: str = ""
    state: object = None
    expected: frozenset[str] = frozenset()
    code: Code | None = None
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Diagnosis:
    code: Code
    message: str
    hint: str
    line: int
    column: int
    end_column: int


# ---------------------------------------------------------------- examples with their carets


def clean(example: str) -> tuple[str, int, int, int]:
    """An example without its `«»` marks, and where the caret goes: (text, line, column, end column)."""
    start = example.index("«")
    end = example.index("»", start)
    text = example[:start] + example[start + 1:end] + example[end + 1:]
    line = example[:start].count("\n") + 1
    column = start - (example.rfind("\n", 0, start) + 1) + 1
    return text, line, column, column + max(end - start - 1, 1)


# Alone, after a header, after a section, and after blank lines (where a parse resumes after an error).
HEADERS = ("", 'ruleset "Example"\n\n', 'ruleset "Example"\n\nsection "Rolls"\n\n', "\n\n")


def contexts(example: str) -> tuple[str, ...]:
    """Where an example is tried: alone, after a header, after a section (not a file's first line)."""
    text = clean(example)[0]
    return HEADERS[:1] if text.startswith(("ruleset", "\ufeff")) else HEADERS


def _signature(error: UnexpectedInput) -> tuple[object, str | None]:
    """Where the parser stood (its LALR state) and what it met: how two mistakes are the same."""
    token = getattr(error, "token", None)
    return _position(getattr(error, "state", None)), getattr(token, "type", None)


def _position(state: object) -> object:
    return getattr(state, "position", state)


def _lead(line_text: str) -> str:
    """The first word of the failing line (`input`, `-`, `roll`): LALR merges states, the line does not."""
    words = re.findall(r"[A-Za-z_]\w*|-", line_text)
    return words[0] if words else ""


Signatures = dict[tuple[object, str | None], tuple[tuple[str, int], ...]]
_signatures_made: list[tuple[object, Signatures]] = []  # (the parser they were made on, the signatures)


def _signatures(built: Lark) -> Signatures:
    """Each curated example's failing (state, token), on `built`. State numbers belong to one built parser
    (Lark numbers the states of each build its own way): made again for another parser."""
    if not _signatures_made or _signatures_made[0][0] is not built:
        _signatures_made[:] = [(built, _make_signatures(built))]
    return _signatures_made[0][1]


def _make_signatures(built: Lark) -> Signatures:
    found: dict[tuple[object, str | None], list[tuple[str, int]]] = {}
    for index, mistake in enumerate(MISTAKES):
        if mistake.trigger != "state":
            continue
        for example in mistake.examples:
            text = clean(example)[0]
            for header in contexts(example):
                full = header + text
                try:
                    built.parse(full)
                except UnexpectedInput as error:
                    lines = full.split("\n")
                    line = getattr(error, "line", 0) or 0
                    lead = _lead(lines[line - 1]) if 0 < line <= len(lines) else ""
                    found.setdefault(_signature(error), []).append((lead, index))
                except Exception:  # an example failing another way (indentation) names no state
                    continue
    return {key: tuple(dict.fromkeys(value)) for key, value in found.items()}


# ---------------------------------------------------------------- words for terminals

TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": 'a quoted text like "..."',
    "INT": "a number",
    "DICE": "dice like 2d6",
    "DICE_OF": "dice like d(die)",
    "SOURCE_ID": "an inventory ID like C-1",
    "CODE": "a check code like RANGE-GAP",
    "_NL": "the end of the line",
    "_INDENT": "an indented line",
    "_DEDENT": "a line indented less",
    "$END": "the end of the file",
}


Literals = dict[str, str]  # terminal name -> its text, for the terminals that are a fixed text (`:`, `roll`)


def literals_of(built: Lark) -> Literals:
    return {t.name: str(t.pattern.value) for t in built.terminals if t.pattern.type == "str"}


def describe(expected: Iterable[str], literals: Literals) -> str:
    """Terminal names in a designer's words: `` `:`, a name, the end of the line ``."""
    words: list[str] = []
    for name in sorted(expected, key=lambda n: (n.startswith("_") or n == "$END", n)):
        if name in literals:
            words.append(f"`{literals[name]}`")
        elif name in TERMINAL_WORDS:
            words.append(TERMINAL_WORDS[name])
    unique = list(dict.fromkeys(words))
    if not unique:
        return "something else"
    if len(unique) > 6:
        unique = [*unique[:5], "..."]
    return ", ".join(unique)


def keywords(expected: Iterable[str], literals: Literals) -> list[str]:
    return [literals[name] for name in expected if name in literals and literals[name].isalpha()]


def _all_keywords(literals: Literals) -> tuple[str, ...]:
    return tuple(value for value in literals.values() if value.isalpha())


# ---------------------------------------------------------------- reading the line


def code_part(text: str) -> str:
    """A line without its trailing comment and spaces (a `#` inside quotes is text)."""
    quoted = False
    index = 0
    while index < len(text):
        char = text[index]
        if quoted and char == "\\":
            index += 1
        elif char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return text[:index].rstrip()
        index += 1
    return text.rstrip()


@dataclass(frozen=True)
class _Reading:
    """The failure seen from its line: the text before the place the parser stopped and after it."""

    line: int
    column: int
    text: str
    token_end: int

    @property
    def before(self) -> str:
        return self.text[: self.column - 1]

    @property
    def rest(self) -> str:
        return self.text[self.column - 1:]

    @property
    def marked(self) -> str:
        return self.before + "\x00" + self.rest.rstrip(" \t")

    def column_of(self, index: int) -> int:
        """A position in `marked` -> a column of the line."""
        return index + 1 if index < self.column else index


def _reading(failure: Failure) -> _Reading:
    lines = failure.lines
    text = lines[failure.line - 1] if 0 < failure.line <= len(lines) else ""
    if failure.kind == "indent" or failure.token_type == "_INDENT":
        return _Reading(failure.line, 1, text, 2)
    if failure.token_type in ("_NL", "_DEDENT", "$END"):
        column = len(code_part(text[: max(failure.column - 1, 0)])) + 1
        return _Reading(failure.line, column, text, column + 1)
    column = min(max(failure.column, 1), len(text) + 1)
    if failure.kind == "token" and failure.token_text:
        end = column + len(failure.token_text.split("\n")[0])
    else:
        end = column + 1
    return _Reading(failure.line, column, text, end)


def _gap(lines: tuple[str, ...], line: int, column: int) -> tuple[int, int]:
    """The spot just after the last written character before (line, column), across blank lines."""
    at = line
    text = code_part(lines[at - 1][: column - 1]) if 0 < at <= len(lines) else ""
    while not text.strip() and at > 1:
        at -= 1
        text = code_part(lines[at - 1])
    return (at, len(text) + 1) if text.strip() else (line, column)


# ---------------------------------------------------------------- did you mean


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    options = list(dict.fromkeys(candidates))
    if word in options:
        return None
    if word.lower() in options:
        return word.lower()
    close = difflib.get_close_matches(word.lower(), options, n=1, cutoff=0.75)
    return close[0] if close else None


def suggest(failure: Failure, reading: _Reading, literals: Literals) -> tuple[str, int, int] | None:
    """The keyword the designer probably meant: (keyword, start column, end column of the misspelt word).

    Either the word the parser stopped at is close to a keyword it expected (`kepe` for `keep`;
    a keyword with letters glued on, `lesss`, is lexed as `less` + `s`), or the line's first
    word (after `- ` for a band) is close to a keyword that can start such a line (`inptu`).
    """
    if failure.kind != "token" or failure.token_type in ("_NL", "_INDENT", "_DEDENT", "$END"):
        return None
    text, index = reading.text, reading.column - 1
    start = index
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    word = re.match(r"[A-Za-z_]\w*", text[start:])
    if word is not None and start + len(word.group(0)) > index:
        glued = start < index
        pool = _all_keywords(literals) if glued else keywords(failure.expected, literals)
        keyword = _closest(word.group(0), pool)
        if keyword is not None:
            return keyword, start + 1, start + len(word.group(0)) + 1
    lead = re.match(r"(\s*)(-\s+)?([A-Za-z_]\w*)", text)
    if lead is None or lead.end(3) > index:
        return None
    between = text[lead.end(3): index]
    if not re.fullmatch(r"\s*(?:[^\s:]+\s*)?", between):
        return None
    pool = KEY_WORDS if lead.group(2) else (BODY_WORDS if lead.group(1) else TOP_WORDS)
    keyword = _closest(lead.group(3), pool)
    return (keyword, lead.start(3) + 1, lead.end(3) + 1) if keyword is not None else None


# ---------------------------------------------------------------- matching


def _where(mistake: Mistake, reading: _Reading) -> re.Match[str] | None:
    pattern = mistake.pattern
    return pattern.search(reading.marked) if pattern is not None else None


def _applies(mistake: Mistake, failure: Failure, reading: _Reading,
             suggestion: tuple[str, int, int] | None) -> bool:
    if mistake.near_keyword and suggestion is None:
        return False
    wanted = {name for name in mistake.expects if not name.startswith("!")}
    if wanted and not failure.expected & wanted:
        return False
    if any(name[1:] in failure.expected for name in mistake.expects if name.startswith("!")):
        return False
    return mistake.pattern is None or _where(mistake, reading) is not None


def _choose(failure: Failure, reading: _Reading, suggestion: tuple[str, int, int] | None,
            built: Lark) -> Mistake | None:
    """The curated mistake this failure is, or None.

    In order: a mistake recognised anywhere by its shape (a pasted character, a definition's
    first line, a misspelt keyword), in the table's order; a mistake whose example failed in the
    same parser state on the same kind of token and whose filters fit; one with no filters; a
    "something is missing here" mistake whose example failed in the same state on any token.
    Ties go to the example whose line starts with the same word, then to the table's order.
    """
    tabbed = re.match(r"[ ]*\t", reading.text) is not None
    if failure.kind == "indent":
        return _by_code(Code.TAB_INDENT if tabbed else (failure.code or Code.INDENT))
    if failure.token_type == "_INDENT":
        return _by_code(Code.TAB_INDENT if tabbed else Code.UNEXPECTED_INDENT)
    if failure.kind == "unclosed":
        return next((m for m in MISTAKES if m.trigger == "unclosed" and _where(m, reading)), None)
    position = _position(failure.state)
    token = failure.token_type if failure.kind == "token" else None
    signatures = _signatures(built)
    same_token = signatures.get((position, token), ())
    same_state = [entry for (p, _), entries in signatures.items() if p == position for entry in entries]
    lead = _lead(reading.text)
    ranked: list[tuple[int, int, int]] = []
    for index, mistake in enumerate(MISTAKES):
        if mistake.trigger == "anywhere":
            tier, leads = 0, [lead]
        elif mistake.trigger != "state":
            continue
        elif leads := [example_lead for example_lead, i in same_token if i == index]:
            tier = 1 if mistake.filtered else 2
        elif mistake.place == "gap" and re.match(r'[\w"(]', failure.token_text) and (
                leads := [example_lead for example_lead, i in same_state if i == index]):
            tier = 3  # something is missing before a word, a number, a text or a bracket
        else:
            continue
        if _applies(mistake, failure, reading, suggestion):
            ranked.append((tier, 0 if tier == 0 or lead in leads else 1, index))
    return MISTAKES[min(ranked)[2]] if ranked else None


def _by_code(code: Code) -> Mistake | None:
    return next((m for m in MISTAKES if m.code == code), None)


def match(failure: Failure, built: Lark) -> Mistake | None:
    reading = _reading(failure)
    return _choose(failure, reading, suggest(failure, reading, literals_of(built)), built)


# ---------------------------------------------------------------- the diagnosis


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return f"{{{key}}}"


def diagnose(failure: Failure, built: Lark) -> Diagnosis:
    """Code, message, hint and caret span of a parse failure in the parser `built`."""
    literals = literals_of(built)
    reading = _reading(failure)
    suggestion = suggest(failure, reading, literals)
    mistake = _choose(failure, reading, suggestion, built)
    line, column, end = _span(mistake, failure, reading, suggestion)
    text = failure.lines[line - 1] if 0 < line <= len(failure.lines) else ""
    shown = text[column - 1: end - 1].strip()
    prev_words = re.findall(r"[^\s:]+", code_part(reading.before))
    fields = _Fields(failure.fields)
    fields.update(
        token=_clip(shown) or "the end of the line",
        prev=prev_words[-1] if prev_words else "the name",
        lead=_lead(text) or shown,
        with_colon=_with_colon(reading),
        suggestion=suggestion[0] if suggestion else "",
        expected=describe(failure.expected, literals),
    )
    char = reading.rest[:1]
    if char:
        code_point = f"U+{ord(char):04X}"
        name = unicodedata.name(char, "")
        fields.update(char=char if char.isprintable() else code_point,
                      char_name=f"{name.lower()} ({code_point})" if name else f"character {code_point}")
    if mistake is not None:
        code, message, hint = mistake.code, mistake.message.format_map(fields), mistake.hint.format_map(fields)
    else:
        code, message, hint = _fallback(failure, fields)
    if suggestion is not None and f"`{suggestion[0]}`?" not in hint:
        hint = f"did you mean `{suggestion[0]}`? {hint}"
    return Diagnosis(code, message, hint, line, column, end)


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _with_colon(reading: _Reading) -> str:
    head = code_part(reading.before).strip()
    tail = code_part(reading.rest).strip()
    return f"{head}: {tail}" if tail else f"{head}:"


def _fallback(failure: Failure, fields: Mapping[str, str]) -> tuple[Code, str, str]:
    hint = "compare the line with the examples in docs/language.md"
    if failure.kind == "character":
        return (Code.SYNTAX, f"the {fields['char_name']} cannot be used here",
                'delete it, or put it inside quoted text like `"..."`')
    if failure.token_type in ("_NL", "$END", "_DEDENT"):
        return Code.SYNTAX, f"the line ends too soon; expected {fields['expected']}", hint
    return Code.SYNTAX, f"`{fields['token']}` does not fit here; expected {fields['expected']}", hint


def _span(mistake: Mistake | None, failure: Failure, reading: _Reading,
          suggestion: tuple[str, int, int] | None) -> tuple[int, int, int]:
    """(line, column, end column) of the caret."""
    place = mistake.place if mistake is not None else "token"
    text = reading.text
    if failure.kind == "indent" or failure.token_type == "_INDENT" or place == "indent":
        indent = len(text) - len(text.lstrip(" \t"))
        return reading.line, 1, max(indent, 1) + 1
    if place == "gap":
        line, column = _gap(failure.lines, reading.line, reading.column)
        return line, column, column + 1
    if suggestion is not None and (mistake is None or mistake.near_keyword):
        return reading.line, suggestion[1], suggestion[2]
    start, end = reading.column, reading.token_end
    found = _where(mistake, reading) if mistake is not None else None
    if found is not None:
        groups = found.re.groupindex
        widened = "from" in groups and found.start("from") >= 0
        if widened:
            start = reading.column_of(found.start("from"))
            end = reading.column
        if "to" in groups and found.start("to") >= 0:
            end = reading.column_of(found.end("to"))
    if place == "to-end":
        end = max(len(code_part(text)) + 1, end)
    shown = text[start - 1: end - 1]
    if shown.strip():
        end = start + len(shown.rstrip())
    return reading.line, start, max(end, start + 1)
