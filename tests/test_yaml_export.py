"""The YAML export: the same bytes everywhere, and it reads back as exactly the data the JSON export holds.

`render.to_yaml` is ruamel.yaml's own safe dump, its lines folded by libyaml's emitter (ruamel.yaml.clib).
The bytes are held to files: the committed exports of the five rulesets, and a fixture of hard strings
and scalars in every place a value goes (`tests/fixtures/yaml_hard_values.yaml`, written by the export as
it was before this dump replaced its own event writer; a machine whose YAML emitter folds or quotes
differently fails there). What it writes must load back, with ruamel's C and pure-Python loaders, to
the data, and for a ruleset to what its JSON export loads to.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from rulecraft.api import load, load_text
from rulecraft.backends.render import export_data, to_json, to_yaml
from tests.conftest import ROOT

RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))
FIXTURE = ROOT / "tests" / "fixtures" / "yaml_hard_values.yaml"

WORDS = "The quick brown fox jumps over the lazy dog while the rules text goes on past any one line's width "
HARD_STRINGS = [
    # empty, spaces
    "", " ", "  ", "a ", " a", " a ", "a  b", "a   ",
    # what a plain scalar would read back as another type: null, bool (1.2 and 1.1), int, float, dates
    "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "yes", "no", "on", "off", "y", "n", "Y",
    "N", "0", "1", "-1", "+1", "007", "0o17", "0x1F", "0b101", "1_000", "12:30", "1:20:30", "1.5", ".5", "1.",
    "-1.5e3", "1e3", "1E+3", "1e-05", ".inf", "-.Inf", "+.INF", ".nan", "NaN", "inf", "nan", "2024-01-02",
    "2024-01-02 10:11:12", "2001-12-14t21:59:43.10-05:00", "2024-1-2", "<<", "=", "0.", "-", "+", ".",
    # indicators at the start, and inside
    "!", "!tag x", "&a", "*a", "- item", "--", "---", "...", "--- x", "? q", "?", ": x", ":", "a:", "a: b", "a:b",
    "a :b", "a #b", "a#b", "#c", "@x", "`x", "%YAML 1.2", "|", "|-", ">", ">+", "'", '"', "it's", 'say "hi"',
    "'quoted'", '"quoted"', "[a]", "]", "{a: 1}", "}", "a, b", ",", "a,b", "a]b", "a}b", "\\", "C:\\path\\x",
    "http://example.com/a?b=c#d", "x: y: z", "- - x", "a -b", "-a", "?a", ":a",
    # line breaks, tabs, carriage returns, other breaks
    "a\nb", "a\n", "\n", "\na", "a\n\nb", "a\n\n", " \n ", "a \nb", "a\n b", "\n\n\n", "a\tb", "\t", "tab\t", "\ta",
    "a\rb", "\r\n", "a\r\nb", "a\x85b", "a\u2028b", "a\u2029b",
    # unicode: accents, CJK, non-BMP, controls, specials
    "é", "ünïcödé", "日本語の文", "😀", "a😀b", "😀" * 60, "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\x00", "a\x00b", "\x07", "\x1b[0m", "\x7f",
    "\x9f", "\xa0", "a\xa0b", "\u3000", "\ud7ff", "\ue000", "\ufeff", "a\ufeffb", "\ufffd", "\ufffe", "\uffff",
    "\U0010ffff", "\u200b", "\u202e",
    # long: words past the width, one word past it, breaks and double spaces inside, indicators inside
    WORDS * 3, (WORDS * 3).strip(), "x" * 150, "x" * 99, "x" * 100, "x" * 101, "word " * 40, ("a" * 99 + " ") * 3,
    "  " + WORDS * 2, WORDS * 2 + "  ", (WORDS + "\n") * 3, WORDS.replace(" ", "  ") * 2, WORDS * 2 + ": tail",
    "head: " + WORDS * 2, WORDS * 2 + " #tail", ("é" * 30 + " ") * 5, ("😀" * 10 + " ") * 12, "'" + WORDS * 2 + "'",
    WORDS * 2 + "\t" + WORDS, "\n".join([WORDS * 2] * 3) + "\n", "k" * 128, "k" * 129, "k" * 200,
]
INTS = [0, 1, -1, 7, 10**18, -(10**18), 2**64, -(2**64), 10**200]
FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e17, 1e16, 1e-7, 1.5e300, 5e-324, 2.5e-05, 123456789.125, math.inf, -math.inf,
          math.nan]


def hard_values() -> dict[str, Any]:
    """The hard strings as mapping values, as keys, as list items and in lists of mappings, one level down;
    and the other scalars (ints, floats, bools, None, empty containers, a tuple) as values and items. Every
    container is new (ruamel writes one in two places as an anchor and an alias, which the export never has)."""
    def scalars() -> list[Any]:
        return [*INTS, *FLOATS, True, False, None, [], {}, (), tuple([1, "a"])]  # a literal pair is one object

    placed = {
        "as values": {f"v{index:03}": value for index, value in enumerate(HARD_STRINGS)},
        "as keys": {value: index for index, value in enumerate(HARD_STRINGS)},
        "as items": list(HARD_STRINGS),
        "in items": [{"text": value, "next": None} for value in HARD_STRINGS],
    }
    return {"strings": {"level": 0, "deeper": [placed]},
            "scalars": {"as values": {f"v{index:03}": value for index, value in enumerate(scalars())},
                        "as items": scalars()}}


def same(expected: Any, loaded: Any) -> bool:
    """`loaded` is `expected`: the same types (a tuple reads back as a list), values, keys; NaN is NaN."""
    if isinstance(expected, tuple):
        expected = list(expected)
    if type(expected) is not type(loaded):
        return False
    if isinstance(expected, float):
        if math.isnan(expected):
            return math.isnan(loaded)
        return expected == loaded and math.copysign(1, expected) == math.copysign(1, loaded)
    if isinstance(expected, list):
        return len(expected) == len(loaded) and all(same(a, b) for a, b in zip(expected, loaded, strict=True))
    if isinstance(expected, dict):
        return expected.keys() == loaded.keys() and all(same(expected[k], loaded[k]) for k in expected)
    return bool(expected == loaded)


def reads_back(data: Any, text: str) -> None:
    for pure in (False, True):
        assert same(data, YAML(typ="safe", pure=pure).load(text)), f"pure={pure}"


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_a_rulesets_export_is_the_committed_bytes_and_reads_back_as_its_json(path: Path) -> None:
    data = export_data(load(path.stem).checked)
    text = to_yaml(data)
    assert text == (ROOT / "output" / "yaml" / f"{path.stem}.yaml").read_text(encoding="utf-8")
    reads_back(data, text)
    assert YAML(typ="safe").load(text) == json.loads(to_json(data))


def test_hard_values_in_every_place_are_the_fixtures_bytes_and_read_back() -> None:
    data = hard_values()
    text = to_yaml(data)
    assert text == FIXTURE.read_text(encoding="utf-8"), (
        "the YAML export's bytes changed: is ruamel.yaml.clib installed (pure-Python ruamel folds lines elsewhere)?")
    reads_back(data, text)


RULE_TEXT = '''ruleset "Quotes"

roll test "Say \\"hi\\": it's ü ✓ #1" [Q-1]
  text: """
    Roll: 2d6 # not a comment; "quoted", 'single', \\\\ back\\slash
      indented line, tab\\there, 日本語 😀
    - not a list: {not: a map} [nor a list] & *alias ! %directive |
    yes no on off null ~ 0o17 1e3 12:30 2024-01-02
    """
  roll: 2d6
  - 7+: hit "Hit: it's \\"done\\" # really"
  - otherwise: miss "Miss\\nnext line: ok"
'''


def test_rule_text_with_quotes_breaks_unicode_and_indicators_is_reproduced_exactly() -> None:
    data = export_data(load_text(RULE_TEXT, "quotes.rules", "quotes").checked)
    definition = data["definitions"][0]
    assert definition["label"] == 'Say "hi": it\'s ü ✓ #1'
    assert definition["text"].startswith('Roll: 2d6 # not a comment; "quoted", \'single\', \\ back\\slash\n  indented')
    assert "\t" in definition["text"] and "日本語 😀\n- not a list: {not" in definition["text"]
    assert [band["text"] for band in definition["bands"]] == ['Hit: it\'s "done" # really', "Miss\nnext line: ok"]
    loaded = YAML(typ="safe").load(to_yaml(data))
    assert loaded == json.loads(to_json(data))
    assert loaded["definitions"][0]["text"] == definition["text"]
    assert [band["text"] for band in loaded["definitions"][0]["bands"]] == [b["text"] for b in definition["bands"]]


FRAGMENTS = ["a", "word", "x" * 40, "y" * 120, " ", "  ", "\n", "\n\n", "\t", "\r", ": ", ":", " #", "#", "- ", "-",
             "? ", "'", '"', "\\", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "é", "日本", "😀",
             "\x85", "\u2028", "\ufeff", "\x00", "\x1b", "\xa0", "null", "true", "1", "1.5", "2024-01-02", "~", "=",
             "<<"]
texts = st.text() | st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | texts
documents = st.dictionaries(texts, st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                                                | st.tuples(inner, inner) | st.dictionaries(texts, inner, max_size=4),
                                                max_leaves=16), max_size=4)


@settings(max_examples=200, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(documents)
def test_random_data_reads_back(data: dict[str, Any]) -> None:
    reads_back(data, to_yaml(data))
