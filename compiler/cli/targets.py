"""What the command line and `rulecraft watch` share: the error for a bad command-line value, which
rulesets a command works on, and the one way text reaches the terminal (`safe_output`). Light to import:
the commands that only roll never load the compiler."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO, cast

# What a terminal would act on instead of showing: C0 controls but tab and newline, DEL, C1 controls (ESC [,
# ESC ], CSI, OSC: move the cursor, clear the screen, set the window title) and the bidirectional overrides
# (text shown in another order than it is stored).
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class UsageError(Exception):
    """A bad command-line value: printed as one line, exit 1."""


def targets(paths: Sequence[str]) -> list[str]:
    """The rulesets named on the command line, else every ruleset of the project (none is a UsageError)."""
    from compiler.api import available
    from compiler.project import find_project
    from compiler.resources import display_path

    if paths:
        return list(paths)
    found = available()
    if not found:
        raise UsageError(f"no rulesets found (looked for {display_path(find_project().rulesets)}/*.rules); name a "
                         "`.rules` file, or start a game with `rulecraft init`")
    return found


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character written out visibly (ESC as `\\x1b`); tab and newline kept."""
    return CONTROLS.sub(_escaped, text) if CONTROLS.search(text) else text


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
