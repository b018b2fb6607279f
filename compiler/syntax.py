"""Syntax: source text -> parse tree -> source model, with syntax diagnostics.

`parse(text, path)` returns a `Ruleset` (the source layer of `model`) or
raises `CompileError` whose report holds a positioned, plain-words message.
The transformer has one method per grammar rule and fails loudly on a rule
it does not handle.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import Indenter

from . import model as m
from .diagnostics import CompileError, Report
from .resources import grammar_path

MAX_SOURCE_BYTES = 4_000_000
MAX_NESTING = 40


class IndentationProblem(Exception):
    def __init__(self, message: str, line: int, column: int, hint: str) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.hint = hint


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
                "indent with spaces only (two per level reads well)",
            )
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            if len(self.indent_level) > MAX_NESTING:
                raise IndentationProblem("indentation is nested too deeply", token.end_line or 1, 1,
                                         "a definition's body needs at most a few levels")
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
        else:
            while indent < self.indent_level[-1]:
                self.indent_level.pop()
                yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
            if indent != self.indent_level[-1]:
                raise IndentationProblem(
                    f"this line is indented by {indent} but no enclosing block starts at that column",
                    token.end_line or 1, indent + 1,
                    f"line it up with an earlier line (column {self.indent_level[-1] + 1})",
                )


@cache
def parser() -> Lark:
    return Lark(
        grammar_path().read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        postlex=RulesIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        cache=False,
    )


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
    return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match.group(1), match.group(0)), body, flags=re.S)


def parse_int(token: str) -> int:
    return int(token.replace(",", ""))


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
        return m.Item(kind, str(name), label, citation, inputs, lets, attrs, entries,
                      columns[0] if columns else None, None, span_of(name))

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
        name, spec, default, doc = children
        if isinstance(default, Token):
            default = str(default)
        elif isinstance(default, m.Boolean):
            default = default.value
        return m.Input(str(name), spec, default, decode_string(doc) if doc is not None else None,
                       span_of(name))

    def let(self, meta: Any, children: list[Child]) -> m.Let:
        return m.Let(str(children[0]), children[1], span_of(children[0]))

    def attr(self, meta: Any, children: list[Child]) -> m.Attr:
        name, when, value = children
        return m.Attr(str(name), value, when, span_of(name))

    def block(self, meta: Any, children: list[Child]) -> m.Attr:
        attrs = tuple(c for c in children[1:] if isinstance(c, m.Attr))
        entries = tuple(c for c in children[1:] if isinstance(c, m.Entry))
        return m.Attr(str(children[0]), m.Block(attrs, entries, span_of(meta)), None, span_of(children[0]))

    def columns(self, meta: Any, children: list[Child]) -> m.Columns:
        return m.Columns(children[0], tuple(children[1:]), span_of(meta))

    # ------------------------------------------------------------ entries

    def entry(self, meta: Any, children: list[Child]) -> m.Entry:
        key, payload = children[0], children[1]
        ident, cells, chain = payload
        attrs = tuple(c for c in children[2:] if isinstance(c, m.Attr))
        return m.Entry(key, ident, cells, chain, attrs, span_of(meta))

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

    def chain(self, meta: Any, children: list[Child]) -> m.Expr:
        return children[0]  # type: ignore[no-any-return]

    def ranges(self, meta: Any, children: list[Child]) -> m.Ranges:
        parts = tuple(part for child in children for part in child)
        return m.Ranges(parts, self.source_text(meta), span_of(meta))

    def source_text(self, meta: Any) -> str:
        """The exact notation the designer wrote (whitespace folded), for the sheet."""
        return " ".join(self._source[meta.start_pos:meta.end_pos].split())

    def exact(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(children[0], children[0])]

    def at_least(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(children[0], None)]

    def at_most(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        return [m.Interval(None, children[0])]

    def between(self, meta: Any, children: list[Child]) -> list[m.Interval]:
        low, high = children
        if low > high:
            raise SyntaxProblem(f"the range {low}-{high} runs backwards", span_of(meta))
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

    def kept(self, meta: Any, children: list[Child]) -> m.Kept:
        dice, (mode, count) = children
        return m.Kept(dice, mode, count, span_of(meta))

    def keep(self, meta: Any, children: list[Child]) -> tuple[str, int]:
        mode, count = children
        return (mode, parse_int(count) if count is not None else 1)

    def high_low(self, meta: Any, children: list[Child]) -> str:
        return str(children[0])

    def dice(self, meta: Any, children: list[Child]) -> m.Dice:
        count, sides = str(children[0]).lower().split("d")
        return m.Dice(int(count) if count else 1, int(sides), span_of(meta))

    def pool(self, meta: Any, children: list[Child]) -> m.Pool:
        count, die = children
        text = str(die).lower()
        if text.split("d")[0]:
            raise SyntaxProblem("write a pool as `(rating)d6`, with nothing between `)` and `d`",
                                span_of(die))
        return m.Pool(count, int(text.split("d")[1]), span_of(meta))

    def dice_of(self, meta: Any, children: list[Child]) -> m.Pool:
        token, sides = children
        count = str(token)[:-1]
        return m.Pool(m.Number(int(count) if count else 1, span_of(token)), sides, span_of(meta))

    def pool_of(self, meta: Any, children: list[Child]) -> m.Pool:
        count, token, sides = children
        if str(token)[:-1]:
            raise SyntaxProblem("write a pool as `(count)d(sides)`, with nothing between `)` and `d`",
                                span_of(token))
        return m.Pool(count, sides, span_of(meta))

    def custom_pool(self, meta: Any, children: list[Child]) -> m.CustomPool:
        count, die = children
        if isinstance(count, Token):  # a bare INT: `2 enemy`
            count = m.Number(parse_int(count), span_of(count))
        return m.CustomPool(count, str(die), span=span_of(meta))

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
                                span_of(meta))
        return m.Path(item, member, selector, span_of(meta))


def _with_section(item: m.Item, section: str | None) -> m.Item:
    return m.Item(item.kind, item.name, item.label, item.citation, item.inputs, item.lets, item.attrs,
                  item.entries, item.columns, section, item.span)


class SyntaxProblem(Exception):
    def __init__(self, message: str, span: m.Span) -> None:
        super().__init__(message)
        self.span = span


# ---------------------------------------------------------------- errors


TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": 'a quoted text like "..."',
    "INT": "a number",
    "DICE": "dice like 2d6",
    "_NL": "the end of the line",
    "_INDENT": "an indented line",
    "_DEDENT": "a line that is indented less",
    "COLON": '":"',
    "MINUS": '"-"',
    "PLUS": '"+"',
    "LSQB": '"["',
    "RSQB": '"]"',
    "LPAR": '"("',
    "RPAR": '")"',
    "COMMA": '","',
    "SOURCE_ID": "a source ID like TOG-01",
    "CODE": "a check code like RANGE-GAP",
    "$END": "the end of the file",
    "DOTDOT": '".."',
    "EQUAL": '"="',
    "VBAR": '"|"',
}


def _describe(expected: set[str]) -> str:
    words: list[str] = []
    for name in sorted(expected):
        if name in TERMINAL_WORDS:
            words.append(TERMINAL_WORDS[name])
        elif re.fullmatch(r"[A-Z_]+", name) and name not in ("__ANON_0",):
            literal = name.lower().replace("_", " ")
            words.append(f'"{literal}"')
    unique = list(dict.fromkeys(words))
    if not unique:
        return "something else"
    if len(unique) > 6:
        unique = [*unique[:6], "..."]
    return ", ".join(unique)


def _token_words(token: Token) -> str:
    if token.type == "_NL":
        return "the end of the line"
    if token.type == "_INDENT":
        return "an indented line"
    if token.type == "_DEDENT":
        return "the end of an indented block"
    if token.type == "$END":
        return "the end of the file"
    return f"`{token}`"


def syntax_hint(error: UnexpectedInput, line_text: str) -> str | None:
    """A plain-words hint from what the line looks like (curated in syntax_examples)."""
    from .syntax_examples import hint_for

    return hint_for(error, line_text)


def parse(text: str, path: str, ruleset_id: str | None = None) -> m.Ruleset:
    """Parse one ruleset's text. Raises CompileError with a positioned diagnostic."""
    report = Report()
    report.sources[path] = text
    rid = ruleset_id if ruleset_id is not None else Path(path).stem
    if len(text.encode("utf-8", errors="replace")) > MAX_SOURCE_BYTES:
        report.error("TOO-LARGE", f"this file is {len(text):,} characters; the limit is {MAX_SOURCE_BYTES:,}",
                     path, m.Span(1, 1, 1, 2), "split the game into several rulesets")
        raise CompileError(report)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        report.error("BAD-CHARACTER", "this file holds a NUL byte; it is not a text file", path,
                     m.Span(line, 1, line, 2), "save the ruleset as UTF-8 text")
        raise CompileError(report)
    if not text.endswith("\n"):
        text += "\n"
    lines = text.splitlines()
    try:
        tree = parser().parse(text)
        result = ToModel(rid, path, text).transform(tree)
        assert isinstance(result, m.Ruleset)
        return result
    except IndentationProblem as problem:
        report.error("INDENT", str(problem), path, m.Span(problem.line, problem.column, problem.line,
                                                           problem.column + 1), problem.hint)
    except UnexpectedInput as error:
        report.add(_syntax_diagnostic(error, path, lines))
    except VisitError as error:
        original = error.orig_exc
        if isinstance(original, SyntaxProblem):
            report.error("SYNTAX", str(original), path, original.span)
        else:
            raise
    raise CompileError(report)


def _syntax_diagnostic(error: UnexpectedInput, path: str, lines: list[str]) -> Any:
    from .diagnostics import Diagnostic

    line = getattr(error, "line", 0) or 0
    column = getattr(error, "column", 0) or 0
    if isinstance(error, UnexpectedToken) and error.token.type in ("_NL", "_DEDENT", "_INDENT", "$END"):
        # Point at the end of the line the parser was reading, not at the next one.
        prev = error.token
        line = prev.line or line
        if prev.type == "_NL" or prev.type in ("_DEDENT", "_INDENT"):
            line = max((prev.line or 1), 1)
            text = lines[line - 1] if 0 < line <= len(lines) else ""
            column = len(text.rstrip()) + 1
    line_text = lines[line - 1] if 0 < line <= len(lines) else ""
    if isinstance(error, UnexpectedCharacters):
        char = line_text[column - 1: column] if column else "?"
        message = f"unexpected character `{char}`"
        end = column + 1
    elif isinstance(error, UnexpectedToken):
        message = f"unexpected {_token_words(error.token)}; expected {_describe(set(error.expected))}"
        invisible = error.token.type in ("_NL", "_DEDENT", "_INDENT")
        end = column + 1 if invisible else column + max(len(str(error.token)), 1)
    elif isinstance(error, UnexpectedEOF):
        message = "the file ends in the middle of a definition"
        end = column + 1
    else:
        message = str(error).splitlines()[0]
        end = column + 1
    hint = syntax_hint(error, line_text)
    code = "SYNTAX"
    from .syntax_examples import code_for

    code = code_for(error, line_text) or code
    return Diagnostic("error", code, message, path, m.Span(line, column, line, end), hint)


def walk_tree(tree: Tree[Token]) -> Iterator[Tree[Token]]:
    yield from tree.iter_subtrees()
