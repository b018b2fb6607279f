"""The names a definition or an input can take in a generated module, decided apart from any backend.

A generated module holds the runtime (`runtime.py`'s own names), the module's catalog (`odds`, `RESOLVERS`
...) and one public function or class per definition, named as the designer named it: so a definition
may not take a name the module already uses, and an input (a keyword parameter) may not take a name the
public function's body uses. The checker reports both (RESERVED-NAME); codegen writes the names.
"""

from __future__ import annotations

import builtins
import keyword
import re

from ..semantics import runtime

MODULE_NAMES = {"odds", "flag_odds", "chain_odds", "totals", "simulate", "session", "pick", "RESOLVERS", "INPUTS",
                "DOCUMENTS", "TRACKS", "DECKS", "CARRY", "DICE", "RULESET", "TITLE", "SOURCE_SHA256",
                "RULECRAFT_VERSION", "RESOURCES", "CONDITIONS", "TRIGGERS", "STATE_INPUTS", "game", "load_game",
                "annotations"}


def runtime_names() -> set[str]:
    """Every top-level name the runtime section defines or imports: the runtime module's own names (the
    section is all of runtime.py but its docstring; a test reads the section's statements to prove it)."""
    return {name for name in vars(runtime) if not (name.startswith("__") and name.endswith("__"))}


_TAKEN = set(dir(builtins)) | MODULE_NAMES | runtime_names()


def reserved_input(name: str) -> bool:
    """Input names a resolver cannot take: Python keywords, `rng` (its generator), `seed` (simulate()'s) and
    names starting with `_`. An input is a parameter of the public function, which so refers only to `_` names
    (`_check_int`, `_RNG`): an input may be called `type`, `random` or `name`."""
    return keyword.iskeyword(name) or name in ("rng", "seed") or name.startswith("_")


def reserved_name(name: str) -> bool:
    """Names a definition may not take: Python keywords, builtins and the module's own names."""
    return keyword.iskeyword(name) or name in _TAKEN or name.startswith("_")


def module_name(stem: str) -> str:
    """A ruleset's id, from its file's name: a name Python can import (`my-game.rules` is `my_game`)."""
    name = re.sub(r"\W+", "_", stem, flags=re.ASCII).strip("_") or "ruleset"
    if name[0].isdigit():
        name = f"game_{name}"
    return f"{name}_" if keyword.iskeyword(name) else name


def class_name(name: str) -> str:
    """The class a track, clock or deck becomes: `stress_track` -> `StressTrack`."""
    return "".join(part.capitalize() for part in name.split("_") if part) or "Track"
