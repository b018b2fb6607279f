"""`rulecraft play RULESET`: a game in play in the terminal, over the generated module's `game()`.

A designer testing the pacing of a game rolls its rolls and watches the state move: each roll prints its trace,
its data and every change its outcome made (a clock marked, a condition set, a table rolled); `state` shows the
tracks and clocks as boxes, the resources, the conditions in force and what is carried to a next roll; `undo`,
`save FILE` and `load FILE` go back, keep and fetch a game. Commands come from a terminal (a prompt, line editing
and history where `readline` is there) or from a pipe (`printf 'roll act\\nstate\\n' | rulecraft play my_game
--seed 1`): each command is then echoed after the prompt, so the output reads as a transcript, and the same seed
and commands give the same transcript. A mistake at the prompt is one line, and the session goes on.

This module never imports `main` (main imports it): `main.cmd_play` hands in the compiled module and the
command line's reader of `key=value` inputs.
"""

from __future__ import annotations

import contextlib
import json
import random
import shlex
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .targets import UsageError

PROMPT = "play> "
MAX_STATE_BYTES = 10_000_000  # a saved game bigger than this is not one
ReadInputs = Callable[[types.ModuleType, str, Sequence[str]], dict[str, object]]

HELP = """\
commands:
  roll NAME [key=value ...]   roll a roll or table; its outcome acts on the state (NAME alone does the same)
  mark|clear NAME [N] [at L]  a ruling, not a roll: mark or clear boxes (`mark harm at 2`: harm of level 2;
                              `mark health_strain 2 by damage`: the marker it moves, on a track with markers)
  gain|spend NAME N, set NAME change a resource, set (or `clear`) a condition
  state                       every track and clock, resource, condition in force and carried amount
  rolls                       the rolls and tables, with their inputs (and what the state gives them)
  undo                        go back to before the last roll (or load)
  save FILE                   write the state as JSON (the file is replaced whole, or not at all)
  load FILE                   play on from a saved state
  help                        this list
  quit, exit                  end the session (so do end of input and Ctrl-C)"""


def parse_sizes(module: types.ModuleType, pairs: Sequence[str]) -> dict[str, int]:
    """`--size stress=9 ...`: each track or clock the document gives no size, by name."""
    tracks: Mapping[str, type[Any]] = module.TRACKS
    sizes: dict[str, int] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise UsageError(f"--size takes TRACK=N (e.g. {next(iter(tracks), 'stress')}=9), not {pair!r} "
                             "(the ruleset goes before --size)")
        if name not in tracks:
            there = ", ".join(tracks) or "none"
            raise UsageError(f"--size {pair}: {module.RULESET} has no track or clock named {name!r}; there are: "
                             f"{there}")
        if name in sizes:
            raise UsageError(f"--size {name} is given twice; give each size once")
        try:
            size = int(raw)
            tracks[name](size=size)
        except ValueError as problem:
            shown = problem if raw.strip().lstrip("+-").isdigit() else f"N is a whole number, not {raw!r}"
            raise UsageError(f"--size {pair}: {shown}") from None
        sizes[name] = size
    return sizes


def read_state(module: types.ModuleType, path: str) -> dict[str, object]:
    """A saved game from `path`, as JSON data of this ruleset; a UsageError names the file and what is wrong."""
    file = Path(path)
    try:
        if file.is_dir():
            raise UsageError(f"{path} is a folder, not a saved game")
        if file.stat().st_size > MAX_STATE_BYTES:
            raise UsageError(f"{path} is over {MAX_STATE_BYTES:,} bytes: not a saved game")
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as problem:
        raise UsageError(f"cannot read {path}: {problem.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text, so not a saved game") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as problem:
        raise UsageError(f"{path} is not JSON ({problem.msg} at line {problem.lineno}, column {problem.colno}), "
                         "so not a saved game") from None
    if not isinstance(data, dict) or "ruleset" not in data:
        raise UsageError(f"{path} is JSON but not a saved game: one is an object with \"ruleset\", \"tracks\", "
                         "\"resources\", \"conditions\" and \"carried\" (`save FILE` writes it)")
    if data["ruleset"] != module.RULESET:
        raise UsageError(f"{path} is a saved game of {data['ruleset']!r}, not of {module.RULESET!r}")
    return data


class Play:
    """One session: the game in play, the games a `load` replaced (for `undo`), and the commands."""

    def __init__(self, module: types.ModuleType, read_inputs: ReadInputs, rng: random.Random,
                 sizes: Mapping[str, int]) -> None:
        self.module, self.read_inputs, self.rng, self.sizes = module, read_inputs, rng, dict(sizes)
        self.game = self.new_game()
        self.before_loads: list[tuple[str, Any]] = []  # (the file loaded, the game it replaced)
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "roll": self.cmd_roll, "state": self.cmd_state, "rolls": self.cmd_rolls, "undo": self.cmd_undo,
            "save": self.cmd_save, "load": self.cmd_load, "help": self.cmd_help}

    def new_game(self) -> Any:
        try:
            return self.module.game(rng=self.rng, sizes=self.sizes)
        except ValueError as problem:
            raise UsageError(str(problem)) from None

    def loaded(self, path: str) -> Any:
        """A new game in the state saved in `path` (the sizes of --size for tracks it does not hold)."""
        data = read_state(self.module, path)
        fresh = self.new_game()
        try:
            fresh.restore(data)
        except KeyError as problem:
            raise UsageError(f"{path} is not a saved game of {self.module.RULESET}: {problem.args[0]!r} is "
                             "missing") from None
        except (ValueError, TypeError, AttributeError) as problem:
            raise UsageError(f"{path} is not a saved game of {self.module.RULESET}: {problem}") from None
        return fresh

    # ---- the loop

    def run(self, interactive: bool) -> int:
        while True:
            try:
                if interactive:
                    line = input(PROMPT)
                else:
                    line = sys.stdin.readline()
                    if not line:
                        return 0
                    line = line.rstrip("\r\n")
                    if line.strip():
                        print(f"{PROMPT}{line}")
            except EOFError:
                print()
                return 0
            except KeyboardInterrupt:
                print()
                return 0
            try:
                if not self.do(line):
                    return 0
            except UsageError as problem:
                print(problem)
            except KeyboardInterrupt:  # a command cut short: the session goes on
                print("(interrupted)")
            sys.stdout.flush()

    def do(self, line: str) -> bool:
        """Run one command line; False when it ends the session."""
        try:
            words = shlex.split(line, comments=True)
        except ValueError as problem:
            raise UsageError(f"cannot read this line: {str(problem)[0].lower()}{str(problem)[1:]}") from None
        if not words:
            return True
        command, rest = words[0], words[1:]
        if command in ("quit", "exit"):
            return False
        if command in self.commands:
            self.commands[command](rest)
        elif command in ("mark", "clear", "gain", "spend", "set"):
            self.act(command, rest)
        elif command in self.module.INPUTS or command in getattr(self.module, "DECKS", {}):
            self.cmd_roll(words)
        else:
            rolls = ", ".join(self.module.INPUTS) or "none"
            raise UsageError(f"unknown command {command!r}; the commands are: roll, mark, clear, gain, spend, set, "
                             f"state, rolls, undo, save, load, help, quit; or a roll's name: {rolls}")
        return True

    # ---- rolling

    def cmd_roll(self, words: list[str]) -> None:
        if not words:
            raise UsageError("roll takes a roll or table's name, then its inputs: roll NAME [key=value ...]")
        name, pairs = words[0], words[1:]
        if name in getattr(self.module, "DECKS", {}):
            raise UsageError(f"{name} is a deck: its cards are no part of the game's state here; `rulecraft roll "
                             f"{self.module.RULESET} {name}` draws from it")
        inputs = self.read_inputs(self.module, name, pairs)
        game = self.game
        carried = dict(game.carried.get(name, {}))
        sourced = [input_name for input_name, _ in self.module.STATE_INPUTS.get(name, ()) if input_name not in inputs]
        before = game.state()
        try:
            turn = game.roll(name, **inputs)
        except self.module.Forbidden as refused:
            print(f"refused: {refused}")
            return
        except ValueError as problem:
            game.restore(before)  # an effect that could not apply: the roll changes nothing
            sizeless = next((track for track in self.module.TRACKS
                             if track not in game.tracks and str(problem).startswith(f"{track} has no size")), None)
            said = str(problem) if sizeless is None else \
                f"{sizeless} has no size: the document gives none; start play with --size {sizeless}=N"
            print(f"{name}: {said} (this roll changed nothing)")
            return
        result = turn.result
        print(result.trace)
        for key, value in result.values.items():
            print(f"  {key}: {shown_value(value)}")
        fed = [f"{key}={shown_value(result.inputs[key])}" for key in sourced if key in result.inputs]
        if fed:
            print(f"  from the state: {', '.join(fed)}")
        if carried:
            print("  carried from before: " + ", ".join(f"{key} {amount:+d}" for key, amount in carried.items()))
        print_changes(turn.changes)

    def act(self, verb: str, words: list[str]) -> None:
        """`mark harm at 2`, `clear stress 1`, `gain coin 2`, `set hunted`, `mark health_strain 2 by damage`: one
        effect a person rules."""
        usage = f"{verb} takes what it acts on, then " + {"mark": "boxes and a level: mark NAME [N] [at L]",
                                                          "clear": "boxes: clear NAME [N]",
                                                          "set": "nothing, or a track's boxes: set NAME [N]"
                                                          }.get(verb, f"an amount: {verb} NAME N")
        numbers: list[int] = []
        level = marker = None
        rest = words[1:]
        if "by" in rest and verb == "mark":  # the marker it moves, last: `mark health_strain 2 by damage`
            if rest.index("by") != len(rest) - 2:
                raise UsageError("`by` takes the marker to move, last: mark NAME [N] by MARKER")
            marker, rest = rest[-1], rest[:-2]
        if len(rest) >= 2 and rest[-2] == "at" and verb == "mark":
            level, rest = rest[-1], rest[:-2]
        try:
            numbers = [int(word) for word in rest]
            at = int(level) if level is not None else None
        except ValueError:
            raise UsageError(usage) from None
        if not words or len(numbers) > 1 or (verb in ("gain", "spend") and not numbers):
            raise UsageError(usage)
        try:
            changes = self.game.act(verb, words[0], numbers[0] if numbers else None, at, marker)
        except ValueError as problem:
            raise UsageError(str(problem)) from None
        print_changes(changes)

    # ---- looking

    def cmd_state(self, words: list[str]) -> None:
        no_arguments("state", words)
        lines = state_lines(self.module, self.game)
        print("\n".join(lines) if lines else f"{self.module.RULESET} has no tracks, clocks, resources or conditions")

    def cmd_rolls(self, words: list[str]) -> None:
        no_arguments("rolls", words)
        rules = getattr(self.module, "_RULES", {})
        for name, specs in self.module.INPUTS.items():
            label = getattr(rules.get(name), "label", None)
            sourced = {input_name for input_name, _ in self.module.STATE_INPUTS.get(name, ())}
            shown = ", ".join(describe(spec) + (" from the state" if spec[0] in sourced else "") for spec in specs)
            forbidding = self.game.forbidding(name)
            print(f"{name}" + (f" ({label})" if label and label != name else "") + f": {shown or 'no inputs'}"
                  + (f"; refused now: {'; '.join(forbidding)}" if forbidding else ""))
        decks = list(getattr(self.module, "DECKS", {}))
        if decks:
            print(f"decks (`rulecraft roll` draws from them): {', '.join(decks)}")

    def cmd_help(self, words: list[str]) -> None:
        print(HELP)

    # ---- going back, keeping, fetching

    def cmd_undo(self, words: list[str]) -> None:
        no_arguments("undo", words)
        if self.game.history:
            print(f"undid {self.game.undo()}")
        elif self.before_loads:
            path, self.game = self.before_loads.pop()
            print(f"undid load {path}")
        else:
            print("nothing to undo")

    def cmd_save(self, words: list[str]) -> None:
        from ..backends.build import write_atomic

        path = one_file("save", words)
        text = json.dumps(self.game.state(), indent=2, ensure_ascii=False) + "\n"
        try:
            write_atomic(Path(path), text)
        except OSError as problem:
            raise UsageError(f"cannot write {path}: {problem.strerror}; nothing was saved") from None
        print(f"saved to {path}")

    def cmd_load(self, words: list[str]) -> None:
        path = one_file("load", words)
        game = self.loaded(path)
        self.before_loads.append((path, self.game))
        self.game = game
        print(f"loaded {path}")


def print_changes(changes: Sequence[str]) -> None:
    """What a roll or a ruling changed, a line each."""
    for change in changes:
        print(f"  → {change}")
    if not changes:
        print("  → no change to the state")


def no_arguments(command: str, words: Sequence[str]) -> None:
    if words:
        raise UsageError(f"{command} takes nothing after it, not {' '.join(words)!r}")


def one_file(command: str, words: Sequence[str]) -> str:
    if len(words) != 1:
        raise UsageError(f"{command} takes one file: {command} FILE (quote a name with spaces)")
    return words[0]


def shown_value(value: object) -> object:
    return ("yes" if value else "no") if isinstance(value, bool) else "unknown" if value is None else value


def describe(spec: Sequence[Any]) -> str:
    """An input as `rolls` shows it: `dots=0..4 (1)`, `push=yes/no (no)`, `season=spring|summer (spring)`."""
    name, kind, low, high, choices, default = spec
    allowed = f"{low}..{high}" if kind == "int" else "yes/no" if kind == "flag" else "|".join(map(str, choices))
    return f"{name}={allowed} ({shown_value(default)})"


def boxes(marked: int, size: int) -> str:
    return f"[{'#' * min(marked, size)}{'.' * max(size - marked, 0)}]"


def track_label(module: types.ModuleType, game: Any, name: str) -> str:
    """A track's label: from the game, or (a track without a size) from one made just to read it."""
    if name in game.tracks:
        return str(game.tracks[name].label)
    try:
        return str(module.TRACKS[name](size=getattr(module, "MAX_BOXES", 1000)).label)
    except (TypeError, ValueError):
        return name


def state_lines(module: types.ModuleType, game: Any) -> list[str]:
    """The state as `state` prints it, one thing a line."""
    lines: list[str] = []
    for name in module.TRACKS:
        label = track_label(module, game, name)
        track = game.tracks.get(name)
        if track is None:
            lines.append(f"{label}: no size (use --size {name}=N)")
            continue
        lines.append(f"{label} {boxes(track.marked, track.size)} {track.marked}/{track.size}"
                     + (" full" if track.full else ""))
        for level, level_name, count, penalty in getattr(track, "LEVELS", ()):
            if count > 0:
                held = len(getattr(track, "rows", {}).get(level, ()))
                lines.append(f"  level {level} {level_name} {boxes(held, count)}"
                             + (f" penalty {penalty}" if penalty else ""))
        ticks = getattr(track, "ticks", None)
        if ticks is not None and getattr(track, "TICKS", 1) > 1:
            lines.append(f"  {ticks} of {track.size * track.TICKS} ticks")
        at = getattr(track, "at", None)
        if isinstance(at, dict) and at:
            lines.append("  markers: " + ", ".join(f"{marker} at {where}" for marker, where in at.items()))
    for name, (label, _, most) in module.RESOURCES.items():
        lines.append(f"{label}: {game.resources[name]}" + (f" (at most {most})" if most is not None else ""))
    if module.CONDITIONS:
        in_force = [module.CONDITIONS[name][0] for name in module.CONDITIONS if game.in_force(name)]
        lines.append(f"in force: {', '.join(in_force)}" if in_force else "no condition in force")
    for roll, amounts in sorted(game.carried.items()):
        for key, amount in amounts.items():
            lines.append(f"carried: {amount:+d} to {key} of the next {roll}")
    return lines


def play(module: types.ModuleType, read_inputs: ReadInputs, seed: int | None, load: str | None,
         sizes: Sequence[str]) -> int:
    """The session: from a terminal with a prompt, else a command a line from standard input."""
    chosen = seed if seed is not None else random.SystemRandom().randrange(2**32)
    session = Play(module, read_inputs, random.Random(chosen), parse_sizes(module, sizes))
    if load is not None:
        session.game = session.loaded(load)
    interactive = sys.stdin.isatty()
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  # line editing and history for input(), where Python has it
    title = getattr(module, "TITLE", module.RULESET)
    print(f"{title}: a game in play (seed {chosen}" + (f", from {load}" if load else "") + ")"
          + ("; `help` lists the commands" if interactive else ""))
    return session.run(interactive)
