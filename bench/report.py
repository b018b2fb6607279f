"""The report: Markdown tables, verdicts, the machine's facts, the summary of targets."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

PASS = "PASS"
MISS = "MISS"
NA = "n/a"  # not measured: the thing is not available (reported, never counted as a pass)


def verdict(ok: bool) -> str:
    return PASS if ok else MISS


@dataclass
class Table:
    header: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.header):
            raise ValueError(f"a row of {len(cells)} cells in a table of {len(self.header)} columns")
        self.rows.append(tuple(str(c) for c in cells))

    def markdown(self) -> str:
        def line(cells: tuple[str, ...]) -> str:
            return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

        out = [line(self.header), "|" + "|".join("---" for _ in self.header) + "|"]
        out += [line(row) for row in self.rows]
        return "\n".join(out)


@dataclass(frozen=True)
class Target:
    """One line of the summary: an issue target, what was measured, PASS / MISS / n/a."""

    section: str
    target: str
    measured: str
    verdict: str


@dataclass
class Section:
    """A section of the report: Markdown text, and the targets it judged."""

    key: str
    title: str
    parts: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def text(self, line: str) -> None:
        self.parts.append(line)

    def table(self, table: Table) -> None:
        self.parts.append(table.markdown())

    def target(self, target: str, measured: str, result: str) -> None:
        self.targets.append(Target(self.title, target, measured, result))

    def markdown(self, number: int) -> str:
        return f"## {number}. {self.title}\n\n" + "\n\n".join(self.parts) + "\n"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_revision(root: Path) -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head} (with uncommitted changes)" if dirty else head


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


LIBRARIES = ("rulecraft", "lark", "jinja2", "ruamel.yaml", "weasyprint", "d20", "icepool", "numpy")


def machine_table(root: Path, mode: str, started: dt.datetime, load_before: str, load_after: str,
                  wall: float) -> Table:
    table = Table(("fact", "value"))
    table.add("date (UTC)", started.strftime("%Y-%m-%d %H:%M"))
    table.add("CPU", cpu_model())
    table.add("cores", os.cpu_count() or 1)
    table.add("Python", f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    table.add("system", platform.platform())
    table.add("libraries", ", ".join(f"{name} {_version(name)}" for name in LIBRARIES))
    table.add("commit", git_revision(root))
    table.add("load average (1/5/15 min) before / after", f"{load_before}; {load_after}")
    table.add("mode", mode)
    table.add("bench wall time", f"{wall:.0f} s")
    return table


def summary(sections: list[Section]) -> Table:
    table = Table(("section", "target", "measured", "verdict"))
    for section in sections:
        for t in section.targets:
            table.add(t.section, t.target, t.measured, t.verdict)
    return table
