"""`rulecraft fmt`: one canonical layout, idempotent, comments kept, meaning unchanged."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rulecraft.cli.main import main
from rulecraft.syntax.fmt import Line, Tok, format_checked, format_source, same_meaning, split_lines

ROOT = Path(__file__).resolve().parent.parent
RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))

MESSY = '''ruleset   "E"    # the game
   author :"me"
type  dots : 0 .. 4
roll r "R" [E-1 ,lines 3 - 4]
    input  dots:dots=1 "Dots"
    input x : -2..2 = -1
    let  t = 2d6+dots*2
    roll : 2d6 + dots    # trailing
    roll if dots>=2 : 3d6 keep highest 2+ dots
    - 6 or less : fail "F"
          mark : yes
    - 7 - 9:ok "O"
    - 10 +: great "G"
    - natural 12: crit "C" -> t2
    - when t >= -3 : w "W"



# comment at zero
table t2 "T2" [E-2]
  roll: d(4)+ (dots)d6 +-1
  - 1-2: "a"|"b"
  - 3/4: "c" | -1
  text: """
      hello
        world
      """
errata E-3 "x" [E-1]
  resolves: RANGE-GAP in r
  move r[7-9] to 6 or less
'''

CANONICAL = '''ruleset "E"  # the game
  author: "me"

type dots: 0..4

roll r "R" [E-1, lines 3-4]
  input dots: dots = 1 "Dots"
  input x: -2..2 = -1
  let t = 2d6 + dots * 2
  roll: 2d6 + dots  # trailing
  roll if dots >= 2: 3d6 keep highest 2 + dots
  - 6 or less: fail "F"
      mark: yes
  - 7-9: ok "O"
  - 10+: great "G"
  - natural 12: crit "C" -> t2
  - when t >= -3: w "W"


# comment at zero
table t2 "T2" [E-2]
  roll: d(4) + (dots)d6 + -1
  - 1-2: "a" | "b"
  - 3/4: "c" | -1
  text: """
      hello
        world
      """

errata E-3 "x" [E-1]
  resolves: RANGE-GAP in r
  move r[7-9] to 6 or less
'''


def test_a_messy_ruleset_gets_the_canonical_layout() -> None:
    assert format_checked(MESSY) == CANONICAL
    assert format_checked(CANONICAL) == CANONICAL
    assert same_meaning(MESSY, CANONICAL)


def test_multi_line_text_moves_with_its_line_and_keeps_its_value() -> None:
    messy = 'ruleset "E"\n\nrule r "R" [E-1]\n      text: """\n        one\n          two\n        """\n'
    assert format_checked(messy) == 'ruleset "E"\n\nrule r "R" [E-1]\n  text: """\n    one\n      two\n    """\n'


def test_a_word_touching_a_bracket_stays_touching() -> None:
    """`d(x)` rolls a die of x sides; `d (x)` would call a function named d: the space is meaning."""
    text = 'ruleset "E"\n\nroll r "R" [E-1]\n  input n: 1..3 = 1\n  roll: d(6) + (n)d6\n  - 1+: ok "ok"\n'
    assert format_checked(text) == text


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_every_ruleset_is_formatted_and_formatting_is_idempotent(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_source(text) == text, f"run `rulecraft fmt {path.stem}`"


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_comments_are_kept(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    squeezed = re.sub(r"[ \t]+", " ", text)
    formatted = format_source(squeezed.replace("\n  ", "\n    "))
    comments = [line.strip() for line in text.splitlines() if line.strip().startswith("#")]
    assert [line.strip() for line in formatted.splitlines() if line.strip().startswith("#")] == comments


# ---------------------------------------------------------------- whitespace perturbation

_JOINABLE_OPS = {"+", "-", "*", "/", "%", "=", "==", "!=", ">=", "<=", ">", "<", "->", "|", ":", ",", "..", "(",
                 ")", "[", "]", "×", "≥", "≤"}


def _may_join(prev: Tok, tok: Tok) -> bool:
    """Removing the space between these two cannot merge them into one token or change adjacency meaning."""
    if prev.kind == "comment" or tok.kind == "comment":
        return False
    if prev.kind == "op" and tok.kind == "op":
        return False
    if _adjacency_is_meaning(prev, tok):
        return False
    if prev.kind in ("word", "string") and tok.kind in ("word", "string"):
        return False
    if prev.text == "-" and tok.text[:1].isdigit():
        return True
    return prev.text in _JOINABLE_OPS or tok.text in _JOINABLE_OPS


def _adjacency_is_meaning(prev: Tok, tok: Tok) -> bool:
    """Pairs whose touching the formatter keeps as written (`d(6)`, `(n)d6`)."""
    if "other" in (prev.kind, tok.kind):
        return True
    if tok.text == "(" and (prev.kind == "word" or prev.text in (")", "]")):
        return True
    return prev.text == ")" and tok.kind == "word"


def perturb(text: str, rng: random.Random) -> str:
    """The same ruleset with its whitespace scrambled the ways a hurried designer scrambles it."""
    scale = rng.choice((1, 2))
    out: list[str] = []
    for line in split_lines(text):
        if line.verbatim is not None:
            out.append(line.verbatim)
            continue
        if not line.tokens:
            out.append(" " * rng.randrange(3))
            continue
        pieces: list[str] = []
        for index, tok in enumerate(line.tokens):
            if tok.kind == "string" and "\n" in tok.text and scale == 2:
                first, *rest = tok.text.split("\n")
                tok = Tok(tok.kind, "\n".join([first, *((" " * line.indent + r) if r.strip() else r for r in rest)]),
                          tok.touching)
            if index:
                prev = line.tokens[index - 1]
                if tok.touching:
                    gap = "" if _adjacency_is_meaning(prev, tok) or rng.random() < 0.5 else " " * rng.randrange(1, 3)
                elif _may_join(prev, tok) and rng.random() < 0.5:
                    gap = ""
                else:
                    gap = " " * rng.randrange(1, 4)
                pieces.append(gap)
            pieces.append(tok.text)
        out.append(" " * (line.indent * scale) + "".join(pieces) + " " * rng.randrange(2))
    return "\n".join(out)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("index", range(len(RULESETS)), ids=[p.stem for p in RULESETS])
def test_scrambled_whitespace_formats_back_to_the_canonical_text(seed: int, index: int) -> None:
    canonical = RULESETS[index].read_text(encoding="utf-8")
    scrambled = perturb(canonical, random.Random(seed))
    assert same_meaning(canonical, scrambled)
    assert format_checked(scrambled) == canonical


# ---------------------------------------------------------------- the command


def test_fmt_check_diff_and_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "rulesets").mkdir()
    messy = tmp_path / "rulesets" / "e.rules"
    messy.write_text(MESSY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["fmt", "--check"]) == 1
    assert "would reformat rulesets/e.rules" in capsys.readouterr().out
    assert main(["fmt", "--diff", "e"]) == 1
    diff = capsys.readouterr().out.splitlines()
    assert "--- rulesets/e.rules" in diff and '-    - 7 - 9:ok "O"' in diff and '+  - 7-9: ok "O"' in diff
    assert messy.read_text(encoding="utf-8") == MESSY
    assert main(["fmt"]) == 0
    assert messy.read_text(encoding="utf-8") == CANONICAL
    assert main(["fmt", "--check"]) == 0
    assert "0 files would be reformatted, 1 file already formatted" in capsys.readouterr().err


def test_fmt_leaves_a_broken_file_alone_and_shows_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.rules"
    text = MESSY.replace("roll : 2d6 + dots", "roll 2d6 + dots")
    broken.write_text(text, encoding="utf-8")
    assert main(["fmt", str(broken)]) == 1
    err = capsys.readouterr().err
    assert "broken.rules:8:" in err and "error[MISSING-COLON]" in err and "were not formatted" in err
    assert broken.read_text(encoding="utf-8") == text


def test_fmt_reads_stdin_and_writes_stdout(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(MESSY))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == CANONICAL


def test_split_lines_keeps_a_multi_line_string_on_its_first_line() -> None:
    lines = split_lines('a: """\n  x\n  """\nb: 1\n')
    assert [len(line.tokens) for line in lines] == [3, 3]
    assert isinstance(lines[0], Line) and lines[0].tokens[2].text == '"""\n  x\n  """'


def test_a_minus_after_an_effects_word_stays_a_sign() -> None:
    text = ('ruleset "E"\n\nroll r "R" [E-1]\n  input n: -4..3 = 1\n  roll: d6 + n\n  when n < 0:\n    add -1 to r n\n'
            '  - 1+: ok "ok"\n      add -4 to r n\n')
    assert format_checked(text.replace("add -4", "add  - 4")) == text
