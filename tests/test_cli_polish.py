"""The command line a person expects (issue 24, items 4 and 5): an original game checks clean, no message
cites a bundled game, counts are in the right number, the repeat hint runs as printed, diagnostics are in
colour on a terminal only (NO_COLOR, FORCE_COLOR), `check -` reads standard input, and a build shows its
progress on a terminal only."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from rulecraft.cli.main import main
from rulecraft.diagnostics import Code

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

ORIGINAL = '''ruleset "My game"
  author: "Me"

section "Rolls"

roll attack "Attack"
  input edge: 0..3 = 0
  roll: 2d6 + edge
  - 6 or less: miss "Miss"
  - 7-9: graze "Graze"
  - 10+: hit "Hit"

table loot "Loot"
  roll: d6
  - 1-3: "Coins"
  - 4-6: "A sword"

list moves "Moves"
  - "Strike"
  - "Parry"

clock alarm "Alarm"
  size: 4
'''

# One error (UNDEFINED) and one warning (RANGE-GAP).
MIXED = '''ruleset "Mixed"

roll gap "Gap"
  roll: 2d6
  - 6 or less: miss "Miss"
  - 10+: hit "Hit"

roll wrong "Wrong"
  roll: 2d6 + nothing
  - 7+: hit "Hit"
  - otherwise: miss "Miss"
'''

BUNDLED = re.compile(r"\b(?:D-)?(?:TOG|WW|LAD|ERR|EVR)-\d|tides.of.gold|wyrd.wolds|everrain|errant|dice_ladder",
                     re.IGNORECASE)


def env(**extra: str) -> dict[str, str]:
    """The environment of a child command: no colour variables unless given."""
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    base["PATH"] = f"{BIN}{os.pathsep}{base.get('PATH', '')}"
    return {**base, **extra}


def rulecraft(*args: str, cwd: Path, stdin: str | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "rulecraft"), *args], cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=env(**extra), timeout=120, check=False)


def on_terminal(args: list[str], cwd: Path, which: str, **extra: str) -> tuple[str, str]:
    """Run with `which` ("stdout" or "stderr") on a pseudo-terminal and the other on a pipe: (terminal, pipe)."""
    master, slave = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, which: slave}
    child = subprocess.Popen([str(BIN / "rulecraft"), *args], cwd=cwd, stdin=subprocess.DEVNULL, env=env(**extra),
                             stdout=streams["stdout"], stderr=streams["stderr"])
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal (EIO on Linux)
            break
        if not chunk:
            break
        seen += chunk
    other = child.stderr if which == "stdout" else child.stdout
    assert other is not None
    piped = other.read().decode()
    child.wait(timeout=60)
    os.close(master)
    return seen.decode(), piped


# ---------------------------------------------------------------- item 4: original games


def test_an_original_game_checks_without_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "my_game.rules"
    game.write_text(ORIGINAL, encoding="utf-8")
    assert main(["check", str(game)]) == 0
    assert capsys.readouterr().out.strip() == "no problems found"
    assert main(["check", "--json", str(game)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["diagnostics"] == [] and payload["warnings"] == 0


def test_a_transcription_still_owes_its_citations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "copied.rules"
    game.write_text(ORIGINAL.replace('  author: "Me"\n', '  source: "rulebook.txt"\n'), encoding="utf-8")
    assert main(["check", "--json", str(game)]) == 0
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert sorted(d["item"] for d in found if d["code"] == "NO-SOURCE") == ["alarm", "attack", "loot", "moves"]
    assert all("[C-1, lines 7-17]" in d["hint"] for d in found)


def string_tokens(path: Path) -> list[tuple[int, str]]:
    with path.open("rb") as handle:
        return [(t.start[0], t.string) for t in tokenize.tokenize(handle.readline) if t.type == tokenize.STRING]


@pytest.mark.parametrize("name", ["compiler/diagnostics.py", "compiler/check/checker.py",
                                  "compiler/syntax/mistakes.py", "compiler/cli/main.py"])
def test_no_message_or_hint_cites_a_bundled_game(name: str) -> None:
    cited = [(line, text) for line, text in string_tokens(ROOT / name) if BUNDLED.search(text)]
    assert cited == []


def test_the_code_table_cites_no_bundled_game() -> None:
    assert [code for code in Code if BUNDLED.search(code.meaning + code.example)] == []


def test_the_pattern_finds_bundled_ids() -> None:  # the scan above would catch what it looks for
    for text in ("[TOG-01, lines 7-17]", "D-TOG-4", "WW-02", "rulecraft check tides_of_gld".replace("gld", "gold")):
        assert BUNDLED.search(text), text
    assert not BUNDLED.search("[C-1, lines 7-17] my_game ERROR-free")


# ---------------------------------------------------------------- item 5: plurals


def test_counts_are_in_the_right_number(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mixed = tmp_path / "mixed.rules"
    mixed.write_text(MIXED, encoding="utf-8")
    assert main(["check", str(mixed)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "1 error, 1 warning"
    gap = tmp_path / "gap game.rules"
    gap.write_text(MIXED.split("roll wrong")[0], encoding="utf-8")
    assert main(["build", str(gap), "-o", str(tmp_path / "out"), "--format", "python"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("built 1 file in ")
    assert line.endswith(f"(1 warning; run `rulecraft check {shlex.quote(str(gap))}` to see it)")
    assert main(["build", str(gap), "-o", str(tmp_path / "out"), "--format", "python,json"]) == 0
    assert capsys.readouterr().out.startswith("built 3 files in ")  # the module, the export and schema.json
    game = tmp_path / "my_game.rules"
    game.write_text(ORIGINAL, encoding="utf-8")
    assert main(["list", str(game)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "My game (my_game): 4 definitions"
    one = tmp_path / "one.rules"
    one.write_text('ruleset "One"\n\nlist moves "Moves"\n  - "Strike"\n', encoding="utf-8")
    assert main(["list", str(one)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "One (one): 1 definition"


# ---------------------------------------------------------------- item 5: the repeat hint


@pytest.mark.parametrize("command", ["roll", "simulate"])
def test_the_repeat_hint_runs_as_printed(tmp_path: Path, command: str) -> None:
    folder = tmp_path / "my games"
    folder.mkdir()
    (folder / "my game.rules").write_text(ORIGINAL, encoding="utf-8")
    extra = ["-n", "500"] if command == "simulate" else []
    first = rulecraft(command, "my games/my game.rules", "attack", "edge=2", *extra, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    hint = re.search(r"`(rulecraft [^`]+)` repeats", first.stdout)
    assert hint is not None, first.stdout
    assert "'my games/my game.rules'" in hint.group(1)
    again = subprocess.run(["sh", "-c", hint.group(1)], cwd=tmp_path, capture_output=True, text=True, env=env(),
                           timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout


# ---------------------------------------------------------------- item 5: colour


def test_no_colour_into_a_pipe_and_colour_when_forced(tmp_path: Path) -> None:
    (tmp_path / "mixed.rules").write_text(MIXED, encoding="utf-8")
    plain = rulecraft("check", "mixed.rules", cwd=tmp_path)
    assert plain.returncode == 1 and "\x1b" not in plain.stdout and "error[UNDEFINED]" in plain.stdout
    forced = rulecraft("check", "mixed.rules", cwd=tmp_path, FORCE_COLOR="1")
    assert "\x1b[1;31merror[UNDEFINED]\x1b[0m" in forced.stdout
    assert "\x1b[1;33mwarning[RANGE-GAP]\x1b[0m" in forced.stdout
    assert re.search(r"\n +\x1b\[1;31m\^+\x1b\[0m\n", forced.stdout)  # the caret line
    assert re.sub(r"\x1b\[[0-9;]*m", "", forced.stdout) == plain.stdout
    assert "\x1b" not in rulecraft("check", "mixed.rules", cwd=tmp_path, FORCE_COLOR="0").stdout
    assert "\x1b" not in rulecraft("check", "mixed.rules", cwd=tmp_path, FORCE_COLOR="1", NO_COLOR="1").stdout


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path) -> None:
    (tmp_path / "mixed.rules").write_text(MIXED, encoding="utf-8")
    shown, _ = on_terminal(["check", "mixed.rules"], tmp_path, "stdout", TERM="xterm")
    assert "\x1b[1;31merror[UNDEFINED]" in shown
    shown, _ = on_terminal(["check", "mixed.rules"], tmp_path, "stdout", TERM="xterm", NO_COLOR="1")
    assert "error[UNDEFINED]" in shown and "\x1b" not in shown
    shown, _ = on_terminal(["build", "mixed.rules", "-o", "out"], tmp_path, "stderr", TERM="xterm")
    assert "\x1b[1;31merror[UNDEFINED]" in shown and "build failed" in shown


def test_colour_never_lets_rule_text_drive_the_terminal(tmp_path: Path) -> None:
    (tmp_path / "esc.rules").write_text('ruleset "X"\n\nlist l "L"\n  - "a\x1b[2Jb"\n  - "a\x1b[2Jb"\n',
                                        encoding="utf-8")
    forced = rulecraft("check", "esc.rules", cwd=tmp_path, FORCE_COLOR="1")
    assert "a\\x1b[2Jb" in forced.stdout and "\x1b[2J" not in forced.stdout


# ---------------------------------------------------------------- item 5: check -


def test_check_reads_standard_input_as_text_and_json(tmp_path: Path) -> None:
    clean = rulecraft("check", "-", cwd=tmp_path, stdin=ORIGINAL)
    assert (clean.returncode, clean.stdout) == (0, "no problems found\n")
    text = rulecraft("check", "-", cwd=tmp_path, stdin=MIXED)
    assert text.returncode == 1 and "<stdin>:9:15: error[UNDEFINED]" in text.stdout
    for flag in ("--json", "--format=json"):
        data = rulecraft("check", "-", flag, cwd=tmp_path, stdin=MIXED)
        payload = json.loads(data.stdout)
        assert data.returncode == 1 and (payload["errors"], payload["warnings"]) == (1, 1)
        assert {d["path"] for d in payload["diagnostics"]} == {"<stdin>"}


# ---------------------------------------------------------------- item 5: progress


def test_a_build_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    (tmp_path / "my_game.rules").write_text(ORIGINAL, encoding="utf-8")
    args = ["build", "my_game.rules", "-o", "out", "--format", "python,html,json"]
    shown, out = on_terminal(args, tmp_path, "stderr", TERM="xterm")
    assert out.startswith("built 4 files in ")
    assert "\rchecking my_game.rules" in shown and "my_game: sheet my_game.html" in shown
    assert "writing 4 files" in shown and shown.endswith("\r")  # the line is cleared before the summary
    quiet, out = on_terminal([*args, "-q"], tmp_path, "stderr", TERM="xterm")
    assert quiet == "" and out.startswith("built 4 files in ")
    piped = rulecraft(*args, cwd=tmp_path)
    assert piped.returncode == 0 and piped.stderr == ""


def test_progress_is_told_of_every_stage_and_sheet(tmp_path: Path) -> None:
    from rulecraft.backends.build import plan

    game = tmp_path / "my_game.rules"
    game.write_text(ORIGINAL, encoding="utf-8")
    told: list[str] = []
    plan([str(game), str(game)], ["python", "html"], tmp_path / "out", sheets=("player", "core"),
         progress=told.append)
    assert told == [f"[1/2] checking {game}", "[1/2] my_game: python resolver", "[1/2] my_game: sheet my_game.html",
                    "[1/2] my_game: sheet my_game.core.html", f"[2/2] checking {game}",
                    "[2/2] my_game: python resolver", "[2/2] my_game: sheet my_game.html",
                    "[2/2] my_game: sheet my_game.core.html"]


def test_progress_writes_nothing_off_a_terminal() -> None:
    from rulecraft.cli.targets import Progress

    stream = io.StringIO()
    progress = Progress(stream=stream)
    progress("checking x")
    progress.done()
    assert stream.getvalue() == ""
