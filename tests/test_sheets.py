"""The printed sheets: paper size, running headers and a contents block with page numbers."""

from __future__ import annotations

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
