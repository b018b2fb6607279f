"""What the command line and `rulecraft watch` share: the error for a bad command-line value, which
rulesets a command works on, and the one way text reaches the terminal (`safe_output`). Light to import:
the commands that only roll never load the compiler."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO, cast

from ..diagnostics import CONTROLS, Report, escape_controls

__all__ = ["CONTROLS", "Progress", "UsageError", "escape_controls", "print_report", "safe_output", "targets",
           "to_json", "use_colour", "write_verbatim"]


class UsageError(Exception):
    """A bad command-line value: printed as one line, exit 1."""


def targets(paths: Sequence[str]) -> list[str]:
    """The rulesets named on the command line, else every ruleset of the project (none is a UsageError)."""
    from ..api import available
    from ..project import find_project
    from ..resources import display_path

    if paths:
        return list(paths)
    found = available()
    if not found:
        raise UsageError(f"no rulesets found (looked for {display_path(find_project().rulesets)}/*.rules); name a "
                         "`.rules` file, or start a game with `rulecraft init`")
    return found


def to_json(payload: Any) -> str:
    """JSON for the terminal: indented, UTF-8 text kept, and every control character a `\\u` escape (json
    escapes C0 itself; this adds DEL, C1 and the bidirectional overrides), so it reads back unchanged."""
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    return CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeStream:
    """A text stream that escapes control characters in everything written to it: rule text never drives
    the terminal. Everything but writing is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(escape_controls(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def write_verbatim(self, text: str) -> None:
        """Data that is a file's content (`fmt -` into a pipe): written as it is."""
        self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """For one command: stdout and stderr escape control characters, and a character the terminal's
    encoding cannot show (cp1252, `LANG=C`) is written as `\\u2588` instead of ending in a traceback."""
    saved = sys.stdout, sys.stderr
    errors: list[tuple[io.TextIOWrapper, str]] = []
    for stream in saved:
        if isinstance(stream, io.TextIOWrapper) and stream.errors != "backslashreplace":
            with contextlib.suppress(ValueError, OSError, AttributeError):
                errors.append((stream, str(stream.errors)))
                stream.reconfigure(errors="backslashreplace")
    sys.stdout = cast(TextIO, SafeStream(saved[0])) if saved[0] is not None else saved[0]
    sys.stderr = cast(TextIO, SafeStream(saved[1])) if saved[1] is not None else saved[1]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream, before in errors:
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors=before)


def write_verbatim(text: str) -> None:
    """Write a file's content to stdout: as it is into a pipe or file, escaped on a terminal."""
    stream = sys.stdout
    if isinstance(stream, SafeStream) and not stream.isatty():
        stream.write_verbatim(text)
    else:
        stream.write(text)


def use_colour(stream: TextIO) -> bool:
    """Colour for this stream: never with `NO_COLOR` set (any value but empty), always with `FORCE_COLOR`
    set (any value but empty or `0`), else only on a terminal that is not `TERM=dumb`."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (ValueError, OSError):
        return False


def print_report(report: Report, stream: TextIO | None = None) -> None:
    """A report's diagnostics and counts, in colour where `use_colour` says (the text's own control
    characters escaped all the same)."""
    stream = stream if stream is not None else sys.stderr
    if use_colour(stream):
        text = report.format_text(colour=True) + "\n"
        if isinstance(stream, SafeStream):
            stream.write_verbatim(text)
        else:
            stream.write(text)
    else:
        print(report.format_text(), file=stream)


class Progress:
    """What a long build is doing, one line on stderr rewritten in place (`\\r`): only on a terminal, and not
    with `--quiet`. `done()` clears the line, so what the command prints next starts clean."""

    def __init__(self, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = not quiet and self.stream.isatty()
        except (ValueError, OSError):
            self.enabled = False
        self.shown = 0

    def __call__(self, text: str) -> None:
        if not self.enabled:
            return
        width = max(shutil.get_terminal_size((80, 24)).columns - 1, 10)
        line = escape_controls(text)
        line = line if len(line) <= width else line[:width - 1] + "…"
        self._write("\r" + line.ljust(self.shown))
        self.shown = len(line)

    def done(self) -> None:
        if self.enabled and self.shown:
            self._write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def _write(self, text: str) -> None:
        with contextlib.suppress(ValueError, OSError):
            if isinstance(self.stream, SafeStream):
                self.stream.write_verbatim(text)
            else:
                self.stream.write(text)
            self.stream.flush()
