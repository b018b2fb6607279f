"""Charts that inform and colours with meaning (issue 25, items 3 and 4): a chart is drawn only where its rows
differ and are chances, long ranges are cut to representative bars; each outcome is coloured by its tone, the
tones step in lightness (greyscale) and the text on each has 4.5:1 contrast."""

from __future__ import annotations

import re
from fractions import Fraction
from itertools import pairwise

import pytest

from rulecraft.api import load, load_text
from rulecraft.backends.player import CHART_ROWS, GRID_ROWS, chart
from rulecraft.backends.render import TONE_COLOURS, export_data, to_html
from rulecraft.diagnostics import CompileError

from .conftest import RULESET_IDS


def row(value: int, **shares: str) -> dict[str, object]:
    return {"value": value, "outcomes": [{"id": k, "probability": p, "percent": float(Fraction(p)) * 100}
                                         for k, p in shares.items()]}


def odds(*rows: dict[str, object]) -> dict[str, object]:
    return {"axis": "dots", "fixed": {}, "rows": list(rows)}


def test_a_chart_that_would_say_nothing_is_not_drawn() -> None:
    assert chart(odds(row(0, hit="1/2", miss="1/2"))) is None  # one row: the table gives its percentages
    assert chart(odds(row(0, hit="1/2", miss="1/2"), row(1, hit="1/2", miss="1/2"))) is None  # the same on each
    assert chart(odds(row(0, hit="1", miss="0"), row(1, hit="0", miss="1"))) is None  # certain: a lookup
    assert chart(odds(row(0, hit="1/2", miss="1/2"), row(1, hit="2/3", miss="1/3"))) is not None


def test_equal_neighbours_are_one_bar_and_a_long_range_shows_representative_rows() -> None:
    rows = [row(v, hit="0", miss="1") for v in range(-10, 1)] + [row(1, hit="1/3", miss="2/3")] + \
        [row(v, hit="1", miss="0") for v in range(2, 31)]
    drawn = chart(odds(*rows))
    assert drawn is not None and [bar["value"] for bar in drawn["rows"]] == ["−10–0", 1, "2–30"]
    many = chart(odds(*[row(v, hit=f"{v}/60", miss=f"{60 - v}/60") for v in range(60)]))
    assert many is not None and len(many["rows"]) == CHART_ROWS
    assert (many["rows"][0]["value"], many["rows"][-1]["value"]) == (0, 59)


@pytest.mark.parametrize("rid", RULESET_IDS)
def test_no_drawn_chart_on_a_bundled_sheet_is_flat_or_long(rid: str) -> None:
    data = export_data(load(rid).checked)
    for definition in data["definitions"]:
        drawn = chart(definition.get("odds"))
        if drawn is not None and drawn.get("grid"):
            assert 2 <= len(drawn["rows"]) <= GRID_ROWS and 2 <= len(drawn["columns"]) <= GRID_ROWS
            assert len({tuple(row["cells"]) for row in drawn["rows"]}) == len(drawn["rows"])
        elif drawn is not None:
            assert 2 <= len(drawn["rows"]) <= CHART_ROWS
            assert len({tuple(o["probability"] for o in bar["outcomes"]) for bar in drawn["rows"]}) > 1


def luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def lightness(colour: str) -> float:  # CIELAB L*
    y = luminance(colour)
    return 116 * (y ** (1 / 3) if y > 216 / 24389 else (24389 / 27 * y + 16) / 116) - 16


def test_each_tone_reads_in_greyscale_and_its_text_has_contrast() -> None:
    steps = sorted(lightness(shades[0][0]) for shades in TONE_COLOURS.values())
    assert min(b - a for a, b in pairwise(steps)) >= 8  # distinct printed in grey
    for shades in TONE_COLOURS.values():
        assert min(b - a for a, b in pairwise(sorted(lightness(fill) for fill, _ in shades))) >= 8
        for fill, text in shades:
            high, low = sorted((luminance(fill), luminance(text)), reverse=True)
            assert (high + 0.05) / (low + 0.05) >= 4.5


def test_the_sheet_colours_by_meaning() -> None:
    tones = {(d["name"], b["label"]): b["tone"] for rid in ("errant", "tides_of_gold", "wyrd_wolds")
             for d in export_data(load(rid).checked)["definitions"] for b in d.get("bands", [])}
    assert tones["check", "Failure"] == "failure" and tones["check", "Success"] == "success"
    assert tones["coin_roll", "Keep coin"] == "neutral" and tones["action_roll", "Costly"] == "partial"
    assert tones["simple_roll", "Critical success"] == "critical"


SOURCE = '''ruleset "T"

roll r "R" [T-1]
  roll: 2d6
  - 10+: keep "Keep coin"
      tone: success
  - otherwise: lose "Lose it"
'''


def test_a_band_sets_its_tone_and_a_wrong_one_is_an_error_at_its_line() -> None:
    data = export_data(load_text(SOURCE, "t.rules", "t").checked)
    bands = data["definitions"][0]["bands"]
    assert [(b["tone"], b["values"]) for b in bands] == [("success", {}), ("failure", {})]  # not a value
    html = to_html(data)
    assert re.search(r'background: ' + TONE_COLOURS["success"][0][0], html)
    with pytest.raises(CompileError) as error:
        load_text(SOURCE.replace("tone: success", "tone: great"), "t.rules", "t")
    (problem,) = error.value.report.diagnostics
    assert (problem.code, problem.span.line, problem.span.column) == ("TYPE", 6, 7)
    assert problem.message == "`tone:` is one of critical, success, partial, failure, neutral"


CHECKS = '''ruleset "G"

roll check "Check"
  text: "Check = D20 > DV and < Attribute."
  input dv: -2..22 = 4 "DV"
  input attribute: 1..20 = 10 "Attribute"
  roll: d20
  chart:
    rows: dv
    columns: attribute
  - when dv < 0: automatic_success "If DV < 0, Check automatically succeeds."
  - when total > dv and total < attribute: success "Success"
  - otherwise: failure "Failure"

roll stealth "Stealth"
  text: "Skill Check, DV = Encumbrance."
  input skill: 1..20 = 10 "Skill"
  input encumbrance: 0..12 = 0 "Encumbrance"
  roll: d20
  - when total > encumbrance and total < skill: success "Success"
  - otherwise: failure "Failure"

roll sneak "Sneak"
  text: "Roll a d20 over your Encumbrance."
  input skill: 1..20 = 10 "Skill"
  roll: d20
  - when total > skill: success "Success"
  - otherwise: failure "Failure"
'''


def chance(dv: int, attribute: int) -> Fraction:
    """A Check's chance of success by counting the d20's faces: the automatic success below DV 0, else
    DV < face < Attribute."""
    return Fraction(1) if dv < 0 else Fraction(sum(dv < face < attribute for face in range(1, 21)), 20)


def test_a_roll_charted_by_two_inputs_draws_a_grid_of_its_chance_of_success() -> None:
    """`chart:` with `rows:` and `columns:` gives the exact chance of success at every value of both inputs
    (checked against counting faces), the sheet draws a few of each, headed as the card's words write them,
    and a roll whose chances are a line of the grid (Stealth at DV 0, by skill) points to it, its words
    making the link, while one whose chances are not (Sneak) keeps its own chart."""
    data = export_data(load_text(CHECKS, "g.rules", "g").checked)
    check = data["definitions"][0]
    grid = check["odds"]["grid"]
    assert (check["odds"]["axis"], grid["axis"], grid["outcomes"]) == ("dv", "attribute", ["automatic_success",
                                                                                            "success"])
    assert grid["values"] == list(range(1, 21)) and "attribute" not in check["odds"]["fixed"]
    assert [row["value"] for row in check["odds"]["rows"]] == list(range(-2, 23))
    assert all(Fraction(grid["cells"][i][j]) == chance(dv, attribute)
               for i, dv in enumerate(range(-2, 23)) for j, attribute in enumerate(range(1, 21)))
    drawn = chart(check["odds"])
    assert drawn is not None and drawn["grid"] and len(drawn["rows"]) == len(drawn["columns"]) == GRID_ROWS
    # always below DV 0 and never from DV 19: certain rows the grid leaves to the table; attribute 1 never
    assert [r["value"] for r in drawn["rows"]][::4] == [0, 18] and drawn["columns"][::4] == [2, 20]
    assert drawn["rows"][0]["cells"] == ["5%", "25%", "50%", "75%", "95%"]
    html = to_html(data)
    card = html.split('id="check"')[1].split("</article>")[0]
    assert '<caption>Chance of success</caption>' in card and "<svg" not in card
    assert '<th scope="colgroup" colspan="5">Attribute</th>' in card and '<th scope="col">DV</th>' in card
    assert re.search(r'<th scope="row">0</th><td>5%</td><td>25%</td>', card)
    stealth_card = html.split('id="stealth"')[1].split("</article>")[0]
    assert 'Skill <a class="term" href="#check">Check</a>' in stealth_card and "<svg" not in stealth_card
    assert "<svg" in html.split('id="sneak"')[1].split("</article>")[0]


@pytest.mark.parametrize(("chart_lines", "message", "line", "column"), [
    ("    rows: skill\n", "`rows: skill` names no number, yes/no or choice input of `check`", 9, 11),
    ("    columns: attribute\n", "a chart with `columns:` needs `rows:` too", 8, 3),
    ("    rows: dv\n    columns: dv\n", "the chart's rows and columns are both `dv`", 10, 5),
    ("    rows: dv\n    across: attribute\n", "`chart:` has no `across:`", 10, 5),
])
def test_a_chart_names_the_rolls_inputs_or_is_an_error_at_its_line(chart_lines: str, message: str, line: int,
                                                                   column: int) -> None:
    source = CHECKS.replace("    rows: dv\n    columns: attribute\n", chart_lines)
    with pytest.raises(CompileError) as error:
        load_text(source, "g.rules", "g")
    problems = [d for d in error.value.report.diagnostics if d.severity == "error"]
    assert [(p.message, p.span.line, p.span.column) for p in problems] == [(message, line, column)]


def test_a_chart_names_an_abbreviation_as_the_rules_write_it() -> None:
    """An input a chart names is in words, an abbreviation the rules write in two or three capitals in capitals
    ("Odds by DN", "their WIL"), a term set in capitals for emphasis ("GOSSIP") not."""
    from rulecraft.backends.render import as_written, capitals_of

    capitals = capitals_of({"definitions": [{"text": "Roll your WIL die against the DN, with GOSSIP.",
                                             "bands": [{"text": "Lose 1 HP."}], "entries": []}]})
    assert capitals == {"WIL", "DN", "HP"}
    assert [as_written(name, capitals) for name in ("dn", "their_wil", "gossip", "hp_left")] == [
        "DN", "their WIL", "gossip", "HP left"]
    html = to_html(export_data(load("dice_ladder").checked))
    assert "Odds by DN" in html and "Odds by dn" not in html
