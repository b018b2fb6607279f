"""Review: what a designer reads before publishing a change.

- `odds_listing`: `rulecraft check --odds`, each band of each roll with its
  exact probability beside its source line.
- `diff_rulesets`: `rulecraft diff OLD NEW`, what changed between two versions
  of a ruleset (definitions added and removed, every changed field of the
  export, by path) and how each affected outcome's probability moved, at the
  default inputs and at the input combination where it moved most.

Both read the checked model and the export (`render.definition_data`), the
same data the sheets and the JSON are made of.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import model as m
from ..backends.render import fraction_text
from ..semantics.evaluate import EvalError
from ..semantics.odds import defaults, input_values, odds

MAX_DIFF_GRID = 2_000  # input combinations compared per roll; beyond it, one input at a time
SHOWN_TEXT = 70


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.3f}%"


def listing_inputs(resolver: m.Resolver) -> dict[str, object]:
    """The defaults, and the lowest value of each input that has none (it must be given)."""
    inputs = defaults(resolver)
    for spec in resolver.inputs:
        if spec.name not in inputs:
            inputs[spec.name] = input_values(spec.type)[0]
    return inputs


def show_inputs(inputs: Mapping[str, object]) -> str:
    shown = {k: ("yes" if v is True else "no" if v is False else v) for k, v in inputs.items()}
    return ", ".join(f"{k}={v}" for k, v in shown.items())


def rolled(definition: m.Definition) -> bool:
    return isinstance(definition, m.Resolver) and bool(definition.dice) and bool(definition.bands)


# ---------------------------------------------------------------- check --odds


def listed_odds(checked: m.CheckedRuleset) -> Iterator[tuple[m.Resolver, dict[str, object],
                                                            dict[str, Fraction] | Exception]]:
    """Each roll with bands, the inputs it is listed at, and its odds there (or why there are none)."""
    names = frozenset(d.name for d in checked.definitions)
    for definition in checked.definitions:
        if not (isinstance(definition, m.Resolver) and rolled(definition)):
            continue
        inputs = listing_inputs(definition)
        try:
            yield definition, inputs, odds(definition, inputs, names)
        except (EvalError, ValueError) as problem:
            yield definition, inputs, problem


def odds_listing(checked: m.CheckedRuleset, path: str, source: str) -> str:
    """Every roll's bands with their probability at the listed inputs, each beside its line."""
    lines = source.splitlines()
    out: list[str] = []
    for definition, inputs, chances in listed_odds(checked):
        where = f"{path}:{definition.span.line}" if definition.span.line else path
        heading = f"{where}: {definition.name} \"{definition.label}\""
        if isinstance(chances, Exception):
            out.append(f"{heading}: no odds ({chances})")
            continue
        out.append(heading + (f" at {show_inputs(inputs)}" if inputs else ""))
        width = max((len(_band_source(b, lines)) for b in definition.bands), default=0)
        for band in definition.bands:
            p = chances.get(band.id, Fraction(0))
            shown = _band_source(band, lines)
            out.append(f"{band.span.line:>5} | {shown:<{width}}  {fraction_text(p):>11}  {percent(p):>8}")
        missing = 1 - sum(chances.values(), Fraction(0))
        if missing > 0:
            out.append(f"{'':>5} | {'(no band)':<{width}}  {fraction_text(missing):>11}  {percent(missing):>8}")
        out.append("")
    return "\n".join(out).rstrip("\n")


def odds_json(checked: m.CheckedRuleset) -> list[dict[str, Any]]:
    """`check --odds --format json`: the listing as data (rolls without odds left out)."""
    return [{"name": definition.name, "line": definition.span.line, "inputs": inputs,
             "bands": [{"id": b.id, "key": b.key_text, "line": b.span.line,
                        "probability": f"{chances[b.id].numerator}/{chances[b.id].denominator}"}
                       for b in definition.bands]}
            for definition, inputs, chances in listed_odds(checked) if not isinstance(chances, Exception)]


def _band_source(band: m.Band, lines: list[str], width: int = 48) -> str:
    """The band as written on its line (shortened), or its key and id."""
    written = lines[band.span.line - 1].strip() if 0 < band.span.line <= len(lines) else ""
    if not written.startswith("-"):
        written = f"- {band.key_text}: {band.id}"
    return written if len(written) <= width else written[: width - 1] + "…"


# ---------------------------------------------------------------- diff


@dataclass
class Movement:
    """How one outcome's probability moved."""

    outcome: str
    at_defaults: tuple[Fraction, Fraction] | None
    largest: tuple[dict[str, object], Fraction, Fraction] | None


@dataclass
class DefinitionDiff:
    name: str
    label: str
    changes: list[str] = field(default_factory=list)
    movements: list[Movement] = field(default_factory=list)
    combinations: int = 0
    note: str | None = None


@dataclass
class RulesetDiff:
    added: list[tuple[str, str, str]] = field(default_factory=list)  # name, kind, label
    removed: list[tuple[str, str, str]] = field(default_factory=list)
    changed: list[DefinitionDiff] = field(default_factory=list)
    ruleset_changes: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.ruleset_changes)


def diff_rulesets(old: m.CheckedRuleset, new: m.CheckedRuleset) -> RulesetDiff:
    from ..backends.render import definition_data

    result = RulesetDiff()
    old_defs = {d.name: d for d in old.definitions}
    new_defs = {d.name: d for d in new.definitions}
    result.removed = [(n, d.kind, d.label) for n, d in old_defs.items() if n not in new_defs]
    result.added = [(n, d.kind, d.label) for n, d in new_defs.items() if n not in old_defs]
    if old.title != new.title:
        result.ruleset_changes.append(f"title: {_change(old.title, new.title)}")
    result.ruleset_changes += list(_changes(
        {"meta": dict(old.meta), "errata": [_erratum(e) for e in old.errata]},
        {"meta": dict(new.meta), "errata": [_erratum(e) for e in new.errata]}, ""))
    changed_names: set[str] = set()
    for name, after in new_defs.items():
        before = old_defs.get(name)
        if before is None:
            continue
        old_data = _comparable(definition_data(old, before))
        new_data = _comparable(definition_data(new, after))
        found = list(_changes(old_data, new_data, ""))
        if found:
            changed_names.add(name)
            result.changed.append(DefinitionDiff(name, after.label, found))
    # a roll that reads a changed or removed definition (a lookup, a die) moves with it
    touched = changed_names | {n for n, _, _ in result.removed} | {n for n, _, _ in result.added}
    for name, after in new_defs.items():
        before = old_defs.get(name)
        if not (isinstance(before, m.Resolver) and isinstance(after, m.Resolver) and rolled(after)
                and rolled(before)):
            continue
        entry = next((c for c in result.changed if c.name == name), None)
        if entry is None:
            reads = _reads(after) & touched
            if not reads:
                continue
            entry = DefinitionDiff(name, after.label, note=f"reads {', '.join(sorted(reads))}, which changed")
        entry.movements, entry.combinations = _movements(old, before, new, after)
        if (entry.movements or entry.changes) and entry not in result.changed:
            result.changed.append(entry)
    order = {d.name: i for i, d in enumerate(new.definitions)}
    result.changed.sort(key=lambda c: order.get(c.name, 0))
    return result


def _erratum(erratum: m.AppliedErratum) -> dict[str, Any]:
    return {"id": erratum.id, "title": erratum.title, "text": erratum.text, "fixes": list(erratum.fixes)}


def _comparable(data: dict[str, Any]) -> dict[str, Any]:
    """The export of one definition without what is derived from the rest: the sheet's odds table, and the
    band keys and dice given again as data (`ranges`, `terms`), whose text is compared already."""
    from ..backends.render import STRUCTURED_KEYS

    out = {k: v for k, v in data.items() if k not in ("odds",)}
    for key, derived in STRUCTURED_KEYS.items():
        if isinstance(out.get(key), list):
            out[key] = [{k: v for k, v in item.items() if k not in derived} for item in out[key]]
    return out


def _reads(resolver: m.Resolver) -> set[str]:
    from ..semantics.evaluate import walk

    found: set[str] = set()
    expressions: list[m.Expr] = [r.expr for r in resolver.dice] + [let.expr for let in resolver.lets]
    expressions += [e for e in (resolver.key, resolver.value) if e is not None]
    for expr in expressions:
        for node in walk(expr):
            if isinstance(node, m.Name):
                found.add(node.name)
            elif isinstance(node, m.Call):
                found.add(node.function)
            elif isinstance(node, m.Dice) and node.die is not None:
                found.add(node.die)
    if resolver.bands_from:
        found.add(resolver.bands_from)
    return found


def _ident(item: Any) -> str | None:
    if isinstance(item, dict):
        for key in ("id", "name", "level"):
            if key in item and isinstance(item[key], (str, int)):
                return str(item[key])
    return None


def _changes(old: Any, new: Any, path: str) -> Iterator[str]:
    """Every difference between two exports, as `path: old -> new` lines; lists of named things by name."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            where = f"{path}.{key}" if path else str(key)
            if key not in new:
                yield f"{where}: removed (was {_show(old[key])})"
            elif key not in old:
                yield f"{where}: added, {_show(new[key])}"
            else:
                yield from _changes(old[key], new[key], where)
        return
    if isinstance(old, list) and isinstance(new, list) and old != new:
        old_ids = [_ident(x) for x in old]
        new_ids = [_ident(x) for x in new]
        if all(old_ids) and all(new_ids) and len(set(old_ids)) == len(old_ids) and len(set(new_ids)) == len(new_ids):
            before = dict(zip(old_ids, old, strict=True))
            after = dict(zip(new_ids, new, strict=True))
            for ident in old_ids:
                if ident not in after:
                    yield f"{path}[{ident}]: removed"
            for ident in new_ids:
                if ident not in before:
                    yield f"{path}[{ident}]: added, {_show(after[ident])}"
                else:
                    yield from _changes(before[ident], after[ident], f"{path}[{ident}]")
            common_before = [i for i in old_ids if i in after]
            common_after = [i for i in new_ids if i in before]
            if common_before != common_after:
                yield f"{path}: order {', '.join(map(str, common_before))} -> {', '.join(map(str, common_after))}"
            return
    if old != new:
        yield f"{path}: {_change(old, new)}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        text = value if len(value) <= SHOWN_TEXT else value[: SHOWN_TEXT - 1] + "…"
        return f'"{text}"'
    if isinstance(value, dict):
        label = value.get("label") or value.get("key") or value.get("text")
        return _show(label) if label is not None else "{…}"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value[:6]) + (", …" if len(value) > 6 else "") + "]"
    return str(value)


def _change(old: Any, new: Any) -> str:
    """`old -> new`; long texts trimmed to the part that differs."""
    if isinstance(old, str) and isinstance(new, str) and max(len(old), len(new)) > SHOWN_TEXT:
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        lead = max(start - 20, 0)
        a = old[lead: len(old) - end + 20 if end > 20 else len(old)]
        b = new[lead: len(new) - end + 20 if end > 20 else len(new)]
        prefix = "…" if lead else ""
        return f'"{prefix}{a}{"…" if end > 20 else ""}" -> "{prefix}{b}{"…" if end > 20 else ""}"'
    return f"{_show(old)} -> {_show(new)}"


def _grid(resolver: m.Resolver) -> Iterator[dict[str, object]]:
    names = [spec.name for spec in resolver.inputs]
    values = [input_values(spec.type) for spec in resolver.inputs]
    size = 1
    for choices in values:
        size *= len(choices)
    if size <= MAX_DIFF_GRID:
        for combination in itertools.product(*values):
            yield dict(zip(names, combination, strict=True))
        return
    base = listing_inputs(resolver)  # too many: each input through its values, the others at defaults
    yield base
    for name, choices in zip(names, values, strict=True):
        for value in choices:
            if base[name] != value:
                yield dict(base, **{name: value})


def _old_inputs(before: m.Resolver, inputs: Mapping[str, object]) -> dict[str, object] | None:
    """The same inputs for the old version: shared inputs keep their value, others take the old default."""
    out = listing_inputs(before)
    for spec in before.inputs:
        if spec.name in inputs:
            if inputs[spec.name] not in input_values(spec.type):
                return None
            out[spec.name] = inputs[spec.name]
    return out


def _movements(old: m.CheckedRuleset, before: m.Resolver, new: m.CheckedRuleset,
               after: m.Resolver) -> tuple[list[Movement], int]:
    old_names = frozenset(d.name for d in old.definitions)
    new_names = frozenset(d.name for d in new.definitions)
    base = listing_inputs(after)
    at_defaults: dict[str, tuple[Fraction, Fraction]] = {}
    largest: dict[str, tuple[dict[str, object], Fraction, Fraction]] = {}
    combinations = 0
    for inputs in _grid(after):
        earlier = _old_inputs(before, inputs)
        if earlier is None:
            continue
        try:
            was = odds(before, earlier, old_names)
            now = odds(after, inputs, new_names)
        except (EvalError, ValueError):
            continue
        combinations += 1
        for outcome in dict.fromkeys([*was, *now]):
            a, b = was.get(outcome, Fraction(0)), now.get(outcome, Fraction(0))
            if inputs == base:
                at_defaults[outcome] = (a, b)
            if a != b and (outcome not in largest or abs(b - a) > abs(largest[outcome][2] - largest[outcome][1])):
                largest[outcome] = (inputs, a, b)
    movements = [Movement(o, at_defaults.get(o), largest.get(o)) for o in dict.fromkeys([*at_defaults, *largest])
                 if o in largest]
    return movements, combinations


def format_diff(diff: RulesetDiff, old_name: str, new_name: str) -> str:
    if diff.empty:
        return f"{old_name} and {new_name} define the same rules"
    out = [f"--- {old_name}", f"+++ {new_name}"]
    out += [f"  {line}" for line in diff.ruleset_changes]
    for name, kind, label in diff.removed:
        out.append(f"- {kind} {name} \"{label}\": removed")
    for name, kind, label in diff.added:
        out.append(f"+ {kind} {name} \"{label}\": added")
    for entry in diff.changed:
        out.append(f"~ {entry.name} \"{entry.label}\"" + (f" ({entry.note})" if entry.note else ""))
        out += [f"    {line}" for line in entry.changes]
        if entry.movements:
            out.append(f"    odds over {entry.combinations} input combination{'s' * (entry.combinations != 1)}:")
            for move in entry.movements:
                out.append("      " + _movement_text(move))
    return "\n".join(out)


def _movement_text(move: Movement) -> str:
    parts = [f"{move.outcome}:"]
    if move.at_defaults is not None:
        a, b = move.at_defaults
        parts.append(f"{percent(a)} -> {percent(b)} at the defaults ({_points(b - a)})"
                     if a != b else f"{percent(a)} at the defaults (unchanged)")
    if move.largest is not None:
        inputs, a, b = move.largest
        if move.at_defaults is None or move.at_defaults != (a, b):
            parts.append(f"{'most' if move.at_defaults else 'moves'} at {show_inputs(inputs) or 'no inputs'}: "
                         f"{percent(a)} -> {percent(b)} ({_points(b - a)})")
    return " ".join(parts[:1]) + " " + "; ".join(parts[1:])


def _points(delta: Fraction) -> str:
    return f"{float(delta) * 100:+.3f} points"


def diff_json(diff: RulesetDiff) -> dict[str, Any]:
    return {
        "same": diff.empty,
        "ruleset": diff.ruleset_changes,
        "added": [{"name": n, "kind": k, "label": label} for n, k, label in diff.added],
        "removed": [{"name": n, "kind": k, "label": label} for n, k, label in diff.removed],
        "changed": [
            {"name": c.name, "label": c.label, "note": c.note, "changes": c.changes,
             "input_combinations": c.combinations,
             "odds": [{"outcome": mv.outcome,
                       "at_defaults": None if mv.at_defaults is None else
                       {"old": fraction_text(mv.at_defaults[0]), "new": fraction_text(mv.at_defaults[1])},
                       "largest": None if mv.largest is None else
                       {"inputs": mv.largest[0], "old": fraction_text(mv.largest[1]),
                        "new": fraction_text(mv.largest[2])}}
                      for mv in c.movements]}
            for c in diff.changed
        ],
    }
