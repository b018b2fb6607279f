"""The YAML export: events handed to libyaml's emitter write what ruamel.yaml's own dump writes, byte for byte.

`yaml_export.event_dump` skips ruamel's representer and makes its serializer's events itself. These
tests hold it to `ruamel_dump` (ruamel's dump with the export's settings: how the export was written
before) on the five rulesets, on adversarial strings in every place a string goes and at several
depths, on random data, and on data it leaves to ruamel; and check that what it writes loads back,
with ruamel's C and pure loaders, to exactly the data.
"""

from __future__ import annotations

import copy
import datetime
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RepresenterError
from ruamel.yaml.resolver import Resolver

from compiler.api import load
from compiler.render import export_data, to_yaml
from compiler.yaml_export import Unsupported, dump, event_dump, plain_tag, plain_tag_mirrors_resolve, ruamel_dump
from tests.conftest import ROOT

RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))

WORDS = "The quick brown fox jumps over the lazy dog while the rules text goes on past any one line's width "
ADVERSARIAL = [
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


def placed(values: list[Any], depth: int) -> Any:
    """`values` as mapping values, as keys (the strings), as list items, and in lists of mappings, `depth` deep
    (every container new: one container in two places is an alias, which event_dump leaves to ruamel)."""
    data: Any = {
        "as values": {f"v{index:03}": copy.deepcopy(value) for index, value in enumerate(values)},
        "as keys": {value: index for index, value in enumerate(values) if isinstance(value, str)},
        "as items": copy.deepcopy(values),
        "in items": [{"text": copy.deepcopy(value), "next": None} for value in values],
    }
    for level in range(depth):
        data = {"level": level, "deeper": [data] if level % 2 else data}
    return data


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_the_exports_are_written_by_events_in_the_committed_bytes(path: Path) -> None:
    data = export_data(load(path.stem).checked)
    text = event_dump(data)  # never the fallback: it raises Unsupported instead
    assert text == (ROOT / "output" / "yaml" / f"{path.stem}.yaml").read_text(encoding="utf-8")
    assert text == ruamel_dump(data)
    assert to_yaml(data) == text
    reads_back(data, text)


@pytest.mark.parametrize("depth", [0, 1, 2, 5])
def test_adversarial_strings_in_every_place_are_ruamels_bytes_and_read_back(depth: int) -> None:
    data = placed(ADVERSARIAL, depth)
    text = event_dump(data)
    assert text == ruamel_dump(data)
    reads_back(data, text)


def test_other_scalars_are_ruamels_bytes_and_read_back() -> None:
    data = placed([*INTS, *FLOATS, True, False, None, [], {}, ()], 2)
    text = event_dump(data)
    assert text == ruamel_dump(data)
    reads_back(data, text)


def test_tuples_are_sequences_as_in_ruamel() -> None:
    data = {"pair": (1, "a"), "pairs": [(2, "b"), ((3,), "c")], "empty": ()}
    text = event_dump(data)
    assert text == ruamel_dump(data)
    reads_back(data, text)


def test_the_empty_and_scalar_documents() -> None:
    for data in [{}, [], "", "text", "null", 1, 1.5, None, True, "a\nb", [[]], {"": {}}]:
        assert event_dump(data) == ruamel_dump(data), repr(data)
        reads_back(data, event_dump(data))


FRAGMENTS = ["a", "word", "x" * 40, "y" * 120, " ", "  ", "\n", "\n\n", "\t", "\r", ": ", ":", " #", "#", "- ", "-",
             "? ", "'", '"', "\\", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "é", "日本", "😀",
             "\x85", "\u2028", "\ufeff", "\x00", "\x1b", "\xa0", "null", "true", "1", "1.5", "2024-01-02", "~", "=",
             "<<"]
texts = st.text() | st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | texts
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                         | st.dictionaries(texts, inner, max_size=4), max_leaves=16)
RANDOM = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))


@RANDOM
@given(documents)
def test_random_data_is_ruamels_bytes_and_reads_back(data: Any) -> None:
    text = event_dump(data)
    assert text == ruamel_dump(data)
    reads_back(data, text)


@RANDOM
@given(texts)
def test_plain_tag_is_what_ruamels_resolver_answers(text: str) -> None:
    assert plain_tag_mirrors_resolve()
    assert plain_tag(text) == str(Resolver().resolve(ScalarNode, text, (True, False)))


def test_plain_tag_is_what_ruamels_resolver_answers_for_the_adversarial_strings() -> None:
    resolver = Resolver()
    for text in ADVERSARIAL:
        assert plain_tag(text) == str(resolver.resolve(ScalarNode, text, (True, False))), repr(text)


class Thing:
    pass


def shared_list() -> Any:
    items = [1, 2]
    return {"a": items, "b": items}


def shared_dict() -> Any:
    inner = {"x": 1}
    return [inner, {"y": inner}]


def recursive_list() -> Any:
    items: list[Any] = []
    items.append(items)
    return items


@pytest.mark.parametrize("make", [
    shared_list, shared_dict, recursive_list,
    lambda: {1: "one", 2: "two"}, lambda: {"a": 1, 2: "b"}, lambda: {None: 1}, lambda: {(1, 2): "pair"},
    lambda: {"set": {1, 2}}, lambda: {"when": datetime.date(2024, 1, 2)}, lambda: {"bytes": b"\x00\x01"},
], ids=["shared list", "shared dict", "recursive", "int keys", "mixed keys", "None key", "tuple key", "set", "date",
        "bytes"])
def test_what_event_dump_does_not_mirror_goes_to_ruamel(make: Any) -> None:
    with pytest.raises(Unsupported):
        event_dump(make())
    assert dump(make()) == ruamel_dump(make())


def test_an_alias_is_written_as_ruamel_writes_it() -> None:
    assert "&id001" in dump(shared_list())


def test_the_empty_tuple_in_two_places_is_no_alias_in_either() -> None:
    empty = ()
    data = {"a": empty, "b": [empty, empty]}
    assert event_dump(data) == ruamel_dump(data)


@pytest.mark.parametrize("value", [Thing(), type("Text", (str,), {})("x"), type("Number", (int,), {})(1)],
                         ids=["object", "str subclass", "int subclass"])
def test_what_ruamel_cannot_represent_fails_as_it_did(value: Any) -> None:
    with pytest.raises(RepresenterError):
        ruamel_dump({"value": value})
    with pytest.raises(RepresenterError):
        dump({"value": value})
