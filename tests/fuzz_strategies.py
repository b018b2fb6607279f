"""Hypothesis strategies for fuzzing the compiler (tests/test_fuzz.py).

Two sources of input:

- `rulesets()`: small rulesets built from the grammar's shapes (grammar/rules.lark): a header, types,
  sections, definitions of every kind with inputs, lets, dice, bands in every range form, tables with
  cells and columns, chains and errata. Expressions use the inputs in scope by kind, so most names
  resolve and many rulesets check clean, reaching code generation and the sheets; about one value in
  four is absurd (huge numbers, 0-sided dice, backwards and empty ranges, self-referencing chains).
  `nested()` builds deep nesting of each kind.
- `mutants()`: pieces of the five real rulesets (the header and types with one to three definitions,
  or a window of lines) with lines and tokens deleted, duplicated and swapped, characters inserted
  and numbers made huge. Pieces keep a case fast: a whole real ruleset takes seconds to check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("tides_of_gold", "wyrd_wolds", "dice_ladder", "errant", "everrain")

HUGE = (1001, 5000, 10**6, 10**9, 10**18 - 1, 10**18, 10**30, 2**63, 10**100)


def _odd(common: st.SearchStrategy[str], absurd: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Mostly `common`, one time in eight `absurd` (a value past a limit, an empty range, a wrong kind)."""
    return st.one_of(*([common] * 7), absurd)


NUMBER = _odd(st.integers(0, 12).map(str), st.sampled_from([str(v) for v in HUGE] + ["0", "-0"]))
# (name, declaration, kind): numeric inputs appear in arithmetic, flags in tests, choices in d(...) and `=`.
INPUTS: tuple[tuple[str, str, str], ...] = (
    ("a", "0..4 = 1", "number"), ("a", "1..3", "number"), ("x", "-2..2 = 0", "number"), ("x", "wealth = 2", "number"),
    ("b", "flag", "flag"), ("b", 'flag = yes "bonus die"', "flag"),
    ("die", "one of d4 (4), d6 (6), d8 (8) = d6", "choice"), ("die", "ladder = d6", "choice"),
    ("pos", 'one of controlled "Controlled", risky, desperate = risky', "option"),
)
ABSURD_INPUTS: tuple[tuple[str, str, str], ...] = (
    ("a", "0..1000000000", "number"), ("a", "5..1", "number"), ("a", "0..0", "number"), ("x", "0..5000 = 0", "number"),
    ("a", "0..4 = 9", "number"), ("b", "flag = 3", "flag"), ("die", "one of d0 (0), huge (5000) = d0", "choice"),
    ("die", "one of d4 (4), d6 = d4", "choice"), ("x", "missing_type", "number"), ("x", "loop", "number"),
    ("a", "0..999999999999999999999", "number"), ("pos", "one of a, a", "option"),
)
TYPES = ("type wealth: 0..5", "type ladder: one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12)")
ABSURD_TYPES = ("type loop: loop", "type wealth: 0..100000000", "type ladder: one of d4 (4), big (1001)",
                "type wealth: 9..1")
TEXT = st.sampled_from(['"x"', '"Hit the **target**"', '"unclosed (bracket"', '"trailing,"', '""',
                        '"quote \\" and \\\\ back"', '"""\n    long\n    text\n    """', '"中文 🎲"',
                        '"{{ jinja }} <script>alert(1)</script>"'])
DICE = _odd(st.sampled_from(["d6", "2d6", "d20", "3d6 keep highest 2", "d100", "2d6 lowest", "d3", "4d6 keep lowest 3",
                             "1D6", "d4 highest"]),
            st.sampled_from(["5000d6", "1001d6", "d0", "d1001", "0d6", "2d6 keep highest 5", "100d100", "20d20",
                             "d1", "1000d2", "2d1000", "40d6", "d99999999999999999999", "3d6 keep lowest 0"]))


def _paren(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


@cache
def numbers(names: tuple[str, ...]) -> st.SearchStrategy[str]:
    """Arithmetic over numbers and the numeric names in scope (`min`, `clamp`, `x if T else y`, ...)."""
    leaves = st.one_of(NUMBER, st.sampled_from(names)) if names else NUMBER

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.builds(lambda a, op, b: f"{a} {op} {_paren(b)}", inner, st.sampled_from("+-*×/%"), inner),
            inner.map(lambda e: f"-{_paren(e)}"),
            st.builds(lambda f, args: f"{f}({', '.join(args)})", st.sampled_from(["min", "max", "abs", "sign"]),
                      st.lists(inner, min_size=1, max_size=2)),
            st.builds(lambda a, b, c: f"clamp({a}, {b}, {c})", inner, inner, inner),
            st.builds(lambda a, t, b: f"{_paren(a)} if {t} else {_paren(b)}", inner, tests(names, False), inner),
        )

    return st.recursive(leaves, extend, max_leaves=5)


@cache
def tests(names: tuple[str, ...], roll: bool) -> st.SearchStrategy[str]:
    """Conditions: comparisons, flags, `not`, `and`/`or`; `roll` adds what band tests read (total, count(6))."""
    facts = ["total", "natural", "highest", "lowest", "count(6)", "count(1)", "zero_dice"] if roll else []
    leaf_numbers = st.one_of(NUMBER, st.sampled_from([n for n in names if n not in ("b", "die", "pos")] + facts)
                             if [n for n in names if n not in ("b", "die", "pos")] + facts else NUMBER)
    leaves = st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", leaf_numbers, st.sampled_from(["=", "!=", "<", "<=", ">", ">=",
                                                                                  "≥"]), leaf_numbers),
        st.sampled_from([n for n in names if n == "b"] + ["yes", "no"] + (["zero_dice"] if roll else [])),
        st.just("pos = risky" if "pos" in names else "die = d6" if "die" in names else "yes"),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(inner.map(lambda t: f"not {_paren(t)}"),
                         st.builds(lambda a, op, b: f"{_paren(a)} {op} {_paren(b)}", inner,
                                   st.sampled_from(["and", "or"]), inner))

    return st.recursive(leaves, extend, max_leaves=3)


@cache
def dice(names: tuple[str, ...], custom: bool = False) -> st.SearchStrategy[str]:
    """A `roll:` expression: dice terms (fixed, pools, `d(die)`, custom dice) plus or minus numbers."""
    numeric = [n for n in names if n in ("a", "x")]
    terms = [DICE, st.sampled_from(["2 att", "(1) att"] if custom else ["2 att"] + ["d6"] * 9)]
    if numeric:
        terms.append(st.builds(lambda n, s, k: f"({n})d{s}{k}", st.sampled_from(numeric),
                               st.sampled_from(["6", "6", "10", "1001"]), st.sampled_from(["", " highest"])))
    if "die" in names:
        terms.append(st.sampled_from(["d(die)", "2d(die) highest", "d(step(die, 1))"]))
    term = st.one_of(*terms)
    return st.one_of(term, st.builds(lambda t, op, e: f"{t} {op} {_paren(e)}", term, st.sampled_from("+-"),
                                     numbers(tuple(numeric))),
                     st.builds(lambda t, u: f"{t} + {u}", term, term))


KEYS = _odd(
    st.one_of(
        st.builds(lambda a, b: f"{a}-{b}", st.integers(1, 10), st.integers(5, 20)),
        st.builds(lambda a, w: f"{a}{w}", st.integers(2, 20), st.sampled_from(["+", " or more", " or higher",
                                                                               " or less", " or lower"])),
        st.builds(lambda w, a: f"{w} {a}", st.sampled_from(["less than", "more than"]), st.integers(2, 20)),
        st.builds(lambda a, b: f"{a}/{b}", st.integers(1, 12), st.integers(1, 12)),
        st.builds(lambda a, b: f"{a}, {b}", st.integers(1, 12), st.integers(1, 12)),
        st.integers(1, 20).map(str),
        st.integers(2, 20).map(lambda v: f"natural {v}"),
        st.just("otherwise"),
    ),
    st.sampled_from(["9-7", "-3", "-5--1", "0", "1000000000+", "natural 0", f"{10**30}", "100000000-1000000000",
                     "less than -1000000000000"]),
)


@st.composite
def bands(draw: st.DrawFn, names: tuple[str, ...], columns: int = 0, options: tuple[str, ...] = (),
          tables: tuple[str, ...] = ()) -> list[str]:
    """Bands or rows: `- KEY: id "text" | cells -> next` with data lines (numbers, tests, dice)."""
    lines: list[str] = []
    for index in range(draw(st.integers(1, 6))):
        if len(options) > 0 and draw(st.booleans()):
            key = draw(st.sampled_from(options))
        elif draw(st.integers(0, 5)) == 0:
            key = "when " + draw(tests(names, True))
        else:
            key = draw(KEYS)
        ident = draw(st.sampled_from(["", f"o{index} ", f"o{index} ", f"o{index} ", "class "]))
        cells = [draw(TEXT) for _ in range(max(columns, 1))]
        if columns and draw(st.integers(0, 3)) == 0:
            cells[-1] = draw(st.sampled_from(["—", "3", "-2"]))
        chain = draw(st.sampled_from(["", "", "", "", " -> missing", *(f" -> {t}" for t in tables),
                                      *(f" -> {t} if b else {tables[0]}" for t in tables if "b" in names)]))
        lines.append(f"  - {key}: {ident}{' | '.join(cells)}{chain}")
        for _ in range(draw(st.integers(0, 2))):
            name = draw(st.sampled_from(["harm", "stress", "complication", "next_roll", "note", "label", "text"]))
            value = draw(st.one_of(numbers(tuple(n for n in names if n in ("a", "x"))), DICE,
                                   tests(names, True), TEXT))
            lines.append(f"      {name}: {value}")
    return lines


@st.composite
def resolver(draw: st.DrawFn, kind: str, name: str, defined: tuple[str, ...]) -> list[str]:
    """A roll, table, lookup or formula whose names mostly resolve."""
    chosen: list[tuple[str, str, str]] = draw(st.lists(st.one_of(*([st.sampled_from(INPUTS)] * 3),
                                                                 st.sampled_from(ABSURD_INPUTS)),
                                                       max_size=3, unique_by=lambda i: i[0]))
    names = tuple(n for n, _, _ in chosen)
    label = draw(st.sampled_from(["", ' "Label"']))
    citation = draw(_odd(st.just("[T-1]"), st.sampled_from(["", "[lines 9-5]", "[T-1, line 3]"])))
    lines = [f"{kind} {name}{label} {citation}"]
    lines += [f"  input {n}: {declaration}" for n, declaration, _ in chosen]
    if draw(st.integers(0, 3)) == 0:
        lines.append(f"  let m = {draw(numbers(tuple(n for n in names if n in ('a', 'x'))))}")
        names += ("m",)
    numeric = tuple(n for n in names if n in ("a", "x", "m"))
    options: tuple[str, ...] = ()
    columns = 0
    if kind in ("roll", "table"):
        custom = "att" in defined
        lines.append(f"  roll: {draw(dice(names, custom))}")
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"  roll if {draw(tests(names, False))}: {draw(dice(names, custom))}")
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"  reroll{draw(st.sampled_from(['', ' if b' if 'b' in names else '']))}: "
                         f"{draw(st.sampled_from(['o0', 'o1', 'o0 or o1', 'missing']))}")
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"  zero_dice: {draw(st.sampled_from(['2d6 lowest', 'd6', '(a)d6']))}")
        if kind == "table" and "pos" in names and draw(st.booleans()):
            columns = 3
            lines += ["  columns by pos:", '    - controlled: controlled "Controlled"', '    - risky: risky "Risky"',
                      '    - desperate: desperate "Desperate"']
    elif kind == "lookup":
        key = draw(st.one_of(numbers(numeric), st.sampled_from([n for n in names if n in ("die", "pos")] or ["1"])))
        lines.append(f"  key: {key}")
        options = {"die": ("d4", "d6", "d8"), "pos": ("controlled", "risky", "desperate")}.get(key, ())
    else:
        lines.append(f"  value: {draw(numbers(numeric))}")
    if draw(st.integers(0, 3)) == 0:
        lines.append(f"  text: {draw(TEXT)}")
    if kind != "formula" or draw(st.booleans()):
        tables = tuple(t for t in ("r", "t", "zone") if t in defined)
        lines += draw(bands(names, columns, options, tables))
    return lines


@st.composite
def other(draw: st.DrawFn, kind: str, name: str) -> list[str]:
    """A list, procedure, rule, bands, track, clock, die, deck or priority list."""
    lines = [f"{kind} {name} \"Label\" [T-1]"]
    if kind in ("list", "procedure", "rule"):
        lines.append(f"  text: {draw(TEXT)}")
        if kind == "list" and draw(st.booleans()):
            lines.append(f"  count: {draw(NUMBER)}")
        lines += [f"  - {draw(st.sampled_from(['', 'first: ', 'second: ']))}{draw(TEXT)}"
                  for _ in range(draw(st.integers(0 if kind == "rule" else 1, 4)))]
    elif kind == "bands":
        lines += draw(bands(()))
    elif kind in ("track", "clock"):
        size = draw(_odd(st.integers(1, 12).map(str), st.sampled_from(["unknown", "0", "1001", "1000000000000"])))
        lines.append(f"  size: {size}")
        lines.append(f"  start: {draw(_odd(st.integers(0, 3).map(str), st.sampled_from(['99', '-1'])))}")
        lines.append(f"  on_full: {draw(TEXT)}")
        if draw(st.integers(0, 3)) == 0:
            end = draw(st.sampled_from(["right", "start", "up"]))
            lines += ["  markers:", "    damage: left", f"    strain: {end}", "  per_round:",
                      f"    {draw(st.sampled_from(['strain', 'enemy']))}: {draw(st.integers(-2, 3))}"]
        if draw(st.integers(0, 3)) == 0:
            lines += ["  levels:", '    - 1: lesser "Lesser"', f"        boxes: {draw(NUMBER)}",
                      '        penalty: "-1d"', '    - 2: fatal "Fatal"']
    elif kind == "die":
        if draw(st.integers(0, 5)) == 0:
            lines.append("  faces: unknown")
        else:
            lines.append(f"  sides: {draw(_odd(st.just('6'), st.sampled_from(['0', '1001', '1000000000000'])))}")
            lines += ['  - hit "Hit"', f"      count: {draw(_odd(st.just('3'), NUMBER))}", '  - double "Two hits"',
                      f"      value: {draw(st.integers(-2, 3))}", '  - miss "Miss"', "      count: 2"]
    elif kind == "deck":
        lines += [f"  piles: {draw(st.sampled_from(['chapter', '3']))}",
                  f"  on_empty: {draw(st.sampled_from(['stop', 'reshuffle', 'explode']))}"]
        for card in ("storm", "calm"):
            lines += [f'  - {card} "{card.title()}"', f"      copies: {draw(_odd(st.integers(1, 3).map(str), NUMBER))}",
                      f"      chapter: {draw(st.integers(1, 2))}"]
    else:  # priority
        lines += [f"  nearest: {draw(_odd(st.just('distance'), st.just('3')))}", '  - captain: "Captain"',
                  '  - weakest: "Most damaged"', f"      {draw(st.sampled_from(['most', 'least']))}: damage"]
    return lines


@st.composite
def errata(draw: st.DrawFn, defined: tuple[str, ...]) -> list[str]:
    item = draw(_odd(st.sampled_from(defined), st.just("missing")))
    key = draw(KEYS)
    lines = [f'errata E-{draw(st.integers(1, 3))} "Title" [T-1]',
             f"  resolves: {draw(st.sampled_from(['RANGE-GAP', 'MISSING', 'TOO-LARGE', 'UNREACHABLE']))} in {item}",
             '  text: "why"']
    fix = draw(st.sampled_from(["move", "set", "set-band", "drop", "add", "none"]))
    if fix == "move":
        lines.append(f"  move {item}[{key}] to {draw(KEYS)}")
    elif fix == "set":
        lines.append(f"  set {item}.{draw(st.sampled_from(['size', 'roll', 'sides', 'text']))} to "
                     f"{draw(st.one_of(DICE, NUMBER, TEXT))}")
    elif fix == "set-band":
        lines.append(f'  set {item}[{key}].text to "fixed"')
    elif fix == "drop":
        lines.append(f"  drop {item}[{key}]")
    elif fix == "add":
        lines.append(f"  add to {item}:")
        lines += ["  " + line for line in draw(bands(()))]
    return lines


DEFINITIONS = (("roll", "r"), ("table", "t"), ("table", "zone"), ("lookup", "look"), ("formula", "f"),
               ("list", "lst"), ("procedure", "steps"), ("rule", "note"), ("bands", "outcomes"), ("track", "trk"),
               ("clock", "clk"), ("die", "att"), ("deck", "cards"), ("priority", "targets"))
ODD_DEFINITIONS = (("roll", "r"), ("rule", "pick"), ("list", "class"), ("track", "odds"))  # twice, or reserved


@st.composite
def rulesets(draw: st.DrawFn) -> str:
    """A small ruleset in the grammar's shapes: mostly well-formed, sometimes with absurd values."""
    lines: list[str] = []
    if draw(st.integers(0, 9)):
        lines.append('ruleset "Fuzz"')
        if draw(st.integers(0, 3)) == 0:
            lines.append(f"  zero_dice: {draw(st.sampled_from(['2d6 lowest', 'd6 highest', '(a)d6', '3']))}")
        lines.append('  author: "someone"')
    lines += draw(st.lists(_odd(st.sampled_from(TYPES), st.sampled_from(ABSURD_TYPES)), max_size=2))
    if draw(st.booleans()):
        lines.append(f'section "Rolls"{draw(st.sampled_from(["", " [lines 1-9]"]))}')
    chosen = draw(st.lists(st.sampled_from(DEFINITIONS), min_size=1, max_size=4, unique=True))
    if draw(st.integers(0, 9)) == 0:
        chosen.append(draw(st.sampled_from(ODD_DEFINITIONS)))
    defined = tuple(name for _, name in chosen)
    for kind, name in chosen:
        lines += draw(resolver(kind, name, defined) if kind in ("roll", "table", "lookup", "formula")
                      else other(kind, name))
    if draw(st.integers(0, 3)) == 0:
        lines += draw(errata(defined))
    text = "\n".join(lines) + "\n"
    if draw(st.integers(0, 19)) == 0:
        text = text.replace("\n", "\r\n")
    return text


def nested(depth: int, kind: str) -> str:
    """A roll whose dice expression nests `depth` levels of one kind."""
    inner = {"parens": "(" * depth + "2d6" + ")" * depth,
             "neg": "2d6 + " + "-" * depth + "1",
             "not": "2d6 + (1 if " + "not " * depth + "yes else 0)",
             "sum": "2d6" + " + 1" * depth,
             "calls": "2d6 + " + "max(1, " * depth + "1" + ")" * depth,
             "ifelse": "2d6 + " + "1 if yes else " * depth + "0",
             "pools": "(" * depth + "1" + ")d6" * depth}[kind]
    return f'ruleset "Deep"\n\nroll r "R" [T-1]\n  roll: {inner}\n  - 7+: hi "hi"\n  - otherwise: lo "lo"\n'


# ---------------------------------------------------------------- mutation of the real rulesets

_STARTS = re.compile(r"^(roll|table|lookup|bands|formula|list|procedure|track|clock|rule|die|deck|priority|errata|"
                     r"section)\b")


@dataclass(frozen=True)
class Source:
    name: str
    header: tuple[str, ...]  # the ruleset line, its attributes and every `type` line
    blocks: tuple[tuple[str, ...], ...]  # each definition, section or errata entry with its body
    lines: tuple[str, ...]


@cache
def sources() -> tuple[Source, ...]:
    out: list[Source] = []
    for name in RULESETS:
        lines = (ROOT / "rulesets" / f"{name}.rules").read_text(encoding="utf-8").split("\n")
        header: list[str] = []
        blocks: list[list[str]] = []
        for line in lines:
            if line.startswith("type "):
                header.append(line)
            elif _STARTS.match(line):
                blocks.append([line])
            elif blocks:
                blocks[-1].append(line)
            else:
                header.append(line)
        out.append(Source(name, tuple(header), tuple(tuple(b) for b in blocks), tuple(lines)))
    return tuple(out)


@st.composite
def pieces(draw: st.DrawFn) -> str:
    """A piece of a real ruleset: its header and types with one to three definitions, or a window of lines."""
    source = draw(st.sampled_from(sources()))
    if draw(st.integers(0, 3)) == 0:
        start = draw(st.integers(0, len(source.lines) - 1))
        return "\n".join(source.lines[start:start + draw(st.integers(40, 80))]) + "\n"
    first = draw(st.integers(0, len(source.blocks) - 1))
    chosen = source.blocks[first:first + draw(st.integers(1, 3))]
    return "\n".join(source.header + tuple(line for block in chosen for line in block)) + "\n"


INSERTS = st.one_of(
    st.sampled_from(["\t", "\x00", "“", "”", "‘", '"', "(", ")", "[", "]", "-", ":", "\n", "\r", "\u2028", "\x0c",
                     "  ", "#", "|", "->", "—", "🎲", "\\", '"""', "..", "d", "0", "é", "\ufeff"]),
    st.text(max_size=4),
)
_TOKEN = re.compile(r"\w+|[^\w\s]")
_NUMBER = re.compile(r"\d+")


def mutate(text: str, operations: list[tuple[str, int, int, str]]) -> str:
    """Apply (operation, position, other position, inserted text) mutations to `text`, in order."""
    for operation, at, other, inserted in operations:
        lines = text.split("\n")
        tokens = [m.span() for m in _TOKEN.finditer(text)]
        if operation.endswith("line"):
            i, j = at % len(lines), other % len(lines)
            if operation == "delete line":
                del lines[i]
            elif operation == "duplicate line":
                lines.insert(i, lines[i])
            elif operation == "swap line":
                lines[i], lines[j] = lines[j], lines[i]
            elif operation == "indent line":
                lines[i] = "  " * (other % 3 + 1) + lines[i] if other % 2 else lines[i].lstrip()
            text = "\n".join(lines)
        elif operation.endswith("token") and tokens:
            (a, b), (c, d) = tokens[at % len(tokens)], tokens[other % len(tokens)]
            if operation == "delete token":
                text = text[:a] + text[b:]
            elif operation == "duplicate token":
                text = text[:b] + " " + text[a:b] + text[b:]
            elif operation == "swap token" and b <= c:
                text = text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
        elif operation == "insert":
            i = at % (len(text) + 1)
            text = text[:i] + inserted + text[i:]
        elif operation == "huge number":
            numbers = list(_NUMBER.finditer(text))
            if numbers:
                found = numbers[at % len(numbers)]
                value = str(HUGE[other % len(HUGE)]) if other % 4 else "0"
                text = text[:found.start()] + value + text[found.end():]
    return text


OPERATIONS = st.tuples(
    st.sampled_from(["delete line", "duplicate line", "swap line", "indent line", "delete token", "duplicate token",
                     "swap token", "insert", "insert", "huge number", "huge number"]),
    st.integers(0, 10**6), st.integers(0, 10**6), INSERTS)


@st.composite
def mutants(draw: st.DrawFn, whole: bool = False) -> str:
    """A real ruleset (a piece of one, unless `whole`) with one to four mutations."""
    text = "\n".join(draw(st.sampled_from(sources())).lines) if whole else draw(pieces())
    return mutate(text, draw(st.lists(OPERATIONS, min_size=1, max_size=4)))
