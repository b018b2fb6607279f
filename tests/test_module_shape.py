"""Generated modules read as hand-written ones: `__all__` lists the ruleset's names and the types a user meets,
nothing of the runtime's helpers."""

from __future__ import annotations

import ast
import re
import sys
import textwrap

import pytest

from rulecraft import model as m
from rulecraft.api import load, load_text
from rulecraft.backends.python import LINE_WIDTH, ModuleWriter, generate, wrap
from rulecraft.check.names import class_name
from tests.conftest import ROOT, RULESET_IDS, compile_module, import_path
from tests.test_generated_types import SHAPES

RUNTIME_TYPES = {"Result", "AnyResult", "Outcome", "Group", "Simulation", "Session", "Track", "Clock", "Levels",
                 "Markers", "TickedTrack", "Deck", "Card", "Document", "Entry", "Picked", "Faces", "Game", "Turn",
                 "Effect", "Forbidden"}
CATALOG = {"RESOLVERS", "INPUTS", "DOCUMENTS", "TRACKS", "DECKS", "CARRY", "DICE", "RULESET", "TITLE", "SOURCE_SHA256",
           "RULECRAFT_VERSION", "odds", "flag_odds", "chain_odds", "totals", "simulate", "session", "pick", "RESOURCES",
           "CONDITIONS", "TRIGGERS", "STATE_INPUTS", "game", "load_game"}

BARE = '''ruleset "Bare"

roll roll_it "Roll it" [B-1]
  roll: 2d6
  - 7+: hit "Hit"
  - otherwise: miss "Miss"
'''


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_star_import_gives_the_rulesets_names_and_the_types_a_user_meets(rid: str) -> None:
    checked = load(rid).checked
    module = import_path(ROOT / "output" / "python" / f"{rid}.py", f"shape_{rid}")
    classes = {class_name(d.name) for d in checked.definitions if isinstance(d, (m.Track, m.Deck))}
    expected = {r.name for r in checked.resolvers()} | classes | CATALOG | RUNTIME_TYPES
    sys.modules[module.__name__] = module
    try:
        namespace: dict[str, object] = {}
        exec(f"from {module.__name__} import *", namespace)  # what `from module import *` gives a user
    finally:
        del sys.modules[module.__name__]
    namespace.pop("__builtins__")
    assert set(namespace) == expected
    assert len(module.__all__) == len(expected)  # each name once
    assert {"comb", "polynomial_power", "dice", "describe", "random"}.isdisjoint(namespace)
    assert classes == {cls.__name__ for cls in (*module.TRACKS.values(), *module.DECKS.values())}


def test_every_name_in_all_exists_in_a_module_of_every_shape() -> None:
    """A ruleset with no tracks, decks, custom dice or documents still defines each name it exports."""
    module = compile_module(generate(load_text(BARE, "bare.rules", "bare").checked), "shape_bare")
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing
    assert module.__all__[:1] == ["roll_it"] and module.DICE == {} and module.DECKS == {}


def checked_of(name: str) -> m.CheckedRuleset:
    """One of the five rulesets, or one of the shapes tests/test_generated_types.py types."""
    return load(name).checked if name in RULESET_IDS else load_text(SHAPES[name], f"{name}.rules", name).checked


@pytest.mark.parametrize("name", [*RULESET_IDS, *SHAPES])
def test_no_line_is_longer_than_120_and_wrapping_changes_no_code(name: str) -> None:
    """Every line of the five modules and of the typed shapes fits in 120 characters, and the module wrapped is
    the module unwrapped: the same syntax tree (so the same code, the same data, the same docstrings)."""
    checked = checked_of(name)
    wrapped = generate(checked)
    long = [(number, line) for number, line in enumerate(wrapped.split("\n"), 1) if len(line) > LINE_WIDTH]
    assert not long, long[:3]
    unwrapped = ModuleWriter(checked, width=10**9).module()
    assert max(len(line) for line in unwrapped.split("\n")) > LINE_WIDTH  # there was something to wrap
    assert ast.dump(ast.parse(wrapped)) == ast.dump(ast.parse(unwrapped))
    if name in RULESET_IDS:
        assert (ROOT / "output" / "python" / f"{name}.py").read_text(encoding="utf-8") == wrapped


@pytest.mark.parametrize("line", [
    "x = f(lambda t, n, f, k: g(t, n, f, k, 'a' * 40, 'b' * 40, 'c' * 40), [i for i, b in enumerate(yy) if b], zz)",
    "def f(a: tuple[int, ...], b: dict[str, int | None], c: Sequence[int | str] | Tally, d: bool) -> tuple[int, ...]:",
    "values['example'] = 'It\\'s \"quoted\", a back\\\\slash, a tab\\t, é and — a very long word: ' + 'x' * 3 + '1'",
    "values['example'] = 'It\\'s \"quoted\", a back\\\\slash, a tab\\t, é and — an unbroken word: " + "y" * 90 + "'",
    "_BAND_x: dict[int | str, int] = {" + ", ".join(f"{i}: {i // 7}" for i in range(1, 40)) + "}  # the band",
    "_T_x: tuple[" + ", ".join(["int"] * 30) + "] = (1,)",
    "return Result('name', inputs, r_dice, r_kept, r_total if isinstance(r_total, int) else None, outcome, {}, trace)",
    "'A docstring standing alone as a statement, long enough to be wrapped onto a second line of the source, or more.'",
])
def test_wrapping_a_line_keeps_its_code(line: str) -> None:
    indent = " " * 24  # deep in a function: every line here is too long for it
    lines = wrap(indent, line)
    source = "\n".join(lines)
    assert all(len(text) <= LINE_WIDTH for text in lines) or "y" * 90 in line, source
    assert len(lines) > 1
    body = "\n    pass" if line.startswith("def ") else ""
    assert ast.dump(ast.parse(textwrap.dedent(source) + body)) == ast.dump(ast.parse(line + body)), source


def test_a_line_with_nothing_to_break_is_left_as_it_is() -> None:
    line = "x = " + " + ".join(["name"] * 40)
    assert wrap("", line) == [line]
    assert wrap("", "f'" + "z" * 130 + "'") == ["f'" + "z" * 130 + "'"]  # an f-string is not cut


def test_the_runtime_is_one_fenced_section_the_same_in_every_module() -> None:
    """Between its opening and closing comments every module holds the same runtime, and its helpers that only
    generated code calls are private (`_describe`, `_Rolling` ...)."""
    sections = set()
    for rid in RULESET_IDS:
        text = (ROOT / "output" / "python" / f"{rid}.py").read_text(encoding="utf-8")
        start, end = text.index("# Rulecraft's runtime: "), text.index("# End of Rulecraft's runtime.")
        assert text.count("# Rulecraft's runtime: ") == text.count("# End of Rulecraft's runtime.") == 1
        assert text.index("__all__ = [") < start < end < text.index("RULESET = ")
        sections.add(text[start:end])
    assert len(sections) == 1
    section = sections.pop()
    for helper in ("Rolling", "Planning", "Replaying", "describe", "check_chain", "floor_div", "odds_of", "sample"):
        assert f"_{helper}" in section and not re.search(rf"^(class|def) {helper}\b", section, re.MULTILINE)
