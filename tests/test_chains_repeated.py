"""Tables rolled several times (`-> gems x2`, `-> trinkets x d4`) and several tables (`-> weather, foes`): the
forms the syntax reads, the located refusals, every link in `Result.chain` and the trace, the runtime's count of
links, and the exact odds of a whole chain, held three ways: the compiler's (interpreted from the model), the
module's `chain_odds`, and an enumeration of every roll the module can make, branch by branch."""

from __future__ import annotations

import json
import random
import re
import types
from fractions import Fraction
from pathlib import Path

import pytest

from rulecraft import model as m
from rulecraft.api import load_text
from rulecraft.backends.python import generate
from rulecraft.cli.main import main
from rulecraft.diagnostics import CompileError
from rulecraft.semantics.odds import chain_odds as compiler_chain_odds
from rulecraft.semantics.runtime import MAX_CHAIN
from tests.conftest import ROOT, compile_module

HOARD = '''ruleset "Hoard"

table hoard "Hoard" [H-1]
  roll: d6
  - 1-3: coins "Coins"
  - 4-5: gems "Gems" -> gems x2
  - 6: trinket "Trinket" -> gems, trinkets x d2

table gems "Gems" [H-2]
  roll: d4
  - 1-3: quartz "Quartz"
  - 4: ruby "Ruby"

table trinkets "Trinkets" [H-3]
  roll: d3
  - 1-2: ring "Ring"
  - 3: crown "Crown" -> gems × 2
'''

ENCOUNTER = '''ruleset "Road"

table encounter "Encounter" [E-1]
  input night: flag = no
  roll: d6
  - 1-4: quiet "Quiet"
  - 5-6: meeting "Meeting" -> weather, foes if night else travellers x (d2)

table weather "Weather" [E-2]
  roll: d4
  - 1-3: clear "Clear"
  - 4: storm "Storm"

table foes "Foes" [E-3]
  input night: flag = no
  roll: d6
  - 1-5: wolves "Wolves"
  - 6: ghosts "Ghosts" -> weather

table travellers "Travellers" [E-4]
  roll: d3
  - 1-2: pilgrims "Pilgrims"
  - 3: merchants "Merchants"
'''


def built(text: str, name: str) -> tuple[m.CheckedRuleset, types.ModuleType]:
    checked = load_text(text, f"{name}.rules", name).checked
    return checked, compile_module(generate(checked), name)


def refused(text: str) -> list[tuple[str, int, int, str, str | None]]:
    with pytest.raises(CompileError) as caught:
        load_text(text, "game.rules", "game")
    return [(d.code, d.span.line, d.span.column, d.message, d.hint) for d in caught.value.report.diagnostics
            if d.severity == "error"]


def links(text: str, row: str) -> list[tuple[str, str | None]]:
    """The (target, times) of the first band's chain, as the language writes them."""
    checked = load_text(text.replace("ROW", row), "game.rules", "game").checked
    band = next(d for d in checked.definitions if d.name == "r").bands[0]  # type: ignore[union-attr]
    assert band.chain is not None
    return [(m.expr_text(link.target), None if link.times is None else m.expr_text(link.times))
            for link in band.chain.links]


TWO = '''ruleset "T"
table r "R" [T-1]
  roll: d6
  - 1-6: a "A" ROW
table t "T" [T-2]
  roll: d6
  - 1-6: b "B"
table u "U" [T-3]
  roll: d6
  - 1-6: c "C"
'''


@pytest.mark.parametrize(("row", "expected"), [
    ("-> t x2", [("t", "2")]),
    ("-> t x 2", [("t", "2")]),
    ("-> t X3", [("t", "3")]),
    ("-> t × 2", [("t", "2")]),
    ("-> t ×2", [("t", "2")]),
    ("-> t x d4", [("t", "d4")]),
    ("-> t x (d4)", [("t", "d4")]),
    ("-> t x (2d6)", [("t", "2d6")]),
    ("-> u, t", [("u", None), ("t", None)]),
    ("-> u, t x2", [("u", None), ("t", "2")]),
    ("-> t x2, u x d3", [("t", "2"), ("u", "d3")]),
])
def test_the_forms_a_designer_writes(row: str, expected: list[tuple[str, str | None]]) -> None:
    assert links(TWO, row) == expected


@pytest.mark.parametrize(("row", "code", "column", "message", "hint"), [
    ("-> t twice", "CHAIN-SEVERAL", 21, "a table rolled several times is written with `x` after it",
     "`-> encounters x2`"),
    ("-> 2x t", "CHAIN-SEVERAL", 19, "a table rolled several times is written with `x` after it",
     "`-> encounters x2`"),
    ("-> t * 2", "CHAIN-SEVERAL", 19, "`*` multiplies numbers; a table rolled several times is written with `x`",
     "write `-> t x2`"),
    ("-> 2 × t", "CHAIN-SEVERAL", 19, "the number of times goes after the table", "write `-> t x2`"),
    ("-> t and u", "CHAIN-SEVERAL", 19, "`and` does not join tables rolled next", "`-> t, u`"),
])
def test_curated_mistakes_say_how_to_write_it(row: str, code: str, column: int, message: str, hint: str) -> None:
    found = refused(TWO.replace("ROW", row))
    assert [(c, line, col, text) for c, line, col, text, _ in found] == [(code, 4, column, message)]
    assert hint in (found[0][4] or "")


@pytest.mark.parametrize(("row", "code", "column", "words"), [
    ("-> t x0", "TYPE", 21, "`x0` rolls `t` no times"),
    (f"-> t x{MAX_CHAIN + 1}", "TOO-LARGE", 21, f"a roll follows at most {MAX_CHAIN} links"),
    ("-> t x (d20)", "TOO-LARGE", 24, "can roll `t` 20 times"),
    ("-> t x (d4 + 1)", "TYPE", 24, "the number of times is a whole number or plain dice"),
    ("-> t x (d6!)", "TYPE", 24, "the number of times is a whole number or plain dice"),
    ("-> f x2", "TYPE", 19, "`f` is a formula"),
    ("-> t, 3", "TYPE", 22, "`->` names the table to roll next"),
    ("-> nowhere x2", "UNDEFINED", 19, "no table is named `nowhere`"),
])
def test_refusals_are_located(row: str, code: str, column: int, words: str) -> None:
    text = TWO.replace("ROW", row) + 'formula f "F" [T-4]\n  value: 3\n'
    found = refused(text)
    assert [(c, line, col) for c, line, col, _, _ in found] == [(code, 4, column)], found
    assert words in found[0][3]


def test_a_chain_that_multiplies_past_the_cap_is_refused() -> None:
    text = ('ruleset "T"\ntable a "A" [T-1]\n  roll: d6\n  - 1-6: x "X" -> b x4\n'
            'table b "B" [T-2]\n  roll: d6\n  - 1-6: y "Y" -> c x4\n'
            'table c "C" [T-3]\n  roll: d6\n  - 1-6: z "Z"\n')
    assert [(c, text_) for c, _, _, text_, _ in refused(text)] == [
        ("TOO-LARGE", f"a roll of `a` can chain through 20 more tables; the limit is {MAX_CHAIN}")]
    _, module = built(text.replace("-> c x4", "-> c x3"), "chain_cap_ok")  # 4 + 4 x 3 = 16 links: allowed
    assert len(module.a(rng=random.Random(1)).chain) == MAX_CHAIN


def test_a_loop_that_multiplies_stops_after_the_cap_of_links() -> None:
    text = 'ruleset "T"\ntable t "T" [T-1]\n  roll: d6\n  - 1-6: again "Again" -> t x3\n'
    loaded = load_text(text, "loop.rules", "loop")
    assert [d.code for d in loaded.report.diagnostics if d.severity == "warning"] == ["CHAIN-LOOP"]
    module = compile_module(generate(loaded.checked), "chain_loop")
    with pytest.raises(ValueError, match=rf"^the chain of tables reached t after {MAX_CHAIN} links; it may be"):
        module.t(rng=random.Random(1))  # counted, not 3^16 rolls
    with pytest.raises(ValueError, match=r"loops \(t -> t\)"):
        module.chain_odds("t")


def test_every_link_in_order_and_each_roll_numbered() -> None:
    _, module = built(HOARD, "chain_hoard")
    seed = next(s for s in range(200) if module.hoard(rng=random.Random(s)).outcome.id == "gems")
    result = module.hoard(rng=random.Random(seed))
    assert [link.name for link in result.chain] == ["gems", "gems"]
    assert "; then Gems (1 of 2): rolled d4: " in result.trace
    assert "; then Gems (2 of 2): rolled d4: " in result.trace
    data = result.as_dict()
    assert [link["name"] for link in data["chain"]] == ["gems", "gems"]
    # the trinket row: gems once, then the trinkets table d2 times, each trinket following its own chain
    seed = next(s for s in range(2000) if (r := module.hoard(rng=random.Random(s))).outcome.id == "trinket"
                and any(link.outcome.id == "crown" for link in r.chain) and len(r.chain) > 4)
    result = module.hoard(rng=random.Random(seed))
    names = [link.name for link in result.chain]
    assert names[0] == "gems" and names[1] == "trinkets"
    assert "; then Trinkets d2 times: rolled " in result.trace
    for index, link in enumerate(result.chain):  # each link holds exactly the links its own rows rolled
        if link.name == "trinkets":
            expected = ["gems", "gems"] if link.outcome.id == "crown" else []
            assert [following.name for following in link.chain] == expected
            assert names[index + 1:index + 1 + len(expected)] == expected


class _Branch(Exception):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class _Replay:
    """An rng that hands out a fixed prefix of values, then stops at the first roll it was not told."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix, self.index = prefix, 0

    def randint(self, low: int, high: int) -> int:
        if self.index == len(self.prefix):
            raise _Branch(low, high)
        self.index += 1
        return self.prefix[self.index - 1]


def enumerate_rolls(module: types.ModuleType, name: str, **inputs: object) -> dict[tuple[str, ...], Fraction]:
    """Every way a roll of `name` and its chain can go, die by die: the multiset of outcome ids, by weight."""
    weights: dict[tuple[str, ...], Fraction] = {}
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            result = getattr(module, name)(rng=_Replay(prefix), **inputs)
        except _Branch as branch:
            sides = branch.high - branch.low + 1
            stack.extend(([*prefix, v], weight / sides) for v in range(branch.low, branch.high + 1))
            continue
        reached = tuple(sorted([result.outcome.id, *(link.outcome.id for link in result.chain)]))
        weights[reached] = weights.get(reached, Fraction(0)) + weight
    return weights


def as_multisets(odds: dict[str, Fraction]) -> dict[tuple[str, ...], Fraction]:
    return {tuple(sorted(key.split(", "))): p for key, p in odds.items()}


@pytest.mark.parametrize(("text", "name", "inputs"), [
    (HOARD, "hoard", {}), (HOARD, "trinkets", {}), (ENCOUNTER, "encounter", {"night": False}),
    (ENCOUNTER, "encounter", {"night": True}),
])
def test_chain_odds_three_ways(text: str, name: str, inputs: dict[str, object]) -> None:
    checked, module = built(text, f"chain_truth_{name}")
    from_module = module.chain_odds(name, **inputs)
    assert from_module == compiler_chain_odds(checked, name, inputs)
    assert sum(from_module.values()) == 1
    assert as_multisets(from_module) == enumerate_rolls(module, name, **inputs)


def test_chain_odds_worked_by_hand() -> None:
    _, module = built(HOARD, "chain_hand")
    odds = module.chain_odds("hoard")
    assert odds["coins"] == Fraction(1, 2)
    # gems twice (1/3): each quartz 3/4, ruby 1/4
    assert odds["gems, quartz, quartz"] == Fraction(1, 3) * Fraction(9, 16)
    assert odds["gems, quartz, ruby"] == Fraction(1, 3) * Fraction(6, 16)
    assert odds["gems, ruby, ruby"] == Fraction(1, 3) * Fraction(1, 16)
    # a trinket (1/6): one gem, then one trinket (d2 shows 1: 1/2), a ring (2/3)
    assert odds["trinket, ruby, ring"] == Fraction(1, 6) * Fraction(1, 4) * Fraction(1, 2) * Fraction(2, 3)
    assert next(iter(odds)) == "coins"  # the first table's outcomes first, in band order


def test_the_sheet_and_the_export_say_it() -> None:
    from rulecraft.backends.render import export_data
    checked, _ = built(ENCOUNTER, "chain_sheet")
    bands = {d["name"]: d for d in export_data(checked)["definitions"]}["encounter"]["bands"]
    assert bands[1]["next"] == "weather, foes if night else travellers x d2"
    assert bands[1]["next_words"] == "roll Weather, then Foes if night, else Travellers d2 times"
    assert "next_words" not in bands[0]
    checked, _ = built(HOARD, "chain_sheet_hoard")
    bands = {d["name"]: d for d in export_data(checked)["definitions"]}["hoard"]["bands"]
    assert bands[1]["next_words"] == "roll Gems twice"


def test_inputs_pass_to_the_linked_table_by_name() -> None:
    _, module = built(ENCOUNTER, "chain_inputs")
    for seed in range(300):
        result = module.encounter(night=True, rng=random.Random(seed))
        for link in result.chain:
            if link.name == "foes":
                assert link.inputs == {"night": True}
                return
    raise AssertionError("no roll met the foes")


def _recipe(ident: str) -> str:
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    start = text.index(f"[{ident}]")
    start = text.rindex("```\n", 0, start) + 4
    return 'ruleset "Cookbook"\n\n' + text[start:text.index("```", start)]


def _documented(ident: str) -> dict[str, Fraction]:
    """The whole chain's odds the cookbook prints after recipe `ident`: `` `a, b` 1/6; ``."""
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    after = text[text.index(f"[{ident}]"):]
    said = " ".join(after[after.index("The whole chain:"):after.index("\n\n", after.index("The whole chain:"))].split())
    return {key: Fraction(value) for key, value in re.findall(r"`([a-z, ]+)` (\d+/\d+)", said)}


@pytest.mark.parametrize(("ident", "name"), [("C-60", "hoard"), ("C-62", "road")])
def test_the_cookbook_prints_the_exact_chain_odds(ident: str, name: str) -> None:
    checked, module = built(_recipe(ident), f"chain_cookbook_{name}")
    documented = _documented(ident)
    assert documented and module.chain_odds(name) == documented
    assert compiler_chain_odds(checked, name, {}) == documented
    assert as_multisets(documented) == enumerate_rolls(module, name)


def test_the_command_line_gives_the_chain_odds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "road.rules"
    path.write_text(_recipe("C-62"), encoding="utf-8")
    assert main(["odds", str(path), "road", "--chain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(o["id"], o["probability"]) for o in data["outcomes"]] == [
        ("quiet", "2/3"), ("ambush, clear, bandits", "1/6"), ("ambush, clear, wolves", "1/12"),
        ("ambush, storm, bandits", "1/18"), ("ambush, storm, wolves", "1/36")]
    loop = tmp_path / "loop.rules"
    loop.write_text('ruleset "L"\ntable t "T" [T-1]\n  roll: d6\n  - 1-5: done "Done"\n  - 6: again "Again" -> t\n',
                    encoding="utf-8")
    assert main(["odds", str(loop), "t", "--chain"]) == 1
    assert "loops (t -> t)" in capsys.readouterr().err
