"""Card sheets: each deck whose cards are known, at a standard card size, each copy of a card once, with cut marks.

The bundled rulesets' decks are all placeholders (Everrain's cards are lost from its document), so the build
gives none of them a card sheet; the tests of the layout print Everrain's placeholder cards as if known (130
cards, the most of any ruleset) and a small game of their own with the longest card text.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path
from typing import Any

import pytest

from rulecraft.api import load
from rulecraft.backends.build import plan
from rulecraft.backends.render import (
    CARD_INSET_MM,
    PAPER_MM,
    card_pages,
    export_data,
    known_decks,
    overfull_cards,
    to_cards_html,
)
from rulecraft.diagnostics import CompileError, Report
from rulecraft.resources import CARD_SIZES
from tests.conftest import ROOT

LONG_TEXT = ("**Sell** it for 3 gold at any Port, or use it once: *reroll* one die of a test, then keep the new "
             "result. The 1<sup>st</sup> Mate may instead give it to a Crew member on the same ship, who keeps "
             "it until the end of the Chapter. ") * 4 + "Discard it after use."
SOURCE = f'''ruleset "Card test"
  author: "A Designer"

deck treasure "Treasure" [FIX-1]
  text: "Draw one when you explore a wreck."
  piles: chapter
  - lantern "Lantern of the Drowned"
      text: "{LONG_TEXT}"
      copies: 2
      chapter: 1
      gold_value: 3
      single_use: yes
  - coin "Coin"
      text: "Worth <script>alert(1)</script> one gold."
      copies: 8
      chapter: 1
      gold_value: 1
  - map "Sea map"
      copies: 1
      chapter: 2

deck lost "Lost cards" [FIX-2]
  cards: unknown

deck stand_ins "Stand-in cards" [FIX-3]
  cards: unknown

errata D-1 "Stand-ins" [FIX-3]
  text: "Placeholder cards, not from the document."
  resolves: MISSING in lost, stand_ins
  set stand_ins.cards to placeholder
  add to stand_ins:
    - stand_in "Stand-in card"
        copies: 4
'''


def game_data(tmp_path: Path, source: str = SOURCE) -> dict[str, Any]:
    path = tmp_path / "cards.rules"
    path.write_text(source, encoding="utf-8")
    return export_data(load(str(path), Report()).checked)


def everrain_as_known() -> dict[str, Any]:
    """Everrain's export with its placeholder decks read as known: 130 cards in four decks, two of them in piles."""
    data = export_data(load(str(ROOT / "rulesets" / "everrain.rules"), Report()).checked)
    for definition in data["definitions"]:
        if definition["kind"] == "deck":
            definition["cards_status"] = "known"
    return data


def expected_pages(data: dict[str, Any], per_page: int) -> int:
    return sum(math.ceil(sum(card["copies"] for card in deck["cards"]) / per_page) for deck in known_decks(data))


def squeezed(text: str) -> str:
    """Text as compared with a PDF's: no markup, no spaces, no hyphens (words break at hyphens on a card)."""
    text = re.sub(r"\*\*|\*|</?sup>", "", text)
    return re.sub(r"[\s\-\u00ad\u2010\x02\ufffe]", "", text)


def test_only_known_decks_are_printed_and_each_copy_once(tmp_path: Path) -> None:
    data = game_data(tmp_path)
    html = to_cards_html(data)
    assert html is not None
    assert [deck["name"] for deck in known_decks(data)] == ["treasure"]
    assert "Stand-in card" not in html and "Lost cards" not in html  # the placeholder and the unknown deck
    assert html.count('<article class="card"') == 2 + 8 + 1
    assert html.count("Lantern of the Drowned</h2>") == 2
    assert '<meta name="author" content="A Designer">' in html


def test_rule_text_is_escaped_and_its_markup_rendered(tmp_path: Path) -> None:
    html = to_cards_html(game_data(tmp_path))
    assert html is not None
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<strong>Sell</strong>" in html and "<em>reroll</em>" in html and "1<sup>st</sup>" in html


def test_values_are_tags_in_words_and_the_pile_is_named(tmp_path: Path) -> None:
    html = to_cards_html(game_data(tmp_path))
    assert html is not None
    assert "<li>Gold value: 3</li>" in html and "<li>Single use</li>" in html and "<li>Chapter 1</li>" in html
    assert "<li>Chapter 2</li>" in html
    assert "gold_value" not in html and "single_use" not in html


@pytest.mark.parametrize(("page", "size", "per_page"), [("a4", "poker", 9), ("letter", "poker", 9),
                                                         ("a4", "bridge", 9), ("letter", "mini", 16)])
def test_cards_are_butted_in_a_grid_with_cut_marks_outside_it(page: str, size: str, per_page: int) -> None:
    data = everrain_as_known()
    pages = card_pages(data, page, size)
    assert len(pages) == expected_pages(data, per_page)
    paper_w, paper_h = PAPER_MM[page]
    width, height = CARD_SIZES[size]
    for sheet in pages:
        xs = sorted({card["x"] for card in sheet["cards"]})
        ys = sorted({card["y"] for card in sheet["cards"]})
        assert len(sheet["cards"]) <= per_page
        assert all(b - a == pytest.approx(width) for a, b in itertools.pairwise(xs))
        assert all(b - a == pytest.approx(height) for a, b in itertools.pairwise(ys))
    first = pages[0]
    left, top = first["cards"][0]["x"], first["cards"][0]["y"]
    right, bottom = left + 3 * width if size != "mini" else left + 4 * width, \
        top + 3 * height if size != "mini" else top + 4 * height
    assert left >= 5 and top >= 5 and paper_w - right >= 5 and paper_h - bottom >= 5  # room for the marks
    cuts_x = {round(left + i * width, 2) for i in range(5)}
    cuts_y = {round(top + i * height, 2) for i in range(5)}
    for x1, y1, x2, y2 in first["marks"]:
        assert min(x1, x2) >= 0 and max(x1, x2) <= paper_w and min(y1, y2) >= 0 and max(y1, y2) <= paper_h
        outside = max(x1, x2) < left or min(x1, x2) > right or max(y1, y2) < top or min(y1, y2) > bottom
        assert outside, (x1, y1, x2, y2)  # never on a card
        assert (x1 == x2 and x1 in cuts_x) or (y1 == y2 and y1 in cuts_y)  # on a cut line
    columns, rows = (4, 4) if size == "mini" else (3, 3)
    assert len(first["marks"]) == 2 * (columns + 1) + 2 * (rows + 1)


def test_the_html_draws_the_marks_and_sizes_the_cards(tmp_path: Path) -> None:
    html = to_cards_html(game_data(tmp_path), page="letter")
    assert html is not None
    assert "@page { size: letter; margin: 0; }" in html
    assert html.count('<line class="cut-mark"') == 2 * (2 * 4 + 2 * 4)  # 11 cards: two pages, 16 marks each
    assert ".card { width: 63.5mm; height: 88.9mm; }" in html


def test_a_ruleset_or_the_command_line_chooses_the_card_size(tmp_path: Path) -> None:
    data = game_data(tmp_path, SOURCE.replace('  author: "A Designer"', '  card_size: "mini"'))
    html = to_cards_html(data)
    assert html is not None and ".card { width: 44.5mm; height: 63.5mm; }" in html
    html = to_cards_html(data, card_size="bridge")
    assert html is not None and ".card { width: 57.2mm; height: 88.9mm; }" in html
    assert overfull_cards(data, "poker") == [] and overfull_cards(data, "mini") == [("treasure", "lantern")]


def test_an_unknown_card_size_is_an_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "cards.rules").write_text(SOURCE.replace('  author: "A Designer"', '  card_size: "tarot"'),
                                          encoding="utf-8")
    report = Report()
    with pytest.raises(CompileError):
        plan([str(tmp_path / "cards.rules")], ["html"], tmp_path / "out", report=report)
    [error] = [d for d in report.diagnostics if d.severity == "error"]
    assert error.code == "TYPE" and error.span.line == 2 and "poker, bridge, mini" in error.message
    assert "'tarot'" in error.message


def test_a_card_too_long_for_any_type_size_is_a_warning_at_the_card(tmp_path: Path) -> None:
    source = SOURCE.replace(LONG_TEXT, LONG_TEXT * 4)
    (tmp_path / "cards.rules").write_text(source, encoding="utf-8")
    report = Report()
    built = plan([str(tmp_path / "cards.rules")], ["html"], tmp_path / "out", report=report)
    [warning] = [d for d in report.diagnostics if d.code == "TOO-LARGE"]
    assert warning.severity == "warning" and "lantern" in warning.message
    assert warning.span.line == source.splitlines().index('  - lantern "Lantern of the Drowned"') + 1
    assert tmp_path / "out" / "html" / "cards.cards.html" in built.files  # printed all the same, and said so


def test_the_build_writes_a_card_sheet_only_for_known_decks(tmp_path: Path) -> None:
    (tmp_path / "cards.rules").write_text(SOURCE, encoding="utf-8")
    targets = [str(tmp_path / "cards.rules"), str(ROOT / "rulesets" / "everrain.rules"),
               str(ROOT / "rulesets" / "dice_ladder.rules")]
    built = plan(targets, ["html", "json"], tmp_path / "out")
    cards = sorted(path.name for path in built.files if ".cards." in path.name)
    assert cards == ["cards.cards.html"]  # everrain's decks are placeholders, dice_ladder has none
    built = plan(targets[:1], ["json"], tmp_path / "out")
    assert not any(".cards." in path.name for path in built.files)  # no sheets asked for, no card sheet


def test_same_source_same_card_sheet(tmp_path: Path) -> None:
    assert to_cards_html(game_data(tmp_path)) == to_cards_html(game_data(tmp_path))
    assert to_cards_html(game_data(tmp_path, 'ruleset "No decks"\n\nrule r "R" [X-1]\n  text: "x"\n')) is None


# ---------------------------------------------------------------- the PDF, read back


def pdf_pages(pdf: bytes) -> list[tuple[tuple[float, float], str, list[tuple[float, float, float, float, str]]]]:
    """Each page's size (pt), text and characters with their boxes in mm from the top left."""
    pdfium = pytest.importorskip("pypdfium2")
    document = pdfium.PdfDocument(pdf)
    pages = []
    for page in document:
        width, height = page.get_size()
        text = page.get_textpage()
        chars = []
        for index in range(text.count_chars()):
            char = text.get_text_range(index, 1)
            if char.strip():
                left, bottom, right, top = text.get_charbox(index)
                mm = 25.4 / 72
                chars.append((left * mm, (height - top) * mm, right * mm, (height - bottom) * mm, char))
        pages.append(((width, height), text.get_text_range(), chars))
    return pages


@pytest.mark.pdf
def test_everrains_decks_print_as_cards_every_label_on_its_page() -> None:
    from rulecraft.backends.render import to_pdf

    data = everrain_as_known()
    html = to_cards_html(data, page="a4")
    assert html is not None
    pages = pdf_pages(to_pdf(html))
    assert len(pages) == expected_pages(data, 9) == 6 + 5 + 2 + 4  # 52, 40, 10 and 28 cards, 9 to a page
    for size, _, _ in pages:
        assert size == pytest.approx((595.28, 841.89), abs=0.5)  # A4
    text = squeezed("".join(page_text for _, page_text, _ in pages))
    for deck in known_decks(data):
        for card in deck["cards"]:
            assert text.count(squeezed(card["label"])) >= card["copies"], card["label"]


@pytest.mark.pdf
def test_the_longest_card_fits_inside_its_border_on_letter(tmp_path: Path) -> None:
    from rulecraft.backends.render import to_pdf

    data = game_data(tmp_path)
    html = to_cards_html(data, page="letter")
    assert html is not None
    pdf = to_pdf(html)
    assert to_pdf(html) == pdf  # same bytes
    pages = pdf_pages(pdf)
    layout = card_pages(data, "letter", "poker")
    assert len(pages) == len(layout) == 2
    for (size, page_text, chars), sheet in zip(pages, layout, strict=True):
        assert size == pytest.approx((612, 792), abs=0.5)  # Letter
        frames = [(card["x"] + CARD_INSET_MM, card["y"] + CARD_INSET_MM, card["x"] + 63.5 - CARD_INSET_MM,
                   card["y"] + 88.9 - CARD_INSET_MM) for card in sheet["cards"]]
        for left, top, right, bottom, char in chars:  # every character inside a card's border
            assert any(x1 - 0.3 <= left and right <= x2 + 0.3 and y1 - 0.3 <= top and bottom <= y2 + 0.3
                       for x1, y1, x2, y2 in frames), (char, left, top)
        for card in sheet["cards"]:
            assert squeezed(card["card"]["label"]) in squeezed(page_text)
            assert squeezed(card["card"]["text"] or "") in squeezed(page_text)
    longest = max((c for d in known_decks(data) for c in d["cards"]), key=lambda c: len(c["text"] or ""))
    assert longest["text"] == LONG_TEXT and len(LONG_TEXT) > 700


def test_the_command_line_chooses_the_card_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rulecraft.cli.main import main

    (tmp_path / "cards.rules").write_text(SOURCE, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["build", str(tmp_path / "cards.rules"), "--format", "html", "--card-size", "mini",
                 "-o", str(out), "-q"]) == 0
    assert ".card { width: 44.5mm; height: 63.5mm; }" in (out / "html" / "cards.cards.html").read_text("utf-8")
    assert main(["build", str(tmp_path / "cards.rules"), "--card-size", "tarot", "-o", str(out)]) != 0
    assert "invalid choice: 'tarot'" in capsys.readouterr().err
