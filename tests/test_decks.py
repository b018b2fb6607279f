"""Decks: cards drawn without replacement, piles per chapter, cards added unseen, redraws, reshuffles."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.diagnostics import CompileError, Report
from tests.conftest import ROOT, compile_module

SOURCE = '''ruleset "Deck test"

deck events "Events" [FIX-1]
  text: "Draw one at the end of your turn."
  piles: chapter
  - storm "Storm"
      text: "Lose a turn."
      copies: 3
      chapter: 1
  - calm "Calm"
      copies: 2
      chapter: 1
  - kraken "Kraken"
      copies: 4
      chapter: 2

deck loot "Loot" [FIX-2]
  on_empty: reshuffle
  - coin "Coin"
      copies: 5
  - gem "Gem"

deck lost "Lost cards" [FIX-3]
  cards: unknown
'''


def build(tmp_path: Any, text: str) -> tuple[Report, Any]:
    path = tmp_path / "decks.rules"
    path.write_text(text, encoding="utf-8")
    report = Report()
    loaded = load(str(path), report)
    return report, compile_module(generate(loaded.checked), "generated_decks")


@pytest.fixture
def game(tmp_path: Any) -> Any:
    report, module = build(tmp_path, SOURCE)
    assert not report.has_errors
    return module


def test_a_deck_never_draws_the_same_card_twice_before_a_reshuffle(game: Any) -> None:
    for seed in range(50):
        deck = game.DECKS["events"](random.Random(seed))
        drawn = [deck.draw() for _ in range(5)]
        assert len({(c.id, c.copy) for c in drawn}) == 5  # five distinct physical cards: chapter 1's whole pile
        assert Counter(c.id for c in drawn) == {"storm": 3, "calm": 2}
        assert deck.draw() is None and deck.remaining == 0  # empty, and it does not reshuffle by itself
        assert "Events is empty" in deck.events


def test_an_empty_reshuffling_deck_takes_back_only_its_discards(game: Any) -> None:
    deck = game.DECKS["loot"](random.Random(7))
    first = [deck.draw() for _ in range(6)]
    assert Counter(c.id for c in first) == {"coin": 5, "gem": 1}
    for card in first[:4]:
        deck.discard(card)
    again = [deck.draw() for _ in range(4)]
    assert sorted((c.id, c.copy) for c in again) == sorted((c.id, c.copy) for c in first[:4])
    assert deck.draw() is None  # the two cards still in play are never drawn
    assert any("shuffled" in event for event in deck.events)


def test_piles_start_per_chapter_and_cards_added_unseen_wait_for_their_chapter(game: Any) -> None:
    deck = game.DECKS["events"](random.Random(3))
    assert deck.pile == 1 and deck.remaining == 5
    added = deck.add("storm", 2)  # "add a particular card to a future Chapter's deck ... without looking"
    assert (added.id, added.copy, added.pile) == ("storm", 4, 2) and deck.remaining == 5
    deck.start(2)
    drawn = [deck.draw() for _ in range(5)]
    assert Counter(c.id for c in drawn) == {"kraken": 4, "storm": 1}
    deck.start(1)
    assert deck.remaining == 5  # chapter 1's deck is whole again when it is started afresh
    with pytest.raises(ValueError, match="has no pile 9"):
        deck.start(9)
    with pytest.raises(ValueError, match="has no card 'squid'"):
        deck.add("squid")


def test_a_card_added_to_the_deck_in_play_is_shuffled_in(game: Any) -> None:
    deck = game.DECKS["loot"](random.Random(1))
    deck.add("gem")
    assert deck.remaining == 7 and deck.chances()["gem"] == Fraction(2, 7)


def test_redraw_discards_the_card_and_the_new_one_is_final(game: Any) -> None:
    deck = game.DECKS["events"](random.Random(11))
    first = deck.draw()
    second = deck.redraw()
    assert first is not None and second is not None and (first.id, first.copy) != (second.id, second.copy)
    assert deck.discards == [first] and deck.drawn == [second] and deck.remaining == 3


def test_same_seed_same_draws_and_exact_chances(game: Any) -> None:
    def draws(seed: int) -> list[tuple[str, int]]:
        deck = game.DECKS["loot"](random.Random(seed))
        return [(card.id, card.copy) for card in (deck.draw() for _ in range(6)) if card is not None]
    assert draws(5) == draws(5) and len(set(draws(5))) == 6
    assert any(draws(5) != draws(seed) for seed in range(6, 12))
    deck = game.DECKS["loot"](random.Random(5))
    assert deck.chances() == {"coin": Fraction(5, 6), "gem": Fraction(1, 6)}
    deck.draw()
    assert sum(deck.chances().values()) == 1 and deck.remaining == 5


def test_lost_cards_are_reported_and_the_deck_asks_for_them(tmp_path: Any) -> None:
    report, module = build(tmp_path, SOURCE)
    assert any(d.code == "MISSING" and "lost.cards" in d.message for d in report.diagnostics)
    with pytest.raises(ValueError, match="Lost cards has no cards: the document lost them"):
        module.DECKS["lost"]()


def test_placeholder_cards_warn_and_draw(tmp_path: Any) -> None:
    text = SOURCE + '''
errata D-FIX-1 "Lost cards" [FIX-3]
  resolves: MISSING in lost
  text: "PLACEHOLDER, not from the document."
  set lost.cards to placeholder
  add to lost:
    - stand_in "Stand-in card"
        copies: 3
'''
    report, module = build(tmp_path, text)
    assert not report.has_errors
    assert [d.code for d in report.diagnostics if d.severity == "warning"] == ["PLACEHOLDER"]
    deck = module.DECKS["lost"](random.Random(0))
    assert sorted(deck.draw().copy for _ in range(3)) == [1, 2, 3]


@pytest.mark.parametrize("broken, code, words", [
    ("  - storm \"Storm\"\n      copies: 0\n      chapter: 1\n", "TYPE", "copies"),
    ("  - storm \"Storm\"\n      copies: 2\n", "MISSING", "has no `chapter:`"),
])
def test_card_mistakes_are_reported(tmp_path: Any, broken: str, code: str, words: str) -> None:
    text = SOURCE.replace('  - storm "Storm"\n      text: "Lose a turn."\n      copies: 3\n      chapter: 1\n', broken)
    path = tmp_path / "broken.rules"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CompileError) as failed:
        load(str(path), Report())
    assert any(d.code == code and words in d.message and d.span.line == 6 for d in failed.value.report.diagnostics)


def test_the_cli_draws_and_gives_each_cards_chance(capsys: Any) -> None:
    from rulecraft.cli.main import main
    assert main(["roll", str(ROOT / "rulesets" / "everrain.rules"), "sea_event_deck", "chapter=2", "--repeat",
                 "13", "--seed", "4", "--json"]) == 0
    drawn = json.loads(capsys.readouterr().out)
    assert len({card["copy"] for card in drawn["cards"]}) == 13 and drawn["remaining"] == 0
    assert main(["roll", str(ROOT / "rulesets" / "everrain.rules"), "sea_event_deck", "chapter=5"]) == 1
    assert "write chapter=N, one of: 1, 2, 3, 4" in capsys.readouterr().err
    assert main(["odds", str(ROOT / "rulesets" / "everrain.rules"), "treasure_deck", "--json"]) == 0
    odds = json.loads(capsys.readouterr().out)
    assert [(o["label"], o["probability"]) for o in odds["outcomes"]] == [
        ("Commodity", "1/4"), ("Trinket", "1/4"), ("Shanty", "1/4"), ("Relic", "1/4")]
