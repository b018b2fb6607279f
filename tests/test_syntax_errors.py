"""Syntax mistakes a designer makes: the curated table is the test data, and messages are exact.

Every example of compiler/syntax_examples.MISTAKES must come out with its own code, exactly one
diagnostic, and the caret exactly under the text the example marks with `«»`. The real rulesets
are then broken the way a hurried designer breaks them, many mistakes at once, and every one must
be reported on its line, in order, with nothing else; random damage must never crash the parser.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from rulecraft.diagnostics import MAX_SHOWN, Code, CompileError, Diagnostic
from rulecraft.syntax.mistakes import MISTAKES, clean, contexts
from rulecraft.syntax.parse import MAX_SYNTAX_ERRORS, parse

ROOT = Path(__file__).resolve().parents[1]
RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))

CASES = [(mistake.code, example) for mistake in MISTAKES for example in mistake.examples]
RAW_NAMES = re.compile(r"\b(?:_NL|_INDENT|_DEDENT|\$END|__ANON_\d+|LSQB|RSQB|LPAR|RPAR|COLON|MINUS|DICE_OF|"
                       r"SOURCE_ID|STRING|NAME|INT)\b")


def diagnostics(text: str) -> list[Diagnostic]:
    with pytest.raises(CompileError) as raised:
        parse(text, "game.rules")
    return raised.value.report.sorted()


def message(text: str) -> str:
    with pytest.raises(CompileError) as raised:
        parse(text, "game.rules")
    return raised.value.report.format_text()


# ---------------------------------------------------------------- the table


def test_the_table_holds_at_least_forty_distinct_mistakes_each_with_a_worked_hint() -> None:
    codes = [mistake.code for mistake in MISTAKES]
    assert len(codes) >= 40
    assert len(set(codes)) == len(codes), "each mistake has its own code"
    for mistake in MISTAKES:
        assert re.fullmatch(r"[A-Z]+(?:-[A-Z]+)*", mistake.code)
        assert re.search(r"`[^`]+`", mistake.hint), f"{mistake.code}: the hint shows the right form in backticks"
        assert mistake.examples, mistake.code
        for example in mistake.examples:
            assert example.count("«") == 1 and example.count("»") == 1, (mistake.code, example)


@pytest.mark.parametrize("code, example", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_every_curated_mistake_gets_its_own_code_and_caret(code: str, example: str) -> None:
    text, line, column, end = clean(example)
    for header in contexts(example):
        found = diagnostics(header + text)
        shift = header.count("\n")
        got = [(d.code, d.span.line - shift, d.span.column, d.span.end_column) for d in found]
        assert got == [(code, line, column, end)], f"after {header!r}:\n" + message(header + text)
        (diagnostic,) = found
        assert diagnostic.hint and not RAW_NAMES.search(diagnostic.message + diagnostic.hint)
        assert "{" not in diagnostic.message + diagnostic.hint, "every template field is filled"


def test_missing_colon_message_is_exact() -> None:
    assert message('ruleset "E"\n\nroll r "R" [E-1]\n  roll 2d6 + wealth\n') == (
        "game.rules:4:7: error[MISSING-COLON]: missing `:` after `roll`\n"
        "   4 |   roll 2d6 + wealth\n"
        "             ^\n"
        "  hint: put a colon after the name: `roll: 2d6 + wealth`\n"
        "1 error, 0 warnings")


def test_a_range_written_with_to_is_explained_on_a_band_and_on_an_input() -> None:
    band = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  - 7 to 9: ok "ok"\n')
    assert band.startswith("game.rules:5:7: error[BAND-RANGE]: `to` is not part of a range")
    assert "ranges look like `7-9`, `10+`, `6 or less`" in band
    entry = message('ruleset "E"\n\nroll r "R" [E-1]\n  input dots: 0 to 4\n  roll: 2d6\n')
    assert entry.startswith("game.rules:4:17: error[RANGE-DOTS]: a range of values is written with two dots")
    assert "`input dots: 0..4`" in entry


def test_a_misspelt_keyword_gets_did_you_mean() -> None:
    kind = message('ruleset "E"\n\ntabel t "T" [E-1]\n  roll: d6\n')
    assert kind.startswith("game.rules:3:1: error[UNKNOWN-KIND]: `tabel` is not a kind of definition")
    assert "hint: did you mean `table`? a definition starts with one of roll, table" in kind
    keep = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll: 3d6 keep hightest 2\n')
    assert keep.startswith("game.rules:4:18: error[MISSPELT-KEYWORD]: `hightest` is not a word Rulecraft knows")
    assert "did you mean `highest`?" in keep
    header = message('rulset "Tides of Gold"\n')
    assert "error[UNKNOWN-KIND]" in header and "did you mean `ruleset`?" in header
    statement = message('ruleset "E"\n\nroll r "R" [E-1]\n  inptu dots: 0..4\n  roll: d6\n')
    assert "game.rules:4:3: error[MISSPELT-KEYWORD]: `inptu`" in statement
    assert "did you mean `input`?" in statement


def test_a_pasted_character_is_named() -> None:
    dash = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  - 7\u20139: ok\n')
    assert dash.startswith("game.rules:5:6: error[UNICODE-DASH]: `\u2013` is the en dash (U+2013), not a plain hyphen")
    space = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll:\u00a02d6\n')
    assert "error[ODD-SPACE]: an invisible no-break space (U+00A0)" in space
    feed = message('ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\x0c\n  text "x"\n')
    assert "game.rules:4:12: error[ODD-SPACE]: an invisible character U+000C" in feed
    assert "game.rules:5:" not in feed, "the next line of the same definition is not reported"


def test_an_unclosed_bracket_is_reported_where_it_opens_not_where_the_parser_gave_up() -> None:
    text = 'ruleset "E"\n\nroll r "R" [E-1]\n  roll: (dots + 1d6\n  - 7-9: x\n  - 10+: y\n'
    (found,) = diagnostics(text)
    assert (found.code, found.span.line, found.span.column, found.span.end_column) == ("UNCLOSED-PAREN", 4, 9, 20)


# ---------------------------------------------------------------- several errors at once


def test_every_definition_reports_its_first_error_sorted_and_once() -> None:
    text = ('ruleset "E"\n\n'
            'roll a "A" [E-1]\n  roll 2d6\n  - 7 to 9: x\n\n'      # 4: MISSING-COLON (the band is not reported)
            'roll b "B" [E-2]\n  roll: 2d6\n  - 10+ heroic\n\n'     # 9: ENTRY-COLON
            'tabel c "C" [E-3]\n  roll: d6\n\n'                       # 11: UNKNOWN-KIND
            'roll d "D" [E-4]\n  roll: 2d6\n  - 7-9: fine "ok"\n\n'  # fine
            'roll e "E" [E-5]\n  text: "unclosed\n')                  # 19: UNCLOSED-TEXT
    found = diagnostics(text)
    assert [(d.span.line, d.code) for d in found] == [
        (4, "MISSING-COLON"), (9, "ENTRY-COLON"), (11, "UNKNOWN-KIND"), (19, "UNCLOSED-TEXT")]


def test_many_errors_are_capped_in_the_text_report() -> None:
    body = "".join(f'roll r{i} "R" [E-{i}]\n  roll 2d6\n' for i in range(MAX_SHOWN + 7))
    with pytest.raises(CompileError) as raised:
        parse('ruleset "E"\n\n' + body, "game.rules")
    report = raised.value.report
    assert len(report.diagnostics) == MAX_SHOWN + 7
    text = report.format_text()
    assert text.count("error[MISSING-COLON]") == MAX_SHOWN
    assert "... and 7 more" in text and f"{MAX_SHOWN + 7} errors, 0 warnings" in text


def test_a_file_of_garbage_stops_at_the_limit() -> None:
    body = "".join(f'roll r{i} "R" [E-{i}]\n  roll 2d6\n' for i in range(MAX_SYNTAX_ERRORS + 20))
    assert len(diagnostics(body)) == MAX_SYNTAX_ERRORS


# ---------------------------------------------------------------- the real rulesets, broken


# A hurried designer's edits of real lines: (code, the line it fits, the edit, where the caret must be:
# the start of group `c` in the broken line). Each is applied to the first fitting line of a
# definition not broken yet; the error must be on that line, at that column, with that code.
Edit = str | Callable[[re.Match[str]], str]
BREAKS: list[tuple[str, str, Edit, str]] = [
    ("MISSING-COLON", r"^(\s+)roll: ", r"\1roll ", r"roll(?P<c>)"),
    ("MISSING-COLON", r"^(\s+)text: \"", r'\1text "', r"text(?P<c>)"),
    ("ENTRY-COLON", r"^(\s+- \d+(?:-\d+|\+)?): ", r"\1 ", r"^\s+- [-+\d]+(?P<c>)"),
    ("BAND-RANGE", r"^(\s+- \d+)-(\d+): ", r"\1 to \2: ", r" (?P<c>to) "),
    ("RANGE-OPEN", r"^(\s+- \d+) or less: ", r"\1-: ", r"- (?P<c>\d+-)"),
    ("UNICODE-DASH", r"^(\s+- \d+)-(\d+): ", "\\1\u2013\\2: ", "(?P<c>\u2013)"),
    ("CURLY-QUOTE", r'^(\s+text: )"([^"]*)"\s*$', "\\1\u201c\\2\u201d", "(?P<c>\u201c)"),
    ("UNCLOSED-TEXT", r'^(\s+text: "[^"]*)"\s*$', r"\1", r'text: (?P<c>")'),
    ("SINGLE-QUOTES", r'^(\s+text: )"([^"\']*)"\s*$', r"\1'\2'", r"text: (?P<c>')"),
    ("ODD-SPACE", r"^(\s+roll:) ", "\\1\u00a0", "(?P<c>\u00a0)"),
    ("DICE-SPACE", r"^(\s+roll: \d*)d(\d+)", r"\1d \2", r"roll: (?P<c>\d*d )"),
    ("DICE-NOTATION", r"^(\s+roll(?: if [^:]*)?: \d+d\d+) keep highest (\d+)", r"\1 kh\2", r"(?P<c>kh\d)"),
    ("MISSPELT-KEYWORD", r"^(\s+roll(?: if [^:]*)?: \d+d\d+) keep highest", r"\1 keep hightest", r"(?P<c>hightest)"),
    ("KEEP", r"^(\s+roll(?: if [^:]*)?: \d+d\d+) keep highest", r"\1 keep top", r"keep (?P<c>top)"),
    ("UNKNOWN-KIND", r"^table ", "tabel ", r"^(?P<c>)"),
    ("UNKNOWN-KIND", r"^procedure ", "procdure ", r"^(?P<c>)"),
    ("NAME-HYPHEN", r"^(roll|table) (\w+)_(\w+) ", r"\1 \2-\3 ", r"^\w+ (?P<c>)"),
    ("NAME-DIGIT", r"^(roll|table|list) (\w+) ", r"\1 2nd_\2 ", r"^\w+ (?P<c>)"),
    ("UNQUOTED-LABEL", r'^(list \w+) "([\w ]+)" \[', r"\1 \2 [", r"^\w+ \w+ (?P<c>)"),
    ("HEADER-COLON", r"^((?:roll|table|list) \w+ \"[^\"]*\" \[[^\]]*\])\s*$", r"\1:", r"(?P<c>:)$"),
    ("CITATION-ID", r"^((?:roll|table|list) \w+ \"[^\"]*\" \[)([A-Z]+)-",
     lambda m: m.group(1) + m.group(2).lower() + "-", r"\[(?P<c>)"),
    ("CITATION-COMMA", r"^((?:roll|list) \w+ \"[^\"]*\" \[[A-Z]+-\d+), (lines? )", r"\1 \2",
     r"\[[A-Z]+-\d+(?P<c>)"),
    ("CITATION-LINES", r"^((?:roll|list|table) \w+ \"[^\"]*\" \[[^\]]*), lines (\d+-\d+)\]", r"\1, \2]",
     r", (?P<c>\d+-\d+)\]"),
    ("UNCLOSED-CITATION", r"^((?:table|list) \w+ \"[^\"]*\" \[[^\]]*)\]\s*$", r"\1", r"(?P<c>\[)"),
    ("UNQUOTED-TITLE", r'^section "([^"]+)"', r"section \1", r"^section (?P<c>)"),
    ("INPUT-COLON", r"^(\s+input \w+): ", r"\1 ", r"input \w+(?P<c>)"),
    ("RANGE-DOTS", r"^(\s+input \w+: -?\d+)\.\.(\d+)", r"\1-\2", r"input \w+: -?\d+(?P<c>-)"),
    ("INPUT-DEFAULT", r"^(\s+input \w+: (?:-?\d+\.\.\d+|flag)) = (\w+)", r"\1 \2",
     r"input \w+: (?:-?\d+\.\.\d+|flag)(?P<c>)"),
    ("CHOICE-COMMAS", r"^(\s+input \w+: one of \w+), (\w+)", r"\1 \2", r"one of \w+(?P<c>)"),
    ("TYPE-COLON", r"^(type \w+): ", r"\1 ", r"^type \w+(?P<c>)"),
    ("EQUALS-FOR-COLON", r"^(\s+roll): ", r"\1 = ", r"roll (?P<c>=)"),
    ("LET-EQUALS", r"^(\s+let \w+) = ", r"\1: ", r"let \w+(?P<c>:)"),
    ("DANGLING-OPERATOR", r"^(\s+roll: .*\S)\s*$", r"\1 +", r"(?P<c>\+)$"),
    ("UNCLOSED-PAREN", r"^(\s+roll: .*\()([^()]*)\)(.*)$", r"\1\2\3", r".*(?P<c>\()"),
    ("STRAY-CLOSE", r"^(\s+roll: [^()#]*\S)\s*$", r"\1)", r"(?P<c>\))$"),
    ("TIMES-X", r"^(\s+(?:value|let \w+ =|key)[: ] ?.*?) \* ", r"\1 x ", r" (?P<c>x) "),
    ("NATURAL-NUMBER", r"^(\s+- natural) \d+:", r"\1:", r"natural(?P<c>:)"),
    ("WHEN-TEST", r"^(\s+- when) [^:]+:", r"\1:", r"when(?P<c>:)"),
    ("OTHERWISE-RANGE", r"^(\s+- otherwise):", r"\1 7:", r"otherwise (?P<c>7)"),
    ("TABLE-CELLS", r'^(\s+- [^:]+: [^"]*"[^"]*") \| ("[^"]*")', r"\1 \2", r'^\s+- [^:]+: [^"]*"[^"]*"(?P<c>)'),
    ("COLUMNS-COLON", r"^(\s+columns by \w+):", r"\1", r"columns by \w+(?P<c>)"),
    ("ERRATA-ID", r"^errata [A-Z][\w-]+ ", "errata ", r"^errata (?P<c>)"),
    ("RESOLVES-IN", r"^(\s+resolves: [A-Z][\w-]*(?:, [A-Z][\w-]*)*) in ", r"\1 ",
     r"resolves: [A-Z][\w-]*(?:, [A-Z][\w-]*)*(?P<c>)"),
    ("RESOLVES-CODE", r"^(\s+resolves: )([A-Z][A-Z-]+) ", lambda m: m.group(1) + m.group(2).lower() + " ",
     r"resolves: (?P<c>)"),
    ("FIX-TO", r"^(\s+set \S+) to ", r"\1 ", r"set \S+(?P<c>)"),
    ("FIX-TO", r"^(\s+move \S+(?: [^\]]*\])?) to ", r"\1 ", r"move \S+(?: [^\]]*\])?(?P<c>)"),
    ("TAB-INDENT", r"^  (\w+: )", r"\t\1", r"^(?P<c>)"),
    ("INDENT", r"^  (- )", r" \1", r"^(?P<c>)"),
    ("BODY-NOT-INDENTED", r"^  (text: )", r"\1", r"^(?P<c>)"),
    ("EMPTY-VALUE", r"^(\s+roll:) .*$", r"\1", r"roll:(?P<c>)"),
]


def _definition_starts(lines: list[str]) -> list[int]:
    return [i for i, text in enumerate(lines) if re.match(r"(?:section|type|errata|[a-z]+ \w+)", text)]


def _break(lines: list[str]) -> tuple[list[str], dict[int, tuple[str, int]]]:
    """Apply BREAKS, each in its own definition; returns the lines and {line: (code, caret column)}."""
    starts = _definition_starts(lines)
    broken = list(lines)
    expected: dict[int, tuple[str, int]] = {}
    used: set[int] = set()
    inside, in_text = False, []
    for text in lines:
        in_text.append(inside)
        if text.count('"""') % 2:
            inside = not inside
    for code, pattern, edit, caret in BREAKS:
        for index, text in enumerate(lines):
            owner = max((s for s in starts if s <= index), default=-1)
            if {owner - 1, owner, owner + 1} & used or in_text[index] or "#" in text:
                continue
            new = re.sub(pattern, edit, text, count=1)
            if new == text:
                continue
            if code in ("TAB-INDENT", "INDENT", "BODY-NOT-INDENTED", "EMPTY-VALUE"):
                following = lines[index + 1] if index + 1 < len(lines) else ""
                depth = len(text) - len(text.lstrip())
                if len(following) - len(following.lstrip()) != depth or index == owner + 1:
                    continue  # a line between two lines of the same depth shows the slip alone
            where = re.search(caret, new)
            assert where is not None, (code, new)
            broken[index] = new
            expected[index + 1] = (code, where.start("c") + 1)
            used.add(owner)
            break
    return broken, expected


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_a_real_ruleset_broken_many_ways_at_once_reports_each_slip_on_its_line(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    broken, expected = _break(lines)
    assert len(expected) >= 25, f"only {sorted(c for c, _ in expected.values())} fit {path.name}"
    found = diagnostics("\n".join(broken))
    got = {d.span.line: (d.code, d.span.column) for d in found}
    assert got == expected, "\n".join(
        f"line {line}: {got.get(line)} but {expected.get(line)}: {broken[line - 1][:90]!r}"
        for line in sorted(set(got) | set(expected)) if got.get(line) != expected.get(line))
    assert all(d.hint and "docs/language.md" not in d.hint for d in found)


# ---------------------------------------------------------------- nothing crashes


DAMAGE = ['"', "(", ")", "[", "]", ":", "-", "+", "\t", "  ", "\n", "\u2013", "\u201c", "\u00a0", "x", "..",
          "|", "->", "#", "\\", '"""', "=", "0", "d"]


def _damaged(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text))
        choice = rng.random()
        if choice < 0.4:
            text = text[:at] + rng.choice(DAMAGE) + text[at:]
        elif choice < 0.7:
            text = text[:at] + text[at + rng.randint(1, 4):]
        else:
            start = text.rfind("\n", 0, at) + 1
            text = text[:start] + rng.choice(["", "  ", "    ", " ", "\t"]) + text[start:].lstrip(" ")
    return text


@pytest.mark.parametrize("path", RULESETS, ids=[p.stem for p in RULESETS])
def test_random_damage_never_crashes_and_every_caret_is_inside_the_file(path: Path) -> None:
    rng = random.Random(path.stem)
    lines = path.read_text(encoding="utf-8").split("\n")
    starts = _definition_starts(lines)
    for _ in range(40):
        first = rng.choice(starts)
        excerpt = "\n".join(lines[first:first + 40]) + "\n"
        damaged = _damaged(excerpt, rng)
        try:
            parse(damaged, "game.rules")
        except CompileError as error:
            report = error.report
            assert report.diagnostics and report.format_text()
            plain = damaged.split("\n")
            for d in report.diagnostics:
                assert 1 <= d.span.line <= len(plain), (d, damaged)
                assert 1 <= d.span.column < d.span.end_column <= len(plain[d.span.line - 1]) + 2, (d, damaged)
                assert d.hint and not RAW_NAMES.search(d.message + d.hint), d


# ---------------------------------------------------------------- docs/reference.md documents every code

CALLS = {"error", "warning", "Defect", "Diagnostic", "IndentationProblem", "SyntaxProblem"}  # where codes are made


def emitted_codes() -> set[str]:
    """Every code the compiler can emit: the table's, and every literal code passed where one is made."""
    codes = {mistake.code for mistake in MISTAKES} | {"SYNTAX"}
    for source in (ROOT / "compiler").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in CALLS:
                continue
            values = [*node.args, *(k.value for k in node.keywords if k.arg == "code")]
            for value in values:
                if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "Code":
                    codes.add(Code[value.attr].value)  # a member of the enum (diagnostics.Code)
                elif isinstance(value, ast.Constant) and isinstance(value.value, str) and \
                        re.fullmatch(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*", value.value) and len(value.value) > 2:
                    codes.add(value.value)
    return codes


def documented_codes() -> set[str]:
    readme = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    section = readme.split("## Diagnostics", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z][A-Z0-9-]*)` \|", section, flags=re.M))


def test_the_readme_documents_every_code_the_compiler_can_emit() -> None:
    emitted = emitted_codes()
    assert {"MISSING-COLON", "UNDEFINED", "RANGE-GAP", "NO-FILE", "INDENT", "TOO-LARGE"} <= emitted
    missing = emitted - documented_codes()
    assert not missing, f"add these codes to the Diagnostics table of docs/reference.md: {sorted(missing)}"
    stale = documented_codes() - emitted
    assert not stale, f"docs/reference.md documents codes the compiler no longer emits: {sorted(stale)}"


def test_each_syntax_code_in_the_readme_comes_with_a_line_that_triggers_it() -> None:
    """The reference's example line of each syntax code, put where such a line goes, gives that code alone."""
    readme = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    section = readme.split("## Diagnostics", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z][A-Z0-9-]*)` \| [^\n]*? \| `((?:[^`\\]|\\.)+)` \|$", section, flags=re.M)
    layout = {"BOM", "ODD-SPACE", "TAB-INDENT", "INDENT", "UNEXPECTED-INDENT", "BODY-NOT-INDENTED", "EMPTY-BODY"}
    syntax_codes = {mistake.code for mistake in MISTAKES} - layout  # those the reference describes in words
    tried = set()
    for code, example in rows:
        if code not in syntax_codes | {"SYNTAX"}:
            continue
        line = example.replace("\\|", "|")
        top = re.match(r"(?:section|type|errata|ruleset)\b", line) or (
            re.match(r"[a-z]+ (?!if\b)", line) and re.search(r'[\["]', line)
            and not re.match(r"\w+\s*[:=]|(?:text|input|let)\b", line))
        if top:
            text = 'ruleset "E"\n\n' + line + "\n  roll: 2d6\n"
        elif re.match(r"(?:resolves|set|move)\b", line):
            text = 'ruleset "E"\n\nerrata D-E-1 "Fix" [E-1]\n  ' + line + "\n"
        else:
            text = 'ruleset "E"\n\nroll r "R" [E-1]\n  roll: 2d6\n  ' + line + "\n"
        assert [d.code for d in diagnostics(text)] == [code], f"{code}: {line}\n" + message(text)
        tried.add(code)
    assert tried == syntax_codes | {"SYNTAX"}, sorted(syntax_codes - tried)


def test_every_real_ruleset_still_parses() -> None:
    for path in RULESETS:
        ruleset = parse(path.read_text(encoding="utf-8"), str(path))
        assert ruleset.items


def test_a_long_line_is_shown_around_its_caret_not_whole() -> None:
    """A 40 kB line was echoed whole under its error; now the 100 characters around the caret, marked `…`."""
    from rulecraft.diagnostics import SHOWN_WIDTH, Span, format_diagnostic

    line = "  value: " + " + ".join(["x"] * 200) + " + oops + " + " + ".join(["y"] * 200)
    column = line.index("oops") + 1
    shown = format_diagnostic(Diagnostic("error", Code.UNDEFINED, "`oops` is not defined", "long.rules",
                                         Span(5, column, 5, column + 4)), "\n" * 4 + line)
    _, text, caret = shown.split("\n")
    assert text.startswith("   5 | …") and text.endswith("…") and len(text) <= len("   5 | ") + SHOWN_WIDTH + 2
    assert text[caret.index("^"):caret.index("^") + 4] == "oops" and caret.count("^") == 4
