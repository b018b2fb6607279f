"""Expressions in the words a player reads (compiler/backends/words.py), and the rule text markup the sheet
renders (render.rich): each form as the sheet prints it."""

from __future__ import annotations

import pytest

from rulecraft.api import load_text
from rulecraft.backends.render import export_data, rich, to_html
from rulecraft.backends.words import Words, names_of
from rulecraft.diagnostics import CompileError
from rulecraft.syntax.parse import parse

WORDS = [
    ("total % 2 = 0", "total is even"),
    ("total % 2 != 0", "total is odd"),
    ("count(6) >= 2", "at least 2 dice show 6"),
    ("count(6) = 1", "exactly 1 die shows 6"),
    ("count(6) + count(5)", "dice showing 6 + dice showing 5"),
    ("a >= 3 and not b", "a is at least 3 and not b"),
    ("x < 1 or y > 2", "x is less than 1 or y is more than 2"),
    ("total > dv and total < attribute", "total is more than dv and less than attribute"),
    ("total = 0 or total >= 10", "total is 0 or at least 10"),
    ("total % 2 = 0 and total > 4", "total is even and total is more than 4"),
    ("abs(d) >= 3", "the size of d is at least 3"),
    ("2 if abs(d) >= 3 else 1", "2 if the size of d is at least 3, else 1"),
    ("rank(edge) + steps", "the rank of edge + steps"),
    ("step(die, 1)", "die moved 1 steps along the ladder"),
    ("3d6 keep highest 2 + dots", "(3d6, keep the highest 2) + dots"),
    ("(rating)d6 highest", "as many d6 as rating, keep the highest"),
    ("d(weapon) - armor", "the weapon die − armor"),
    ("2d(mine) highest - d(theirs)", "(2 mine dice, keep the highest) − the theirs die"),
    ("d6! + bonus_die", "d6! + bonus die"),
    ("-2 + a * b / 2", "−2 + a × b ÷ 2"),
    ("wil * 1 + 2", "wil + 2"),
    ("max(price + -2, 0)", "price − 2, at least 0"),  # a band's datum put in: `price + profit`, profit -2
    ("price - -1", "price + 1"),
    ("price + 0", "price"),
]


@pytest.mark.parametrize(("expr", "words"), WORDS)
def test_an_expression_in_words(expr: str, words: str) -> None:
    ruleset = parse(f'ruleset "W"\nformula f "F" [W-1]\n  let v = {expr}\n  value: v\n', "w.rules")
    assert Words().expr(ruleset.items[0].lets[0].expr) == words


def test_names_read_as_the_rules_call_them() -> None:
    checked = load_text('ruleset "N"\n\ntype edge: one of none "No edge", minor "Minor edge", major "Major edge"\n\n'
                        'roll push "Push yourself" [N-1]\n  input edge: edge = none\n  roll: 2d6\n'
                        '  - 7+: hit "Hit"\n  - otherwise: miss "Miss"\n', "n.rules", "n").checked
    words = Words(names_of(checked)).within(checked.resolvers()[0])
    assert (words.name("push"), words.name("minor"), words.name("stress_marked")) == \
        ("Push yourself", "Minor edge", "stress marked")


def test_an_option_is_named_by_its_label_only_in_its_own_roll() -> None:
    """One roll's option `failure` labelled "Sprint, phys Check failed" is not another roll's `failure`, nor
    an input of that name elsewhere (it had been, the labels being one table for the whole ruleset)."""
    source = '''ruleset "N"

roll chase "Chase" [N-1]
  input sprint: one of none "No sprint", failure "Sprint, phys Check failed" = none
  roll: d6
  - 4+: hit "Hit"
  - otherwise: miss "Miss"

formula score "Score" [N-2]
  input failure: 0..3 = 0
  value: failure + 1
'''
    checked = load_text(source, "n.rules", "n").checked
    chase, score = checked.resolvers()
    words = Words(names_of(checked))
    assert words.within(chase).name("failure") == "Sprint, phys Check failed"
    assert words.within(score).name("failure") == "failure"
    data = export_data(checked)
    assert next(d for d in data["definitions"] if d["name"] == "score")["value_words"] == "failure + 1"


@pytest.mark.parametrize(("text", "html"), [
    ("1<sup>st</sup> Mate", "1<sup>st</sup> Mate"),
    ("\\Diamond Social: travel", "◇ Social: travel"),
    ("**critical** hit, *or* not", "<strong>critical</strong> hit, <em>or</em> not"),
    ("<script>x</script> <sup>too long</sup>", "&lt;script&gt;x&lt;/script&gt; &lt;sup&gt;too long&lt;/sup&gt;"),
    ("\\input{x} and \\Diamondx", "\\input{x} and \\Diamondx"),  # only the symbols, whole words
])
def test_rule_text_markup_is_rendered_and_nothing_else(text: str, html: str) -> None:
    assert str(rich(text)) == html


WORDED = '''ruleset "W"

type ladder: one of d4 (4), d6 (6), d8 (8), d10 (10), d12 (12)

roll test "Test" [W-1]
  input die: ladder = d6
  input steps: -2..2 = 0
  let rung = rank(die) + steps
  roll: d(step(die, steps))
  words:
    roll: "Roll your die, moved along the ladder by your steps"
    rung: "how far up the ladder your die sits"
    low: "if the die would fall below d4"
  - when rung < 1: low "You cannot roll."
  - 3+: pass "You pass."
  - otherwise: fail "You fail."
'''


def test_a_designer_words_what_the_generated_words_say_badly() -> None:
    data = export_data(load_text(WORDED, "w.rules", "w").checked)
    test = data["definitions"][0]
    assert test["wording"]["roll"] == "Roll your die, moved along the ladder by your steps"
    assert test["lets"][0]["words"] == "how far up the ladder your die sits"
    assert test["bands"][0]["key_words"] == "if the die would fall below d4"
    html = to_html(data)
    assert '<p class="dice"><strong>Roll your die, moved along the ladder by your steps</strong></p>' in html
    assert "stepped" not in html and "moved steps" not in html  # the generated words are not printed


def test_wording_that_names_nothing_is_an_error_naming_what_it_can_reword() -> None:
    with pytest.raises(CompileError) as error:
        load_text(WORDED.replace('    low: "if', '    lowe: "if'), "w.rules", "w")
    (problem,) = error.value.report.diagnostics
    assert (problem.span.line, problem.message) == (13, "`words:` of `test` has no `lowe` to reword")
    assert problem.hint == "it rewords one of: roll, rung, low, pass, fail"
    with pytest.raises(CompileError, match="the wording, in quotes"):
        load_text(WORDED.replace('    rung: "how far up the ladder your die sits"', "    rung: 3"), "w.rules", "w")


SAID = '''ruleset "S"

roll check "Check" [S-1]
  text: "Roll a d20: over the DV and under your attribute passes."
  input attribute: 1..20 = 10
  input dv: 1..20 = 5
  let gap = attribute - dv
  roll: d20
  words:
    roll: ""
    gap: ""
    pass: ""
    lucky: ""
  - when total > dv and total < attribute: pass "Pass"
  - otherwise: fail "Fail"
  flags:
    lucky: total = 20

lookup reach "Reach" [S-2]
  text: "Your reach is your size plus one."
  input size: 1..3 = 1
  key: size + 1
  words:
    key: ""
  - 2: near "Near"
  - otherwise: far "Far"

formula slots "Slots" [S-3]
  text: "You have twice your STR in slots."
  input str: 1..6 = 3
  value: 2 * str
  words:
    value: ""
'''


def test_an_empty_wording_says_the_rule_text_says_it() -> None:
    """`words:` "" leaves the dice line, a let, a band's key, a flag's condition, the key and the value off the
    player's and core sheets (the card's text says them); the proof prints the generated words."""
    from rulecraft.backends.player import player_cards

    data = export_data(load_text(SAID, "s.rules", "s").checked)
    check, reach, slots = data["definitions"]
    assert check["wording"] == {"roll": "", "gap": "", "pass": "", "lucky": ""}
    assert check["bands"][0]["key_words"] == "when total is more than dv and less than attribute"  # the proof's
    cards = {d["name"]: d for d in player_cards(data["definitions"])}
    assert cards["check"]["bands"][0]["key_words"] == "" and cards["check"]["lets"] == []
    assert cards["check"]["flags"][0]["words"] == "" and cards["reach"]["key_words"] == ""
    assert cards["slots"]["value_words"] == ""
    for sheet in ("player", "core"):
        html = to_html(data, sheet=sheet)
        assert "more than dv" not in html and "total is 20" not in html and "<strong>d20</strong>" not in html
        assert "size + 1" not in html and "2 × str" not in html
        assert "Lucky</strong> <span" in html or sheet == "core"  # the flag's name and odds stay
    proof = to_html(data, sheet="proof")
    for generated in ("more than dv and less than attribute", "total is 20", "<strong>d20</strong>", "size + 1",
                      "2 × str"):
        assert generated in proof
    assert slots["value_words"] == "2 × str" and reach["key_words"] == "size + 1"


def test_an_empty_wording_is_refused_only_for_what_is_not_there() -> None:
    with pytest.raises(CompileError, match="has no `lucky` to reword"):
        load_text(SAID.replace("    lucky: total = 20\n", "    luck: total = 20\n"), "s.rules", "s")
