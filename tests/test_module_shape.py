"""Generated modules read as hand-written ones: `__all__` lists the ruleset's names and the types a user meets,
nothing of the runtime's helpers."""

from __future__ import annotations

import sys

import pytest

from compiler import model as m
from compiler.api import load, load_text
from compiler.codegen import generate
from compiler.names import class_name
from tests.conftest import ROOT, RULESET_IDS, compile_module, import_path

RUNTIME_TYPES = {"Result", "Outcome", "Group", "Simulation", "Session", "Track", "Clock", "Levels", "Markers", "Deck",
                 "Card", "Document", "Entry", "Picked", "Faces"}
CATALOG = {"RESOLVERS", "INPUTS", "DOCUMENTS", "TRACKS", "DECKS", "CARRY", "DICE", "RULESET", "TITLE", "SOURCE_SHA256",
           "RULECRAFT_VERSION", "odds", "totals", "simulate", "session", "pick"}

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
