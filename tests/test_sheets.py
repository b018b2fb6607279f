"""The printed sheets: paper size, running headers, contents with page numbers, valid pictures, no requests."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from markupsafe import escape

from compiler.api import load
from compiler.render import export_data, to_html
from tests.conftest import ROOT

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
    assert "string-set: section attr(data-running)" in html and "@top-right { content: string(section)" in html
    # ... and each contents line points at its section, whose page number the PDF fills in.
    assert "target-counter(attr(href), page)" in html
    assert html.count('<li><a href="#section-') == len(sections)


# ---------------------------------------------------------------- what the built sheets hold

HTML_SHEETS = sorted((ROOT / "output" / "html").glob("*.html"))
INVENTORY = ROOT.parent / "shared" / "inventory.md"


@pytest.mark.parametrize("path", HTML_SHEETS, ids=[p.stem for p in HTML_SHEETS])
def test_every_picture_is_valid_svg(path: Path) -> None:
    """Each inline <svg> parses as XML on its own, with a viewBox and an accessible label."""
    html = path.read_text(encoding="utf-8")
    pictures = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert pictures, f"{path.name} draws no pictures"
    for svg in pictures:
        element = ElementTree.fromstring(svg.replace("&nbsp;", "&#160;"))
        assert element.tag == "svg" and element.get("viewBox"), svg[:80]
        assert element.get("role") == "img" and element.get("aria-label"), svg[:80]


@pytest.mark.parametrize("path", HTML_SHEETS, ids=[p.stem for p in HTML_SHEETS])
def test_a_sheet_is_one_file_that_requests_nothing(path: Path) -> None:
    html = path.read_text(encoding="utf-8")
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?(?:https?:)?//""", html, flags=re.I)
    assert not re.search(r"""url\(\s*["']?(?:https?:)?//""", html, flags=re.I)
    assert not re.search(r"@import|<link\b|<script\b|<iframe\b", html, flags=re.I)
    assert '<meta name="viewport"' in html  # readable on a phone


@pytest.mark.skipif(not INVENTORY.is_file(), reason="needs ../shared/inventory.md")
def test_every_inventory_item_is_on_a_sheet() -> None:
    items = re.findall(r"^#### ((?:TOG|WW|LAD|ERR|EVR)-\d+):", INVENTORY.read_text(encoding="utf-8"), flags=re.M)
    assert len(items) == 225
    text = " ".join(re.sub(r"<[^>]+>", " ", p.read_text(encoding="utf-8")) for p in HTML_SHEETS)
    cited = set(re.findall(r"\b(?:TOG|WW|LAD|ERR|EVR)-\d+\b", text))
    assert sorted(set(items) - cited) == []
