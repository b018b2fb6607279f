"""A semantic fuzzer: whole rulesets shaped like the language's meaning, and the products held to agree.

`tests/fuzz_strategies.py` writes rulesets shaped like the grammar; this one writes rulesets shaped like
what they mean, where the compiler's semantic mistakes hide: names that collide once codegen derives
Python names from them (`a_b` with an input `c` beside `a` with an input `b_c`, `a_b` beside `a__b`, `AB`
beside a track `a_b`, a deck beside a track of a similar name, names of Python words and of the runtime),
lets that shadow inputs or each other, definitions used as values (in arithmetic, compared with options,
as chain targets, a formula naming itself), chains and their loops, custom dice with every operator,
decks and tracks, extreme numbers, bands with gaps and overlaps, and text with odd characters.

The property (`run_case`), for every ruleset:

1. `check` (`rulecraft.api.load_text`) either refuses it with errors that each name a line and column,
   or succeeds;
2. then the generated module builds and imports (from a file), the JSON, YAML and HTML exports build;
3. for every roll, table and lookup with bands, at a sample of input combinations, the generated
   module's `odds()`, the compiler's exact odds (`rulecraft.semantics.odds.odds`, what `check --odds`
   prints) and the JSON export's odds agree exactly (Fractions), as do `totals()`; where one side
   refuses (the compiler with EvalError, the module with ValueError) the other refuses too;
4. each resolver called with a seeded Random returns a Result whose outcome is one of its bands, with
   non-zero odds, and None only where the check did not prove its bands cover every result; an input
   out of its range is refused with a ValueError naming it;
5. tracks mark, decks draw, nothing raises anything but a ValueError with a message.

Any other exception, anywhere, is a failure, and so is a case that runs past its time budget.

`python -m tests.semantic_fuzz -n 10000 --seed 1 --out fuzz-failures` runs it long (`make fuzz`): each
case in a forked child with a hard time limit, progress and a summary printed, and each distinct failure
written to the folder as a minimal reproducer (shrunk: definitions, then lines, removed while the same
failure remains). `tests/test_semantic_fuzz.py` runs a short seeded pass in the test suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import random
import re
import select
import signal
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from rulecraft import model as m

# ---------------------------------------------------------------- the generator

# Names chosen to meet after any transformation codegen may apply (joining with `_`, capitalising for a
# class, prefixing `v_`/`_total_`), or to be names Python, the runtime or the module already use.
PLAIN = ("a", "b", "c", "x", "n", "r", "t", "die", "dots", "edge", "pos", "rating", "bonus", "level", "wild")
COLLIDING = ("a_b", "b_c", "a__b", "ab", "AB", "Ab", "a_b_", "ab_", "a_bc", "abc", "A_B", "x_1", "x1", "d6", "d",
             "v_a", "total_a", "band_a", "lets_a", "sea_deck", "sea_track", "SeaDeck", "SeaTrack", "sea__deck")
RESERVED = ("type", "random", "rng", "check_int", "dice", "keep", "result", "outcome", "odds", "totals", "simulate",
            "Track", "Deck", "Result", "Outcome", "session", "pick", "RESOLVERS", "DICE", "list", "int", "str", "len",
            "sum", "max", "min", "print", "None", "True", "self", "cls", "class", "def", "lambda", "import", "total",
            "natural", "highest", "lowest", "zero_dice", "count", "yes", "no", "otherwise", "when", "key", "value",
            "inputs", "name", "label", "text", "math", "Fraction", "annotations", "_x", "__init__", "exec", "eval")
# (definition, input) pairs whose Python names meet when joined: `a_b` + `c` and `a` + `b_c` (issue 22)
JOINS = (("a_b", "c"), ("a", "b_c"), ("a_b", "c_d"), ("a_b_c", "d"), ("a", "b_c_d"))
NUMBERS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 100)
HUGE = (999, 1000, 1001, 5000, 10**6, 10**9, 10**17, 10**18 - 1, 999_999_999_999_999_999, 2**62)
ODD_TEXT = ("\u2029", "\u2028", "\x1b]0;title\x07", "\x1b[2J", "\x07", "\x0b", "\x0c", "\x85", "\\\"quoted\\\"",
            "'single'", "{{ jinja }}", "{% if x %}", "<script>alert(1)</script>", "&amp;", "**bold**", "`code`",
            "\\\\", "\\n", "中文 🎲", "\u200b", "\ufeff", "\u202e", "${x}", "%s", "--", "# not a comment", "|", "->")
RELATIONS = ("=", "!=", "<", "<=", ">", ">=")


@dataclass
class Input:
    name: str
    kind: str  # "range", "flag", "choice" (options without numbers), "ladder" (options with numbers)
    options: tuple[str, ...] = ()
    low: int = 0
    high: int = 0


@dataclass
class Scope:
    """What an expression of one definition may name."""

    inputs: list[Input] = field(default_factory=list)
    lets: list[str] = field(default_factory=list)
    definitions: list[str] = field(default_factory=list)  # other definitions (used as values: a bug magnet)
    roll: bool = False  # a band test: `total`, `natural`, `count(6)` ... are in scope
    groups: list[str] = field(default_factory=list)  # named groups of dice (`let challenge = 2d10`)


class Generator:
    """One ruleset from one seed: `Generator(seed).ruleset()` (the same seed gives the same text)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.names: list[str] = []  # definition names so far
        self.kinds: dict[str, str] = {}
        self.tables: list[str] = []  # rolls and tables (chain targets)
        self.dice_names: list[str] = []  # custom dice
        self.types: dict[str, Input] = {}
        self.serial = 0
        self.wanted: list[str] = []  # names to give the next definitions, to make them collide

    # -------------------------------------------- small choices

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq: tuple[str, ...] | list[str]) -> str:
        return self.rng.choice(seq)

    def number(self) -> int:
        if self.chance(0.015):
            return self.rng.choice(HUGE)
        return self.rng.choice(NUMBERS)

    def name(self) -> str:
        roll = self.rng.random()
        if roll < 0.5:
            return self.pick(PLAIN)
        if roll < 0.95:
            return self.pick(COLLIDING)
        return self.pick(RESERVED)

    def fresh(self, kind: str) -> str:
        """A definition name: usually new, sometimes one already taken or colliding with one."""
        for _ in range(6):
            name = self.name()
            if name not in self.names or self.chance(0.03):
                return name
        self.serial += 1
        return f"{self.pick(PLAIN)}_{self.serial}"

    def text(self) -> str:
        parts = [self.pick(("Roll", "Hit the **target**", "a", "", "Take 1 harm.", "x" * 3))]
        if self.chance(0.35):
            parts.insert(self.rng.randint(0, 1), self.pick(ODD_TEXT))
        body = " ".join(parts)
        return f'"{body}"'

    def label(self) -> str:
        return "" if self.chance(0.2) else " " + self.text()

    def cite(self) -> str:
        return f" [T-{self.rng.randint(1, 9)}]" if self.chance(0.97) else ""

    # -------------------------------------------- expressions

    def numeric_names(self, scope: Scope) -> list[str]:
        names = [i.name for i in scope.inputs if i.kind in ("range", "flag", "ladder")] + list(scope.lets)
        if scope.definitions and self.chance(0.15):
            names.append(self.pick(scope.definitions))  # a definition used as a number
        if scope.roll:
            names += ["total", "natural", "highest", "lowest"]
        return names

    def expr(self, scope: Scope, depth: int = 0) -> str:
        leaves = self.numeric_names(scope)
        if depth >= 2 or self.chance(0.4):
            if leaves and self.chance(0.6):
                return self.pick(leaves)
            return str(self.number()) if self.chance(0.9) else f"-{self.number()}"
        shape = self.rng.randrange(9)
        a, b = self.expr(scope, depth + 1), self.expr(scope, depth + 1)
        if shape <= 3:
            return f"{a} {self.pick(('+', '-', '*', '×', '/', '%', '+', '-'))} {b}"
        if shape == 4:
            return f"({a} {self.pick(('+', '-', '*'))} {b})"
        if shape == 5:
            return f"{self.pick(('min', 'max'))}({a}, {b})"
        if shape == 6:
            return f"clamp({a}, {b}, {self.expr(scope, depth + 1)})"
        if shape == 7:
            ordered = [i for i in scope.inputs if i.kind in ("choice", "ladder")]
            if ordered:
                it = self.pick([i.name for i in ordered])
                return f"rank({it})" if self.chance(0.9) else f"rank(step({it}, {self.rng.randint(-2, 2)}))"
            return f"{self.pick(('abs', 'sign'))}({a})"
        return f"({a} if {self.test(scope, depth + 1)} else {b})"

    def test(self, scope: Scope, depth: int = 0) -> str:
        shape = self.rng.randrange(8)
        flags = [i.name for i in scope.inputs if i.kind == "flag"]
        choices = [i for i in scope.inputs if i.kind in ("choice", "ladder")]
        if shape == 0 and flags:
            return self.pick(flags)
        if shape == 1 and choices:
            it = self.rng.choice(choices)
            other = self.pick(it.options) if self.chance(0.85) or not scope.definitions else self.pick(
                scope.definitions)  # an option compared with a definition's name (issue 22)
            return f"{it.name} {self.pick(('=', '!='))} {other}"
        if shape == 2 and depth < 2:
            return f"{self.test(scope, depth + 1)} {self.pick(('and', 'or'))} {self.test(scope, depth + 1)}"
        if shape == 3 and depth < 2:
            return f"not {self.test(scope, depth + 1)}"
        if shape == 4 and scope.roll:
            return self.pick(("zero_dice", f"count({self.rng.randint(1, 6)}) >= {self.rng.randint(0, 3)}"))
        if shape == 5 and len(choices) >= 2 and choices[0].kind == choices[1].kind == "ladder":
            return f"{choices[0].name} > {choices[1].name}"
        if shape == 6 and scope.groups and (scope.roll or self.chance(0.1)):  # a named group, read die by die
            group = self.pick(scope.groups)
            than = self.pick(("total", str(self.rng.randint(0, 7)), self.expr(scope, 2)))
            return self.pick((f"count({group} >= {than}) >= {self.rng.randint(0, 3)}", f"all({group} < {than})",
                              f"any({than} > {group})", f"none({group} = {than})", f"doubles({group})",
                              f"matches({group}) >= 2", f"{group} > {than}", f"highest({group}) = 6"))
        return f"{self.expr(scope, depth + 1)} {self.pick(RELATIONS)} {self.expr(scope, depth + 1)}"

    # -------------------------------------------- dice

    def die_term(self, scope: Scope) -> tuple[str, int, int]:
        """One dice group, and roughly the lowest and highest totals it gives (for bands near them)."""
        shape = self.rng.randrange(12)
        ranges = [i for i in scope.inputs if i.kind == "range" and i.low >= 0 and i.high <= 6]
        ladders = [i for i in scope.inputs if i.kind == "ladder"]
        count = self.rng.choice((1, 1, 2, 2, 3, 4)) if self.chance(0.93) else self.rng.choice(
            (0, 10, 40, 100, 1000, 1001))
        sides = self.rng.choice((2, 4, 6, 6, 6, 8, 10, 12, 20)) if self.chance(0.95) else self.rng.choice(
            (1, 100, 1000, 1001, 0))
        if shape <= 3:
            return f"{count}d{sides}", count, count * sides
        if shape == 4:
            keep = self.rng.randint(0, count + 1)
            return (f"{count}d{sides} keep {self.pick(('highest', 'lowest'))} {keep}", min(keep, count),
                    min(keep, count) * sides)
        if shape == 5:
            return f"{count}d{sides} {self.pick(('highest', 'lowest'))}", 1, sides
        if shape == 6 and self.chance(0.4):
            bang = self.pick(("!", " explode")) if self.chance(0.7) else self.pick((
                "! highest", "!!", " compound", "! once", "! at most 2 times", "!! keep highest 2", "!! lowest",
                "!! once highest", "! on 2+ at most 3 times", "!!!"))
            return f"{count}d{sides}{bang}", count, count * sides * 2
        if shape == 7 and ranges:
            pool = self.rng.choice(ranges).name
            op = self.pick(("", "", " highest", " lowest", " keep highest 2", "!", " reroll 1", " reroll 2-3",
                            " reroll 1, 3+", " reroll lowest", " reroll lowest 2"))
            return f"({pool})d{sides}{op}", 0, 6 * sides
        if shape == 8 and ladders:
            it = self.rng.choice(ladders).name
            form = self.pick((f"d({it})", f"2d({it}) highest", f"d(step({it}, 1))", f"(2)d({it})", f"d({it})!",
                              f"max(d({it})!, d6!)", f"min(d({it})!!, 2d6!)"))
            return form, 1, 24
        if shape == 9 and self.dice_names:
            die = self.pick(self.dice_names)
            amount = self.pick(("1", "2", "3", "(2)", "0")) if not ranges or self.chance(0.5) else (
                f"({self.rng.choice(ranges).name})")
            op = self.pick(("", "", "", " keep highest 1", " highest", " lowest", "!", " keep lowest 2", " reroll 1"))
            return f"{amount} {die}{op}", 0, 6
        if shape == 10:
            return self.pick(("d6", "2d6", "1D6", "d20", "3d6 keep highest 2", "4d6 keep lowest 3", "4dF", "(2)dF",
                              "d66", "d666", "d%", "2d6 reroll 2", "d20 reroll 1", "3d6 reroll 2-5", "d8 reroll 1/8",
                              "2d6 reroll 2 or less", "4d6 reroll lowest", "5d4 reroll lowest 2")), 1, 18
        return f"d{sides}", 1, sides

    def dice(self, scope: Scope) -> tuple[str, int, int]:
        text, low, high = self.die_term(scope)
        for _ in range(self.rng.choice((0, 0, 1, 1, 2))):
            if self.chance(0.5):
                more, more_low, more_high = self.die_term(scope)
                op = self.pick(("+", "-", "+", "×"))
                text = f"{text} {op} {more}"
                low, high = (low + more_low, high + more_high) if op != "-" else (low - more_high, high - more_low)
            else:
                op = self.pick(("+", "-"))
                amount = self.expr(scope, 1)
                amount = amount if re.fullmatch(r"-?\w+", amount) else f"({amount})"
                text = f"{text} {op} {amount}"
        return text, low, high

    # -------------------------------------------- bands

    def band_keys(self, low: int, high: int, scope: Scope) -> list[str]:
        """Keys that mostly cover low..high once; sometimes with a gap, an overlap, `natural`, `when`."""
        low, high = max(min(low, 40), -40), max(min(high, 60), -40)
        if high < low:
            low, high = high, low
        cuts = sorted(self.rng.sample(range(low + 1, high + 1), min(self.rng.randint(0, 3), high - low)))
        edges = [low, *cuts, high + 1]
        keys: list[str] = []
        for i, (start, stop) in enumerate(itertools.pairwise(edges)):
            end = stop - 1 + (1 if self.chance(0.05) else 0) - (1 if self.chance(0.05) else 0)  # overlap / gap
            if i == 0 and self.chance(0.4):
                keys.append(self.pick((f"{end} or less", f"{end} or lower", f"less than {end + 1}")))
            elif i == len(edges) - 2 and self.chance(0.5):
                keys.append(self.pick((f"{start}+", f"{start} or more", f"{start} or higher",
                                       f"more than {start - 1}")))
            elif end <= start:
                keys.append(str(start))
            elif end == start + 1 and self.chance(0.5):
                keys.append(self.pick((f"{start}/{end}", f"{start},{end}")))
            else:
                keys.append(f"{start}-{end}")
        if self.chance(0.3):
            keys.insert(0, f"natural {self.rng.randint(max(low, 0), max(high, 1))}")
        if self.chance(0.35):
            keys.insert(self.rng.randint(0, len(keys)), f"when {self.test(scope)}")
        if self.chance(0.4):
            keys.append("otherwise")
        if self.chance(0.05):
            keys.reverse()
        return keys

    def band_lines(self, keys: list[str], scope: Scope, ids: list[str]) -> list[str]:
        lines: list[str] = []
        for index, key in enumerate(keys):
            band_id = self.pick(("hit", "miss", "crit", "a", "b", "a_b", "AB", "type", "None", "x", "none"))
            if self.chance(0.85):
                band_id = f"{band_id}{index}" if self.chance(0.9) else band_id
            ids.append(band_id)
            chain = ""
            if self.tables and self.chance(0.15):
                target = self.pick(self.tables + (self.names if self.chance(0.2) else []))
                flags = [i.name for i in scope.inputs if i.kind == "flag"]
                if flags and self.chance(0.3):
                    chain = f" -> {target} if {self.pick(flags)} else {self.pick(self.tables)}"
                else:
                    chain = f" -> {target}"
                if self.chance(0.3):  # a table rolled several times, or several tables (issue 23)
                    chain += self.pick((" x2", " x3", " x d3", " x (2d2)", f", {self.pick(self.tables)}",
                                        f", {self.pick(self.tables)} x2")) if self.chance(0.9) else self.pick(
                        (" x0", " x20"))
            lines.append(f"  - {key}: {band_id}{self.label()}{chain}")
            for _ in range(self.rng.choice((0, 0, 1, 2))):
                data = self.pick(("harm", "stress", "complication", "next_roll", "x", "a_b", "type", "value"))
                value = self.pick(("yes", "no", self.text(), "d6", "2d6", self.expr(scope), str(self.number()),
                                   "count(6)", "total - 1", "(dots)d6" if "dots" in [i.name for i in scope.inputs]
                                   else "1d4"))
                lines.append(f"      {data}: {value}")
        return lines

    # -------------------------------------------- inputs and lets

    def input_line(self, scope: Scope, name: str | None = None) -> str:
        name = name or self.name()
        shape = self.rng.randrange(8)
        if shape <= 2:
            low = self.rng.choice((0, 0, 1, -2, -3)) if self.chance(0.95) else self.rng.choice((5, 10**18, -10**18))
            high = low + self.rng.choice((0, 1, 2, 3, 4, 5)) if self.chance(0.95) else self.rng.choice(
                (low - 1, 1000, 10**6, 10**17))
            default = f" = {self.rng.randint(low, max(low, min(high, low + 5)))}" if self.chance(0.7) else (
                f" = {high + 1}" if self.chance(0.1) else "")
            scope.inputs.append(Input(name, "range", low=low, high=high))
            return f"  input {name}: {low}..{high}{default}{self.label()}"
        if shape == 3:
            scope.inputs.append(Input(name, "flag"))
            default = self.pick(("", "", " = yes", " = no")) if self.chance(0.95) else " = 1"
            return f"  input {name}: flag{default}{self.label()}"
        if shape == 4 and self.types:
            type_name = self.pick(list(self.types))
            declared = self.types[type_name]
            scope.inputs.append(Input(name, declared.kind, declared.options, declared.low, declared.high))
            default = f" = {self.pick(declared.options)}" if declared.options and self.chance(0.7) else ""
            return f"  input {name}: {type_name}{default}{self.label()}"
        numbered = shape in (5, 6)
        options = self.options(numbered)
        scope.inputs.append(Input(name, "ladder" if numbered else "choice", tuple(o.split()[0] for o in options)))
        default = f" = {options[0].split()[0]}" if self.chance(0.7) else ""
        return f"  input {name}: one of {', '.join(options)}{default}{self.label()}"

    def options(self, numbered: bool) -> list[str]:
        pool = ["d4", "d6", "d8", "low", "high", "risky", "a", "b", "a_b", "type", "yes", "none", "x1", "d6_"]
        chosen = self.rng.sample(pool, self.rng.randint(1, 4))
        if self.chance(0.04):
            chosen.append(chosen[0])  # the same option twice
        if not numbered:
            return [f'{o} "{o.upper()}"' if self.chance(0.3) else o for o in chosen]
        sides = (4, 6, 8, 10, 12, 20, 1, 0, 1001)
        return [f"{o} ({self.rng.choice(sides[:6]) if self.chance(0.95) else self.rng.choice(sides[6:])})"
                for o in chosen]

    def lets(self, scope: Scope) -> list[str]:
        lines = []
        for _ in range(self.rng.choice((0, 0, 1, 1, 2, 3))):
            roll = self.rng.random()
            if roll < 0.12 and scope.inputs:
                name = self.rng.choice(scope.inputs).name  # a let named like an input (issue 22)
            elif roll < 0.24 and scope.lets:
                name = self.pick(scope.lets)  # the same let twice (issue 22)
            else:
                name = self.name()
            value = self.expr(scope)
            if self.chance(0.05) and scope.lets:
                last = scope.lets[-1]
                value = f"{last} * {last}"  # repeated squaring
            lines.append(f"  let {name} = {value}")
            scope.lets.append(name)
        return lines

    # -------------------------------------------- definitions

    def resolver(self, kind: str) -> list[str]:
        name = self.fresh(kind)
        scope = Scope(definitions=[n for n in self.names if self.chance(0.5)] + ([name] if self.chance(0.1) else []))
        lines = [f"{kind} {name}{self.label()}{self.cite()}"]
        if self.chance(0.3):
            lines.append(f"  text: {self.text()}")
        joined = [b for a, b in JOINS if a == name]
        for index in range(self.rng.choice((0, 1, 1, 2, 2, 3))):
            lines.append(self.input_line(scope, joined[0] if joined and index == 0 else None))
        lines += self.lets(scope)
        ids: list[str] = []
        if kind in ("roll", "table"):
            for _ in range(self.rng.choice((0, 0, 0, 1, 2))):  # named groups of dice
                group = self.name()
                ranges = [i.name for i in scope.inputs if i.kind == "range" and i.low >= 0 and i.high <= 6]
                count = f"({self.pick(ranges)})" if ranges and self.chance(0.3) else str(self.rng.randint(1, 3))
                tail = self.pick(("", "", "", "", "", "", " keep highest 1", " reroll 1")) if self.chance(0.95) else "!"
                lines.append(f"  let {group} = {count}d{self.pick(('6', '8', '10'))}{tail}")
                scope.groups.append(group)
            text, low, high = self.dice(scope)
            if scope.groups and self.chance(0.5):
                group = self.pick(scope.groups)
                text = self.pick((f"{group} + {text}", f"count({group} >= {self.rng.randint(2, 6)})",
                                  f"min({group} + {self.expr(scope, 2)}, 10)"))
            lines.append(f"  roll: {text}")
            for _ in range(self.rng.choice((0, 0, 0, 1, 2))):
                more, more_low, more_high = self.dice(scope)
                lines.append(f"  roll if {self.test(scope)}: {more}")
                low, high = min(low, more_low), max(high, more_high)
            if self.chance(0.1):
                lines.append(f"  zero_dice: {self.pick(('2d6 lowest', 'd6', '0d6', '2d6 lowest + 1'))}")
            band_scope = Scope(scope.inputs, list(scope.lets), scope.definitions, roll=True, groups=scope.groups)
            if self.chance(0.2):  # a let that reads the roll, worked out with each roll (issue 23)
                name = self.name()
                reads = [f"count({g} >= {self.rng.randint(1, 6)})" for g in scope.groups] + ["total + 1", "count(6)"]
                lines.append(f"  let {name} = {self.pick(reads)}")
                band_scope.lets.append(name)
            keys = self.band_keys(low, high, band_scope)
            bands = self.band_lines(keys, band_scope, ids)
            if self.chance(0.1) and ids:
                flags = [i.name for i in scope.inputs if i.kind == "flag"]
                when = f" if {self.pick(flags)}" if flags and self.chance(0.5) else ""
                lines.append(f"  reroll{when}: {' or '.join(self.rng.sample(ids, min(len(ids), 2)))}")
            lines += bands
            if self.chance(0.15):
                lines.append("  flags:")
                for _ in range(self.rng.randint(1, 2)):
                    flag = self.name() if self.chance(0.9) else "match"
                    lines.append(f"    {flag}: {self.test(band_scope) if self.chance(0.9) else self.expr(band_scope)}")
            self.tables.append(name)
        elif kind == "lookup":
            choices = [i for i in scope.inputs if i.kind in ("choice", "ladder")]
            if choices and self.chance(0.5):
                it = self.rng.choice(choices)
                lines.append(f"  key: {it.name}")
                options = list(it.options)
                keys = [o for o in options if self.chance(0.85)] + (["otherwise"] if self.chance(0.3) else [])
                if self.chance(0.2) and scope.definitions:
                    keys.append(self.pick(scope.definitions))  # a definition's name as a row key
            else:
                lines.append(f"  key: {self.expr(scope)}")
                keys = self.band_keys(self.rng.randint(-3, 2), self.rng.randint(2, 8), scope)
                keys = [k for k in keys if not k.startswith("natural")]
            lines += self.band_lines(keys or ["otherwise"], scope, ids)
        else:  # formula
            value = self.expr(scope)
            if self.chance(0.15):
                value = f"{name} + 1"  # a formula that refers to itself (issue 22)
            lines.append(f"  value: {value}")
            if self.chance(0.4):
                lines += self.band_lines(self.band_keys(-2, 8, scope), scope, ids)
        self.names.append(name)
        self.kinds[name] = kind
        return lines

    def custom_die(self) -> list[str]:
        name = self.fresh("die")
        sides = self.rng.choice((6, 6, 4, 2, 8)) if self.chance(0.95) else self.rng.choice((0, 1, 1001))
        faces = self.rng.sample(["hit", "miss", "double", "blank", "a_b", "type", "six", "d6"], self.rng.randint(1, 3))
        lines = [f"die {name}{self.label()}{self.cite()}", f"  sides: {sides}"]
        left = sides
        for index, face in enumerate(faces):
            count = left if index == len(faces) - 1 else self.rng.randint(1, max(1, left - 1))
            if self.chance(0.02):
                count += 1  # faces that do not add up to the sides
            left -= count
            lines.append(f"  - {face}{self.label()}")
            lines.append(f"      count: {count}")
            if self.chance(0.4):
                lines.append(f"      value: {self.rng.choice((0, 1, 2, -1, 3))}")
        self.names.append(name)
        self.kinds[name] = "die"
        self.dice_names.append(name)
        return lines

    def track(self) -> list[str]:
        kind = self.pick(("track", "clock"))
        name = self.fresh(kind)
        size = self.rng.choice(("4", "6", "8", "unknown", "1", "0")) if self.chance(0.95) else str(
            self.rng.choice(HUGE))
        lines = [f"{kind} {name}{self.label()}{self.cite()}", f"  size: {size}"]
        if self.chance(0.3):
            lines.append(f"  on_full: {self.text()}")
        if self.chance(0.2):
            lines += ["  markers:", f"    {self.name()}: {self.pick(('left', 'start'))}",
                      f"    {self.name()}: {self.pick(('right', 'end', 'start'))}"]
        elif self.chance(0.4):  # boxes of several ticks, progress by rank (sometimes a tick count past the cap)
            lines.append(f"  ticks: {self.rng.choice(('4', '4', '1', '3', '0', '101')) if kind == 'track' else 4}")
            if self.chance(0.8):
                lines += ["  ranks:"] + [f"    {self.name()}: {self.rng.choice((1, 2, 4, 8, 12, 40, 0))}"
                                         for _ in range(self.rng.randint(1, 3))]
        self.names.append(name)
        self.kinds[name] = kind
        return lines

    def deck(self) -> list[str]:
        name = self.fresh("deck")
        lines = [f"deck {name}{self.label()}{self.cite()}"]
        if self.chance(0.4):
            lines.append(f"  on_empty: {self.pick(('stop', 'reshuffle'))}")
        for index in range(self.rng.randint(1, 4)):
            card = self.pick(("storm", "calm", "a_b", "type", "ace", "x"))
            lines.append(f"  - {card}{index if self.chance(0.9) else ''}{self.label()}")
            if self.chance(0.5):
                copies = self.rng.choice((1, 2, 3)) if self.chance(0.95) else self.rng.choice((10_000, 10**9))
                lines.append(f"      copies: {copies}")
        self.names.append(name)
        self.kinds[name] = "deck"
        return lines

    def type_line(self) -> str:
        shape = self.rng.randrange(5)
        name = self.pick(("ladder", "pos", "wealth", "a_b", "type", "die", "level"))
        if shape == 0:
            return f"type {name}: {name}"  # a type defined as itself (issue 22)
        if shape == 1:
            low = self.rng.randint(-2, 1)
            self.types[name] = Input(name, "range", low=low, high=low + self.rng.randint(0, 4))
            return f"type {name}: {low}..{self.types[name].high}"
        numbered = shape == 2
        options = self.options(numbered)
        self.types[name] = Input(name, "ladder" if numbered else "choice", tuple(o.split()[0] for o in options))
        return f"type {name}: one of {', '.join(options)}"

    def ruleset(self) -> str:
        lines = [f'ruleset "Fuzz {self.text()[1:-1]}"']
        if self.chance(0.15):
            lines.append(f"  zero_dice: {self.pick(('2d6 lowest', 'd6', '1d1'))}")
        lines.append("")
        for _ in range(self.rng.choice((0, 1, 1, 2))):
            lines.append(self.type_line())
        if self.chance(0.5):
            lines.append(f'section "Section {self.pick(ODD_TEXT) if self.chance(0.2) else "one"}" [lines 1-9]')
        # Collisions: sometimes force a pair of names that meet after transformation.
        if self.chance(0.3):
            pair = self.rng.choice((("a_b", "a"), ("a_b", "a__b"), ("AB", "a_b"), ("sea_deck", "sea__deck"),
                                    ("a_b", "A_B"), ("SeaDeck", "sea_deck"), ("ab", "AB")))
            self.wanted = list(pair)
        for _ in range(self.rng.randint(1, 6)):
            kind = self.rng.choices(("roll", "table", "lookup", "formula", "die", "track", "deck"),
                                    (5, 3, 2, 2, 1, 1, 1))[0]
            wanted = self.wanted
            block = (self.custom_die() if kind == "die" else self.track() if kind == "track"
                     else self.deck() if kind == "deck" else self.resolver(kind))
            if wanted and block:
                # rename the definition just made to a wanted colliding name (and keep the bookkeeping true)
                target = wanted.pop()
                old = self.names[-1]
                head = block[0].split(" ", 2)
                block[0] = " ".join([head[0], target, *head[2:]])
                self.names[-1] = target
                self.kinds[target] = self.kinds.pop(old, kind)
                self.tables = [target if t == old else t for t in self.tables]
                self.dice_names = [target if t == old else t for t in self.dice_names]
            lines += ["", *block]
        return "\n".join(lines) + "\n"


def generate(seed: int) -> str:
    """The ruleset of one seed."""
    return Generator(seed).ruleset()


# ---------------------------------------------------------------- the checks


@dataclass(frozen=True)
class Failure:
    stage: str  # check, build, import, odds, roll, ...
    kind: str  # the exception's type, or "disagree", "timeout", "unlocated"
    message: str
    where: str = ""  # the innermost frame (file:function) of an exception

    def signature(self) -> str:
        """What makes two failures one cause: the stage, the kind, where it was raised, the message's shape."""
        shape = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\d+", "_", self.message)[:80]
        return f"{self.stage}|{self.kind}|{self.where}|{shape if self.kind in ('disagree', 'unlocated') else ''}"

    def text(self) -> str:
        return f"{self.stage}: {self.kind}{' at ' + self.where if self.where else ''}: {self.message}"


class Problem(Exception):
    """A property broken (not an exception the compiler raised)."""

    def __init__(self, stage: str, kind: str, message: str) -> None:
        super().__init__(message)
        self.failure = Failure(stage, kind, message)


class Timeout(BaseException):
    """The case ran past its budget (a BaseException, so no `except Exception` in the compiler eats it)."""


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Raise Timeout in this thread after `seconds` (SIGALRM; the main thread of a POSIX process only)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Timeout(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def innermost(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    file = Path(last.filename).name
    if file.startswith(MODULE_PREFIX):  # a generated module: its functions are named after the designer's names
        prefix = re.match(r"_?[a-z]+_", last.name)
        return f"<generated>:{prefix.group(0) + '*' if prefix else last.name}"
    return f"{file}:{last.name}"


class Stage:
    """Which step of the property is running (a failure names it)."""

    def __init__(self) -> None:
        self.name = "check"
        self.built = False  # the check passed


def clean_value_error(stage: str, error: ValueError) -> None:
    if not str(error).strip():
        raise Problem(stage, "ValueError", "a ValueError with no message")


MODULE_PREFIX = "rulecraft_semantic_fuzz_"
SAMPLES = 4  # input combinations per resolver, besides the defaults


def sample_inputs(resolver: m.Resolver, rng: random.Random) -> list[dict[str, object]]:
    """The defaults (where every input has one) and a few random combinations of allowed values."""
    from rulecraft.semantics.odds import defaults

    found: list[dict[str, object]] = []
    base = defaults(resolver)
    if all(i.name in base for i in resolver.inputs):
        found.append(dict(base))
    for _ in range(SAMPLES):
        combo: dict[str, object] = {}
        for item in resolver.inputs:
            spec = item.type
            if isinstance(spec, m.IntRange):
                if spec.high < spec.low:
                    return found
                combo[item.name] = rng.choice((spec.low, spec.high, rng.randint(spec.low, spec.high)))
            elif isinstance(spec, m.Flag):
                combo[item.name] = rng.random() < 0.5
            else:
                if not spec.options:
                    return found
                combo[item.name] = rng.choice(spec.options).name
        if combo not in found:
            found.append(combo)
    return found


def import_module(source: str, folder: Path, name: str) -> types.ModuleType:
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def json_odds(data: dict[str, Any]) -> dict[str, list[tuple[dict[str, object], dict[str, Fraction]]]]:
    """Each definition's odds rows as the JSON export gives them: (inputs, {outcome: probability})."""
    found: dict[str, list[tuple[dict[str, object], dict[str, Fraction]]]] = {}
    for definition in data["definitions"]:
        table = definition.get("odds")
        if not table:
            continue
        found[definition["name"]] = [
            (dict(row["inputs"]), {o["id"]: Fraction(o["probability"]) for o in row["outcomes"]})
            for row in table["rows"]]
    return found


def without_none(got: dict[str, Fraction], expected: dict[str, Fraction] | None) -> dict[str, Fraction]:
    """The module's odds as the compiler gives them: the module adds `none`, the chance that no band takes
    a result, where that is not zero; the compiler leaves it out (its odds then add up to less than 1)."""
    if expected is None or "none" in expected or "none" not in got:
        return got
    rest = {k: v for k, v in got.items() if k != "none"}
    if got["none"] != 1 - sum(expected.values(), Fraction(0)):
        return got  # reported as a disagreement, with the `none` shown
    return rest


def lumped(totals: dict[Any, Fraction], like: dict[Any, Fraction]) -> dict[Any, Fraction]:
    """The compiler's totals as the module gives them: exploding dice list each total up to the horizon and the
    rest as one `"N+"` in the module; the compiler lists its last readings one by one."""
    rest = next((k for k in like if isinstance(k, str) and k.endswith("+") and k[:-1].lstrip("-").isdigit()), None)
    if rest is None:
        return totals
    start = int(rest[:-1])
    out: dict[Any, Fraction] = {k: v for k, v in totals.items() if not (isinstance(k, int) and k >= start)}
    out[rest] = sum((v for k, v in totals.items() if isinstance(k, int) and k >= start), Fraction(0))
    return out


def check_located(error: Any, source: str) -> None:
    """Every error diagnostic names a line and a column inside the file."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    errors = [d for d in error.report.diagnostics if d.severity == "error"]
    if not errors:
        raise Problem("check", "unlocated", "CompileError with no error diagnostic")
    for diagnostic in errors:
        span = diagnostic.span
        if not (1 <= span.line <= len(lines)) or span.column < 1:
            raise Problem("check", "unlocated",
                          f"error[{diagnostic.code}] at line {span.line}, column {span.column}: {diagnostic.message}")
    error.report.format_text()


def run_case(source: str, folder: Path, seed: int = 0, seconds: float = 20.0) -> Failure | None:
    """The whole property for one ruleset; None when it holds."""
    return evaluate(source, folder, seed, seconds)[0]


def evaluate(source: str, folder: Path, seed: int = 0, seconds: float = 20.0) -> tuple[Failure | None, bool]:
    """The whole property for one ruleset: its failure (None when it holds), and whether it passed the check."""
    stage = Stage()
    try:
        with budget(seconds):
            _run(source, folder, seed, stage)
    except Problem as problem:
        return problem.failure, stage.built
    except Timeout as timeout:
        return Failure(stage.name, "timeout", str(timeout)), stage.built
    except MemoryError:
        return Failure(stage.name, "MemoryError", "out of memory"), stage.built
    except RecursionError as error:
        return Failure(stage.name, "RecursionError", str(error)[:200], innermost(error)), stage.built
    except Exception as error:  # anything else, anywhere, is a failure
        return Failure(stage.name, type(error).__name__, str(error)[:300], innermost(error)), stage.built
    return None, stage.built


def _run(source: str, folder: Path, seed: int, stage: Stage) -> None:
    from rulecraft.api import load_text
    from rulecraft.backends.python import generate as generate_module
    from rulecraft.backends.render import export_data, to_html, to_json, to_yaml
    from rulecraft.diagnostics import CompileError
    from rulecraft.semantics.evaluate import EvalError
    from rulecraft.semantics.odds import definition_names, distribution, odds

    stage.name = "check"
    try:
        loaded = load_text(source, "fuzz.rules", "fuzz")
    except CompileError as error:
        check_located(error, source)
        return
    checked = loaded.checked
    stage.built = True
    stage.name = "build"
    module_source = generate_module(checked)
    stage.name = "export"
    data = export_data(checked)
    exported = json.loads(to_json(data))
    to_yaml(data)
    to_html(data)
    stage.name = "import"
    name = f"{MODULE_PREFIX}{seed}_{os.getpid()}"
    module = import_module(module_source, folder, name)
    try:
        _exercise(checked, module, exported, seed, stage, definition_names(checked), odds, distribution, EvalError)
    finally:
        sys.modules.pop(name, None)


def _exercise(checked: m.CheckedRuleset, module: Any, exported: dict[str, Any], seed: int, stage: Stage,
              names: frozenset[str], odds: Callable[..., dict[str, Fraction]], distribution: Callable[..., Any],
              eval_error: type[Exception]) -> None:
    rng = random.Random(seed)
    from_json = json_odds(exported)
    resolvers = [d for d in checked.definitions if isinstance(d, m.Resolver)]
    for resolver in resolvers:
        if resolver.name not in module.RESOLVERS:
            raise Problem("build", "disagree", f"`{resolver.name}` is not in the module's RESOLVERS")
        function = module.RESOLVERS[resolver.name]
        ids = {band.id for band in resolver.bands}
        for inputs in sample_inputs(resolver, rng):
            shown = ", ".join(f"{k}={v!r}" for k, v in inputs.items())
            where = f"{resolver.name}({shown})"
            expected: dict[str, Fraction] | None = None
            if resolver.bands and (resolver.dice or resolver.key is not None):
                stage.name = "odds (compiler)"
                try:
                    expected = odds(resolver, inputs, names)
                except eval_error:
                    expected = None
                    refused_by_compiler = True
                else:
                    refused_by_compiler = False
                stage.name = "odds (module)"
                try:
                    got = module.odds(resolver.name, **inputs)
                except ValueError as error:
                    clean_value_error(stage.name, error)
                    if not refused_by_compiler:
                        raise Problem("odds", "disagree", f"{where}: the module refuses ({error}) where the "
                                      f"compiler gives {expected}") from None
                else:
                    if refused_by_compiler:
                        raise Problem("odds", "disagree", f"{where}: the compiler refuses, the module gives {got}")
                    got = without_none(got, expected)
                    if got != expected:
                        raise Problem("odds", "disagree", f"{where}: module {got} != compiler {expected}")
                    if resolver.flags and expected is not None:
                        stage.name = "flags"
                        flags = {flag: sum(row.values(), Fraction(0)) for flag, row in
                                 module.flag_odds(resolver.name, **inputs).items()}
                        if flags != distribution(resolver, inputs, names).flags:
                            raise Problem("odds", "disagree", f"{where}: module flags {flags} != compiler "
                                          f"{distribution(resolver, inputs, names).flags}")
                if expected is not None:
                    total = sum(expected.values(), Fraction(0))
                    if total > 1 or (resolver.covers and total != 1):
                        raise Problem("odds", "disagree", f"{where}: the odds add up to {total}"
                                      f"{' (the check says its bands cover every result)' if resolver.covers else ''}")
                    if resolver.dice:
                        stage.name = "totals"
                        try:
                            module_totals = module.totals(resolver.name, **inputs)
                        except ValueError as error:
                            clean_value_error(stage.name, error)
                        else:
                            compiler_totals = lumped(distribution(resolver, inputs, names).totals, module_totals)
                            if module_totals != compiler_totals:
                                raise Problem("totals", "disagree",
                                              f"{where}: module {module_totals} != compiler {compiler_totals}")
            stage.name = "roll"
            try:
                result = function(**inputs, rng=random.Random(rng.randrange(2**32)))
            except ValueError as error:
                clean_value_error(stage.name, error)
                continue
            outcome = result.outcome
            if outcome is None:
                if resolver.covers:
                    raise Problem("roll", "disagree", f"{where}: no outcome, though the check says its bands "
                                  "cover every result")
            elif resolver.bands and outcome.id not in ids:
                raise Problem("roll", "disagree", f"{where}: outcome {outcome.id!r} is none of its bands {sorted(ids)}")
            elif expected is not None and not expected.get(outcome.id):
                raise Problem("roll", "disagree", f"{where}: landed on {outcome.id!r}, whose odds are "
                              f"{expected.get(outcome.id)}")
        # the JSON's odds rows against the compiler and the module
        stage.name = "odds (JSON)"
        for row_inputs, row in from_json.get(resolver.name, []):
            try:
                expected = odds(resolver, row_inputs, names)
            except eval_error as error:
                raise Problem("odds", "disagree", f"the JSON has odds of {resolver.name} at {row_inputs} where the "
                              f"compiler refuses: {error}") from None
            if row != expected:
                raise Problem("odds", "disagree", f"{resolver.name} at {row_inputs}: JSON {row} != compiler {expected}")
            got = without_none(module.odds(resolver.name, **row_inputs), expected)
            if row != got:
                raise Problem("odds", "disagree", f"{resolver.name} at {row_inputs}: JSON {row} != module {got}")
        # an input out of its range is refused, naming it
        stage.name = "refusal"
        samples = sample_inputs(resolver, rng)
        good = samples[0] if samples else {}
        for item in [rng.choice(resolver.inputs)] if samples and resolver.inputs else []:
            if isinstance(item.type, m.IntRange):
                bad: object = item.type.high + 1
            elif isinstance(item.type, m.Flag):
                bad = "maybe"
            else:
                bad = "no_such_option"
            try:
                function(**{**good, item.name: bad}, rng=random.Random(1))
            except ValueError as error:
                clean_value_error(stage.name, error)
                if item.name not in str(error):
                    raise Problem("refusal", "unnamed", f"{resolver.name}({item.name}={bad!r}) was refused "
                                  f"without naming `{item.name}`: {error}") from None
            except TypeError as error:
                raise Problem("refusal", "TypeError", f"{resolver.name}({item.name}={bad!r}): {error}") from None
            else:
                raise Problem("refusal", "accepted", f"{resolver.name}({item.name}={bad!r}) was accepted")
    stage.name = "tracks"
    for track_name, track in module.TRACKS.items():
        definition = next((d for d in checked.definitions if d.name == track_name), None)
        if definition is None:
            raise Problem("build", "disagree", f"TRACKS has `{track_name}`, which the ruleset does not define")
        if not isinstance(definition, m.Track):
            raise Problem("build", "disagree", f"TRACKS[{track_name!r}] is a {definition.kind}, not a track")
        try:
            made = track() if definition.size is not None else track(size=4)
            made.mark(1)
            if definition.ticks is not None:  # a TickedTrack: every rank, some ticks back, a rank it lacks
                for rank, ticks in definition.ranks:
                    before = made.ticks
                    made.progress(rank)
                    if made.ticks != min(before + ticks, made.size * definition.ticks) or \
                            made.filled != made.ticks // definition.ticks:
                        raise Problem("tracks", "disagree", f"{track_name}.progress({rank!r}) from {before} ticks "
                                      f"gave {made.ticks} ticks, {made.filled} boxes filled")
                made.clear_ticks(1)
                made.progress("no such rank")
                raise Problem("refusal", "accepted", f"{track_name}.progress('no such rank') was accepted")
        except ValueError as error:
            clean_value_error(stage.name, error)
    stage.name = "decks"
    for deck_name, deck in module.DECKS.items():
        definition = next((d for d in checked.definitions if d.name == deck_name), None)
        if not isinstance(definition, m.Deck):
            raise Problem("build", "disagree", f"DECKS[{deck_name!r}] is not the ruleset's deck `{deck_name}`")
        try:
            made = deck(random.Random(seed))
            made.chances()
            for _ in range(3):
                made.draw()
        except ValueError as error:
            clean_value_error(stage.name, error)


# ---------------------------------------------------------------- shrinking


def blocks(source: str) -> list[list[str]]:
    """The text as blocks: the header, then one block per top-level line and its indented lines."""
    out: list[list[str]] = []
    for line in source.split("\n"):
        if out and (line.startswith(" ") or not line.strip()):
            out[-1].append(line)
        else:
            out.append([line])
    return out


def shrink(source: str, still: Callable[[str], bool], rounds: int = 3) -> str:
    """Remove definitions, then single lines, while `still` holds (the same failure remains)."""
    best = source
    for _ in range(rounds):
        before = best
        parts = blocks(best)
        index = 1
        while index < len(parts):
            trial = parts[:index] + parts[index + 1:]
            text = "\n".join(line for part in trial for line in part)
            if still(text):
                parts, best = trial, text
            else:
                index += 1
        lines = best.split("\n")
        index = 1
        while index < len(lines):
            trial_lines = lines[:index] + lines[index + 1:]
            text = "\n".join(trial_lines)
            if still(text):
                lines, best = trial_lines, text
            else:
                index += 1
        if best == before:
            break
    return best


# ---------------------------------------------------------------- the long run (make fuzz)


def run_forked(source: str, folder: Path, seed: int, seconds: float) -> tuple[Failure | None, bool]:
    """`evaluate` in a forked child with a hard limit: a hang or a crash of the interpreter is a failure too."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(reader)
        try:
            failure, built = evaluate(source, folder, seed, seconds)
            payload = json.dumps([None if failure is None else failure.__dict__, built]).encode()
        except BaseException as error:  # the child must always answer
            payload = json.dumps([{"stage": "fuzzer", "kind": type(error).__name__, "message": str(error),
                                   "where": innermost(error)}, False]).encode()
        os.write(writer, payload)
        os._exit(0)
    os.close(writer)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds + 10
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                return Failure("any", "timeout", f"no answer after {seconds + 10:g} s (killed)"), False
            ready, _, _ = select.select([reader], [], [], left)
            if not ready:
                continue
            chunk = os.read(reader, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(reader)
        _, status = os.waitpid(pid, 0)
    if not chunks:
        return Failure("any", "crash", f"the process ended with status {status} and no answer"), False
    answer, built = json.loads(b"".join(chunks))
    return (None if answer is None else Failure(**answer)), bool(built)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Semantic fuzzing of the Rulecraft compiler (issue 22).")
    parser.add_argument("-n", type=int, default=10_000, help="how many rulesets (default 10,000)")
    parser.add_argument("--seed", type=int, default=1, help="the first ruleset's seed; each next one adds 1")
    parser.add_argument("--out", default="tmp/fuzz-failures", help="folder for the reproducers of failures")
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget of one ruleset")
    parser.add_argument("--no-shrink", action="store_true", help="write failing rulesets as generated")
    parser.add_argument("--shrink-seconds", type=float, default=60.0, help="time spent shrinking one failure")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rulecraft-semantic-fuzz-"))
    sys.path.insert(0, str(work))
    # Warm up in this process (the parser, the templates), so that each forked child starts with them ready.
    run_case('ruleset "Warm up"\n\nroll r "R" [T-1]\n  roll: d6\n  - 4+: hi "Hi"\n  - otherwise: lo "Lo"\n', work)
    seen: dict[str, tuple[int, Failure]] = {}
    counts: dict[str, int] = {}
    built = refused = 0
    start = time.monotonic()
    for index in range(args.n):
        seed = args.seed + index
        source = generate(seed)
        failure, passed = run_forked(source, work, seed, args.seconds)
        if failure is None:
            if passed:
                built += 1
            else:
                refused += 1
        else:
            key = failure.signature()
            counts[key] = counts.get(key, 0) + 1
            if key not in seen:
                seen[key] = (seed, failure)
                write_reproducer(out, len(seen), seed, source, failure, work, args.seconds,
                                 0 if args.no_shrink else args.shrink_seconds)
                print(f"  new failure #{len(seen)} (seed {seed}): {failure.text()[:200]}", flush=True)
        if (index + 1) % 100 == 0 or index + 1 == args.n:
            rate = (index + 1) / (time.monotonic() - start)
            print(f"{index + 1}/{args.n} rulesets, {built} built, {refused} refused, "
                  f"{sum(counts.values())} failing ({len(seen)} distinct), {rate:.1f}/s", flush=True)
    print(f"\nsummary: {args.n} rulesets from seed {args.seed}: {built} built and held, {refused} refused with located "
          f"errors, {sum(counts.values())} failed, {len(seen)} distinct causes "
          f"({time.monotonic() - start:.0f} s)")
    for number, (key, (seed, failure)) in enumerate(seen.items(), 1):
        print(f"  #{number} x{counts[key]} (first seed {seed}): {failure.text()[:160]}")
    if seen:
        print(f"reproducers in {out}/")
    return 1 if seen else 0


def write_reproducer(out: Path, number: int, seed: int, source: str, failure: Failure, work: Path, seconds: float,
                     shrinking: float) -> None:
    """The failing ruleset, shrunk for at most `shrinking` seconds, and what went wrong."""
    key = failure.signature()
    small = source
    if shrinking > 0:
        until = time.monotonic() + shrinking

        def still(text: str) -> bool:
            if time.monotonic() > until:
                return False
            found = run_forked(text, work, seed, min(seconds, 10.0))[0]
            return found is not None and found.signature() == key

        small = shrink(source, still).rstrip("\n") + "\n"
    final = (run_forked(small, work, seed, seconds)[0] if small != source else None) or failure
    (out / f"{number:03d}-seed{seed}.rules").write_text(small, encoding="utf-8")
    (out / f"{number:03d}-seed{seed}.txt").write_text(
        f"seed {seed}\n{final.text()}\nsignature: {key}\n\n--- as generated ---\n{source}", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
