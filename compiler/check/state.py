"""The game's state, checked: what outcomes do to it (effects), what it gives rolls (`input ... from`), and what
stops a roll (a condition's `forbids:`).

State is the ruleset's tracks and clocks (boxes marked), resources (an amount) and conditions (set or not).
An effect names what it acts on and, for `mark`, `clear`, `gain` and `spend`, an amount: a number, or an
expression of the roll (its inputs, lets, `total`) in which a name of the band's own data (`segments`) stands
for that datum, lowered here to the band's expression for it. A track's `full:` effects have whole numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from .. import model as m
from ..diagnostics import Code
from ..semantics.evaluate import ROLL_NAMES, rebuild, walk

Error = Callable[[Code, str, m.Span, "str | None", "str | None"], None]

# What each verb acts on: the kinds of definition its target may be.
TARGETS: dict[str, tuple[str, ...]] = {
    "mark": ("track", "clock"),
    "clear": ("track", "clock", "condition", "resource"),
    "gain": ("resource",),
    "spend": ("resource",),
    "set": ("condition", "track", "clock"),  # a track or clock to a number of boxes marked
    "carry": ("roll", "table"),
}
DERIVED = "condition in force while its test holds"  # a condition with `while:`
# what `input ... from` may read
STATE_KINDS = ("track", "clock", "resource", "condition", DERIVED)
STATE_FUNCTIONS = {  # name: (arguments, what it reads)
    "level": (1, "`level(TRACK)`, the highest level of a harm track with harm marked (0: none)"),
    "row": (2, "`row(TRACK, N)`, how many harms are recorded at level N of a harm track"),
}


def band_effects(effects: tuple[m.Effect, ...], values: Iterable[tuple[str, m.Expr]]) -> tuple[m.Effect, ...]:
    """A band's effects with each name of its own data in an amount (`mark clock segments`) replaced by the
    band's expression for that datum (`segments: 2`: `mark clock 2`)."""
    data = dict(values)

    def datum(node: m.Expr) -> m.Expr:
        return data[node.name] if isinstance(node, m.Name) and node.name in data else node

    def lowered(expr: m.Expr | None) -> m.Expr | None:
        return rebuild(expr, datum) if expr is not None else None

    return tuple(replace(e, amount=lowered(e.amount), level=lowered(e.level)) for e in effects)


def check_state(definitions: tuple[m.Definition, ...], error: Error) -> None:
    """Every effect, state input and condition names state of the right kind."""
    kinds = {d.name: _kind(d) for d in definitions}
    tracks = {d.name: d for d in definitions if isinstance(d, m.Track)}
    resolvers = {d.name: d for d in definitions if isinstance(d, m.Resolver)}
    kinds |= {d.name: DERIVED for d in definitions  # `set` cannot act on one
              if isinstance(d, m.Document) and d.kind == "condition" and any(n == "while" for n, _ in d.details)}
    for definition in definitions:
        if isinstance(definition, m.Resolver):
            local = {i.name for i in definition.inputs} | {let.name for let in definition.lets} | ROLL_NAMES
            local |= {let.name for let in definition.roll_lets} | {g.name for g in definition.groups}
            for effect in (*(e for band in definition.bands for e in band.effects),
                           *(e for guard in definition.guards for e in guard.effects)):
                _effect(effect, definition.name, local, kinds, tracks, resolvers, error)
            for item in definition.inputs:
                if item.source is not None:
                    _source(item.source, item.span, "from", definition.name, kinds, tracks, error)
        elif isinstance(definition, m.Track):
            for effect in (*definition.full_effects, *definition.marked_effects):
                _effect(effect, definition.name, set(), kinds, tracks, resolvers, error)
        elif isinstance(definition, m.Document) and definition.kind == "condition":
            details = dict(definition.details)
            rolls = forbidden(details["forbids"]) if "forbids" in details else []
            for roll in rolls:
                if roll != "all" and roll not in resolvers:
                    error(Code.UNDEFINED, f"`forbids: {roll}` names no roll", details["forbids"].span,
                          _choices("it names a roll, table or lookup, or `all`", resolvers), definition.name)
            if "while" in details:
                _source(details["while"], details["while"].span, "while:", definition.name, kinds, tracks, error)
                for node in walk(details["while"]):  # one in force by the state reads none: no loop of them
                    if isinstance(node, m.Name) and kinds.get(node.name) == DERIVED:
                        error(Code.TYPE, f"`while: {m.expr_text(details['while'])}` reads `{node.name}`, a condition "
                              "in force by the state itself", details["while"].span,
                              "read the state it reads instead", definition.name)
            if "unless" in details:
                if not rolls or "all" in rolls:
                    error(Code.TYPE, "`unless:` reads inputs of the rolls a condition `forbids:`, which it names",
                          details["unless"].span, "name the rolls, like `forbids: act`", definition.name)
                else:
                    _exception(details["unless"], details["unless"].span, definition.name,
                               [resolvers[r] for r in rolls if r in resolvers], error)
        elif isinstance(definition, m.Document) and definition.kind == "resource":
            for name, value in definition.details:
                if name in ("start", "max") and not isinstance(value, (m.Number, m.Unknown)):
                    error(Code.TYPE, f"a resource's `{name}:` is a whole number", value.span,
                          f"like `{name}: 0`", definition.name)


def forbidden(value: m.Expr) -> list[str]:
    """The rolls a condition's `forbids:` names: one name, `all`, or several joined by `and`/`or`."""
    if isinstance(value, m.Name):
        return [value.name]
    if isinstance(value, m.Logic):
        return [name for operand in value.operands for name in forbidden(operand)]
    return []


def _kind(definition: m.Definition) -> str:
    return definition.kind if hasattr(definition, "kind") else "die"


def _choices(what: str, names: Iterable[str]) -> str:
    listed = ", ".join(sorted(names)[:12])
    return f"{what}: {listed}" if listed else f"{what}; this ruleset has none yet"


def _effect(effect: m.Effect, owner: str, local: set[str], kinds: dict[str, str], tracks: dict[str, m.Track],
            resolvers: dict[str, m.Resolver], error: Error) -> None:
    if effect.verb == "roll":
        for link in effect.chain.links if effect.chain is not None else ():
            for node in walk(link.target):
                if isinstance(node, m.Name) and node.name not in resolvers and node.name not in local:
                    error(Code.UNDEFINED, f"`-> {node.name}` names no roll or table", link.span,
                          _choices("it rolls one of", (n for n, r in resolvers.items() if r.kind in ("roll", "table"))),
                          owner)
        return
    wanted = TARGETS[effect.verb]
    target = effect.target or ""
    if kinds.get(target) not in wanted:
        have = [n for n, k in kinds.items() if k in wanted]
        found = f"`{target}` is a {kinds[target]}" if target in kinds else f"this ruleset defines no `{target}`"
        error(Code.UNDEFINED if target not in kinds else Code.TYPE,
              f"`{effect.verb} {target}`: `{effect.verb}` acts on a {' or '.join(wanted)}; {found}", effect.span,
              _choices(f"`{effect.verb}` takes one of", have), owner)
        return
    if effect.verb == "set" and (effect.amount is None) != (kinds[target] == "condition"):
        error(Code.TYPE, f"`set {target}{' ' + m.expr_text(effect.amount) if effect.amount is not None else ''}`: "
              + ("a condition is set with no amount" if effect.amount is not None else
                 f"a {kinds[target]} is set to a number of boxes marked"), effect.span,
              f"like `set {target}`" if effect.amount is not None else f"like `set {target} 3`", owner)
    if effect.level is not None and not tracks[target].levels:
        error(Code.TYPE, f"`mark {target} at ...`: `at` is a level of a harm track, and {target} has no levels",
              effect.span, "write `mark TRACK N` for boxes, or give the track `levels:`", owner)
    if effect.verb == "mark":
        _marker(effect, target, tracks[target], owner, error)
    if effect.verb == "carry":
        roll = resolvers[target]
        spec = next((i for i in roll.inputs if i.name == effect.input), None)
        if spec is None or not isinstance(spec.type, m.IntRange):
            numbers = [i.name for i in roll.inputs if isinstance(i.type, m.IntRange)]
            error(Code.UNDEFINED if spec is None else Code.TYPE,
                  f"`add ... to {target} {effect.input}`: {target} has no whole-number input `{effect.input}`",
                  effect.span, f"a carried amount adds to one of its whole-number inputs: {', '.join(numbers)}"
                  if numbers else f"{target} has no whole-number input to carry an amount to", owner)
    for expr in (effect.amount, effect.level):
        for node in walk(expr) if expr is not None else ():
            if isinstance(node, m.Name) and node.name not in local:
                error(Code.UNDEFINED, f"`{effect.verb}`'s amount reads `{node.name}`, which is not here",
                      effect.span, "an amount is a number, a datum of the band (`segments`), an input, a `let` "
                      "or `total`" if local else "a `full:` effect's amount is a whole number", owner)


def _marker(effect: m.Effect, target: str, track: m.Track, owner: str, error: Error) -> None:
    """`mark TRACK N by MARKER` names a marker of a track with `markers:`; without `by`, the first one moves."""
    names = [name for name, _ in track.markers]
    if effect.marker is None or effect.marker in names:
        return
    if not names:
        error(Code.TYPE, f"`mark {target} ... by {effect.marker}`: {target} has no markers, so `by` has none to "
              "choose", effect.span, f"write `mark {target} N`, or give {target} `markers:`", owner)
    else:
        error(Code.UNDEFINED, f"`mark {target} ... by {effect.marker}`: {target} has no marker `{effect.marker}`",
              effect.span, f"its markers are {', '.join(names)}", owner)


def _source(expr: m.Expr, span: m.Span, said: str, owner: str, kinds: dict[str, str],
            tracks: dict[str, m.Track], error: Error) -> None:
    """A reading of the state (an input's `from`, a condition's `while:`): names of state, and its functions."""
    for node in walk(expr):
        if isinstance(node, m.Call):
            arity = STATE_FUNCTIONS[node.function][0] if node.function in STATE_FUNCTIONS else 0
            if (not arity or len(node.args) != arity or not isinstance(node.args[0], m.Name)
                    or not all(isinstance(a, m.Number) for a in node.args[1:])):
                error(Code.UNDEFINED, f"`{said} {m.expr_text(expr)}`: the state has no `{m.expr_text(node)}`",
                      span, "; ".join(f"`{n}`: {what}" for n, (_, what) in STATE_FUNCTIONS.items()), owner)
            elif not tracks.get(node.args[0].name) or not tracks[node.args[0].name].levels:
                error(Code.TYPE, f"`{m.expr_text(node)}` reads a harm track with `levels:`", span,
                      _choices("tracks with levels", (n for n, t in tracks.items() if t.levels)), owner)
        elif isinstance(node, m.Name) and kinds.get(node.name) not in STATE_KINDS and not _called(expr, node):
            error(Code.UNDEFINED, f"`{said} {m.expr_text(expr)}` reads `{node.name}`, which is not state",
                  span, _choices(f"`{said}` reads a track, clock, resource or condition", (
                      n for n, k in kinds.items() if k in STATE_KINDS)), owner)


def _exception(expr: m.Expr, span: m.Span, condition: str, rolls: list[m.Resolver], error: Error) -> None:
    """A condition's `unless:`: a test of inputs every roll it forbids has (an option by its name)."""
    for roll in rolls:
        names = {i.name for i in roll.inputs}
        options = {o.name for i in roll.inputs if isinstance(i.type, m.Choice) for o in i.type.options}
        for node in walk(expr):
            if isinstance(node, m.Name) and node.name not in names | options:
                error(Code.UNDEFINED, f"`unless: {m.expr_text(expr)}` reads `{node.name}`, which {roll.name} does "
                      "not take", span, _choices(f"it reads inputs of {roll.name}", names), condition)
            elif not isinstance(node, (m.Name, m.Number, m.Boolean, m.Compare, m.Logic, m.Not)):
                error(Code.TYPE, f"`unless: {m.expr_text(expr)}` is a test of the roll's inputs: yes/no inputs, "
                      "`input = option`, `and`, `or`, `not`", span, "like `unless: help or push`", condition)
                return


def _called(expr: m.Expr, name: m.Name) -> bool:
    """Whether `name` is the argument of a state function (`level(harm)`), checked there."""
    return any(isinstance(node, m.Call) and any(arg is name for arg in node.args) for node in walk(expr))
