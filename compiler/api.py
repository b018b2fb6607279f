"""The pipeline in one place: find a ruleset, parse it, check it.

Backends (odds, codegen, render) take the `CheckedRuleset` this returns.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from . import model as m
from .check import check
from .diagnostics import CompileError, Report
from .resources import display_path, project_root, ruleset_path
from .syntax import parse


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
        report.error("NO-FILE", f"no ruleset `{name_or_path}` (rulesets available: {names})", display)
        raise CompileError(report) from None
    except UnicodeDecodeError as problem:
        report.error("BAD-CHARACTER", f"this file is not UTF-8 text (byte {problem.start})", display)
        raise CompileError(report) from None
    except OSError as problem:
        report.error("NO-FILE", f"cannot read {display}: {problem.strerror}", display)
        raise CompileError(report) from None
    return load_text(source, display, path.stem, report)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect cyclic garbage less often while compiling (`load_text`, and the whole of a build's `plan`).

    Parsing, checking, codegen and rendering allocate millions of small objects and free few of
    them until the end, so Python's collector would walk the same live objects over and over:
    about a fifth of the time on the real rulesets, and a third of a ruleset 50 times the largest
    (20 s against 13-15 s). The thresholds are mypy's, for the same reason. The caller's come back
    after, also when this is nested.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 200_000), max(before[1], 30), max(before[2], 30))
    try:
        yield
    finally:
        # What the compile made and still holds (the model, the odds, the outputs: up to 200,000 objects since
        # the last collection) goes to the oldest generation without a walk, as `gc.freeze()` then `unfreeze()`
        # put it; else the first young collection at the caller's thresholds would walk all of it, 20-40 ms.
        # Not when the caller has frozen objects of its own (a server before it forks): unfreeze would free them.
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.set_threshold(*before)


def load_text(source: str, display: str, ruleset_id: str, report: Report | None = None) -> Loaded:
    """Parse and check a ruleset's text (`display` names it in diagnostics). Raises CompileError."""
    report = report if report is not None else Report()
    report.sources[display] = source
    with fewer_collections():
        try:
            ruleset = parse(source, display, ruleset_id)
        except CompileError as error:
            report.diagnostics.extend(error.report.diagnostics)
            raise CompileError(report) from None
        checked = check(ruleset, source, report)
    if report.has_errors:
        raise CompileError(report)
    return Loaded(checked, report, source, display)

