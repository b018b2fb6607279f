"""Check: source model -> checked model, collecting every diagnostic before failing.

Passes, in order:
1. lower: each item to a Resolver, Document or Track; names, types and
   references resolved (errors: UNDEFINED, DUPLICATE, TYPE, NO-DICE, ...).
2. analyze: design defects computed from exact odds, not syntax (warnings:
   RANGE-GAP, RANGE-OVERLAP, UNREACHABLE, DIE-ROWS, DUP, COUNT, MISSING,
   TRUNCATED, NO-SOURCE).
3. errata: the as-published defects an errata entry `resolves` become notes
   naming it; its fixes are applied and the result is lowered and analysed
   again. What the fixed model still shows is reported as warnings.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal, TypeVar

from .. import model as m
from ..diagnostics import Code, Diagnostic, Report
from ..semantics import odds
from ..semantics.evaluate import (
    FUNCTIONS,
    MAX_VALUE,
    ROLL_NAMES,
    EvalError,
    Magnitude,
    TooLarge,
    branches,
    contains_dice,
    dice_symbols,
    read_as_numbers,
    rebuild,
    signed_parts,
    walk,
)
from ..semantics.odds import distribution, input_count, input_grid, sheet_odds_size
from ..semantics.runtime import (
    EXPLODING,
    FINITE_EXPLOSIONS,
    MAX_BOXES,
    MAX_CARDS,
    MAX_CHAIN,
    MAX_DICE,
    MAX_SIDES,
    MAX_TICKS,
    explode_parts,
)
from .names import class_name, reserved_input, reserved_name
from .state import band_effects, check_state

STANDARD_DICE = (2, 3, 4, 6, 8, 10, 12, 20, 100)
# Hard caps of a ruleset (docs/language.md, "Limits"); the dice caps live in runtime.py, the odds caps in odds.py.
MAX_ENTRIES = 1000  # bands, rows, items, faces or cards of one definition
MAX_OPTIONS = 100_000  # options of every choice input together (the module and the export list each)


PAGE_REFERENCE = re.compile(r"\b(?:pp?\.|pages?)\s?(\d+(?:\s?[-–]\s?\d+)?)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Defect:
    code: Code
    item: str
    message: str
    span: m.Span
    hint: str | None = None



@dataclass
class _Parts:
    """What a resolver's attributes say, gathered one attribute at a time (see RESOLVER_ATTRIBUTES)."""

    entries: tuple[m.Entry, ...]  # its bands: a `bands` definition's (outcomes:), then its own
    citation: m.Citation | None
    inputs: set[str]  # the names of its inputs (what `carry:` may name)
    dice: list[m.DiceRule] = field(default_factory=list)
    rerolls: list[m.Reroll] = field(default_factory=list)
    carry: list[tuple[str, str]] = field(default_factory=list)
    details: list[tuple[str, m.Expr]] = field(default_factory=list)  # every other `name: value`: data
    zero_dice: m.Expr | None = None
    key: m.Expr | None = None
    value: m.Expr | None = None
    bands_from: str | None = None
    text: str | None = None
    label: str | None = None
    flags: list[tuple[str, m.Expr]] = field(default_factory=list)
    core: bool = False
    wording: list[tuple[str, str, m.Span]] = field(default_factory=list)  # `words:`: the designer's wording
    every_outcome: tuple[m.Effect, ...] = ()  # `every_outcome:`: effects each band has, read with its data
    chart: tuple[str, ...] = ()  # `chart:` the inputs its chart runs along: `rows:`, then `columns:`

class Checker:
    def __init__(self, ruleset: m.Ruleset, report: Report) -> None:
        self.broken = set()
        self.choice_inputs: set[str] = set()
        self.naming: set[int] = set()  # the Name nodes of the resolver being checked that may name a definition
        self.analysed: dict[tuple[m.Resolver, frozenset[str]], list[Defect]] = {}
        self.covering: set[m.Resolver] = set()  # resolvers a band of which takes every result, for every input
        self.budget = odds.Budget(odds.MAX_ANALYSIS)
        self.reported: set[tuple[str, m.Span, str]] = set()
        self.ruleset = ruleset
        self.report = report
        self.path = ruleset.path
        self.types: dict[str, m.TypeDef] = {}  # by name; the first of a name is the one used
        for typedef in ruleset.types:
            self.types.setdefault(typedef.name, typedef)
        self._type_options: frozenset[str] | None = None

    @property
    def transcribes(self) -> bool:
        """The ruleset declares the documents it transcribes (`source:` in its `ruleset` header): only then
        does each definition owe a citation of an inventory ID (NO-SOURCE). An original game declares none."""
        return self.ruleset.attr("source") is not None

    # ---------------------------------------------------------------- entry

    def run(self, source_text: str) -> m.CheckedRuleset:
        published = self.lower(self.ruleset.items, record=True)
        defects = self.analyze(published, self.ruleset.items)
        fixed_items = self.apply_errata()
        if fixed_items is not self.ruleset.items:
            fixed = self.lower(fixed_items, record=False)
            remaining = self.analyze(fixed, fixed_items)
        else:
            fixed, remaining = published, defects
        fixed = tuple(replace(d, covers=True) if isinstance(d, m.Resolver) and d in self.covering else d
                      for d in fixed)
        self.limits(fixed)
        check_state(fixed, self.error)
        self.check_sections()
        self.report_defects(defects, remaining)
        return m.CheckedRuleset(
            id=self.ruleset.id,
            title=self.ruleset.title,
            source_path=self.path,
            source_hash=hashlib.sha256(source_text.encode("utf-8")).hexdigest(),
            meta=tuple((a.name, _plain(a.value)) for a in self.ruleset.attrs),
            sections=self.ruleset.sections,
            definitions=fixed,
            errata=tuple(self.applied_errata()),
            types=tuple((t.name, self.resolve_type(t.spec, record=False)) for t in self.ruleset.types
                        if not isinstance(self.resolve_type(t.spec, record=False), m.NamedType)),
        )

    def check_sections(self) -> None:
        """A section takes one attribute, how many columns of cards its sheet pages have."""
        hint = "a section takes `columns: 1`, `columns: 2` or `columns: 3` (cards side by side)"
        for section in self.ruleset.sections:
            for attr in section.attrs:
                if attr.name != "columns":
                    self.error(Code.TYPE, f"a section takes only `columns:` (1, 2 or 3), not `{attr.name}:`",
                               attr.span, hint)
                elif section.columns() is None or attr.when is not None:
                    self.error(Code.TYPE, "`columns:` of a section is 1, 2 or 3", attr.span, hint)

    # ---------------------------------------------------------------- diagnostics

    def error(self, code: Code, message: str, span: m.Span, hint: str | None = None,
              item: str | None = None) -> None:
        if item is not None:
            self.broken.add(item)
        # The errata pass lowers the fixed items again: what it finds anew (in an entry an erratum added,
        # say) is reported too, what the published pass reported is not repeated.
        if self._recording or (code, span, message) not in self.reported:
            self.reported.add((code, span, message))
            self.report.error(code, message, self.path, span, hint, item)

    def refuse(self, message: str, span: m.Span, hint: str, item: str | None = None) -> None:
        """A hard cap (TOO-LARGE): reported whichever pass finds it (errata can break a cap), once."""
        if item is not None:
            self.broken.add(item)
        if (Code.TOO_LARGE, span, message) not in self.reported:
            self.reported.add((Code.TOO_LARGE, span, message))
            self.report.error(Code.TOO_LARGE, message, self.path, span, hint, item)

    broken: set[str]

    _recording = True

    # ---------------------------------------------------------------- lowering

    def lower(self, items: tuple[m.Item, ...], record: bool) -> tuple[m.Definition, ...]:
        self._recording = record
        self.items = {i.name: i for i in items}
        self.definition_names = frozenset(self.items)
        seen: dict[str, m.Item] = {}
        module_names: dict[str, m.Item] = {}  # what each definition is called in the generated module
        for item in items:
            generated = class_name(item.name) if item.kind in ("track", "clock", "deck") else item.name
            if item.name in seen:
                self.error(Code.DUPLICATE, f"`{item.name}` is defined twice (first at line "
                           f"{seen[item.name].span.line})", item.span, "give each definition its own name",
                           item.name)
            elif reserved_name(item.name) or reserved_name(generated):
                self.error(Code.RESERVED_NAME, f"`{item.name}` is a Python word or a name the generated module "
                           "already uses", item.span, f"rename it, e.g. `{item.name.strip('_')}_{item.kind}`",
                           item.name)
            elif generated in module_names:
                other = module_names[generated]
                self.error(Code.DUPLICATE, f"`{item.name}` becomes `{generated}` in the generated module, as "
                           f"`{other.name}` (line {other.span.line}) does", item.span,
                           "rename one of them (a track, clock or deck becomes a class: `x_y` and `x__y` are both "
                           "`XY`)", item.name)
            seen[item.name] = item
            module_names.setdefault(generated, item)
            if len(item.entries) > MAX_ENTRIES:
                self.refuse(f"`{item.name}` has {len(item.entries):,} entries; the limit is {MAX_ENTRIES:,}",
                            item.entries[MAX_ENTRIES].span, "split it into several definitions", item.name)
        # dice first: every roll's custom dice are filled from them
        self.custom_dice = {item.name: self.die(item) for item in items if item.kind == "die"}
        out: list[m.Definition] = []
        for item in items:
            if item.kind == "die":
                out.append(self.custom_dice[item.name])
                continue
            lowered = KINDS[item.kind].lower(self, item)
            if item.guards and not isinstance(lowered, m.Resolver):
                self.error(Code.TYPE, f"a {item.kind} has no `when ...:` effects: they are what a roll does "
                           "whatever its outcome", item.guards[0].span,
                           "give them to a roll, table, lookup or formula (a track's are its `full:` block)",
                           item.name)
            if isinstance(lowered, m.Resolver) and any(
                    isinstance(n, m.Dice) and n.explodes for rule in lowered.dice for n in walk(rule.expr)):
                lowered = self.exploding(lowered, item)
            out.append(lowered)
        self._recording = True
        return tuple(out)

    def exploding(self, resolver: m.Resolver, item: m.Item) -> m.Resolver:
        """A roll with exploding dice, given what its exact odds need: its *horizon* (the highest total its
        bands tell apart: every total above it lands in the same band) and each exploding group's `cap`, the
        value past which the group's total is above the horizon whatever else is rolled. So the odds list
        each value up to the cap exactly and put every higher one on one reading, with the exact rest of the
        chance (runtime._Explode). That needs bands that compare the total with numbers, and dice added up
        (or the higher or lower of such dice: `max(d8!, d6!) + 2`).

        A roll whose every exploding group explodes a few times at most (`d6! at most 2 times`) has finitely
        many totals: its odds list them all, and its bands may read the total any way (`finite_exploding`)."""
        groups = [n for rule in resolver.dice for n in walk(rule.expr) if isinstance(n, m.Dice) and n.explodes]
        if all(0 < explode_parts(op.arg)[1] <= FINITE_EXPLOSIONS for n in groups for op in n.ops
               if op.name in EXPLODING):
            return self.finite_exploding(resolver, item)
        bounds: list[m.Expr] = []
        for band in resolver.bands:
            condition = band.condition
            if isinstance(condition, m.Ranges):
                bounds += [m.Number(v, condition.span) for p in condition.parts for v in (p.low, p.high)
                           if v is not None]
            elif isinstance(condition, m.Natural):
                bounds.append(m.Number(condition.value, condition.span))
            elif isinstance(condition, m.When):
                bounds += self.compared_with_total(condition.test, item)
        horizon = m.Call("max", (m.Number(0, resolver.span), *bounds), resolver.span)
        rules = []
        for rule in resolver.dice:
            amounts = self.added_amounts(rule.expr, item)
            cap: m.Expr = horizon
            for sign, amount in amounts:
                cap = m.Binary("-" if sign > 0 else "+", cap, amount, amount.span)

            def capped(node: m.Expr, cap: m.Expr = cap) -> m.Expr:
                if isinstance(node, m.Dice) and node.explodes:
                    return replace(node, cap=cap)
                return node
            rules.append(replace(rule, expr=rebuild(rule.expr, capped)))
        for name, test in resolver.flags:
            self.error(Code.TYPE, f"`{resolver.name}` rolls exploding dice, and its flags are not worked out for "
                       "them yet", test.span, f"make `{name}` a band, or roll dice that do not explode", item.name)
        return replace(resolver, dice=tuple(rules), horizon=horizon)

    def compared_with_total(self, test: m.Expr, item: m.Item) -> list[m.Expr]:
        """What a `when` test compares the roll's total (or natural value) with; an error where it reads the
        roll of exploding dice any other way (its odds could then not stop at a horizon)."""
        found: list[m.Expr] = []
        direct: set[int] = set()
        for node in walk(test):
            if isinstance(node, m.Compare):
                for side, other in ((node.left, node.right), (node.right, node.left)):
                    if isinstance(side, m.Name) and side.name in ("total", "natural") and not _reads_roll(other):
                        direct.add(id(side))
                        found.append(other)
        for node in walk(test):
            if (isinstance(node, m.Name) and node.name in ROLL_NAMES and id(node) not in direct) or (
                    isinstance(node, m.Call) and node.function == "count"):
                self.error(Code.TYPE, "a band of a roll with exploding dice compares the total with a number, like "
                           "`when total >= dv`", node.span,
                           "exact odds of exploding dice read the total only, compared with numbers", item.name)
        return found

    def finite_exploding(self, resolver: m.Resolver, item: m.Item) -> m.Resolver:
        """A roll whose dice explode a few times at most: every total is listed, so the bands may read the
        total as they like, but not the faces (exact odds of exploding dice read no face)."""
        for band in resolver.bands:
            if isinstance(band.condition, m.When):
                for node in walk(band.condition.test):
                    if (isinstance(node, m.Name) and node.name in ROLL_NAMES - {"total", "natural"}) or (
                            isinstance(node, m.Call) and node.function == "count"):
                        self.error(Code.TYPE, "a band of a roll with exploding dice reads its total, like "
                                   "`when total >= dv`", node.span,
                                   "exact odds of exploding dice read the total only", item.name)
        return resolver

    def added_amounts(self, expr: m.Expr, item: m.Item) -> list[tuple[int, m.Expr]]:
        """The amounts a roll of exploding dice adds (+1) or takes away (-1), after checking that it adds up
        groups of numbered dice, the higher or lower of such groups, and amounts: `d6! + d6! + dots - 1`,
        `max(d(die)!, d6!) + mod`."""
        amounts: list[tuple[int, m.Expr]] = []
        for sign, node in signed_parts(expr):
            if isinstance(node, m.Dice) and sign > 0 and node.die is None:
                continue
            elif sign > 0 and isinstance(node, m.Call) and node.function in ("max", "min") and contains_dice(node):
                self.dice_only(node, item)
                continue
            elif contains_dice(node):
                self.error(Code.TYPE, "a roll with exploding dice adds its dice up, like `d6! + d6 + dots`",
                           node.span, "exact odds of exploding dice need every group added, none taken away",
                           item.name)
            else:
                amounts.append((sign, node))
        return amounts

    def dice_only(self, call: m.Call, item: m.Item) -> None:
        """`max(d8!, d6!)`: each argument adds up groups of numbered dice (or is the higher or lower of such),
        and no amount, so each one past the cap puts the roll past its horizon whatever the others show."""
        for argument in call.args:
            for sign, node in signed_parts(argument):
                if isinstance(node, m.Dice) and sign > 0 and node.die is None:
                    continue
                if sign > 0 and isinstance(node, m.Call) and node.function in ("max", "min"):
                    self.dice_only(node, item)
                    continue
                self.error(Code.TYPE, f"in `{call.function}(...)` of exploding dice, each argument is dice added "
                           "up, with no amount", node.span,
                           f"add amounts outside, like `{call.function}(d8!, d6!) + 2`", item.name)

    def resolve_type(self, spec: m.TypeSpec, record: bool = True) -> m.IntRange | m.Flag | m.Choice:
        boxes = self.boxes_of(spec)
        if boxes is not None:
            return self.boxes_range(boxes, record)
        seen: set[str] = set()
        while isinstance(spec, m.NamedType):
            if spec.name in seen:
                break
            seen.add(spec.name)
            found = self.types.get(spec.name)
            if found is None:
                track = getattr(self, "items", {}).get(spec.name)
                if record and track is not None and track.kind in ("track", "clock"):
                    self.error(Code.UNDEFINED, f"no type named `{spec.name}`: `{spec.name}` is a {track.kind}",
                               spec.span, f"write `boxes of {spec.name}` for its filled boxes, a whole number")
                elif record:
                    names = [t.name for t in self.ruleset.types]
                    self.error(Code.UNDEFINED, f"no type named `{spec.name}`", spec.span, did_you_mean(spec.name, names)
                               or "declare it at the top of the file, like `type wealth: 0..5`")
                return m.IntRange(0, 0, spec.span)
            spec = found.spec
        if isinstance(spec, m.NamedType):  # the types named one another round in a circle
            if record:
                circle = " -> ".join([*seen, spec.name]) if len(seen) > 1 else f"{spec.name} -> {spec.name}"
                self.error(Code.TYPE, f"the type `{spec.name}` is defined as itself ({circle})",
                           self.types[spec.name].span, "define it as a range, a flag or a choice, like "
                           "`type wealth: 0..5`")
            return m.IntRange(0, 0, spec.span)
        assert not isinstance(spec, m.BoxesOf)  # boxes_of followed the names to it
        return spec

    def boxes_of(self, spec: m.TypeSpec) -> m.BoxesOf | None:
        """The `boxes of TRACK` a type is, following named types (None: it is none)."""
        seen: set[str] = set()
        while isinstance(spec, m.NamedType) and spec.name in self.types and spec.name not in seen:
            seen.add(spec.name)
            spec = self.types[spec.name].spec
        return spec if isinstance(spec, m.BoxesOf) else None

    def boxes_range(self, spec: m.BoxesOf, record: bool) -> m.IntRange:
        """`boxes of vow`: 0 to the size of the track `vow` (a track declared anywhere in the file)."""
        items = getattr(self, "items", {})
        track = items.get(spec.track)
        tracks = [name for name, i in items.items() if i.kind in ("track", "clock")]
        size = _track_size(track) if track is not None and track.kind in ("track", "clock") else None
        if record and (track is None or track.kind not in ("track", "clock")):
            what = f"`{spec.track}` is a {track.kind}, not a track" if track is not None else \
                f"there is no track `{spec.track}`"
            self.error(Code.UNDEFINED if track is None else Code.TYPE, f"{what}: `boxes of` counts a track's "
                       "filled boxes", spec.span, did_you_mean(spec.track, tracks) or (
                           f"name a track: {', '.join(f'`boxes of {t}`' for t in tracks)}" if tracks else
                           "declare the track, like `track vow \"Vow\"` with `size: 10`"))
        elif record and size is None:
            self.error(Code.TYPE, f"the track `{spec.track}` has no size, so `boxes of {spec.track}` has no "
                       "highest value", spec.span, f"give `{spec.track}` a size, like `size: 10`")
        return m.IntRange(0, size or 0, spec.span)

    def choice_numbers(self, spec: m.Choice, declared: m.Input, item: m.Item) -> None:
        numbered = [o for o in spec.options if o.value is not None]
        if numbered and len(numbered) != len(spec.options):
            missing = ", ".join(o.name for o in spec.options if o.value is None)
            self.error(Code.TYPE, f"some options of `{declared.name}` carry a number and some do not ({missing})",
                       declared.span, "give every option a number, like `none (0)`", item.name)

    def inputs(self, item: m.Item) -> tuple[m.ResolvedInput, ...]:
        out: list[m.ResolvedInput] = []
        names: set[str] = set()
        for declared in item.inputs:
            if declared.name in names:
                self.error(Code.DUPLICATE, f"input `{declared.name}` is declared twice", declared.span,
                           "keep one of the two `input` lines", item.name)
            names.add(declared.name)
            if reserved_input(declared.name):
                why = ("it is the resolvers' keyword for the random generator" if declared.name == "rng" else
                       "it is simulate()'s keyword for its seed" if declared.name == "seed" else
                       "names starting with `_` are the generated module's own" if declared.name.startswith("_")
                       else "it is a Python word, and an input is a keyword argument")
                self.error(Code.RESERVED_NAME, f"`{declared.name}` cannot name an input: {why}", declared.span,
                           f"rename it, e.g. `{declared.name.strip('_')}_value`", item.name)
            spec = self.resolve_type(declared.type)
            default = declared.default
            if isinstance(spec, m.IntRange):
                if spec.low > spec.high:
                    self.error(Code.TYPE, f"the range {spec.low}..{spec.high} is empty", declared.span,
                               "write the smaller number first", item.name)
                if default is not None and (not isinstance(default, int) or isinstance(default, bool)
                                            or not spec.low <= default <= spec.high):
                    self.error(Code.TYPE, f"default {default!r} is outside {spec.low}..{spec.high}",
                               declared.span, f"give a whole number from {spec.low} to {spec.high}, like "
                               f"`= {spec.low}`", item.name)
            elif isinstance(spec, m.Choice):
                self.choice_numbers(spec, declared, item)
                if default is not None and spec.option(str(default)) is None:
                    self.error(Code.TYPE, f"default `{default}` is not one of the options", declared.span,
                               did_you_mean(str(default), [o.name for o in spec.options])
                               or f"use one of: {', '.join(o.name for o in spec.options)}", item.name)
                if len({o.name for o in spec.options}) != len(spec.options):
                    self.error(Code.DUPLICATE, "a choice lists the same option twice", declared.span,
                               "give each option its own name", item.name)
            elif isinstance(spec, m.Flag) and default is not None and not isinstance(default, bool):
                self.error(Code.TYPE, "a flag's default is yes or no", declared.span, "like `= yes`", item.name)
            boxes = self.boxes_of(declared.type)
            if boxes is not None and boxes.track in self.items and isinstance(spec, m.IntRange):
                out.append(m.ResolvedInput(declared.name, spec, default, _boxes_doc(
                    declared.doc, self.items[boxes.track], spec.high), declared.span, boxes.track,
                    declared.source))
                continue
            out.append(m.ResolvedInput(declared.name, spec, default, declared.doc, declared.span,
                                       source=declared.source))
        return tuple(out)

    def resolver(self, item: m.Item) -> m.Resolver:
        inputs = self.inputs(item)
        known = KINDS[item.kind].attributes or frozenset()
        parts = _Parts(item.entries, item.citation, {i.name for i in inputs})
        for attr in item.attrs:
            if isinstance(attr.value, m.Block):  # `carry:` and its lines; any other block is text for the sheet
                if attr.name == "carry":
                    parts.carry.extend(self.carry(attr.value, item, parts.inputs))
                elif attr.name == "flags" and item.kind in ("roll", "table"):
                    parts.flags.extend(self.flags(attr.value, item))
                elif attr.name == "flags":
                    self.error(Code.TYPE, f"a {item.kind} has no `flags:`: flags ride beside a roll's outcome",
                               attr.span, "give a roll or table its flags, or make this a value of the row",
                               item.name)
                elif attr.name == "words":
                    parts.wording.extend(self.wording(attr.value, item))
                elif attr.name == "chart":
                    parts.chart = self.chart_axes(attr.value, item, inputs)
                elif attr.name == "every_outcome":  # effects each band has (`mark healing_clock segments`)
                    parts.every_outcome = attr.value.effects
                    if attr.value.attrs or attr.value.entries or not attr.value.effects:
                        self.error(Code.TYPE, "an `every_outcome:` block holds effects, one a line", attr.value.span,
                                   "like `mark healing_clock segments`: each outcome's own `segments`", item.name)
                else:
                    parts.details.append((attr.name, m.Text(_block_text(attr.value), attr.span)))
                continue
            if attr.name == "flags":
                self.error(Code.TYPE, "`flags:` is followed by its flags, one on each line below it", attr.span,
                           f"like `flags:`, then `    match: {m.expr_text(attr.value)}` on the next line", item.name)
                continue
            lower = RESOLVER_ATTRIBUTES.get(attr.name)
            if lower is not None and attr.name in known:
                lower(self, attr.value, attr, item, parts)
            elif lower is not None:
                self.error(Code.TYPE, f"a {item.kind} has no `{attr.name}:`", attr.span, _kind_hint(item.kind),
                           item.name)
            else:  # any other `name: value` is data, printed on the sheet
                parts.details.append((attr.name, attr.value))
        dice_rules, rerolls, carry = parts.dice, parts.rerolls, parts.carry
        zero_dice, key, value = parts.zero_dice, parts.key, parts.value
        band_entries, citation, text, label_attr = parts.entries, parts.citation, parts.text, parts.label
        bands_from, details = parts.bands_from, parts.details
        if zero_dice is None:
            header = self.ruleset.attr("zero_dice")
            if header is not None and not isinstance(header.value, m.Block):
                zero_dice = header.value
        if zero_dice is not None and not (isinstance(zero_dice, m.Dice) and isinstance(zero_dice.count, m.Number)
                                          and zero_dice.count.value >= 1):
            self.error(Code.TYPE, "`zero_dice:` is what a pool of no dice rolls instead: one group of at least one "
                       "die, fixed by the rules", zero_dice.span, "like `zero_dice: 2d6 lowest`", item.name)
        if item.kind in ("roll", "table") and not dice_rules:
            self.error(Code.NO_DICE, f"the {item.kind} `{item.name}` has no `roll:` line", item.span,
                       "add the dice, like `roll: 2d6 + dots` (if the document gives none, write the "
                       "likely dice and say so in an errata entry)", item.name)
        if item.kind == "lookup" and key is None:
            self.error(Code.TYPE, f"the lookup `{item.name}` has no `key:` line", item.span,
                       "say what the rows are keyed by, like `key: load`", item.name)
        if item.kind == "formula" and value is None:
            self.error(Code.TYPE, f"the formula `{item.name}` has no `value:` line", item.span,
                       "give its value, like `value: size * 2`", item.name)
        columns: list[m.Column] = []
        column_by = None
        if item.columns is not None:
            column_by = item.columns.by
            for entry in item.columns.entries:
                columns.append(self.column(entry, item))
        bands = tuple(self.band(entry, item, len(columns), tuple(c.id for c in columns)) for entry in band_entries)
        if parts.every_outcome:  # shared bands (`outcomes: project_segments`), each marking this roll's own clock
            bands = tuple(replace(band, effects=band.effects + band_effects(parts.every_outcome, band.values))
                          for band in bands)
        self.unique_bands(bands, item)
        resolver = m.Resolver(
            kind=item.kind,  # type: ignore[arg-type]
            name=item.name,
            label=label_attr or item.title,
            citation=citation,
            section=item.section,
            text=text,
            inputs=inputs,
            lets=tuple(let for let in item.lets if not isinstance(let.expr, m.Dice)),
            groups=tuple(replace(let, expr=self.with_faces(let.expr, item)) for let in item.lets
                         if isinstance(let.expr, m.Dice)),
            dice=tuple(dice_rules),
            zero_dice=zero_dice,
            zero_dice_without=(),
            key=key,
            value=value,
            bands=bands,
            bands_from=bands_from,
            columns=tuple(columns),
            column_by=column_by,
            details=tuple(details),
            span=item.span,
            carry=tuple(carry),
            rerolls=tuple(rerolls),
            flags=tuple(parts.flags),
            core=parts.core,
            guards=item.guards,
            chart=parts.chart,
        )
        resolver = self.options_named_like_dice(resolver)
        resolver = self.dice_reads(resolver, item)
        resolver = self.roll_lets(resolver, item)
        if parts.wording:
            resolver = replace(resolver, wording=self.check_wording(resolver, parts.wording, item))
        self.check_names(resolver, item)
        ids = sorted({band.id for band in bands})
        for reroll in rerolls:
            for outcome in reroll.outcomes:
                if outcome not in ids:
                    self.error(Code.UNDEFINED, f"`{item.name}` has no outcome `{outcome}` to re-roll", reroll.span,
                               did_you_mean(outcome, ids) or f"name one of its outcomes: {', '.join(ids)}",
                               item.name)
        for _, value_name in carry:
            if not any(value_name == name for band in bands for name, _ in band.values):
                self.error(Code.UNDEFINED, f"no band of `{item.name}` gives a `{value_name}` to carry", item.span,
                           "give the bands that value as data, like `next_roll: 2`", item.name)
        return resolver

    @staticmethod
    def options_named_like_dice(resolver: m.Resolver) -> m.Resolver:
        """`roll if die = d8:` where `die` is a choice with an option `d8` (a dice ladder): the option, not a roll
        of a d8. The parser reads `d8` as dice; compared with a choice that has such an option, it is the option."""
        options = {i.name: {o.name for o in i.type.options} for i in resolver.inputs if isinstance(i.type, m.Choice)}

        def option(node: m.Expr) -> m.Expr:
            if not isinstance(node, m.Compare) or node.op not in ("==", "!="):
                return node
            sides = [node.left, node.right]
            for i, (side, other) in enumerate(((node.left, node.right), (node.right, node.left))):
                if (isinstance(side, m.Dice) and isinstance(other, m.Name) and other.name in options
                        and m.dice_text(side) in options[other.name]):
                    sides[i] = m.Name(m.dice_text(side), side.span)
            return replace(node, left=sides[0], right=sides[1])

        if not any(name.startswith("d") for names in options.values() for name in names):
            return resolver
        return resolver.map_expressions(lambda expr: rebuild(expr, option))

    def dice_reads(self, resolver: m.Resolver, item: m.Item) -> m.Resolver:
        """`count(challenge < total)`, `all(...)`, `doubles(challenge)` where `challenge` names a group of dice
        (`let challenge = 2d10`): each a `m.DiceRead`, the test held with the group on the left. Such a call of
        anything else is an error (and reads as 0 after it, so that one mistake gives one error)."""
        groups = {group.name: group.expr for group in resolver.groups}
        if not groups and not any(isinstance(node, m.Call) and (node.function in (*m.DIE_TESTS[1:], *m.GROUP_READS) or
                                                              any(isinstance(a, m.Compare) for a in node.args))
                                  for expr in resolver.expressions() for node in walk(expr)):
            return resolver
        example = next(iter(groups), "challenge")

        def read(node: m.Expr) -> m.Expr:
            if not isinstance(node, m.Call) or node.function not in (*m.DIE_TESTS, *m.GROUP_READS):
                return node
            arg = node.args[0] if len(node.args) == 1 else None
            if node.function in m.DIE_TESTS and isinstance(arg, m.Compare):
                for side, other, flipped in ((arg.left, arg.right, False), (arg.right, arg.left, True)):
                    if isinstance(side, m.Name) and side.name in groups:
                        self.read_die_by_die(groups[side.name], side.name, node, item)
                        return m.DiceRead(node.function, side.name, _FLIPPED[arg.op] if flipped else arg.op, other,
                                          node.span)
                inline = next((n for n in walk(arg) if isinstance(n, m.Dice)), None)
                if inline is not None:
                    self.error(Code.TYPE, f"{node.function}() tests each die of a named group of dice", node.span,
                               f"name the dice first, `let pool = {m.expr_text(inline)}`, then "
                               f"`{node.function}(pool >= 5)`", item.name)
                    return m.Number(0, node.span)
            if node.function in m.GROUP_READS and isinstance(arg, m.Name) and arg.name in groups:
                self.read_die_by_die(groups[arg.name], arg.name, node, item)
                return m.DiceRead(node.function, arg.name, None, None, node.span)
            if node.function == "count" and not isinstance(arg, m.Compare):
                return node  # count(6): the dice of the whole roll showing a face
            if node.function in m.GROUP_READS:
                self.error(Code.TYPE, f"{node.function}() reads a named group of dice", node.span,
                           f"name the dice with a let, `let {example} = 2d10`, then `{node.function}({example})`",
                           item.name)
            else:
                self.error(Code.TYPE, f"{node.function}() tests each die of a named group of dice", node.span,
                           f"name the dice with a let, `let {example} = 2d10`, then "
                           f"`{node.function}({example} < total)`" + ("; count(6) counts the roll's sixes"
                                                                       if node.function == "count" else ""), item.name)
            return m.Number(0, node.span)

        return resolver.map_expressions(lambda expr: rebuild(expr, read))

    def roll_lets(self, resolver: m.Resolver, item: m.Item) -> m.Resolver:
        """`let beaten = count(challenge < total)`: a let that reads the roll (its total, a fact of it, or dice held
        by name) is worked out with each roll, not before: its expression is put where it is named. Bands, their
        data and flags may name it; the roll itself only one that reads dice held by name and nothing else of
        the roll; a `roll if`, a re-roll's condition, a key or a let worked out before the roll, none."""
        inputs = {i.name for i in resolver.inputs}
        groups = {group.name for group in resolver.groups}
        written: dict[str, m.Expr] = {}  # each roll let's expression, the roll lets before it put in
        reads_roll: dict[str, bool] = {}  # each roll let: reads more of the roll than dice held by name
        kept: list[m.Let] = []
        shown: list[m.Let] = []

        def put(node: m.Expr) -> m.Expr:
            return written[node.name] if isinstance(node, m.Name) and node.name in written else node

        local = set(inputs)
        for let in resolver.lets:
            expr = rebuild(let.expr, put)
            facts = any((isinstance(n, m.Name) and n.name in ROLL_NAMES and n.name not in local)
                        or (isinstance(n, m.Call) and n.function == "count") for n in walk(expr))
            if facts or any(isinstance(n, m.DiceRead) or (isinstance(n, m.Name) and n.name in groups)
                            for n in walk(expr)):
                if let.name in written or let.name in local or let.name in groups:
                    self.error(Code.DUPLICATE, f"`{let.name}` is already an input or let of `{item.name}`",
                               let.span, "give the let a name of its own", item.name)
                written[let.name], reads_roll[let.name] = expr, facts
                shown.append(let)
                continue
            kept.append(let)
            local.add(let.name)
        if not written:
            return resolver
        before = [("a let worked out before the roll", let.expr) for let in kept]
        before += [("`roll if`", rule.when) for rule in resolver.dice if rule.when is not None]
        before += [("a re-roll's condition", r.when) for r in resolver.rerolls if r.when is not None]
        before += [(what, expr) for what, expr in (("the key", resolver.key), ("the value", resolver.value),
                                                   ("`zero_dice`", resolver.zero_dice),
                                                   ("`columns by`", resolver.column_by)) if expr is not None]
        before += [("the roll", rule.expr) for rule in resolver.dice]
        for what, expr in before:
            for node in walk(expr):
                if isinstance(node, m.Name) and node.name in written and (what != "the roll" or reads_roll[node.name]):
                    self.error(Code.TYPE, f"`{node.name}` reads the roll, so {what} cannot read it", node.span,
                               f"read `{node.name}` in a band's `when`, its data or a flag", item.name)
        bands = tuple(replace(band, written=m.condition_text(band.condition)) if isinstance(band.condition, m.When)
                      and any(isinstance(n, m.Name) and n.name in written for n in walk(band.condition.test))
                      else band for band in resolver.bands)  # the sheet and the trace show `when beaten = 2`

        def zeroed(expr: m.Expr) -> m.Expr:  # where a roll let may not be read: 0, once the error is said
            return rebuild(expr, lambda n: m.Number(0, n.span) if isinstance(n, m.Name) and n.name in written else n)

        def refused(expr: m.Expr | None) -> m.Expr | None:
            return None if expr is None else zeroed(expr)
        resolver = replace(
            resolver, bands=bands, lets=tuple(replace(let, expr=zeroed(let.expr)) for let in kept),
            dice=tuple(replace(rule, when=refused(rule.when), expr=rebuild(rule.expr, lambda n: m.Number(0, n.span) if (
                isinstance(n, m.Name) and reads_roll.get(n.name)) else n)) for rule in resolver.dice),
            rerolls=tuple(replace(r, when=refused(r.when)) for r in resolver.rerolls), key=refused(resolver.key),
            value=refused(resolver.value), zero_dice=refused(resolver.zero_dice),
            column_by=refused(resolver.column_by))
        changed = resolver.map_expressions(lambda expr: rebuild(expr, put))
        return replace(changed, roll_lets=tuple(shown))

    def read_die_by_die(self, group: m.Expr, name: str, node: m.Call, item: m.Item) -> None:
        """A named group read die by die: numbered dice, every die read (no keep)."""
        if not isinstance(group, m.Dice):
            return
        if group.die is not None:
            self.error(Code.TYPE, f"{node.function}() reads numbered dice die by die, and `{name}` rolls "
                       f"`{m.expr_text(group)}`, a die of symbols", node.span,
                       "count its symbols with `count(hit)` instead", item.name)
        keep = next((op for op in group.ops if op.name in ("highest", "lowest")), None)
        if keep is not None:
            self.error(Code.TYPE, f"{node.function}() reads every die of `{name}`, and `{m.expr_text(group)}` keeps "
                       "only some", node.span, f"name the dice without keeping any, like `let {name} = 3d6`; then "
                       f"`highest({name})` is its highest die", item.name)

    # Each attribute a resolver's kind declares (KINDS) is lowered by one method, named in RESOLVER_ATTRIBUTES.

    def roll_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        """`roll: 2d6 + dots` (or `roll if ...:`): the dice, one rule per line."""
        parts.dice.append(m.DiceRule(self.with_faces(value, item), attr.when, attr.span))
        groups: set[str] = set()  # named groups of dice, and lets that read them
        for let in item.lets:
            if isinstance(let.expr, m.Dice) or any(isinstance(n, m.Name) and n.name in groups for n in walk(let.expr)):
                groups.add(let.name)
        if not contains_dice(value) and not any(isinstance(node, m.Name) and node.name in groups
                                                for node in walk(value)):
            self.error(Code.TYPE, "`roll:` needs dice, like `2d6 + dots`", attr.span,
                       "a number without dice belongs in a `formula` or a `let`", item.name)

    def zero_dice_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        parts.zero_dice = value

    def key_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        parts.key = value

    def value_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        parts.value = value

    def text_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        parts.text = _text(value)

    def wording(self, block: m.Block, item: m.Item) -> list[tuple[str, str, m.Span]]:
        """`words:` and under it `roll: "..."`, `value:`, `key:`, a let's, a band's or a flag's name: the
        designer's own wording, which the sheets print instead of the generated words (checked against the
        resolver's names once it is built: `check_wording`). An empty wording, `roll: ""`, says the rule text
        already says it: the player's and core sheets print nothing there, the proof the generated words."""
        out = []
        for attr in block.attrs:
            if isinstance(attr.value, m.Text):
                out.append((attr.name, " ".join(attr.value.value.split()), attr.span))
            else:
                self.error(Code.TYPE, f"`{attr.name}:` under `words:` is the wording, in quotes", attr.span,
                           f'like `{attr.name}: "roll your die, stepped along the ladder"` (`""` where the rule text '
                           'says it)',
                           item.name)
        for entry in block.entries:
            self.error(Code.TYPE, "`words:` holds `name: \"wording\"` lines, not entries", entry.span,
                       'like `roll: "roll your die, stepped along the ladder"`', item.name)
        return out

    def chart_axes(self, block: m.Block, item: m.Item, inputs: tuple[m.ResolvedInput, ...]) -> tuple[str, ...]:
        """`chart:` and under it `rows: INPUT` and, for a grid of the chance of success, `columns: INPUT`: the
        inputs the sheet's chart of a roll's odds runs along, where the first number is not the one a player
        reads it by. Each names a whole-number, yes/no or choice input of the roll."""
        axes: dict[str, str] = {}
        usable = {i.name: i for i in inputs if isinstance(i.type, (m.IntRange, m.Flag, m.Choice))}
        for attr in block.attrs:
            if attr.name not in ("rows", "columns"):
                self.error(Code.TYPE, f"`chart:` has no `{attr.name}:`", attr.span,
                           "give `rows: INPUT` and, for a grid, `columns: INPUT`", item.name)
            elif not (isinstance(attr.value, m.Name) and attr.value.name in usable):
                value = attr.value
                named = value.name if isinstance(value, m.Name) else "..." if isinstance(value, m.Block) \
                    else m.expr_text(value)
                self.error(Code.UNDEFINED, f"`{attr.name}: {named}` names no number, yes/no or choice input of "
                           f"`{item.name}`", attr.value.span, did_you_mean(named, list(usable))
                           or f"its inputs: {', '.join(usable) or 'none'}", item.name)
            elif attr.value.name in axes.values():
                self.error(Code.TYPE, f"the chart's rows and columns are both `{attr.value.name}`", attr.span,
                           "a grid runs along two different inputs", item.name)
            else:
                axes[attr.name] = attr.value.name
        for entry in block.entries:
            self.error(Code.TYPE, "`chart:` holds `rows:` and `columns:` lines, not entries", entry.span,
                       "like `rows: attribute`", item.name)
        if item.kind not in ("roll", "table"):
            self.error(Code.TYPE, f"a {item.kind} has no chart: `chart:` is for a roll or a table", block.span,
                       "give the chart to the roll whose odds it draws", item.name)
        if "columns" in axes and "rows" not in axes:
            self.error(Code.TYPE, "a chart with `columns:` needs `rows:` too", block.span,
                       "like `rows: dv` above `columns: attribute`", item.name)
            return ()
        return tuple(axes[name] for name in ("rows", "columns") if name in axes)

    def check_wording(self, resolver: m.Resolver, wording: list[tuple[str, str, m.Span]],
                      item: m.Item) -> tuple[tuple[str, str], ...]:
        """The designer's wording, each naming something of the resolver the sheet puts in words."""
        named = {"roll": bool(resolver.dice), "value": resolver.value is not None, "key": resolver.key is not None}
        names = [name for name, present in named.items() if present]
        names += [let.name for let in (*resolver.lets, *resolver.roll_lets)]
        names += [band.id for band in resolver.bands] + [name for name, _ in resolver.flags]
        out = []
        for name, text, span in wording:
            if name in names:
                out.append((name, text))
            else:
                self.error(Code.TYPE, f"`words:` of `{item.name}` has no `{name}` to reword", span,
                           f"it rewords one of: {', '.join(dict.fromkeys(names)) or 'nothing here'}", item.name)
        return tuple(out)

    def core_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        """`core: yes`: the roll is on the core sheet (`--one-page`), which then holds the rolls so marked."""
        if isinstance(value, m.Boolean):
            parts.core = value.value
        else:
            self.error(Code.TYPE, "`core:` is yes or no", attr.span, "write `core: yes`", item.name)

    def label_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        parts.label = _plain(value)

    def outcomes_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        """`outcomes: standard_bands`: the bands of a `bands` definition, before the resolver's own."""
        parts.bands_from = value.name if isinstance(value, m.Name) else None
        source = self.items.get(parts.bands_from or "")
        if source is None or source.kind != "bands":
            self.error(Code.UNDEFINED, f"`outcomes:` names no `bands` definition ({_plain(value)})",
                       attr.span, did_you_mean(parts.bands_from or "", [i.name for i in self.items.values()
                                                                         if i.kind == "bands"])
                       or "name a `bands` definition of this ruleset", item.name)
        else:
            parts.entries = source.entries + item.entries
            parts.citation = _merge_citations(item.citation, source.citation)

    def reroll_attr(self, value: m.Expr, attr: m.Attr, item: m.Item, parts: _Parts) -> None:
        """`reroll if fortuitous: failure or fumble`: the outcomes whose first result is rolled again."""
        operands = value.operands if isinstance(value, m.Logic) and value.op == "or" else (value,)
        names = tuple(o.name for o in operands if isinstance(o, m.Name))
        if len(names) != len(operands):
            self.error(Code.TYPE, "`reroll:` names the outcomes rolled again, like `reroll if lucky: failure`",
                       attr.span, "join several with `or`: `reroll: miss or fumble`", item.name)
        parts.rerolls.append(m.Reroll(names, attr.when, attr.span))

    def flags(self, block: m.Block, item: m.Item) -> list[tuple[str, m.Expr]]:
        """`flags:` and its lines, `match: doubles(challenge)`: yes/no tests a result carries beside its outcome."""
        out: list[tuple[str, m.Expr]] = []
        for entry in block.entries:
            self.error(Code.TYPE, "`flags:` holds lines like `match: doubles(challenge)`", entry.span,
                       "name each flag, then its test", item.name)
        for attr in block.attrs:
            if attr.when is not None or isinstance(attr.value, m.Block):
                self.error(Code.TYPE, f"a flag is one yes/no test: `{attr.name}: ...`", attr.span,
                           f"like `{attr.name}: doubles(challenge)`; put a condition inside the test, with `and`",
                           item.name)
            elif any(name == attr.name for name, _ in out):
                self.error(Code.DUPLICATE, f"`{attr.name}` is already a flag of `{item.name}`", attr.span,
                           "give each flag its own name", item.name)
            elif not _yes_no(attr.value):
                self.error(Code.TYPE, f"a flag is yes or no, and `{m.expr_text(attr.value)}` is not a test",
                           attr.value.span, f"compare it, like `{attr.name}: {m.expr_text(attr.value)} >= 2`",
                           item.name)
            else:
                out.append((attr.name, attr.value))
        return out

    def carry(self, block: m.Block, item: m.Item, inputs: set[str]) -> list[tuple[str, str]]:
        """`carry:` / `modifier: next_roll`: the next roll's input `modifier` is this result's `next_roll`."""
        out: list[tuple[str, str]] = []
        for attr in block.attrs:
            if attr.name not in inputs:
                self.error(Code.UNDEFINED, f"`{attr.name}` is not an input of `{item.name}`", attr.span,
                           did_you_mean(attr.name, sorted(inputs)) or "carry into an input the roll declares",
                           item.name)
            elif not isinstance(attr.value, m.Name):
                self.error(Code.TYPE, "carry names a value of the result, like `modifier: next_roll`", attr.span,
                           "name the data the bands give, like `next_roll: 2` under a band", item.name)
            else:
                out.append((attr.name, attr.value.name))
        return out

    def band_set(self, item: m.Item) -> m.Document:
        bands = [self.band(entry, item, 0) for entry in item.entries]
        text = next((_text(a.value) for a in item.attrs if a.name == "text"), None)
        entries = tuple(m.ListEntry(b.key_text, b.label, b.text, b.values, (), b.span) for b in bands)
        return m.Document("bands", item.name, item.title, item.citation, item.section, text, entries, (), item.span)

    def column(self, entry: m.Entry, item: m.Item) -> m.Column:
        if entry.key is None:
            self.error(Code.TYPE, "a column needs a key, like `- 0-3: low \"Notoriety 0 - 3\"`", entry.span,
                       "key it by what `columns by` reads: a range or an option", item.name)
        key = entry.key or m.Otherwise(entry.span)
        label = next((c for c in entry.cells if isinstance(c, str)), None)
        ident = entry.id or m.condition_text(key)
        values = tuple((a.name, a.value) for a in entry.attrs if not isinstance(a.value, m.Block))
        return m.Column(ident, label or ident, key, values, entry.span)

    def band(self, entry: m.Entry, item: m.Item, columns: int, column_ids: tuple[str, ...] = ()) -> m.Band:
        if entry.key is None:
            self.error(Code.TYPE, "a band or row needs a key before its colon, like `- 7-9: ...`", entry.span,
                       "ranges look like `7-9`, `10+`, `6 or less`, `natural 12`", item.name)
        key = entry.key or m.Otherwise(entry.span)
        strings = [c for c in entry.cells if isinstance(c, str)]
        values: list[tuple[str, m.Expr]] = []
        per_column: list[tuple[str, tuple[tuple[str, m.Expr], ...]]] = []
        label = None
        text_override = None
        tone = None
        for attr in entry.attrs:
            if isinstance(attr.value, m.Block) and attr.name in column_ids:
                per_column.append((attr.name, tuple((a.name, a.value) for a in attr.value.attrs
                                                    if not isinstance(a.value, m.Block))))
            elif isinstance(attr.value, m.Block):
                values.append((attr.name, m.Text(_block_text(attr.value), attr.span)))
            elif attr.name == "label":
                label = _plain(attr.value)
            elif attr.name == "text":
                text_override = _text(attr.value)
            elif attr.name == "tone":  # the sheet's colour of the outcome, not a value of the resolver
                if isinstance(attr.value, m.Name) and attr.value.name in m.TONES:
                    tone = attr.value.name
                else:
                    self.error(Code.TYPE, f"`tone:` is one of {', '.join(m.TONES)}", attr.span,
                               "write for example `tone: partial`", item.name)
            else:
                values.append((attr.name, attr.value))
        if columns:
            if len(entry.cells) != columns:
                self.error(Code.TYPE, f"this row has {len(entry.cells)} cells but the table has {columns} "
                           "columns", entry.span, "give one cell per column, `—` for an empty one", item.name)
            text = text_override
        else:
            numbers = [c for c in entry.cells if isinstance(c, int)]
            if numbers and not strings:
                values.insert(0, ("value", m.Number(numbers[0], entry.span)))
            if len(entry.cells) > 1:
                self.error(Code.TYPE, "this row has several cells but the table declares no `columns by`",
                           entry.span, "add `columns by ...:` or put the text in one string", item.name)
            text = text_override if text_override is not None else (strings[0] if strings else None)
        ident = entry.id or m.condition_text(key)
        if label is None:
            label = entry.id.replace("_", " ").capitalize() if entry.id else m.condition_text(key)
        return m.Band(ident, label, text, key, entry.cells, entry.chain, tuple(values), entry.span,
                      tuple(per_column), tone=tone, effects=band_effects(entry.effects, values), erratum=entry.erratum)

    def unique_bands(self, bands: Iterable[m.Band], item: m.Item) -> None:
        seen: set[str] = set()
        for band in bands:
            if band.id in seen and not isinstance(band.condition, m.Ranges):
                self.error(Code.DUPLICATE, f"two bands of `{item.name}` are both `{band.id}`", band.span,
                           "give each band its own id", item.name)
            seen.add(band.id)

    def document(self, item: m.Item) -> m.Document:
        text = None
        details: list[tuple[str, m.Expr]] = []
        for attr in item.attrs:
            if attr.name == "text" and not isinstance(attr.value, m.Block):
                text = _text(attr.value)
            elif not isinstance(attr.value, m.Block):
                details.append((attr.name, attr.value))
            else:
                details.append((attr.name, m.Text(_block_text(attr.value), attr.span)))
        entries = tuple(self.list_entry(e) for e in item.entries)
        for declared in item.inputs:
            self.error(Code.TYPE, f"a {item.kind} takes no inputs", declared.span, _kind_hint(item.kind), item.name)
        if item.kind == "priority":
            self.priority(item, entries, details)
        return m.Document(item.kind, item.name, item.title, item.citation, item.section, text, entries,  # type: ignore[arg-type]
                          tuple(details), item.span)

    def priority(self, item: m.Item, entries: tuple[m.ListEntry, ...], details: list[tuple[str, m.Expr]]) -> None:
        """A priority list: `nearest: distance` first, then its entries in order; `most:`/`least:` compare data."""
        for name, value in details:
            if name == "nearest" and not isinstance(value, m.Name):
                self.error(Code.TYPE, "`nearest:` names what candidates are compared by, lowest first, like "
                           "`nearest: distance`", item.span, "write a name, not a number or text", item.name)
        for entry in entries:
            if entry.id is None:
                self.error(Code.TYPE, "each priority needs a name that candidates are marked with, like "
                           "`- captain: \"Captain\"`", entry.span, "put a name and a colon before the text",
                           item.name)
            for name, value in entry.values:
                if name in ("most", "least") and not isinstance(value, m.Name):
                    self.error(Code.TYPE, f"`{name}:` names the candidates' value to compare, like `{name}: damage`",
                               entry.span, "write a name, not a number or text", item.name)

    def list_entry(self, entry: m.Entry) -> m.ListEntry:
        strings = [c for c in entry.cells if isinstance(c, str)]
        ident = entry.id
        if entry.key is not None:
            ident = m.condition_text(entry.key)
        values: list[tuple[str, m.Expr]] = []
        children: list[m.ListEntry] = []
        label = None
        for attr in entry.attrs:
            if isinstance(attr.value, m.Block):
                children.extend(self.list_entry(e) for e in attr.value.entries)
            elif attr.name == "label":
                label = _plain(attr.value)
            else:
                values.append((attr.name, attr.value))
        if label is None and ident is not None:
            label = ident.replace("_", " ").capitalize()
        return m.ListEntry(ident, label, strings[0] if strings else None, tuple(values), tuple(children),
                           entry.span)

    def die(self, item: m.Item) -> m.CustomDie:
        """`die attack`: a custom die; its entries are faces (`count:` sides each, `value:` when summed)."""
        sides: int | None = None
        status: m.DieStatus = "known"
        text = None
        details: list[tuple[str, m.Expr]] = []
        for attr in item.attrs:
            value = attr.value
            if attr.name == "sides" and isinstance(value, m.Number) and value.value > MAX_SIDES:
                self.refuse(f"a die of {value.value:,} sides; the limit is {MAX_SIDES:,}", attr.span,
                            "give the die fewer sides", item.name)
            elif attr.name == "sides" and isinstance(value, m.Number) and value.value > 0:
                sides = value.value
            elif attr.name == "faces" and isinstance(value, (m.Unknown, m.Name)):
                status = self.contents_status(attr, item)
            elif attr.name == "text":
                text = _text(value) if not isinstance(value, m.Block) else _block_text(value)
            elif attr.name in ("sides", "faces"):
                what = "a whole number of sides" if attr.name == "sides" else "`unknown` or `placeholder`"
                self.error(Code.TYPE, f"`{attr.name}:` of a die is {what}", attr.span,
                           "like `sides: 6`" if attr.name == "sides" else "like `faces: unknown`", item.name)
            elif not isinstance(value, m.Block):
                details.append((attr.name, value))
        faces: list[m.Face] = []
        for entry, ident, data in self.named_entries(item, "a face needs a name, like `- hit \"Hit\"`"):
            count = next((v.value for k, v in data if k == "count" and isinstance(v, m.Number)), 1)
            if count < 1:
                self.error(Code.TYPE, f"face `{ident}` is on {count} sides; `count:` is 1 or more", entry.span,
                           "like `count: 2`, or drop the face", item.name)
                count = 1
            worth = next((v.value for k, v in data if k == "value" and isinstance(v, m.Number)), 0)
            label = next((c for c in entry.cells if isinstance(c, str)), None) or ident.replace("_", " ").capitalize()
            faces.append(m.Face(ident, label, count, worth, tuple((k, v) for k, v in data
                                                                   if k not in ("count", "value")), entry.span))
        covered = sum(face.count for face in faces)
        if covered > MAX_SIDES:
            self.refuse(f"the faces of `{item.name}` cover {covered:,} sides; the limit is {MAX_SIDES:,}",
                        item.span, "give the faces smaller `count:`s", item.name)
            faces, covered = [], 0  # listing every side would take forever
        if sides is None:
            sides = covered or 6
        elif faces and covered != sides:
            self.error(Code.COUNT, f"the faces of `{item.name}` cover {covered} sides; the die has {sides}",
                       item.span, "give each face a `count:` so the counts add up to `sides:`", item.name)
        if len({face.id for face in faces}) != len(faces):
            self.error(Code.DUPLICATE, f"`{item.name}` names a face twice", item.span,
                       "list a face once, with `count:` for the sides it is on", item.name)
        label = next((_plain(a.value) for a in item.attrs if a.name == "label"), None) or item.title
        return m.CustomDie(item.name, label, item.citation, item.section, text, sides, tuple(faces), status,
                           tuple(details), item.span)

    def named_entries(self, item: m.Item, hint: str) -> Iterator[tuple[m.Entry, str, list[tuple[str, m.Expr]]]]:
        """The entries of a die or deck, each with its name and its plain data (a nameless one is an error)."""
        for entry in item.entries:
            ident = entry.id or (entry.key.name if isinstance(entry.key, m.OptionKey) else None)
            if ident is None:
                self.error(Code.TYPE, hint, entry.span, "start the entry with its name", item.name)
                continue
            yield entry, ident, [(a.name, a.value) for a in entry.attrs
                                 if isinstance(a, m.Attr) and not isinstance(a.value, m.Block)]

    def contents_status(self, attr: m.Attr, item: m.Item) -> m.DieStatus:
        """`faces: unknown` / `cards: placeholder`: contents lost from the document, or supplied in errata."""
        value = attr.value
        if isinstance(value, m.Unknown):
            return "unknown"
        if not (isinstance(value, m.Name) and value.name == "placeholder"):
            self.error(Code.TYPE, f"`{attr.name}:` is `unknown` (lost from the document) or `placeholder` (supplied, "
                       "not from the document)", attr.span, f"list the {attr.name} as `-` entries instead",
                       item.name)
        return "placeholder"

    def deck(self, item: m.Item) -> m.Deck:
        """`deck sea_events`: its entries are cards (`copies:`, `text:`); `piles: chapter` splits it by that data."""
        status: m.DieStatus = "known"
        text = None
        piles: str | None = None
        on_empty: Literal["reshuffle", "stop"] = "stop"
        details: list[tuple[str, m.Expr]] = []
        for attr in item.attrs:
            value = attr.value
            if isinstance(value, m.Block):
                continue
            if attr.name == "cards":
                status = self.contents_status(attr, item)
            elif attr.name == "text":
                text = _text(value)
            elif attr.name == "piles" and isinstance(value, m.Name):
                piles = value.name
            elif attr.name == "on_empty" and isinstance(value, m.Name) and value.name in ("reshuffle", "stop"):
                on_empty = "reshuffle" if value.name == "reshuffle" else "stop"
            elif attr.name in ("piles", "on_empty"):
                self.error(Code.TYPE, "`piles:` names the card data that splits the deck, like `piles: chapter`"
                           if attr.name == "piles" else "`on_empty:` is `reshuffle` or `stop`", attr.span,
                           "write a name, not a number or text", item.name)
            elif attr.name != "label":
                details.append((attr.name, value))
        cards: list[m.Card] = []
        for entry, ident, data in self.named_entries(item, "a card needs a name, like `- storm \"Storm\"`"):
            copies = next((v for k, v in data if k == "copies"), m.Number(1))
            if not isinstance(copies, m.Number) or not 1 <= copies.value <= 10_000:
                self.error(Code.TYPE, "`copies:` is a whole number of cards from 1 to 10,000", entry.span,
                           "like `copies: 3`", item.name)
                copies = m.Number(1)
            pile = next((v for k, v in data if k == piles), None)
            pile_key = (pile.value if isinstance(pile, m.Number) else pile.name if isinstance(pile, m.Name)
                        else pile.value if isinstance(pile, m.Text) else None)
            if piles is not None and pile_key is None:
                self.error(Code.MISSING, f"card `{ident}` has no `{piles}:`, and the deck is split by it", entry.span,
                           f"add `{piles}: 1` (the pile it goes in)", item.name)
            strings = [c for c in entry.cells if isinstance(c, str)]
            label = strings[0] if strings else ident.replace("_", " ").capitalize()
            card_text = next((v.value for k, v in data if k == "text" and isinstance(v, m.Text)), None)
            cards.append(m.Card(ident, label, card_text, copies.value, pile_key,
                                tuple((k, v) for k, v in data if k not in ("copies", "text", piles)), entry.span))
        if sum(card.copies for card in cards) > MAX_CARDS:
            self.refuse(f"`{item.name}` has {sum(card.copies for card in cards):,} cards; a deck holds at most "
                        f"{MAX_CARDS:,}", item.span, "give the cards fewer `copies:`", item.name)
        if len({card.id for card in cards}) != len(cards):
            self.error(Code.DUPLICATE, f"`{item.name}` names a card twice", item.span,
                       "give each card its own name; `copies: 2` for two alike", item.name)
        label = next((_plain(a.value) for a in item.attrs if a.name == "label"), None) or item.title
        return m.Deck(item.name, label, item.citation, item.section, text, tuple(cards), status, piles, on_empty,
                      tuple(details), item.span)

    def with_faces(self, expr: m.Expr, item: m.Item) -> m.Expr:
        """Fill every custom pool of `expr` with its die's faces (a die without faces leaves them empty)."""
        def fill(node: m.Expr) -> m.Expr:
            if not isinstance(node, m.Dice) or node.die is None:
                return node
            die = self.custom_dice.get(node.die)
            if die is None and node.die in m.BUILTIN_DICE:  # `4dF`, `d66`, where the ruleset declares no such die
                faces = m.BUILTIN_DICE[node.die]
                return replace(node, sides=m.Number(len(faces), node.span),
                               faces=tuple(symbol for symbol, _ in faces), values=tuple(value for _, value in faces))
            if die is None:
                plain = re.fullmatch(r"[dD](\d+)", node.die)
                hint = (f"write dice with no space, like `{m.expr_text(node.count)}d{plain.group(1)}`" if plain
                        else did_you_mean(node.die, sorted(self.custom_dice)) or "declare it with `die NAME`")
                self.error(Code.UNDEFINED, f"there is no die `{node.die}`", node.span, hint, item.name)
                return node
            return replace(node, sides=m.Number(die.sides, node.span), faces=die.symbols(),
                           values=die.side_values())
        return rebuild(expr, fill)

    def track(self, item: m.Item) -> m.Track:
        size: int | None = None
        start = 0
        on_full = text = None
        roll_over = reset = False
        details: list[tuple[str, m.Expr]] = []
        levels: list[tuple[int, str, int, str | None]] = []
        markers: list[tuple[str, str]] = []
        per_round: list[tuple[str, int]] = []
        ticks: int | None = None
        ranks: list[tuple[str, int]] = []
        ticks_attr = ranks_attr = None
        full_effects: tuple[m.Effect, ...] = ()
        marked_effects: tuple[m.Effect, ...] = ()
        level_notes: tuple[tuple[int, str, str], ...] = ()
        for attr in item.attrs:
            value = attr.value
            if attr.name == "levels" and isinstance(value, m.Block):
                levels, level_notes = self.levels(value, item)
            elif attr.name == "markers" and isinstance(value, m.Block):
                markers = self.markers(value, item)
            elif attr.name == "per_round" and isinstance(value, m.Block):
                per_round = self.per_round(value, item, [name for name, _ in markers])
            elif attr.name == "size":
                if isinstance(value, m.Number) and value.value > MAX_BOXES:
                    self.refuse(f"a {item.kind} of {value.value:,} boxes; the limit is {MAX_BOXES:,}", attr.span,
                                "a track the sheet can draw has fewer boxes", item.name)
                elif isinstance(value, m.Number) and value.value > 0:
                    size = value.value
                elif not isinstance(value, (m.Unknown, m.Name)):
                    self.error(Code.TYPE, "a size is a whole number of boxes, or `unknown`", attr.span,
                               "like `size: 6`", item.name)
                if isinstance(value, m.Name):
                    details.append(("size_from", value))
            elif attr.name == "start" and isinstance(value, m.Number):
                start = value.value
            elif attr.name in ("full", "marked") and isinstance(value, m.Block):  # what filling, marking it does
                if attr.name == "full":
                    full_effects = value.effects
                else:
                    marked_effects = value.effects
                if value.attrs or value.entries:
                    self.error(Code.TYPE, f"a `{attr.name}:` block holds effects, one a line (`clear stress`, "
                               "`-> crisis`)", value.span, "write `on_full: \"...\"` for the document's words"
                               if attr.name == "full" else "put the document's words in `text:`", item.name)
            elif attr.name == "on_full" and not isinstance(value, m.Unknown):
                on_full = _plain(value) if not isinstance(value, m.Block) else _block_text(value)
            elif attr.name == "text":
                text = _text(value) if not isinstance(value, m.Block) else _block_text(value)
            elif attr.name == "roll_over":
                roll_over = isinstance(value, m.Boolean) and value.value
            elif attr.name == "reset_on_full":
                reset = isinstance(value, m.Boolean) and value.value
            elif attr.name == "ticks" and (item.kind == "track" or isinstance(value, m.Number)):
                ticks_attr, ticks = attr, self.ticks(attr, item)
            elif attr.name == "ranks":
                ranks_attr, ranks = attr, self.ranks(attr, item)
            elif isinstance(value, m.Block):
                details.append((attr.name, m.Text(_block_text(value), attr.span)))
            else:
                details.append((attr.name, value))
        boxes = sum(max(n, 0) for _, _, n, _ in levels)
        if boxes > MAX_BOXES:
            self.refuse(f"the levels of `{item.name}` have {boxes:,} boxes; the limit is {MAX_BOXES:,}", item.span,
                        "give the levels fewer `boxes:`", item.name)
            levels = []
        if levels and size is None:
            size = sum(boxes for _, _, boxes, _ in levels) or None
        if size is not None and not 0 <= start <= size:
            self.error(Code.TYPE, f"start {start} does not fit a size of {size}", item.span,
                       f"start from 0 to {size} boxes marked", item.name)
        if ranks_attr is not None and ticks_attr is None:
            self.error(Code.TYPE, f"`ranks:` say how many ticks one mark of progress is, but `{item.name}` has no "
                       "`ticks:`", ranks_attr.span, "say how many ticks a box holds, like `ticks: 4` (Ironsworn's "
                       "progress tracks)" if item.kind == "track" else
                       "a clock's segments are marked whole: make it a `track` with `ticks: 4`", item.name)
            ranks = []
        if ticks_attr is not None and (levels or markers):
            self.error(Code.TYPE, f"a track with {'levels' if levels else 'markers'} marks whole boxes: "
                       "`ticks:` cannot split them", ticks_attr.span, "drop `ticks:`, or make the ticked track a "
                       "track of its own", item.name)
            ticks, ranks = None, []
        return m.Track(item.kind, item.name, item.title, item.citation, item.section, text, size, start,  # type: ignore[arg-type]
                       on_full, roll_over, reset, tuple(details), item.span, tuple(levels), tuple(markers),
                       tuple(per_round), ticks, tuple(ranks), full_effects, marked_effects, level_notes)

    def ticks(self, attr: m.Attr, item: m.Item) -> int | None:
        """`ticks: 4`: how many ticks one box of a track holds (Ironsworn's progress tracks: 4)."""
        value = attr.value
        if item.kind == "clock":
            self.error(Code.TYPE, "a clock's segments are its ticks: `ticks:` splits the boxes of a track",
                       attr.span, "make it a `track` with `size:` and `ticks:`, or give the clock more segments "
                       "(`size: 8`)", item.name)
        elif not isinstance(value, m.Number) or value.value < 1:
            self.error(Code.TYPE, "`ticks:` is how many ticks one box holds: a whole number, 1 or more", attr.span,
                       "like `ticks: 4` (each box of ten filled by four ticks)", item.name)
        elif value.value > MAX_TICKS:
            self.refuse(f"boxes of {value.value:,} ticks; the limit is {MAX_TICKS:,}", attr.span,
                        "a box the sheet can draw holds fewer ticks", item.name)
        else:
            return value.value
        return None

    def ranks(self, attr: m.Attr, item: m.Item) -> list[tuple[str, int]]:
        """`ranks:` / `dangerous: 8`: how many ticks one mark of progress is, rank by rank."""
        block = attr.value
        if not isinstance(block, m.Block) or block.entries or not block.attrs:
            self.error(Code.TYPE, "`ranks:` is a block: one line per rank, the ticks one mark of progress is",
                       attr.span, "like `ranks:` then, indented, `troublesome: 12` and `dangerous: 8`", item.name)
            return []
        out: list[tuple[str, int]] = []
        seen: set[str] = set()
        for rank in block.attrs:
            value = rank.value
            if rank.name in seen:
                self.error(Code.DUPLICATE, f"the rank `{rank.name}` is given twice", rank.span,
                           "keep one of the two lines", item.name)
            elif not isinstance(value, m.Number) or value.value < 1 or rank.when is not None:
                self.error(Code.TYPE, f"rank `{rank.name}` marks a whole number of ticks, 1 or more", rank.span,
                           f"like `{rank.name}: 8`", item.name)
            elif value.value > MAX_TICKS * MAX_BOXES:
                self.refuse(f"a rank of {value.value:,} ticks; the limit is {MAX_TICKS * MAX_BOXES:,}", rank.span,
                            "one mark of progress marks fewer ticks", item.name)
            else:
                out.append((rank.name, value.value))
            seen.add(rank.name)
        return out

    def markers(self, block: m.Block, item: m.Item) -> list[tuple[str, str]]:
        """`markers:` / `damage: left`, `strain: right`: which end each marker fills from."""
        ends = {"start": "start", "left": "start", "bottom": "start", "end": "end", "right": "end", "top": "end"}
        out: list[tuple[str, str]] = []
        for attr in block.attrs:
            value = attr.value
            if not isinstance(value, m.Name) or value.name not in ends:
                self.error(Code.TYPE, f"marker `{attr.name}` starts at an end of the track: `start` or `end` "
                           "(also `left`/`right`, `bottom`/`top`)", attr.span, "like `damage: left`", item.name)
                continue
            out.append((attr.name, ends[value.name]))
        return out

    def per_round(self, block: m.Block, item: m.Item, markers: list[str]) -> list[tuple[str, int]]:
        """`per_round:` / `enemy: 1`: how far a marker moves at each new round (declared after `markers:`)."""
        out: list[tuple[str, int]] = []
        for attr in block.attrs:
            if attr.name not in markers:
                self.error(Code.UNDEFINED, f"`{attr.name}` is not a marker of `{item.name}`", attr.span,
                           did_you_mean(attr.name, markers) or "declare it under `markers:` first", item.name)
            elif not isinstance(attr.value, m.Number):
                self.error(Code.TYPE, "a marker moves a whole number of boxes per round, like `enemy: 1`", attr.span,
                           "write a whole number", item.name)
            else:
                out.append((attr.name, attr.value.value))
        return out

    def levels(self, block: m.Block, item: m.Item) -> tuple[list[tuple[int, str, int, str | None]],
                                                            tuple[tuple[int, str, str], ...]]:
        """`levels:` entries `- 1: lesser "Lesser"` with `boxes:` and `penalty:`: harm rows by level; and each
        level's other lines (`incapacitated: "..."`), text the outputs keep."""
        out: list[tuple[int, str, int, str | None]] = []
        notes: list[tuple[int, str, str]] = []
        for entry in block.entries:
            key = entry.key
            number = key.parts[0].low if isinstance(key, m.Ranges) and len(key.parts) == 1 and \
                key.parts[0].low == key.parts[0].high else None
            if number is None:
                self.error(Code.TYPE, "a level is keyed by its number, like `- 2: moderate \"Moderate\"`", entry.span,
                           "one whole number before the colon", item.name)
                continue
            data = {a.name: a.value for a in entry.attrs if isinstance(a, m.Attr)}
            boxes = data.get("boxes")
            penalty = data.get("penalty")
            name = next((c for c in entry.cells if isinstance(c, str)), None) or entry.id or str(number)
            out.append((number, name, boxes.value if isinstance(boxes, m.Number) else 0,
                        _plain(penalty) if penalty is not None and not isinstance(penalty, m.Block) else None))
            notes.extend((number, line, _plain(value)) for line, value in data.items()
                         if line not in ("boxes", "penalty") and not isinstance(value, m.Block))
        return out, tuple(notes)

    def limits(self, definitions: tuple[m.Definition, ...]) -> None:
        """Caps on what the outputs list: options of choice inputs, odds on the sheet, chains of tables."""
        resolvers = [d for d in definitions if isinstance(d, m.Resolver)]
        options = printed = 0
        for resolver in resolvers:
            for declared in resolver.inputs:
                options += len(declared.type.options) if isinstance(declared.type, m.Choice) else 0
                if options > MAX_OPTIONS:
                    self.refuse(f"the choice inputs of this ruleset list more than {MAX_OPTIONS:,} options in all "
                                "(the module and the export list each input's options); the limit is reached here",
                                declared.span, "use fewer options, or fewer inputs that take them", resolver.name)
                    options = -(10**18)  # refused once
            size = sheet_odds_size(resolver)
            printed += size
            if printed > odds.MAX_SHEET_ODDS:
                axis = odds.sheet_axis(resolver)
                rows = f"{input_count(axis.type):,} values of `{axis.name}`" if axis is not None else "one row"
                self.refuse(f"the sheet would print more than {odds.MAX_SHEET_ODDS:,} odds; `{resolver.name}` "
                            f"alone prints {size:,} ({rows} x {len(resolver.bands):,} bands)", resolver.span,
                            "narrow the range of the roll's first input (the sheet prints a row for each value)",
                            resolver.name)
                printed = -(10**18)
        self.chains(resolvers)

    def chains(self, resolvers: list[m.Resolver]) -> None:
        """A chain of tables (`-> next`, `-> gems x2`) that can follow more than MAX_CHAIN links in all is an
        error (a loop is a CHAIN-LOOP defect)."""
        links, _ = chain_graph(resolvers)
        for resolver in resolvers:
            counted = (m.chain_times(link.times) for band in resolver.bands
                       for link in (band.chain.links if band.chain is not None else ()))
            if links.get(resolver.name, 0) > MAX_CHAIN and all(times <= MAX_CHAIN for times in counted):
                # (a row that alone rolls a table more often is refused where it says so)
                self.refuse(f"a roll of `{resolver.name}` can chain through {links[resolver.name]} more tables; "
                            f"the limit is {MAX_CHAIN}", resolver.span, "shorten the chain of `->` tables",
                            resolver.name)
                break

    # ---------------------------------------------------------------- names

    def chain_link(self, link: m.Link, resolver: m.Resolver, local: set[str], options: set[str],
                   item: m.Item) -> None:
        """One table a row rolls next (`-> encounters x2`): a roll or table (or a choice of them), rolled a whole
        number of times from 1 to MAX_CHAIN, or a number of times plain dice give (`x d4`)."""
        target = link.target
        if isinstance(target, m.Name) and target.name not in local | options | set(self.definition_names):
            self.error(Code.UNDEFINED, f"no table is named `{target.name}`: `->` names the table to roll next",
                       target.span, did_you_mean(target.name, sorted(self.definition_names))
                       or "define that table in this ruleset, or drop the `->`", item.name)
        else:
            self.names_in(target, local, options, item, allow_roll=False)
        if not all(isinstance(b, m.Name) for b in branches(target)):
            self.error(Code.TYPE, "`->` names the table to roll next", target.span,
                       "like `-> treasure`, `-> a if x else b`, `-> weather, foes` or `-> gems x2`", item.name)
        for node in _whole_values(target):
            found = self.items.get(node.name) if node.name not in local | options else None
            if found is not None and found.kind not in ("roll", "table"):
                self.error(Code.TYPE, f"`->` rolls a table next; `{node.name}` is a {found.kind}", node.span,
                           "name a roll or table after `->`", item.name)
            elif node.name in local | options and (what := self.not_tables(resolver, node.name)):
                self.error(Code.TYPE, f"`->` rolls a table next; `{node.name}` is {what}", node.span,
                           "name a table, or an input that is a choice of tables, like `input zone: one of "
                           "zone_1, zone_2`", item.name)
        times = link.times
        if times is None:
            return
        table = m.expr_text(target)
        if isinstance(times, m.Number):
            if times.value < 1:
                self.error(Code.TYPE, f"`x{times.value}` rolls `{table}` no times: a table is rolled once or more",
                           times.span, f"drop the `->`, or write `-> {table} x2` to roll it twice", item.name)
            elif times.value > MAX_CHAIN:
                self.error(Code.TOO_LARGE, f"`x{times.value}` rolls `{table}` {times.value} times; a roll follows "
                           f"at most {MAX_CHAIN} links of `->` in all", times.span,
                           f"roll it at most {MAX_CHAIN} times", item.name)
        elif m.chain_dice(times) is None:
            self.error(Code.TYPE, f"`x {m.expr_text(times)}`: the number of times is a whole number or plain dice",
                       times.span, f"like `-> {table} x2`, `-> {table} x d4` or `-> {table} x (2d6)`", item.name)
        elif (most := m.chain_times(times)) > MAX_CHAIN:
            self.error(Code.TOO_LARGE, f"`x {m.expr_text(times)}` can roll `{table}` {most} times; a roll follows "
                       f"at most {MAX_CHAIN} links of `->` in all", times.span,
                       f"use dice that give at most {MAX_CHAIN}, like `x d6`", item.name)

    def type_options(self) -> frozenset[str]:
        """The options of every declared choice type: names any expression may use (worked out once)."""
        if self._type_options is None:
            self._type_options = frozenset(o.name for t in self.ruleset.types
                                           if isinstance(spec := self.resolve_type(t.spec, False), m.Choice)
                                           for o in spec.options)
        return self._type_options

    def check_names(self, resolver: m.Resolver, item: m.Item) -> None:
        local = {i.name for i in resolver.inputs}
        self.choice_inputs = {i.name for i in resolver.inputs if isinstance(i.type, m.Choice)}
        options = {o.name for i in resolver.inputs if isinstance(i.type, m.Choice) for o in i.type.options}
        options |= dice_symbols(resolver)
        if faceless(resolver):  # symbols of a die still to be supplied cannot be checked yet
            options |= {node.args[0].name for expr in resolver.expressions() for node in walk(expr)
                        if isinstance(node, m.Call) and node.function == "count" and node.args
                        and isinstance(node.args[0], m.Name)}
        options |= self.type_options()
        # A definition's name is a value only as the table a band rolls next, or as data (`see: other`).
        self.naming = {id(node) for band in resolver.bands
                       for expr in (*(band.chain.expressions() if band.chain is not None else ()),
                                    *(e for _, e in band.values))
                       for node in _whole_values(expr)}
        self.naming |= {id(node) for _, expr in resolver.details for node in _whole_values(expr)}
        groups = {group.name for group in resolver.groups}
        for let in resolver.lets:
            self.names_in(let.expr, local | groups, options, item, allow_roll=False,
                          where="a let is worked out before the roll")
            self.before_dice(let.expr, groups, "a let is worked out from the inputs, before the dice are rolled",
                             item)
            for node in walk(let.expr):
                if isinstance(node, m.Dice):
                    written = m.expr_text(node)
                    self.error(Code.TYPE, f"a let holds one group of dice, or a value worked out from the inputs; "
                               f"`{m.expr_text(let.expr)}` mixes them", node.span,
                               f"name the dice alone, `let {let.name}_dice = {written}`, and use that name in "
                               f"`roll:` or a band; to compare with an option named `{written}`, quote it: "
                               f"`= \"{written}\"`", item.name)
            if let.name in local or let.name in options:
                what = ("an input" if any(i.name == let.name for i in resolver.inputs) else "a let"
                        if let.name in local else "an option or a die's symbol")
                self.error(Code.DUPLICATE, f"`{let.name}` is already {what} of `{item.name}`", let.span,
                           "give the let a name of its own", item.name)
            local.add(let.name)
        named: set[str] = set()
        for group in resolver.groups if resolver.kind not in ("roll", "table") else ():
            self.error(Code.TYPE, f"a {resolver.kind} rolls no dice: `{group.name}` names dice", group.span,
                       "roll dice in a `roll` or `table`; to compare with an option named like dice, quote it: "
                       f"`= \"{m.expr_text(group.expr)}\"`", item.name)
        for group in resolver.groups:
            self.names_in(group.expr, local, options, item, allow_roll=False,
                          where="a named group of dice is rolled before the roll is read")
            if group.name in local or group.name in options or group.name in named:
                self.error(Code.DUPLICATE, f"`{group.name}` is already an input, let or option of `{item.name}`",
                           group.span, "give the dice a name of their own", item.name)
            named.add(group.name)
            explode = next((op for op in group.expr.ops if op.name in EXPLODING), None) if isinstance(
                group.expr, m.Dice) else None
            if explode is not None:
                self.error(Code.TYPE, f"`{group.name}` names exploding dice; a named group does not explode yet",
                           explode.span, f"write `{m.expr_text(group.expr)}` in `roll:` itself", item.name)
        for rule in resolver.dice:
            self.names_in(rule.expr, local | groups, options, item, allow_roll=False,
                          where="`roll:` says what is rolled")
            if rule.when is not None:
                self.names_in(rule.when, local | groups, options, item, allow_roll=False)
                self.before_dice(rule.when, groups, "`roll if` chooses the dice before they are rolled", item)
        for reroll in resolver.rerolls:
            if reroll.when is not None:
                self.names_in(reroll.when, local | groups, options, item, allow_roll=False)
                self.before_dice(reroll.when, groups, "`reroll if` reads the inputs", item)
        for expr in (resolver.key, resolver.value, resolver.zero_dice, resolver.column_by):
            if expr is not None:
                self.names_in(expr, local | groups, options, item, allow_roll=False)
                self.before_dice(expr, groups, "this is worked out before the dice are rolled", item)
        local |= groups
        for band in resolver.bands:
            if isinstance(band.condition, m.When):
                self.names_in(band.condition.test, local, options, item, allow_roll=True)
                for node in (n for n in walk(band.condition.test) if isinstance(n, m.Dice)):
                    self.error(Code.TYPE, f"a band's test reads the roll and rolls no dice: `{m.expr_text(node)}` "
                               "rolls dice", node.span, "roll every die in `roll:`, then test what it rolled: "
                               "`total`, `highest`, `count(6)`", item.name)
            for link in band.chain.links if band.chain is not None else ():
                self.chain_link(link, resolver, local, options, item)
            for _, value in band.values:
                self.names_in(value, local, options, item, allow_roll=True)
        yes_no = {i.name for i in resolver.inputs if isinstance(i.type, m.Flag)}
        for name, test in resolver.flags:
            self.names_in(test, local, options, item, allow_roll=True)
            if isinstance(test, m.Name) and test.name not in yes_no:
                self.error(Code.TYPE, f"a flag is yes or no, and `{test.name}` is not a yes/no input", test.span,
                           f"compare it, like `{name}: {test.name} >= 2`, or name a `flag` input", item.name)
        for _, value in resolver.details:
            self.names_in(value, local, options, item, allow_roll=False)
        self.check_kinds(resolver, item)
        key = resolver.key
        flag = {i.name for i in resolver.inputs if isinstance(i.type, m.Flag)}
        for let in resolver.lets:  # a let holding a yes/no
            if isinstance(let.expr, (m.Boolean, m.Not, m.Logic, m.Compare)) or (
                    isinstance(let.expr, m.Name) and let.expr.name in flag):
                flag.add(let.name)
        if isinstance(key, (m.Boolean, m.Not, m.Logic, m.Compare)) or (isinstance(key, m.Name) and key.name in flag):
            for band in resolver.bands:
                if isinstance(band.condition, (m.Ranges, m.Natural)) or (
                        isinstance(band.condition, m.OptionKey) and band.condition.name not in ("yes", "no")):
                    self.error(Code.TYPE, f"`{item.name}` is keyed by `{m.expr_text(key)}`, a yes/no: its rows are "
                               "`yes` and `no`", band.span, "like `- yes: armed \"Armed\"`", item.name)
        source = key if key is not None else resolver.value if not resolver.dice else None
        numbered = {i.name for i in resolver.inputs if isinstance(i.type, m.Choice)
                    and any(o.value is not None for o in i.type.options)}
        if "total" not in local and source is not None and (isinstance(source, m.Text) or (
                isinstance(source, m.Name) and source.name in self.choice_inputs - numbered)):
            for expr in resolver.expressions():
                for part in read_as_numbers(expr):
                    if isinstance(part, m.Name) and part.name == "total":
                        self.error(Code.TYPE, f"`total` is `{m.expr_text(source)}`, an option without a number, "
                                   "used as a number",
                                   part.span, "compare it with an option, like `when total = low`", item.name)

    def check_kinds(self, resolver: m.Resolver, item: m.Item) -> None:
        """Values of the wrong kind where the generated module would fail at roll time: an option without a
        number used as a number, a choice compared with yes or no, `natural` read where several groups of dice
        are rolled (it is the one group's own roll)."""
        choices = {i.name: i.type for i in resolver.inputs if isinstance(i.type, m.Choice)}
        held: dict[str, str] = {}  # lets holding a choice input's option: that input

        def choice_of(expr: m.Expr) -> str | None:
            if isinstance(expr, m.Name):
                return expr.name if expr.name in choices else held.get(expr.name)
            if isinstance(expr, m.Call) and expr.function == "step" and expr.args:
                return choice_of(expr.args[0])
            return None

        for let in resolver.lets:
            found = choice_of(let.expr)
            if found is not None:
                held[let.name] = found
        numbered = {o.name for c in choices.values() for o in c.options if o.value is not None}
        unnumbered = {o.name for c in choices.values() for o in c.options if o.value is None} - numbered
        local = set(choices) | {i.name for i in resolver.inputs} | {let.name for let in resolver.lets}
        for expr in resolver.expressions():
            for part in read_as_numbers(expr):
                name = choice_of(part)
                if name is not None and not any(o.value is not None for o in choices[name].options):
                    what = "a choice" if m.expr_text(part) == name else f"an option of `{name}`"
                    self.error(Code.TYPE, f"`{m.expr_text(part)}` is {what} whose options have no numbers, used as a "
                               "number", part.span, "give each option a number, like "
                               "`one of none (0), some (1)`", item.name)
                elif isinstance(part, m.Name) and part.name not in local and part.name in unnumbered:
                    self.error(Code.TYPE, f"the option `{part.name}` has no number, and is used as one", part.span,
                               "give its choice's options numbers, like `one of none (0), some (1)`", item.name)
            for node in walk(expr):
                if isinstance(node, m.IfElse):  # `die if x else 3`: the option is held as its number
                    holding = {h for h in map(choice_of, branches(node)) if h is not None}
                    numbers = [b for b in branches(node) if isinstance(b, (m.Number, m.Binary, m.Neg, m.Dice))]
                    for name in sorted(holding) if numbers else ():
                        if not any(o.value is not None for o in choices[name].options):
                            self.error(Code.TYPE, f"one value of this is an option of `{name}`, whose options have "
                                       "no numbers, and another a number", node.span, "give each option a number, "
                                       "like `one of none (0), some (1)`", item.name)
                if isinstance(node, m.Compare) and node.op in ("==", "!="):
                    for side, other in ((node.left, node.right), (node.right, node.left)):
                        if choice_of(side) is None or choice_of(other) is not None or isinstance(other, m.Text) or (
                                isinstance(other, m.Name) and other.name not in local):
                            continue  # an option, in words or by name, or another choice
                        if isinstance(other, m.Boolean):
                            word = "yes" if other.value else "no"
                            self.error(Code.TYPE, f"`{m.expr_text(side)}` is a choice, compared with {word} (a "
                                       "yes/no value)", other.span, f"to compare with an option named `{word}`, "
                                       f"quote it: `= \"{word}\"`", item.name)
                        else:
                            self.error(Code.TYPE, f"`{m.expr_text(side)}` is a choice, compared with "
                                       f"`{m.expr_text(other)}`, which is not one of its options", other.span,
                                       "compare it with an option; an option named like an input is quoted: "
                                       f"`= \"{m.expr_text(other)}\"`", item.name)
                        break
        source = resolver.key if resolver.key is not None else resolver.value
        keyed = choice_of(source) if source is not None and not resolver.dice else None
        if keyed is not None and not any(o.value is not None for o in choices[keyed].options):
            for band in resolver.bands:
                if isinstance(band.condition, m.Ranges):
                    self.error(Code.TYPE, f"`{resolver.name}` is keyed by an option of `{keyed}`, whose options have "
                               "no numbers: its rows name options", band.span, "like `- risky: ...`, or give the "
                               "options numbers", item.name)
        symbols = [node for rule in resolver.dice for node in walk(rule.expr) if isinstance(node, m.Dice)
                   and node.die is not None]
        for expr in resolver.expressions() if symbols else ():
            for node in walk(expr):
                if isinstance(node, m.Name) and node.name in ("highest", "lowest") and node.name not in local:
                    self.error(Code.TYPE, f"`{node.name}` reads numbered dice, and `{resolver.name}` rolls "
                               f"`{m.expr_text(symbols[0])}`, a die of symbols", node.span,
                               "read `total`, or count a face with `count(...)`", item.name)
        groups = [len(resolver.groups) + sum(isinstance(node, m.Dice) for node in walk(rule.expr))
                  for rule in resolver.dice]
        if resolver.dice and groups != [1] * len(groups):
            for band in resolver.bands:
                for _, value in band.values:
                    for node in walk(value):
                        if isinstance(node, m.Name) and node.name == "natural" and node.name not in local:
                            self.error(Code.TYPE, f"`natural` is the roll of a single group of dice, and "
                                       f"`{resolver.name}` rolls several", node.span, "read `total`, `highest` or "
                                       "`lowest` instead", item.name)

    def before_dice(self, expr: m.Expr, groups: set[str], where: str, item: m.Item) -> None:
        """An error for each named group of dice `expr` reads, where `where` says why it cannot."""
        for node in walk(expr):
            name = node.name if isinstance(node, m.Name) else node.group if isinstance(node, m.DiceRead) else None
            if name in groups:
                self.error(Code.TYPE, f"{where}: it cannot read the dice `{name}`", node.span,
                           f"read `{name}` in `roll:` or in a band, like `- when {name} > total: ...`", item.name)

    def not_tables(self, resolver: m.Resolver, name: str) -> str:
        """What an input, let or option after `->` is, when it is not a table nor a choice of tables ('' if it is)."""
        tables = {n for n, i in self.items.items() if i.kind in ("roll", "table")}
        put = next((i for i in resolver.inputs if i.name == name), None)
        if name in tables or (put is not None and isinstance(put.type, m.Choice)
                              and all(o.name in tables for o in put.type.options)):
            return ""
        if put is None:
            return "a let, not a table" if any(let.name == name for let in resolver.lets) else "an option, not a table"
        if isinstance(put.type, m.Choice):
            return ("an input whose options are not all tables: "
                    + ", ".join(f"`{o.name}`" for o in put.type.options if o.name not in tables))
        return f"an input of {'yes or no' if isinstance(put.type, m.Flag) else 'numbers'}"

    def names_in(self, expr: m.Expr, local: set[str], options: set[str], item: m.Item, allow_roll: bool,
                 where: str = "this is worked out before the roll") -> None:
        for node in walk(expr):
            if isinstance(node, m.Name):
                name = node.name
                if name in local or name in options:
                    continue
                if name in self.definition_names:
                    if id(node) not in self.naming:
                        self.error(Code.TYPE, f"`{name}` names a {self.items[name].kind}; it is not a value here",
                                   node.span, "a definition's name is a value only after `->` (the table to roll "
                                   "next) or as data, like `see: other`", item.name)
                    continue
                if name in ROLL_NAMES:
                    if not allow_roll:
                        self.error(Code.TYPE, f"{where}, so it cannot read `{name}`",
                                   node.span, f"read `{name}` in a band's `when` or in an outcome's data, like "
                                   f"`- when {name} >= 10: ...`", item.name)
                    continue
                candidates = sorted(local | options | set(self.definition_names) |
                                    (ROLL_NAMES if allow_roll else set()))
                self.error(Code.UNDEFINED, f"`{name}` is not an input, option or definition", node.span,
                           did_you_mean(name, candidates) or "declare it with `input` or `let`", item.name)
            elif isinstance(node, m.Call) and node.function not in FUNCTIONS:
                self.error(Code.UNDEFINED, f"there is no function `{node.function}`", node.span,
                           did_you_mean(node.function, sorted(FUNCTIONS))
                           or f"the functions are {', '.join(sorted(FUNCTIONS))}", item.name)
            elif isinstance(node, m.Call) and not _arity_fits(node):
                _, _, words, example = _ARITY[node.function]
                self.error(Code.TYPE, f"{node.function}() takes {words}, not {len(node.args)}", node.span,
                           f"like `{example}`", item.name)
            elif isinstance(node, m.Call) and node.function == "count" and not allow_roll:
                self.error(Code.TYPE, "count(face) reads the rolled dice; use it in a band's `when`", node.span,
                           "like `- when count(6) >= 2: critical`", item.name)
            elif isinstance(node, m.Call) and node.function in ("step", "rank") and not (
                    node.args and isinstance(node.args[0], m.Name) and node.args[0].name in self.choice_inputs):
                self.error(Code.TYPE, f"{node.function}() moves along a choice: its first argument must be a "
                           "choice input, like `step(die, 1)`", node.span,
                           "declare the input as a choice, like `input die: one of d4 (4), d6 (6), d8 (8)`", item.name)
            elif isinstance(node, m.Dice):
                self.dice_group(node, item)

    def dice_group(self, node: m.Dice, item: m.Item) -> None:
        """The caps on a group the rules fix, and the operators a group may take."""
        sides = node.sides.value if isinstance(node.sides, m.Number) and node.die is None else None
        count = node.count.value if isinstance(node.count, m.Number) else None
        if sides is not None and sides > MAX_SIDES:
            self.refuse(f"`{m.expr_text(node)}` rolls a die of {sides:,} sides; the limit is {MAX_SIDES:,}",
                        node.span, "give the die fewer sides", item.name)
        elif sides is not None and sides < 1:
            self.error(Code.TYPE, f"a die has 1 to {MAX_SIDES:,} sides, not {sides}", node.span, "like `d6`", item.name)
        if count is not None and count > MAX_DICE:
            self.refuse(f"`{m.expr_text(node)}` rolls {count:,} dice; the limit is {MAX_DICE:,}",
                        node.span, "roll fewer dice", item.name)
        self.operator_pairs(node, item)
        for op in node.ops:
            least = explode_parts(op.arg)[0] if op.name in EXPLODING else 0
            if op.name in EXPLODING and node.die is not None:
                self.error(Code.TYPE, f"`{m.expr_text(node)}`: only numbered dice explode", op.span,
                           "a die of symbols has no highest face", item.name)
            elif op.name in EXPLODING and least and (least < 2 or (sides is not None and least > sides)):
                self.error(Code.TYPE, f"`{m.expr_text(node)}` " + (
                    "would explode forever: every die shows 1 or more" if least < 2 else
                    f"never explodes: a d{sides} shows at most {sides}"), op.span,
                           "explode on a face from 2 to the die's highest, like `d10! on 9+`", item.name)
            elif op.name in EXPLODING and sides is not None and sides < 2:
                self.error(Code.TYPE, f"`{m.expr_text(node)}` would explode forever: a d1 always shows its "
                           "highest face", op.span, "explode a die of 2 sides or more", item.name)
            elif op.name in ("reroll", "reroll_lowest"):
                self.reroll_op(node, op, sides, count, item)
            elif op.name in ("highest", "lowest") and op.arg < 1:
                self.error(Code.TYPE, f"`{m.expr_text(node)}` keeps no dice", op.span,
                           f"keep one die or more, like `keep {op.name} 1`", item.name)
            elif op.name in ("highest", "lowest") and node.die is not None:
                self.error(Code.TYPE, f"`{m.expr_text(node)}`: a die of symbols has no {op.name} die", op.span,
                           "count symbols with `count(hit)` in a band instead", item.name)

    def operator_pairs(self, node: m.Dice, item: m.Item) -> None:
        """One operator on a group, or compounding (`!!`) then keeping: `3d6!! keep highest 2`. The rest is
        refused at the second operator, saying what works."""
        if len(node.ops) < 2:
            return
        first, second = node.ops[0], node.ops[1]
        if len(node.ops) == 2 and first.name == "compound" and second.name in ("highest", "lowest"):
            return
        written = m.expr_text(node)
        if first.name in EXPLODING and second.name in EXPLODING:
            self.error(Code.TYPE, f"`{written}` explodes twice: one `!` (each explosion a die of its own) or one "
                       "`!!` (added into the same die)", second.span,
                       "write `d6!` or `d6!!`, with `on 5+` or `at most 2 times` after it if needed", item.name)
        elif first.name == "explode" and second.name in ("highest", "lowest"):
            fixed = m.dice_text(replace(node, ops=(replace(first, name="compound"), second)))
            self.error(Code.TYPE, f"`{written}`: would `{second.name}` read the dice rolled, or each explosion as a "
                       "die of its own too? Games differ; compound the explosions into their die with `!!`",
                       second.span, f"write `{fixed}` (each die plus its explosions, then the {second.name} kept)",
                       item.name)
        else:
            self.error(Code.TYPE, f"`{written}` puts {len(node.ops)} operators on one group of dice; one is "
                       "allowed, or compounding then keeping (`3d6!! keep highest 2`)", second.span,
                       "keep one of them", item.name)
    def reroll_op(self, node: m.Dice, op: m.DiceOp, sides: int | None, count: int | None, item: m.Item) -> None:
        """`reroll 1-2` names faces the die shows, some but not all; `reroll lowest N` fewer dice than it rolls."""
        written = m.expr_text(node)
        if node.die is not None:
            what = "by face" if op.name == "reroll" else "lowest first"
            self.error(Code.TYPE, f"`{written}`: only numbered dice are re-rolled {what}", op.span,
                       "a die of symbols has no numbered faces; re-roll the whole result on an outcome with a "
                       "`reroll:` line instead, like `reroll: failure`", item.name)
        elif op.name == "reroll_lowest" and op.arg < 1:
            self.error(Code.TYPE, f"`{written}` re-rolls no dice", op.span,
                       "re-roll one die or more, like `reroll lowest` (one) or `reroll lowest 2`", item.name)
        elif op.name == "reroll_lowest" and count is not None and op.arg >= count:
            self.error(Code.TYPE, f"`{written}` re-rolls {op.arg} of {count} dice: "
                       + ("every one, which is the same as rolling once" if op.arg == count else "more than it rolls"),
                       op.span, f"re-roll fewer than {count}, like `reroll lowest {max(count - 1, 1)}`"
                       if count > 1 else "to roll again on a bad result, use a `reroll:` line, like `reroll: failure`",
                       item.name)
        elif op.name == "reroll" and sides is not None:
            faces = range(1, sides + 1)
            passing = [face for face in faces if op.arg >> face & 1]
            outside = op.arg >= 0 and op.arg >> (sides + 1) != 0
            if outside:
                self.error(Code.TYPE, f"`{written}` names a face a d{sides} does not show: its faces are 1 to {sides}",
                           op.span, f"name faces from 1 to {sides}, like `reroll 1` or `reroll {sides}`", item.name)
            elif not passing:
                self.error(Code.TYPE, f"`{written}` re-rolls no die: a d{sides} shows 1 to {sides}", op.span,
                           f"name faces from 1 to {sides}, like `reroll 1`", item.name)
            elif len(passing) == sides:
                self.error(Code.TYPE, f"`{written}` re-rolls every die: the same odds as rolling once", op.span,
                           "re-roll some faces, like `reroll 1-2`; to roll again on a bad result, use a `reroll:` "
                           "line, like `reroll: failure`", item.name)

    # ---------------------------------------------------------------- analysis

    def analyze(self, definitions: tuple[m.Definition, ...], items: tuple[m.Item, ...]) -> list[Defect]:
        defects: list[Defect] = []
        for (source, target), span in chain_graph(d for d in definitions if isinstance(d, m.Resolver))[1].items():
            defects.append(Defect(Code.CHAIN_LOOP, source, f"`{source}` chains back to `{target}`: a roll that keeps "
                                  f"looping stops with an error after {MAX_CHAIN} links", span,
                                  "make sure the chain ends (a table that says \"roll again\" loops)"))
        names = frozenset(d.name for d in definitions)
        by_name = {i.name: i for i in items}
        for definition in definitions:
            item = by_name.get(definition.name)
            if self.transcribes and (definition.citation is None or not definition.citation.ids):
                defects.append(Defect(Code.NO_SOURCE, definition.name,
                                      f"`{definition.name}` cites no inventory ID", definition.span,
                                      "the ruleset's header declares a `source:` it transcribes: cite the "
                                      "document's inventory ID, like `[C-1, lines 7-17]` (an original game has "
                                      "no `source:` and cites nothing)"))
            defects.extend(self.text_defects(definition))
            defects.extend(self.reference_defects(definition, names))
            if isinstance(definition, (m.CustomDie, m.Deck)):
                what = "faces" if isinstance(definition, m.CustomDie) else "cards"
                if definition.status == "placeholder":
                    defects.append(Defect(Code.PLACEHOLDER, definition.name, f"the {what} of `{definition.name}` are "
                                          "a placeholder, not from the document", definition.span,
                                          f"write the real {what} in its errata entry; everything using it follows"))
            elif isinstance(definition, m.Resolver):
                if definition.name not in self.broken and not faceless(definition):
                    defects.extend(self.resolver_defects(definition, names))
            elif isinstance(definition, m.Document):
                defects.extend(self.document_defects(definition))
            elif definition.size is None and not any(k == "size_from" for k, _ in definition.details):
                defects.append(Defect(Code.MISSING, definition.name,
                                      f"the document gives no size for `{definition.name}`", definition.span,
                                      "the generated class will ask for the size when it is created"))
            if item is not None:
                for attr in item.attrs:
                    if isinstance(attr.value, m.Unknown) and attr.name != "size":
                        defects.append(Defect(Code.MISSING, definition.name,
                                              f"`{definition.name}.{attr.name}` is unknown", attr.span))
        return defects

    def texts(self, definition: m.Definition) -> list[tuple[str | None, m.Span]]:
        """Every rule text a definition prints, with its place; bands shared from a band set
        (`bands_from`) are the band set's own, reported there once."""
        texts: list[tuple[str | None, m.Span]] = [(definition.text, definition.span)]
        if isinstance(definition, m.Resolver) and not definition.bands_from:
            for band in definition.bands:
                cells = [c for c in band.cells if isinstance(c, str)]
                texts += [(c, band.span) for c in cells]
                if band.text is not None and band.text not in cells:
                    texts.append((band.text, band.span))
        elif isinstance(definition, m.Document):
            texts += [(entry.text, entry.span) for entry in definition.entries]
        return texts

    def text_defects(self, definition: m.Definition) -> list[Defect]:
        out = []
        for text, span in self.texts(definition):
            reason = truncation(text)
            if reason:
                out.append(Defect(Code.TRUNCATED, definition.name, f"text stops mid-sentence ({reason}): "
                                  f"\"{_clip(text or '')}\"", span,
                                  "keep the text as published and say what is missing in an errata entry"))
        return out

    def reference_defects(self, definition: m.Definition, names: frozenset[str]) -> list[Defect]:
        """XREF: a page number in the text (the thing it refers to is not in this ruleset), or a
        `see:` that names no definition."""
        out: list[Defect] = []
        for text, span in self.texts(definition):
            for page in dict.fromkeys(PAGE_REFERENCE.findall(text or "")):
                out.append(Defect(Code.XREF, definition.name, f"`{definition.name}` refers to page {page}, which is "
                                  "not part of this ruleset", span,
                                  "transcribe what it refers to here, or record the gap in an errata entry "
                                  f"(`resolves: XREF in {definition.name}`)"))
        for name, value in getattr(definition, "details", ()):
            if name == "see" and isinstance(value, m.Name) and value.name not in names:
                out.append(Defect(Code.XREF, definition.name, f"`see: {value.name}` names no definition",
                                  value.span, did_you_mean(value.name, sorted(names))))
        return out

    def document_defects(self, document: m.Document) -> list[Defect]:
        out: list[Defect] = []
        seen: dict[str, m.ListEntry] = {}
        for entry in document.entries:
            key = (entry.id or entry.text or "").strip().lower()
            if key and key in seen:
                out.append(Defect(Code.DUP, document.name, f"`{document.name}` lists "
                                  f"\"{entry.id or entry.text}\" more than once", entry.span,
                                  f"drop the repeat in an errata entry (`drop {document.name}[...]`) unless the "
                                  "document means it twice"))
            seen.setdefault(key, entry)
        declared = dict(document.details).get("count")
        distinct = len(seen) + sum(1 for e in document.entries if not (e.id or e.text or "").strip())
        if isinstance(declared, m.Number) and declared.value != distinct:
            listed = (f"{distinct}" if distinct == len(document.entries) else
                      f"{distinct} different ones ({len(document.entries)} with the repeats)")
            out.append(Defect(Code.COUNT, document.name, f"the document says {declared.value} but lists {listed}",
                              declared.span, "correct the count, or the list, in an errata entry"))
        return out

    def resolver_defects(self, resolver: m.Resolver, names: frozenset[str]) -> list[Defect]:
        key = (resolver, names)
        if key not in self.analysed:
            self.analysed[key] = self.compute_resolver_defects(resolver, names)
        return self.analysed[key]

    def compute_resolver_defects(self, resolver: m.Resolver, names: frozenset[str]) -> list[Defect]:
        out: list[Defect] = []
        if not resolver.bands and resolver.dice:  # dice alone: their totals are bounded by the dice caps
            return out
        gaps: set[int | str] = set()
        overlap_values: dict[tuple[str, ...], set[int | str]] = {}
        reached: set[str] = set()
        if self.budget.exhausted:
            return out  # refused once already
        try:
            grid = list(input_grid(resolver))
        except TooLarge as problem:
            if not resolver.bands:  # a plain value over more inputs than can be listed: bounded instead
                return self.bounded_value(resolver)
            self.refuse(str(problem), problem.span, problem.hint, resolver.name)
            return out
        worst_gap: tuple[Fraction, dict[str, object]] = (Fraction(0), {})
        totals: set[int] = set()
        seen: set[int] = set()  # inputs that decide alike share one distribution: read each once
        for inputs in grid:
            try:
                found = distribution(resolver, inputs, names, self.budget)
            except TooLarge as problem:
                self.refuse(f"{resolver.name} with {_inputs_text(inputs)}: {problem}", problem.span, problem.hint,
                            resolver.name)
                return out
            except EvalError as problem:
                self.error(Code.EVAL, f"{resolver.name} with {_inputs_text(inputs)}: {problem}", problem.span,
                           "the check works the roll out for every value of its inputs: make it work for these "
                           "(narrow the input's range, or test for the value)", resolver.name)
                return out
            if id(found) in seen:
                continue
            seen.add(id(found))
            gaps.update(found.unmatched_weights)
            if found.unmatched_weights:
                missed = Fraction(sum(found.unmatched_weights.values()), found.denominator)
                if missed > worst_gap[0]:
                    worst_gap = (missed, inputs)
            for value, ids in found.overlaps.items():
                overlap_values.setdefault(ids, set()).add(value)
            reached.update(nonzero(found.outcome_weights))
            if resolver.dice:  # a roll's totals are numbers: what a band beyond them is told
                totals.update(nonzero(found.total_weights))  # type: ignore[arg-type]
        if not resolver.bands:  # a plain value: worked out for every input above, so it fails here, not in play
            return out
        if not gaps:
            self.covering.add(resolver)
        for band in resolver.bands if gaps else ():
            if band.id == "none":
                self.error(Code.RESERVED_NAME, f"`none` is what `{resolver.name}`'s odds call the results no band "
                           "takes, and some are", band.span, "give this band another id, or a band to every result",
                           resolver.name)
        if gaps:
            gap_values = sorted(gaps, key=lambda v: (isinstance(v, str), v if isinstance(v, int) else 0, str(v)))
            chance, where = worst_gap
            at = f" with {_inputs_text(where)}" if where and len(grid) > 1 else ""
            share = f" (up to {float(chance) * 100:.3g}% of rolls{at})" if resolver.dice else ""
            out.append(Defect(Code.RANGE_GAP, resolver.name,
                              f"no band of `{resolver.name}` takes {_values_text(gap_values)}{share}",
                              resolver.span, "add a band for those values, or widen a neighbour "
                              "(`6 or less` instead of `less than 6`)"))
        for ids, values in overlap_values.items():
            out.append(Defect(Code.RANGE_OVERLAP, resolver.name,
                              f"bands {', '.join(repr(i) for i in ids)} of `{resolver.name}` both take "
                              f"{_values_text(sorted(values, key=str))}; the first one wins", resolver.span,
                              "make the ranges meet without sharing a value"))
        for band in resolver.bands:
            if band.id not in reached and not isinstance(band.condition, m.Otherwise):
                beyond = totals and isinstance(band.condition, m.Ranges) and resolver.dice and all(
                    (part.low is not None and part.low > max(totals)) or
                    (part.high is not None and part.high < min(totals)) for part in band.condition.parts)
                out.append(Defect(Code.UNREACHABLE, resolver.name, (
                    f"band `{band.key_text}` of `{resolver.name}` is beyond the roll, which gives "
                    f"{min(totals)}-{max(totals)}" if beyond else
                    f"band `{band.key_text}` of `{resolver.name}` can never come up"), band.span,
                    "check its range against the dice and the inputs" if not beyond else
                    "fix the row's range, or roll a bigger die"))
        if resolver.kind == "table" and resolver.dice:
            out.extend(self.die_rows(resolver))
        return out

    def bounded_value(self, resolver: m.Resolver) -> list[Defect]:
        """A formula whose inputs are too many to work out one by one: refused if its value (or a let's) could
        pass the limit on numbers, by the largest size each can have (evaluate.Magnitude)."""
        sizes = Magnitude(resolver)
        named = [(let.name, let.expr) for let in resolver.lets] + [("value", e) for e in (resolver.value,) if e]
        for name, expr in named:
            if sizes.visit(expr) > MAX_VALUE:
                self.refuse(f"`{resolver.name}`: `{name}` can come to more than {MAX_VALUE:,} (10^18) for some "
                            "inputs; numbers stop there", expr.span, "narrow the inputs' ranges", resolver.name)
                break
        return []

    def die_rows(self, resolver: m.Resolver) -> list[Defect]:
        highs = [p.high for b in resolver.bands if isinstance(b.condition, m.Ranges) for p in b.condition.parts]
        if not highs or any(h is None for h in highs):
            return []
        top = max(h for h in highs if h is not None)
        rule = resolver.dice[0].expr
        if (isinstance(rule, m.Dice) and rule.die is None and not rule.ops and rule.count == m.Number(1)
                and isinstance(rule.sides, m.Number) and rule.sides.value != top and top not in STANDARD_DICE):
            return [Defect(Code.DIE_ROWS, resolver.name, f"{top} rows fit no standard die", resolver.span,
                           f"roll `d{top}` if the rows are complete, or record the missing row in an errata entry")]
        return []

    # ---------------------------------------------------------------- errata

    def apply_errata(self) -> tuple[m.Item, ...]:
        items = list(self.ruleset.items)
        where: dict[str, int] = {}  # the first item of each name (a fix names an item; a ruleset has thousands)
        for at, item in enumerate(items):
            where.setdefault(item.name, at)
        changed = False
        for erratum in self.ruleset.errata:
            for fix in erratum.fixes:
                name = fix.item if isinstance(fix, m.FixAdd) else fix.path.item
                index = where.get(name)
                if index is None:
                    self.report.error(Code.UNDEFINED, f"errata {erratum.id} fixes `{name}`, which is not defined",
                                      self.path, fix.span, did_you_mean(name, [i.name for i in items])
                                      or "name a definition of this ruleset")
                    continue
                patched = self.apply_fix(items[index], fix, erratum)
                if patched is not None:
                    items[index] = patched
                    changed = True
        return tuple(items) if changed else self.ruleset.items

    def apply_fix(self, item: m.Item, fix: m.Fix, erratum: m.Errata) -> m.Item | None:
        if isinstance(fix, m.FixAdd):
            return replace(item, entries=item.entries + tuple(replace(e, erratum=erratum.id) for e in fix.entries))
        path = fix.path
        if path.selector is None:
            if isinstance(fix, m.FixSet) and path.member is not None:
                attrs = [a for a in item.attrs if a.name != path.member]
                attrs.append(m.Attr(path.member, fix.to, None, fix.span))
                return replace(item, attrs=tuple(attrs))
            self.report.error(Code.TYPE, f"errata {erratum.id}: say which band, like `{path.item}[7-9]`",
                              self.path, fix.span, "a band is named by its key in brackets")
            return None
        index = find_entry(item.entries, path.selector)
        if index is None:
            keys = ", ".join(m.condition_text(e.key) for e in item.entries if e.key is not None)
            self.report.error(Code.UNDEFINED, f"errata {erratum.id}: `{path.item}` has no band "
                              f"`{m.condition_text(path.selector)}`", self.path, fix.span,
                              f"its bands are: {keys}" if keys else f"`{path.item}` has no bands to fix")
            return None
        entries = list(item.entries)
        entry = entries[index]
        if isinstance(fix, m.FixMove):
            entries[index] = replace(entry, key=fix.to)
        elif isinstance(fix, m.FixDrop):
            del entries[index]
        elif path.member is None:
            self.report.error(Code.TYPE, f"errata {erratum.id}: say what to set, like `{path.text()}.text`",
                              self.path, fix.span, "name the band's data after a dot")
            return None
        elif path.member == "text" and isinstance(fix.to, m.Text):
            cells = list(entry.cells) or [""]
            cells[0] = fix.to.value
            entries[index] = replace(entry, cells=tuple(cells))
        else:
            attrs = [a for a in entry.attrs if a.name != path.member]
            attrs.append(m.Attr(path.member, fix.to, None, fix.span))
            entries[index] = replace(entry, attrs=tuple(attrs))
        return replace(item, entries=tuple(entries))

    def applied_errata(self) -> Iterable[m.AppliedErratum]:
        for erratum in self.ruleset.errata:
            text_attr = erratum.attr("text")
            text = _plain(text_attr.value) if text_attr is not None else ""
            yield m.AppliedErratum(erratum.id, erratum.title, erratum.citation, text, erratum.resolves,
                                   tuple(fix_text(f) for f in erratum.fixes), erratum.span)

    def report_defects(self, published: list[Defect], remaining: list[Defect]) -> None:
        claims: dict[tuple[str, str], m.Errata] = {}
        for erratum in self.ruleset.errata:
            for resolves in erratum.resolves:
                for code in resolves.codes:
                    for item in resolves.items:
                        claims[(code, item)] = erratum
        used: set[tuple[str, str]] = set()
        for defect in published:
            claimant = claims.get((defect.code, defect.item))
            if claimant is not None:
                used.add((defect.code, defect.item))
                self.report.add(Diagnostic("note", defect.code, defect.message, self.path, defect.span,
                                           None, (f"resolved by errata {claimant.id} (line {claimant.span.line}): "
                                                  f"{claimant.title}",), defect.item))
        for defect in remaining:
            if (defect.code, defect.item) in claims and (defect.code, defect.item, defect.message) in \
                    {(d.code, d.item, d.message) for d in published}:
                continue
            self.report.warning(defect.code, defect.message, self.path, defect.span, defect.hint,
                                item=defect.item)
        for key, erratum in claims.items():
            if key not in used:
                self.report.warning(Code.UNRESOLVED_ERRATA, f"errata {erratum.id} resolves {key[0]} in "
                                    f"`{key[1]}`, but the check finds no such defect there", self.path,
                                    erratum.span, "remove the claim, or check the item is written as published")


# ---------------------------------------------------------------- helpers


def chain_graph(resolvers: Iterable[m.Resolver]) -> tuple[dict[str, int], dict[tuple[str, str], m.Span]]:
    """The most links of `->` one roll of each table follows (each roll of a table rolled several times is a
    link, with the links it follows in turn; loops cut), and each link that closes a loop."""
    resolvers = list(resolvers)
    names = {r.name for r in resolvers}
    edges: dict[str, list[tuple[str, m.Span]]] = {r.name: [] for r in resolvers}
    # per table, per band, per link: (the tables it may roll, the most times)
    rows: dict[str, list[list[tuple[list[str], int]]]] = {r.name: [] for r in resolvers}
    for resolver in resolvers:
        for band in resolver.bands:
            row: list[tuple[list[str], int]] = []
            for link in band.chain.links if band.chain is not None else ():
                targets: list[str] = []
                for part in walk(link.target):
                    target = part.name if isinstance(part, m.Name) else part.value if isinstance(part, m.Text) \
                        else None
                    if target in names and target is not None:
                        edges[resolver.name].append((target, band.span))
                        targets.append(target)
                row.append((targets, m.chain_times(link.times)))
            rows[resolver.name].append(row)
    links: dict[str, int] = {}
    state: dict[str, int] = {}  # 1: being walked, 2: done
    loops: dict[tuple[str, str], m.Span] = {}

    def most(table: str) -> int:
        """The most links below `table`, once every table it rolls is done (a table still being walked, a loop,
        counts as its own link only)."""
        return max((sum(times * (1 + max((links.get(t, 0) for t in targets if state.get(t) == 2), default=0))
                        for targets, times in row if targets) for row in rows[table]), default=0)

    for root in edges:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(edges[root]))]
        while stack:  # depth first, without recursion: chains can be long
            table, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                stack.pop()
                state[table] = 2
                links[table] = most(table)
            elif state.get(step[0]) == 1:
                loops.setdefault((table, step[0]), step[1])
            elif step[0] not in state:
                state[step[0]] = 1
                stack.append((step[0], iter(edges[step[0]])))
    return links, loops


# function: (fewest arguments, most, in words, an example); the generated module calls Python's min and max,
# which read one argument as a sequence, so both take two or more.
_ARITY: dict[str, tuple[int, int, str, str]] = {
    "min": (2, 10**9, "two or more numbers", "min(dots, 3)"),
    "max": (2, 10**9, "two or more numbers", "max(0, harm - armor)"),
    "clamp": (3, 3, "three numbers (a value, the lowest, the highest)", "clamp(dots, 0, 4)"),
    "abs": (1, 1, "one number", "abs(x)"),
    "sign": (1, 1, "one number", "sign(x)"),
    "count": (1, 1, "one face", "count(6)"),
    "step": (2, 2, "a choice input and a number of steps", "step(die, 1)"),
    "rank": (1, 1, "one choice input", "rank(die)"),
    **{name: (1, 1, "one test of a named group's dice", f"{name}(challenge < total)") for name in m.DIE_TESTS[1:]},
    **{name: (1, 1, "one named group of dice", f"{name}(challenge)") for name in m.GROUP_READS},
}


_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}  # `5 <= pool` is `pool >= 5`


def _yes_no(expr: m.Expr) -> bool:
    """Whether `expr` is a test (yes or no) by its form: a comparison, `and`/`or`/`not`, yes/no, `doubles(...)`,
    `all(...)`, `a if t else b` of two tests (a yes/no input is checked where names are)."""
    if isinstance(expr, m.IfElse):
        return _yes_no(expr.then) and _yes_no(expr.otherwise)
    return isinstance(expr, (m.Compare, m.Logic, m.Not, m.Boolean, m.Name)) or (
        isinstance(expr, (m.DiceRead, m.Call)) and expr.function in ("all", "any", "none", "doubles"))


def _arity_fits(call: m.Call) -> bool:
    fewest, most, _, _ = _ARITY[call.function]
    return fewest <= len(call.args) <= most


def _reads_roll(expr: m.Expr) -> bool:
    return any((isinstance(n, m.Name) and n.name in ROLL_NAMES) or (isinstance(n, m.Call) and n.function == "count")
               or isinstance(n, m.Dice) for n in walk(expr))


def faceless(resolver: m.Resolver) -> bool:
    """A roll of a custom die whose faces are still to be supplied: nothing to analyse yet."""
    return any(isinstance(node, m.Dice) and node.die is not None and not node.faces
               for rule in resolver.dice for node in walk(rule.expr))


def find_entry(entries: tuple[m.Entry, ...], selector: m.Condition) -> int | None:
    text = m.condition_text(selector)
    for index, entry in enumerate(entries):
        if entry.key is None:
            if isinstance(selector, m.OptionKey) and entry.id == selector.name:
                return index
            continue
        if entry.key == selector or m.condition_text(entry.key) == text:
            return index
        if isinstance(selector, m.OptionKey) and entry.id == selector.name:
            return index
    return None


def fix_text(fix: m.Fix) -> str:
    if isinstance(fix, m.FixMove):
        return f"{fix.path.text()} → {m.condition_text(fix.to)}"
    if isinstance(fix, m.FixSet):
        return f"{fix.path.text()} = {m.expr_text(fix.to)}"
    if isinstance(fix, m.FixDrop):
        return f"{fix.path.text()} removed"
    return f"{len(fix.entries)} row(s) added to {fix.item}"


_OPEN_CLOSE = (("(", ")"), ("[", "]"))


def truncation(text: str | None) -> str | None:
    if not text:
        return None
    for opening, closing in _OPEN_CLOSE:
        if text.count(opening) > text.count(closing):
            return f"an unclosed `{opening}`"
    if re.search(r",\s*$", text):
        return f"it ends with `{text.rstrip()[-1]}`"
    return None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def _text(value: m.Expr | m.Block) -> str | None:
    """A `text:` attribute's text; None for `text: unknown` (the document's text is lost: none is known)."""
    return None if isinstance(value, m.Unknown) else _plain(value)


def _plain(value: m.Expr | m.Block) -> str:
    if isinstance(value, m.Text):
        return value.value
    if isinstance(value, m.Block):
        return _block_text(value)
    return m.expr_text(value)


def _block_text(block: m.Block) -> str:
    parts = [_plain(a.value) for a in block.attrs]
    parts += [c for e in block.entries for c in e.cells if isinstance(c, str)]
    return "\n".join(parts)


def _merge_citations(first: m.Citation | None, second: m.Citation | None) -> m.Citation | None:
    if first is None:
        return second
    if second is None:
        return first
    ids = tuple(dict.fromkeys(first.ids + second.ids))
    lines = tuple(dict.fromkeys(first.lines + second.lines))
    return m.Citation(ids, lines, first.span)


def _whole_values(expr: m.Expr) -> Iterator[m.Name]:
    """The names that are `expr`'s whole value: `other`, or either branch of `a if x else b`."""
    return (value for value in branches(expr) if isinstance(value, m.Name))


def _kind_hint(kind: str) -> str:
    return {
        "roll": "a roll has `roll:` dice and bands",
        "table": "a table has `roll:` dice and rows",
        "lookup": "a lookup has `key:` and rows",
        "formula": "a formula has inputs and `value:`",
        "list": "a list has `- \"text\"` entries",
        "procedure": "a procedure has `- \"step\"` entries",
        "priority": "a priority list has `nearest:` and `- name: \"text\"` entries, first choice first",
        "rule": "a rule has `text:`",
    }.get(kind, "see docs/language.md")


def _values_text(values: list[int | str]) -> str:
    """`a result of 6`, `results 2-3, 7`, or option names."""
    if any(isinstance(v, str) for v in values):
        return ", ".join(f"`{v}`" for v in values)
    numbers = sorted(int(v) for v in values)
    if len(numbers) == 1:
        return f"a result of {numbers[0]}"
    runs: list[str] = []
    first = last = numbers[0]
    for value in numbers[1:]:
        if value == last + 1:
            last = value
            continue
        runs.append(_run(first, last))
        first = last = value
    runs.append(_run(first, last))
    return "results " + ", ".join(runs)


def _run(first: int, last: int) -> str:
    return str(first) if first == last else f"{first} to {last}" if first < 0 else f"{first}-{last}"


_K = TypeVar("_K")


def nonzero(weights: dict[_K, int]) -> Iterable[_K]:
    """The keys whose weight is not zero (all of them, read at C speed, unless a re-roll left a zero)."""
    return weights if 0 not in weights.values() else (key for key, weight in weights.items() if weight)


def _inputs_text(inputs: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in inputs.items()) or "no inputs"


def _track_size(item: m.Item) -> int | None:
    """A track's `size:` as written, when it is a whole number of boxes (within the limit)."""
    size = next((a.value for a in item.attrs if a.name == "size"), None)
    return size.value if isinstance(size, m.Number) and 0 < size.value <= MAX_BOXES else None


def _boxes_doc(doc: str | None, track: m.Item, size: int) -> str:
    """The help text of a `boxes of TRACK` input: what it counts and its range, after the designer's own."""
    ticks = next((a.value for a in track.attrs if a.name == "ticks"), None)
    counted = (f", a box counting once its {ticks.value} ticks are marked" if isinstance(ticks, m.Number)
               and ticks.value > 1 and track.kind == "track" else "")
    words = f"filled boxes of {track.title or track.name}: 0 to {size}{counted}"
    return f"{doc} ({words})" if doc else words[0].upper() + words[1:]


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


@dataclass(frozen=True, slots=True)
class Kind:
    """How the checker lowers one kind of definition: the method that builds its checked form, and the
    attributes that give it its behaviour (None: every `name: value` is data, printed on the sheet)."""

    lower: Callable[[Checker, m.Item], m.Definition]
    attributes: frozenset[str] | None = None


RESOLVER_ATTRIBUTES: dict[str, Callable[[Checker, m.Expr, m.Attr, m.Item, _Parts], None]] = {
    "roll": Checker.roll_attr,
    "reroll": Checker.reroll_attr,
    "zero_dice": Checker.zero_dice_attr,
    "key": Checker.key_attr,
    "value": Checker.value_attr,
    "outcomes": Checker.outcomes_attr,
    "text": Checker.text_attr,
    "label": Checker.label_attr,
    "core": Checker.core_attr,
}
_DESCRIBED = frozenset({"outcomes", "text", "label"})  # every kind of resolver takes these
_ROLLED = _DESCRIBED | {"roll", "reroll", "zero_dice"}
KINDS: dict[str, Kind] = {
    "roll": Kind(Checker.resolver, _ROLLED | {"steps", "core"}),
    "table": Kind(Checker.resolver, _ROLLED),
    "lookup": Kind(Checker.resolver, _DESCRIBED | {"key"}),
    "formula": Kind(Checker.resolver, _DESCRIBED | {"value"}),
    "bands": Kind(Checker.band_set, frozenset({"text", "label"})),  # inlined where used; a document on the sheet
    "list": Kind(Checker.document),
    "procedure": Kind(Checker.document),
    "rule": Kind(Checker.document),
    "priority": Kind(Checker.document),
    "track": Kind(Checker.track),
    "clock": Kind(Checker.track),
    "die": Kind(Checker.die),
    "deck": Kind(Checker.deck),
    "condition": Kind(Checker.document),  # `forbids:` the rolls it stops; set and cleared by effects
    "resource": Kind(Checker.document),  # `start:`, `max:`; gained and spent by effects
}


def check(ruleset: m.Ruleset, source_text: str, report: Report) -> m.CheckedRuleset:
    """Check a parsed ruleset; diagnostics go to `report` (the caller decides what errors mean)."""
    report.sources.setdefault(ruleset.path, source_text)
    return Checker(ruleset, report).run(source_text)
