"""Shell completion (issue 24, item 5): `rulecraft completion SHELL` prints a script, and the script's hidden
callback `rulecraft __complete` offers candidates computed from the parser and the project's rulesets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulecraft.cli.complete import SCRIPTS, answer
from rulecraft.cli.main import build_parser
from rulecraft.project import forget

from .conftest import ROOT

BREAKS = " \t\n\"'><=;|&(:"  # bash's default COMP_WORDBREAKS


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulecraft", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project made by `rulecraft init`, with a copy of a bundled game (choices, flags, a deck) and a ruleset
    with an error beside its starter."""
    folder = tmp_path_factory.mktemp("completion") / "star_raiders"
    folder.mkdir()
    done = run("init", cwd=folder)
    assert done.returncode == 0, done.stderr
    shutil.copy(ROOT / "rulesets" / "everrain.rules", folder / "rulesets" / "everrain.rules")
    (folder / "rulesets" / "broken.rules").write_text('ruleset "Broken"\n\nroll x "X"\n  roll: 2d6 +\n')
    (folder / "notes").mkdir()
    return folder


@pytest.fixture
def here(game: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(game)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    forget()
    return game


def offered(*words: str, shell: str = "zsh") -> tuple[str, list[str]]:
    """(the first line: what the shell adds, the values offered) for `rulecraft WORDS`, the last word the one
    being completed."""
    lines = answer([shell, *words], build_parser).splitlines()
    return lines[0], [line.split("\t")[0] for line in lines[1:]]


def described(*words: str) -> dict[str, str]:
    return dict([*line.split("\t"), ""][:2] for line in answer(["zsh", *words], build_parser).splitlines()[1:])


def test_subcommands_with_their_help_and_never_the_callback(here: Path) -> None:
    found = described("")
    assert {"build", "init", "check", "roll", "odds", "list", "completion"} <= set(found)
    assert "__complete" not in found
    assert found["check"] == "report errors and design defects"
    assert offered("ro") == ("-", ["roll"])
    assert offered("-")[1] == ["--help", "--version"]


def test_options_of_the_subcommand(here: Path) -> None:
    values = offered("build", "--")[1]
    assert {"--output", "--format", "--page", "--one-page", "--quiet", "--templates"} <= set(values)
    assert "-q" not in values and "-o" not in values  # the long form of each
    assert offered("roll", "star_raiders", "test", "--s")[1] == ["--seed"]
    assert "--json" not in offered("check", "--json", "--")[1]  # given already
    assert described("simulate", "--r")["--rolls"] == "how many rolls (default: 1,000,000)"


def test_option_values_from_choices_and_comma_lists(here: Path) -> None:
    assert offered("build", "--page", "")[1] == ["a4", "letter"]
    assert offered("build", "--page=l")[1] == ["--page=letter"]
    assert offered("check", "--format", "")[1] == ["text", "json"]
    assert offered("build", "--format", "python,h")[1] == ["python,html"]
    assert offered("build", "--format", "")[1] == ["python", "html", "pdf", "json", "yaml"]
    assert offered("build", "--format=python,json,")[1] == [
        f"--format=python,json,{f}" for f in ("html", "pdf", "yaml")]
    assert offered("build", "-o", "")[0] == "dirs"
    assert offered("roll", "star_raiders", "test", "--seed", "")[1] == []  # a number: nothing to offer
    assert offered("completion", "")[1] == ["bash", "zsh", "fish"]


def test_ruleset_ids_of_the_project_then_files(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mode, values = offered("roll", "")
    assert values == ["broken", "everrain", "star_raiders"] and mode == "-"  # ids alone for an empty word
    assert described("list", "st")["star_raiders"] == "Star raiders"  # its title
    assert offered("build", "st") == ("rules", ["star_raiders"])  # and the shell's .rules files
    assert offered("build", "rulesets/") == ("rules", [])
    monkeypatch.chdir(here / "notes")  # from any folder of the project
    assert offered("check", "e")[1] == ["everrain"]
    assert offered("diff", "star_raiders", "")[1] == ["broken", "everrain", "star_raiders"]
    assert offered("init", "") == ("dirs", [])


def test_roll_names_of_the_ruleset(here: Path) -> None:
    found = described("roll", "star_raiders", "")
    assert found == {"test": "roll: Test", "weather": "table: Weather"}  # never the clock
    assert "sea_event_deck" in offered("roll", "everrain", "sea")[1]  # a deck is drawn with `roll`
    assert "sea_event_deck" not in offered("simulate", "everrain", "sea")[1]  # simulate refuses decks
    assert offered("odds", "rulesets/star_raiders.rules", "w")[1] == ["weather"]  # a ruleset given by path
    assert offered("roll", "broken", "") == ("-", [])  # does not load: nothing, and no diagnostics
    assert offered("roll", "no_such_game", "") == ("-", [])


def test_inputs_then_their_values(here: Path) -> None:
    assert offered("roll", "star_raiders", "test", "") == ("- nospace", ["skill="])
    assert offered("odds", "star_raiders", "test", "skill=")[1] == [f"skill={n}" for n in range(-1, 4)]
    assert offered("roll", "star_raiders", "test", "skill=1", "")[1] == []  # each input once
    assert offered("roll", "star_raiders", "weather", "")[1] == []
    names = offered("odds", "everrain", "expedition_test", "")[1]
    assert {"stat=", "hermit=", "fortuitous="} <= set(names)
    assert offered("odds", "everrain", "abandon_expedition", "card=")[1] == ["card=tests", "card=choices"]
    assert offered("odds", "everrain", "expedition_test", "fortuitous=y")[1] == ["fortuitous=yes"]
    assert offered("roll", "everrain", "sea_event_deck", "") == ("- nospace", ["chapter="])
    assert offered("roll", "everrain", "sea_event_deck", "chapter=")[1] == [f"chapter={n}" for n in range(1, 5)]


def test_bash_gets_what_follows_the_word_break(here: Path) -> None:
    assert offered(BREAKS, "rulecraft roll star_raiders test skill=", shell="bash")[1] == [
        "-1", "0", "1", "2", "3"]
    assert offered(BREAKS, "rulecraft roll star_raiders test ", shell="bash") == ("- nospace", ["skill="])
    assert offered(BREAKS, "rulecraft build --format=python,js", shell="bash")[1] == ["python,json"]
    assert offered(BREAKS, "rulecraft check 'st", shell="bash")[1] == ["star_raiders"]  # an open quote
    assert answer(["bash", BREAKS, "rulecraft ro"], build_parser) == "-\nroll\n"  # no descriptions for bash


def test_the_rolls_are_kept_until_the_ruleset_changes(here: Path, tmp_path: Path) -> None:
    assert offered("roll", "star_raiders", "")[1] == ["test", "weather"]
    assert len(list((tmp_path / "cache" / "rulecraft" / "completion").glob("*.json"))) == 1
    ruleset = here / "rulesets" / "star_raiders.rules"
    before = ruleset.read_text()
    try:
        ruleset.write_text(before.replace("table weather", "table forecast"))
        assert offered("roll", "star_raiders", "")[1] == ["test", "forecast"]
    finally:
        ruleset.write_text(before)


@pytest.mark.parametrize("words", [[], ["tcsh", "x"], ["bash"], ["bash", BREAKS, ""], ["zsh", "--", "-x", "--help"],
                                   ["zsh", "roll", "--seed", "", "", ""], ["fish", "roll", "broken", "x", "a=b=c", ""],
                                   ["zsh", "nope", ""], ["zsh", "roll", "../../../../dev/zero", ""],
                                   ["bash", BREAKS, 'rulecraft "unclosed \\']])
def test_the_callback_is_silent_on_bad_input(game: Path, tmp_path: Path, words: list[str]) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    done = run("__complete", *words, cwd=game, env=env)
    assert (done.returncode, done.stderr) == (0, "")
    assert "Traceback" not in done.stdout


def test_the_callback_leaves_the_backends_alone(game: Path) -> None:
    code = ("import sys\nfrom rulecraft.cli.complete import answer\nfrom rulecraft.cli.main import build_parser\n"
            "answer(['zsh', 'roll', 'everrain', 'expedition_test', 'hermit='], build_parser)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'weasyprint', 'ruamel'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=game, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr


def test_completion_prints_a_script_and_refuses_an_unknown_shell(game: Path) -> None:
    done = run("completion", "bash", cwd=game)
    assert done.returncode == 0 and done.stdout == SCRIPTS["bash"]
    assert 'eval "$(rulecraft completion bash)"' in done.stdout
    assert "~/.config/fish/completions/rulecraft.fish" in run("completion", "fish", cwd=game).stdout
    assert "compdef _rulecraft rulecraft" in run("completion", "zsh", cwd=game).stdout
    bad = run("completion", "tcsh", cwd=game)
    assert (bad.returncode, bad.stdout) == (1, "")
    assert bad.stderr == "rulecraft: completion: unknown shell 'tcsh'; the shells are: bash, zsh, fish\n"
    shown = run("--help", cwd=game).stdout
    assert "completion" in shown and "__complete" not in shown


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_script_passes_its_shell_syntax_check(shell: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here")
    script = tmp_path / f"rulecraft.{shell}"
    script.write_text(SCRIPTS[shell])
    done = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")


def in_shell(shell: str, program: str, game: Path, tmp_path: Path) -> list[str]:
    """Run `program` in `shell` with this environment's `rulecraft` first on PATH; its output's lines."""
    command = Path(sys.executable).parent / "rulecraft"
    if shutil.which(shell) is None or not command.is_file():
        pytest.skip(f"{shell}, or a `rulecraft` command beside {sys.executable}, is not here")
    script = tmp_path / f"rulecraft.{shell}"
    script.write_text(SCRIPTS[shell])
    env = {**os.environ, "PATH": f"{command.parent}{os.pathsep}{os.environ['PATH']}",
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "SCRIPT": str(script)}
    done = subprocess.run([shell, "-c", program], cwd=game, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


BASH_ROUND_TRIP = r'''
source "$SCRIPT"
complete_line() {  # what bash sets before it calls the function: the line, the cursor, the words
    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=($2); COMP_CWORD=$3
    [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    _rulecraft_complete rulecraft "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    echo "${COMPREPLY[*]}"
}
complete_line "rulecraft ro" "rulecraft ro" 1
complete_line "rulecraft roll star_raiders " "rulecraft roll star_raiders" 3
complete_line "rulecraft odds star_raiders test skill=" "rulecraft odds star_raiders test skill =" 5
complete_line "rulecraft build rulesets/st" "rulecraft build rulesets/st" 2
complete_line "rulecraft build --page " "rulecraft build --page" 3
complete -p rulecraft
'''


def test_bash_round_trip(game: Path, tmp_path: Path) -> None:
    assert in_shell("bash", BASH_ROUND_TRIP, game, tmp_path) == [
        "roll", "test weather", "-1 0 1 2 3", "rulesets/star_raiders.rules", "a4 letter",
        "complete -F _rulecraft_complete rulecraft"]


def test_fish_round_trip(game: Path, tmp_path: Path) -> None:
    program = ('source $SCRIPT; complete -C "rulecraft roll star_raiders test skill="; '
               'complete -C "rulecraft li"; complete -C "rulecraft build rulesets/star"')
    lines = in_shell("fish", program, game, tmp_path)
    assert sorted(lines[:5]) == sorted(f"skill={n}" for n in range(-1, 4))  # fish orders them its own way
    assert lines[5:] == ["list\tevery definition with its kind, inputs and sources", "rulesets/star_raiders.rules"]


ZSH_ROUND_TRIP = r'''
compdef() { print -r -- "compdef $*"; }
_describe() { local name=$4; shift 4; print -r -- "described ${(j:,:)${(P@)name}} with [$*]"; }
_files() { print -r -- "files $*"; }
source "$SCRIPT"
words=(rulecraft odds star_raiders test ""); CURRENT=5; _rulecraft
words=(rulecraft roll everrain abandon_expedition card=); CURRENT=5; _rulecraft
words=(rulecraft check st); CURRENT=3; _rulecraft
'''


def test_zsh_script_reads_the_callback(game: Path, tmp_path: Path) -> None:
    """zsh's completion system needs a terminal; with `_describe` and `_files` stubbed, the script's own work
    (the call back, the parsing of its answer) runs for real."""
    assert in_shell("zsh", ZSH_ROUND_TRIP, game, tmp_path) == [
        "compdef _rulecraft rulecraft",
        r"described skill=:Skill: -1..3 with [-S ]",
        "described card=tests:Test,card=choices:Choice with []",
        r"described star_raiders:Star raiders with []", "files -g *.rules"]
