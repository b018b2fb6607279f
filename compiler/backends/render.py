"""Render: checked model -> JSON/YAML export, HTML sheet (Jinja), PDF (WeasyPrint, lazily).

All three read one `export_data` dictionary, so the sheet, the export and
the resolvers cannot disagree about a band or a number. Rule text reaches
HTML only through Jinja's autoescape; `**bold**` is the one markup honoured,
applied after escaping.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import io
import json
import math
import os
import re
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from .. import __version__
from .. import model as m
from ..diagnostics import MAX_OUTPUT_BYTES, output_too_large
from ..resources import CARD_SIZES, export_schema_text, templates_dir
from ..semantics.evaluate import EvalError, walk
from ..semantics.odds import defaults, definition_names, distribution, input_values, odds, odds_table
from ..semantics.runtime import OPERATORS, _face_runs, explode_parts
from .player import chart, main_roll, player_cards, says_something, within_section
from .words import Words, humanize, kinds_of, names_of, number

# The JSON Schema of the export (compiler/backends/export.schema.json): written by hand, checked by
# tests/test_schema.py against every export; the build copies it to output/json/schema.json.
JSON_SCHEMA: dict[str, Any] = json.loads(export_schema_text())
SCHEMA_ID: str = JSON_SCHEMA["$id"]  # every export names it as its `$schema`
SCHEMA_VERSION: int = JSON_SCHEMA["properties"]["schema_version"]["const"]
PALETTE = ("#b23a48", "#e08e45", "#5b8e7d", "#2f6690", "#7b4b94", "#c9a227", "#3a7d44", "#8c5e58")  # dice faces
# Each tone's colour and the colour of text set on it (a bar's percent). The fills step in lightness (CIELAB L*
# about 30, 45, 56, 65, 84), so that a chart printed in greyscale still tells them apart, and each text colour
# has a contrast of 4.5:1 or more on its fill (tests/test_charts_and_tones.py measures both). A card with two
# outcomes of one tone (two kinds of success, three neutral clock results) takes the tone's next shades, lighter
# then darker, so that its bars stay apart.
TONE_COLOURS: dict[str, tuple[tuple[str, str], ...]] = {
    "failure": (("#861e23", "#ffffff"), ("#d46a6f", "#1d1d1f"), ("#5a1014", "#ffffff")),
    "success": (("#2f7753", "#ffffff"), ("#5fa37e", "#1d1d1f"), ("#1c4d35", "#ffffff")),
    "neutral": (("#7d8894", "#1d1d1f"), ("#b3bcc5", "#1d1d1f"), ("#4f5a66", "#ffffff")),
    "partial": (("#d98b3a", "#1d1d1f"), ("#f0b97a", "#1d1d1f"), ("#a8611c", "#ffffff")),
    "critical": (("#f2cf5b", "#1d1d1f"), ("#fcf1cc", "#1d1d1f"), ("#c9a227", "#1d1d1f")),
}


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


def expr_value(expr: m.Expr, words: Words) -> Any:
    """A datum: a number, text or yes/no as itself, None for `unknown`, else the expression as written and in
    words (`{"expr": "see_rolls", "words": "Rolls"}`)."""
    if isinstance(expr, (m.Number, m.Text, m.Boolean)):
        return expr.value
    if isinstance(expr, m.Unknown):
        return None
    return {"expr": m.expr_text(expr), "words": words.expr(expr)}


def input_data(item: m.ResolvedInput) -> dict[str, Any]:
    data = _input_data(item)
    if item.source is not None:  # `from level(harm)`: what the game's state gives it
        data["source"] = {"expr": m.expr_text(item.source), "words": Words().expr(item.source)}
    return data


def _input_data(item: m.ResolvedInput) -> dict[str, Any]:
    spec = item.type
    if isinstance(spec, m.IntRange) and item.boxes_of is not None:  # `boxes of vow`: the track it counts
        return {"name": item.name, "type": "int", "min": spec.low, "max": spec.high, "choices": None,
                "default": item.default, "doc": item.doc, "boxes_of": item.boxes_of}
    if isinstance(spec, m.IntRange):
        return {"name": item.name, "type": "int", "min": spec.low, "max": spec.high, "choices": None,
                "default": item.default, "doc": item.doc}
    if isinstance(spec, m.Flag):
        return {"name": item.name, "type": "flag", "min": None, "max": None, "choices": None,
                "default": item.effective_default, "doc": item.doc}
    return {"name": item.name, "type": "choice", "min": None, "max": None,
            "choices": [o.name for o in spec.options],
            "choice_labels": {o.name: o.label for o in spec.options},
            "default": item.default, "doc": item.doc}


def citation_data(citation: m.Citation | None) -> dict[str, Any]:
    if citation is None:
        return {"ids": [], "lines": [], "text": ""}
    return {"ids": list(citation.ids), "lines": [list(pair) for pair in citation.lines], "text": citation.text()}


# The keys that give a definition's notation again as data (`ranges` beside a band's `key`, `terms` beside a
# roll's dice), by the list of the definition's export they sit in: what a comparison of two versions skips.
STRUCTURED_KEYS: dict[str, tuple[str, ...]] = {"bands": ("key_kind", "ranges", "natural"),
                                               "columns": ("key_kind", "ranges", "natural"),
                                               "dice": ("terms",), "groups": ("terms",)}
CONDITION_KINDS: dict[type, str] = {m.Ranges: "ranges", m.Natural: "natural", m.When: "when",
                                    m.Otherwise: "otherwise", m.OptionKey: "option"}  # a key's `key_kind`


def condition_data(condition: m.Condition) -> dict[str, Any]:
    """A band's or a column's key as data beside its text: its kind, and the values of a ranges key
    (`7-9, 12+`: `[{"low": 7, "high": 9}, {"low": 12, "high": null}]`) or a natural one (`natural 12`: 12)."""
    return {"key_kind": CONDITION_KINDS[type(condition)],
            "ranges": [{"low": part.low, "high": part.high} for part in condition.parts]
            if isinstance(condition, m.Ranges) else None,
            "natural": condition.value if isinstance(condition, m.Natural) else None}


def _number_or_text(expr: m.Expr) -> int | str:
    value = number(expr)
    return value if value is not None else m.expr_text(expr)


def op_data(op: m.DiceOp) -> dict[str, Any]:
    """An operator on a group of dice as data: `keep highest 2` is `{"op": "highest", "count": 2}`, `! on 9+ at
    most 2 times` `{"op": "explode", "on": 9, "times": 2}`, `reroll 1-2` `{"op": "reroll", "faces": [...]}`."""
    if op.name in ("explode", "compound"):
        least, times = explode_parts(op.arg)
        return {"op": op.name, "on": least or None, "times": times or None}
    if op.name == "reroll":
        return {"op": op.name, "faces": [{"low": low, "high": high} for low, high in _face_runs(op.arg)]}
    return {"op": op.name, "count": op.arg}


def dice_terms(expr: m.Expr) -> list[dict[str, Any]]:
    """Each group of dice of an expression, in the order written, as data: a count or sides that is an
    expression as its text; a named die (`4dF`, `2 attack`) says its name in `die`, and its count of sides."""
    return [{"text": m.dice_text(node), "count": _number_or_text(node.count),
             "sides": _number_or_text(node.sides) if node.sides is not None else None,
             "die": node.die, "ops": [op_data(op) for op in node.ops]}
            for node in walk(expr) if isinstance(node, m.Dice)]


# A band's tone from the words of its label (else its id), first match wins: a botch is a failure before a
# critical; "weak hit" is partial before "hit" is a success. A band's `tone:` overrides it.
TONE_WORDS = (
    ("failure", r"botch|fumble|critical fail\w*|crit fail\w*|disaster|catastroph\w*"),
    ("critical", r"crit|critical|triumph|exceptional|spectacular|perfect|legendary|advantage|boon"),
    ("partial", r"partial|mixed|costly|cost|weak|complications?|limited|setback|compromise|glitch|minor"),
    ("failure", r"fail\w*|miss|bad|lose|loss|lost|defeat\w*|cannot|can't|worse|poor|trouble|wound\w*"),
    ("success", r"success\w*|succeed\w*|hit|pass\w*|win|won|full|good|strong|great|heroic|resist\w*|standard|better"),
)
_TONES = [(tone, re.compile(rf"\b(?:{pattern})\b", re.I)) for tone, pattern in TONE_WORDS]


def tone_of(band: m.Band) -> str:
    """How the sheet colours an outcome: its `tone:`, else the first tone whose words its label (else its id)
    has; "neutral" when none has (a row of a table, "Keep coin")."""
    if band.tone is not None:
        return band.tone
    for text in (band.label, humanize(band.id)):
        for tone, pattern in _TONES:
            if pattern.search(text):
                return tone
    return "neutral"


def effect_data(effect: m.Effect, words: Words) -> dict[str, Any]:
    """An effect as data: its verb, what it acts on, its amount and level (numbers, or an expression with its
    words), the marker a `mark ... by` moves, the input a `carry` adds to, the tables a `->` rolls, and the effect
    as written and in words."""
    return {"verb": effect.verb, "target": effect.target,
            "amount": expr_value(effect.amount, words) if effect.amount is not None else None,
            "level": expr_value(effect.level, words) if effect.level is not None else None,
            "marker": effect.marker,
            "input": effect.input,
            "roll": [m.expr_text(link.target) for link in effect.chain.links] if effect.chain is not None else None,
            "text": m.effect_text(effect), "words": words.effect(effect)}


def band_data(band: m.Band, columns: tuple[m.Column, ...], words: Words) -> dict[str, Any]:
    cells = [c if isinstance(c, (str, int)) else None for c in band.cells]
    chained = {} if band.chain is None else {"next_words": words.chain(band.chain)}
    worded = {"key_words": "when " + words.expr(band.condition.test)} if isinstance(band.condition, m.When) and (
        band.written is None and words.expr(band.condition.test) != m.expr_text(band.condition.test)) else {}
    return {
        "id": band.id,
        "key": band.key_text,
        **worded,
        **condition_data(band.condition),
        "label": band.label,
        "tone": tone_of(band),
        "text": band.text,
        "cells": cells if columns else None,
        "values": {name: expr_value(expr, words) for name, expr in band.values},
        "next": m.chain_text(band.chain) if band.chain is not None else None,
        **chained,
        "effects": [effect_data(e, words) for e in band.effects],
        **({"erratum": band.erratum} if band.erratum else {}),
    }


AXES_TRIED = 3  # inputs tried for a chart's rows before the odds are given at the inputs' defaults alone


def odds_data(checked: m.CheckedRuleset, resolver: m.Resolver) -> dict[str, Any] | None:
    """Exact odds for the sheet: one row per value of the first numeric input (others at defaults)."""
    if not resolver.dice or not resolver.bands:
        return None
    # The rows follow the input whose value moves the odds: the first whole-number input, else a yes/no or a
    # choice; one whose every value gives the same odds makes a chart that says nothing, so the next is tried.
    candidates = [i.name for i in resolver.inputs if isinstance(i.type, m.IntRange)]
    candidates += [i.name for i in resolver.inputs if isinstance(i.type, (m.Flag, m.Choice))]
    table: list[tuple[dict[str, object], dict[str, Fraction]]] = []
    axis: str | None = None
    for axis in resolver.chart[:1] or ([*candidates[:AXES_TRIED], None] if candidates else [None]):
        try:
            table = odds_table(checked, resolver, axis)
        except EvalError:
            return None
        if axis is None or len({tuple(p.items()) for _, p in table}) > 1:
            break
    if not table:
        return None
    rows = []
    for inputs, probabilities in table:
        rows.append({
            "inputs": {k: v for k, v in inputs.items()},
            "label": f"{axis} {inputs[axis]}" if axis else "",
            "value": inputs[axis] if axis else None,
            "outcomes": [
                {"id": band_id, "probability": fraction_text(p), "percent": round(float(p) * 100, 3)}
                for band_id, p in probabilities.items()
            ],
        })
    fixed = {k: v for k, v in defaults(resolver).items() if k != axis}
    grid = grid_data(checked, resolver, table) if len(resolver.chart) == 2 else None
    if grid is not None:
        fixed.pop(grid["axis"], None)
    return {"axis": axis, "fixed": fixed, "rows": rows, **({"grid": grid} if grid else {})}


def grid_data(checked: m.CheckedRuleset, resolver: m.Resolver,
              table: list[tuple[dict[str, object], dict[str, Fraction]]]) -> dict[str, Any] | None:
    """A roll's chance of success at each value of its chart's rows and of its columns (`chart:` with
    `columns:`): a Check by DV and Attribute in one grid. Success is the outcomes toned success or critical;
    a roll with none has no grid. `cells[i][j]` is the chance at the i-th row's value and the j-th column's."""
    rows_axis, columns_axis = resolver.chart
    wins = [band.id for band in resolver.bands if tone_of(band) in ("success", "critical")]
    spec = next(i.type for i in resolver.inputs if i.name == columns_axis)
    if not wins or not isinstance(spec, (m.IntRange, m.Flag, m.Choice)):
        return None
    values = input_values(spec)
    cells: list[list[str]] = [[] for _ in table]
    for value in values:
        try:
            column = odds_table(checked, resolver, rows_axis, {columns_axis: value})
        except EvalError:
            return None
        for cell, (_, probabilities) in zip(cells, column, strict=True):
            cell.append(fraction_text(sum((probabilities[win] for win in wins), Fraction(0))))
    return {"axis": columns_axis, "values": values, "outcomes": wins, "cells": cells}


def fills_data(checked: m.CheckedRuleset, resolver: m.Resolver, odds: dict[str, Any] | None) -> list[dict[str, Any]]:
    """For each clock (or track) of known size this roll's outcomes mark by a whole number, the exact expected
    number of rolls to fill it, at each row of the odds (each value of the chart's input): "Rolls to fill
    Danger: 3.2 at dots 0, 2.6 at 1". Marks that read the roll or the inputs are left out (their step is not
    one number per outcome)."""
    from ..semantics.fill import expected_rolls

    sizes = {d.name: (d.size, d.label, d.kind) for d in checked.definitions if isinstance(d, m.Track) and d.size}
    marked: dict[str, dict[str, int]] = {}  # clock -> band id -> segments it marks
    for band in resolver.bands:
        for effect in band.effects:
            amount = number(effect.amount) if effect.amount is not None else 1
            if effect.verb == "mark" and effect.level is None and effect.target in sizes and amount is not None:
                by_band = marked.setdefault(effect.target, {})
                by_band[band.id] = by_band.get(band.id, 0) + amount
    if not odds or not marked:
        return []
    out = []
    for clock, by_band in marked.items():
        size, label, kind = sizes[clock]
        rows = []
        for row in odds["rows"]:
            step: dict[int, Fraction] = {}
            for outcome in row["outcomes"]:
                gained = by_band.get(outcome["id"], 0)
                step[gained] = step.get(gained, Fraction(0)) + Fraction(outcome["probability"])
            step[0] = step.get(0, Fraction(0)) + 1 - sum(step.values(), Fraction(0))  # results no band takes
            expected = expected_rolls(step, size) if any(a > 0 and p for a, p in step.items()) else None
            rows.append({"value": row["value"], "expected": fraction_text(expected) if expected is not None else None,
                         "mean": round(float(expected), 2) if expected is not None else None})
        out.append({"clock": clock, "label": label, "kind": kind, "size": size, "axis": odds["axis"], "rows": rows})
    return out


def flags_data(checked: m.CheckedRuleset, resolver: m.Resolver, words: Words) -> list[dict[str, object]]:
    """A roll's flags: each one's test, in words, and its exact chance with the inputs at their defaults."""
    chances: dict[str, Fraction] = {}
    inputs = defaults(resolver)
    if resolver.flags and len(inputs) == len(resolver.inputs):
        try:
            chances = distribution(resolver, inputs, definition_names(checked)).flags
        except EvalError:
            chances = {}
    return [{"name": name, "test": m.expr_text(test), "words": words.expr(test),
             "probability": fraction_text(chances[name]) if name in chances else None,
             "percent": round(float(chances[name]) * 100, 3) if name in chances else None}
            for name, test in resolver.flags]


def dice_rule_data(rule: m.DiceRule, words: Words) -> dict[str, object]:
    """A `roll:` line as the sheet and the JSON give it; `notes` (only where there are some) say in words
    what an operator's notation does not (`d6!`: explodes ...)."""
    data: dict[str, object] = {"when": m.expr_text(rule.when) if rule.when is not None else None,
                               "roll": m.expr_text(rule.expr), "terms": dice_terms(rule.expr)}
    if rule.when is not None:
        data["when_words"] = words.expr(rule.when)
    if words.expr(rule.expr) != data["roll"]:
        data["words"] = words.expr(rule.expr)
    notes = [f"{m.dice_text(node)} {OPERATORS[op.name].words(op.arg)}" for node in walk(rule.expr)
             if isinstance(node, m.Dice) for op in node.ops if OPERATORS[op.name].words(op.arg)]
    if notes:
        data["notes"] = notes
    return data


def definition_data(checked: m.CheckedRuleset, definition: m.Definition, words: Words | None = None) -> dict[str, Any]:
    words = words or Words(names_of(checked), kinds_of(checked))
    if isinstance(definition, m.Resolver):
        words = words.within(definition)
    base: dict[str, Any] = {
        "name": definition.name,
        "kind": definition.kind,
        "label": definition.label,
        "section": definition.section,
        "sources": citation_data(definition.citation),
        "text": definition.text,
    }
    if isinstance(definition, m.Resolver):
        wording = dict(definition.wording)
        base.update({
            "inputs": [input_data(i) for i in definition.inputs],
            "dice": [dice_rule_data(r, words) for r in definition.dice],
            "zero_dice": m.expr_text(definition.zero_dice) if definition.zero_dice is not None else None,
            "rerolls": [{"when": m.expr_text(r.when) if r.when is not None else None, "outcomes": list(r.outcomes),
                         **({"when_words": words.expr(r.when)} if r.when is not None else {})}
                        for r in definition.rerolls],
            "guards": [{"when": m.expr_text(g.test), "when_words": words.expr(g.test), "label": g.label,
                        "effects": [effect_data(e, words) for e in g.effects]} for g in definition.guards],
            "key": m.expr_text(definition.key) if definition.key is not None else None,
            "value": m.expr_text(definition.value) if definition.value is not None else None,
            "groups": [{"name": group.name, "dice": m.expr_text(group.expr), "terms": dice_terms(group.expr),
                        "words": words.expr(group.expr)} for group in definition.groups],
            "flags": [dict(flag, words=wording.get(str(flag["name"])) or flag["words"])
                      for flag in flags_data(checked, definition, words)],
            "core": definition.core,
            "wording": wording,
            "lets": [{"name": let.name, "expr": m.expr_text(let.expr),
                      "words": wording.get(let.name) or words.expr(let.expr)}
                     for let in (*definition.lets, *definition.roll_lets)],
            "bands_from": definition.bands_from,
            "columns": [{"id": c.id, "key": m.condition_text(c.condition), **condition_data(c.condition),
                         "label": c.label,
                         "values": {n: expr_value(e, words) for n, e in c.values}} for c in definition.columns],
            "column_by": m.expr_text(definition.column_by) if definition.column_by is not None else None,
            "bands": [dict(band, key_words=wording[band["id"]]) if wording.get(band["id"]) else band
                      for band in (band_data(b, definition.columns, words) for b in definition.bands)],
            "details": {n: expr_value(e, words) for n, e in definition.details},
            "odds": odds_data(checked, definition),
        })
        base["fills"] = fills_data(checked, definition, base["odds"])
        for name, expr in (("value", definition.value), ("key", definition.key), ("zero_dice", definition.zero_dice),
                           ("column_by", definition.column_by)):
            # each as the sheet prints it, in words: the designer's (`words:`), else generated (where the wording
            # is "", the proof prints these and the player's sheet nothing: player.plain)
            if expr is not None:
                base[f"{name}_words"] = wording.get(name) or words.expr(expr)
    elif isinstance(definition, m.Document):
        base.update({
            "entries": [entry_data(e, words) for e in definition.entries],
            "details": {n: expr_value(e, words) for n, e in definition.details},
        })
    elif isinstance(definition, m.Deck):
        base.update({
            "cards_status": definition.status,
            "piles": definition.piles,
            "on_empty": definition.on_empty,
            "cards": [{"id": c.id, "label": c.label, "text": c.text, "copies": c.copies, "pile": c.pile,
                       "values": {n: expr_value(e, words) for n, e in c.values}} for c in definition.cards],
            "total_cards": sum(c.copies for c in definition.cards),
            "details": {n: expr_value(e, words) for n, e in definition.details},
        })
    elif isinstance(definition, m.CustomDie):
        base.update({
            "sides": definition.sides,
            "faces_status": definition.status,
            "faces": [{"id": f.id, "label": f.label, "count": f.count, "value": f.value,
                       "values": {n: expr_value(e, words) for n, e in f.values}} for f in definition.faces],
            "details": {n: expr_value(e, words) for n, e in definition.details},
        })
    else:
        base.update({
            "size": definition.size,
            "start": definition.start,
            "on_full": definition.on_full,
            "roll_over": definition.roll_over,
            "reset_on_full": definition.reset_on_full,
            "levels": [{"level": n, "name": name, "boxes": boxes, "penalty": penalty,
                        "notes": {key: text for level, key, text in definition.level_notes if level == n}}
                       for n, name, boxes, penalty in definition.levels],
            "markers": [{"name": name, "from": end} for name, end in definition.markers],
            "per_round": dict(definition.per_round),
            "ticks": definition.ticks,
            "ranks": [{"name": name, "ticks": ticks} for name, ticks in definition.ranks],
            "full_effects": [effect_data(e, words) for e in definition.full_effects],
            "marked_effects": [effect_data(e, words) for e in definition.marked_effects],
            "details": {n: expr_value(e, words) for n, e in definition.details},
        })
    return base


def entry_data(entry: m.ListEntry, words: Words) -> dict[str, Any]:
    return {"id": entry.id, "label": entry.label, "text": entry.text,
            "values": {n: expr_value(e, words) for n, e in entry.values},
            "children": [entry_data(c, words) for c in entry.children]}


def export_data(checked: m.CheckedRuleset) -> dict[str, Any]:
    """The checked model as plain data: the JSON and YAML export, and what the templates read."""
    return {
        "$schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "generator": f"rulecraft {__version__}",
        "ruleset": checked.id,
        "title": checked.title,
        "source": {"path": checked.source_path, "sha256": checked.source_hash},
        "meta": dict(checked.meta),
        "sections": [{"title": s.title, "sources": citation_data(s.citation), "columns": s.columns()}
                     for s in checked.sections],
        "definitions": [definition_data(checked, d, words) for words in [Words(names_of(checked), kinds_of(checked))]
                        for d in checked.definitions],
        "errata": [
            {"id": e.id, "title": e.title, "sources": citation_data(e.citation), "text": e.text,
             "resolves": [{"codes": list(r.codes), "items": list(r.items)} for r in e.resolves],
             "fixes": list(e.fixes)}
            for e in checked.errata
        ],
    }


def to_json(data: dict[str, Any]) -> str:
    return _capped(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "JSON export", data)


def _capped(text: str, what: str, data: dict[str, Any]) -> str:
    """`text`, unless it is past the cap on an output's size (then a TOO-LARGE diagnostic: nothing is written)."""
    if len(text) > MAX_OUTPUT_BYTES:
        raise output_too_large(what, str(data.get("source", {}).get("path", "")), MAX_OUTPUT_BYTES)
    return text


def to_yaml(data: dict[str, Any]) -> str:
    """The export as YAML: ruamel.yaml's safe dump in block style, unicode as itself, keys sorted, long text
    folded at 100 columns by libyaml's emitter (ruamel.yaml.clib, a declared dependency: ruamel's pure-Python
    emitter folds long lines at other places, and the same source must give the same bytes everywhere)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=False)
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.width = 100
    stream = io.StringIO()
    yaml.dump(data, stream)
    return _capped(stream.getvalue(), "YAML export", data)


# ---------------------------------------------------------------- HTML


_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
_ITALIC = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")


_SUPERSCRIPT = re.compile(r"&lt;sup&gt;(\w{1,4})&lt;/sup&gt;")  # `1<sup>st</sup>`, as documents converted from HTML say
# TeX symbol commands that documents converted from LaTeX keep (`\Diamond Social`): the symbol itself
TEX_SYMBOLS = {"Diamond": "◇", "diamond": "⋄", "bullet": "•", "times": "×", "cdot": "·", "pm": "±", "leq": "≤",
               "geq": "≥", "le": "≤", "ge": "≥", "rightarrow": "→", "to": "→", "leftarrow": "←", "star": "★",
               "heartsuit": "♡", "spadesuit": "♠", "clubsuit": "♣", "diamondsuit": "♢", "checkmark": "✓"}
_TEX_SYMBOL = re.compile(r"\\(" + "|".join(sorted(TEX_SYMBOLS, key=len, reverse=True)) + r")(?![A-Za-z])\s?")


def rich(text: object) -> Markup:
    """Escape rule text, then honour the documents' markup: **bold**, *italic*, `<sup>st</sup>` and TeX symbol
    commands (`\\Diamond`). Nothing else is markup; the text is never run."""
    if text is None:
        return Markup("")
    escaped = str(escape(str(text)))
    escaped = _BOLD.sub(lambda match: f"<strong>{match.group(1)}</strong>", escaped)
    escaped = _ITALIC.sub(lambda match: f"<em>{match.group(1)}</em>", escaped)
    escaped = _SUPERSCRIPT.sub(lambda match: f"<sup>{match.group(1)}</sup>", escaped)
    escaped = _TEX_SYMBOL.sub(lambda match: TEX_SYMBOLS[match.group(1)] + " ", escaped)
    return Markup(escaped.replace("\n", "<br>").replace("\u2028", "<br>").replace("\u2029", "<br><br>"))


_TAG = re.compile(r"(<[^>]*>)")


def linked(text: Markup, links: list[dict[str, str]]) -> Markup:
    """Rule text (set by `rich`) with the first mention of each card it points to as a link to it ("roll a DEX
    contest": `text_links`), whole words in any case, never inside a tag."""
    html = str(text)
    for link in links:
        words = re.compile(rf"(?<!\w){re.escape(str(escape(link['words'])))}(?!\w)", re.IGNORECASE)
        anchor = f'<a class="term" href="#{escape(link["name"])}">\\g<0></a>'
        parts = _TAG.split(html)
        for index in range(0, len(parts), 2):  # the text between tags
            parts[index], found = words.subn(anchor, parts[index], 1)
            if found:
                break
        html = "".join(parts)
    return Markup(html)


def separators_as_spaces(value: object) -> object:
    """Every `{{ }}` of a sheet: a line or paragraph separator (U+2028, U+2029) in a title or a label is a
    space, as a browser shows it; no font has a glyph for one, and a PDF's text would lose its way after it.
    Rule text set by `rich` breaks the line there instead."""
    if isinstance(value, str) and not isinstance(value, Markup) and ("\u2028" in value or "\u2029" in value):
        return value.replace("\u2028", " ").replace("\u2029", " ")
    return value


_HYPHENATED = re.compile(r"\w+(?:-\w+)+")


def citation(text: object) -> Markup:
    """A source citation whose IDs and line ranges (`TOG-01`, `lines 13-17`) never break at their hyphen."""
    escaped = str(escape(str(text)))
    return Markup(_HYPHENATED.sub(lambda match: f'<span class="nowrap">{match.group(0)}</span>', escaped))


def show(value: object) -> Markup:
    """A datum as a reader wants it: yes/no for flags, `unknown` for lost values, expressions as written."""
    if value is True:
        return Markup("yes")
    if value is False:
        return Markup("no")
    if value is None:
        return Markup("unknown")
    if isinstance(value, dict) and "expr" in value:
        return rich(value.get("words", value["expr"]))
    return rich(value)


CARD_LINE = 48  # characters of rules text on one line of a card, two cards to a page's width
SHORT_CARD = 8  # lines: a card this short is never split between columns or pages


def rank_words(ticks: int, ranks: list[dict[str, Any]]) -> str:
    """A ticked track's ranks in words, in boxes where whole: "troublesome: 3 boxes per progress; dangerous: 2
    boxes; ...; extreme: 2 ticks; epic: 1 tick"."""
    def amount(count: int) -> str:
        boxes, rest = divmod(count, ticks)
        parts = [f"{boxes} {'box' if boxes == 1 else 'boxes'}"] if boxes else []
        parts += [f"{rest} {'tick' if rest == 1 else 'ticks'}"] if rest else []
        return " and ".join(parts)
    return "; ".join(f"{rank['name']}: {amount(rank['ticks'])}" + (" per progress" if index == 0 else "")
                     for index, rank in enumerate(ranks))


def card_lines(definition: dict[str, Any]) -> int:
    """About how many lines a definition's card takes on a sheet (the templates keep short cards whole)."""
    def lines(text: object) -> int:
        return 1 + len(str(text or "")) // CARD_LINE

    count = 3 + (lines(definition["text"]) if definition["text"] else 0)
    count += sum(lines(band["text"]) for band in definition.get("bands", []))
    count += sum(lines(entry["text"]) + len(entry["children"]) for entry in definition.get("entries", []))
    count += sum(lines(value) for value in definition.get("details", {}).values())
    count += sum(len(definition.get(name, [])) for name in ("cards", "faces", "levels"))
    count += sum(lines(f"{let['name']}: {let['words']}") for let in definition.get("lets", []))
    count += 2 if definition.get("ticks") else 0
    drawn = chart(definition.get("odds"))
    return count + (3 + len(drawn["rows"]) if drawn else 0)


ROLLED_TABLE_ROWS = 12  # a rolled table this long is read at once, like a roll: it is never split


def short_card(definition: dict[str, Any]) -> bool:
    """Whether a card is kept whole on a sheet: a short one, or a table of a few rows (a d6 of events, the
    rounds of a game's time), which a reader reads at once."""
    rolled = definition["kind"] in ("table", "lookup") and len(definition.get("bands", ())) <= ROLLED_TABLE_ROWS
    return rolled or card_lines(definition) <= SHORT_CARD


def wide_card(definition: dict[str, Any]) -> bool:
    """A card whose table has three or more columns, which one column of two would set a word or two a line."""
    return len(definition.get("columns") or ()) >= 3


CORE_LINES = {"a4": 110, "letter": 100}  # about what three columns of a core sheet hold, in card_lines' lines


def core_rolls(definitions: list[dict[str, Any]], page: str = "a4") -> list[dict[str, Any]]:
    """The rolls of the core sheet: those marked `core: yes`; with none marked, the rolls in the rules' order
    that fit one page (by card_lines), a roll too long for what is left making way for shorter ones after it."""
    rolls = [d for d in definitions if d["kind"] == "roll"]
    marked = [d for d in rolls if d.get("core")]
    if marked:
        return marked
    chosen: list[dict[str, Any]] = []
    lines = 0
    for roll in rolls:
        cost = card_lines(roll)
        if not chosen or lines + cost <= CORE_LINES[page]:
            chosen.append(roll)
            lines += cost
    return chosen


JINJA_OPTIONS: dict[str, Any] = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}
FILTERS: dict[str, Callable[..., object]] = {
    "rich": rich, "linked": linked, "show": show, "citation": citation,
    "human": lambda name: Markup(humanize(name)) if isinstance(name, Markup) else humanize(str(name)),  # "a b"
    "sentence": lambda text: str(text)[:1].upper() + str(text)[1:],  # "Special ability" (the rest as it is)
    "as_written": lambda name, capitals: as_written(str(name), capitals),
}


def as_written(name: str, capitals: frozenset[str]) -> str:
    """An input's name in words, each in capitals where the rules write it so (`capitals_of`): "DV", "their
    WIL", "HP": a chart's caption and headings name an abbreviation as the rules do."""
    return " ".join(word.upper() if word.upper() in capitals else word for word in humanize(name).split(" "))


def capitals_of(data: dict[str, Any]) -> frozenset[str]:
    """The abbreviations a ruleset's rules text, rows and entries write in capitals: words of two or three
    capitals ("DN", "WIL", "HP"; not Tides of Gold's "GOSSIP", a term set in capitals for emphasis)."""
    texts = []
    for definition in data["definitions"]:
        texts.append(definition["text"] or "")
        texts += [band["text"] or "" for band in definition.get("bands") or []]
        texts += [entry["text"] or "" for entry in definition.get("entries") or []]
    return frozenset(re.findall(r"\b[A-Z]{2,3}\b", " ".join(texts)))


PROSE_WORDS = 12  # a detail of more words is the document's prose, set as rules text on the player's sheet
TESTS: dict[str, Callable[[object], bool]] = {
    "die_name": lambda value: bool(re.fullmatch(r"[dD][0-9]+", str(value))),  # `d8`: drawn as a die
    "prose": lambda value: len(str(value).split()) > PROSE_WORDS,
}


@cache  # compiled templates are kept; Jinja reloads a template whose file changed (auto_reload)
def environment(extra_templates: Path | None = None) -> Any:
    from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape

    loaders = []
    if extra_templates is not None:
        loaders.append(FileSystemLoader(str(extra_templates)))
    loaders.append(FileSystemLoader(str(templates_dir())))
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(default=True,
                      default_for_string=True), undefined=StrictUndefined, finalize=separators_as_spaces,
                      **JINJA_OPTIONS)
    env.filters.update(FILTERS)
    env.tests.update(TESTS)
    env.globals["palette"] = PALETTE
    env.globals["tone_colours"] = TONE_COLOURS
    env.globals["chart"] = chart
    env.globals["short_card"] = short_card
    env.globals["rank_words"] = rank_words
    env.globals["cos"] = math.cos
    env.globals["sin"] = math.sin
    return env


PAGE_SIZES = {"a4": "A4", "letter": "letter"}
MEDIA_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".otf": "font/otf",
               ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
_URL = re.compile(r"""url\(\s*(["']?)([^"')\s]+)\1\s*\)""")


def inline_urls(css: str, folders: list[Path]) -> str:
    """`css` with every relative `url(...)` replaced by that file as a `data:` URI: the sheet requests nothing.

    A file is looked up in `folders` in order (a theme's folder, then the built-in templates),
    the way templates are; a URL with a scheme (`data:`, `https:`) or a fragment is left as written.
    """
    def replace(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:|#", target):
            return match.group(0)
        for folder in folders:
            path = folder / target
            if path.is_file():
                return f'url("{data_uri(path.resolve(), path.stat().st_mtime_ns)}")'
        from jinja2 import TemplateNotFound

        raise TemplateNotFound(target, f"{target}: the CSS asks for this file, but no templates folder has it")
    return _URL.sub(replace, css)


@cache  # keyed on the file's modification time too, so a changed font is read again
def data_uri(path: Path, mtime_ns: int) -> str:
    media_type = MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{media_type};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


# The sheets one source makes: the player's (every definition by section, in the words a player reads), the
# designer's proof (the same, with what a designer checks against the document: where each card comes from, the
# errata, the file and its hash, placeholders and the values the document leaves out) and the core sheet.
SHEETS = ("player", "proof", "core")


def to_html(data: dict[str, Any], extra_templates: Path | None = None, page: str = "a4", sheet: str = "player") -> str:
    """The reference sheet: one HTML file, styles and fonts inline; `page` is the paper it prints on (a4, letter).

    `sheet` is "player" (every definition by section, with contents), "proof" (the player's sheet with the
    citations, errata, hashes, placeholders and unknown values a designer checks) or "core": the rolls
    alone, with their bands and odds, in three dense columns that aim to fit one page.
    """
    if page not in PAGE_SIZES:
        raise ValueError(f"page size is one of {', '.join(PAGE_SIZES)}, not {page!r}")
    if sheet not in SHEETS:
        raise ValueError(f"sheet is one of {', '.join(SHEETS)}, not {sheet!r}")
    env = environment(extra_templates)
    folders = [extra_templates, templates_dir()] if extra_templates is not None else [templates_dir()]
    css = "\n".join(inline_urls(env.loader.get_source(env, name)[0], folders) for name in ("fonts.css", "sheet.css"))
    sections: list[dict[str, Any]] = []
    by_title: dict[str | None, dict[str, Any]] = {}
    core = [d["name"] for d in core_rolls(data["definitions"], page)] if sheet == "core" else []
    # The player's sheet opens with the game's main roll, under the masthead: moved there from its section
    # (and said first, so that it is the card that says its words in full)
    main = main_roll(data["definitions"]) if sheet == "player" else None
    ordered = data["definitions"] if main is None else [main, *(d for d in data["definitions"] if d is not main)]
    if sheet == "core":  # the core sheet's cards say their words among themselves
        ordered = [d for d in ordered if d["name"] in core]
    definitions = ordered if sheet == "proof" else player_cards(ordered, main, core=sheet == "core")
    main_card = definitions[0] if main is not None else None
    # a card with nothing to print but a pointer to the card that says its words is left off; links to it go
    # to that card, which carries its name as an anchor (`aliases`)
    aliases: dict[str, list[str]] = {}
    for definition in definitions[1:] if main is not None else definitions:
        key = definition["section"] if sheet != "core" else "Core rolls"
        if sheet != "proof" and not says_something(definition):
            if definition.get("said_in"):
                aliases.setdefault(definition["said_in"]["name"], []).append(definition["name"])
            continue
        if key not in by_title:
            section = next((s for s in data["sections"] if s["title"] == key and sheet != "core"),
                           {"title": key or data["title"], "sources": {"text": ""}, "columns": None})
            by_title[key] = {"title": section["title"], "sources": section["sources"],
                             "columns": section.get("columns"), "definitions": []}
            sections.append(by_title[key])
        by_title[key]["definitions"].append(definition)
    for section in sections:
        if sheet != "proof":
            section["definitions"] = within_section(section["definitions"])
        # The ruleset's choice; else three dense columns on the core sheet, else two, but one for a lone card
        # of up to 30 lines, which two balanced columns would cut in half.
        lone = len(section["definitions"]) == 1 and card_lines(section["definitions"][0]) <= 30
        section["columns"] = section["columns"] or (3 if sheet == "core" else 1 if lone else 2)
        # a wide table (wounds by damage type) stands alone across the section, between the columns of the cards
        # before and after it (WeasyPrint fails on `column-span`)
        section["runs"] = []
        for definition in section["definitions"]:
            width = 1 if wide_card(definition) and sheet != "core" else section["columns"]
            if not section["runs"] or section["runs"][-1]["columns"] != width or width == 1 != section["columns"]:
                section["runs"].append({"columns": width, "definitions": []})
            section["runs"][-1]["definitions"].append(definition)
    errata_by_item: dict[str, list[str]] = {}
    for erratum in data["errata"]:
        items = {i for r in erratum["resolves"] for i in r["items"]}
        items |= {fix.split("[")[0].split(".")[0].split(" ")[0] for fix in erratum["fixes"]}
        for item in items:
            errata_by_item.setdefault(item, []).append(erratum["id"])
    template = env.get_template("sheet.html.j2")
    parts: list[str] = []
    size = 0
    # `see: x` links to the card of x where the sheet prints it (or the card that says its words)
    printed = {d["name"] for section in sections for d in section["definitions"]}
    printed |= {main_card["name"]} if main_card is not None else set()
    aliases = {holder: names for holder, names in aliases.items() if holder in printed}
    card_ids = printed | {name for names in aliases.values() for name in names}
    for part in template.generate(data=data, sections=sections, css=Markup(css), errata_by_item=errata_by_item,
                                  card_ids=card_ids, aliases=aliases, capitals=capitals_of(data),
                                  page_size=PAGE_SIZES[page], sheet=sheet, proof=sheet == "proof",
                                  main_roll=main_card):
        size += len(part)
        if size > MAX_OUTPUT_BYTES:  # stopped as it passes the cap, not rendered in full first
            raise output_too_large("sheet", str(data.get("source", {}).get("path", "")), MAX_OUTPUT_BYTES)
        parts.append(part)
    return "".join(parts)


def to_pdf(html: str, base_url: str | None = None) -> bytes:
    """PDF bytes from the sheet's HTML (WeasyPrint is imported only here).

    The embedded font subsets carry a "modified" timestamp (fontTools stamps them with the
    time unless SOURCE_DATE_EPOCH is set); a fixed epoch makes the same source give the same bytes.
    The PDF is tagged (`pdf_tags`): its structure tree holds the sheet's headings, paragraphs, lists and
    tables in the HTML's order, so a screen reader or a copy reads the cards column by column. Its Title,
    Author, Subject, Keywords and Creator come from the HTML's head (`sheet.html.j2`), with no date.
    A short sheet is laid out again without its contents (CONTENTS_PAGES).
    """
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    from weasyprint import CSS, HTML

    pdf_subsetter()
    options: dict[str, Any] = {"pdf_identifier": b"rulecraft", "uncompressed_pdf": False, "pdf_tags": True}
    config = font_config(html)
    sheet = HTML(string=html, base_url=base_url)
    document = sheet.render(font_config=config, **options)
    if len(document.pages) <= CONTENTS_PAGES and 'class="contents"' in html:
        document = sheet.render(font_config=config, stylesheets=[CSS(string=NO_CONTENTS, font_config=config)],
                                **options)
    pdf: bytes = document.write_pdf(**options)
    return pdf


# A sheet of this many pages or fewer is read by leafing through it, as a rulebook's quick reference is: its
# printed contents is left off (on page 1 it would stand above the main roll), while the PDF's bookmarks and
# the pages' running heads still name its sections. The HTML keeps its contents, for moving around a screen.
CONTENTS_PAGES = 8
NO_CONTENTS = "nav.contents { display: none !important }"


def pdf_subsetter() -> str:
    """Make fontTools subset the fonts a PDF embeds, on every machine; returns its name and version.

    WeasyPrint subsets with HarfBuzz-Subset where the system has it (`libharfbuzz-subset0` on Debian), else
    with fontTools: the two give other bytes from the same HTML (HarfBuzz keeps each font's own `modified`
    time, so SOURCE_DATE_EPOCH no longer applies, and its version is the system's, not pinned). WeasyPrint
    has no option for it, so its module's handle on HarfBuzz-Subset is cleared: fontTools, pinned in
    pyproject.toml, then subsets on every machine."""
    import fontTools  # type: ignore[import-untyped,unused-ignore]
    from weasyprint.pdf import fonts as pdf_fonts

    pdf_fonts.harfbuzz_subset = None
    return f"fonttools {fontTools.version}"


STYLE_ELEMENT = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S | re.I)
FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}", re.I)
FONT_CONFIGS_KEPT = 4  # sets of faces; a build has one (its templates'), a long-lived process a few
_font_configs: dict[str, tuple[int, Any]] = {}  # hash of the faces -> (the process that made it, configuration)


def font_faces(html: str) -> str:
    """The @font-face rules of a sheet's <style> elements, in order (rule text cannot open one: it is escaped)."""
    return "\n".join(face for style in STYLE_ELEMENT.findall(html) for face in FONT_FACE.findall(style))


def font_config(html: str) -> Any:
    """WeasyPrint's font configuration for the sheet's @font-face rules, made once per set of rules.

    A new configuration decodes every face again (WOFF2), registers each with Fontconfig and starts
    Pango's caches empty: about 0.2 s of every sheet on this machine. Sheets with the same faces (all of
    one build) share one; a face is registered once, keyed by its rule. The PDF is the same bytes either
    way (tested). `render_pdfs` calls this before it forks, so that its workers inherit the faces loaded.
    """
    from weasyprint import CSS
    from weasyprint.text.fonts import FontConfiguration

    faces = font_faces(html)
    key = hashlib.sha256(faces.encode()).hexdigest()
    found = _font_configs.get(key)
    if found is not None:
        return found[1]
    forget_font_configs(keep=FONT_CONFIGS_KEPT - 1)
    config = FontConfiguration()
    if faces:
        CSS(string=faces, font_config=config)  # registers the faces now, as the sheet's own <style> would
    _font_configs[key] = (os.getpid(), config)
    return config


@atexit.register  # before the interpreter tears its modules down, when a configuration can no longer clean up
def forget_font_configs(keep: int = 0) -> None:
    """Drop all but the newest `keep` of the configurations this process made; each removes its folder of
    decoded fonts as it goes. A forked worker leaves those it inherited alone: their folder is its parent's."""
    mine = [key for key, (pid, _) in _font_configs.items() if pid == os.getpid()]
    for key in mine[:max(0, len(mine) - keep)]:
        del _font_configs[key]


def odds_for(checked: m.CheckedRuleset, resolver: m.Resolver, inputs: dict[str, object]) -> dict[str, Fraction]:
    return odds(resolver, inputs, definition_names(checked))


# ---------------------------------------------------------------- printable card sheets

# Standard card sizes (width, height) in millimetres: poker (the default), bridge and mini (American mini).
PAPER_MM: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
CARD_MARGIN_MM = 5.0  # at least this much paper around the cards, for the cut marks (home printers lose ~5 mm)
CARD_INSET_MM = 3.0  # the thin border sits this far inside the cut: a cut off by up to 3 mm never touches it
CARD_PADDING_MM = 2.2  # from the border to the card's text
CUT_MARK_GAP_MM = 1.0  # a cut mark starts this far from the cards, so that a cut on the line never shows it
CUT_MARK_MM = 4.0  # and is at most this long
PT_MM = 25.4 / 72
TEXT_SIZES_PT = (8.5, 8.0, 7.5, 7.0, 6.5, 6.0)  # rules text on a poker card, largest first; 6 pt is the floor
CHAR_EM = 0.47  # the serif's average character, in ems, with room for wrapping (Noto Serif sets rules text at 0.43)
LINE_EM = 1.22  # the card text's line height, in ems (the CSS sets it)


def known_decks(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The decks of an export whose cards are known: what a card sheet prints (placeholder and unknown cards are
    the designer's to supply, so they are left out)."""
    return [d for d in data["definitions"] if d["kind"] == "deck" and d["cards_status"] == "known" and d["cards"]]


def card_size_of(data: dict[str, Any], card_size: str | None = None) -> str:
    """The card size: `card_size` (the command line's), else the ruleset's `card_size:`, else poker."""
    size = card_size or data["meta"].get("card_size") or "poker"
    if not isinstance(size, str) or size not in CARD_SIZES:
        raise ValueError(f"card_size: {size!r} is not a card size; it is one of {', '.join(CARD_SIZES)}")
    return size


def _lines(text: str, width_mm: float, size_pt: float) -> int:
    """About how many lines `text` takes set `width_mm` wide at `size_pt` (each paragraph starts a line)."""
    per_line = max(1, int(width_mm / (size_pt * PT_MM * CHAR_EM)))
    return sum(max(1, math.ceil(len(paragraph) / per_line)) for paragraph in re.split(r"[\n\u2028\u2029]", text))


def card_fit(card: dict[str, Any], deck: dict[str, Any], size: str) -> tuple[float, float, bool]:
    """The label's and the text's type sizes (pt) that fit a card of `size`, and whether the text fits at all.

    The sizes are chosen here, from the lengths, as CSS cannot shrink text to its box; the estimate errs on the
    large side (tests/test_card_sheets.py reads the longest card back from the PDF)."""
    width, height = CARD_SIZES[size]
    scale = width / CARD_SIZES["poker"][0]
    inner_w = width - 2 * (CARD_INSET_MM + CARD_PADDING_MM)
    inner_h = height - 2 * (CARD_INSET_MM + CARD_PADDING_MM)
    label_pt = 13.0 * scale if len(card["label"]) <= 36 * scale else 10.5 * scale
    used = small_pt(size) * PT_MM * 1.3 + 1.2  # the deck's name and the space under it
    used += _lines(card["label"], inner_w, label_pt) * label_pt * PT_MM * 1.15 + 1.5
    tags = card_tags(card, deck)
    if tags:  # tags in rows: each its words (Inter, 0.58 em a character) and 2.4 mm of padding, 1 mm apart
        tag_pt, rows, row = small_pt(size), 1, 0.0
        for tag in tags:
            wide = min(inner_w, len(tag) * tag_pt * PT_MM * 0.58 + 2.4)
            if row and row + 1.0 + wide > inner_w:
                rows, row = rows + 1, wide
            else:
                row += (1.0 if row else 0.0) + wide
        used += rows * (tag_pt * PT_MM * 1.3 + 0.4 + 1.0) + 1.5
    text = str(card["text"] or "")
    if not text:
        return label_pt, TEXT_SIZES_PT[0], True
    for size_pt in TEXT_SIZES_PT:  # the same on every card size: the floor is the floor
        if _lines(text, inner_w, size_pt) * size_pt * PT_MM * LINE_EM <= inner_h - used:
            return label_pt, size_pt, True
    return label_pt, TEXT_SIZES_PT[-1], False


def small_pt(size: str) -> float:
    """The type size of a card's deck name and tags: 6.5 pt on a poker card, never below 6 pt."""
    return round(max(6.0, 6.5 * CARD_SIZES[size][0] / CARD_SIZES["poker"][0]), 2)


def card_tags(card: dict[str, Any], deck: dict[str, Any]) -> list[str]:
    """A card's values as a player reads them ("Gold: 3", "Single use", "Chapter: 1"), the pile last."""
    tags = []
    for name, value in card["values"].items():
        words = humanize(name)
        words = words[:1].upper() + words[1:]
        if value is True:
            tags.append(words)
        elif value is None:
            tags.append(f"{words}: ?")
        else:
            tags.append(f"{words}: {str(show(value).striptags()) if value is not False else 'no'}")
    if deck["piles"] and card["pile"] is not None:
        pile = humanize(deck["piles"])
        tags.append(f"{pile[:1].upper()}{pile[1:]} {card['pile']}")
    return tags


def overfull_cards(data: dict[str, Any], card_size: str | None = None) -> list[tuple[str, str]]:
    """(deck, card) of each card whose text is too long for its card even in the smallest type."""
    size = card_size_of(data, card_size)
    return [(deck["name"], card["id"]) for deck in known_decks(data) for card in deck["cards"]
            if not card_fit(card, deck, size)[2]]


def card_pages(data: dict[str, Any], page: str, size: str) -> list[dict[str, Any]]:
    """The card sheet's pages: each deck starts a page; each card as many times as its copies, placed in a grid
    of butted cards centred on the paper, with the cut marks around it."""
    paper_w, paper_h = PAPER_MM[page]
    width, height = CARD_SIZES[size]
    columns = int((paper_w - 2 * CARD_MARGIN_MM) // width)
    rows = int((paper_h - 2 * CARD_MARGIN_MM) // height)
    left = round((paper_w - columns * width) / 2, 2)
    top = round((paper_h - rows * height) / 2, 2)
    marks: list[tuple[float, float, float, float]] = []
    for x in (left + column * width for column in range(columns + 1)):
        reach = min(CUT_MARK_MM, top - CUT_MARK_GAP_MM - 0.5)
        marks.append((x, top - CUT_MARK_GAP_MM - reach, x, top - CUT_MARK_GAP_MM))
        marks.append((x, top + rows * height + CUT_MARK_GAP_MM, x, top + rows * height + CUT_MARK_GAP_MM + reach))
    for y in (top + row * height for row in range(rows + 1)):
        reach = min(CUT_MARK_MM, left - CUT_MARK_GAP_MM - 0.5)
        marks.append((left - CUT_MARK_GAP_MM - reach, y, left - CUT_MARK_GAP_MM, y))
        marks.append((left + columns * width + CUT_MARK_GAP_MM, y, left + columns * width + CUT_MARK_GAP_MM + reach, y))
    rounded = [tuple(round(value, 2) for value in mark) for mark in marks]
    pages: list[dict[str, Any]] = []
    per_page = columns * rows
    for deck in known_decks(data):
        faces = []
        for card in deck["cards"]:
            label_pt, text_pt, _ = card_fit(card, deck, size)
            face = {"card": card, "deck": deck, "tags": card_tags(card, deck),
                    "label_pt": round(label_pt, 2), "text_pt": round(text_pt, 2)}
            faces.extend([face] * card["copies"])
        for start in range(0, len(faces), per_page):
            placed = [{**face, "x": round(left + (index % columns) * width, 2),
                       "y": round(top + (index // columns) * height, 2)}
                      for index, face in enumerate(faces[start:start + per_page])]
            pages.append({"deck": deck, "cards": placed, "marks": rounded})
    return pages


def to_cards_html(data: dict[str, Any], page: str = "a4", extra_templates: Path | None = None,
                  card_size: str | None = None) -> str | None:
    """The printable card sheet of a ruleset's decks whose cards are known: each card as many times as its copies,
    at a standard card size (`card_size`, else the ruleset's `card_size:`, else poker), butted in a grid with cut
    marks outside it, on `page` paper. None when no deck's cards are known. Fonts and styles inline, as a sheet's."""
    if page not in PAGE_SIZES:
        raise ValueError(f"page size is one of {', '.join(PAGE_SIZES)}, not {page!r}")
    size = card_size_of(data, card_size)
    if not known_decks(data):
        return None
    env = environment(extra_templates)
    folders = [extra_templates, templates_dir()] if extra_templates is not None else [templates_dir()]
    css = "\n".join(inline_urls(env.loader.get_source(env, name)[0], folders) for name in ("fonts.css", "cards.css"))
    width, height = CARD_SIZES[size]
    paper_w, paper_h = PAPER_MM[page]
    html = env.get_template("cards.html.j2").render(
        data=data, pages=card_pages(data, page, size), css=Markup(css), page_size=PAGE_SIZES[page],
        paper={"width": paper_w, "height": paper_h}, card={"width": width, "height": height, "name": size},
        inset=CARD_INSET_MM, padding=CARD_PADDING_MM, small_pt=small_pt(size))
    return _capped(html, "card sheet", data)
