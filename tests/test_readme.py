"""The README is a user's guide that works as written: short, and its tutorial runs in an empty folder, command by
command, with the results it says (issue 24, item 8)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from rulecraft.api import load_text

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    """The README's fenced blocks of `language` ("" for a block without one), in order."""
    found: list[str] = []
    inside: str | None = None
    lines: list[str] = []
    for line in README.splitlines():
        if inside is None and line.startswith("```"):
            inside, lines = line[3:].strip(), []
        elif inside is not None and line.strip() == "```":
            if inside == language:
                found.append("\n".join(lines) + "\n")
            inside = None
        elif inside is not None:
            lines.append(line)
    return found


def test_the_readme_is_short() -> None:
    assert len(README.encode("utf-8")) < 12_000


def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    (shell,) = blocks("sh")
    here = tmp_path
    said: dict[str, str] = {}
    for line in shell.splitlines():
        command = line.split("#", 1)[0].strip()
        words = shlex.split(command)
        if words[0] == "cd":
            here = here / words[1]
            continue
        assert words[0] == "rulecraft", line
        done = subprocess.run([sys.executable, "-m", "rulecraft", *words[1:]], cwd=here, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        said[words[1]] = done.stdout
    assert "no problems found" in said["check"]
    assert (here / "output" / "html" / "star_raiders.html").is_file()
    assert said["odds"].splitlines()[1].split()[-3] == "5/18"  # 10+ on 2d6 + 1: 2d6 of 9 or more
    (python,) = blocks("python")
    ran = subprocess.run([sys.executable, "-c", python], cwd=here / "output" / "python", env=env,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "'success': Fraction(5, 18)" in ran.stdout


def test_the_snippets_are_rules_that_check() -> None:
    snippet = next(block for block in blocks("") if block.startswith("roll action"))
    loaded = load_text('ruleset "R"\n\n' + snippet, "r.rules", "r")
    assert not loaded.report.diagnostics
