"""Codegen: checked model -> a standalone Python module (stdlib only).

The module is the runtime (runtime.py, copied verbatim) followed by data
literals and compiled functions. Every value reaches the source through
`repr()`, every model name is prefixed (`v_` inputs, `r_` roll facts), and
the result is passed to `compile()` before anyone sees it, as Jinja does.

Per resolver NAME the module has its data and the rule's own expressions,
each a small function, then a record naming them; the runtime does the rest
alike for every rule (`_run` resolves, `_joint` and `_totals` work the exact
odds out, `odds()`, `simulate()`, `totals()` and chains find a rule in `_RULES`):
  _OUT_NAME, _DICE_NAME_i   outcomes by band and column; groups the rules fix
  _lets_NAME(v...)          the lets, from the inputs
  _total_NAME(d, v...)      the dice expression, against a dice source
                            (runtime._Rolling rolls, _Planning records, _Replaying
                            replays); a table's key or a formula's value
  _band_NAME(...)           which band a roll lands in (-1: none)
  _column_NAME, _values_NAME, _rerolls_NAME   a column, a band's data, re-rolls
  _RULE_NAME = _Rule(...)   the roll as data
  NAME(*, inputs, rng)      the public resolver: its inputs checked, then `_run`

Every function is annotated with what its values can be (`ExprCompiler.kinds`), so the
module passes `mypy --strict` (tests/test_generated_types.py), at no cost to a roll.
Codegen writes each statement on one line; `Writer` wraps what is longer than 120
characters (`wrap`), so no line of a module is (tests/test_module_shape.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import __version__
from .. import model as m
from ..check.names import MODULE_NAMES, class_name
from ..check.state import forbidden
from ..diagnostics import MAX_OUTPUT_BYTES, output_too_large
from ..semantics import runtime
from ..semantics.evaluate import Reads, bands_read, branches, contains_dice, dice_symbols, group_reads, walk
from .words import Words, kinds_of, names_of

RUNTIME_PATH = Path(runtime.__file__)


def runtime_source() -> str:
    text = RUNTIME_PATH.read_text(encoding="utf-8")
    start = text.index("###{runtime\n") + len("###{runtime\n")
    end = text.index("###}runtime")
    return text[start:end]


def runtime_section_names() -> set[str]:
    """The runtime section's top-level names, read from its statements (for the test of names.runtime_names)."""
    names: set[str] = set()
    for node in ast.parse(runtime_source()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


class OutputTooLarge(Exception):
    """The output passed MAX_OUTPUT_BYTES while being written (stopped there, not finished)."""


LINE_WIDTH = 120  # the longest line a generated module has, as the project's own code (ruff's line-length)


class Writer:
    """Lines of a module. A line longer than `width` is wrapped as a person would (see `wrap`), so codegen
    writes each statement whole and never thinks about its length."""

    def __init__(self, width: int = LINE_WIDTH) -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.size = 0
        self.width = width

    def line(self, text: str = "") -> None:
        indent = "    " * self.depth
        written = wrap(indent, text, self.width) if text else [""]
        self.lines.extend(written)
        self.size += sum(len(line) + 1 for line in written)
        if self.size > MAX_OUTPUT_BYTES:
            raise OutputTooLarge()

    def docstring(self, text: str) -> None:
        """`text` as the docstring of the definition being written: one line, or one piece per line of the
        text in parentheses (implicitly joined, so `__doc__` is `text` exactly)."""
        indent = "    " * self.depth
        if "\n" not in text.rstrip("\n") and len(indent) + len(repr(text)) <= self.width:
            self.line(repr(text))
            return
        plain = all(line.isprintable() and len(line) + 3 <= self.width for line in text.split("\n"))
        if not indent and plain and not ("\\" in text or '"""' in text or text.endswith('"')):  # as written
            self.lines.extend(f'"""{text}"""'.split("\n"))
            self.size += len(text) + 7
            return
        self.line("(")
        for piece in string_pieces(text, self.width - len(indent) - 4):
            self.lines.append(indent + "    " + piece)
            self.size += len(self.lines[-1]) + 1
        self.line(")")

    @contextmanager
    def indent(self, deeper: bool = True) -> Iterator[None]:
        """Lines written inside are indented one level more (`deeper=False`: as they were)."""
        self.depth += deeper
        try:
            yield
        finally:
            self.depth -= deeper

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------- wrapping long lines
#
# A generated line longer than the width is split the way black splits one: at the last bracket pair whose
# opening line fits, the contents on their own lines, one item a line (short plain items such as numbers,
# names and strings packed several a line), each wrapped again in turn; a trailing comment goes on a line of
# its own above; a long string becomes implicitly joined pieces. The tokens are read by `tokens` below (the
# generated lines hold no triple-quoted strings and no backslash continuations). A test compares the
# syntax tree of every module with and without wrapping.

_TOKEN = re.compile(r"""[rRbBfFuU]{0,2}(?:'[^'\\]*(?:\\.[^'\\]*)*'|"[^"\\]*(?:\\.[^"\\]*)*")"""
                    r"""|#.*|[^\s()\[\]{},:#'"]+|\s+|.""")
_KINDS = {"(": "open", "[": "open", "{": "open", ")": "close", "]": "close", "}": "close", ",": "comma", ":": "colon",
          "#": "comment"}
Token = tuple[str, int, int]  # kind, start, end
_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "for", "lambda", "return", "yield", "await"})


def tokens(text: str) -> list[Token]:
    """(kind, start, end) of each token of a line: str, open, close, comma, colon, comment or word."""
    found = []
    at = 0
    for token in _TOKEN.findall(text):
        end = at + len(token)
        if not token[0].isspace():
            kind = "str" if len(token) > 1 and token[-1] in "'\"" else _KINDS.get(token[0], "word")
            found.append((kind, at, end))
        at = end
    return found


def part(text: str, found: list[Token], first: int, last: int) -> tuple[str, list[Token]]:
    """Tokens `first` to `last - 1` of a line, as a text of their own and its tokens (tokenized once a line)."""
    if first >= last:
        return "", []
    start, end = found[first][1], found[last - 1][2]
    return text[start:end], [(kind, a - start, b - start) for kind, a, b in found[first:last]]


def wrap(indent: str, text: str, width: int = LINE_WIDTH, inside: bool = False,
         found: list[Token] | None = None) -> list[str]:
    """`indent + text` as lines of at most `width` characters where it can be (`inside`: within brackets;
    `found`: the text's tokens, when known)."""
    if len(indent) + len(text) <= width:
        return [indent + text]
    if found is None:
        found = tokens(text)
    if found and found[-1][0] == "comment":
        code, code_found = part(text, found, 0, len(found) - 1)
        return [indent + text[found[-1][1]:], *wrap(indent, code, width, inside, code_found)]
    pairs: list[tuple[int, int]] = []  # (opening, closing) token indexes at the line's own depth
    stack: list[int] = []
    for index, (kind, _, _) in enumerate(found):
        if kind == "open":
            stack.append(index)
        elif kind == "close" and stack:
            opening = stack.pop()
            if not stack:
                pairs.append((opening, index))
    pairs = [(a, b) for a, b in pairs if b > a + 1 and len(indent) + len(text) - found[b][1] <= width]
    if not pairs:  # no bracket holds what is long: a string is
        return wrap_string(indent, text, found, width, inside)
    opening, closing = next(((a, b) for a, b in reversed(pairs) if len(indent) + found[a][2] <= width), pairs[0])
    head, body, tail = (part(text, found, 0, opening + 1), part(text, found, opening + 1, closing),
                        part(text, found, closing, len(found)))
    inner = indent + "    "
    if len(inner) + len(body[0]) <= width:
        lines = [inner + body[0]]
    else:
        before = found[opening - 1] if opening else None
        subscript = text[found[opening][1]] == "[" and before is not None and (
            before[0] == "close" or (before[0] == "word" and text[before[1]:before[2]] not in _KEYWORDS
                                     and (text[before[2] - 1].isalnum() or text[before[2] - 1] == "_")))
        pack = not head[0].startswith(("def ", "class "))  # a signature: one parameter a line
        lines = wrap_items(inner, body[0], body[1], width, pack=pack, comma=not subscript)
    return wrap(indent, head[0], width, inside, head[1]) + lines + wrap(indent, tail[0], width, inside, tail[1])


def wrap_items(indent: str, body: str, found: list[Token], width: int, pack: bool, comma: bool) -> list[str]:
    """The contents of a bracket pair, split at its commas: plain items packed (`pack`), others one a line,
    with a trailing comma (`comma`: not in a subscript, where `x[a,]` is not `x[a]`)."""
    cuts: list[int] = []  # the commas' token indexes
    depth, in_lambda, comprehension = 0, False, False
    for index, (kind, start, end) in enumerate(found):
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        elif depth == 0 and kind == "word" and body[start:end] == "lambda":
            in_lambda = True
        elif depth == 0 and kind == "colon":
            in_lambda = False
        elif depth == 0 and kind == "word" and body[start:end] == "for":
            comprehension = True
        elif depth == 0 and kind == "comma" and not in_lambda:
            cuts.append(index)
    if not cuts or comprehension:
        return wrap(indent, body, width, True, found)
    items = [part(body, found, a, b) for a, b in zip([0, *(c + 1 for c in cuts)], [*cuts, len(found)], strict=True)]
    trailing = items[-1][0] == ""
    if trailing:
        items.pop()
    comma = comma and (len(items) > 1 or trailing)
    plain = pack and not any(kind in ("open", "close") or (kind == "word" and body[start:end] == "lambda")
                             for kind, start, end in found)
    lines: list[str] = []
    packed = ""
    for number, (item, item_found) in enumerate(items):
        if comma or number < len(items) - 1:
            item, item_found = item + ",", [*item_found, ("comma", len(item), len(item) + 1)]
        if plain and packed and len(indent) + len(packed) + 1 + len(item) <= width:
            packed += " " + item
            continue
        if packed:
            lines.append(indent + packed)
            packed = ""
        if plain and len(indent) + len(item) <= width:
            packed = item
        else:
            lines.extend(wrap(indent, item, width, True, item_found))
    if packed:
        lines.append(indent + packed)
    return lines


def wrap_string(indent: str, text: str, found: list[Token], width: int, inside: bool) -> list[str]:
    """A line that ends in a long plain string (then commas or closing brackets): the string as implicitly
    joined pieces, in parentheses unless it stands alone within brackets. Any other line is left as it is."""
    last = max((i for i, (kind, _, _) in enumerate(found) if kind == "str"), default=None)
    if last is None or any(kind not in ("comma", "close") for kind, _, _ in found[last + 1:]):
        return [indent + text]
    literal = text[found[last][1]:found[last][2]]
    head, rest = text[:found[last][1]], text[found[last][2]:].strip()
    if literal[0] not in "'\"" or (head and head.rstrip()[-1] not in "=:,("):
        return [indent + text]
    if inside and not head:
        pieces = string_pieces(ast.literal_eval(literal), width - len(indent) - len(rest))
        return [indent + piece for piece in pieces[:-1]] + [indent + pieces[-1] + rest]
    pieces = string_pieces(ast.literal_eval(literal), width - len(indent) - 4)
    return [indent + head + "("] + [indent + "    " + piece for piece in pieces] + [indent + ")" + rest]


def string_pieces(value: str, room: int) -> list[str]:
    """`value` as string literals of at most `room` characters where its words allow, which joined
    are `value`: one a line of the text (its newline kept at its end), long lines broken after a space."""
    pieces: list[str] = []
    for line in value.splitlines(keepends=True) or [""]:
        piece = ""
        for word in re.findall(r"\S*\s*", line)[:-1] or [line]:
            if piece and len(repr(piece + word)) > room:
                pieces.append(repr(piece))
                piece = ""
            while len(repr(word)) > room and len(word) > 1:  # no space to break at: cut the word
                cut = max(1, room - 2 - (len(repr(word)) - len(word) - 2))
                pieces.append(repr(word[:cut]))
                word = word[cut:]
            piece += word
        pieces.append(repr(piece))
    return pieces


class ModuleNames:
    """What every resolver's expressions may name in the whole ruleset, worked out once per module."""

    def __init__(self, checked: m.CheckedRuleset) -> None:
        self.option_numbers: dict[str, int | None] = {}  # every option of a declared type: its number
        for _, spec in checked.types:
            if isinstance(spec, m.Choice):
                for option in spec.options:
                    self.option_numbers.setdefault(option.name, option.value)
        self.definitions = frozenset(d.name for d in checked.definitions)


Kinds = frozenset[str]  # what a compiled expression's value can be: "int", "bool", "str", "None"
INT, BOOL, STR, NONE = (frozenset({kind}) for kind in ("int", "bool", "str", "None"))


def type_text(kinds: Kinds) -> str:
    """Kinds as an annotation: `int`, `str | None` (a bool is an int, so `int` takes in `bool`)."""
    order = ("int", "str", "None") if "int" in kinds else ("bool", "str", "None")
    return " | ".join(kind for kind in order if kind in kinds)


class ExprCompiler(m.Visitor[str]):
    """Model expressions -> Python expressions, for one resolver, and what each one's value can be."""

    def __init__(self, resolver: m.Resolver, module: ModuleNames) -> None:
        self.resolver = resolver
        self.choices: dict[str, m.Choice] = {i.name: i.type for i in resolver.inputs
                                            if isinstance(i.type, m.Choice)}
        self.locals = {i.name for i in resolver.inputs} | {let.name for let in resolver.lets}
        self.groups = {group.name for group in resolver.groups}  # held as `Held`s, `g_<name>`
        self.option_numbers: dict[str, int | None] = {}
        for choice in self.choices.values():
            for option in choice.options:
                self.option_numbers.setdefault(option.name, option.value)
        for name, value in module.option_numbers.items():  # the ruleset's types', after the inputs' own
            self.option_numbers.setdefault(name, value)
        self.definitions = module.definitions
        self.zero = resolver.zero_dice
        self.constants: dict[int, str] = {}  # groups the rules fix, written once as module data: by id, their name
        self.symbols = dice_symbols(resolver)
        self.input_kinds: dict[str, Kinds] = {i.name: frozenset({py_type(i.type)}) for i in resolver.inputs}
        self.let_kinds: dict[str, Kinds] = {}
        self.let_choices: dict[str, str] = {}  # lets that hold a choice input's option: that input
        self.numeric_lets: set[str] = set()  # `6 * x if x < 12 else x`: an option or a number, held as a number
        for let in resolver.lets:  # a let reads inputs and the lets before it
            self.let_kinds[let.name] = self.kinds(let.expr)
            held = self.choice_of(let.expr)
            if held is not None:
                self.let_choices[let.name] = held
            elif self.mixed_number(let.expr):
                self.numeric_lets.add(let.name)
                self.let_kinds[let.name] = INT
        source = resolver.key if resolver.key is not None else resolver.value
        self.total_kinds = INT if resolver.dice else NONE if source is None else self.kinds(source)
        if source is not None and not resolver.dice and self.mixed_number(source):
            self.total_kinds = INT

    def mixed_number(self, expr: m.Expr) -> bool:
        """`6 * x if x < 12 else x`: an option on one branch, a number on another. The odds stage holds the
        option, which reads as its number; the module holds such a value as the number."""
        if not isinstance(expr, m.IfElse):
            return False
        held = [self.choice_of(b) is not None for b in branches(expr)]
        return any(held) and not all(held) and all(
            is_option or self.kinds(b) <= INT | BOOL for b, is_option in zip(branches(expr), held, strict=True))

    def kinds(self, expr: m.Expr) -> Kinds:
        """What the value of `self.expr(expr)` can be, as mypy works it out in the generated module."""
        if isinstance(expr, m.Text):
            return STR
        if isinstance(expr, (m.Boolean, m.Not, m.Logic, m.Compare)):
            return BOOL
        if isinstance(expr, m.Unknown):
            return NONE
        if isinstance(expr, m.DiceRead):
            return BOOL if expr.function in ("all", "any", "none", "doubles") else INT
        if isinstance(expr, m.Name):
            name = expr.name
            if name in self.groups:
                return INT
            if name in self.locals:
                return self.input_kinds.get(name) or self.let_kinds[name]
            if name in ("total", "natural", "zero_dice"):  # natural: None when several dice groups are rolled
                return {"total": self.total_kinds, "natural": INT | NONE, "zero_dice": BOOL}[name]
            return INT if name in ("highest", "lowest") else STR  # an option or a definition: its name
        if isinstance(expr, m.IfElse):
            return self.kinds(expr.then) | self.kinds(expr.otherwise)
        if isinstance(expr, m.Call) and expr.function == "step":
            return STR
        if isinstance(expr, (m.Number, m.Dice, m.Binary, m.Neg, m.Call)):
            return INT  # numbers, dice, arithmetic, count, rank, min, max, abs, clamp, sign
        raise TypeError(f"kinds() has no rule for {type(expr).__name__} nodes")

    def total_choice(self) -> str | None:
        """The choice input whose option a lookup's key or a formula's value is, where its options have numbers."""
        source = self.resolver.key if self.resolver.key is not None else self.resolver.value
        held = self.choice_of(source) if source is not None and not self.resolver.dice else None
        return held if held is not None and any(o.value is not None for o in self.choices[held].options) else None

    def annotation(self, name: str) -> str:
        """The type of input or let `name`."""
        return type_text(self.input_kinds.get(name) or self.let_kinds[name])

    def choice_of(self, expr: m.Expr) -> str | None:
        """The choice input whose options `expr`'s value is one of: the input itself, a step along it
        (`step(die, 1)`), a let holding one, or `x if c else y` of two such (the generated code holds the
        option's name, where the interpreter holds the option)."""
        if isinstance(expr, m.Name):
            return expr.name if expr.name in self.choices else self.let_choices.get(expr.name)
        if isinstance(expr, m.Call) and expr.function == "step" and expr.args and isinstance(expr.args[0], m.Name):
            return expr.args[0].name if expr.args[0].name in self.choices else None
        if isinstance(expr, m.IfElse):
            then = self.choice_of(expr.then)
            return then if then is not None and then == self.choice_of(expr.otherwise) else None
        return None

    def is_choice(self, expr: m.Expr) -> bool:
        if (isinstance(expr, m.Call) and expr.function == "step") or self.choice_of(expr) is not None:
            return True
        if isinstance(expr, m.Name):
            return expr.name not in self.locals | self.groups and expr.name in self.option_numbers
        return isinstance(expr, m.Text)

    def number(self, expr: m.Expr) -> str:
        """An expression used as a number: choices by their option's number, flags as 0/1."""
        choice = self.choice_of(expr)
        if choice is not None:
            return f"_N_{self.resolver.name}[{choice!r}][{self.expr(expr)}]"
        if isinstance(expr, m.Name) and expr.name == "total" and expr.name not in self.locals | self.groups and (
                held := self.total_choice()) is not None:  # a table keyed by an option: its number
            return f"_N_{self.resolver.name}[{held!r}][r_total]"
        if isinstance(expr, m.Name) and expr.name == "natural" and expr.name not in self.locals | self.groups:
            # None only when several dice groups are rolled, where the check has found that no test reads it
            return "_cast(int, r_natural)"
        if isinstance(expr, m.Name) and expr.name not in self.locals | self.groups and expr.name in self.option_numbers:
            return repr(self.option_numbers[expr.name] or 0)
        if isinstance(expr, m.IfElse):  # each branch a number: `(n if x else 4)` reads choice n by its number
            return f"({self.number(expr.then)} if {self.expr(expr.condition)} else {self.number(expr.otherwise)})"
        return self.expr(expr)

    def expr(self, expr: m.Expr) -> str:
        """`expr` as Python source (one `visit_<Kind>` per kind of node)."""
        return self.visit(expr)

    def visit_Number(self, expr: m.Number) -> str:
        return repr(expr.value)

    def visit_Text(self, expr: m.Text) -> str:
        return repr(expr.value)

    def visit_Boolean(self, expr: m.Boolean) -> str:
        return repr(expr.value)

    def visit_Unknown(self, expr: m.Unknown) -> str:
        return "None"

    def visit_Name(self, expr: m.Name) -> str:
        name = expr.name
        if name in self.groups:
            return f"g_{name}.value"
        if name in self.locals:
            return f"v_{name}"
        if name in ("total", "natural", "zero_dice", "highest", "lowest"):
            return {"total": "r_total", "natural": "r_natural", "zero_dice": "r_zero",
                    "highest": "max(r_kept)", "lowest": "min(r_kept)"}[name]
        if name in self.option_numbers or name in self.definitions:
            return repr(name)
        raise ValueError(f"unresolved name {name!r} reached codegen")

    def visit_Dice(self, expr: m.Dice) -> str:
        return self.dice_term(expr)

    def visit_Binary(self, expr: m.Binary) -> str:
        left, right = self.number(expr.left), self.number(expr.right)
        if expr.op == "/":
            return f"_floor_div({left}, {right})"
        if expr.op == "%":
            return f"_floor_mod({left}, {right})"
        return f"({left} {expr.op} {right})"

    def visit_Neg(self, expr: m.Neg) -> str:
        return f"(-{self.number(expr.operand)})"

    def visit_Not(self, expr: m.Not) -> str:
        return f"(not {self.expr(expr.operand)})"

    def visit_Logic(self, expr: m.Logic) -> str:
        return "bool(" + f" {expr.op} ".join(self.expr(o) for o in expr.operands) + ")"

    def visit_Compare(self, expr: m.Compare) -> str:
        if expr.op in ("==", "!=") and self.is_choice(expr.left) and self.is_choice(expr.right):
            left, right = self.expr(expr.left), self.expr(expr.right)
        else:
            left, right = self.number(expr.left), self.number(expr.right)
        if expr.op in ("==", "!=") and constant(left) and constant(right):
            # two constants: mypy --strict refuses `1 == 0` (never true), so the answer is written instead
            return repr((ast.literal_eval(left) == ast.literal_eval(right)) is (expr.op == "=="))
        return f"({left} {expr.op} {right})"

    def visit_IfElse(self, expr: m.IfElse) -> str:
        return f"({self.expr(expr.then)} if {self.expr(expr.condition)} else {self.expr(expr.otherwise)})"

    def visit_Call(self, expr: m.Call) -> str:
        return self.call(expr)

    def visit_DiceRead(self, expr: m.DiceRead) -> str:
        held = f"g_{expr.group}"
        if expr.operand is None:
            return {"doubles": f"(held_most({held}) >= 2)", "matches": f"held_most({held})",  # 0: a pool of no dice
                    "highest": f"max({held}.faces, default=0)",
                    "lowest": f"min({held}.faces, default=0)"}[expr.function]
        passing = f"held_count({held}, lambda face: face {expr.op} {self.number(expr.operand)})"
        return {"count": passing, "all": f"({passing} == {held}.size)", "any": f"({passing} > 0)",
                "none": f"({passing} == 0)"}[expr.function]

    def call(self, expr: m.Call) -> str:
        if expr.function == "count" and isinstance(expr.args[0], m.Name) and (
                expr.args[0].name in self.symbols or expr.args[0].name not in self.locals | self.groups | set(
                    self.option_numbers)):
            return f"r_dice.count({expr.args[0].name!r})"
        if expr.function in ("step", "rank") and isinstance(expr.args[0], m.Name):
            order = f"_O_{self.resolver.name}[{expr.args[0].name!r}]"
            if expr.function == "rank":
                return f"({order}.index(v_{expr.args[0].name}) + 1)"
            return f"step({order}, v_{expr.args[0].name}, {self.number(expr.args[1])})"
        args = [self.number(a) for a in expr.args]
        if expr.function == "count":
            return f"r_dice.count({args[0]})"
        return f"{expr.function}({', '.join(args)})"  # min, max, abs, and the runtime's clamp and sign

    def dice_term(self, term: m.Dice) -> str:
        """`d.roll(_dice(...), written)`: the group's spec as data, rolled (or planned, or replayed) by `d`."""
        code = f"d.roll({self.spec(term)}, {m.expr_text(term)!r}"
        if term.die is None and isinstance(self.zero, m.Dice) and term is not self.zero:
            code += f", {self.spec(self.zero)}"  # what a pool of no dice rolls instead
        return code + ")"

    def spec(self, term: m.Dice) -> str:
        """`_dice(2, 6, (('highest', 1),))`: the spec as data, or the name of the module constant that holds it."""
        if id(term) in self.constants:
            return self.constants[id(term)]
        count = self.number(term.count)
        sides = repr(len(term.faces)) if term.die is not None or term.sides is None else self.number(term.sides)
        args = [count, sides]
        ops = tuple((op.name, op.arg) for op in term.ops)
        if ops or term.die is not None or term.cap is not None:
            args.append(repr(ops))
        if term.die is not None or term.cap is not None:
            args.append(f"_DIE_{term.die}" if term.die is not None else "None")
        if term.cap is not None:
            args.append(self.number(term.cap))
        return f"_dice({', '.join(args)})"


def read_spec_code(reads: Reads, held: bool = False) -> str:
    """What exact odds keep apart of some dice (`runtime.ReadSpec`), as a literal."""
    counted = "None" if reads.counted is None else (
        f"frozenset({sorted(reads.counted, key=str)!r})" if reads.counted else "frozenset()")
    valued = f", {reads.valued}, {reads.merged!r}" if held else ""  # a named group's: its value read, its classes
    return f"({counted}, {reads.high}, {reads.low}{valued})"


def landed_type(resolver: m.Resolver) -> str:
    """`Outcome[_Id_action_roll]`: the outcome a resolver lands on, its ids as a Literal type, and `| None`
    unless a band takes every result."""
    if not resolver.bands:
        return "Outcome[str] | None"
    landed = f"Outcome[_Id_{resolver.name}]"
    return landed if resolver.covers else f"{landed} | None"


def result_type(resolver: m.Resolver) -> str:
    """`Result[Outcome[_Id_action_roll]]`: what a resolver returns (see landed_type)."""
    return f"Result[{landed_type(resolver)}]" if resolver.bands else "AnyResult"


def constant(code: str) -> bool:
    """Whether compiled code is a constant (`3`, `'light'`, `True`, `None`)."""
    try:
        ast.literal_eval(code)
    except (ValueError, SyntaxError):
        return False
    return True


def whole(expr: m.Expr, compiler: ExprCompiler) -> str:
    """A roll's total as an int: a dice term is one already; anything else goes through `int()`."""
    code = compiler.number(expr)
    return code if isinstance(expr, m.Dice) else f"int({code})"


def effect_code(effect: m.Effect, words: str, amount: Callable[[m.Expr], str],
                table: Callable[[m.Expr], str]) -> list[str]:
    """The `Effect(...)`s one effect line makes: one, or one per table (and time) a `->` rolls. `amount` and
    `table` compile its amounts and its tables (a band's read the roll; a full track's are constants)."""
    def number(expr: m.Expr | None) -> str:
        return "None" if expr is None else amount(expr)

    if effect.verb == "roll" and effect.chain is not None:
        return [f"Effect('roll', {table(link.target)}, None, None, None, {words!r})"
                for link in effect.chain.links for _ in range(m.chain_times(link.times))]
    marker = f", {effect.marker!r}" if effect.marker is not None else ""  # none: as before, the first marker
    return [f"Effect({effect.verb!r}, {effect.target!r}, {number(effect.amount)}, {number(effect.level)}, "
            f"{effect.input!r}, {words!r}{marker})"]


def state_code(expr: m.Expr) -> str:
    """An input's `from ...` or a condition's `while:` as Python over the game `g`: a state name is
    `g.value(name)`, `level(harm)` is `g.level('harm')`."""
    return test_code(expr, lambda name: f"g.value({name!r})")


def test_code(expr: m.Expr, name: Callable[[str], str]) -> str:
    """A reading of the state or of a roll's inputs as a Python expression, `name` giving each name's code (a
    condition's `unless:` reads a roll's inputs `i`: `i['help']`, an option by its name); a state function
    (`level(harm)`, `row(harm, 2)`) is the game's method on a track by name. The checker allows no more than these
    and arithmetic, tests and choices."""
    def code(expr: m.Expr) -> str:
        if isinstance(expr, (m.Number, m.Boolean)):
            return str(expr.value)
        if isinstance(expr, m.Name):
            return name(expr.name)
        if isinstance(expr, m.Call):
            return f"g.{expr.function}({', '.join([repr(m.expr_text(expr.args[0])), *map(code, expr.args[1:])])})"
        if isinstance(expr, m.Neg):
            return f"(-{code(expr.operand)})"
        if isinstance(expr, m.Not):
            return f"(not {code(expr.operand)})"
        if isinstance(expr, m.Binary):
            op = {"×": "*", "/": "//", "%": "%"}.get(expr.op, expr.op)
            return f"({code(expr.left)} {op} {code(expr.right)})"
        if isinstance(expr, m.Logic):
            return "(" + f" {expr.op} ".join(code(o) for o in expr.operands) + ")"
        if isinstance(expr, m.Compare):
            return f"({code(expr.left)} {expr.op} {code(expr.right)})"
        if isinstance(expr, m.IfElse):
            return f"({code(expr.then)} if {code(expr.condition)} else {code(expr.otherwise)})"
        raise TypeError(f"test_code has no rule for {type(expr).__name__} nodes")
    return code(expr)


def input_code(inputs: set[str]) -> Callable[[str], str]:
    """A name in a test of a roll's inputs `i` (a condition's `unless:`): an input is `i[name]`, any other name
    an option of one, by its name."""
    return lambda name: f"i[{name!r}]" if name in inputs else repr(name)


def sets_values(resolver: m.Resolver) -> bool:
    """Whether any band, column or formula of a resolver gives a result values (else they are `{}`)."""
    if resolver.kind == "formula" or any(column.values for column in resolver.columns):
        return True
    return any(band.values or band.chain is not None or band.column_values
               or (resolver.columns and any(isinstance(cell, int) for cell in band.cells))
               for band in resolver.bands)


def has_effects(resolver: m.Resolver) -> bool:
    """Whether a roll does anything to the game's state: a band's effects, or a `when` block's."""
    return bool(resolver.guards) or any(band.effects for band in resolver.bands)


def rolls_more(resolver: m.Resolver) -> bool:
    """Whether any band's data rolls dice (on a dice source of its own, after the roll)."""
    return any(contains_dice(e) for b in resolver.bands for _, e in b.values)


def condition_code(condition: m.Condition, value: str, compiler: ExprCompiler, by_number: str | None = None) -> str:
    """The test of one band (or column) on `value`; `by_number`: the choice whose option `value` is, where the
    ranges read the option's number (a table keyed by an option with numbers)."""
    if isinstance(condition, m.Natural):
        return f"r_natural == {condition.value}"
    if isinstance(condition, m.When):
        return compiler.expr(condition.test)
    if isinstance(condition, m.Otherwise):
        return "True"
    if isinstance(condition, m.OptionKey) and compiler.total_kinds == BOOL:  # a yes/no key: rows `yes`, `no`
        return value if condition.name == "yes" else f"not {value}" if condition.name == "no" else "False"
    if isinstance(condition, m.OptionKey):
        return f"{value} == {condition.name!r}"
    if by_number is not None:
        value = f"_N_{compiler.resolver.name}[{by_number!r}][{value}]"
    tests = []
    for part in condition.parts:
        if part.low is not None and part.high is not None:
            tests.append(f"{part.low} <= {value} <= {part.high}" if part.low != part.high
                         else f"{value} == {part.low}")
        elif part.low is not None:
            tests.append(f"{value} >= {part.low}")
        elif part.high is not None:
            tests.append(f"{value} <= {part.high}")
        else:
            tests.append("True")
    return " or ".join(tests)


MAX_BAND_TABLE = 4096  # values a band table may list (a d100 table lists 100)


def band_table(resolver: m.Resolver) -> tuple[dict[int | str, int], int] | None:
    """The band of each value, when every band names its values (`1-3`, `4`, an option), and the band of
    any other value (an `otherwise` band, or -1): a table look-up is one dict read instead of a test per band."""
    table: dict[int | str, int] = {}
    default = -1
    for index, band in ordered_bands(resolver):
        condition = band.condition
        if isinstance(condition, m.OptionKey):
            table.setdefault(condition.name, index)
        elif isinstance(condition, m.Ranges) and all(p.low is not None and p.high is not None
                                                     for p in condition.parts):
            for part in condition.parts:
                assert part.low is not None and part.high is not None
                if len(table) + part.high - part.low >= MAX_BAND_TABLE:
                    return None
                for value in range(part.low, part.high + 1):
                    table.setdefault(value, index)
        elif isinstance(condition, m.Otherwise):
            default = index if default == -1 else default
        else:
            return None
    return table, default


def ordered_bands(resolver: m.Resolver) -> list[tuple[int, m.Band]]:
    """Bands in test order: special conditions first, then ranges and options, then otherwise."""
    indexed = list(enumerate(resolver.bands))
    special = [(i, b) for i, b in indexed if isinstance(b.condition, (m.Natural, m.When))]
    plain = [(i, b) for i, b in indexed if isinstance(b.condition, (m.Ranges, m.OptionKey))]
    rest = [(i, b) for i, b in indexed if isinstance(b.condition, m.Otherwise)]
    return special + plain + rest


class ModuleWriter:
    def __init__(self, checked: m.CheckedRuleset, width: int = LINE_WIDTH) -> None:
        self.checked = checked
        self.names = ModuleNames(checked)
        self.words = Words(names_of(checked), kinds_of(checked))  # what the module's effects say
        self.w = Writer(width)
        self.at = m.NOWHERE  # the definition being written (where an output too large is reported)

    def module(self) -> str:
        w = self.w
        checked = self.checked
        header = (
            f"{checked.title or checked.id}: resolvers generated by Rulecraft {__version__}.\n\n"
            f"Generated from {checked.source_path} (sha256 {checked.source_hash}).\n"
            "Do not edit: change the ruleset and run `rulecraft build`.\n\n"
            "Every roll and table is a function with keyword-only inputs and an optional\n"
            "`rng: random.Random`; results are frozen dataclasses (see Result). `odds(name,\n"
            "**inputs)` gives exact probabilities. Standard library only."
        )
        w.docstring(header)
        w.line()
        w.line(f"__all__ = {public_names(checked)!r}")
        w.line()
        w.lines.extend(runtime_source().rstrip("\n").split("\n"))
        w.line()
        w.line(f"RULESET = {checked.id!r}")
        w.line(f"TITLE = {checked.title!r}")
        w.line(f"SOURCE_SHA256 = {checked.source_hash!r}")
        w.line(f"RULECRAFT_VERSION = {__version__!r}")
        dice = [d for d in checked.definitions if isinstance(d, m.CustomDie)]
        w.line()
        w.line()
        if dice:
            w.line("# Custom dice: the symbol on each side. A die the document lost has no symbols yet.")
            for die in dice:
                w.line(f"_DIE_{die.name} = Faces({die.name!r}, {die.symbols()!r}, {die.side_values()!r})")
        w.line("DICE: dict[str, Faces] = {" + ", ".join(f"{d.name!r}: _DIE_{d.name}" for d in dice) + "}")
        used = {node.die for resolver in checked.resolvers() for expr in resolver.expressions()
                for node in walk(expr) if isinstance(node, m.Dice) and node.die in m.BUILTIN_DICE}
        for name in sorted(used - {d.name for d in dice}):  # `4dF`, `d66`: the field's own dice
            symbols, values = zip(*m.BUILTIN_DICE[name], strict=True)
            w.line(f"_DIE_{name} = Faces({name!r}, {symbols!r}, {values!r})")
        resolvers = checked.resolvers()
        w.line()
        w.line()
        for resolver in resolvers:  # each resolver's code ends with two blank lines
            self.at = resolver.span
            self.resolver(resolver)
        for definition in checked.definitions:
            if isinstance(definition, (m.Track, m.Deck)):
                self.at = definition.span
                if isinstance(definition, m.Track):
                    self.track(definition)
                else:
                    self.deck(definition)
                w.line()
                w.line()
        self.at = m.NOWHERE
        self.catalog(resolvers)
        return w.text()

    # ---------------------------------------------------------------- resolvers

    def params(self, resolver: m.Resolver) -> str:
        return ", ".join(f"v_{i.name}: {py_type(i.type)}" for i in resolver.inputs)

    def full_params(self, resolver: m.Resolver, compiler: ExprCompiler) -> str:
        lets = ", ".join(f"v_{let.name}: {compiler.annotation(let.name)}" for let in resolver.lets)
        return ", ".join(p for p in (self.params(resolver), lets) if p)

    def held_params(self, resolver: m.Resolver, compiler: ExprCompiler) -> str:
        """`full_params`, then each named group of dice (what a band and its data read)."""
        held = ", ".join(f"g_{group.name}: Held" for group in resolver.groups)
        return ", ".join(p for p in (self.full_params(resolver, compiler), held) if p)

    def args(self, resolver: m.Resolver) -> str:
        return ", ".join(f"v_{i.name}" for i in resolver.inputs)

    def resolver(self, resolver: m.Resolver) -> None:
        w = self.w
        name = resolver.name
        compiler = ExprCompiler(resolver, self.names)
        # A choice's options' numbers and order, by input: one table per resolver, so that no two designer
        # names make one module name (`a_b` with input `c`, and `a` with input `b_c`).
        numbers = {item.name: {o.name: o.value or 0 for o in item.type.options} for item in resolver.inputs
                   if isinstance(item.type, m.Choice) and any(o.value is not None for o in item.type.options)}
        if numbers:
            w.line(f"_N_{name}: dict[str, dict[str, int]] = {numbers!r}")
        stepped = {node.args[0].name for expr in resolver.expressions() for node in walk(expr)
                   if isinstance(node, m.Call) and node.function in ("step", "rank") and node.args
                   and isinstance(node.args[0], m.Name)}
        orders = {item.name: tuple(o.name for o in item.type.options) for item in resolver.inputs
                  if item.name in stepped and isinstance(item.type, m.Choice)}
        if orders:
            w.line(f"_O_{name}: dict[str, tuple[str, ...]] = {orders!r}")
        columns = resolver.columns or (None,)
        rows = []
        for band in resolver.bands:
            cells = []
            for index, column in enumerate(columns):
                text = band.text
                if column is not None:
                    cell = band.cells[index] if index < len(band.cells) else None
                    text = cell if isinstance(cell, str) else (str(cell) if isinstance(cell, int) else None)
                cells.append(f"Outcome({band.id!r}, {band.label!r}, {text!r}, {band.key_text!r}, "
                             f"{(column.label if column else None)!r})")
            rows.append("(" + ", ".join(cells) + ",)")
        ids = list(dict.fromkeys(b.id for b in resolver.bands))
        if ids:  # the outcomes this roll can land on, as a type (a band's id is text the rules wrote)
            w.line(f"_Id_{name} = _Literal[{', '.join(repr(i) for i in ids)}]")
        w.line(f"_OUT_{name}: tuple[tuple[Outcome[{f'_Id_{name}' if ids else 'str'}], ...], ...] = (")
        with w.indent():
            for row in rows:
                w.line(row + ",")
        w.line(")")
        self.fixed_dice(resolver, compiler)
        w.line()
        w.line()
        self.lets_fn(resolver, compiler)
        self.total_fn(resolver, compiler)
        self.band_fn(resolver, compiler)
        self.column_fn(resolver, compiler)
        self.values_fn(resolver, compiler)
        self.effects_fn(resolver, compiler, self.words.within(resolver))
        self.flags_fn(resolver, compiler)
        self.rerolls_fn(resolver, compiler)
        self.chain_fn(resolver, compiler)
        self.rule(resolver, compiler)
        self.public_fn(resolver, compiler)

    def fixed_dice(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """The groups whose every number the rules fix (`2d6`, `3d6 keep highest 2`), as module constants: data
        made once, where a pool's spec is made on each roll from its inputs."""
        fixed = [node for expr in resolver.expressions() for node in walk(expr) if isinstance(node, m.Dice)
                 and all(isinstance(part, m.Number) for part in (node.count, node.sides, node.cap) if part is not None)]
        for index, node in enumerate(fixed):
            code = compiler.spec(node)
            compiler.constants[id(node)] = name = f"_DICE_{resolver.name}_{index}"
            self.w.line(f"{name} = {code}  # {m.expr_text(node)}")

    def lets_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        if not resolver.lets:
            return
        w = self.w
        kinds = ", ".join(compiler.annotation(let.name) for let in resolver.lets)
        w.line(f"def _lets_{resolver.name}({self.params(resolver)}) -> tuple[{kinds}]:")
        with w.indent():
            for let in resolver.lets:
                code = compiler.number(let.expr) if let.name in compiler.numeric_lets else compiler.expr(let.expr)
                w.line(f"v_{let.name} = {code}")
            names = ", ".join(f"v_{let.name}" for let in resolver.lets)
            w.line(f"return ({names},)")
        w.line()
        w.line()

    def full_args(self, resolver: m.Resolver) -> str:
        lets = ", ".join(f"v_{let.name}" for let in resolver.lets)
        return ", ".join(p for p in (self.args(resolver), lets) if p)

    def total_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """`_total_x(d, ...)`: the roll's total through dice source `d`, a table's key, or a formula's value."""
        w = self.w
        params = self.full_params(resolver, compiler)
        kind = "int" if resolver.dice else type_text(compiler.total_kinds)
        w.line(f"def _total_{resolver.name}(d: _Rolling | _Planning | _Replaying"
               + (f", {params}" if params else "") + f") -> {kind}:")
        with w.indent():
            read = {node.name if isinstance(node, m.Name) else node.group for expr in (
                *(r.expr for r in resolver.dice), *(r.when for r in resolver.dice if r.when)) for node in walk(expr)
                if isinstance(node, (m.Name, m.DiceRead))}
            for group in resolver.groups:  # rolled first, whatever else is rolled
                assert isinstance(group.expr, m.Dice)
                held = f"g_{group.name} = " if group.name in read else ""
                zero = f", {compiler.spec(compiler.zero)}" if isinstance(compiler.zero, m.Dice) else ""
                w.line(f"{held}d.hold({compiler.spec(group.expr)}, {m.expr_text(group.expr)!r}, {group.name!r}{zero})")
            rules = [r for r in resolver.dice if r.when is not None]
            plain = next((r for r in resolver.dice if r.when is None), None)
            for rule in rules:
                assert rule.when is not None
                w.line(f"if {compiler.expr(rule.when)}:")
                with w.indent():
                    w.line(f"return {whole(rule.expr, compiler)}")
            if plain is not None:
                w.line(f"return {whole(plain.expr, compiler)}")
            elif rules:
                w.line(f"raise ValueError({resolver.name + ' has no dice for these inputs'!r})")
            else:  # a table's key, a formula's value, or nothing
                source = resolver.key if resolver.key is not None else resolver.value
                code = "None" if source is None else (
                    compiler.number(source) if compiler.mixed_number(source) else compiler.expr(source))
                w.line(f"return {code}")
        w.line()
        w.line()

    def band_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        w = self.w
        # a yes/no key, or an option whose number the ranges read (as the odds do): tested below
        held = compiler.total_choice()
        by_number = held if any(isinstance(b.condition, m.Ranges) for b in resolver.bands) else None
        table = band_table(resolver) if compiler.total_kinds != BOOL and by_number is None else None
        if table is not None:
            keys = type_text(compiler.total_kinds | {"int", "str"})
            w.line(f"_BAND_{resolver.name}: dict[{keys}, int] = {table[0]!r}  # the band of each value")
            w.line()
        params = self.held_params(resolver, compiler)
        w.line(f"def _band_{resolver.name}(r_total: {type_text(compiler.total_kinds)}, r_natural: int | None, "
               f"r_dice: Sequence[int | str] | Tally, r_kept: tuple[int, ...], r_zero: bool"
               + (f", {params}" if params else "") + ") -> int:")
        with w.indent():
            if table is not None:
                w.line(f"return _BAND_{resolver.name}.get(r_total, {table[1]})")
            else:
                for index, band in ordered_bands(resolver):
                    if isinstance(band.condition, m.Otherwise):
                        w.line(f"return {index}")
                        break
                    w.line(f"if {condition_code(band.condition, 'r_total', compiler, by_number)}:")
                    with w.indent():
                        w.line(f"return {index}")
                else:
                    w.line("return -1")
        w.line()
        w.line()

    def column_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        if resolver.column_by is None:
            return
        w = self.w
        w.line(f"def _column_{resolver.name}({self.full_params(resolver, compiler)}) -> int:")
        with w.indent():
            w.line(f"r_total = {compiler.expr(resolver.column_by)}")
            for index, column in enumerate(resolver.columns):
                w.line(f"if {condition_code(column.condition, 'r_total', compiler)}:")
                with w.indent():
                    w.line(f"return {index}")
            w.line(f"raise ValueError(f\"no column of {resolver.label} takes {{r_total}}\")")
        w.line()
        w.line()

    def values_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        if not sets_values(resolver):
            return  # the runner starts from an empty dict
        w = self.w
        params = self.held_params(resolver, compiler)
        extra = "_Rolling" if rolls_more(resolver) else "None"
        w.line(f"def _values_{resolver.name}(b: int, c: int, d: {extra}, r_total: {type_text(compiler.total_kinds)}, "
               f"r_natural: int | None, r_dice: tuple[int | str, ...], r_kept: tuple[int, ...], r_zero: bool"
               + (f", {params}" if params else "")
               + ") -> dict[str, object]:")
        with w.indent():
            w.line("values: dict[str, object] = {}")
            if resolver.kind == "formula":
                w.line("values['value'] = r_total")
            for name, expr in resolver.details if resolver.kind == "formula" else ():
                w.line(f"values[{name!r}] = {compiler.expr(expr)}")
            for index, band in enumerate(resolver.bands):
                numbers = tuple(c if isinstance(c, int) else None for c in band.cells)
                numeric = bool(resolver.columns) and any(n is not None for n in numbers)
                if not band.values and band.chain is None and not numeric and not band.column_values:
                    continue
                w.line(f"if b == {index}:")
                with w.indent():
                    if numeric:
                        w.line(f"values['value'] = {numbers!r}[c]")
                    for column_id, data in band.column_values:
                        column_index = next(i for i, c in enumerate(resolver.columns) if c.id == column_id)
                        w.line(f"if c == {column_index}:  # {column_id}")
                        with w.indent():
                            for data_name, data_expr in data:
                                w.line(f"values[{data_name!r}] = {compiler.expr(data_expr)}")
                    for name, expr in band.values:
                        w.line(f"values[{name!r}] = {compiler.expr(expr)}")
                    if band.chain is not None:  # the table rolled next, or the tables (a tuple) in turn
                        targets = [compiler.expr(link.target) for link in band.chain.links]
                        w.line(f"values['next'] = {targets[0] if len(targets) == 1 else tuple_code(targets)}")
            for index, column in enumerate(resolver.columns):
                if column.values:
                    w.line(f"if c == {index}:")
                    with w.indent():
                        for name, expr in column.values:
                            w.line(f"values[{name!r}] = {compiler.expr(expr)}")
            w.line("return values")
        w.line()
        w.line()

    def effects_fn(self, resolver: m.Resolver, compiler: ExprCompiler, words: Words) -> None:
        """`_effects_x(b, ...)`: what band `b` does to the game's state, its amounts worked out, after what every
        roll does where its `when` test holds (Game.roll applies them; takes what `_values_x` takes)."""
        if not has_effects(resolver):
            return
        w = self.w
        params = self.held_params(resolver, compiler)
        w.line(f"def _effects_{resolver.name}(b: int, c: int, d: None, r_total: {type_text(compiler.total_kinds)}, "
               f"r_natural: int | None, r_dice: tuple[int | str, ...], r_kept: tuple[int, ...], r_zero: bool"
               + (f", {params}" if params else "") + ") -> tuple[Effect, ...]:")

        def block(head: str, opener: str, listed: tuple[m.Effect, ...]) -> None:
            w.line(head)
            with w.indent():
                w.line(f"{opener} (")
                with w.indent():
                    for effect in listed:
                        for line in effect_code(effect, words.effect(effect),
                                                lambda e: f"int({compiler.number(e)})", compiler.expr):
                            w.line(line + ",")
                w.line(")")

        with w.indent():  # with no `when` block, each band returns its own; else they are gathered in `out`
            opener = "out +=" if resolver.guards else "return"
            if resolver.guards:
                w.line("out: list[Effect] = []")
            for guard in resolver.guards:
                block(f"if {compiler.expr(guard.test)}:", opener, guard.effects)
            for index, band in enumerate(resolver.bands):
                if band.effects:
                    block(f"if b == {index}:", opener, band.effects)
            w.line("return tuple(out)" if resolver.guards else "return ()")
        w.line()
        w.line()

    def flags_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """`_flags_x(...)`: the flags a result raises (`flags:`), from what a band reads."""
        if not resolver.flags:
            return
        w = self.w
        params = self.held_params(resolver, compiler)
        w.line(f"def _flags_{resolver.name}(r_total: {type_text(compiler.total_kinds)}, r_natural: int | None, "
               f"r_dice: Sequence[int | str] | Tally, r_kept: tuple[int, ...], r_zero: bool"
               + (f", {params}" if params else "") + ") -> tuple[str, ...]:")
        with w.indent():
            w.line("raised: list[str] = []")
            for name, test in resolver.flags:
                w.line(f"if {compiler.expr(test)}:")
                with w.indent():
                    w.line(f"raised.append({name!r})")
            w.line("return tuple(raised)")
        w.line()
        w.line()

    def rule(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """`_RULE_x`: the roll as data, naming its functions above; the runtime's `_run` and `_joint` do the rest."""
        w = self.w
        name = resolver.name
        fields = [repr(name), repr(resolver.label), tuple_code([repr(input_spec(i)) for i in resolver.inputs]),
                  f"_OUT_{name}", repr(tuple(b.id for b in resolver.bands)), f"_total_{name}", f"_band_{name}"]
        if resolver.lets:
            fields.append(f"lets=_lets_{name}")
        if resolver.column_by is not None:
            fields.append(f"column=_column_{name}")
        if sets_values(resolver):
            fields.append(f"values=_values_{name}")
        if resolver.rerolls:
            fields.append(f"rerolls=_rerolls_{name}")
        if resolver.flags:
            fields.append(f"flags=_flags_{name}")
            fields.append(f"flag_names={tuple(flag for flag, _ in resolver.flags)!r}")
        if resolver.horizon is not None:  # exploding dice: every total past the horizon, as one
            fields.append(f"horizon=lambda {self.full_args(resolver)}: {compiler.number(resolver.horizon)}")
        if resolver.dice:
            reads = read_spec_code(bands_read(resolver))
            if reads != read_spec_code(Reads(frozenset(), False, False)):
                fields.append(f"reads={reads}")
            if resolver.groups:
                held = [read_spec_code(group_reads(resolver, group), held=True) for group in resolver.groups]
                fields.append("held=" + tuple_code(held))
        else:
            fields.append("dice=False")
        if resolver.covers:
            fields.append("covers=True")
        if rolls_more(resolver):
            fields.append("more=True")
        if any(b.chain is not None for b in resolver.bands):
            fields.append(f"chain=_chain_{name}")
        if has_effects(resolver):
            fields.append(f"effects=_effects_{name}")
        w.line(f"_RULE_{name}: _Rule[{landed_type(resolver)}] = _Rule(")
        with w.indent():
            for field in fields:
                w.line(field + ",")
        w.line(")")
        w.line()
        w.line()

    def chain_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """`_chain_x(b, ...)`: the tables band `b` rolls next, each with how many times (a number, or the count and
        sides of the dice rolled for it), for these inputs; `_run` and `chain_odds` follow them."""
        if not any(b.chain is not None for b in resolver.bands):
            return
        w = self.w
        params = self.full_params(resolver, compiler)
        w.line(f"def _chain_{resolver.name}(b: int" + (f", {params}" if params else "") + ") -> _Links:")
        with w.indent():
            for index, band in enumerate(resolver.bands):
                if band.chain is None:
                    continue
                links = []
                for link in band.chain.links:
                    dice = m.chain_dice(link.times) if link.times is not None else None
                    times = (repr(dice) if dice is not None else
                             str(link.times.value) if isinstance(link.times, m.Number) else "1")
                    links.append(f"({compiler.expr(link.target)}, {times})")
                w.line(f"if b == {index}:")
                with w.indent():
                    w.line(f"return {tuple_code(links)}")
            w.line("return ()")
        w.line()
        w.line()

    def rerolls_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """`_rerolls_x(...)`: the outcome ids a first result is rolled again from, for these inputs."""
        if not resolver.rerolls:
            return
        w = self.w
        w.line(f"def _rerolls_{resolver.name}({self.full_params(resolver, compiler)}) -> frozenset[str]:")
        with w.indent():
            w.line("ids: set[str] = set()")
            for reroll in resolver.rerolls:
                if reroll.when is None:
                    w.line(f"ids.update({reroll.outcomes!r})")
                else:
                    w.line(f"if {compiler.expr(reroll.when)}:")
                    with w.indent():
                        w.line(f"ids.update({reroll.outcomes!r})")
            w.line("return frozenset(ids)")
        w.line()
        w.line()

    def public_fn(self, resolver: m.Resolver, compiler: ExprCompiler) -> None:
        """The function a user calls: its inputs checked, then the runtime's `_run`."""
        w = self.w
        name = resolver.name
        params = []
        for item in resolver.inputs:
            default = item.effective_default
            params.append(f"{item.name}: {py_type(item.type)}" + (f" = {default!r}" if default is not None else ""))
        params.append("rng: random.Random | None = None")
        w.line(f"def {name}(*, {', '.join(params)}) -> {result_type(resolver)}:")
        with w.indent():
            w.docstring(docstring(resolver))
            w.line(f"return _run(_RULE_{name}, rng, {tuple_code([validator(i, i.name) for i in resolver.inputs])})")
        w.line()
        w.line()

    # ---------------------------------------------------------------- tracks

    def track(self, track: m.Track) -> None:
        w = self.w
        base = ("Clock" if track.kind == "clock" else "Levels" if track.levels else
                "Markers" if track.markers else "TickedTrack" if track.ticks is not None else "Track")
        w.line(f"class {class_name(track.name)}({base}):")
        with w.indent():
            w.docstring(docstring(track))
            w.line()
            if track.levels:
                w.line(f"LEVELS = {track.levels!r}")
                w.line()
            if track.markers:
                w.line(f"MARKERS = {track.markers!r}")
                w.line(f"PER_ROUND = {track.per_round!r}")
                w.line()
            if track.ticks is not None:
                w.line(f"TICKS = {track.ticks!r}")
                w.line(f"RANKS = {track.ranks!r}")
                w.line()
            size = f"size: int = {track.size}" if track.size is not None else "size: int"
            points = ", key_points: tuple[int, ...] = ()" if track.markers else ""
            points += ", ticks: int | None = None" if track.ticks is not None else ""
            w.line(f"def __init__(self, {size}, marked: int = {track.start}{points}) -> None:")
            with w.indent():
                if track.markers:
                    w.line("self.key_points = key_points")
                w.line(f"super().__init__(size=size, marked=marked, label={track.label!r}, "
                       f"on_full={track.on_full!r}, roll_over={track.roll_over!r}, "
                       f"reset_on_full={track.reset_on_full!r})")
                if track.ticks is not None:
                    w.line("if ticks is not None:")
                    with w.indent():
                        w.line("self.set_ticks(ticks)")

    def deck(self, deck: m.Deck) -> None:
        w = self.w
        w.line(f"class {class_name(deck.name)}(Deck):")
        with w.indent():
            w.docstring(docstring(deck))
            w.line()
            w.line(f"LABEL = {deck.label!r}")
            w.line(f"PILES = {deck.piles!r}")
            w.line(f"RESHUFFLE = {deck.on_empty == 'reshuffle'!r}")
            cards = tuple((c.id, c.label, c.text, c.copies, c.pile) for c in deck.cards)
            if deck.status == "unknown":
                w.line("CARDS = ()  # lost from the document: list the cards in an errata entry")
            else:
                w.line("CARDS = (" + ("" if cards else ")"))
                if cards:
                    with w.indent():
                        for card in cards:
                            w.line(f"{card!r},")
                    w.line(")")

    # ---------------------------------------------------------------- catalog

    def catalog(self, resolvers: tuple[m.Resolver, ...]) -> None:
        w = self.w
        w.line("_RULES.update({")
        with w.indent():
            for resolver in resolvers:
                w.line(f"{resolver.name!r}: _RULE_{resolver.name},")
        w.line("})")
        w.line("RESOLVERS: dict[str, Callable[..., AnyResult]] = {")
        with w.indent():
            for resolver in resolvers:
                w.line(f"{resolver.name!r}: {resolver.name},")
        w.line("}")
        w.line("INPUTS: dict[str, tuple[InputSpec, ...]] = {name: rule.inputs for name, rule in _RULES.items()}")
        documents = [d for d in self.checked.definitions if isinstance(d, m.Document)]
        w.line("DOCUMENTS: dict[str, Document] = {")
        with w.indent():
            for document in documents:
                w.line(f"{document.name!r}: Document({document.name!r}, {document.kind!r}, {document.label!r}, "
                       f"{document.text!r}, {tuple_code([entry_code(e) for e in document.entries])}, "
                       f"{literal_values(document.details)!r}),")
        w.line("}")
        tracks = [d for d in self.checked.definitions if isinstance(d, m.Track)]
        w.line("TRACKS: dict[str, type[Track]] = {")
        with w.indent():
            for track in tracks:
                w.line(f"{track.name!r}: {class_name(track.name)},")
        w.line("}")
        w.line()
        w.line()
        w.line("def pick(name: str, candidates: Sequence[Mapping[str, object]]) -> Picked:")
        with w.indent():
            w.line('"""The candidate priority list `name` picks (an enemy\'s target, say), and why."""')
            w.line("if name not in DOCUMENTS or DOCUMENTS[name].kind != 'priority':")
            with w.indent():
                w.line("names = ', '.join(n for n, d in DOCUMENTS.items() if d.kind == 'priority') or 'none'")
                w.line("raise ValueError(f\"no priority list named {name!r} here; there are: {names}\")")
            w.line("return _pick_by_priority(DOCUMENTS[name], candidates)")
        w.line()
        w.line()
        decks = [d for d in self.checked.definitions if isinstance(d, m.Deck)]
        w.line("DECKS: dict[str, type[Deck]] = {")
        with w.indent():
            for deck in decks:
                w.line(f"{deck.name!r}: {class_name(deck.name)},")
        w.line("}")
        w.line()
        w.line()
        w.line("CARRY: dict[str, tuple[tuple[str, str], ...]] = {")
        with w.indent():
            for resolver in resolvers:
                if resolver.carry:
                    w.line(f"{resolver.name!r}: {resolver.carry!r},")
        w.line("}")
        w.line()
        w.line()
        w.line("def session(rng: random.Random | None = None) -> Session:")
        with w.indent():
            w.line('"""Rolls in a row, each carrying what the document says into the next (see Session)."""')
            w.line("return Session(RESOLVERS, CARRY, rng)")
        w.line()
        w.line()
        self.state_catalog(resolvers)

    def state_catalog(self, resolvers: tuple[m.Resolver, ...]) -> None:
        """The game's state as data (RESOURCES, CONDITIONS, what full tracks set off, the inputs the state
        gives) and `game()` / `load_game()`, which make a `Game` of them."""
        w = self.w
        documents = [d for d in self.checked.definitions if isinstance(d, m.Document)]
        w.line("RESOURCES: dict[str, tuple[str, int, int | None]] = {  # label, start, most")
        with w.indent():
            for d in (d for d in documents if d.kind == "resource"):
                data = dict(d.details)
                start, most = data.get("start"), data.get("max")
                w.line(f"{d.name!r}: ({d.label!r}, {start.value if isinstance(start, m.Number) else 0!r}, "
                       f"{most.value if isinstance(most, m.Number) else None!r}),")
        w.line("}")
        w.line("CONDITIONS: dict[str, ConditionSpec] = {  # label, text, rolls forbidden, `while:`, `unless:`")
        with w.indent():
            for d in (d for d in documents if d.kind == "condition"):
                data = dict(d.details)
                forbids = tuple(forbidden(data["forbids"])) if "forbids" in data else ()
                inputs = {i.name for r in resolvers if r.name in forbids for i in r.inputs}
                test = f"lambda g: {state_code(data['while'])}" if "while" in data else "None"
                unless = f"lambda i: {test_code(data['unless'], input_code(inputs))}" if "unless" in data else "None"
                w.line(f"{d.name!r}: ({d.label!r}, {d.text!r}, {forbids!r}, {test}, {unless}),")
        w.line("}")
        tracks = [d for d in self.checked.definitions if isinstance(d, m.Track)]
        w.line("TRIGGERS: dict[str, dict[str, tuple[Effect, ...]]] = {  # what filling or marking a track sets off")
        with w.indent():
            for track in (t for t in tracks if t.full_effects or t.marked_effects):
                w.line(f"{track.name!r}: {{")
                with w.indent():
                    for event, effects in (("full", track.full_effects), ("marked", track.marked_effects)):
                        if effects:
                            w.line(f"{event!r}: (")
                            with w.indent():
                                for effect in effects:
                                    for line in effect_code(effect, self.words.effect(effect), m.expr_text,
                                                            lambda e: repr(m.expr_text(e))):
                                        w.line(line + ",")
                            w.line("),")
                w.line("},")
        w.line("}")
        w.line("STATE_INPUTS: dict[str, tuple[tuple[str, Callable[[Game], object]], ...]] = {  # `input ... from`")
        with w.indent():
            for resolver in resolvers:
                sourced = [i for i in resolver.inputs if i.source is not None]
                if sourced:
                    w.line(f"{resolver.name!r}: (")
                    with w.indent():
                        for item in sourced:
                            assert item.source is not None
                            w.line(f"({item.name!r}, lambda g: {state_code(item.source)}),")
                    w.line("),")
        w.line("}")
        w.line()
        w.line()
        w.line("def game(rng: random.Random | None = None, sizes: Mapping[str, int] | None = None) -> Game:")
        with w.indent():
            w.line('"""A game in play over every track, clock, resource and condition (see Game)."""')
            w.line("return Game(RULESET, RESOLVERS, INPUTS, TRACKS, RESOURCES, CONDITIONS, TRIGGERS, STATE_INPUTS, "
                   "rng, sizes)")
        w.line()
        w.line()
        w.line("def load_game(state: Mapping[str, object], rng: random.Random | None = None) -> Game:")
        with w.indent():
            w.line('"""A game in the state `state` (from `Game.state()`, saved as JSON)."""')
            w.line("played = game(rng)")
            w.line("played.restore(state)")
            w.line("return played")
        w.line()
        w.line()


# the runtime's types a user of a module meets
RUNTIME_PUBLIC = ("Result", "AnyResult", "Outcome", "Group", "Simulation", "Session", "Track", "Clock", "Levels",
                  "Markers", "TickedTrack", "Deck", "Card", "Document", "Entry", "Picked", "Faces", "Game", "Turn",
                  "Effect", "Forbidden")
CATALOG_NAMES = tuple(sorted(MODULE_NAMES - {"annotations"}))  # RESOLVERS, odds ...: what every module defines


def public_names(checked: m.CheckedRuleset) -> list[str]:
    """A module's `__all__`: each roll and table, each track and deck class, the catalog, then the runtime's
    types a user meets (a result, an outcome, a track ...); the runtime's helpers stay out."""
    classes = [class_name(d.name) for d in checked.definitions if isinstance(d, (m.Track, m.Deck))]
    return [r.name for r in checked.resolvers()] + classes + list(CATALOG_NAMES) + list(RUNTIME_PUBLIC)


def literal(expr: m.Expr) -> object:
    """Data as a Python value: numbers, yes/no, text; `unknown` is None; anything else its written form."""
    if isinstance(expr, (m.Number, m.Boolean, m.Text)):
        return expr.value
    if isinstance(expr, m.Unknown):
        return None
    return m.expr_text(expr)


def literal_values(values: tuple[tuple[str, m.Expr], ...]) -> dict[str, object]:
    return {name: literal(expr) for name, expr in values}


def entry_code(entry: m.ListEntry) -> str:
    children = tuple_code([entry_code(c) for c in entry.children])
    return f"Entry({entry.id!r}, {entry.label!r}, {entry.text!r}, {literal_values(entry.values)!r}, {children})"


def tuple_code(items: list[str]) -> str:
    """A tuple of these items, as source: `()`, `(a,)`, `(a, b)`."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def py_type(spec: m.IntRange | m.Flag | m.Choice) -> str:
    if isinstance(spec, m.IntRange):
        return "int"
    if isinstance(spec, m.Flag):
        return "bool"
    return "str"


def validator(item: m.ResolvedInput, value: str) -> str:
    """The call that checks an input and explains a wrong value. Only `_` names: the input itself may be
    called `type` or `check_int` (see reserved_input)."""
    spec = item.type
    if isinstance(spec, m.IntRange):
        return f"_check_int({item.name!r}, {value}, {spec.low}, {spec.high})"
    if isinstance(spec, m.Flag):
        return f"_check_flag({item.name!r}, {value})"
    options = tuple(o.name for o in spec.options)
    return f"_check_choice({item.name!r}, {value}, {options!r})"


def input_spec(item: m.ResolvedInput) -> tuple[str, str, int | None, int | None, tuple[str, ...], object]:
    spec = item.type
    if isinstance(spec, m.IntRange):
        return (item.name, "int", spec.low, spec.high, (), item.default)
    if isinstance(spec, m.Flag):
        return (item.name, "flag", None, None, (), item.effective_default)
    return (item.name, "choice", None, None, tuple(o.name for o in spec.options), item.default)


def docstring(definition: m.Resolver | m.Track | m.Deck) -> str:
    parts = [definition.label + (f" [{definition.citation.text()}]" if definition.citation else "")]
    if definition.text:
        parts.append(definition.text)
    if isinstance(definition, m.Resolver):
        for band in definition.bands:
            line = f"{band.key_text}: {band.label}"
            if band.text:
                line += f" -- {band.text}"
            parts.append(line)
    elif isinstance(definition, m.Deck):
        parts.append("Drawn without replacement; " + ("an empty deck shuffles its discards back in."
                                                      if definition.on_empty == "reshuffle" else
                                                      "an empty deck stays empty until shuffled."))
    else:
        if definition.ticks is not None:
            ranks = ", ".join(f"{rank} {ticks}" for rank, ticks in definition.ranks)
            parts.append(f"Each box holds {definition.ticks} ticks; mark_ticks(n) marks ticks, mark(n) whole boxes"
                         + (f"; progress(rank) marks, in ticks: {ranks}" if ranks else "") + ".")
        if definition.on_full:
            parts.append(f"When full: {definition.on_full}")
    return "\n\n".join(parts[:2]) + ("\n\n" + "\n".join(parts[2:]) if len(parts) > 2 else "")


def generate(checked: m.CheckedRuleset) -> str:
    """The module's source. Compiled here once, so a codegen bug fails the build, not the user."""
    writer = ModuleWriter(checked)
    try:
        source = writer.module()
    except OutputTooLarge:
        raise output_too_large("generated module", checked.source_path, MAX_OUTPUT_BYTES, writer.at) from None
    compile(source, f"output/python/{checked.id}.py", "exec")
    return source
