"""The sheets' finishing: the HTML's landmark and permalinks, and the PDF's metadata, tags, bookmarks, links and
running head (issue 25, items 9 and 10).

The HTML tests run in `make test`; the PDF tests render a small ruleset made to run over a page break (and the
Tides of Gold player's sheet, for the running head) and are marked `pdf`.
"""

from __future__ import annotations

import html as markup
import io
import re
from pathlib import Path
from typing import Any

import pytest

from rulecraft import __version__
from rulecraft.api import load
from rulecraft.backends.render import SHEETS, export_data, to_html

pdfium = pytest.importorskip("pypdfium2")
pypdf = pytest.importorskip("pypdf")

PARAGRAPH = ("Every card here holds a paragraph of rules long enough to fill a good part of a column, so that the "
             "section runs over a page break. ") * 3
# Two sections: the first runs over a page, so the second starts in the middle of its second page.
LONG = "\n".join([
    'ruleset "Long Game"', '  author: "Jo Designer"', '',
    'section "Opening moves" [lines 1-40]', '',
    *[line for i in range(1, 15) for line in (f'rule opening_{i} "Opening rule {i}" [line {i}]',
                                                f'  text: "Rule {i}. {PARAGRAPH}"', '')],
    'section "Closing moves" [lines 41-50]', '',
    'roll action "Action roll" [line 41]', '  text: "Roll two dice."', '  input dots: 0..2 = 0 "Dots"',
    '  roll: 2d6 + dots',
    '  - 6 or less: failure "You fail."', '  - 7+: success "You do it."', '',
    'rule closing "Closing rule" [line 45]', '  text: "Then the action roll decides."', '  see: action', '',
])
SUBJECTS = {"player": "Rules reference with exact odds",
            "proof": "Designer's proof of the rules reference, with its sources and errata",
            "core": "Core rolls with their exact odds"}
TITLES = {"player": "reference sheet", "proof": "designer's proof", "core": "core rolls"}


def long_data(tmp_path: Path, source: str = LONG) -> dict[str, Any]:
    (tmp_path / "long.rules").write_text(source, encoding="utf-8")
    data: dict[str, Any] = export_data(load(str(tmp_path / "long.rules")).checked)
    return data


def head_meta(html: str) -> dict[str, str]:
    head = html.split("</head>")[0]
    found = re.findall(r'<meta name="([a-z]+)" content="([^"]*)">', head)
    return {name: markup.unescape(content) for name, content in found}


# ---- the HTML


@pytest.mark.parametrize("sheet", SHEETS)
def test_the_head_names_author_subject_keywords_and_generator(tmp_path: Path, sheet: str) -> None:
    meta = head_meta(to_html(long_data(tmp_path), sheet=sheet))
    assert meta["author"] == "Jo Designer"
    assert meta["description"] == SUBJECTS[sheet]
    assert meta["generator"] == f"rulecraft {__version__}"
    expected = "Action roll" if sheet == "core" else "Opening moves, Closing moves"
    assert meta["keywords"] == expected


@pytest.mark.parametrize(("header", "author"), [('  designer: "Ann Maker"', "Ann Maker"),
                                                ('  publisher: "Small Press"', "Small Press"), ("", "Long Game")])
def test_without_an_author_the_designer_or_publisher_signs_else_the_work_itself(tmp_path: Path, header: str,
                                                                               author: str) -> None:
    """The PDF's Author: the ruleset's `author:`, else its `designer:` or `publisher:`, else its title (a document
    that names no one is signed by what it calls itself); never Rulecraft. Only a named person or press is
    printed in the byline."""
    source = LONG.replace('  author: "Jo Designer"', header)
    html = to_html(long_data(tmp_path, source))
    assert head_meta(html).get("author") == author
    assert "Rulecraft" not in head_meta(html)["author"]
    assert ("· " + author in html) == bool(header)


@pytest.mark.parametrize("rid", ["dice_ladder", "errant", "everrain", "tides_of_gold", "wyrd_wolds"])
def test_every_bundled_sheet_has_an_author(rid: str) -> None:
    author = head_meta(to_html(export_data(load(rid).checked))).get("author")
    assert author and "rulecraft" not in author.lower()


def test_a_main_landmark_holds_the_sections_and_the_masthead_stays_outside(tmp_path: Path) -> None:
    for sheet in SHEETS:
        html = to_html(long_data(tmp_path), sheet=sheet)
        assert html.count("<main>") == 1 and html.count("</main>") == 1
        main = html[html.index("<main>"):html.index("</main>")]
        assert "masthead" not in main and 'class="contents"' not in main
        assert main.count('<section class="section') == html.count('<section class="section') > 0


def test_each_card_title_links_to_its_own_card_on_screen_only(tmp_path: Path) -> None:
    html = to_html(long_data(tmp_path), sheet="player")
    cards = re.findall(r'<article class="card[^"]*" id="([a-z0-9_]+)">\s*<h3 class="card-title"[^>]*>(.*?)</h3>', html)
    assert len(cards) == 16
    for card_id, title in cards:
        assert f'<a class="permalink" href="#{card_id}"' in title
    assert re.search(r"@media print \{ \.permalink, \.see-mark \{ display: none; \} \}", html)


# ---- the PDF


@pytest.fixture(scope="module")
def long_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    from rulecraft.backends.build import render_pdfs

    data = long_data(tmp_path_factory.mktemp("long"))
    tides = export_data(load("tides_of_gold").checked)
    jobs = [(Path(sheet), to_html(data, sheet=sheet)) for sheet in SHEETS]
    jobs.append((Path("tides_of_gold"), to_html(tides, sheet="player")))
    return {str(path): pdf for path, pdf in render_pdfs(jobs)}


@pytest.mark.pdf
@pytest.mark.parametrize("sheet", SHEETS)
def test_the_pdf_has_title_author_subject_keywords_and_a_fixed_creator(long_pdfs: dict[str, bytes],
                                                                       sheet: str) -> None:
    import weasyprint

    info = pypdf.PdfReader(io.BytesIO(long_pdfs[sheet])).metadata or {}
    assert info["/Title"] == f"Long Game — {TITLES[sheet]}"
    assert info["/Author"] == "Jo Designer"
    assert info["/Subject"] == SUBJECTS[sheet]
    assert info["/Keywords"] == ("Action roll" if sheet == "core" else "Opening moves, Closing moves")
    assert info["/Creator"] == f"rulecraft {__version__}"
    assert info["/Producer"] == f"WeasyPrint {weasyprint.__version__}"
    assert not {"/CreationDate", "/ModDate"} & set(info)


def marked_text(reader: Any) -> dict[tuple[int, int], str]:
    """The text of each marked-content sequence: (page object number, MCID) -> text."""
    texts: dict[tuple[int, int], str] = {}
    for page in reader.pages:
        texts.update(page_marked_text(page))
    return texts


def page_marked_text(page: Any) -> dict[tuple[int, int], str]:
    texts: dict[tuple[int, int], str] = {}
    stack: list[int | None] = []

    def before(operator: bytes, operands: list[Any], *_: Any) -> None:
        if operator == b"BDC":
            properties: Any = operands[1] if len(operands) > 1 else None
            stack.append(properties.get("/MCID") if hasattr(properties, "get") else None)
        elif operator == b"BMC":
            stack.append(None)
        elif operator == b"EMC" and stack:
            stack.pop()

    def text(piece: str, *_: Any) -> None:
        mcid = next((m for m in reversed(stack) if m is not None), None)
        if mcid is not None:
            key = (page.indirect_reference.idnum, mcid)
            texts[key] = texts.get(key, "") + piece

    page.extract_text(visitor_operand_before=before, visitor_text=text)
    return texts


def structure(reader: Any, role: str) -> list[str]:
    """The text of each structure element of a role (/H3, ...), in the structure tree's order."""
    texts = marked_text(reader)
    found: list[str] = []

    def content(element: Any, page: int | None) -> str:
        element = element.get_object()
        if isinstance(element, int):
            return texts.get((page, element), "") if page is not None else ""
        page = element.raw_get("/Pg").idnum if "/Pg" in element else page
        if "/MCID" in element:
            return texts.get((page, element["/MCID"]), "") if page is not None else ""
        kids = element.get("/K")
        if kids is None:
            return ""
        kids = kids.get_object()
        return "".join(content(kid, page) for kid in (kids if isinstance(kids, list) else [kids]))

    def walk(element: Any) -> None:
        element = element.get_object()
        if not hasattr(element, "get"):
            return
        if element.get("/S") == role:
            found.append(" ".join(content(element, None).split()))
            return
        kids = element.get("/K")
        if kids is not None:
            kids = kids.get_object()
            for kid in kids if isinstance(kids, list) else [kids]:
                walk(kid)

    walk(reader.trailer["/Root"]["/StructTreeRoot"])
    return found


@pytest.mark.pdf
def test_the_pdf_is_tagged_and_its_structure_reads_the_cards_in_order(long_pdfs: dict[str, bytes]) -> None:
    """Marked, with a structure tree whose card headings come in the sheet's order: the first column's cards
    before the second's (the page's drawing order is not what a tagged reader follows)."""
    for sheet in SHEETS:
        reader = pypdf.PdfReader(io.BytesIO(long_pdfs[sheet]))
        root = reader.trailer["/Root"]
        assert root["/MarkInfo"]["/Marked"] == pypdf.generic.BooleanObject(True)
        assert "/StructTreeRoot" in root and root["/Lang"] == "en"
    reader = pypdf.PdfReader(io.BytesIO(long_pdfs["player"]))
    labels = ["Action roll"] + [f"Opening rule {i}" for i in range(1, 15)] + ["Closing rule"]  # main roll first
    assert structure(reader, "/H3") == labels
    assert structure(reader, "/H2") == ["Opening moves", "Closing moves"]  # a short sheet prints no contents


@pytest.mark.pdf
def test_each_chart_and_picture_is_a_figure_with_its_numbers_as_alternative_text(long_pdfs: dict[str, bytes]) -> None:
    reader = pypdf.PdfReader(io.BytesIO(long_pdfs["player"]))
    alts: list[str] = []

    def walk(element: Any) -> None:
        element = element.get_object()
        if not hasattr(element, "get"):
            return
        if element.get("/S") == "/Figure" and "/Alt" in element:
            alts.append(str(element["/Alt"]))
        kids = element.get("/K")
        for kid in (kids.get_object() if isinstance(kids.get_object(), list) else [kids]) if kids is not None else ():
            walk(kid)
    walk(reader.trailer["/Root"]["/StructTreeRoot"])
    charts = [alt for alt in alts if alt.startswith("Odds by")]
    assert charts and all("%" in alt for alt in charts), alts  # "Odds by dots: dots 0: Failure 42%, ..."


def outline(reader: Any) -> list[tuple[int, str]]:
    """(level, title) of each bookmark, in order."""
    found: list[tuple[int, str]] = []

    def walk(items: list[Any], level: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                found.append((level, item.title))
    walk(reader.outline, 1)
    return found


@pytest.mark.pdf
@pytest.mark.parametrize("sheet", SHEETS)
def test_bookmarks_are_the_section_and_card_titles_alone(long_pdfs: dict[str, bytes], sheet: str) -> None:
    """No kind ("Action rollroll"), no citation ("lines 1-40"), no permalink: sections, and under each its cards;
    the core sheet's cards stand at the top."""
    cards = [f"Opening rule {i}" for i in range(1, 15)] + ["Action roll", "Closing rule"]
    if sheet == "core":
        expected = [(1, "Action roll")]
    elif sheet == "player":  # the main roll opens the sheet, moved out of its section; a short sheet has no contents
        expected = [(1, "Action roll"), (1, "Opening moves"), *[(2, c) for c in cards[:14]],
                    (1, "Closing moves"), (2, "Closing rule")]
    else:
        expected = [(1, "Opening moves"), *[(2, c) for c in cards[:14]],
                    (1, "Closing moves"), *[(2, c) for c in cards[14:]]]
    assert outline(pypdf.PdfReader(io.BytesIO(long_pdfs[sheet]))) == expected


@pytest.mark.pdf
def test_a_see_reference_is_a_link_to_its_card(long_pdfs: dict[str, bytes]) -> None:
    reader = pypdf.PdfReader(io.BytesIO(long_pdfs["player"]))
    destinations = reader.named_destinations
    links = [(number, annotation.get_object()) for number, page in enumerate(reader.pages)
             for annotation in page.get("/Annots") or [] if annotation.get_object()["/Subtype"] == "/Link"]
    to_action = [(number, link) for number, link in links if link.get("/Dest") == "action"]
    assert len(to_action) == 1  # the `see:`; the card's permalink is not printed
    assert "action" in destinations
    target = reader.get_destination_page_number(destinations["action"])
    text = reader.pages[target].extract_text()
    assert "Action roll" in text
    assert all(link.get("/Dest") in destinations for _, link in links)  # the contents' links too


def running_heads(pdf: bytes) -> list[tuple[str, str]]:
    """Each page after the first: (the running head, the section going on at the top of the body).

    A page whose first text is a section's title has no section going on ("": the banner names it); on any
    other page, the last section that began on an earlier page goes on. Where each section begins is read from
    its bookmark."""
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    starts: dict[int, list[tuple[float, str]]] = {}
    for item in reader.outline:
        if not isinstance(item, list) and item.title != "Contents":
            starts.setdefault(reader.get_destination_page_number(item), []).append((float(item.top), item.title))
    document = pdfium.PdfDocument(pdf)
    heads: list[tuple[str, str]] = []
    current = ""
    top_margin = 16 / 25.4 * 72
    for number, page in enumerate(document):
        width, height = page.get_size()
        text = page.get_textpage()
        tops = [text.get_rect(i)[3] for i in range(text.count_rects())]
        body_top = max(top for top in tops if top < height - top_margin)
        here = sorted(starts.get(number, []), reverse=True)
        in_force = "" if here and here[0][0] + 1 >= body_top else current
        if number > 0:
            heads.append((text.get_text_bounded(width / 2, height - top_margin, width, height).strip(), in_force))
        current = here[-1][1] if here else current
    return heads


@pytest.mark.pdf
def test_the_running_head_names_the_section_at_the_top_of_the_page(long_pdfs: dict[str, bytes]) -> None:
    """Not the one that starts lower down the page, and none over a section's own banner. The long game's second
    section starts in the middle of a page (the one its first section goes on to); Tides of Gold has pages of
    every kind."""
    heads = running_heads(long_pdfs["player"])
    assert heads and all(head == in_force for head, in_force in heads)
    assert ("Opening moves", "Opening moves") in heads
    tides = running_heads(long_pdfs["tides_of_gold"])
    assert [head for head, _ in tides] == [in_force for _, in_force in tides]
    assert len({in_force for _, in_force in tides} - {""}) >= 3 and ("", "") in tides


@pytest.mark.pdf
def test_the_permalinks_are_not_in_the_pdf(long_pdfs: dict[str, bytes]) -> None:
    for sheet in SHEETS:
        document = pdfium.PdfDocument(long_pdfs[sheet])
        assert not any("#" in page.get_textpage().get_text_range() for page in document)
