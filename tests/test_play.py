"""`rulecraft play` (issue 26, item 4): a game in play in the terminal, fed commands on a pipe as a script would,
its transcript checked against the same game played through the generated module."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from rulecraft.api import load_text
from rulecraft.backends.python import generate
from tests.conftest import compile_module
from tests.test_game_state import STATE

# The same ruleset, with a track whose size the document leaves out, which a partial marks.
STRESS = STATE.replace('resource coin "Coin"', 'track stress "Stress"\n  size: unknown\n\nresource coin "Coin"')
STRESS = STRESS.replace("      spend coin 1\n", "      spend coin 1\n      mark stress 1\n", 1)


def play(tmp_path: Path, commands: str, *args: str, source: str = STATE) -> subprocess.CompletedProcess[str]:
    ruleset = tmp_path / "state.rules"
    ruleset.write_text(source, encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "rulecraft", "play", "state.rules", *args], cwd=tmp_path,
                          input=commands, capture_output=True, text=True, timeout=120, env=env)


def answers(transcript: str) -> dict[str, list[list[str]]]:
    """Each command's output lines, by command, in order (the transcript echoes each command after the prompt)."""
    found: dict[str, list[list[str]]] = {}
    current: list[str] = []
    for line in transcript.splitlines()[1:]:
        if line.startswith("play> "):
            current = []
            found.setdefault(line[len("play> "):], []).append(current)
        else:
            current.append(line)
    return found


@pytest.fixture(scope="module")
def module() -> types.ModuleType:
    return compile_module(generate(load_text(STATE, "state.rules", "state").checked), "state_play")


def shown_track(module: types.ModuleType, game: object, name: str) -> str:
    track = game.tracks[name]  # type: ignore[attr-defined]
    return f"{track.label} [{'#' * track.marked}{'.' * (track.size - track.marked)}] {track.marked}/{track.size}"


def test_rolls_show_their_changes_state_shows_boxes_and_undo_goes_back(tmp_path: Path,
                                                                       module: types.ModuleType) -> None:
    done = play(tmp_path, "roll act\nstate\nact dots=0\nact\nstate\nundo\nstate\n", "--seed", "1")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[0] == "State: a game in play (seed 1)"
    said = answers(done.stdout)
    game = module.game(rng=random.Random(1))  # the same game, through the module
    states = []
    for command, inputs in (("roll act", {}), ("act dots=0", {"dots": 0}), ("act", {})):
        turn = game.roll("act", **inputs)
        (lines,) = said[command]
        assert lines[0] == turn.result.trace
        assert [line for line in lines if line.startswith("  → ")] == [f"  → {c}" for c in turn.changes]
        assert f"  from the state: hurt={turn.result.inputs['hurt']}" in lines
        states.append((shown_track(module, game, "danger"), shown_track(module, game, "harm"), game.resources["coin"]))
    after_one, after_three, after_undo = said["state"]
    assert after_one[:2] == list(states[0][:2]) and after_one[0] == "Danger [##..] 2/4"  # seed 1: a miss
    assert "  level 1 Lesser [#.] penalty -1" in after_one and "no condition in force" in after_one
    assert "Coin: 2 (at most 5)" in after_one
    assert after_three[0] == states[2][0] and f"Coin: {states[2][2]} (at most 5)" in after_three
    assert said["undo"] == [["undid act"]]
    game.undo()
    assert after_undo[0] == states[1][0] == shown_track(module, game, "danger")
    assert f"Coin: {states[1][2]} (at most 5)" in after_undo and after_undo != after_three


def test_the_same_seed_gives_the_same_transcript(tmp_path: Path) -> None:
    commands = "act\nact dots=3\nrest\nstate\n"
    first = play(tmp_path, commands, "--seed", "7")
    again = play(tmp_path, commands, "--seed", "7")
    assert first.returncode == 0 and first.stdout == again.stdout
    assert first.stdout.count("play> ") == 4


def test_save_and_load_round_trip_through_a_file_and_undo_a_load(tmp_path: Path, module: types.ModuleType) -> None:
    done = play(tmp_path, "act\nact\nsave 'saved game.json'\nstate\nact\nact\nload 'saved game.json'\nstate\n"
                "undo\nstate\nundo\n", "--seed", "3")
    assert done.returncode == 0, done.stderr
    said = answers(done.stdout)
    game = module.game(rng=random.Random(3))
    game.roll("act")
    game.roll("act")
    saved = json.loads((tmp_path / "saved game.json").read_text(encoding="utf-8"))
    assert saved == game.state()
    assert said["save 'saved game.json'"] == [["saved to saved game.json"]]
    at_save, after_load, after_undo = said["state"]
    assert after_load == at_save
    assert said["load 'saved game.json'"] == [["loaded saved game.json"]]
    assert said["undo"] == [["undid load saved game.json"], ["undid act"]]
    game.roll("act")
    game.roll("act")
    assert after_undo[0] == shown_track(module, game, "danger")  # back to the game the load replaced
    resumed = play(tmp_path, "state\n", "--load", "saved game.json")
    assert resumed.returncode == 0 and answers(resumed.stdout)["state"] == [at_save]
    assert "from saved game.json" in resumed.stdout.splitlines()[0]


def test_a_forbidden_roll_is_refused_and_rolls_lists_the_inputs(tmp_path: Path, module: types.ModuleType) -> None:
    state = module.game().state()
    state["conditions"] = ["hunted"]
    (tmp_path / "hunted.json").write_text(json.dumps(state), encoding="utf-8")
    done = play(tmp_path, "rest\nrolls\nstate\n", "--load", "hunted.json", "--seed", "1")
    assert done.returncode == 0, done.stderr
    said = answers(done.stdout)
    assert said["rest"] == [["refused: rest cannot be rolled now: Hunted: you cannot rest."]]
    assert said["rolls"] == [["act (Act): dots=0..4 (1), hurt=0..2 (0) from the state", "trouble (Trouble): no inputs",
                              "rest (Rest): paid=yes/no (no); refused now: Hunted: you cannot rest."]]
    assert "in force: Hunted" in said["state"][0]


def test_mistakes_are_one_line_and_the_session_goes_on(tmp_path: Path) -> None:
    done = play(tmp_path, "bogus\nact dots=9\nact luck=2\nact dots\nroll\nsave\nload\nload missing.json\n"
                "state extra\nroll 'unclosed\nhelp\nstate\nquit\nstate\n", "--seed", "1")
    assert done.returncode == 0 and done.stderr == ""
    said = answers(done.stdout)
    assert said["bogus"] == [["unknown command 'bogus'; the commands are: roll, mark, clear, gain, spend, set, state, "
                              "rolls, undo, save, load, help, quit; or a roll's name: act, trouble, rest"]]
    assert said["act dots=9"] == [["dots must be from 0 to 4, not 9"]]  # what `rulecraft roll` says
    assert said["act luck=2"] == [["act has no input 'luck'; its inputs are: dots, hurt"]]
    assert said["act dots"] == [["write inputs as key=value, not 'dots'"]]
    assert said["load missing.json"] == [["missing.json: no such file"]]
    assert said["roll 'unclosed"] == [["cannot read this line: no closing quotation"]]
    for command in ("roll", "save", "load", "state extra"):
        assert len(said[command]) == 1 and len(said[command][0]) == 1, command
    assert "quit, exit" in "\n".join(said["help"][0])
    assert len(said["state"]) == 1 and said["state"][0][0] == "Danger [....] 0/4"  # nothing after quit runs
    cli = subprocess.run([sys.executable, "-m", "rulecraft", "roll", "state.rules", "act", "dots=9"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert cli.stderr.strip() == "rulecraft: dots must be from 0 to 4, not 9"


@pytest.mark.parametrize(("content", "message"), [
    (None, "nowhere.json: no such file"),
    ("{not json", "nowhere.json is not JSON (Expecting property name enclosed in double quotes at line 1, column 2), "
                  "so not a saved game"),
    ('[1, 2]', "nowhere.json is JSON but not a saved game"),
    ('{"ruleset": "tides_of_gold", "tracks": {}}', "nowhere.json is a saved game of 'tides_of_gold', not of 'state'"),
    ('{"ruleset": "state", "resources": {"gold": 1}}', "nowhere.json is not a saved game of state: no resource named "
                                                        "'gold' here"),
    ('{"ruleset": "state", "tracks": {"danger": {"marked": 1}}}', "nowhere.json is not a saved game of state: 'size' "
                                                                  "is missing"),
])
def test_a_bad_file_to_load_ends_in_one_line_naming_it(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / "nowhere.json").write_text(content, encoding="utf-8")
    done = play(tmp_path, "state\n", "--load", "nowhere.json")
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"rulecraft: {message}"), done.stderr
    if content is not None:  # and in the session: the message, and the game goes on unchanged
        inside = play(tmp_path, "load nowhere.json\nstate\n")
        assert inside.returncode == 0 and answers(inside.stdout)["load nowhere.json"][0][0].startswith(message)
        assert answers(inside.stdout)["state"][0][0] == "Danger [....] 0/4"


def test_a_track_without_a_size_says_so_and_size_gives_it_one(tmp_path: Path) -> None:
    # seed 1 rolls 2 then 5: a miss, then a partial, which marks stress
    done = play(tmp_path, "state\nact\nact\nstate\n", "--seed", "1", source=STRESS)
    assert done.returncode == 0, done.stderr
    said = answers(done.stdout)
    assert "Stress: no size (use --size stress=N)" in said["state"][0]
    assert said["act"][1] == ["act: stress has no size: the document gives none; start play with --size stress=N "
                              "(this roll changed nothing)"]
    assert said["state"][1][0] == "Danger [##..] 2/4"
    assert "Coin: 2 (at most 5)" in said["state"][1]  # the partial's `spend coin 1` was not applied either
    sized = play(tmp_path, "act\nact\nstate\n", "--seed", "1", "--size", "stress=3", source=STRESS)
    said = answers(sized.stdout)
    assert "  → Stress: 1 of 3" in said["act"][1] and "Stress [#..] 1/3" in said["state"][0]
    for size, message in (("stress=0", "--size stress=0: size must be from 1 to"),
                          ("stress=x", "--size stress=x: N is a whole number, not 'x'"),
                          ("coin=3", "--size coin=3: state has no track or clock named 'coin'; there are: danger, "
                                     "harm, stress"),
                          ("stress", "--size takes TRACK=N")):
        bad = play(tmp_path, "", "--size", size, source=STRESS)
        assert bad.returncode == 1 and bad.stderr.startswith(f"rulecraft: {message}"), bad.stderr


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="a pseudo-terminal (Linux)")
def test_at_a_terminal_a_prompt_and_ctrl_c_ends_without_a_traceback(tmp_path: Path) -> None:
    import pty

    (tmp_path / "state.rules").write_text(STATE, encoding="utf-8")
    status: int | None = None
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, at a terminal, Ctrl-C not ignored (as it is in a background job)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a test runner's worker may block it
        os.chdir(tmp_path)
        os.execv(sys.executable, [sys.executable, "-m", "rulecraft", "play", "state.rules", "--seed", "1"])

    def until(text: str) -> str:
        seen, end = b"", time.monotonic() + 60
        while text.encode() not in seen and time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    break
        return seen.decode("utf-8", "replace")

    try:
        assert "`help` lists the commands" in until("play> ")
        os.write(fd, b"act\r")
        assert "Danger: 2 of 4" in until("play> ")
        os.write(fd, b"quit\r")  # Ctrl-C itself is tested in-process below: CI's workers do not deliver it
        rest = until("\x00never")
        end = time.monotonic() + 30
        while status is None and time.monotonic() < end:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
            else:
                time.sleep(0.1)
    finally:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status is not None, "quit did not end the session"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest


def test_ctrl_c_at_the_prompt_ends_the_session_and_during_a_command_goes_on(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C is a KeyboardInterrupt in the session: at the prompt it ends the session (status 0), during a
    command it cuts the command short and the session goes on; never a traceback."""
    import builtins

    from rulecraft.cli.main import parse_inputs
    from rulecraft.cli.play import Play

    module = compile_module(generate(load_text(STATE, "state.rules", "state").checked), "state_ctrl_c")
    lines = iter(["act", "KEYBOARD", "state", "KEYBOARD-PROMPT"])

    def typed(prompt: str = "") -> str:
        line = next(lines)
        if line == "KEYBOARD-PROMPT":
            raise KeyboardInterrupt
        return line

    session = Play(module, parse_inputs, random.Random(1), {})
    real_do = session.do

    def do(line: str) -> bool:
        if line == "KEYBOARD":
            raise KeyboardInterrupt
        return real_do(line)

    monkeypatch.setattr(builtins, "input", typed)
    monkeypatch.setattr(session, "do", do)
    assert session.run(interactive=True) == 0
    out = capsys.readouterr().out
    assert "(interrupted)" in out and "Danger" in out and "Traceback" not in out


def test_a_ruling_marks_sets_and_spends_without_a_roll_and_undo_takes_it_back(tmp_path: Path) -> None:
    commands = ("mark harm at 2\nmark danger 4\ngain coin 9\nspend coin\nmark coin 1\nmark harm 1 at x\n"
                "set hunted\nundo\nstate\n")
    done = play(tmp_path, commands)
    assert done.returncode == 0, done.stderr
    said = answers(done.stdout)
    assert said["mark harm at 2"] == [["  → harm recorded at level 2 (Moderate)"]]
    # a full clock sets off its `full:` block: cleared, Hunted, and a Trouble table rolled
    full = said["mark danger 4"][0]
    assert full[:3] == ["  → Danger is full: Trouble arrives.", "  → Danger: 0 of 4", "  → now Hunted"]
    assert full[3].startswith("  → rolled trouble: ")
    assert said["gain coin 9"][0][-1] == "  → Coin: 5"  # its `max:`
    assert said["spend coin"] == [["spend takes what it acts on, then an amount: spend NAME N"]]
    assert said["mark coin 1"] == [["mark acts on one of: danger, harm; not 'coin'"]]
    assert said["mark harm 1 at x"] == [["mark takes what it acts on, then boxes and a level: mark NAME [N] [at L]"]]
    assert said["set hunted"] == [["  → now Hunted"]] and said["undo"] == [["undid set hunted"]]
