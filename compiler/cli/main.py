"""The `rulecraft` command: build, check, diff, roll, odds, simulate, fill, play, fmt, watch, list, completion.

Every user mistake ends as one clear message and exit status 1; no
traceback reaches a user. `roll` and `odds` go through the compiled
resolver module, so the command line shows exactly what an importer gets.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shlex
import sys
import types
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from ..diagnostics import CompileError, Report, plural
from ..resources import CARD_SIZES, FORMATS
from .targets import Progress, UsageError, print_report, safe_output, targets, to_json, write_verbatim


def main(argv: Sequence[str] | None = None) -> int:
    with safe_output():  # every line printed goes through one place: control characters shown, never obeyed
        return run_command(argv)


# `roll --repeat N` keeps every roll (a deck: every card) until it prints: this many at most.
MAX_REPEAT = 1_000_000


class Parser(argparse.ArgumentParser):
    """argparse with the command's promise: a usage mistake prints the usage and one line, and exits 1."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def run_command(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["__complete"]:  # the completion scripts' callback (`rulecraft completion`): not in --help
        from .complete import callback

        return callback(words[1:], build_parser)
    parser = build_parser(words)
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help (0) or a usage mistake (1): a status, not an exception, for callers
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    from ..project import ProjectError

    try:
        return int(args.run(args))
    except (UsageError, ProjectError) as problem:
        print(f"rulecraft: {problem}", file=sys.stderr)
        return 1
    except CompileError as error:
        print_report(error.report)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def installed_version() -> str:
    """The installed distribution's version (its metadata), else the package's own (a checkout not installed)."""
    from importlib import metadata

    from .. import __version__

    try:
        return metadata.version("rulecraft")
    except metadata.PackageNotFoundError:
        return __version__


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The command line. `watch` brings a web server; its module is imported only to run it."""
    parser = Parser(prog="rulecraft", description="Compile rules written in the Rulecraft "
                                     "language into resolvers, exact odds, sheets and data.")
    parser.add_argument("--version", action="version", version=f"rulecraft {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build rulesets into output/<format>/<id>.<ext>")
    build.add_argument("paths", nargs="*", help="rulesets (ids or .rules files); default: all of rulesets/")
    build.add_argument("-o", "--output", default=None, help="output folder (default: output/)")
    build.add_argument("--format", default=None, help=f"comma-separated: {', '.join(FORMATS)} (default: the project's "
                       "`formats`, else all)")
    build.add_argument("--package", action="store_true", default=None,
                       help="write each ruleset's resolvers as an importable package, python/<id>/__init__.py with "
                       "py.typed (default: the project's `package`, else a module python/<id>.py)")
    build.add_argument("--page", choices=("a4", "letter"), default=None,
                       help="paper size of the sheets (default: the project's `page`, else a4); margins suit home "
                       "printers")
    build.add_argument("--templates", metavar="DIR", default=None,
                       help="a folder of templates (sheet.html.j2, sheet.css, ...) that override the built-in "
                            "ones file by file")
    build.add_argument("--one-page", action="store_true",
                       help="also build each ruleset's one-page sheet of its core rolls, bands and odds "
                            "(html/<id>.core.html, pdf/<id>.core.pdf)")
    build.add_argument("--card-size", choices=tuple(CARD_SIZES), default=None,
                       help="size of the cards on each deck's card sheet (default: the ruleset's `card_size:`, "
                            "else poker)")
    build.add_argument("--proof", action="store_true",
                       help="also build each ruleset's designer's proof: the player's sheet with where each card "
                            "comes from, the errata, placeholders and unknown values (html/<id>.proof.html, "
                            "pdf/<id>.proof.pdf)")
    build.add_argument("-q", "--quiet", action="store_true",
                       help="no progress line (it shows only on a terminal, on stderr, per stage and sheet)")
    build.set_defaults(run=cmd_build)

    init = sub.add_parser("init", help="start a game in a folder: settings, a starter ruleset, .gitignore, README")
    init.add_argument("folder", nargs="?", default=".", help="the game's folder (default: this one)")
    init.add_argument("--title", default=None, help="the game's title (default: from the folder's name)")
    init.set_defaults(run=cmd_init)
    check = sub.add_parser("check", help="report errors and design defects")
    check.add_argument("paths", nargs="*", help="rulesets (ids or .rules files; - reads standard input, shown "
                       "as <stdin>); default: all of rulesets/")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--json", action="store_true", help="the same as --format json")
    check.add_argument("--odds", action="store_true",
                       help="also print each band of each roll with its exact probability (at the default inputs)")
    check.set_defaults(run=cmd_check)

    diff = sub.add_parser("diff", help="what changed between two versions of a ruleset, and how the odds moved")
    diff.add_argument("old", help="the old version: a .rules file, a ruleset id, or REV:PATH from git "
                      "(e.g. HEAD:rulesets/my_game.rules)")
    diff.add_argument("new", help="the new version (same forms)")
    diff.add_argument("--json", action="store_true")
    diff.add_argument("--exit-code", action="store_true", help="exit 1 when the versions differ")
    diff.set_defaults(run=cmd_diff)

    roll = sub.add_parser("roll", help="roll a roll or table through its compiled resolver, or draw from a deck")
    roll.add_argument("ruleset")
    roll.add_argument("name")
    roll.add_argument("inputs", nargs="*", help="key=value")
    roll.add_argument("--seed", type=int, default=None)
    roll.add_argument("--json", action="store_true")
    roll.add_argument("--repeat", type=int, default=1, metavar="N",
                      help="roll N times in a row, each roll carrying what the rules say into the next "
                           f"(a deck: draw N cards); at most {MAX_REPEAT:,}")
    roll.set_defaults(run=cmd_roll)

    odds = sub.add_parser("odds", help="exact probability of each outcome")
    odds.add_argument("ruleset")
    odds.add_argument("name")
    odds.add_argument("inputs", nargs="*", help="key=value")
    odds.add_argument("--json", action="store_true")
    odds.add_argument("--totals", action="store_true", help="the chance of each total (e.g. damage) instead of "
                      "each outcome")
    odds.add_argument("--chain", action="store_true", help="the chance of each combination of outcomes the roll "
                      "and every table its `->` rows roll reach (e.g. \"trinket, ring\")")
    odds.set_defaults(run=cmd_odds)

    simulate = sub.add_parser("simulate", help="roll many times for balance work: how often each outcome came "
                              "up, beside its exact odds")
    simulate.add_argument("ruleset")
    simulate.add_argument("name")
    simulate.add_argument("inputs", nargs="*", help="key=value")
    simulate.add_argument("-n", "--rolls", type=int, default=1_000_000, metavar="N",
                          help="how many rolls (default: 1,000,000)")
    simulate.add_argument("--seed", type=int, default=None)
    simulate.add_argument("--json", action="store_true")
    simulate.set_defaults(run=cmd_simulate)

    fill = sub.add_parser("fill", help="roll until: how many rolls it takes to gather N of a band value (segments, "
                          "progress), exactly; --against races a second clock")
    fill.add_argument("ruleset")
    fill.add_argument("name", help="the roll")
    fill.add_argument("field", help="the band value each roll gives (e.g. segments)")
    fill.add_argument("target", type=int, metavar="N", help="how much of it fills the clock")
    fill.add_argument("inputs", nargs="*", help="key=value (with --against: for each roll that has the input)")
    fill.add_argument("--against", nargs=2, metavar=("[ROLL:]FIELD", "M"), default=None,
                      help="race a second clock of M: FIELD of the same roll (both marked by one roll), or of "
                           "ROLL, rolled once each round beside the first")
    fill.add_argument("--json", action="store_true")
    fill.set_defaults(run=cmd_fill)

    play = sub.add_parser("play", help="play a ruleset's game in the terminal: roll, see the state move, undo, "
                          "save and load")
    play.add_argument("ruleset")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--load", metavar="FILE", default=None, help="start from a game saved with `save FILE`")
    play.add_argument("--size", nargs="+", action="extend", default=[], metavar="TRACK=N",
                      help="the size of a track or clock the document gives none (e.g. --size stress=9)")
    play.set_defaults(run=cmd_play)

    fmt = sub.add_parser("fmt", help="rewrite rulesets in the one canonical layout (comments kept)")
    fmt.add_argument("paths", nargs="*", help="rulesets (ids or .rules files; - reads stdin and writes stdout); "
                     "default: all of rulesets/")
    fmt.add_argument("--check", action="store_true", help="change nothing; exit 1 if any file is not formatted")
    fmt.add_argument("--diff", action="store_true", help="change nothing; print what would change")
    fmt.set_defaults(run=cmd_fmt)

    watch = sub.add_parser("watch", help="rebuild on save and serve the sheets with live reload "
                           "(run `rulecraft watch --help`)")
    watch.set_defaults(run=cmd_watch)
    if list(argv)[:1] == ["watch"]:
        from .watch import configure

        configure(watch)

    listing = sub.add_parser("list", help="every definition with its kind, inputs and sources")
    listing.add_argument("ruleset")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=cmd_list)

    completion = sub.add_parser("completion", help="print a shell completion script: bash, zsh or fish "
                                "(e.g. eval \"$(rulecraft completion bash)\" in ~/.bashrc)")
    completion.add_argument("shell", help="bash, zsh or fish")
    completion.set_defaults(run=cmd_completion)
    return parser


def cmd_completion(args: argparse.Namespace) -> int:
    from .complete import print_script

    return print_script(args.shell)


# ---------------------------------------------------------------- build


def cmd_build(args: argparse.Namespace) -> int:
    from ..backends.build import plan, write_all
    from ..project import find_project
    from ..resources import display_path

    project = find_project()
    written = args.format if args.format is not None else ",".join(project.formats or FORMATS)
    formats = list(dict.fromkeys(f.strip() for f in written.split(",")))
    if "" in formats:
        wrong = "names no format" if not any(formats) else "has an empty name between commas"
        raise UsageError(f"--format {args.format!r} {wrong}; formats are: {', '.join(FORMATS)} (comma-separated); "
                         "nothing was built")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise UsageError(f"unknown format {unknown[0]!r}; formats are: {', '.join(FORMATS)}; nothing was built")
    templates = Path(args.templates) if args.templates else project.theme
    if templates is not None and not templates.is_dir():
        raise UsageError(f"{'--templates ' + args.templates if args.templates else f'theme {templates}'}: no such "
                         "folder")
    out_dir = Path(args.output) if args.output else project.output
    progress = Progress(quiet=args.quiet)
    try:
        built = plan(targets(args.paths), formats, out_dir, page=args.page or project.page or "a4", templates=templates,
                     sheets=("player", *(("proof",) if args.proof else ()), *(("core",) if args.one_page else ())),
                     package=args.package if args.package is not None else project.package, progress=progress,
                     card_size=args.card_size)
        progress(f"writing {plural(len(built.files), 'file')}")
        write_all(built.files)
    except CompileError as error:
        progress.done()
        print_report(error.report)
        print("build failed: nothing was written", file=sys.stderr)
        return 1
    except OSError as problem:
        progress.done()
        raise UsageError(f"cannot write {problem.filename or display_path(out_dir)}: {problem.strerror}; "
                         "nothing was written") from None
    progress.done()
    warnings = built.report.counts()[1]
    check = " ".join(["rulecraft check", *map(shlex.quote, args.paths)])
    print(f"built {plural(len(built.files), 'file')} in {display_path(out_dir)}/"
          + (f" ({plural(warnings, 'warning')}; run `{check}` to see {'it' if warnings == 1 else 'them'})"
             if warnings else ""))
    return 0


# ---------------------------------------------------------------- init


def cmd_init(args: argparse.Namespace) -> int:
    """`rulecraft init [FOLDER]`: a new game that builds at once."""
    from ..project import init_project
    from ..resources import display_path

    written = init_project(Path(args.folder), args.title)
    ruleset = written[1]
    print(f"started {ruleset.stem} in {display_path(Path(args.folder))}: " + ", ".join(
        display_path(path) for path in written))
    go = "" if Path(args.folder).resolve() == Path.cwd().resolve() else f"cd {shlex.quote(args.folder)} && "
    print(f"next: {go}rulecraft build, then open output/html/{ruleset.stem}.html")
    return 0


# ---------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    from ..api import Loaded, load, load_text, read_stdin

    report = Report()
    loaded: list[Loaded] = []
    as_json = args.json or args.format == "json"
    for target in targets(args.paths):
        try:  # `-`: the text an editor sends, named <stdin> in the diagnostics
            loaded.append(load_text(read_stdin(report), "<stdin>", "stdin", report) if target == "-"
                          else load(target, report))
        except CompileError:
            continue
    if as_json:
        payload = json.loads(report.format_json())
        if args.odds:
            from .review import odds_json

            payload["odds"] = {one.checked.id: odds_json(one.checked) for one in loaded}
        print(to_json(payload))
    elif report.diagnostics:
        print_report(report, sys.stdout)
    else:
        print("no problems found")
    if not as_json and args.odds:
        from .review import odds_listing

        for one in loaded:
            print()
            print(odds_listing(one.checked, one.path, one.source))
    return 1 if report.has_errors else 0


# ---------------------------------------------------------------- diff


def cmd_diff(args: argparse.Namespace) -> int:
    from .review import diff_json, diff_rulesets, format_diff

    old_name, old = load_version(args.old)
    new_name, new = load_version(args.new)
    found = diff_rulesets(old.checked, new.checked)
    if args.json:
        print(to_json(diff_json(found)))
    else:
        print(format_diff(found, old_name, new_name))
    return 1 if args.exit_code and not found.empty else 0


def load_version(spec: str) -> tuple[str, Any]:
    """A ruleset from a path or id, or from git as REV:PATH; checked, with its display name."""
    import subprocess

    from ..api import load, load_text
    from ..project import ruleset_path

    rev, sep, inside = spec.partition(":")
    if sep and rev and not Path(spec).exists() and not (len(rev) == 1 and rev.isalpha()):
        if rev.startswith("-"):  # never an option of git (`--output=FILE` writes a file)
            raise UsageError(f"diff: the revision {rev!r} starts with '-'; a revision names a commit, "
                             "e.g. HEAD~1:rulesets/my_game.rules")
        try:  # --end-of-options, and `--` after the object: what follows is never an option nor a path
            done = subprocess.run(["git", "show", "--no-textconv", "--end-of-options", f"{rev}:{inside}", "--"],
                                  capture_output=True, check=False, stdin=subprocess.DEVNULL)
        except OSError as problem:
            raise UsageError(f"cannot run git to read {spec}: {problem.strerror}") from None
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise UsageError(f"git cannot show {spec}: {message[-1] if message else 'unknown error'}")
        try:
            text = done.stdout.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{spec} is not UTF-8 text") from None
        return spec, load_text(text, spec, Path(inside).stem)
    loaded = load(spec)
    return str(ruleset_path(spec)), loaded


# ---------------------------------------------------------------- watch


def cmd_watch(args: argparse.Namespace) -> int:
    from .watch import run

    return run(args)


# ---------------------------------------------------------------- fmt


def cmd_fmt(args: argparse.Namespace) -> int:
    """Format in place (or --check / --diff). A file that does not parse is left alone and reported."""
    import difflib

    from ..api import read_ruleset, read_stdin
    from ..backends.build import write_atomic
    from ..syntax.fmt import FormatError, format_checked
    from ..syntax.parse import parse

    report = Report()
    changed: list[str] = []
    unchanged = 0
    for target in targets(args.paths):
        stdin = target == "-"
        try:
            path, shown, text = (Path("<stdin>"), "<stdin>", read_stdin(Report())) if stdin else read_ruleset(target)
            parse(text, shown)
            formatted = format_checked(text)
        except CompileError as error:
            report.diagnostics.extend(error.report.diagnostics)
            report.sources.update(error.report.sources)
            continue
        except FormatError as problem:
            raise UsageError(f"{shown}: {problem}") from None
        if stdin and not (args.check or args.diff):
            write_verbatim(formatted)
            continue
        if formatted == text:
            unchanged += 1
            continue
        changed.append(shown)
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(keepends=True),
                                                       formatted.splitlines(keepends=True), shown, shown))
        elif args.check:
            print(f"would reformat {shown}")
        else:
            write_atomic(path, formatted)
            print(f"reformatted {shown}")
    if report.diagnostics:
        print_report(report)
        print("files with errors were not formatted", file=sys.stderr)
        return 1
    if not (len(args.paths) == 1 and args.paths[0] == "-"):
        verb = "would be reformatted" if args.check or args.diff else "reformatted"
        print(f"{plural(len(changed), 'file')} {verb}, {plural(unchanged, 'file')} already formatted",
              file=sys.stderr)
    return 1 if changed and (args.check or args.diff) else 0


# ---------------------------------------------------------------- roll, odds, list


def compiled(ruleset: str) -> types.ModuleType:
    """The ruleset's resolver module: the built one in output/python when it was built from this very
    source by this version of Rulecraft, else compiled from the source now. (In a checkout, `make build`
    keeps output/ in step with the compiler, and CI fails when it is not.)"""
    import hashlib

    from .. import __version__
    from ..api import load_text, read_ruleset
    from ..check.names import module_name
    from ..project import find_project, source_name

    path, display, source = read_ruleset(ruleset)
    ruleset_id = module_name(path.stem)
    module_path = find_project().output / "python" / f"{ruleset_id}.py"
    if not module_path.is_file():  # built as a package (`build --package`)
        module_path = module_path.with_suffix("") / "__init__.py"
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    try:
        built = module_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        built = ""
    if built and f"SOURCE_SHA256 = {digest!r}" in built and \
            f"RULECRAFT_VERSION = {__version__!r}" in built:
        return _import_module(ruleset_id, module_path)
    from ..backends.python import generate

    loaded = load_text(source, display, ruleset_id, source_name=source_name(path))
    return _exec_module(loaded.checked.id, generate(loaded.checked))


def _import_module(ruleset_id: str, path: Path) -> types.ModuleType:
    """The built module, imported the usual way, so Python's bytecode cache spares compiling it again."""
    import importlib.util
    import os
    import py_compile

    cache = importlib.util.cache_from_source(str(path))
    try:
        fresh = os.stat(cache).st_mtime >= os.stat(path).st_mtime
    except OSError:
        fresh = False
    if not fresh:  # compile once into __pycache__ (even under PYTHONDONTWRITEBYTECODE: it is our own output)
        py_compile.compile(str(path), cfile=cache, doraise=False, quiet=2)
    spec = importlib.util.spec_from_file_location(f"rulecraft_{ruleset_id}", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _exec_module(ruleset_id: str, source: str) -> types.ModuleType:
    module = types.ModuleType(f"rulecraft_{ruleset_id}")
    module.__file__ = f"<{ruleset_id}>"
    sys.modules[module.__name__] = module
    exec(compile(source, f"output/python/{ruleset_id}.py", "exec"), module.__dict__)
    return module


def parse_inputs(module: types.ModuleType, name: str, pairs: Sequence[str]) -> dict[str, object]:
    if name not in module.INPUTS:
        names = ", ".join(module.INPUTS) or "none"
        raise UsageError(f"{module.RULESET} has no roll or table named {name!r}; there are: {names}")
    specs = {spec[0]: spec for spec in module.INPUTS[name]}
    out: dict[str, object] = {}
    given: dict[str, str] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise UsageError(f"write inputs as key=value, not {pair!r}")
        if key in given:
            raise UsageError(f"input {key!r} is given twice ({given[key]!r} and {pair!r}); give each input once")
        given[key] = pair
        if key not in specs:
            allowed = ", ".join(specs) or "none"
            raise UsageError(f"{name} has no input {key!r}; its inputs are: {allowed}")
        _, kind, low, high, choices, _ = specs[key]
        if kind == "int":
            try:
                value: object = int(raw)
            except ValueError:
                raise UsageError(f"{key} must be a whole number from {low} to {high}, not {raw!r}") from None
            if not low <= value <= high:
                raise UsageError(f"{key} must be from {low} to {high}, not {raw}")
        elif kind == "flag":
            lowered = raw.lower()
            if lowered not in ("yes", "no", "true", "false", "1", "0"):
                raise UsageError(f"{key} is yes or no, not {raw!r}")
            value = lowered in ("yes", "true", "1")
        else:
            if raw not in choices:
                raise UsageError(f"{key} must be one of {', '.join(choices)}; not {raw!r}")
            value = raw
        out[key] = value
    return out


def print_data(values: Mapping[str, object]) -> None:
    """A result's data under its trace, one `name: value` a line, yes/no in words (`harm: 2`)."""
    for name, value in values.items():
        shown = ("yes" if value else "no") if isinstance(value, bool) else "unknown" if value is None else value
        print(f"  {name}: {shown}")


def cmd_roll(args: argparse.Namespace) -> int:
    if not 1 <= args.repeat <= MAX_REPEAT:
        raise UsageError(f"--repeat takes a whole number of rolls from 1 to {MAX_REPEAT:,}; not {args.repeat}")
    module = compiled(args.ruleset)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if args.name in getattr(module, "DECKS", {}):
        return draw_cards(module, args, seed)
    inputs = parse_inputs(module, args.name, args.inputs)
    session = module.session(random.Random(seed))
    try:
        for _ in range(args.repeat - 1):
            earlier = session.roll(args.name, **inputs)
            if not args.json:
                print(earlier.trace)
                print_data(earlier.values)
        result = session.roll(args.name, **inputs)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    if args.json:
        payload = result.as_dict()
        payload = {"ruleset": module.RULESET, **payload, "seed": seed}
        print(to_json(payload))
    else:
        print(result.trace)
        print_data(result.values)
        repeat = f" --repeat {args.repeat}" if args.repeat > 1 else ""
        print(f"(seed {seed}: `{again('roll', args, f'--seed {seed}{repeat}')}` repeats "
              f"{'these rolls' if repeat else 'this roll'})")
    return 0


def again(command: str, args: argparse.Namespace, options: str) -> str:
    """The command line that does this again, as a shell runs it: the ruleset as it was given (an id, or a
    path that works from where the command ran), each word shell-quoted, then `options`."""
    words = ["rulecraft", command, args.ruleset, args.name, *args.inputs]
    return " ".join([words[0], words[1], *map(shlex.quote, words[2:])]) + (f" {options}" if options else "")


def new_deck(module: types.ModuleType, name: str, pairs: Sequence[str], seed: int) -> Any:
    """A freshly shuffled deck; its only input is the pile in play (`chapter=2`)."""
    deck_class = module.DECKS[name]
    named = [str(p) for p in dict.fromkeys(card[4] for card in deck_class.CARDS) if p is not None]
    pile: object = None
    if len(pairs) > 1:
        raise UsageError(f"{name} is a deck: give its pile once, not {' '.join(pairs)}" if deck_class.PILES
                         else f"{name} is a deck; it takes no inputs")
    for pair in pairs:
        key, _, raw = pair.partition("=")
        if key != deck_class.PILES or raw not in named:
            raise UsageError(f"{name} is a deck split by {deck_class.PILES}; write {deck_class.PILES}=N, one of: "
                             f"{', '.join(named)}" if deck_class.PILES else f"{name} is a deck; it takes no inputs")
        pile = next(card[4] for card in deck_class.CARDS if str(card[4]) == raw)
    try:
        return deck_class(random.Random(seed), pile)
    except ValueError as problem:
        raise UsageError(str(problem)) from None


def draw_cards(module: types.ModuleType, args: argparse.Namespace, seed: int) -> int:
    """`rulecraft roll my_game event_deck chapter=2 --repeat 5`: draw from a freshly shuffled deck."""
    deck = new_deck(module, args.name, args.inputs, seed)
    drawn = [deck.draw() for _ in range(args.repeat)]
    if args.json:
        cards = [None if c is None else {"id": c.id, "label": c.label, "text": c.text, "copy": c.copy,
                                         "pile": c.pile} for c in drawn]
        print(to_json({"ruleset": module.RULESET, "name": args.name, "pile": deck.pile, "cards": cards,
                          "remaining": deck.remaining, "seed": seed}))
        return 0
    where = f", {deck.PILES} {deck.pile}" if deck.PILES else ""
    for card in drawn:
        print(f"{deck.LABEL}{where}: " + ("empty, no card drawn" if card is None else
                                         f"drew {card.label} (copy {card.copy})"
                                         + (f": {card.text}" if card.text else "")))
    repeat = f" --repeat {args.repeat}" if args.repeat > 1 else ""
    print(f"{plural(deck.remaining, 'card')} left. (seed {seed}: `{again('roll', args, f'--seed {seed}{repeat}')}` "
          f"draws {'these cards' if len(drawn) > 1 else 'this card'} again)")
    return 0


def cmd_odds(args: argparse.Namespace) -> int:
    module = compiled(args.ruleset)
    probabilities: dict[str, Fraction]
    flags: dict[str, dict[str, Fraction]] = {}
    if args.name in getattr(module, "DECKS", {}):  # the chance of each card being the next drawn from a full deck
        deck = new_deck(module, args.name, args.inputs, 0)
        probabilities = deck.chances()
        full_inputs: dict[str, object] = {deck.PILES: deck.pile} if deck.PILES else {}
        labels = {card[0]: card[1] for card in deck.CARDS}
    else:
        inputs = parse_inputs(module, args.name, args.inputs)
        try:
            if args.totals and args.chain:
                raise UsageError("--totals and --chain ask for different odds: give one of them")
            if args.chain:
                probabilities = module.chain_odds(args.name, **inputs)
            elif args.totals:
                probabilities = {str(t): p for t, p in module.totals(args.name, **inputs).items()}
            else:
                probabilities = module.odds(args.name, **inputs)
        except ValueError as problem:
            raise UsageError(str(problem)) from None
        full_inputs = {spec[0]: inputs.get(spec[0], spec[5]) for spec in module.INPUTS[args.name]}
        labels = {} if args.totals or args.chain else outcome_labels(module, args.name)
        flags = {} if args.totals or args.chain else module.flag_odds(args.name, **inputs)
    outcomes: list[dict[str, Any]] = [
        {"id": key, "label": labels.get(key, key), "probability": f"{p.numerator}/{p.denominator}",
         "percent": round(float(p) * 100, 3)}
        for key, p in probabilities.items()
    ]
    raised = [{"id": flag, "probability": f"{p.numerator}/{p.denominator}", "percent": round(float(p) * 100, 3),
               "outcomes": {key: f"{q.numerator}/{q.denominator}" for key, q in by_outcome.items()}}
              for flag, by_outcome in flags.items() for p in (sum(by_outcome.values(), Fraction(0)),)]
    rest = next((o for o in outcomes if args.totals and re.fullmatch(r"-?\d+\+", o["id"])), None)
    note = None
    if rest is not None:  # exploding dice: every total from N up is one remainder (runtime._above)
        start = rest["id"][:-1]
        rest["label"] = f"{start} or more"
        note = (f"every total of {start} or more is one remainder: these dice explode without limit, so their "
                f"totals never end; the totals below {start} are listed one by one")
    if args.json:
        data: dict[str, object] = {"ruleset": module.RULESET, "name": args.name, "inputs": full_inputs,
                                   "outcomes": outcomes}
        if raised:
            data["flags"] = raised
        if rest is not None:
            data["remainder"] = {"id": rest["id"], "from": int(rest["id"][:-1]), "probability": rest["probability"],
                                 "note": note}
        print(to_json(data))
        return 0
    shown = ", ".join(f"{k}={v}" for k, v in full_inputs.items())
    print(f"{args.name}" + (f" ({shown})" if shown else ""))
    width = max((len(o["label"]) for o in outcomes), default=0)
    for outcome in outcomes:
        bar = "█" * round(outcome["percent"] / 2.5)
        print(f"  {outcome['label']:<{width}}  {outcome['probability']:>9}  {outcome['percent']:7.3f}%  {bar}")
    for flag, row in zip(raised, flags.values(), strict=True):
        shown = ", with " + ", ".join(f"{key} {p.numerator}/{p.denominator}" for key, p in row.items()) if row else ""
        print(f"  flag {flag['id']}: {flag['probability']} ({flag['percent']:.3f}%){shown}")
    if note is not None:
        print(f"  ({note})")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    """`rulecraft simulate my_game attack edge=2 -n 1000000`: counts beside the exact odds."""
    module = compiled(args.ruleset)
    if args.name in getattr(module, "DECKS", {}):
        raise UsageError(f"{args.name} is a deck: its draws depend on the cards already drawn; "
                         f"`{again('odds', args, '')}` gives the chance of each next card")
    inputs = parse_inputs(module, args.name, args.inputs)
    try:
        result = module.simulate(args.name, args.rolls, seed=args.seed, **inputs)
        exact = module.odds(args.name, **inputs)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    counts = result.counts
    labels = outcome_labels(module, args.name)
    rows = [{"id": key, "label": labels.get(key, key), "rolls": counts.get(key, 0),
             "percent": round(counts.get(key, 0) / max(result.n, 1) * 100, 3),
             "exact_percent": round(float(exact.get(key, Fraction(0))) * 100, 3)}
            for key in dict.fromkeys([*exact, *counts])]
    full_inputs = {spec[0]: inputs.get(spec[0], spec[5]) for spec in module.INPUTS[args.name]}
    if args.json:
        print(to_json({"ruleset": module.RULESET, "name": args.name, "inputs": full_inputs, "rolls": result.n,
                          "seed": result.seed, "outcomes": rows}))
        return 0
    shown = ", ".join(f"{k}={v}" for k, v in full_inputs.items())
    print(f"{args.name}" + (f" ({shown})" if shown else "") + f": {result.n:,} rolls")
    width = max((len(row["label"]) for row in rows), default=0)
    print(f"  {'':<{width}}  {'rolls':>11}  {'share':>8}  {'exact':>8}")
    for row in rows:
        print(f"  {row['label']:<{width}}  {row['rolls']:>11,}  {row['percent']:7.3f}%  {row['exact_percent']:7.3f}%")
    print(f"(seed {result.seed}: `{again('simulate', args, f'-n {result.n} --seed {result.seed}')}` repeats this run)")
    return 0


# ---------------------------------------------------------------- fill: roll until a clock is full


def cmd_fill(args: argparse.Namespace) -> int:
    """`rulecraft fill my_game clock_roll segments 6 dots=2`: the exact expected rolls to gather 6 segments, and
    the chance of being done within k rolls; `--against ROLL:FIELD M` races a second clock."""
    from ..semantics import fill

    module = compiled(args.ruleset)
    if args.name in getattr(module, "DECKS", {}):
        raise UsageError(f"{args.name} is a deck: its cards have no band values to gather; fill takes a roll")
    if args.target < 1:
        raise UsageError(f"N is how much fills the clock: a whole number of at least 1, not {args.target}")
    other_name, other_field, other_target = args.name, None, 0
    if args.against is not None:
        spec, raw = args.against
        other_name, _, other_field = spec.rpartition(":")
        other_name = other_name or args.name
        if other_name in getattr(module, "DECKS", {}) or other_name not in module.INPUTS:
            parse_inputs(module, other_name, [])  # names the rolls there are
        try:
            other_target = int(raw)
        except ValueError:
            raise UsageError(f"--against takes [ROLL:]FIELD and M, a whole number of at least 1; not {raw!r}") from None
        if other_target < 1:
            raise UsageError(f"--against {spec} M: M must be at least 1, not {other_target}")
    names = list(dict.fromkeys([args.name, other_name]))
    given = split_inputs(module, names, args.inputs)
    full = {name: {spec[0]: given[name].get(spec[0], spec[5]) for spec in module.INPUTS[name]} for name in names}
    checked = {d.name: d for d in load_checked(args.ruleset).definitions}
    fields = [args.field] + ([other_field] if other_field is not None and other_name == args.name else [])
    steps = step_odds(module, checked[args.name], fields, given[args.name])
    one = marginal(steps, 0)
    if not any(amount > 0 for amount in one):
        raise UsageError(f"{args.name} never gives {args.field} above 0 ({shown_inputs(full[args.name]) or 'no inputs'}"
                         f"), so a clock of {args.target} never fills")
    try:
        result = fill.fill(one, args.target)
        race: fill.Race | None = None
        if other_field is not None:
            if other_name == args.name:
                joint = {(amounts[0], amounts[1]): p for amounts, p in steps.items()}
            else:
                joint = fill.independent(one, marginal(step_odds(module, checked[other_name], [other_field],
                                                                  given[other_name]), 0))
            race = fill.race(joint, args.target, other_target)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    within = [{"rolls": k, "probability": ratio(p)} for k, p in enumerate(result.within, 1)]
    if args.json:
        data: dict[str, object] = {"ruleset": module.RULESET, "roll": args.name, "field": args.field,
                                   "target": args.target, "inputs": full[args.name],
                                   "expected": ratio(result.expected), "within": within}
        if result.capped:
            data["capped"] = True
        if race is not None:
            data["race"] = {"against": {"roll": other_name, "field": other_field, "target": other_target,
                                        "inputs": full[other_name], "same_roll": other_name == args.name},
                            "first": ratio(race.first), "second": ratio(race.second),
                            "together": ratio(race.together), "expected": ratio(race.expected)}
        print(to_json(data))
        return 0
    shown = shown_inputs(full[args.name])
    print(f"{args.name}: rolls until {args.target} {args.field}" + (f" ({shown})" if shown else ""))
    print(f"  expected rolls: {ratio(result.expected)} = {float(result.expected):.3f}")
    fits = all(len(ratio(p)) <= 20 for p in result.within)
    print(f"  {'rolls':>5}  {'done within' if fits else '':<20}  {'percent':>8}")
    for k, p in enumerate(result.within, 1):
        print(f"  {k:>5}  {ratio(p) if fits else '':<20}  {float(p) * 100:7.3f}%  {'█' * round(float(p) * 40)}")
    if not fits:
        print("  (the exact fractions are long: --json gives them)")
    if result.capped:
        print(f"  (stopped at {len(within)} rolls, still under {float(fill.DONE):.0%})")
    if race is not None:
        both = other_name == args.name
        how = "both marked by the same roll" if both else "one roll of each every round"
        one_clock, two_clock = f"{args.name} {args.field} {args.target}", f"{other_name} {other_field} {other_target}"
        print(f"race: {one_clock} against {two_clock} ({how})")
        width = max(len(one_clock), len(two_clock)) + 12
        for label, p in ((f"{one_clock} fills first", race.first), (f"{two_clock} fills first", race.second),
                         ("both fill in the same " + ("roll" if both else "round"), race.together)):
            print(f"  {label:<{width}}  {ratio(p):>20}  {float(p) * 100:7.3f}%")
        print(f"  expected {'rolls' if both else 'rounds'} until either fills: {ratio(race.expected)} = "
              f"{float(race.expected):.3f}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """`rulecraft play my_game --seed 1`: a game in play at a prompt (or fed commands on stdin); see play.py."""
    from .play import play

    return play(compiled(args.ruleset), parse_inputs, args.seed, args.load, args.size)


def ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def shown_inputs(inputs: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={'yes' if v is True else 'no' if v is False else v}" for k, v in inputs.items())


def marginal(steps: Mapping[tuple[int, ...], Fraction], index: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for amounts, p in steps.items():
        out[amounts[index]] = out.get(amounts[index], Fraction(0)) + p
    return out


def split_inputs(module: types.ModuleType, names: Sequence[str], pairs: Sequence[str]) -> dict[str, dict[str, object]]:
    """Each roll's inputs from one list of key=value: a key goes to every roll with an input of that name."""
    split: dict[str, list[str]] = {name: [] for name in names}
    for pair in pairs:
        key = pair.partition("=")[0]
        takers = [name for name in names if any(spec[0] == key for spec in module.INPUTS[name])]
        if len(names) > 1 and not takers and "=" in pair:
            raise UsageError(f"neither {' nor '.join(names)} has an input {key!r}; their inputs are: " + "; ".join(
                f"{name}: {', '.join(spec[0] for spec in module.INPUTS[name]) or 'none'}" for name in names))
        for name in takers or names[:1]:
            split[name].append(pair)
    return {name: parse_inputs(module, name, split[name]) for name in names}


def load_checked(ruleset: str) -> Any:
    from ..api import load

    return load(ruleset).checked


def field_exprs(resolver: Any, field: str) -> list[Any]:
    """Every expression giving `field` in a band or column of `resolver`; a table's number cells are its `value`.
    Refuses a field no band has, naming those they have."""
    found: dict[str, list[Any]] = {}
    for band in resolver.bands:
        for name, expr in (*band.values, *(item for _, data in band.column_values for item in data)):
            found.setdefault(name, []).append(expr)
        if resolver.columns and any(isinstance(cell, int) for cell in band.cells):
            found.setdefault("value", [])
    for column in resolver.columns:
        for name, expr in column.values:
            found.setdefault(name, []).append(expr)
    if field not in found:
        have = f"the values its bands give are: {', '.join(found)}" if found else "its bands give no values"
        raise UsageError(f"no band of {resolver.name} gives {field!r}; {have}")
    return found[field]


def step_odds(module: types.ModuleType, resolver: Any, fields: Sequence[str],
              inputs: Mapping[str, object]) -> dict[tuple[int, ...], Fraction]:
    """The exact chance of each amount of `fields` (a tuple, one per field) one roll of `resolver` gives for
    `inputs`, through the compiled module: a band without the field gives 0. A value may read the inputs, the
    roll (its total, natural, faces: exact odds then keep apart everything it reads) and roll dice of its own."""
    from .. import model as m
    from ..semantics.evaluate import ROLL_NAMES, walk

    nodes = [node for field in fields for expr in field_exprs(resolver, field) for node in walk(expr)]
    faces = any((isinstance(n, m.Name) and n.name in ("highest", "lowest")) or
                (isinstance(n, m.Call) and n.function == "count") for n in nodes)
    groups = {group.name for group in resolver.groups}
    reads_roll = faces or any(isinstance(n, (m.Dice, m.DiceRead)) or
                              (isinstance(n, m.Name) and n.name in ROLL_NAMES | groups) for n in nodes)
    rule = module._RULES[resolver.name]
    if reads_roll and rule.horizon is not None:
        raise UsageError(f"{' and '.join(fields)} of {resolver.name} reads the roll of dice that explode without "
                         "limit, whose exact odds lump every high total together; fill cannot count it exactly")
    try:
        args, plan, key = module._planned(rule, inputs)
        column = rule.column(*args) if rule.column is not None else 0

        def amounts(total: object, natural: object, tally: object, kept: object, *held: object) -> Spread:
            band = rule.band(total, natural, tally, kept, plan.zero, *args, *held)
            if rule.values is None:
                return (((0,) * len(fields), Fraction(1)),)
            if not rule.more:
                got = rule.values(band, column, None, total, natural, tally, kept, plan.zero, *args, *held)
                return ((whole_amounts(rule, band, fields, got), Fraction(1)),)
            planning = module._Planning()  # a band's data rolls dice of its own: each of their readings in turn
            rule.values(band, column, planning, total, natural, tally, kept, plan.zero, *args, *held)
            per_group, denominator = [], 1
            for spec in planning.specs:
                readings, weights = module.spec_readings(spec, *module.READ_VALUES)
                per_group.append(readings)
                denominator *= weights
            out: dict[tuple[int, ...], Fraction] = {}
            for values, _, _, _, weight in module.combined_readings(per_group):
                got = rule.values(band, column, module._Replaying(values), total, natural, tally, kept, plan.zero,
                                  *args, *held)
                got_amounts = whole_amounts(rule, band, fields, got)
                out[got_amounts] = out.get(got_amounts, Fraction(0)) + Fraction(weight, denominator)
            return tuple(out.items())

        if not rule.dice:  # a table read by its key, or a formula: one result
            joint, denominator = {(0, (key, amounts(key, None, (), ()))): 1}, 1
        else:
            joint, denominator = module.exact_joint(
                plan.specs, lambda g, h: rule.total(module._Replaying(g, h), *args),
                lambda t, n, f, k, *h: rule.band(t, n, f, k, plan.zero, *args, *h), module._rerolled(rule, args),
                module.READ_ALL if faces else rule.reads, rule.held, amounts)
    except ValueError as problem:
        raise UsageError(str(problem)) from None
    steps: dict[tuple[int, ...], Fraction] = {}
    for (_, (_, spread)), weight in joint.items():
        for got_amounts, p in spread:
            steps[got_amounts] = steps.get(got_amounts, Fraction(0)) + Fraction(weight, denominator) * p
    return steps


Spread = tuple[tuple[tuple[int, ...], Fraction], ...]  # the amounts of a result, and their chance with it


def whole_amounts(rule: Any, band: int, fields: Sequence[str], values: Mapping[str, object]) -> tuple[int, ...]:
    """The amounts a band's values give (0 where the band has no such value); each must be a whole number."""
    out = []
    for field in fields:
        value = values.get(field, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            where = f"band {rule.ids[band]}" if band >= 0 else "a result no band takes"
            shown = "unknown" if value is None else "yes" if value is True else "no" if value is False else repr(value)
            raise UsageError(f"{field} of {rule.name} is {shown} in {where}, not a whole number; fill gathers whole "
                             "numbers")
        out.append(value)
    return tuple(out)


def outcome_labels(module: types.ModuleType, name: str) -> dict[str, str]:
    table = getattr(module, f"_OUT_{name}", ())
    labels: dict[str, str] = {}
    for row in table:
        outcome = row[0]
        labels[outcome.id] = outcome.key if outcome.label == outcome.key else f"{outcome.key}: {outcome.label}"
    return labels


def cmd_list(args: argparse.Namespace) -> int:
    from ..api import load
    from ..backends.render import input_data

    loaded = load(args.ruleset)
    checked = loaded.checked
    items: list[dict[str, Any]] = []
    from .. import model as m

    for definition in checked.definitions:
        inputs = [
            {k: v for k, v in input_data(i).items() if k in ("name", "type", "min", "max", "choices", "default")}
            for i in definition.inputs
        ] if isinstance(definition, m.Resolver) else []
        items.append({"name": definition.name, "kind": definition.kind, "label": definition.label,
                      "sources": list(definition.citation.ids) if definition.citation else [],
                      "inputs": inputs})
    if args.json:
        print(to_json({"ruleset": checked.id, "title": checked.title, "items": items}))
        return 0
    print(f"{checked.title} ({checked.id}): {plural(len(items), 'definition')}")
    for item in items:
        shown = " ".join(describe_input(i) for i in item["inputs"])
        print(f"  {item['kind']:<9} {item['name']:<28} {', '.join(item['sources']):<20} {shown}")
    return 0


def describe_input(spec: dict[str, Any]) -> str:
    if spec["type"] == "int":
        text = f"{spec['name']}={spec['min']}..{spec['max']}"
    elif spec["type"] == "flag":
        text = f"{spec['name']}=yes/no"
    else:
        text = f"{spec['name']}={'|'.join(spec['choices'])}"
    return text
