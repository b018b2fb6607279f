"""A chained roll's result: every result's `chain` holds the links rolled after it, in order, each link holding
those after it likewise, as each link's trace holds the traces after it (README, "Dice and results")."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from rulecraft.api import load_text
from rulecraft.backends.python import generate

from .conftest import compile_module

RULES = """ruleset "Three tables"
table first "First" [X-1]
  roll: d6
  - 1-6: a "A" -> second
table second "Second" [X-1]
  roll: d6
  - 1-6: b "B" -> third
table third "Third" [X-1]
  roll: d6
  - 1-6: c "C"
"""


def _walk(link: dict[str, Any]) -> None:
    """The shape, for one link and every link after it."""
    chain = link["chain"]
    if chain:
        assert link["trace"].endswith("; then " + chain[0]["trace"]), link["trace"]
        assert chain[0]["chain"] == chain[1:]  # the next link holds the rest, nothing more or less
    else:
        assert "; then " not in link["trace"]
    for following in chain:
        _walk(following)


def test_every_link_holds_the_links_after_it() -> None:
    module = compile_module(generate(load_text(RULES, "chain.rules", "chain_results").checked), "chain_results")
    result = module.first(rng=random.Random(3))
    assert [link.name for link in result.chain] == ["second", "third"]
    assert [link.name for link in result.chain[0].chain] == ["third"]
    assert result.chain[1].chain == ()
    data = result.as_dict()
    assert [link["name"] for link in data["chain"]] == ["second", "third"]
    assert [link["name"] for link in data["chain"][0]["chain"]] == ["third"]
    assert data["chain"][1]["chain"] == []
    assert [link["outcome"]["id"] for link in data["chain"]] == ["b", "c"]
    _walk(data)
    assert data["trace"].count("; then ") == 2


def test_roll_json_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "three.rules"
    path.write_text(RULES, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rulecraft", "roll", str(path), "first", "--seed", "1", "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [link["name"] for link in data["chain"]] == ["second", "third"]
    assert [link["name"] for link in data["chain"][0]["chain"]] == ["third"]
    _walk(data)
