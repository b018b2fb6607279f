"""The pipeline in one place: find a ruleset, parse it, check it.

Backends (odds, codegen, render) take the `CheckedRuleset` this returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import model as m
from compiler.check.checker import check
from compiler.diagnostics import Code, CompileError, Report
from compiler.resources import display_path, project_root, ruleset_path
from compiler.syntax.parse import parse


@dataclass(frozen=True)
class Loaded:
    checked: m.CheckedRuleset
    report: Report
    source: str
    path: str = ""  # as shown in diagnostics


def available() -> list[str]:
    folder = project_root() / "rulesets"
    return sorted(p.stem for p in folder.glob("*.rules")) if folder.is_dir() else []


def load(name_or_path: str, report: Report | None = None) -> Loaded:
    """Parse and check one ruleset. Raises CompileError if it has errors."""
    path = ruleset_path(name_or_path)
    report = report if report is not None else Report()
    display = display_path(path)
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        names = ", ".join(available()) or "none"
        report.error(Code.NO_FILE, f"no ruleset `{name_or_path}` (rulesets available: {names})", display)
        raise CompileError(report) from None
    except UnicodeDecodeError as problem:
        report.error(Code.BAD_CHARACTER, f"this file is not UTF-8 text (byte {problem.start})", display)
        raise CompileError(report) from None
    except OSError as problem:
        report.error(Code.NO_FILE, f"cannot read {display}: {problem.strerror}", display)
        raise CompileError(report) from None
    return load_text(source, display, path.stem, report)


def load_text(source: str, display: str, ruleset_id: str, report: Report | None = None) -> Loaded:
    """Parse and check a ruleset's text (`display` names it in diagnostics). Raises CompileError."""
    report = report if report is not None else Report()
    report.sources[display] = source
    try:
        ruleset = parse(source, display, ruleset_id)
    except CompileError as error:
        report.diagnostics.extend(error.report.diagnostics)
        raise CompileError(report) from None
    checked = check(ruleset, source, report)
    if report.has_errors:
        raise CompileError(report)
    return Loaded(checked, report, source, display)

