"""The printed sheets: paper size, running headers, contents with page numbers, valid pictures, no requests."""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path
from xml.etree import ElementTree

import pytest
from markupsafe import escape

from rulecraft.api import load
from rulecraft.backends.render import core_rolls, export_data, to_html
from tests.conftest import ROOT, RULESET_IDS, SHEET_KINDS

MM_PER_PX = 25.4 / 96


@pytest.fixture(scope="module")
def data() -> dict[str, object]:
    return export_data(load(str(ROOT / "rulesets" / "tides_of_gold.rules")).checked)


@pytest.mark.parametrize("page, width_mm, height_mm", [("a4", 210, 297), ("letter", 215.9, 279.4)])
def test_the_sheet_prints_on_the_paper_asked_for(page: str, width_mm: float, height_mm: float) -> None:
    from weasyprint import HTML

    small = export_data(load(str(ROOT / "tests" / "fixtures" / "dice_forms.rules")).checked)
    pages = HTML(string=to_html(small, page=page)).render().pages
    assert pages and all(abs(p.width * MM_PER_PX - width_mm) < 0.5 and abs(p.height * MM_PER_PX - height_mm) < 0.5
                         for p in pages)


def test_an_unknown_paper_size_is_refused_with_the_choices(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="page size is one of a4, letter, not 'a5'"):
        to_html(data, page="a5")


def test_running_headers_and_contents_page_numbers_come_from_the_sheet(data: dict[str, object]) -> None:
    html = to_html(data)
    # The header's game and section names are taken from the page's own headings (CSS string-set) ...
    assert '<h1 data-running="Tides of Gold v3.0">' in html
    sections = [s["title"] for s in data["sections"]]  # type: ignore[index, union-attr]
    for title in sections:
        assert f'data-running="{escape(title)}"' in html
    assert "h2.section-title .running { string-set: section attr(data-running); }" in html
    assert "@top-right { content: string(section, start)" in html
    # ... and each contents line points at its section, whose page number the PDF fills in.
    assert "target-counter(attr(href), page)" in html
    assert html.count('<li><a href="#section-') == len(sections)


def test_a_template_edited_while_the_process_runs_is_rendered_anew(tmp_path: Path) -> None:
    """`rulecraft watch` renders every sheet in one process: a designer's edited template (here a theme's
    sheet.html.j2) is compiled again, not taken from the templates the process already compiled."""
    small = export_data(load(str(ROOT / "tests" / "fixtures" / "dice_forms.rules")).checked)
    original = (ROOT / "templates" / "sheet.html.j2").read_text(encoding="utf-8")
    assert "<body" in original
    theme = tmp_path / "theme"
    theme.mkdir()
    template = theme / "sheet.html.j2"
    template.write_text(original.replace("<body", "<!-- first -->\n<body", 1), encoding="utf-8")
    assert "<!-- first -->" in to_html(small, theme)
    template.write_text(original.replace("<body", "<!-- second -->\n<body", 1), encoding="utf-8")
    later = template.stat().st_mtime + 2  # a file system that keeps whole seconds sees the change too
    os.utime(template, (later, later))
    html = to_html(small, theme)
    assert "<!-- second -->" in html and "<!-- first -->" not in html


# ---------------------------------------------------------------- what the sheets hold (rendered now, every kind)

INVENTORY = ROOT.parent / "shared" / "inventory.md"
SHEETS = [(rid, sheet, page) for rid in RULESET_IDS for sheet, page in SHEET_KINDS]
SHEET_IDS = [".".join(key) for key in SHEETS]
FONTS = ROOT / "templates" / "fonts"


def article(html: str, name: str) -> str:
    """The card with id `name` on a sheet, as HTML."""
    found = re.search(rf'<article[^>]* id="{name}">.*?</article>', html, re.S)
    assert found is not None, name
    return found.group(0)


def visible_text(html: str) -> str:
    """What a reader sees: the body without its tags, entities decoded (SVG labels included)."""
    body = re.sub(r"<style>.*?</style>|<title>.*?</title>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.mark.parametrize("key", SHEETS, ids=SHEET_IDS)
def test_every_picture_is_valid_svg(sheet_html: dict[tuple[str, str, str], str], key: tuple[str, str, str]) -> None:
    """Each inline <svg> parses as XML on its own, with a viewBox and an accessible label. (Errant's core sheet
    draws none: its one chart is the Check's grid, a table.)"""
    pictures = re.findall(r"<svg\b.*?</svg>", sheet_html[key], flags=re.S)
    assert pictures or 'class="chance-grid"' in sheet_html[key], f"{key} draws no pictures"
    for svg in pictures:
        element = ElementTree.fromstring(svg.replace("&nbsp;", "&#160;"))
        assert element.tag == "svg" and element.get("viewBox"), svg[:80]
        assert element.get("role") == "img" and element.get("aria-label"), svg[:80]


@pytest.mark.parametrize("key", SHEETS, ids=SHEET_IDS)
def test_a_sheet_is_one_file_that_requests_nothing(sheet_html: dict[tuple[str, str, str], str],
                                                   key: tuple[str, str, str]) -> None:
    html = sheet_html[key]
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?(?:https?:)?//""", html, flags=re.I)
    assert not re.search(r"""url\(\s*(?!["']?(?:data:|#))""", html, flags=re.I)  # fonts are inlined: data: only
    assert not re.search(r"@import|<link\b|<script\b|<iframe\b", html, flags=re.I)
    assert html.count("@font-face") >= 6 and "data:font/woff2;base64," in html


@pytest.mark.parametrize("key", SHEETS, ids=SHEET_IDS)
def test_a_sheet_reads_on_a_phone(sheet_html: dict[tuple[str, str, str], str], key: tuple[str, str, str]) -> None:
    """Narrow screens get one column, and a wide table scrolls inside its own box instead of the page."""
    html = sheet_html[key]
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    phone = re.search(r"@media screen and \(max-width: 40rem\) \{(.*?)\n\}", html, flags=re.S)
    assert phone, "no rules for narrow screens"
    assert re.search(r"\.cards\b[^{]*\{[^}]*column-count: 1", phone.group(1))
    assert re.search(r"\.table-wrap \{[^}]*overflow-x: auto", phone.group(1))
    assert re.search(r"(?m)^svg \{[^}]*max-width: 100%", html)
    tables = html.count("<table")
    assert tables and html.count('<div class="table-wrap"><table') == tables


@pytest.mark.parametrize("key", SHEETS, ids=SHEET_IDS)
def test_every_character_of_a_sheet_is_in_the_embedded_fonts(sheet_html: dict[tuple[str, str, str], str],
                                                              key: tuple[str, str, str]) -> None:
    """No character falls back to a font of the reader's machine (and none is missing from the PDF)."""
    from fontTools.ttLib import TTFont

    covered: set[int] = set()
    for font in FONTS.glob("*.woff2"):
        covered |= set(TTFont(font).getBestCmap())
    generated = "0123456789 /.•◦"  # page numbers, contents leaders, list markers
    needed = {c for c in visible_text(sheet_html[key]) + generated if not c.isspace()}
    assert sorted(c for c in needed if ord(c) not in covered) == []


def test_the_fonts_are_few_small_and_licensed() -> None:
    files = sorted(FONTS.glob("*.woff2"))
    assert len(files) == 9 and sum(f.stat().st_size for f in files) < 200_000
    assert (FONTS / "OFL.txt").is_file() and (FONTS / "README.md").is_file()
    css = (ROOT / "templates" / "fonts.css").read_text(encoding="utf-8")
    assert sorted(re.findall(r'url\("fonts/([^"]+)"\)', css)) == [f.name for f in files]


def test_a_sheet_is_the_same_bytes_every_time(sheet_html: dict[tuple[str, str, str], str]) -> None:
    data = export_data(load("dice_ladder").checked)
    for sheet, page in SHEET_KINDS:
        assert to_html(data, page=page, sheet=sheet) == sheet_html["dice_ladder", sheet, page]


def test_the_core_sheet_holds_the_rolls_and_nothing_else(sheet_html: dict[tuple[str, str, str], str]) -> None:
    data = export_data(load("tides_of_gold").checked)
    html = sheet_html["tides_of_gold", "core", "a4"]
    rolls = [d["name"] for d in core_rolls(data["definitions"])]  # the main rolls, in order: what fits one page
    cards = re.findall(r'<article class="card kind-(\w+)[^"]*" id="(\w+)"', html)
    assert cards == [("roll", name) for name in rolls] and "action_roll" in rolls
    assert '<body class="sheet-core">' in html and 'class="section cols-3"' in html
    assert "<nav" not in html and 'id="errata"' not in html and 'href="#erratum-' not in html


@pytest.mark.skipif(not INVENTORY.is_file(), reason="needs ../shared/inventory.md")
def test_every_inventory_item_is_on_a_sheet(sheet_html: dict[tuple[str, str, str], str]) -> None:
    items = re.findall(r"^#### ((?:TOG|WW|LAD|ERR|EVR)-\d+):", INVENTORY.read_text(encoding="utf-8"), flags=re.M)
    assert len(items) == 225
    text = " ".join(visible_text(html) for (_, sheet, _), html in sheet_html.items() if sheet == "proof")
    cited = set(re.findall(r"\b(?:TOG|WW|LAD|ERR|EVR)-\d+\b", text))
    assert sorted(set(items) - cited) == []


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_the_players_sheet_holds_nothing_meant_for_the_designer(rid: str,
                                                               sheet_html: dict[tuple[str, str, str], str]) -> None:
    """Citations, errata, the file and its hash, placeholders and values the document leaves out: on the
    designer's proof, never on the player's sheet (nor on the core sheet, a player's too)."""
    proof = visible_text(sheet_html[rid, "proof", "a4"])
    cited = re.compile(r"\b(?:TOG|WW|LAD|ERR|EVR)-\d+\b|\blines? \d+|\bD-[A-Z]+-\d+\b|sha256|\.rules\b")
    assert cited.search(proof) and "Errata" in proof  # the proof has them: the test below can fail
    for sheet, page in (("player", "a4"), ("core", "a4")):
        html = sheet_html[rid, sheet, page]
        text = visible_text(html)
        assert cited.findall(text) == [], (sheet, cited.findall(text)[:5])
        assert 'class="cite"' not in html and 'id="errata"' not in html and 'class="placeholder"' not in html
        assert not re.search(r"\bunknown\b|not given in the document|to be supplied", text)


CODE_ON_THE_PAGE = re.compile(r"\w_\w|==|\bclamp\(|\bsign\(|\bmin\(|\bmax\(|\*\*\w[^*]*\*\*|<sup>|\\[A-Za-z]{2,}")


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_a_players_sheet_reads_in_words_never_code(rid: str, sheet_html: dict[tuple[str, str, str], str]) -> None:
    """No identifier (a word with an underscore), no `==`, `clamp(`, `sign(`, no markup shown as typed: the
    conditions, formulas, dice and values are set in words, and rule text's markup is rendered."""
    for sheet, page in (("player", "a4"), ("core", "a4")):
        text = visible_text(sheet_html[rid, sheet, page])
        assert [text[max(0, f.start() - 40):f.end() + 20] for f in CODE_ON_THE_PAGE.finditer(text)] == []


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_every_sheet_names_its_game(rid: str, sheet_html: dict[tuple[str, str, str], str]) -> None:
    """A real title, as the document calls itself or as the designer titles it (an erratum says which): never
    "Untitled ...", never a title that does not say of what ("Core Quick Reference")."""
    title = load(rid).checked.title
    assert not re.match(r"untitled|core quick reference$", title, flags=re.I)
    assert f"<h1 data-running=\"{escape(title)}\">" in sheet_html[rid, "player", "a4"]


CORE = '''ruleset "C"

roll small "Small" [C-1]
  roll: d6
  - 4+: hit "Hit"
  - otherwise: miss "Miss"

roll main "Main roll" [C-2]
  core: yes
  roll: 2d6
  - 7+: hit "Hit"
  - otherwise: miss "Miss"
'''


def test_the_core_sheet_holds_the_rolls_marked_core_else_those_that_fit() -> None:
    from rulecraft.api import load_text
    from rulecraft.backends.render import CORE_LINES, card_lines
    from rulecraft.diagnostics import CompileError

    data = export_data(load_text(CORE, "c.rules", "c").checked)
    assert [d["name"] for d in core_rolls(data["definitions"])] == ["main"]
    html = to_html(data, sheet="core")
    assert 'id="main"' in html and 'id="small"' not in html
    unmarked = export_data(load_text(CORE.replace("  core: yes\n", ""), "c.rules", "c").checked)
    assert [d["name"] for d in core_rolls(unmarked["definitions"])] == ["small", "main"]
    many = [dict(d, name=f"r{n}") for n in range(60) for d in unmarked["definitions"][:1]]
    chosen = core_rolls(many, "letter")
    assert 1 <= len(chosen) < 60 and sum(card_lines(d) for d in chosen) <= CORE_LINES["letter"]
    with pytest.raises(CompileError, match="`core:` is yes or no"):
        load_text(CORE.replace("core: yes", "core: 3"), "c.rules", "c")


def test_on_a_screen_cards_read_row_by_row_a_dark_mode_and_charts_speak_their_numbers(
        sheet_html: dict[tuple[str, str, str], str]) -> None:
    """Issue 25, item 10: a screen lays the cards in a grid read row by row (no scrolling back up for the next
    column) that uses the window's width, a dark mode where the system asks for one, and each chart's label
    gives a screen reader the numbers the bars draw."""
    html = sheet_html["tides_of_gold", "player", "a4"]
    css = re.search(r"<style>(.*?)</style>", html, flags=re.S)
    assert css is not None
    screen = css.group(1)[css.group(1).index("@media screen {"):]
    assert "display: grid" in screen and "grid-template-columns: repeat(auto-fill" in screen
    assert "@media screen and (prefers-color-scheme: dark)" in css.group(1)
    label = re.search(r'<svg class="bars"[^>]*aria-label="([^"]+)"', html)
    assert label is not None and re.search(r"Odds by dots: dots 0: Failure \d+%, Costly \d+%", label.group(1))


@pytest.mark.pdf
def test_a_roll_card_is_never_split_across_columns_or_pages() -> None:
    """Issue 25, item 7, on a printed sheet: every roll card's (and every rolled table's with a chart, or of a
    dozen rows or fewer, as is a lookup's) title and the last of its band labels are on one page and in one column
    (a roll's dice, bands and odds are read at once). The dice ladder's reactions table was split across two
    columns and a page, Errant's downtime events left "1 Encounter" alone at a column's foot, and the dice
    ladder's rounds left "Traveling" at the head of the next column."""
    import pypdfium2 as pdfium

    from rulecraft.backends.player import chart, player_cards, says_something
    from rulecraft.backends.render import ROLLED_TABLE_ROWS, to_pdf

    for rid in ("tides_of_gold", "dice_ladder", "errant"):
        data = export_data(load(rid).checked)
        document = pdfium.PdfDocument(to_pdf(to_html(data)))
        pages = [page.get_textpage().get_text_range() for page in document]
        read_at_once = [d for d in player_cards(data["definitions"]) if d.get("bands") and says_something(d) and (
            d["kind"] == "roll" or chart(d.get("odds")) is not None
            or (d["kind"] in ("table", "lookup") and len(d["bands"]) <= ROLLED_TABLE_ROWS))]
        assert any(d["kind"] == "table" for d in read_at_once) or rid != "dice_ladder"
        for roll in read_at_once:
            first, last = (band["label"].replace("*", "").casefold() for band in (roll["bands"][0], roll["bands"][-1]))
            title = roll.get("run_in", roll["label"])  # a card's words that open with its name head it
            found = [n for n, text in enumerate(pages)
                     if title in text and first in text.casefold() and last in text.casefold()]
            assert found, f"{rid} {roll['name']}: its title and first and last bands are not on one page"


def test_the_players_sheet_says_each_thing_once() -> None:
    """A rule text or band text an earlier card printed is not printed again (the proof keeps every copy); a
    card left with nothing of its own is left off; an input's description is given once; a tag the band's words
    already say is dropped."""
    from rulecraft.api import load_text
    from rulecraft.backends.player import said_once

    source = '''ruleset "S"

rule contest_rule "Contests" [S-1]
  text: "You each roll a die. The highest wins."

rule again "Again" [S-2]
  text: "You each roll a die."

roll contest "Contest" [S-3]
  text: "You each roll a die. The highest wins."
  input bonus: 0..2 = 0 "Your bonus"
  roll: d6 + bonus
  - 4+: win "You win, but you face a complication."
      complication: yes
      won: yes
  - otherwise: lose "You lose."

roll other "Other" [S-4]
  input bonus: 0..2 = 0 "Your bonus"
  roll: d6 + bonus
  - 4+: win "You win, but you face a complication."
  - otherwise: lose "You lose."

table event "Event" [S-5]
  roll: d6
  - 1-3: "You lose."
  - 4-6: "You win, but you face a complication."
'''
    data = export_data(load_text(source, "s.rules", "s").checked)
    said = {d["name"]: d for d in said_once(data["definitions"])}
    assert said["again"]["text"] is None and said["again"]["said_in"]["name"] == "contest_rule"
    assert said["contest"]["text"] is None and said["contest"]["said_in"]["label"] == "Contests"
    assert said["contest"]["bands"][0]["values"] == {"won": True}  # "complication" is in its words
    assert said["other"]["bands"][0]["text"] is None and said["other"]["inputs"][0]["doc"] is None
    # a row named by nothing but its key keeps its words, said before or not: the table is not left blank
    assert [band["text"] for band in said["event"]["bands"]] == ["You lose.", "You win, but you face a complication."]
    player, proof = to_html(data), to_html(data, sheet="proof")
    # the player's sheet opens with the main roll (contest), said in full: the rule cards that only repeat it
    # go, and a link to one comes to the card that says its words
    assert not re.search(r'<article[^>]* id="(again|contest_rule)"', player) and 'id="again"' in proof
    assert re.search(r'<article[^>]* id="contest">\s*<span id="contest_rule"></span><span id="again"></span>', player)
    assert player.count("You each roll a die. The highest wins.") == 1
    assert player.count("You face a complication.") == 0  # the shared outcomes are printed once, and the table
    assert player.count("you face a complication.") == 2 and proof.count("you face a complication.") == 3


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_the_players_sheet_opens_with_the_main_roll(rid: str, sheet_html: dict[tuple[str, str, str], str]) -> None:
    """Issue 25, item 6: a player finds the main roll at once: the first roll marked `core: yes` (else the first
    roll) opens the sheet, moved there from its section, not printed twice; the proof keeps the rules' order."""
    from rulecraft.backends.player import main_roll

    main = main_roll(export_data(load(rid).checked)["definitions"])
    assert main is not None
    html = sheet_html[rid, "player", "a4"]
    opening = html.index('<section class="section main-roll')
    assert html.index(f'id="{main["name"]}"') > opening and html.count(f'id="{main["name"]}"') == 1
    assert opening < html.index('<section class="section cols-')
    assert 'class="section main-roll' not in sheet_html[rid, "proof", "a4"]
    if rid == "wyrd_wolds":
        assert main["name"] == "action_roll"  # marked core: its sixth section, page 7 before


PLAIN = '''ruleset "P"

section "Tests"

rule tests "Tests" [P-1]
  text: "Roll a test when the outcome is uncertain."

roll test "Test" [P-2]
  text: "Roll a d6 against the difficulty."
  input dn: 1..6 = 4 "Difficulty number"
  roll: d6
  - when total >= dn: pass "If you meet or exceed the difficulty number, the test passes."
      passed: yes
  - otherwise: fail "Fail"

section "Moves"

rule move "Move" [P-3]
  text: "Move as you will: slowly or quickly. When you move quickly you take a risk."

lookup pace "Pace" [P-4]
  input how: one of slowly "Moving slowly", quickly "Moving quickly" = slowly "How you move"
  key: how
  - slowly: "Moving slowly"
  - quickly: "When you move quickly you take a risk."
      risk: yes

list steps "Steps" [P-5]
  count: 2
  - sort: "Sort the pieces into piles."
  - deal: "Hand out the cards."
      see: test

roll surprise "Surprise" [P-6]
  input dn: 1..6 = 4 "Difficulty number"
  roll: d6
  - when total >= dn: pass "If you meet or exceed the difficulty number, the test passes."
      passed: yes
  - otherwise: fail "Fail"
'''


def test_the_players_sheet_prints_the_words_not_the_machinery() -> None:
    """The player's sheet keeps the document's words and the odds: no inputs, no data that words say, no key
    that the band's words or name say, no entry name its words start with, a card named as its section not named
    twice, and a roll whose outcomes and odds another roll printed points to it. The proof keeps all of it."""
    from rulecraft.api import load_text
    from rulecraft.backends.player import player_cards

    data = export_data(load_text(PLAIN, "p.rules", "p").checked)
    cards = {d["name"]: d for d in player_cards(data["definitions"])}
    test = cards["test"]
    assert test["inputs"] == [] and test["bands"][0]["values"] == {} and test["bands"][0]["key_words"] == ""
    assert cards["pace"]["bands"][0]["key_words"] == ""  # "slowly" is in "Moving slowly"
    assert cards["pace"]["bands"][1]["text"] is None and cards["pace"]["bands"][1]["said"]  # said by "Move"
    assert cards["steps"]["details"] == {}  # count: 2, which its entries say
    sort, deal = cards["steps"]["entries"]
    assert sort["label"] is None and deal["label"] == "Deal" and deal["values"] == {"see": {"expr": "test",
                                                                                           "words": "Test"}}
    assert cards["surprise"]["bands"] == [] and cards["surprise"]["outcomes_as"]["name"] == "test"
    player, proof = to_html(data), to_html(data, sheet="proof")
    title = '<h3 class="card-title" data-bookmark="Tests">'
    assert title not in player and title in proof  # the banner names it: the card does not again
    assert "Difficulty number" not in player and "Difficulty number" in proof
    assert '→ <a href="#test">Test</a>' in player and 'see: <a href="#test">Test</a>' in proof
    assert "Outcomes and odds: see" in player and "Outcomes and odds" not in proof
    assert 'class="value">Passed' not in player and "Passed" in proof


POINTERS = '''ruleset "L"

section "Ship"

rule loyalty "Loyalty track" [L-1]
  text: "Loyalty falls by one when a Crew member dies, and the Crew mutinies at zero."

rule exploring "Exploring" [L-2]
  text: "Roll the Attack die to explore."

list dashboard "Dashboard" [L-3]
  - loyalty: "Loyalty track - This is used to track the loyalty of your Crew."
      see: loyalty
  - attack: "Roll it when you fight."
      label: "Attack"
      see: attack_die
  - mutiny: "The Crew mutinies when the track is empty."
      see: loyalty
  - lost: "A lost rule."
      see: lost

rule attack_die "Attack die" [L-4]
  text: "Roll the Attack die"

rule lost "Lost" [L-5]
  text: unknown
'''


def test_a_see_says_no_more_than_a_player_needs() -> None:
    """A `see:` whose card the entry's name or first words name makes that name the link; a card pointed to
    again in one list is named once; a card the sheet leaves off is not pointed to; and a card with nothing but
    a pointer to the card that says its words is left off, links to it going to that card."""
    from rulecraft.api import load_text

    data = export_data(load_text(POINTERS, "l.rules", "l").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")
    assert '<a href="#attack_die"><b>Attack</b></a>' in player  # its name, the link
    assert 'of your Crew. <a class="see-mark" href="#loyalty" aria-label="See Loyalty track">' in player
    assert player.count(">Loyalty track</a>") == 0 and proof.count(">Loyalty track</a>") == 2
    assert 'href="#lost"' not in player and "see: " not in player.replace("see: <a", "")
    # "Roll the Attack die" is said by "Exploring": its card goes, and its name leads there
    assert not re.search(r'<article[^>]* id="attack_die"', player)
    assert re.search(r'<article[^>]* id="exploring">\s*<span id="attack_die"></span>', player)


def test_an_options_row_is_named_by_the_options_name() -> None:
    """A lookup keyed by an option prints the option's name ("10’"), never its identifier (`ft10`), and once
    where the row's name is the same."""
    from rulecraft.api import load_text
    from rulecraft.backends.player import player_cards

    source = '''ruleset "F"

type height: one of ft10 "10’" (1), ft20 "20’" (2)

lookup fall "Fall damage" [F-1]
  input drop: height = ft10 "Height"
  key: drop
  - ft10: "1D6"
      label: "10’"
  - ft20: "2D6"
'''
    bands = {d["name"]: d for d in player_cards(export_data(load_text(source, "f.rules", "f").checked)["definitions"])}
    assert [band["key_words"] for band in bands["fall"]["bands"]] == ["", "20’"]
    assert "ft10" not in to_html(export_data(load_text(source, "f.rules", "f").checked))


def test_data_every_row_has_is_set_in_columns() -> None:
    """A table whose rows all carry the same data (a lock's sequence and state) heads a column with each name
    once, rather than naming it on every row; rows that differ keep their tags."""
    from rulecraft.api import load_text

    rows = "\n".join(f'  - {n}: "Lock {n}"\n      sequence: "Tap, Turn"\n      state: "Spiked"' for n in range(1, 5))
    source = f'ruleset "K"\n\ntable locks "Locks" [K-1]\n  roll: d4\n{rows}\n'
    player = to_html(export_data(load_text(source, "k.rules", "k").checked))
    assert "<th>Sequence</th><th>State</th>" in player and "sequence:" not in player.casefold()
    assert player.count('<td class="datum">Spiked</td>') == 4
    # a track every row sets, each to its own value: a column under the track's name
    moods = "\n".join(f'  - {n}: "Mood {n}"\n      set mood {n}' for n in range(1, 4))
    sets = f'ruleset "K"\n\ntrack mood "Mood" [K-2]\n  size: 3\n\ntable meet "Meet" [K-3]\n  roll: d3\n{moods}\n'
    player = to_html(export_data(load_text(sets, "k.rules", "k").checked))
    assert "<th>→ Mood</th>" in player and "Mood to" not in player
    assert [cell for cell in re.findall(r'<td class="datum">(\d)</td>', player)] == ["1", "2", "3"]
    player = to_html(export_data(load_text(sets.replace("set mood 3", "mark mood 1"), "k.rules", "k").checked))
    assert "<th>→ Mood</th>" not in player and "Mood to 1" in player
    # a datum most rows carry is a column still, a row without it an empty cell; one that half carry is a tag
    uneven = source.replace('      state: "Spiked"\n  - 2', '  - 2', 1)
    player = to_html(export_data(load_text(uneven, "k.rules", "k").checked))
    assert "<th>Sequence</th><th>State</th>" in player and player.count('<td class="datum"></td>') == 1
    half = uneven.replace('      state: "Spiked"\n  - 3', '  - 3', 1)
    player = to_html(export_data(load_text(half, "k.rules", "k").checked))
    assert "<th>State</th>" not in player and "state:" in player.casefold() and "<th>Sequence</th>" in player
    # a row whose words are a sentence keeps its datum in the column (Errant's pace beside "+1 positive Event Die.")
    worded = source.replace('"Lock 2"', '"Lock 2 opens with a long sequence of turns."')
    player = to_html(export_data(load_text(worded, "k.rules", "k").checked))
    assert player.count('<td class="datum">Spiked</td>') == 4
    # a row named by the number a datum of it is says it ("1" — Minor Advantage, `size: 1`)
    sized = 'ruleset "K"\n\nlookup goals "Goals" [K-4]\n  input goal: 1..2 = 1 "Goal"\n  key: goal\n' + "".join(
        f'  - {n}: "Advantage {n}"\n      label: "{n}"\n      size: {n}\n' for n in (1, 2))
    player = to_html(export_data(load_text(sized, "k.rules", "k").checked))
    assert ">size:" not in player.casefold() and "Advantage 2" in player


def test_a_condition_that_forbids_every_roll_says_so() -> None:
    from rulecraft.api import load_text

    source = 'ruleset "D"\n\nroll test "Test" [D-1]\n  roll: d6\n  - 4+: pass\n  - otherwise: fail\n\n' \
             'condition dead "Dead" [D-2]\n  forbids: all\n'
    data = export_data(load_text(source, "d.rules", "d").checked)
    assert "<dt>Forbids</dt> <dd>every roll</dd>" in to_html(data)
    assert "<dt>Forbids</dt> <dd>all</dd>" in to_html(data, sheet="proof")


def test_every_link_on_a_sheet_leads_to_something_on_it(sheet_html: dict[tuple[str, str, str], str]) -> None:
    """A `see:`, a "See X" and an "Outcomes and odds: see X" link to a card the sheet prints (or the card that
    says its words): the core sheet's links stay among its own rolls."""
    for key, html in sheet_html.items():
        ids = set(re.findall(r'\bid="([^"]+)"', html))
        assert set(re.findall(r'href="#([^"]+)"', html)) <= ids, key


RESTATED = '''ruleset "R"

section "Rolls"

roll test "Test" [R-1]
  text: "Roll your die, one step up per skill."
  input die: 4..12 = 6
  input skills: 0..3 = 0
  let sides = die + 2 * skills
  roll: d(sides)
  words:
    roll: "Your die, one step up per skill"
  - 4+: pass "Pass"
  - otherwise: fail "Fail"

lookup pace "Pace" [R-2]
  input how: one of slowly "Moving slowly", quickly "Moving quickly" = slowly
  key: how
  - slowly: "Moving slowly"
  - quickly: "Moving quickly"

lookup reach "Reach" [R-3]
  input size: 1..3 = 1
  key: size
  - 1: near "Near"
  - otherwise: far "Far"

track hp "HP" [R-4]
  text: "Harm subtracts from HP. Once out of HP, harm becomes critical harm."
  size: 6
  on_full: "Once out of HP, harm becomes critical harm."
'''


def test_the_players_sheet_prints_no_machinery_the_words_restate() -> None:
    """A let named only by the expressions behind worded dice is not printed; a lookup keyed by one input whose
    rows are its options has no "by how" (but a lookup by numbers keeps its "by size"); a track's words for when
    it is full that its text holds are not printed again. The proof keeps all of it."""
    from rulecraft.api import load_text
    from rulecraft.backends.player import player_cards

    data = export_data(load_text(RESTATED, "r.rules", "r").checked)
    cards = {d["name"]: d for d in player_cards(data["definitions"])}
    assert cards["test"]["lets"] == [] and cards["pace"]["key_words"] == ""
    assert cards["reach"]["key_words"] == "size" and cards["hp"]["on_full"] is None
    player, proof = to_html(data), to_html(data, sheet="proof")
    for machinery in ("die + 2 × skills", "<strong>how</strong>", "When full:"):
        assert machinery not in player and machinery in proof
    assert "<strong>size</strong>" in player


def test_a_text_said_in_a_longer_card_later_is_said_there() -> None:
    """Whole words only ("wil" is not said by "will"), and a text of fewer than four words is a name, said
    wherever it names something."""
    from rulecraft.backends.player import said_once

    def card(name: str, text: str) -> dict[str, object]:
        return {"name": name, "label": name.title(), "kind": "rule", "text": text, "details": {}}

    said = {d["name"]: d for d in said_once([card("short", "Deal the cards face down."),
                                             card("long", "Shuffle. Deal the cards face down. Play."),
                                             card("name", "WIL"), card("other", "Your will is strong today.")])}
    assert said["short"]["text"] is None and said["short"]["said_in"]["name"] == "long"
    assert said["long"]["text"] and said["name"]["text"] == "WIL" and said["other"]["text"]


ONCE = '''ruleset "O"

section "Tests"

roll test "Test" [O-1]
  text: "Roll a d6 against the difficulty."
  input dn: 1..6 = 4 "Difficulty number"
  roll: d6
  - when total >= dn: pass "Pass"
  - otherwise: fail "Fail"

roll cast "Cast" [O-2]
  text: "To cast a spell in a hurry, roll a test."
  input dn: 1..6 = 4 "Difficulty number"
  roll: d6
  - when total >= dn: cast "Cast"
  - otherwise: fizzle "Fizzle"

roll ward "Ward" [O-9]
  text: "Roll a d6 against the threat."
  input threat: 2..5 = 3 "Threat"
  roll: d6
  - when total >= threat: held "Held"
  - otherwise: broken "Broken"

roll dodge "Dodge" [O-10]
  text: "Roll a d6 over the threat."
  input threat: 2..5 = 3 "Threat"
  roll: d6
  - when total > threat: dodged "Dodged"
  - otherwise: hit "Hit"

roll guard "Guard" [O-11]
  text: "Roll a d6 against the threat to stand guard."
  input threat: 2..5 = 3 "Threat"
  roll: d6
  words:
    kept: ""
  - when total >= threat: kept "Kept"
  - otherwise: lost "Lost"
      kept: no

resource hp "HP" [O-3]
  start: 10

condition taken_out "Taken out" [O-4]
  text: "taken out of the fight"

roll harm "Critical harm" [O-5]
  text: "When you take critical harm, roll a d6."
  roll: d6
  - 4+: shrug "You shrug it off."
  - otherwise: lowered "If you fail, you are taken out of the fight and will die without treatment."
      spend hp 2
      set taken_out

section "Luck"

roll luck "Luck die" [O-6]
  text: "When the world's reaction is uncertain, the referee rolls a luck die."
  roll: d6
  - 1+: luck "Higher is better. Lower is worse."
      luck: total

roll distance "Distance" [O-7]
  text: "Roll a d6 for the distance."
  roll: d6
  - 1+: distance "Distance"
      distance: total

lookup rounds "Rounds" [O-8]
  input time: one of encounter "During an encounter", travel "When traveling" = encounter "When"
  key: time
  - encounter: "During an encounter, a round lasts about ten seconds."
      label: "Encounter"
      length: "about ten seconds"
      order: "PCs act first and as a group, taking their turns together."
  - travel: "When traveling, a round lasts about one hour."
      label: "Traveling"
'''


def test_the_players_sheet_draws_each_chart_and_says_each_outcome_once() -> None:
    """Issue 25, item 6: bars a chart drew already are pointed to (the chances, not the outcomes' names, are
    the same), as are chances a chart drew at each value of a roll's input by another name; a roll with one
    outcome has no table, its sentence going on from the card's words; a row's sentence stands for its effects;
    a condition whose words a row says is that row's; a sentence the document kept as a row's data goes on from
    the row's words. The proof keeps all of it."""
    from rulecraft.api import load_text
    from rulecraft.backends.player import player_cards

    data = export_data(load_text(ONCE, "o.rules", "o").checked)
    cards = {d["name"]: d for d in player_cards(data["definitions"])}
    assert cards["test"]["odds"] is not None and "odds_as" not in cards["test"]
    assert cards["cast"]["odds"] is None and cards["cast"]["text_links"] == [{"name": "test", "words": "Test"}]
    assert [b["label"] for b in cards["cast"]["bands"]] == ["Cast", "Fizzle"]  # its own outcomes, still
    assert cards["ward"]["odds"] is None and cards["ward"]["odds_as"] == {"name": "test", "label": "Test",
                                                                           "axis": "threat"}
    assert cards["dodge"]["odds"] is not None and "odds_as" not in cards["dodge"]  # other chances at each threat
    # rows that say nothing but their names, under no chart of their own: the chart pointed to names them
    assert cards["guard"]["bands"] == [] and cards["guard"]["odds_as"]["name"] == "test"
    assert [b["label"] for b in cards["ward"]["bands"]] == ["Held", "Broken"]  # keyed: they say when
    assert cards["luck"]["bands"] == []
    assert cards["luck"]["text"].endswith("a luck die. Higher is better. Lower is worse.")
    assert cards["distance"]["bands"] == [] and cards["distance"]["text"] == "Roll a d6 for the distance."
    lowered = cards["harm"]["bands"][1]
    assert lowered["effects"] == [] and lowered["values"] == {}
    assert cards["taken_out"]["text"] is None and cards["taken_out"]["said_in"]["name"] == "harm"
    encounter = cards["rounds"]["bands"][0]
    assert encounter["text"] == ("During an encounter, a round lasts about ten seconds. PCs act first and as a group,"
                                 " taking their turns together.") and encounter["values"] == {}
    player, proof = to_html(data), to_html(data, sheet="proof")
    # a card whose words name the roll whose chart it shares links the name: no line "Odds by dn: as for Test"
    assert 'roll a <a class="term" href="#test">test</a>.' in player and 'Odds by dn: as for <a' not in player
    assert 'class="odds-as"' not in proof
    assert 'Odds by threat: as for <a href="#test">Test</a>.' in player
    # a bar of two shares figures the first: the other is the rest
    bars = re.search(r'<article[^>]* id="test">.*?(<svg class="bars".*?</svg>)', player, flags=re.S)
    assert bars is not None and re.findall(r">(\d+%)</text>", bars.group(1)) == ["100%", "83%", "67%", "50%", "33%",
                                                                                  "17%"]
    assert player.count('<figure class="odds">') == 2 and proof.count('<figure class="odds">') == 5
    assert "spend" not in player and "spend" in proof
    # the core sheet leaves a roll's words to its table; one with no table shows them
    core = to_html(data, sheet="core")
    assert re.search(r'<article class="[^"]*untabled[^"]*" id="luck">', core)
    assert not re.search(r'<article class="[^"]*untabled[^"]*" id="test">', core)
    assert ".sheet-core .untabled .rule-text { display: block; }" in core
    # where a roll's words are not printed (the core sheet's cards with a table), its pointer is
    assert 'Odds by dn: as for <a href="#test">Test</a>.' in core and 'class="term"' not in core
    # the condition says nothing the row does not: it goes, and a link to it lands on the row's card
    assert not re.search(r'<article[^>]* id="taken_out"', player)
    assert re.search(r'<article[^>]* id="harm">\s*<span id="taken_out"></span>', player)


@pytest.mark.parametrize(("name", "value", "words", "said"), [
    ("segments", 2, "two segments 2 segments mark 2 segments of danger", True),
    ("segments", 1, "one segment 1 segment mark 1 segment of danger", True),
    ("segments", 0, "no segments", True),
    ("segments", 3, "mark 2 segments of danger", False),
    ("harm", 0, "no harm left", True),
    ("harm", 1, "harm", False),
    ("complication", True, "you face a complication", True),
    ("dv", -2, "dv -2", True),
    ("dv", 2, "dv -2", False),
    ("disposition", -1, "failure: disposition −1.", True),
    ("monster", {"expr": "tier_ii", "words": "Tier II"}, "tier ii monster", True),
    ("state", "spiked", "strange sequence", False),
    ("sides", 4, "d4", True),
    ("number", 17, "enemies — 17 enemy miniatures", True),
    ("number", 17, "enemies — 18 enemy miniatures", False),
    ("sides", 4, "d6", False),
    ("sides", 1, "one 1", True),  # a die of one face, written as it: Errant's lowest rung
    ("cant_get_lost", True, "road can’t get lost", True),
    ("initiative_turns", 0, "no turns (not stated)", True),
    ("initiative_turns", 0, "turns", False),
    ("debt_multiplier", 2, "company debt doubles.", True),  # a two said as a multiple
    ("debt_multiplier", 3, "company debt doubles.", False),
    ("debt_multiplier", 2, "the company doubles.", False),  # the datum's name is not said
    ("sides", 1, "d12", False),
    ("damage", {"expr": "d6 * d4", "words": "d6 × d4"}, "20’ — 1d6 × 1d4", True),
    ("distance", {"expr": "total", "words": "total"}, "distance", True),
    ("tested", {"expr": "tested", "words": "tested"}, "failure", True),
])
def test_a_bands_tag_its_words_say_is_left_off(name: str, value: object, words: str, said: bool) -> None:
    from rulecraft.backends.player import _tag_said

    assert _tag_said(name, value, words) is said


NEARBY = '''ruleset "N"

section "Travel"

lookup actions "Actions" [N-1]
  input action: one of peregrinate "Peregrinate", make_camp "Make camp" = peregrinate "The action"
  key: action
  - peregrinate: "Pathfinder makes a navigation Check."
  - make_camp: "Pathfinder finds a campsite."

rule exchanges "Exchanges" [N-2]
  text: "Roll a die for the exchange, and read its row below."

roll exchange "Giving exchange" [N-3]
  text: "Roll a die for the exchange"
  roll: d6
  words:
    roll: ""
  - 4+: success "Success: disposition +1."
  - when total = 3: move "Move on."
  - otherwise: failure "Failure: disposition -1."
  words:
    move: "a three"

rule movement "Movement" [N-4]
  text: "Roll your movement dice and move that far."

procedure travel_steps "Travel steps" [N-7]
  - settle: "Settle up."
      see: actions
  - port: "Go to the port."
      see: haggle

section "Chases"

roll movement_roll "Movement roll" [N-5]
  text: "Roll your movement dice"
  roll: 2d4
  words:
    roll: ""
  - 2+: moved "Moved"

roll haggle "Haggle" [N-6]
  text: "Roll a die for the exchange"
  roll: d8
  - 5+: bargain "Bargain"
  - otherwise: no_deal "No deal"
'''


def test_a_card_points_only_where_a_reader_needs_it() -> None:
    """A row named by its option alone keeps the option's name ("Peregrinate"); a row whose words start with
    its name is not named twice ("Success: disposition +1."); a card whose words another card of its section
    says does not point there, one in another section does, and a `see:` is printed only to another section; a
    roll whose dice the text says (`roll: ""`), with one outcome and its words said elsewhere, has nothing left
    and is left off; a band named `move` is worded."""
    from rulecraft.api import load_text

    data = export_data(load_text(NEARBY, "n.rules", "n").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")
    assert ">Peregrinate</th>" in player and ">Make camp</th>" in player
    assert "<strong>Success</strong>: disposition +1." in player and '<b class="band-label">Success</b>' not in player
    assert '<b class="band-label">Success</b>' in proof
    def card(name: str) -> str:
        return article(player, name)
    assert "See" not in card("exchange")  # its words are the card's above it, in its section
    assert 'See <a href="#exchanges">Exchanges</a>.' in card("haggle")  # another section's
    assert not re.search(r'<article[^>]* id="movement_roll"', player)  # its words are Movement's
    assert re.search(r'<article[^>]* id="movement">\s*<span id="movement_roll"></span>', player)
    assert ">a three</th>" in player
    assert '→ <a href="#actions">' not in player and '→ <a href="#haggle">Haggle</a>' in player  # another section
    assert 'see: <a href="#actions">' in proof


def test_a_card_says_neither_its_title_nor_its_entries_numbers_twice() -> None:
    """Words that are the card's title are its title alone; `priority: 2` on the second entry of a numbered
    list is said by its number (a priority that is not its place stays). The proof keeps both."""
    from rulecraft.api import load_text

    source = '''ruleset "T"

section "Loyalty"

list loyalty_falls "Loyalty decreases by 1 when" [T-1]
  text: "Loyalty decreases by 1 when:"
  - dies: "A Crew member dies"
  - unpaid: "Crew are not paid"

priority targeting "Targeting priority" [T-2]
  text: "The enemy attacks the nearest target, ties in this order:"
  - captain: "Captain"
      priority: 1
  - mate: "First mate"
      priority: 2
  - nodes: "Blue nodes"
      priority: 4
'''
    data = export_data(load_text(source, "t.rules", "t").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")
    assert "Loyalty decreases by 1 when:" not in player and "Loyalty decreases by 1 when:" in proof
    assert "priority: 1" not in player and "priority: 2" not in player and "priority: 4" in player
    assert "priority: 1" in proof


def test_a_grids_rows_keep_their_names_and_its_numbers_their_thousands() -> None:
    """A grid's row whose name is its option's shows the name (Errant's supply table printed no settlement);
    a number in thousands is set as print sets it ("1,280", as the document writes it)."""
    from rulecraft.api import load_text

    source = '''ruleset "G"

section "Supply"

lookup supply "Supply" [G-1]
  input settlement: one of town "Town", city "City" = town "Settlement"
  input column: 1..2 = 1 "Column"
  key: settlement
  columns by column:
    - 1: c1 "1"
    - 2: c2 "2"
  - town: 640 | —
      label: "Town"
  - city: 1,280 | 2,560
      label: "City"
'''
    player = to_html(export_data(load_text(source, "g.rules", "g").checked))
    assert ">Town</th>" in player and ">City</th>" in player
    assert "<td>1,280</td>" in player and "<td>640</td>" in player and "<td>—</td>" in player


LISTED = '''ruleset "L"

section "Dice"

lookup ladder "Dice Ladder" [L-1]
  text: """
    Move up or down the rungs of the ladder:
    d4 → d6 → d8
    """
  input steps: -2..2 = 0 "Steps"
  key: steps + 2
  - less than 1: below "If a die would be lowered below a d4, you cannot roll it."
  - 1: rung_d4 "d4"
      sides: 4
  - 2: rung_d6 "d6"
      sides: 6
  - 3: rung_d8 "d8"
      sides: 8
  - more than 3: above "If it would be raised above a d8, gain advantage."
      advantage: yes

lookup rungs "Rungs" [L-20]
  text: "1 - D4 - D6"
  input rung: 1..3 = 1 "Rung"
  key: rung
  - 1: one "1"
      sides: 1
  - 2: d4 "D4"
      sides: 4
  - 3: d6 "D6"
      sides: 6

lookup sizes "Sizes" [L-2]
  text: "Small, medium or large."
  input size: 1..3 = 1 "Size"
  key: size
  - 1: small "Small"
      slots: 1
  - 2: medium "Medium"
      slots: 2
  - 3: large "Large"
      slots: 4

lookup order "Order" [L-3]
  text: "Rank, file or line."
  input place: 1..3 = 1 "Place"
  key: place
  - 1: file "File"
  - 2: rank "Rank"
  - 3: line "Line"

lookup carrying "Carrying" [L-8]
  text: "You have twice your STR in item slots. When carrying more, you have disadvantage."
  input filled: 0..20 = 0 "Slots filled"
  key: filled
  words:
    within: ""
    over: ""
  - 0-10: within "You have twice your STR in item slots."
  - 11-20: over "When carrying more, you have disadvantage."

lookup detachments "Detachments" [L-9]
  text: "Groups of NPCs acting together are a detachment."
  input attacker: one of individual, detachment = individual "Who attacks"
  key: attacker
  - when attacker = detachment: detachment_attacks "Their attacks have advantage against individuals."
      advantage: yes
  - otherwise: no_change
      label: "Neither"

section "Contests"

roll contest "Contest" [L-4]
  text: "Each side rolls a d6; the higher wins."
  roll: d6 - d6
  - 1+: win "Win"
  - otherwise: lose "Lose"

roll surprise "Surprise" [L-5]
  text: "When surprised, roll a DEX contest."
  roll: d6 - d6
  - 1+: win "Win"
  - otherwise: lose "Lose"

rule unwilling "Unwilling targets" [L-6]
  text: "They may turn your test into a contest."
  see: contest

rule contests "Contests" [L-21]
  text: "When someone opposes you, roll a contest."
  see: contest

rule group "Group contest" [L-7]
  text: "One side rolls for everyone."
  see: contest

section "Harm"

roll crit "Critical harm" [L-10]
  text: "Roll a d6 against the danger; a 6 is a critical."
  roll: d6
  words:
    pass: "4 or more"
  flags:
    critical: total = 6
    fumble: total = 1
  - 4+: pass
      passed: yes
  - otherwise: fail "Fail"

rule breath "Hold breath" [L-12]
  text: "Hold your breath for a while. After, 1D6 damage per turn."

roll out_of_breath "Out of breath" [L-13]
  text: "After, 1D6 damage per turn."
  roll: 1D6
  - 1-6: damage
      damage: total

roll distance "Distance" [L-14]
  text: "Roll a d6 for the distance."
  roll: d6
  - 1+: distance "Distance"
      distance: total

rule burning "Burning" [L-15]
  text: "Burning = 1D6 damage per turn on fire."

rule bribes "Bribes" [L-16]
  text: "**Bribes**: Pay your Wealth to avoid a raid."

rule checks "Check" [L-17]
  text: "Check’s DV is set by the Guide."

formula hold "Hold breath" [L-18]
  text: "Hold breath # Turns = phys - 10."
  input phys: 1..20 = 10 "phys"
  value: phys - 10
  words:
    value: ""
  - 1+: turns
      turns: phys - 10
      breath: phys

rule split "Split" [L-19]
  text: """
    They may turn it into a group
    contest of wills.
    """
  see: group

roll sure "Sure" [L-11]
  text: "Roll a d6: a 4 or more passes."
  roll: d6
  words:
    passes: ""
  - 4+: passes "Passes"
  - otherwise: fails "Fails"
'''


def test_a_lookup_its_words_list_and_a_pointer_its_words_make_are_not_said_again() -> None:
    """A lookup whose words name its rows in order (the dice ladder's rungs) has no table, the sentences of its
    other rows going on from its words; one whose rows carry data, or that its words name out of order, keeps
    it. A card whose words name the card it points to makes the name the link, with no "See Contest" or
    "Outcomes and odds: see Contest" under it; a card named after its target keeps the pointer. The proof keeps
    everything."""
    from rulecraft.api import load_text

    data = export_data(load_text(LISTED, "l.rules", "l").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")

    def card(name: str) -> str:
        return article(player, name)
    assert "<table" not in card("ladder") and "by</span>" not in card("ladder")
    assert ("d4 → d6 → d8<br>If a die would be lowered below a d4, you cannot roll it.<br>If it would be raised"
            " above a d8, gain advantage.</p>") in card("ladder")
    assert "<table" in card("sizes") and "<table" in card("order")
    assert "<table" not in card("rungs")  # its rows' sides are their names': "D4", and "1", a die of one face
    assert '<table' in proof.split('id="ladder"')[1].split("</article>")[0]
    assert 'roll a DEX <a class="term" href="#contest">contest</a>.' in card("surprise")
    assert "Outcomes and odds" not in card("surprise") and "<table" not in card("surprise")
    assert 'into a <a class="term" href="#contest">contest</a>.' in card("unwilling")
    assert "See" not in card("unwilling") and 'class="term"' not in proof
    assert 'class="term"' not in card("group") and '<a href="#contest">Contest</a>' in card("group")
    assert 'roll a <a class="term" href="#contest">contest</a>.' in card("contests")  # named as its plural
    # a name broken over two lines of the words is not one to link: the pointer stays
    assert 'class="term"' not in card("split") and '<a href="#group">Group contest</a>' in card("split")
    # rows that only name what the card's words say, and an "otherwise" that says nothing, are not printed
    assert "<table" not in card("carrying") and ">Within<" not in card("carrying") and ">Within<" in proof
    assert "Their attacks have advantage" in card("detachments") and "Neither" not in card("detachments")
    assert "Neither" in proof
    # a yes its row's name says as a verb ("Pass", `passed: yes`); "of rolls" said once on a card's flags
    assert "Passed" not in card("crit") and "Passed" in proof
    assert re.search(r"— 16\.7% of rolls</span>.*— 16\.7%</span>", card("crit"), re.S)
    assert proof.count("16.7% of rolls") == 2
    # the other rows keyed by their words alone: "otherwise" says nothing more
    assert ">otherwise</th>" not in card("sure") and ">otherwise</th>" in card("crit")
    # dice the words say ("1D6 damage", "a d6") are not said again: a card with nothing else is left off
    assert not re.search(r'<article[^>]* id="out_of_breath"', player)
    assert re.search(r'<article[^>]* id="breath">\s*<span id="out_of_breath"></span>', player)
    assert 'class="dice"' not in card("distance") and 'class="dice"' in card("contest")
    assert re.search(r'<article[^>]* id="out_of_breath"', proof)
    # a card whose words open with its name is headed by them, as written, its words going on from there
    assert re.search(r'<h3 class="card-title" data-bookmark="Burning">Burning<a.*?</h3>.*?'
                     r'<p class="rule-text"> = 1D6 damage per turn on fire.</p>', card("burning"), re.S)
    assert 'class="card run-in' in card("burning") and 'class="card run-in' not in proof
    assert re.search(r'data-bookmark="Bribes">Bribes:<a.*?<p class="rule-text"> Pay your Wealth', card("bribes"), re.S)
    assert 'run-in' not in card("checks") and "Check’s DV is set by the Guide." in card("checks")
    # a row's worked-out datum the card's words state, name and expression, is theirs to say
    assert "turns: phys" not in card("hold") and "breath: phys" in card("hold") and "turns: phys" in proof


WATCH = '''ruleset "W"

lookup actions "Travel Turn Actions" [W-1]
  input action: one of forage "Forage", take_watch "Take watch" = forage "The action"
  key: action
  - forage: "Each Errant forages."
  - take_watch: "2 characters keep watch = no Exhaustion. No characters keep watch = a 5 is a 1."
      see: take_watch

lookup take_watch "Take watch" [W-2]
  input watchers: 0..2 = 2 "Characters keeping watch"
  key: watchers
  - 2: no_exhaustion "2 characters keep watch = no Exhaustion."
      exhaustion: no
  - 0: no_watch "No characters keep watch = a 5 is a 1."

table surprise "Surprise" [W-3]
  roll: d6
  - 1-2: npcs "NPCs"
  - 5-6: company "Company"

errata D-W-1 "Surprise on a 3 or 4" [W-3]
  text: "The document gives no result for 3-4."
  add to surprise:
    - 3-4: no_surprise
        label: "No surprise"

errata D-W-2 "Take watch with 1 watcher" [W-2]
  text: "The document says nothing of 1 watcher."
  add to take_watch:
    - 1: one_watcher
        label: "1 character"
'''


def test_rows_an_erratum_adds_are_marked_on_the_proof_and_rows_said_elsewhere_not_printed() -> None:
    """A row an erratum adds (`add to ...:`) is read as the designer labels it on the player's sheet; the proof
    marks it "added by <erratum>", linked to the erratum, and the export says which erratum added it. A lookup
    whose rows are another card's words, with nothing more than their names, is not printed on the player's
    sheet (nor the pointer to it); the proof keeps it."""
    from rulecraft.api import load_text

    data = export_data(load_text(WATCH, "w.rules", "w").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")
    surprise = next(d for d in data["definitions"] if d["name"] == "surprise")
    assert [b.get("erratum") for b in surprise["bands"]] == [None, None, "D-W-1"]
    assert "No surprise" in article(player, "surprise") and "added by" not in player
    assert '<a class="added-by" href="#erratum-D-W-1">added by D-W-1</a>' in article(proof, "surprise")
    assert 'id="erratum-D-W-1"' in proof
    assert not re.search(r'<article[^>]* id="take_watch"', player)
    assert 'href="#take_watch"' not in player and "Each Errant forages." in player
    assert re.search(r'<article[^>]* id="take_watch"', proof) and "added by D-W-2" in proof


FACES = '''ruleset "F"

type ladder: one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12)

table reaction "Reaction" [F-1]
  text: "Roll your WIL die."
  input wil: ladder = d6 "Your WIL die"
  roll: d(wil)
  - 1-3: hostile "Hostile"
  - 4-5: wary "Wary"
  - 6-12: friendly "Friendly"

table weather "Weather" [F-2]
  roll: d8
  - 1-2: rain "Rain"
  - 3-8: sun "Sun"

table pushed "Pushed" [F-3]
  input push: 0..2 = 0 "Push"
  roll: d6 + push
  - 1-3: hostile "Hostile"
  - 4+: wary "Wary"
'''


def test_a_table_read_off_one_die_prints_no_odds_its_rows_say() -> None:
    """A table read off one plain die by ranges of its faces, at any size of the die, draws no chart and
    gives no percentages: "1-3" on a d8 is three faces of eight. A die with a modifier is charted; the proof
    keeps every chart."""
    from rulecraft.api import load_text

    data = export_data(load_text(FACES, "f.rules", "f").checked)
    player, proof = to_html(data), to_html(data, sheet="proof")

    def card(name: str) -> str:
        return article(player, name)
    assert '<figure class="odds">' not in card("reaction") and 'class="pct"' not in card("weather")
    assert '<figure class="odds">' in card("pushed")
    assert proof.count('<figure class="odds">') == 2 and 'class="pct"' in proof
