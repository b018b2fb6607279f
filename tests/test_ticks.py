"""Tracks with ticks (`ticks: 4`, `ranks:`), a track's filled boxes as a roll's input (`boxes of vow`), and the
caps of a `let` in words on the sheet.

The track's behaviour is held three ways: the runtime's `TickedTrack` (what the compiler ships), the class
the generated module writes, and a reference written here that counts ticks with plain arithmetic. A progress
roll's odds are held against every throw of 2d10, for every progress score."""

from __future__ import annotations

import itertools
import json
import random
import re
from fractions import Fraction
from typing import Any

import pytest

from rulecraft import model as m
from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data, rank_words, to_html, to_json, to_yaml
from rulecraft.backends.words import Words
from rulecraft.semantics import runtime
from rulecraft.semantics.odds import definition_names
from rulecraft.semantics.odds import odds as compiler_odds
from rulecraft.syntax.parse import parse
from tests.conftest import compile_module

RANKS = (("troublesome", 12), ("dangerous", 8), ("formidable", 4), ("extreme", 2), ("epic", 1))
IRONSWORN = '''ruleset "Iron"

track vow "Vow" [I-1]
  size: 10
  ticks: 4
  ranks:
    troublesome: 12
    dangerous: 8
    formidable: 4
    extreme: 2
    epic: 1
  on_full: "Fulfil your vow"

roll fulfil "Fulfil your vow" [I-2]
  input progress: boxes of vow "Progress"
  roll: 2d10
  - when progress > highest: strong "Strong hit"
  - when progress > lowest: weak "Weak hit"
  - otherwise: miss "Miss"

roll test "Test" [I-3]
  input stat: 1..10 = 8
  input bonus: 0..4 = 0
  let score = min(stat + bonus, 10)
  roll: d12
  - when total <= score: success "Success"
  - otherwise: failure "Failure"
'''


@pytest.fixture(scope="module")
def iron() -> tuple[m.CheckedRuleset, Any]:
    checked = load_text(IRONSWORN, "iron.rules", "iron").checked
    return checked, compile_module(generate(checked), "ticks_iron")


class Reference:
    """Ticks counted by hand: marked ticks stop at the track's end; a box is filled when all its ticks are."""

    def __init__(self, size: int, per_box: int, label: str, on_full: str | None) -> None:
        self.size, self.per_box, self.label, self.on_full, self.count = size, per_box, label, on_full, 0

    def add(self, ticks: int) -> list[str]:
        before = self.count // self.per_box
        self.count = max(0, min(self.size * self.per_box, self.count + ticks))
        after = self.count // self.per_box
        said = [f"{self.label}: {after} of {self.size} boxes filled"] if after != before else []
        if ticks > 0 and self.count == self.size * self.per_box:
            said.append(f"{self.label} is full: {self.on_full}")
        return said


def interpreted(checked: m.CheckedRuleset) -> type[runtime.TickedTrack]:
    """The runtime's class given the checked track's ticks and ranks, as codegen gives them to the module's."""
    track = next(d for d in checked.definitions if isinstance(d, m.Track))
    assert track.ticks is not None

    class Interpreted(runtime.TickedTrack):
        TICKS = track.ticks
        RANKS = track.ranks

    return Interpreted


def test_the_checked_track_holds_its_ticks_and_ranks(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, module = iron
    track = next(d for d in checked.definitions if isinstance(d, m.Track))
    assert (track.ticks, track.ranks, track.size) == (4, RANKS, 10)
    assert (module.Vow.TICKS, module.Vow.RANKS) == (4, RANKS)
    assert issubclass(module.Vow, module.TickedTrack) and "TickedTrack" in module.__all__


@pytest.mark.parametrize("seed", range(6))
def test_marking_and_clearing_agree_with_ticks_counted_by_hand(iron: tuple[m.CheckedRuleset, Any],
                                                                seed: int) -> None:
    checked, module = iron
    rng = random.Random(seed)
    compiled = module.Vow()
    ours = interpreted(checked)(size=10, marked=0, label="Vow", on_full="Fulfil your vow")
    reference = Reference(10, 4, "Vow", "Fulfil your vow")
    for _ in range(60):
        action = rng.choice(["progress", "ticks", "boxes", "clear_ticks", "clear", "clear_all"])
        if action == "progress":
            rank, ticks = rng.choice(RANKS)
            times = rng.randint(0, 3)
            said = [track.progress(rank, times) for track in (compiled, ours)]
            expected = reference.add(ticks * times)
        elif action == "ticks":
            count = rng.randint(-6, 9)
            said = [track.mark_ticks(count) for track in (compiled, ours)]
            expected = reference.add(count)
        elif action == "boxes":
            count = rng.randint(-2, 3)
            said = [track.mark(count) for track in (compiled, ours)]
            expected = reference.add(4 * count)
        elif action == "clear_ticks":
            count = rng.randint(0, 7)
            said = [track.clear_ticks(count) for track in (compiled, ours)]
            expected = reference.add(-count)
        elif action == "clear":
            count = rng.randint(0, 2)
            said = [track.clear(count) for track in (compiled, ours)]
            expected = reference.add(-4 * count)
        else:
            said = [track.clear() for track in (compiled, ours)]
            expected = reference.add(-reference.count)
        assert said == [expected, expected], (action, reference.count)
        for track in (compiled, ours):
            assert track.ticks == reference.count
            assert track.filled == track.marked == reference.count // 4
            assert track.full == (reference.count == 40)
    assert compiled.events == ours.events


def test_an_ironsworn_vow_fills_as_the_rules_say(iron: tuple[m.CheckedRuleset, Any]) -> None:
    _, module = iron
    vow = module.Vow()
    assert vow.progress("troublesome") == ["Vow: 3 of 10 boxes filled"]
    assert vow.progress("epic") == [] and (vow.ticks, vow.filled) == (13, 3)
    assert vow.progress("extreme", 2) == ["Vow: 4 of 10 boxes filled"]  # 17 ticks: four boxes and one tick
    assert vow.progress("dangerous", 3) == ["Vow: 10 of 10 boxes filled", "Vow is full: Fulfil your vow"]
    assert vow.full and vow.ticks == 40
    assert vow.progress("epic") == ["Vow is full: Fulfil your vow"] and vow.ticks == 40  # as Track.mark says
    assert vow.clear_ticks(1) == ["Vow: 9 of 10 boxes filled"] and not vow.full
    assert module.Vow(ticks=17).filled == 4 and module.Vow(marked=2).ticks == 8


def test_a_track_that_starts_again_when_full() -> None:
    class Loop(runtime.TickedTrack):
        TICKS = 3
        RANKS = (("big", 5),)

    rolling = Loop(size=2, label="Loop", roll_over=True)
    # 10 ticks on a track of 6: full, then 4 more from empty
    assert rolling.progress("big", 2) == ["Loop: 2 of 2 boxes filled", "Loop is full", "Loop: 1 of 2 boxes filled"]
    assert rolling.ticks == 4
    reset = Loop(size=2, label="Loop", reset_on_full=True)
    assert reset.progress("big", 2)[-1] == "Loop is full" and reset.ticks == 0


def test_bad_calls_are_value_errors_naming_what_is_allowed(iron: tuple[m.CheckedRuleset, Any]) -> None:
    _, module = iron
    vow = module.Vow()
    with pytest.raises(ValueError, match="Vow has no rank 'hard'; its ranks are troublesome, dangerous, "
                                         "formidable, extreme, epic"):
        vow.progress("hard")
    with pytest.raises(ValueError, match="no rank 8"):
        vow.progress(8)
    with pytest.raises(ValueError, match="times must be"):
        vow.progress("epic", -1)
    with pytest.raises(ValueError, match="ticks must be from 0 to 40, not 41"):
        module.Vow(ticks=41)
    with pytest.raises(ValueError, match="count must be a whole number"):
        vow.mark_ticks(1.5)
    assert vow.ticks == 0


def test_a_progress_roll_is_the_enumeration_of_every_throw(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, module = iron
    resolver = next(r for r in checked.resolvers() if r.name == "fulfil")
    assert resolver.inputs[0].type == m.IntRange(0, 10, resolver.inputs[0].type.span)
    for progress in range(11):
        ways = {"strong": 0, "weak": 0, "miss": 0}
        for a, b in itertools.product(range(1, 11), repeat=2):
            beaten = (progress > a) + (progress > b)
            ways[("miss", "weak", "strong")[beaten]] += 1
        expected = {band: Fraction(n, 100) for band, n in ways.items()}
        assert module.odds("fulfil", progress=progress) == expected
        assert compiler_odds(resolver, {"progress": progress}, definition_names(checked)) == expected
    with pytest.raises(ValueError, match="progress must be from 0 to 10"):
        module.fulfil(progress=11)
    vow = module.Vow(ticks=27)
    result = module.fulfil(progress=vow.filled, rng=random.Random(3))
    assert result.inputs == {"progress": 6}


def test_the_input_says_what_it_counts(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, _ = iron
    data = export_data(checked)
    fulfil = next(d for d in data["definitions"] if d["name"] == "fulfil")
    assert fulfil["inputs"] == [{"name": "progress", "type": "int", "min": 0, "max": 10, "choices": None,
                                 "default": None, "boxes_of": "vow",
                                 "doc": "Progress (filled boxes of Vow: 0 to 10, a box counting once its 4 "
                                        "ticks are marked)"}]


def test_json_and_yaml_carry_ticks_and_ranks(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, _ = iron
    data = export_data(checked)
    vow = json.loads(to_json(data))["definitions"][0]
    assert vow["ticks"] == 4
    assert vow["ranks"] == [{"name": name, "ticks": ticks} for name, ticks in RANKS]
    assert "ticks: 4" in to_yaml(data) and "name: troublesome" in to_yaml(data)
    plain = export_data(load_text('ruleset "P"\ntrack t "T" [P-1]\n  size: 3\n', "p.rules", "p").checked)
    assert (plain["definitions"][0]["ticks"], plain["definitions"][0]["ranks"]) == (None, [])


def test_the_sheet_draws_the_ticks_and_says_the_ranks(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, _ = iron
    html = to_html(export_data(checked))
    track = re.search(r'<svg class="track ticked".*?</svg>', html, re.S)
    assert track is not None and 'aria-label="Vow: 10 boxes of 4 ticks"' in track.group(0)
    assert track.group(0).count("<rect") == 10 and track.group(0).count("<path") == 40
    assert ("Each box holds 4 ticks. Mark progress by rank — troublesome: 3 boxes per progress; dangerous: "
            "2 boxes; formidable: 1 box; extreme: 2 ticks; epic: 1 tick.") in html
    started = to_html(export_data(load_text(IRONSWORN.replace("  size: 10\n", "  size: 10\n  start: 2\n", 1),
                                            "iron.rules", "iron").checked))
    drawn = re.search(r'<svg class="track ticked".*?</svg>', started, re.S)
    assert drawn is not None and drawn.group(0).count('stroke="#1f1f24" stroke-width="1.6"') == 8  # 2 boxes x 4


def test_rank_words_count_boxes_and_ticks() -> None:
    ranks = [{"name": "minor", "ticks": 9}, {"name": "major", "ticks": 3}, {"name": "vast", "ticks": 6}]
    assert rank_words(6, ranks) == "minor: 1 box and 3 ticks per progress; major: 3 ticks; vast: 1 box"
    assert rank_words(1, [{"name": "one", "ticks": 1}, {"name": "two", "ticks": 2}]) == \
        "one: 1 box per progress; two: 2 boxes"


LET_WORDS = [
    ("min(stat + bonus, 10)", "stat + bonus, at most 10"),
    ("min(10, stat + bonus)", "stat + bonus, at most 10"),
    ("max(stat - 3, 0)", "stat − 3, at least 0"),
    ("clamp(a + b, 1, 10)", "a + b, from 1 to 10"),
    ("clamp(a - b, -2, 2)", "a − b, from −2 to 2"),
    ("max(min(x, 10), 0)", "x, from 0 to 10"),
    ("min(min(x, 10), 8)", "x, at most 8"),
    ("clamp(x, 1, cap)", "x, from 1 to cap"),
    ("min(a, b)", "the lower of a and b"),
    ("max(a, b, c)", "the highest of a, b and c"),
    ("min(a, b, 6)", "the lower of a and b, at most 6"),
    ("min(x, 10) + 2", "(x, at most 10) + 2"),
    ("a if x = 1 else max(a, 0)", "a if x is 1, else (a, at least 0)"),
    ("enhanced - impaired", "enhanced − impaired"),
    ("total % 2 = 0", "total is even"),
    ("count(6) >= 2 and not zero_dice", "at least 2 dice show 6 and not zero dice"),
    ("sign(difference) * 2", "the sign of difference (+1 or −1) × 2"),
    ("advantage_token", "advantage token"),
]


@pytest.mark.parametrize(("expr", "words"), LET_WORDS)
def test_a_let_reads_its_caps_in_words(expr: str, words: str) -> None:
    ruleset = parse(f'ruleset "L"\nformula f "F" [L-1]\n  let v = {expr}\n  value: v\n', "l.rules")
    assert Words().expr(ruleset.items[0].lets[0].expr) == words


def test_a_formula_shows_its_capped_value_in_words() -> None:
    text = 'ruleset "F"\nformula f "F" [F-1]\n  input a: 0..9 = 1\n  value: clamp(a - 2, -2, 2)\n'
    data = export_data(load_text(text, "f.rules", "f").checked)
    assert (data["definitions"][0]["value"], data["definitions"][0]["value_words"]) == \
        ("clamp(a - 2, -2, 2)", "a − 2, from −2 to 2")
    html = to_html(data)
    assert "<strong>a − 2, from −2 to 2</strong>" in html and "clamp(" not in html


def test_the_sheet_shows_a_capped_score_in_words(iron: tuple[m.CheckedRuleset, Any]) -> None:
    checked, _ = iron
    data = export_data(checked)
    test = next(d for d in data["definitions"] if d["name"] == "test")
    assert test["lets"] == [{"name": "score", "expr": "min(stat + bonus, 10)", "words": "stat + bonus, at most 10"}]
    for sheet in ("player", "proof", "core"):
        html = to_html(data, sheet=sheet)
        assert '<p class="lets"><span class="let"><b>Score</b>: stat + bonus, at most 10</span></p>' in html
        assert not re.search(r"\b(min|max|clamp)\(", re.sub(r"<style.*?</style>", "", html, flags=re.S))
