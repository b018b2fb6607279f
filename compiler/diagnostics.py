"""Diagnostics: every message a designer sees, with its place, caret and hint.

Stages collect diagnostics in a `Report` instead of raising, so a file's
mistakes are all shown at once (sorted by position). `CompileError` carries a
report out of a stage that cannot go on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0


NOWHERE = Span()

Severity = Literal["error", "warning", "note"]

MAX_SHOWN = 50


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    path: str
    span: Span = NOWHERE
    hint: str | None = None
    notes: tuple[str, ...] = ()
    item: str | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)


@dataclass
class Report:
    """Diagnostics of one run, with the source text of each file for carets."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def add(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def error(self, code: str, message: str, path: str, span: Span = NOWHERE, hint: str | None = None,
              item: str | None = None) -> None:
        self.add(Diagnostic("error", code, message, path, span, hint, item=item))

    def warning(self, code: str, message: str, path: str, span: Span = NOWHERE,
                hint: str | None = None, notes: tuple[str, ...] = (), item: str | None = None) -> None:
        self.add(Diagnostic("warning", code, message, path, span, hint, notes, item))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=Diagnostic.sort_key)

    def counts(self) -> tuple[int, int]:
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        warnings = sum(1 for d in self.diagnostics if d.severity == "warning")
        return errors, warnings

    # -------------------------------------------------------------- output

    def format_text(self, limit: int = MAX_SHOWN) -> str:
        shown = self.sorted()
        lines: list[str] = []
        for diagnostic in shown[:limit]:
            lines.append(format_diagnostic(diagnostic, self.sources.get(diagnostic.path)))
        if len(shown) > limit:
            lines.append(f"... and {len(shown) - limit} more")
        errors, warnings = self.counts()
        if shown:
            lines.append(f"{plural(errors, 'error')}, {plural(warnings, 'warning')}")
        return "\n".join(lines)

    def format_json(self) -> str:
        return json.dumps(
            {
                "diagnostics": [
                    {
                        "severity": d.severity,
                        "code": d.code,
                        "message": d.message,
                        "path": d.path,
                        "line": d.span.line,
                        "column": d.span.column,
                        "end_line": d.span.end_line,
                        "end_column": d.span.end_column,
                        "hint": d.hint,
                        "notes": list(d.notes),
                        "item": d.item,
                    }
                    for d in self.sorted()
                ],
                "errors": self.counts()[0],
                "warnings": self.counts()[1],
            },
            indent=2,
            ensure_ascii=False,
        )


def plural(count: int, word: str) -> str:
    """`1 error`, `2 errors`."""
    return f"{count} {word}" + ("" if count == 1 else "s")


def format_diagnostic(diagnostic: Diagnostic, source: str | None) -> str:
    """`path:line:col: severity[CODE]: message`, the line, a caret under the span, the hint."""
    span = diagnostic.span
    where = diagnostic.path
    if span.line:
        where += f":{span.line}:{span.column}"
    out = [f"{where}: {diagnostic.severity}[{diagnostic.code}]: {diagnostic.message}"]
    if source is not None and span.line:
        lines = [line.rstrip("\r") for line in source.split("\n")]  # as the parser counts lines
        if 0 < span.line <= len(lines):
            text = lines[span.line - 1].expandtabs(1)
            gutter = f"{span.line:>4} | "
            out.append(gutter + text)
            start = max(span.column - 1, 0)
            if span.end_line == span.line and span.end_column > span.column:
                width = span.end_column - span.column
            else:
                width = max(len(text.rstrip()) - start, 1)
            out.append(" " * len(gutter) + " " * start + "^" * max(width, 1))
    for note in diagnostic.notes:
        out.append(f"  note: {note}")
    if diagnostic.hint:
        out.append(f"  hint: {diagnostic.hint}")
    return "\n".join(out)


class CompileError(Exception):
    """A stage found errors; the report says which."""

    def __init__(self, report: Report) -> None:
        super().__init__(report.format_text())
        self.report = report
