"""The pipeline in one place: find a ruleset, parse it, check it.

Backends (odds, codegen, render) take the `CheckedRuleset` this returns.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from . import model as m
from .check.checker import check
from .check.names import module_name
from .diagnostics import Code, CompileError, Report, Span
from .project import find_project, ignored_in, ruleset_path, source_name
from .resources import display_path
from .syntax.parse import MAX_SOURCE_BYTES, parse


@dataclass(frozen=True)
class Loaded:
    checked: m.CheckedRuleset
    report: Report
    source: str
    path: str = ""  # as shown in diagnostics


def available() -> list[str]:
    folder = find_project().rulesets
    return sorted(p.stem for p in folder.glob("*.rules")) if folder.is_dir() else []


def read_ruleset(name_or_path: str, report: Report | None = None) -> tuple[Path, str, str]:
    """The one way a ruleset file is read: (its path, its name in diagnostics, its text). Only a regular file
    (not a folder, a device such as /dev/zero, a FIFO that would block), at most MAX_SOURCE_BYTES of it (a
    bigger file is refused without reading it whole), and UTF-8 text (else a diagnostic at the line and
    column of the first bad byte). Raises CompileError with the diagnostic."""
    path = ruleset_path(name_or_path)
    report = report if report is not None else Report()
    display = display_path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)  # non-blocking: opening a FIFO with no writer returns at once
    except FileNotFoundError:
        names = ", ".join(available()) or "none"
        report.error(Code.NO_FILE, f"no ruleset `{name_or_path}` (rulesets available: {names})", display)
        raise CompileError(report) from None
    except OSError as problem:
        report.error(Code.NO_FILE, f"cannot read {display}: {problem.strerror or problem}", display)
        raise CompileError(report) from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            report.error(Code.NO_FILE, f"{display} is {file_kind(info.st_mode)}, not a ruleset file", display,
                         hint="give the path of a .rules file, or a ruleset id from rulesets/")
            raise CompileError(report)
        if info.st_size > MAX_SOURCE_BYTES:
            report.error(Code.TOO_LARGE, f"this file is {info.st_size:,} bytes; the limit is {MAX_SOURCE_BYTES:,}",
                         display, Span(1, 1, 1, 2), "split the game into several rulesets")
            raise CompileError(report)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_SOURCE_BYTES:  # the limit and one byte more, whatever the file says its size is
            chunk = os.read(handle, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as problem:
        report.error(Code.NO_FILE, f"cannot read {display}: {problem.strerror or problem}", display)
        raise CompileError(report) from None
    finally:
        os.close(handle)
    data = b"".join(chunks)
    if len(data) > MAX_SOURCE_BYTES:
        report.error(Code.TOO_LARGE, f"this file is more than {MAX_SOURCE_BYTES:,} bytes, the limit", display,
                     Span(1, 1, 1, 2), "split the game into several rulesets")
        raise CompileError(report)
    return path, display, decode_source(data, display, report)


def read_stdin(report: Report) -> str:
    """A ruleset from standard input (`fmt -`): at most MAX_SOURCE_BYTES, UTF-8, as `read_ruleset` reads a file."""
    import sys

    stream = getattr(sys.stdin, "buffer", None)
    data = stream.read(MAX_SOURCE_BYTES + 1) if stream is not None else sys.stdin.read().encode("utf-8")
    if len(data) > MAX_SOURCE_BYTES:
        report.error(Code.TOO_LARGE, f"standard input is more than {MAX_SOURCE_BYTES:,} bytes, the limit",
                     "<stdin>", Span(1, 1, 1, 2), "split the game into several rulesets")
        raise CompileError(report)
    return decode_source(data, "<stdin>", report)


def universal_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def file_kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def decode_source(data: bytes, display: str, report: Report) -> str:
    """`data` as UTF-8 text with universal newlines (CR LF and a lone CR end a line, as Python reads text);
    else BAD-CHARACTER at the first bad byte's line and column, with a caret."""
    try:
        return universal_newlines(data.decode("utf-8"))
    except UnicodeDecodeError as problem:
        start = problem.start
        before = universal_newlines(data[:start].decode("utf-8"))  # valid up to the first bad byte
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        report.sources[display] = universal_newlines(data.decode("utf-8", "replace"))
        if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data[:200].count(b"\x00") > 10:
            hint = "this looks like UTF-16: save the ruleset as UTF-8"
        else:
            hint = ("save the ruleset as UTF-8 (it may be Windows-1252 or Latin-1: reopen it in that encoding, "
                    "then save)")
        report.error(Code.BAD_CHARACTER, f"this file is not UTF-8 text: byte 0x{data[start]:02x} cannot be read as "
                     "UTF-8", display, Span(line, column, line, column + 1), hint)
        raise CompileError(report) from None


def load(name_or_path: str, report: Report | None = None) -> Loaded:
    """Read, parse and check one ruleset. Raises CompileError if it has errors."""
    report = report if report is not None else Report()
    path, display, source = read_ruleset(name_or_path, report)
    return load_text(source, display, module_name(path.stem), report, source_name=source_name(path))


def load_text(source: str, display: str, ruleset_id: str, report: Report | None = None, *,
              source_name: str | None = None) -> Loaded:
    """Parse and check a ruleset's text (`display` names it in diagnostics, `source_name` in the outputs:
    `display` when None). Raises CompileError."""
    report = report if report is not None else Report()
    report.sources[display] = source
    try:
        ruleset = parse(source, display, ruleset_id)
    except CompileError as error:
        report.diagnostics.extend(error.report.diagnostics)
        raise CompileError(report) from None
    checked = check(ruleset, source, report)
    ignored = find_project().ignore | ignored_in(source)  # the project's settings, the file's own comments
    if ignored:
        report.diagnostics[:] = [d for d in report.diagnostics if d.severity == "error" or d.path != display
                                 or d.code.value not in ignored]
    if report.has_errors:
        raise CompileError(report)
    if source_name is not None and source_name != checked.source_path:
        checked = dataclasses.replace(checked, source_path=source_name)
    return Loaded(checked, report, source, display)

