"""One runner for the construct fixtures: tests/fixtures/constructs/*.md, one file per construct of the
language, each case a block of rules and what the compiler makes of it.

The format is markdown-it-py's (its tests/test_port/fixtures/*.md): a case is a title line, a line holding
only `.`, the input, a `.` line, the expected output and a closing `.` line. Anything between cases (headings,
prose) is ignored, so a file reads as a page. The title is the line just above the opening `.`; it may be a
Markdown heading (its `#`s are dropped from the test id, which is `<file>: <title>`).

    ## 2d6 reaches 10 one time in six
    .
    # by hand: totals 10, 11, 12 take 3 + 2 + 1 = 6 throws of 36
    roll attack "Attack" [T-1]
      roll: 2d6
      - 10+: hit "Hit"
      - otherwise: miss "Miss"
    .
    > odds attack
    hit: 1/6
    miss: 5/6
    .

The input is one or more definitions; a `ruleset "..."` header is added above them when they have none, and
lines are counted as the compiler counts them, header included (the rules then start at line 2), so that
a location agrees with a message that names a line. The expected output is one or more requests, each a line
`> KIND ...` followed by what it gives:

- `> odds NAME [input=value ...]`: each outcome's exact chance, `id: 7/12` in band order, zeros included. The
  compiler's odds (rulecraft.semantics.odds) and the generated module's `odds()` must agree; the runner says so if not.
- `> totals NAME [input=value ...]`: the generated module's `totals()`, `total: chance`, lowest first.
- `> roll NAME [seed=N] [input=value ...]`: the generated resolver called with `random.Random(N)` (N is 0
  when not given): its trace, then its outcome, total and values.
- `> check`: the diagnostics, errors and warnings, `line:col: severity[CODE]: message` with the hint and notes
  indented below; `no diagnostics` when there are none. A case whose rules give any diagnostic must show
  them with a `> check` (so no warning goes unseen), and rules with errors can only be checked.

Input values are written as in the rules: numbers, `yes`/`no` for flags, option names for choices.

A new case: write the title, the rules and the request lines, run the runner with RULECRAFT_UPDATE_FIXTURES=1,
which writes what each request gives under it, then read what it wrote and check it by hand: a chance of a
small roll can be counted, and a `# by hand:` comment atop the rules says how (a seeded roll's dice can be
checked against `random.Random(seed).randint`). The same variable rewrites the outputs after a
deliberate change; `git diff tests/fixtures/constructs` then shows every change:

    RULECRAFT_UPDATE_FIXTURES=1 .venv/bin/pytest tests/test_constructs.py -p no:xdist
"""

from __future__ import annotations

import difflib
import fcntl
import os
import random
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import TypeVar

import pytest

from rulecraft import model as m
from rulecraft.api import Loaded, load_text
from rulecraft.backends.python import generate
from rulecraft.diagnostics import CompileError, Diagnostic, Report
from rulecraft.semantics.odds import definition_names, distribution
from rulecraft.semantics.odds import odds as compiler_odds

from .conftest import compile_module

FOLDER = Path(__file__).parent / "fixtures" / "constructs"
UPDATE = os.environ.get("RULECRAFT_UPDATE_FIXTURES", "") not in ("", "0")
KINDS = ("odds", "totals", "roll", "check")
T = TypeVar("T")


class FixtureError(Exception):
    """A fixture file that does not follow the format, named by file and line."""


@dataclass(frozen=True)
class Case:
    path: Path
    index: int  # the case's place in its file, from 0
    line: int  # of the title, from 1
    title: str
    rules: str
    expected: str
    output_line: int  # of the first line after the second `.`, from 1
    output_lines: int  # how many lines the output takes, up to the closing `.`

    @property
    def id(self) -> str:
        return f"{self.path.stem}: {self.title}"


def read_cases(path: Path) -> list[Case]:
    """The cases of one fixture file, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != ".":
            i += 1
            continue
        title = lines[i - 1].strip().lstrip("#").strip() if i > 0 else ""
        if not title or title == ".":
            raise FixtureError(f"{path}:{i + 1}: a case starts with a title line, then `.`")
        dots = [j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "."][:2]
        if len(dots) < 2:
            raise FixtureError(f"{path}:{i}: case {title!r} is not closed: title, `.`, rules, `.`, output, `.`")
        rules, expected = "\n".join(lines[i + 1:dots[0]]), "\n".join(lines[dots[0] + 1:dots[1]])
        cases.append(Case(path, len(cases), i, title, rules + "\n", expected, dots[0] + 2,
                          dots[1] - dots[0] - 1))
        i = dots[1] + 1
    titles = [c.title for c in cases]
    for case in cases:
        if titles.count(case.title) > 1:
            raise FixtureError(f"{path}:{case.line}: two cases are titled {case.title!r}")
    return cases


def all_cases() -> list[Case]:
    return [case for path in sorted(FOLDER.glob("*.md")) for case in read_cases(path)]


# ---------------------------------------------------------------------------------------------- the requests


@dataclass(frozen=True)
class Request:
    kind: str
    name: str
    inputs: dict[str, object]
    seed: int
    line: str  # as written, without the `> `


def parse_request(line: str, where: str) -> Request:
    words = line.split()
    if not words or words[0] not in KINDS:
        raise FixtureError(f"{where}: `> {line}` is no request; a request is `> KIND ...`, KIND one of "
                           + ", ".join(KINDS))
    kind, rest = words[0], words[1:]
    if kind == "check":
        if rest:
            raise FixtureError(f"{where}: `> check` takes nothing after it")
        return Request(kind, "", {}, 0, line)
    if not rest or "=" in rest[0]:
        raise FixtureError(f"{where}: `> {kind}` needs the name of a roll, table, lookup or formula")
    inputs: dict[str, object] = {}
    for word in rest[1:]:
        key, equals, text = word.partition("=")
        if not equals or not key or not text:
            raise FixtureError(f"{where}: `{word}` is not `input=value`")
        inputs[key] = True if text == "yes" else False if text == "no" else (
            int(text) if re.fullmatch(r"-?\d+", text) else text)
    if kind != "roll" and "seed" in inputs:
        raise FixtureError(f"{where}: only `> roll` takes a seed")
    seed = inputs.pop("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise FixtureError(f"{where}: seed={seed} is not a whole number")
    return Request(kind, rest[0], inputs, seed, line)


def requests_of(case: Case) -> list[Request]:
    """The request lines of a case's expected output."""
    found = [parse_request(line[1:].strip(), f"{case.path}:{case.output_line + n}")
             for n, line in enumerate(case.expected.split("\n")) if line.startswith(">")]
    if not case.expected.lstrip("\n").startswith(">"):
        raise FixtureError(f"{case.path}:{case.line}: the output of {case.title!r} starts with a request, "
                           "`> odds NAME`, `> totals NAME`, `> roll NAME seed=N` or `> check`")
    return found


# ------------------------------------------------------------------------------------ compiling, and running


HEADER = re.compile(r"^ruleset\s", re.MULTILINE)


@dataclass
class Compiled:
    report: Report
    loaded: Loaded | None = None
    module: types.ModuleType | None = None


@cache
def compiled(rules: str, module_name: str) -> Compiled:
    header = "" if HEADER.search(rules) else 'ruleset "Construct fixture"\n'
    report = Report()
    try:
        loaded = load_text(header + rules, "fixture", "fixture", report)
    except CompileError:
        return Compiled(report)
    module = compile_module(generate(loaded.checked), module_name)
    return Compiled(report, loaded, module)


def fraction(value: Fraction) -> str:
    return str(value)  # `7/12`, `0`, `1`


def diagnostic_lines(found: Compiled) -> list[str]:
    if not found.report.diagnostics:
        return ["no diagnostics"]
    out = []
    for d in found.report.sorted():
        out.append(f"{place(d)}: {d.severity}[{d.code}]: {d.message}")
        out.extend(f"  note: {note}" for note in d.notes)
        if d.hint:
            out.append(f"  hint: {d.hint}")
    return out


def place(d: Diagnostic) -> str:
    return f"{d.span.line}:{d.span.column}" if d.span.line else "-"


def resolver_named(found: Compiled, name: str) -> m.Resolver:
    assert found.loaded is not None
    for resolver in found.loaded.checked.resolvers():
        if resolver.name == name:
            return resolver
    names = ", ".join(r.name for r in found.loaded.checked.resolvers())
    raise AssertionError(f"no roll, table, lookup or formula named {name!r} here; there are: {names}")


def answer(request: Request, found: Compiled) -> list[str]:
    """What one request gives, as the lines a fixture holds."""
    if request.kind == "check":
        return diagnostic_lines(found)
    if found.module is None:
        raise AssertionError("these rules have errors: only `> check` applies to them\n"
                             + "\n".join(diagnostic_lines(found)))
    try:
        return given(request, found, found.module)
    except Refused as refused:
        return [f"refused: {refused}"]


class Refused(Exception):
    """What the generated module told its caller (a ValueError): shown in the output, so that it is tested."""


def call(function: Callable[..., T], *args: object, **kwargs: object) -> T:
    try:
        return function(*args, **kwargs)
    except ValueError as refused:
        raise Refused(str(refused)) from None


def given(request: Request, found: Compiled, module: types.ModuleType) -> list[str]:
    if request.kind == "odds":
        theirs = call(module.odds, request.name, **request.inputs)
        resolver = resolver_named(found, request.name)
        assert found.loaded is not None
        inputs = {i.name: request.inputs.get(i.name, i.effective_default) for i in resolver.inputs}
        mine = compiler_odds(resolver, inputs, definition_names(found.loaded.checked))
        if sum(mine.values()) != 1:  # the module names what no band takes (a gap) `none`; the compiler leaves it
            mine["none"] = Fraction(1) - sum(mine.values(), Fraction(0))
        if mine != theirs:
            raise AssertionError(f"`> {request.line}`: the compiler's odds and the generated module's differ:\n"
                                 f"  compiler: {show(mine)}\n  module:   {show(theirs)}")
        lines = [f"{outcome}: {fraction(p)}" for outcome, p in mine.items()]
        flags = call(module.flag_odds, request.name, **request.inputs)
        found_flags = distribution(resolver, inputs, definition_names(found.loaded.checked)).flags
        if {flag: sum(row.values(), Fraction(0)) for flag, row in flags.items()} != found_flags:
            raise AssertionError(f"`> {request.line}`: the compiler's flags and the module's differ:\n"
                                 f"  compiler: {found_flags}\n  module:   {flags}")
        for flag, row in flags.items():
            lines.append(f"flag {flag}: {fraction(sum(row.values(), Fraction(0)))}"
                         + "".join(f", {outcome} {fraction(p)}" for outcome, p in row.items()))
        return lines
    if request.kind == "totals":
        totals: dict[int | str, Fraction] = call(module.totals, request.name, **request.inputs)
        assert sum(totals.values()) == 1, f"`> {request.line}`: the totals' chances add up to {sum(totals.values())}"
        return [f"{total}: {fraction(p)}" for total, p in totals.items()]
    if request.name not in module.RESOLVERS:
        raise Refused(f"no resolver named {request.name!r}; there are: {', '.join(module.RESOLVERS)}")
    result = call(module.RESOLVERS[request.name], rng=random.Random(request.seed), **request.inputs)
    out: list[str] = result.trace.split("\n")
    outcome = "none" if result.outcome is None else result.outcome.id
    out.append(f"outcome: {outcome}, total: {result.total}" + (f", flags: {', '.join(result.flags)}"
                                                                if result.flags else ""))
    out.extend(f"  {key}: {value!r}" for key, value in result.values.items())
    return out


def show(odds: dict[str, Fraction]) -> str:
    return ", ".join(f"{k}: {fraction(v)}" for k, v in odds.items())


def run(case: Case) -> str:
    """A case's output as it is now: each request line followed by what it gives."""
    requests = requests_of(case)
    found = compiled(case.rules, "construct_" + re.sub(r"\W", "_", case.id))
    out: list[str] = []
    for request in requests:
        out.append(f"> {request.line}")
        out.extend(answer(request, found))
    if found.report.diagnostics and not any(r.kind == "check" for r in requests):
        raise AssertionError("these rules give diagnostics; show them with a `> check` request:\n"
                             + "\n".join(diagnostic_lines(found)))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------ rewriting outputs


def rewrite(case: Case, output: str) -> None:
    """Put `output` in place of the case's expected output, in the file as it stands now: other workers may
    be rewriting other cases of the same file (pytest-xdist), so the file is locked and read again."""
    with case.path.open("r+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        lines = handle.read().split("\n")
        now = read_cases(case.path)[case.index]
        assert now.title == case.title, f"{case.path}: the cases moved while they were rewritten"
        start = now.output_line - 1  # the output's first line, from 0
        lines[start:start + now.output_lines] = output.split("\n")
        handle.seek(0)
        handle.write("\n".join(lines))
        handle.truncate()


# ------------------------------------------------------------------------------------------------- the tests


CASES = all_cases()


def test_every_construct_has_a_fixture_file() -> None:
    wanted = {"dice_sums", "dice_pools", "dice_ladders", "dice_keep", "dice_exploding", "dice_custom", "bands",
              "tables", "chains", "lookups_formulas", "rerolls", "mistakes"}
    assert wanted <= {path.stem for path in FOLDER.glob("*.md")}


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_construct(case: Case) -> None:
    found = run(case)
    expected = case.expected.strip("\n")
    if found == expected:
        return
    if UPDATE:
        rewrite(case, found)
        return
    diff = "\n".join(difflib.unified_diff(expected.split("\n"), found.split("\n"), "expected", "found",
                                          lineterm=""))
    pytest.fail(f"{case.path.name}:{case.line}: {case.title}\n--- expected\n{expected}\n--- found\n{found}\n"
                f"--- diff\n{diff}\n(if the new output is right: RULECRAFT_UPDATE_FIXTURES=1, see this file's top)",
                pytrace=False)

