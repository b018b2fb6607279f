"""The JSON Schema of the export (compiler/backends/export.schema.json): complete, closed, and true of every
export the compiler writes, the five rulesets and every construct fixture that builds; it rejects exports
corrupted as a hand edit or another program would corrupt them. Also the structured keys beside the text
(band ranges, dice terms), checked against rules whose data is known."""

from __future__ import annotations

import copy
import json
import typing
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from rulecraft import model as m
from rulecraft.api import load, load_text
from rulecraft.backends.render import CONDITION_KINDS, JSON_SCHEMA, SCHEMA_ID, SCHEMA_VERSION, export_data
from rulecraft.diagnostics import CompileError, Report
from rulecraft.resources import export_schema_text
from rulecraft.semantics.runtime import OPERATORS

from .test_constructs import HEADER, all_cases

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))
VALIDATOR = Draft202012Validator(JSON_SCHEMA)


def errors(data: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(data)]


def plain(data: dict[str, Any]) -> Any:
    """The export as a reader of the JSON file sees it."""
    return json.loads(json.dumps(data))


@cache
def fixture_exports() -> dict[str, Any]:
    """The export of every construct fixture whose rules build (warnings allowed)."""
    out: dict[str, Any] = {}
    for case in all_cases():
        header = "" if HEADER.search(case.rules) else 'ruleset "Construct fixture"\n'
        try:
            loaded = load_text(header + case.rules, "fixture", "fixture", Report())
        except CompileError:
            continue
        out[case.id] = plain(export_data(loaded.checked))
    return out


def schemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every subschema of the schema that describes data: not the tests of an `if`, nor a `then` or `else`
    that only narrows the object it sits in (it has no `type` of its own)."""
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key == "if" or (key in ("then", "else") and "type" not in value and "$ref" not in value):
                continue
            yield from schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from schemas(value)


def target(schema: dict[str, Any]) -> dict[str, Any]:
    """A `$ref`'s target in $defs, else the schema itself."""
    ref = schema.get("$ref")
    if ref is None:
        return schema
    found: dict[str, Any] = JSON_SCHEMA["$defs"][ref.removeprefix("#/$defs/")]
    return found


# ---------------------------------------------------------------------------------------------- the schema


def test_the_schema_is_draft_2020_12_with_an_id_and_defs_and_the_build_copies_it() -> None:
    Draft202012Validator.check_schema(JSON_SCHEMA)
    assert JSON_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert JSON_SCHEMA["$id"] == SCHEMA_ID and JSON_SCHEMA["$defs"]
    assert json.loads(export_schema_text()) == JSON_SCHEMA
    assert json.loads((ROOT / "output" / "json" / "schema.json").read_text(encoding="utf-8")) == JSON_SCHEMA


def test_every_property_is_described_and_every_object_is_closed() -> None:
    undescribed, open_objects = [], []
    for schema in schemas(JSON_SCHEMA):
        for name, prop in schema.get("properties", {}).items():
            if "description" not in prop and "description" not in target(prop):
                undescribed.append(name)
        if "properties" in schema:
            dispatch = schema.get("allOf", [])  # a shape chosen by its `kind` (`type`, `op`): each branch closed
            branches = [target(branch["then"]) for branch in dispatch if "then" in branch]
            closed = schema.get("additionalProperties") is False or (
                branches and len(branches) == len(dispatch) and all(
                    b.get("additionalProperties") is False for b in branches))
            if not closed:
                open_objects.append(sorted(schema["properties"]))
    assert not undescribed and not open_objects


def test_the_schemas_enums_are_the_compilers() -> None:
    kinds = {kind for literal in (m.ResolverKind, m.Document.__annotations__["kind"], m.Track.__annotations__["kind"])
             for kind in typing.get_args(eval(literal, vars(m)) if isinstance(literal, str) else literal)}
    defs = JSON_SCHEMA["$defs"]
    assert set(defs["definition"]["properties"]["kind"]["enum"]) == kinds | {"die", "deck"}
    assert set(defs["diceOp"]["properties"]["op"]["enum"]) == set(OPERATORS)
    assert set(defs["band"]["properties"]["key_kind"]["enum"]) == set(CONDITION_KINDS.values())
    assert set(CONDITION_KINDS) == set(typing.get_args(m.Condition))
    assert JSON_SCHEMA["properties"]["schema_version"]["const"] == SCHEMA_VERSION


# ---------------------------------------------------------------------------------------------- the exports


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_a_rulesets_export_and_its_committed_json_and_yaml_follow_the_schema(path: Path) -> None:
    data = plain(export_data(load(str(path), Report()).checked))
    assert errors(data) == []
    assert data["$schema"] == SCHEMA_ID
    committed = json.loads((ROOT / "output" / "json" / f"{path.stem}.json").read_text(encoding="utf-8"))
    assert committed == data and errors(committed) == []
    yaml = YAML(typ="safe", pure=True).load((ROOT / "output" / "yaml" / f"{path.stem}.yaml").read_text("utf-8"))
    assert yaml["$schema"] == SCHEMA_ID and errors(yaml) == []


def test_every_construct_fixture_that_builds_follows_the_schema() -> None:
    exports = fixture_exports()
    assert len(exports) > 100  # most cases build; those with errors are only checked
    failures = {name: found[:3] for name, data in exports.items() if (found := errors(data))}
    assert failures == {}


def test_every_key_the_schema_describes_occurs_in_some_export() -> None:
    """Closed objects make every key of an export described; this is the other way round: no key described
    that the compiler never writes (a renamed key left behind)."""
    seen: set[str] = set()

    def keys(node: Any) -> None:
        if isinstance(node, dict):
            seen.update(node)
            for value in node.values():
                keys(value)
        elif isinstance(node, list):
            for value in node:
                keys(value)

    for data in fixture_exports().values():
        keys(data)
    for path in RULESETS:
        keys(json.loads((ROOT / "output" / "json" / f"{path.stem}.json").read_text(encoding="utf-8")))
    described = {name for schema in schemas(JSON_SCHEMA) for name in schema.get("properties", {})}
    assert described - seen == set()


# ---------------------------------------------------------------------------------------------- corruptions


def _roll(data: dict[str, Any]) -> dict[str, Any]:
    roll: dict[str, Any] = next(d for d in data["definitions"] if d["kind"] == "roll" and d["dice"] and d["bands"]
                                and d["odds"])
    return roll


CORRUPTIONS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a mistyped key": lambda d: _roll(d).__setitem__("lable", _roll(d).pop("label")),
    "inputs as a string": lambda d: _roll(d).__setitem__("inputs", "stat"),
    "dice as a number": lambda d: _roll(d).__setitem__("dice", 2),
    "a band without id": lambda d: _roll(d)["bands"][0].pop("id"),
    "a probability as a float": lambda d: _roll(d)["odds"]["rows"][0]["outcomes"][0].__setitem__("probability", 0.5),
    "an unknown kind": lambda d: _roll(d).__setitem__("kind", "spell"),
    "a missing required key": lambda d: d.pop("title"),
    "an extra top-level key": lambda d: d.__setitem__("extra", True),
    "a range bound as text": lambda d: next(b for r in d["definitions"] for b in r.get("bands", ())
                                            if b["ranges"])["ranges"][0].__setitem__("low", "7"),
    "a dice count as a float": lambda d: _roll(d)["dice"][0]["terms"][0].__setitem__("count", 2.0 + 0.5),
    "a boolean for a number": lambda d: next(r for r in d["definitions"] if r["kind"] in ("track", "clock"))
    .__setitem__("start", True),
    "an unknown dice operator": lambda d: _roll(d)["dice"][0]["terms"][0]["ops"].append({"op": "explode_twice"}),
}


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=str)
def test_the_schema_rejects_a_corrupted_export(corruption: str) -> None:
    data = json.loads((ROOT / "output" / "json" / "tides_of_gold.json").read_text(encoding="utf-8"))
    assert errors(data) == []  # whole, it passes
    broken = copy.deepcopy(data)
    CORRUPTIONS[corruption](broken)
    assert broken != data
    assert errors(broken), f"the schema accepts an export with {corruption}"


# ---------------------------------------------------------------------------------------------- structured data


STRUCTURED = '''ruleset "Structured"

die attack "Attack die" [S-0]
  sides: 6
  - hit "Hit"
      count: 2
  - miss "Miss"
      count: 4
      value: 0

roll strike "Strike" [S-1]
  input stat: 0..3 = 1
  input mode: 0..3 = 0
  roll if mode = 0: 3d6 keep highest 2 + 2
  roll if mode = 1: (stat)d6! + 1
  roll if mode = 2: d10! on 9+ at most 2 times
  roll: 2d6 reroll 1-2, 5+
  - natural 3: fumble "Fumble"
  - when total > 40: legend "Legend"
  - 7-9, 12+: hit "Hit"
  - 6 or less: miss "Miss"
  - otherwise: graze "Graze"

roll volley "Volley" [S-2]
  roll: 2 attack + 2d(4 + 2) reroll lowest + 4dF
  - 1+: some "Some"
  - otherwise: none "None"
'''


def structured() -> dict[str, Any]:
    try:
        loaded = load_text(STRUCTURED, "structured.rules", "structured", Report())
    except CompileError as error:  # pragma: no cover - says why, if the rules above stop building
        raise AssertionError(error.report.diagnostics) from None
    data = plain(export_data(loaded.checked))
    assert errors(data) == []
    return data


def test_band_keys_as_data_beside_their_text() -> None:
    strike = next(d for d in structured()["definitions"] if d["name"] == "strike")
    keys = [(b["key"], b["key_kind"], b["ranges"], b["natural"]) for b in strike["bands"]]
    assert keys == [
        ("natural 3", "natural", None, 3),
        ("when total > 40", "when", None, None),
        ("7-9, 12+", "ranges", [{"low": 7, "high": 9}, {"low": 12, "high": None}], None),
        ("6 or less", "ranges", [{"low": None, "high": 6}], None),
        ("otherwise", "otherwise", None, None),
    ]


def test_dice_as_terms_beside_their_text() -> None:
    definitions = {d["name"]: d for d in structured()["definitions"]}
    rules = definitions["strike"]["dice"]
    assert [(r["roll"], r["when"]) for r in rules] == [
        ("3d6 keep highest 2 + 2", "mode = 0"), ("(stat)d6! + 1", "mode = 1"),
        ("d10! on 9+ at most 2 times", "mode = 2"), ("2d6 reroll 1-2, 5+", None)]
    assert [term for r in rules for term in r["terms"]] == [
        {"text": "3d6 keep highest 2", "count": 3, "sides": 6, "die": None, "ops": [{"op": "highest", "count": 2}]},
        {"text": "(stat)d6!", "count": "stat", "sides": 6, "die": None,
         "ops": [{"op": "explode", "on": None, "times": None}]},
        {"text": "d10! on 9+ at most 2 times", "count": 1, "sides": 10, "die": None,
         "ops": [{"op": "explode", "on": 9, "times": 2}]},
        {"text": "2d6 reroll 1-2, 5+", "count": 2, "sides": 6, "die": None,
         "ops": [{"op": "reroll", "faces": [{"low": 1, "high": 2}, {"low": 5, "high": None}]}]},
    ]
    [volley] = definitions["volley"]["dice"]
    assert [(t["count"], t["sides"], t["die"], t["ops"]) for t in volley["terms"]] == [
        (2, 6, "attack", []),
        (2, "4 + 2", None, [{"op": "reroll_lowest", "count": 1}]),
        (4, 3, "dF", []),
    ]
