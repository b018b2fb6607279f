"""Rule text with quotes, backslashes, triple quotes, template syntax, markup and non-ASCII
compiles to Python and HTML that reproduce it exactly and execute none of it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data, to_html

from .conftest import ROOT, compile_module

FIXTURE = Path(__file__).parent / "fixtures" / "injection.rules"
TEXT = (
    "Quotes \" and ' and triple \"\"\" and ''' and backslash \\ and {{ jinja }} and {% block %} and "
    "<script>alert(1)</script> and non-ASCII: é, ß, 中文, 🎲"
)


def test_python_reproduces_text_exactly_and_runs_none_of_it(tmp_path: Path) -> None:
    loaded = load(str(FIXTURE))
    module = compile_module(generate(loaded.checked), "generated_injection")
    definition = loaded.checked.get("nasty")
    assert definition is not None and definition.text == TEXT
    assert TEXT in module.nasty.__doc__
    low = module.nasty(level=0, rng=random.Random(1))
    outcomes = {b.id: b for b in definition.bands}  # type: ignore[union-attr]
    assert outcomes["low"].text == "__import__('os').system('echo pwned') \\n {{ config }}"
    assert module.RULESET == "injection"
    assert module.TITLE == 'Injection "test" </title><script>alert(1)</script>'
    assert low.trace  # rolled without executing anything from the text
    result = module.nasty(level=1, rng=random.Random(4))
    assert result.outcome.id in ("low", "high")
    if result.outcome.id == "low":
        assert result.values["note"] == "\"; import os; os.system('x'); \""


def test_html_escapes_everything() -> None:
    loaded = load(str(FIXTURE))
    html = to_html(export_data(loaded.checked))
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    assert "{{ jinja }}" in html  # printed, not evaluated
    assert "中文" in html and "🎲" in html


def test_a_font_face_in_rule_text_is_not_loaded_for_the_pdf(tmp_path: Path) -> None:
    """The PDF step loads the fonts of the sheet's own <style> once per set (render.font_config); rule
    text that spells out a style element or an @font-face rule is escaped text, and no font is fetched."""
    from rulecraft.backends.render import font_faces

    source = tmp_path / "fonts.rules"
    source.write_text('ruleset "Fonts"\n\nroll r "R" [FNT-01]\n'
                      '  text: """<style>@font-face { font-family: x; src: url(http://example.invalid/a.ttf) }</style> '
                      '@font-face { font-family: y; src: url(http://example.invalid/b.ttf) }"""\n'
                      '  roll: d6\n  - 1-3: low "Low"\n  - 4+: high "High"\n', encoding="utf-8")
    html = to_html(export_data(load(str(source)).checked))
    assert "@font-face { font-family: y; src: url(http://example.invalid/b.ttf) }" in html  # shown as text
    faces = font_faces(html)
    assert "example.invalid" not in faces
    assert faces == font_faces(to_html(export_data(load(str(FIXTURE)).checked)))  # the templates' faces only
    assert faces.count("@font-face") == 9


def test_rule_text_markup_is_only_bold_and_italic() -> None:
    from rulecraft.backends.render import rich

    assert str(rich('**Bold** and *it*, 2 * 3 * 4, x*y*z')) == \
        "<strong>Bold</strong> and <em>it</em>, 2 * 3 * 4, x*y*z"
    assert str(rich("<script>*a*</script>")) == "&lt;script&gt;<em>a</em>&lt;/script&gt;"


def test_every_name_the_generated_module_defines_is_reserved() -> None:
    """A definition named like the module's own functions or tables (`pick`, `DECKS`) would overwrite them."""
    import ast

    from rulecraft import model as m
    from rulecraft.check.names import class_name, reserved_name

    checked = load(str(ROOT / "rulesets" / "everrain.rules")).checked
    own = {d.name for d in checked.definitions}
    own |= {class_name(d.name) for d in checked.definitions if isinstance(d, (m.Track, m.Deck))}
    module = ast.parse(generate(checked))
    defined = {node.name for node in module.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined |= {t.id for node in module.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    generated = {name for name in defined - own if not name.startswith("_")}
    assert {"pick", "DECKS", "odds"} <= generated
    assert [name for name in sorted(generated) if not reserved_name(name)] == []


def test_a_generated_module_that_would_not_compile_fails_the_build_at_its_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """generate() compiles each module before anyone sees it: a codegen bug fails the build, at its line."""
    import rulecraft.backends.python as codegen

    writer = codegen.ModuleWriter
    lines = generate(load(str(FIXTURE)).checked).split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("RULESET = "))

    class Broken(writer):  # type: ignore[misc, valid-type]
        def module(self) -> str:
            text = super().module().split("\n")
            text[at] += " = = broken"
            return "\n".join(text)
    monkeypatch.setattr(codegen, "ModuleWriter", Broken)
    with pytest.raises(SyntaxError) as raised:
        generate(load(str(FIXTURE)).checked)
    assert raised.value.lineno == at + 1


NAMED_INPUTS = """\
ruleset "Names"

roll probe "Probe" [N-1]
  input type: one of a, b = a
  input random: 1..3 = 1
  input check_int: flag
  roll: 2d6 + random
  - 9+: high "High"
  - otherwise: low "Low"

roll pool "Pool" [N-2]
  input int: 1..3 = 2
  input str: one of x, y = x
  roll: (int)d6 highest
  - 6: hit "Hit"
  - otherwise: miss "Miss"
"""


def test_an_input_may_be_named_like_a_builtin_or_a_runtime_function() -> None:
    """An input is a parameter of its resolver's public function, so that function refers to `_` names only."""
    from rulecraft.api import load_text

    module = compile_module(generate(load_text(NAMED_INPUTS, "names.rules", "names").checked), "generated_names")
    for rng in (random.Random(5), None):
        probe = module.probe(type="b", random=3, check_int=True, rng=rng)
        assert probe.inputs == {"type": "b", "random": 3, "check_int": True} and probe.total == sum(probe.dice) + 3
        assert module.pool(int=3, str="y", rng=rng).inputs == {"int": 3, "str": "y"}
    with pytest.raises(ValueError, match="type must be one of a, b; not 'c'"):
        module.probe(type="c")
    with pytest.raises(ValueError, match="random must be from 1 to 3, not 4"):
        module.probe(random=4)
    with pytest.raises(ValueError, match="int must be a whole number from 1 to 3"):
        module.pool(int="3")


@pytest.mark.parametrize(("name", "why"), [("rng", "the random generator"), ("class", "a Python word"),
                                           ("_draw", "the generated module's own")])
def test_an_input_named_rng_a_keyword_or_with_an_underscore_is_refused_where_it_stands(name: str, why: str) -> None:
    from rulecraft.api import load_text
    from rulecraft.diagnostics import CompileError

    text = NAMED_INPUTS.replace("input type:", f"input {name}:")
    with pytest.raises(CompileError) as raised:
        load_text(text, "names.rules", "names")
    found = [d for d in raised.value.report.sorted() if d.code == "RESERVED-NAME"]
    assert len(found) == 1 and why in found[0].message
    assert (found[0].span.line, found[0].span.column) == (4, 9)


COLLIDING = '''ruleset "Collide"

roll a_b "AB" [C-1]
  input c: one of low (1), high (6) = low
  roll: d6 + c
  - 7+: hi "Hi"
  - otherwise: lo "Lo"

roll a "A" [C-2]
  input b_c: one of low (6), high (1) = low
  roll: d6 + b_c
  - 7+: hi "Hi"
  - otherwise: lo "Lo"
'''


def test_two_designer_names_never_make_one_module_name() -> None:
    """A roll `a_b` with a choice `c` and a roll `a` with a choice `b_c` each keep their own option numbers in the
    generated module (they once shared one table, so the module answered 100% `hi` where the odds say 1/6)."""
    from fractions import Fraction

    from rulecraft.api import load_text
    from rulecraft.semantics.odds import definition_names, odds

    checked = load_text(COLLIDING, "collide.rules", "collide").checked
    module = compile_module(generate(checked), "collide_names")
    for resolver in checked.resolvers():
        for choice in ("low", "high"):
            given = {resolver.inputs[0].name: choice}
            assert module.odds(resolver.name, **given) == odds(resolver, given, definition_names(checked))
    assert module.odds("a_b", c="low")["hi"] == Fraction(1, 6)


def test_two_tracks_that_would_be_one_class_are_refused() -> None:
    from rulecraft.api import load_text
    from rulecraft.diagnostics import CompileError

    text = 'ruleset "T"\n\ntrack x_y "XY" [T-1]\n  size: 4\n\ntrack x__y "XY2" [T-2]\n  size: 6\n'
    with pytest.raises(CompileError) as raised:
        load_text(text, "t.rules", "t")
    found = [(d.code, d.span.line, d.message) for d in raised.value.report.diagnostics]
    assert found == [("DUPLICATE", 6, "`x__y` becomes `XY` in the generated module, as `x_y` (line 3) does")]
