"""Syntax: source text -> parse tree -> source model, with syntax diagnostics.

`parse(text, path)` returns a `Ruleset` (the source layer of `model`) or
raises `CompileError` whose report holds a positioned, plain-words message.
The transformer has one method per grammar rule and fails loudly on a rule
it does not handle.

Every text takes one path, on Lark's public API: the LALR parser gives a
tree, `check_depth` bounds its nesting, `ToModel` (a Transformer) builds the
model. A syntax error is worded by the curated mistakes (`syntax_examples`),
which are given the parser they are matched on. Lark's `cache=` keeps the
built parser in the user's cache folder (`parser()`).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, cast

import lark
from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import Indenter

from .. import model as m
from ..diagnostics import Code, CompileError, Diagnostic, Report
from ..resources import cache_dir, grammar_path, prune_cache
from ..semantics.runtime import EXPLODE_TIMES, MAX_EXPLOSIONS, MAX_SIDES, explode_arg
from .mistakes import MISTAKES, TOP_WORDS, Failure, diagnose

MAX_SOURCE_BYTES = 1_000_000
MAX_NESTING = 40
MAX_DIGITS = 18  # a whole number has at most 18 digits
MAX_EXPR_DEPTH = 50  # operators, calls and dice nest at most 50 levels deep
MAX_TREE_DEPTH = 160  # the parse tree, parentheses and blocks included (the transformer recurses)


class IndentationProblem(Exception):
    """The indenter refused a line. `code` names the mistake (syntax_examples); `fields` fill its message."""

    def __init__(self, message: str, line: int, column: int, hint: str, code: Code = Code.INDENT,
                 fields: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.hint = hint
        self.code = code
        self.fields = fields or {}


class RulesIndenter(Indenter):
    """Turns leading whitespace into _INDENT/_DEDENT tokens; reports bad dedents by position."""

    NL_type = "_NL"
    OPEN_PAREN_types: ClassVar[list[str]] = ["LPAR", "LSQB"]
    CLOSE_PAREN_types: ClassVar[list[str]] = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token) -> Iterator[Token]:
        if self.paren_level > 0:
            return
        yield token
        last_line = token.rsplit("\n", 1)[1]
        indent_str = last_line[: len(last_line) - len(last_line.lstrip(" \t"))]
        if " " in indent_str and "\t" in indent_str:
            raise IndentationProblem(
                "this line is indented with both tabs and spaces",
                (token.end_line or 1), 1,
                "indent with spaces only (two per level reads well)", Code.TAB_INDENT,
            )
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            if len(self.indent_level) > MAX_NESTING:
                raise IndentationProblem("indentation is nested too deeply", token.end_line or 1, 1,
                                         "a definition's body needs at most a few levels", Code.TOO_LARGE)
            self.indent_level.append(indent)
            self.tab_lines.append((token.end_line or 1) if "\t" in indent_str else 0)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
        else:
            open_levels = list(self.indent_level)
            tabbed = [line for line in self.tab_lines if line]
            while indent < self.indent_level[-1]:
                self.indent_level.pop()
                self.tab_lines.pop()
                yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
            if indent != self.indent_level[-1]:
                if tabbed and "\t" not in indent_str:  # the block was opened by a tab: that line is the slip
                    raise IndentationProblem("this line is indented with a tab", tabbed[-1], 1,
                                             "indent with spaces only", Code.TAB_INDENT)
                columns = [str(level + 1) for level in open_levels]
                raise IndentationProblem(
                    f"this line is indented by {indent} but no enclosing block starts at that column",
                    token.end_line or 1, indent + 1,
                    f"line it up with an earlier line (column {self.indent_level[-1] + 1})", Code.INDENT,
                    {"indent": f"{indent} space" + ("" if indent == 1 else "s"),
                     "column": "column " + (" or ".join(columns) if len(columns) < 3
                                            else ", ".join(columns[:-1]) + " or " + columns[-1])},
                )

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        self.paren_level = 0
        self.indent_level = [0]
        self.tab_lines: list[int] = [0]  # per open level: the line that opened it with a tab, or 0
        self.openers: list[Token] = []
        return self._process(stream)

    def _process(self, stream: Iterator[Token]) -> Iterator[Token]:
        """Lark's, keeping the open brackets (for "never closed" errors) instead of asserting on a stray one."""
        token = None
        for token in stream:
            if token.type == self.NL_type:
                yield from self.handle_NL(token)
            else:
                yield token
            if token.type in self.OPEN_PAREN_types:
                self.paren_level += 1
                self.openers.append(token)
            elif token.type in self.CLOSE_PAREN_types and self.paren_level > 0:
                self.paren_level -= 1
                self.openers.pop()
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            yield (Token.new_borrow_pos(self.DEDENT_type, "", token) if token is not None
                   else Token(self.DEDENT_type, "", 0, 0, 0, 0, 0, 0))


LARK_OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "contextual", "propagate_positions": True,
                                "maybe_placeholders": True}
PARSER_CACHE_KEEP = 8  # parsers of this many grammars stay in the cache folder


@cache
def parser() -> Lark:
    """The LALR parser of the grammar, built once per process; Lark's own `cache=` keeps it between runs."""
    grammar = grammar_path().read_text(encoding="utf-8")
    return Lark(grammar, postlex=RulesIndenter(), cache=_cache_file(grammar), **LARK_OPTIONS)


def _cache_file(grammar: str) -> str | bool:
    """Where Lark keeps the built parser: the user's cache folder, a file per grammar, Lark and Python (a few
    checkouts do not take turns rewriting one file), and per the terminals the indenter keeps (Lark's own
    key leaves the postlexer out). Lark checks the file against the grammar, its options, its version and
    Python's, and builds afresh (saving anew) when it differs or cannot be read. False (no cache: 0.1 s a
    run) when the folder cannot be made."""
    folder = cache_dir()
    if folder is None:
        return False
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    parts = (grammar, repr(RulesIndenter().always_accept), lark.__version__, sys.version)
    key = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    path = folder / f"parser-{key[:40]}.lark"
    if not path.exists():  # Lark builds and saves one now: the newest few stay, for other checkouts' grammars
        prune_cache(folder, "parser-*.lark", PARSER_CACHE_KEEP - 1)
    return str(path)


def span_of(obj: Any) -> m.Span:
    if isinstance(obj, Token):
        return m.Span(obj.line or 0, obj.column or 0, obj.end_line or 0, obj.end_column or 0)
    meta = getattr(obj, "meta", obj)
    if getattr(meta, "empty", True):
        return m.NOWHERE
    return m.Span(meta.line, meta.column, meta.end_line, meta.end_column)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def decode_string(token: str) -> str:
    """Quoted text -> its value. `\\"`, `\\\\`, `\\n`, `\\t` are escapes; any other backslash stays."""
    if token.startswith('"""'):
        body = token[3:-3]
        lines = body.split("\n")
        if len(lines) > 1:
            if not lines[0].strip():
                lines = lines[1:]
            if lines and not lines[-1].strip():
                lines = lines[:-1]
            indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
            cut = min(indents) if indents else 0
            body = "\n".join(line[cut:] for line in lines)
    else:
        body = token[1:-1]
    if "\\" not in body:
        return body  # no escapes (what re.sub below would give, only faster)
    return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match.group(1), match.group(0)), body, flags=re.S)


_RANGE_PART = re.compile(r"\d+(?:,\d{3})+(?!\d)|\w+|[^\w\s]")


def range_text(written: str) -> str:
    """`7 - 9` -> `7-9`, `1,2` -> `1, 2`, `6  or less` -> `6 or less`: words apart, signs tight."""
    out = ""
    previous = ""
    for part in _RANGE_PART.findall(written):
        word = part[0].isalnum() or part[0] == "_"
        if out and ((word and (previous[-1].isalnum() or previous[-1] == "_")) or previous == ","):
            out += " "
        out += part
        previous = part
    return out


def parse_int(token: str) -> int:
    return whole_number(token.replace(",", ""), token)


def whole_number(digits: str, token: object) -> int:
    """`digits` as an int; more than MAX_DIGITS digits is refused at the token's place (TOO-LARGE)."""
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise SyntaxProblem(f"the number {digits[:12]}… has {len(digits)} digits; a number has at most {MAX_DIGITS}",
                            span_of(token), Code.TOO_LARGE, "game numbers are small; check for a typing slip")
    return int(digits or "1")


Child = Any


@v_args(meta=True)
class ToModel(Transformer[Token, Any]):
    """Parse tree -> source model. One method per grammar rule."""

    def __init__(self, ruleset_id: str, path: str, text: str) -> None:
        super().__init__(visit_tokens=False)
        self._ruleset_id = ruleset_id
        self._path = path
        self._source = text

    def __default__(self, data: str, children: list[Child], meta: Any) -> Any:
        raise NotImplementedError(f"grammar rule {data!r} has no handler in compiler.syntax.ToModel")

    # ------------------------------------------------------------ structure

    def start(self, meta: Any, children: list[Child]) -> m.Ruleset:
        title = ""
        header_attrs: tuple[m.Attr, ...] = ()
        sections: list[m.Section] = []
        types: list[m.TypeDef] = []
        items: list[m.Item] = []
        errata: list[m.Errata] = []
        current: str | None = None
        for child in children:
            if isinstance(child, tuple) and child and child[0] == "header":
                title, header_attrs = child[1], child[2]
            elif isinstance(child, m.Section):
                sections.append(child)
                current = child.title
            elif isinstance(child, m.TypeDef):
                types.append(child)
            elif isinstance(child, m.Item):
                items.append(_with_section(child, current))
            elif isinstance(child, m.Errata):
                errata.append(child)
        return m.Ruleset(self._ruleset_id, self._path, title, header_attrs, tuple(sections), tuple(types),
                         tuple(items), tuple(errata), span_of(meta))

    def header(self, meta: Any, children: list[Child]) -> tuple[str, str, tuple[m.Attr, ...]]:
        return ("header", decode_string(children[0]), tuple(children[1:]))

    def section(self, meta: Any, children: list[Child]) -> m.Section:
        title = decode_string(children[0])
        citation = next((c for c in children[1:] if isinstance(c, m.Citation)), None)
        attrs = tuple(c for c in children[1:] if isinstance(c, m.Attr))
        return m.Section(title, citation, attrs, span_of(meta))

    def typedef(self, meta: Any, children: list[Child]) -> m.TypeDef:
        return m.TypeDef(str(children[0]), children[1], span_of(meta))

    def kind(self, meta: Any, children: list[Child]) -> str:
        return str(children[0])

    def item(self, meta: Any, children: list[Child]) -> m.Item:
        kind, name, label_token, citation = children[:4]
        rest = children[4:]
        label = decode_string(label_token) if label_token is not None else None
        inputs = tuple(c for c in rest if isinstance(c, m.Input))
        lets = tuple(c for c in rest if isinstance(c, m.Let))
        attrs = tuple(c for c in rest if isinstance(c, m.Attr))
        entries = tuple(c for c in rest if isinstance(c, m.Entry))
        columns = [c for c in rest if isinstance(c, m.Columns)]
        guards = tuple(c for c in rest if isinstance(c, m.Guarded))
        return m.Item(kind, str(name), label, citation, inputs, lets, attrs, entries,
                      columns[0] if columns else None, None, span_of(name), guards)

    def citation(self, meta: Any, children: list[Child]) -> m.Citation:
        ids = tuple(c[1] for c in children if c[0] == "id")
        lines = tuple(c[1] for c in children if c[0] == "lines")
        return m.Citation(ids, lines, span_of(meta))

    def cite_id(self, meta: Any, children: list[Child]) -> tuple[str, str]:
        return ("id", str(children[0]))

    def cite_line(self, meta: Any, children: list[Child]) -> tuple[str, tuple[int, int]]:
        line = parse_int(children[0])
        return ("lines", (line, line))

    def cite_lines(self, meta: Any, children: list[Child]) -> tuple[str, tuple[int, int]]:
        return ("lines", (parse_int(children[0]), parse_int(children[1])))

    def input(self, meta: Any, children: list[Child]) -> m.Input:
        name, spec, default, doc, source = children
        if isinstance(default, Token):
            default = str(default)
        elif isinstance(default, m.Boolean):
            default = default.value
        return m.Input(str(name), spec, default, decode_string(doc) if doc is not None else None,
                       span_of(name), source)

    def let(self, meta: Any, children: list[Child]) -> m.Let:
        return m.Let(str(children[0]), children[1], span_of(children[0]))

    def attr_name(self, meta: Any, children: list[Child]) -> Token:
        return cast(Token, children[0])

    def attr(self, meta: Any, children: list[Child]) -> m.Attr:
        name, when, value = children
        return m.Attr(str(name), value, when, span_of(name))

    def block(self, meta: Any, children: list[Child]) -> m.Attr:
        attrs = tuple(c for c in children[1:] if isinstance(c, m.Attr))
        entries = tuple(c for c in children[1:] if isinstance(c, m.Entry))
        effects = tuple(c for c in children[1:] if isinstance(c, m.Effect))
        return m.Attr(str(children[0]), m.Block(attrs, entries, span_of(meta), effects), None, span_of(children[0]))

    def columns(self, meta: Any, children: list[Child]) -> m.Columns:
        return m.Columns(children[0], tuple(children[1:]), span_of(meta))

    # ------------------------------------------------------------ entries

    def entry(self, meta: Any, children: list[Child]) -> m.Entry:
        key, payload = children[0], children[1]
        ident, cells, chain = payload
        attrs = tuple(c for c in children[2:] if isinstance(c, m.Attr))
        effects = tuple(c for c in children[2:] if isinstance(c, m.Effect))
        return m.Entry(key, ident, cells, chain, attrs, span_of(meta), effects)

    # ------------------------------------------------------------ effects: what an outcome does to the state

    def mark_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        target, amount, level, marker = children
        return m.Effect("mark", str(target), amount, level, marker=str(marker) if marker is not None else None,
                        span=span_of(meta))

    def clear_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        target, amount = children
        return m.Effect("clear", str(target), amount, span=span_of(meta))

    def gain_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        return m.Effect("gain", str(children[0]), children[1], span=span_of(meta))

    def spend_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        return m.Effect("spend", str(children[0]), children[1], span=span_of(meta))

    def set_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        return m.Effect("set", str(children[0]), children[1], span=span_of(meta))

    def carry_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        amount, roll, name = children
        return m.Effect("carry", str(roll), amount, input=str(name), span=span_of(meta))

    def roll_effect(self, meta: Any, children: list[Child]) -> m.Effect:
        return m.Effect("roll", None, chain=children[0], span=span_of(meta))

    def guarded(self, meta: Any, children: list[Child]) -> m.Guarded:
        label = decode_string(children[1]) if children[1] is not None else None
        return m.Guarded(children[0], tuple(c for c in children[2:] if isinstance(c, m.Effect)), span_of(meta), label)

    def payload(self, meta: Any, children: list[Child]) -> tuple[str | None, tuple[m.Cell, ...], Any]:
        ident, cells, chain = children
        return (str(ident) if ident is not None else None, cells or (), chain)

    def cells(self, meta: Any, children: list[Child]) -> tuple[m.Cell, ...]:
        out: list[m.Cell] = []
        for child in children:
            if isinstance(child, Token) and child.type == "STRING":
                out.append(decode_string(child))
            elif isinstance(child, Token) and child.type == "DASH":
                out.append(m.NotAvailable(span_of(child)))
            else:
                out.append(int(child))
        return tuple(out)

    def chain(self, meta: Any, children: list[Child]) -> m.Chain:
        return m.Chain(tuple(children), span_of(meta))

    def link(self, meta: Any, children: list[Child]) -> m.Link:
        target, times = children
        if times is None and isinstance(target, m.Binary) and target.op == "*":
            written = self._source[meta.start_pos:meta.end_pos]
            if isinstance(target.left, (m.Number, m.Dice)) and not isinstance(target.right, (m.Number, m.Dice)):
                raise SyntaxProblem("the number of times goes after the table", span_of(meta), Code.CHAIN_SEVERAL,
                                    f"write `-> {m.expr_text(target.right)} x{m.expr_text(target.left)}`")
            if "×" not in written or "*" in written:  # `*` multiplies numbers; `×` is how a rulebook prints times
                raise SyntaxProblem("`*` multiplies numbers; a table rolled several times is written with `x`",
                                    span_of(meta), Code.CHAIN_SEVERAL,
                                    f"write `-> {m.expr_text(target.left)} x{m.expr_text(target.right)}`")
            return m.Link(target.left, target.right, span_of(meta))
        if isinstance(target, m.Logic) and target.op == "and":
            tables = ", ".join(m.expr_text(part) for part in target.operands)
            raise SyntaxProblem("`and` does not join tables rolled next", span_of(meta), Code.CHAIN_SEVERAL,
                                f"list the tables with commas, each rolled in turn: `-> {tables}`")
        return m.Link(target, times, span_of(meta))

    def times_number(self, meta: Any, children: list[Child]) -> m.Number:
        token = children[0]
        return m.Number(parse_int(str(token)[1:].strip()), span_of(token))

    def times_dice(self, meta: Any, children: list[Child]) -> m.Expr:
        return children[0]  # type: ignore[no-any-return]

    def ranges(self, meta: Any, children: list[Child]) -> m.Ranges:
        parts = tuple(part for child in children for part in child)
        return m.Ranges(parts, self.source_text(meta), span_of(meta))

    def source_text(self, meta: Any) -> str:
        """The range as the designer wrote it, spaced the one way `rulecraft fmt` spaces it, so a band's
        key (and the id of a band without a name) does not depend on spacing: `7 - 9` is `7-9`."""
        return range_text(self._source[meta.start_pos:meta.end_pos])

    def exact(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(children[0], children[0])]

    def at_least(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(children[0], None)]

    def at_most(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(None, children[0])]

    def between(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        low, high = children
        if low > high:
            raise SyntaxProblem(f"the range {low}-{high} runs backwards", span_of(meta), Code.RANGE_BACKWARDS,
                                f"write the smaller number first: `{high}-{low}`")
        return [m.Interval(low, high)]

    def either(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        low, high = children
        return [m.Interval(low, low), m.Interval(high, high)]

    def below(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(None, children[0] - 1)]

    def above(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(children[0] + 1, None)]

    def natural(self, meta: Any, children: list[Child]) -> m.Natural:
        return m.Natural(parse_int(children[0]), span_of(meta))

    def when(self, meta: Any, children: list[Child]) -> m.When:
        return m.When(children[0], span_of(meta))

    def otherwise(self, meta: Any, children: list[Child]) -> m.Otherwise:
        return m.Otherwise(span_of(meta))

    def option_key(self, meta: Any, children: list[Child]) -> m.OptionKey:
        return m.OptionKey(str(children[0]), span_of(meta))

    # ------------------------------------------------------------ types

    def int_range(self, meta: Any, children: list[Child]) -> m.IntRange:
        return m.IntRange(children[0], children[1], span_of(meta))

    def flag_type(self, meta: Any, children: list[Child]) -> m.Flag:
        return m.Flag(span_of(meta))

    def choice_type(self, meta: Any, children: list[Child]) -> m.Choice:
        return m.Choice(tuple(children), span_of(meta))

    def named_type(self, meta: Any, children: list[Child]) -> m.NamedType:
        return m.NamedType(str(children[0]), span_of(meta))

    def boxes_type(self, meta: Any, children: list[Child]) -> m.BoxesOf:
        return m.BoxesOf(str(children[0]), span_of(meta))

    def option(self, meta: Any, children: list[Child]) -> m.Option:
        name, label, value = children
        text = decode_string(label) if label is not None else str(name).replace("_", " ")
        return m.Option(str(name), text, value, span_of(meta))

    # ------------------------------------------------------------ expressions

    def if_else(self, meta: Any, children: list[Child]) -> m.IfElse:
        then, condition, otherwise = children
        return m.IfElse(condition, then, otherwise, span_of(meta))

    def or_(self, meta: Any, children: list[Child]) -> m.Expr:
        return children[0] if len(children) == 1 else m.Logic("or", tuple(children), span_of(meta))

    def and_(self, meta: Any, children: list[Child]) -> m.Expr:
        return children[0] if len(children) == 1 else m.Logic("and", tuple(children), span_of(meta))

    def not_(self, meta: Any, children: list[Child]) -> m.Not:
        return m.Not(children[0], span_of(meta))

    def compare(self, meta: Any, children: list[Child]) -> m.Compare:
        left, op, right = children
        symbol = {"=": "==", "≥": ">=", "≤": "<="}.get(str(op), str(op))
        return m.Compare(symbol, left, right, span_of(meta))

    def compare_op(self, meta: Any, children: list[Child]) -> str:
        return str(children[0])

    def add_op(self, meta: Any, children: list[Child]) -> str:
        return str(children[0])

    def mul_op(self, meta: Any, children: list[Child]) -> str:
        return "*" if str(children[0]) in ("*", "×") else str(children[0])

    def binary(self, meta: Any, children: list[Child]) -> m.Binary:
        left, op, right = children
        return m.Binary(op, left, right, span_of(meta))

    def neg(self, meta: Any, children: list[Child]) -> m.Expr:
        operand = children[0]
        if isinstance(operand, m.Number):
            return m.Number(-operand.value, span_of(meta))
        return m.Neg(operand, span_of(meta))

    def operated(self, meta: Any, children: list[Child]) -> m.Dice:
        dice: m.Dice = children[0]
        return replace(dice, ops=tuple(children[1:]), span=span_of(meta))

    def keep(self, meta: Any, children: list[Child]) -> m.DiceOp:
        mode, count = children
        return m.DiceOp(mode, parse_int(count) if count is not None else 1, span_of(meta))

    def explode(self, meta: Any, children: list[Child]) -> m.DiceOp:
        return self._exploding("explode", meta, children)

    def compound(self, meta: Any, children: list[Child]) -> m.DiceOp:
        return self._exploding("compound", meta, children)

    def _exploding(self, name: str, meta: Any, children: list[Child]) -> m.DiceOp:
        """`!`, `!!`: `on 9+` (none: the highest face), then `at most N times` (none: without limit), in one
        argument (runtime.explode_arg)."""
        least = children[0] if children else None
        limit = children[1] if len(children) > 1 else None
        face = parse_int(least) if least is not None else 0
        if face >= EXPLODE_TIMES:
            raise SyntaxProblem(f"`on {face}+`: no die shows {face:,}", span_of(least), Code.TYPE,
                                f"a die has at most {MAX_SIDES:,} sides; explode on one of its faces, like "
                                "`d10! on 9+`")
        return m.DiceOp(name, explode_arg(face, limit or 0), span_of(meta))

    def explode_limit(self, meta: Any, children: list[Child]) -> int:
        times = parse_int(next(c for c in children if c is not None))
        if not 1 <= times <= MAX_EXPLOSIONS:
            raise SyntaxProblem(f"`at most {times}`: a die explodes at most 1 to {MAX_EXPLOSIONS} times", span_of(meta),
                                Code.TYPE, "write `at most 1 time` (or `once`), `at most 2 times`, ...; "
                                "without a limit, leave `at most` out: `d6!`")
        return times

    def explode_once(self, meta: Any, children: list[Child]) -> int:
        return 1

    def reroll_dice(self, meta: Any, children: list[Child]) -> m.DiceOp:
        """`reroll 1-2`, `reroll 1, 6`, `reroll 5+`: the faces re-rolled as one int, face f passing when bit f
        is set (a negative int for a test open upwards: `5+` is -(1 << 5)); see `runtime._Reroll`."""
        test = 0
        for interval in (part for child in children if isinstance(child, list) for part in child):
            low, high = interval.low, interval.high
            named = [bound for bound in (low, high) if bound is not None]
            if any(bound < 1 for bound in named):
                raise SyntaxProblem(f"`reroll {self.source_text(meta).removeprefix('reroll').strip()}` names "
                                    f"{min(named)}: a die shows faces from 1 up", span_of(meta), Code.TYPE,
                                    "name the faces re-rolled, like `reroll 1` (ones), `reroll 1-2` or `reroll 5+`")
            if any(bound > MAX_SIDES for bound in named):
                raise SyntaxProblem(f"`reroll` names the face {max(named):,}; a die has at most {MAX_SIDES:,} sides",
                                    span_of(meta), Code.TOO_LARGE, "name faces the die shows, like `reroll 1`")
            start = max(low or 1, 1)
            test |= -(1 << start) if high is None else (1 << (high + 1)) - (1 << start)
        return m.DiceOp("reroll", test, span_of(meta))

    def reroll_lowest(self, meta: Any, children: list[Child]) -> m.DiceOp:
        """`reroll lowest`, `reroll lowest 2`: the lowest dice (1 if no number) rolled again, once."""
        count = children[0] if children else None
        return m.DiceOp("reroll_lowest", parse_int(count) if count is not None else 1, span_of(meta))

    def face_span(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        """`1-2` or `1/2` in a face test: one token, so `d20 reroll 1 - bonus` stays a subtraction."""
        token = children[0]
        mark = "-" if "-" in str(token) else "/"
        low, high = (whole_number(part, token) for part in str(token).split(mark))
        return self.between(meta, [low, high]) if mark == "-" else self.either(meta, [low, high])

    def face_spaced(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        """`reroll 1 - 2`: the faces 1 to 2, or the roll less 2? Refused, saying how to write either."""
        token = str(children[0])
        mark = "-" if "-" in token else "/"
        low, high = (part.strip() for part in token.split(mark))
        other, doing = ("less", "subtract from") if mark == "-" else ("divided by", "divide")
        raise SyntaxProblem(f"`{token}` after `reroll`: the faces {low}{mark}{high}, or the roll {other} {high}?",
                            span_of(meta), Code.BAND_RANGE,
                            f"write the faces without spaces, `reroll {low}{mark}{high}`; to {doing} the roll, put "
                            f"the dice in brackets, like `(d20 reroll {low}) {mark} {high}`")

    def face_exact(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return self.exact(meta, [parse_int(children[0])])

    def face_below(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return self.below(meta, [parse_int(children[0])])

    def face_above(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return self.above(meta, [parse_int(children[0])])

    def face_up(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(whole_number(str(children[0])[:-1], children[0]), None)]

    def face_or(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        words = str(children[0]).split()
        number = whole_number(words[0], children[0])
        if words[-1].isdigit():  # `reroll 1 or 2`: either face
            return self.either(meta, [number, whole_number(words[-1], children[0])])
        return [m.Interval(None, number) if words[-1] in ("less", "lower", "fewer") else m.Interval(number, None)]

    def high_low(self, meta: Any, children: list[Child]) -> str:
        return str(children[0])

    def dice(self, meta: Any, children: list[Child]) -> m.Dice:
        count, sides = str(children[0]).lower().split("d")
        span = span_of(children[0])
        number = m.Number(whole_number(count, children[0]), span)
        if "d" + sides in m.BUILTIN_DICE or sides == "f":  # `4dF`, `d66`: the checker gives them their faces
            return m.Dice(number, None, die=m.FATE if sides == "f" else "d" + sides, span=span_of(meta))
        faces = 100 if sides == "%" else whole_number(sides, children[0])
        return m.Dice(number, m.Number(faces, span), span=span_of(meta))

    def pool(self, meta: Any, children: list[Child]) -> m.Dice:
        count, die = children
        text = str(die).lower()
        if text.split("d")[0]:
            raise SyntaxProblem("write a pool as `(rating)d6`, with nothing between `)` and `d`",
                                span_of(die), Code.POOL, "the count goes in the brackets: `(rating + 1)d6`")
        sides = text.split("d")[1]
        if "d" + sides in m.BUILTIN_DICE or sides == "f":
            return m.Dice(count, None, die=m.FATE if sides == "f" else "d" + sides, span=span_of(meta))
        faces = 100 if sides == "%" else whole_number(sides, die)
        return m.Dice(count, m.Number(faces, span_of(die)), span=span_of(meta))

    def dice_of(self, meta: Any, children: list[Child]) -> m.Dice:
        token, sides = children
        count = str(token)[:-1]
        return m.Dice(m.Number(whole_number(count, token), span_of(token)), sides, span=span_of(meta))

    def pool_of(self, meta: Any, children: list[Child]) -> m.Dice:
        count, token, sides = children
        if str(token)[:-1]:
            raise SyntaxProblem("write a pool as `(count)d(sides)`, with nothing between `)` and `d`",
                                span_of(token), Code.POOL, "the count goes in the brackets: `(rating)d(die)`")
        return m.Dice(count, sides, span=span_of(meta))

    def custom_pool(self, meta: Any, children: list[Child]) -> m.Dice:
        count, die = children
        if isinstance(count, Token):  # a bare INT: `2 enemy`
            count = m.Number(parse_int(count), span_of(count))
        return m.Dice(count, None, die=str(die), span=span_of(meta))

    def number(self, meta: Any, children: list[Child]) -> m.Number:
        return m.Number(parse_int(children[0]), span_of(meta))

    def name(self, meta: Any, children: list[Child]) -> m.Name:
        return m.Name(str(children[0]), span_of(meta))

    def call(self, meta: Any, children: list[Child]) -> m.Call:
        return m.Call(str(children[0]), tuple(c for c in children[1:] if c is not None), span_of(meta))

    def text(self, meta: Any, children: list[Child]) -> m.Text:
        return m.Text(decode_string(children[0]), span_of(meta))

    def boolean(self, meta: Any, children: list[Child]) -> m.Boolean:
        return m.Boolean(str(children[0]) == "yes", span_of(meta))

    def unknown(self, meta: Any, children: list[Child]) -> m.Unknown:
        return m.Unknown(span_of(meta))

    def signed_int(self, meta: Any, children: list[Child]) -> int:
        value = parse_int(children[-1])
        return -value if len(children) > 1 or self._negative(meta, children) else value

    def plus_int(self, meta: Any, children: list[Child]) -> int:
        """`+3`: a number written with its sign, as rulebooks print modifiers (`-2..+3`, `= +1`)."""
        return parse_int(children[-1])

    @staticmethod
    def _negative(meta: Any, children: list[Child]) -> bool:
        token = children[-1]
        return bool(not meta.empty and isinstance(token, Token) and meta.column < (token.column or 0))

    # ------------------------------------------------------------ errata

    def errata(self, meta: Any, children: list[Child]) -> m.Errata:
        ident, title = str(children[0]), decode_string(children[1])
        rest = children[2:]
        citation = rest[0] if rest and isinstance(rest[0], m.Citation) else None
        attrs = tuple(c for c in rest if isinstance(c, m.Attr))
        resolves = tuple(c for c in rest if isinstance(c, m.Resolves))
        fixes = tuple(c for c in rest if isinstance(c, (m.FixMove, m.FixSet, m.FixDrop, m.FixAdd)))
        return m.Errata(ident, title, citation, attrs, resolves, fixes, span_of(children[0]))

    def resolves(self, meta: Any, children: list[Child]) -> m.Resolves:
        codes = tuple(str(c) for c in children if c.type == "CODE")
        items = tuple(str(c) for c in children if c.type == "NAME")
        return m.Resolves(codes, items, span_of(meta))

    def fix_move(self, meta: Any, children: list[Child]) -> m.FixMove:
        return m.FixMove(children[0], children[1], span_of(meta))

    def fix_set(self, meta: Any, children: list[Child]) -> m.FixSet:
        return m.FixSet(children[0], children[1], span_of(meta))

    def fix_drop(self, meta: Any, children: list[Child]) -> m.FixDrop:
        return m.FixDrop(children[0], span_of(meta))

    def fix_add(self, meta: Any, children: list[Child]) -> m.FixAdd:
        return m.FixAdd(str(children[0]), tuple(children[1:]), span_of(meta))

    def path(self, meta: Any, children: list[Child]) -> m.Path:
        names = [str(c) for c in children if isinstance(c, Token)]
        selector = next((c for c in children if c is not None and not isinstance(c, Token)), None)
        item = names[0]
        member = names[1] if len(names) > 1 else None
        if len(names) > 2:
            raise SyntaxProblem("a path names an item and at most one member, like `clock.size`",
                                span_of(meta), Code.PATH, "name the definition and one of its lines: "
                                "`set healing_clock.size to 4`")
        return m.Path(item, member, selector, span_of(meta))


def _with_section(item: m.Item, section: str | None) -> m.Item:
    return replace(item, section=section)


class SyntaxProblem(Exception):
    def __init__(self, message: str, span: m.Span, code: Code = Code.SYNTAX, hint: str | None = None) -> None:
        super().__init__(message)
        self.span = span
        self.code = code
        self.hint = hint


_NESTS = {"if_else", "or_", "and_", "not_", "compare", "binary", "neg", "operated", "pool", "dice_of", "pool_of",
          "custom_pool", "call"}


def check_depth(tree: Tree[Token]) -> None:
    """Refuse expressions nested past MAX_EXPR_DEPTH (and trees past MAX_TREE_DEPTH) before anything recurses."""
    stack: list[tuple[Tree[Token], int, int]] = [(tree, 1, 0)]
    while stack:
        node, depth, nesting = stack.pop()
        if node.data in _NESTS and not (node.data in ("or_", "and_") and len(node.children) == 1):
            nesting += 1
        if depth > MAX_TREE_DEPTH or nesting > MAX_EXPR_DEPTH:
            raise SyntaxProblem(f"this expression is too deep: at most {MAX_EXPR_DEPTH} operators, calls and dice "
                                "one inside another (a sum of 60 terms is 59 `+`, each inside the next)",
                                span_of(node), Code.TOO_LARGE, "name a part of it with `let` and use the name")
        stack.extend((child, depth + 1, nesting) for child in node.children if isinstance(child, Tree))


# ---------------------------------------------------------------- errors


MAX_SYNTAX_ERRORS = 100  # syntax errors of one file reported in one run (the report shows the first 50)


def restart_lines(lines: list[str]) -> list[int]:
    """Lines where a definition starts (column 0, a kind keyword or a near miss of one, then a name or text).

    After a syntax error the parse resumes at the next of these, so every definition's first
    mistake is reported and nothing is reported twice. Lines inside `\"\"\"` text are skipped.
    """
    starts: list[int] = []
    inside = False
    words = [w for w in TOP_WORDS if w != "ruleset"]
    for number, text in enumerate(lines, 1):
        was_inside = inside
        if text.count('"""') % 2:
            inside = not inside
        if was_inside:
            continue
        match = re.match(r"([A-Za-z_]\w*)[ \t]+[^\s:=]", text)
        if match is None:
            continue
        word = match.group(1).lower()
        if word in words or (re.match(r"\w+[ \t]+\w+(?:[ \t]*[\"\[]|[ \t]*$)", text)  # a misspelt kind, a name
                             and difflib.get_close_matches(word, words, n=1, cutoff=0.75)):
            starts.append(number)
    return starts


def syntax_errors(path: str, first: UnexpectedInput | IndentationProblem, lines: list[str]) -> list[Diagnostic]:
    """Every definition's first syntax error, in order: after each, the parse resumes at the next definition."""
    found: list[Diagnostic] = []
    seen: set[tuple[int, int, str]] = set()
    starts = restart_lines(lines)
    error: UnexpectedInput | IndentationProblem = first
    source_lines = lines
    while len(found) < MAX_SYNTAX_ERRORS:
        diagnostic = _syntax_diagnostic(error, path, source_lines)
        key = (diagnostic.span.line, diagnostic.span.column, diagnostic.code)
        if key not in seen:
            seen.add(key)
            found.append(diagnostic)
        after = max(diagnostic.span.line, _error_line(error, diagnostic.span.line) - 1)
        restart = next((start for start in starts if start > after), None)
        if restart is None:
            break
        source_lines = [""] * (restart - 1) + lines[restart - 1:]
        try:
            parser().parse("\n" * (restart - 1) + "\n".join(lines[restart - 1:]))
            break
        except (UnexpectedInput, IndentationProblem) as again:
            error = again
    return found


def _error_line(error: UnexpectedInput | IndentationProblem, default: int) -> int:
    """The line of what the parser met (a definition's first line when the one before had no body)."""
    token = getattr(error, "token", None)
    if isinstance(token, Token) and token.type not in ("_NL", "_DEDENT", "_INDENT", "$END"):
        return token.line or default
    return default


def _open_bracket(error: UnexpectedInput, lines: list[str]) -> Token | None:
    """A `(` or `[` still open from an earlier line when the parser failed: the likelier mistake."""
    openers: list[Token] = getattr(parser().options.postlex, "openers", [])
    if not openers:
        return None
    opener = openers[-1]
    token = getattr(error, "token", None)
    line = getattr(error, "line", 0) or 0
    if isinstance(token, Token):
        if token.type in ("$END", "_DEDENT"):  # the file ended inside the brackets
            return opener
        line = token.line or line
    if line > (opener.line or 0):
        return opener
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"?', "", lines[line - 1] if 0 < line <= len(lines) else "")
    pairs = {"LPAR": "()", "LSQB": "[]"}.get(opener.type, "()")
    return opener if text.count(pairs[0]) > text.count(pairs[1]) else None  # never closed on its line


def _accepts(error: UnexpectedInput) -> frozenset[str]:
    """What the parser could have taken (Lark's `expected` also lists what the lexer always accepts)."""
    interactive = getattr(error, "interactive_parser", None)
    if interactive is not None:
        try:
            return frozenset(interactive.accepts())
        except Exception:  # the expected sets below are the fallback
            pass
    return frozenset(getattr(error, "expected", None) or getattr(error, "allowed", None) or ())


def _failure(error: UnexpectedInput, lines: list[str]) -> Failure:
    state = getattr(error, "state", None)
    opener = _open_bracket(error, lines)
    if opener is not None:
        return Failure("unclosed", tuple(lines), opener.line or 1, opener.column or 1, opener.type, str(opener))
    if isinstance(error, UnexpectedToken):
        token = error.token
        line = (token.end_line if token.type == "_INDENT" else token.line) or error.line or 1
        return Failure("token", tuple(lines), line, token.column or error.column or 1, token.type, str(token),
                       state, _accepts(error))
    if isinstance(error, UnexpectedCharacters):
        return Failure("character", tuple(lines), error.line or 1, error.column or 1, None, "", state,
                       _accepts(error))
    last = max(len(lines) - 1, 1)  # UnexpectedEOF (not raised by LALR): the end of the last line
    return Failure("token", tuple(lines), last, len(lines[last - 1]) + 1 if lines else 1, "$END", "", state)


def _syntax_diagnostic(error: UnexpectedInput | IndentationProblem, path: str, lines: list[str]) -> Diagnostic:
    """The diagnostic of one syntax error: the curated mistake it is (syntax_examples), placed and hinted."""
    if isinstance(error, IndentationProblem):
        if error.code not in {mistake.code for mistake in MISTAKES}:
            return Diagnostic("error", error.code, str(error), path,
                              m.Span(error.line, error.column, error.line, error.column + 1), error.hint)
        failure = Failure("indent", tuple(lines), error.line, error.column, code=error.code, fields=error.fields)
    else:
        failure = _failure(error, lines)
    found = diagnose(failure, parser())
    return Diagnostic("error", found.code, found.message, path,
                      m.Span(found.line, found.column, found.line, found.end_column), found.hint)


def parse(text: str, path: str, ruleset_id: str | None = None) -> m.Ruleset:
    """Parse one ruleset's text. Raises CompileError with a positioned diagnostic."""
    report = Report()
    report.sources[path] = text
    rid = ruleset_id if ruleset_id is not None else Path(path).stem
    if len(text.encode("utf-8", errors="replace")) > MAX_SOURCE_BYTES:
        report.error(Code.TOO_LARGE, f"this file is {len(text.encode('utf-8', errors='replace')):,} bytes; the limit "
                     f"is {MAX_SOURCE_BYTES:,}",
                     path, m.Span(1, 1, 1, 2), "split the game into several rulesets")
        raise CompileError(report)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        report.error(Code.BAD_CHARACTER, "this file holds a NUL byte; it is not a text file", path,
                     m.Span(line, 1, line, 2), "save the ruleset as UTF-8 text")
        raise CompileError(report)
    if not text.endswith("\n"):
        text += "\n"
    lines = [line.rstrip("\r") for line in text.split("\n")]  # lines as the parser counts them
    try:
        tree = parser().parse(text)
        check_depth(tree)
        result = ToModel(rid, path, text).transform(tree)
        assert isinstance(result, m.Ruleset)
        return result
    except (IndentationProblem, UnexpectedInput) as error:
        for diagnostic in syntax_errors(path, error, lines):
            report.add(diagnostic)
    except SyntaxProblem as problem:
        report.error(problem.code, str(problem), path, problem.span, problem.hint)
    except VisitError as error:
        original = error.orig_exc
        if isinstance(original, SyntaxProblem):
            report.error(original.code, str(original), path, original.span, original.hint)
        else:
            raise
    raise CompileError(report)
