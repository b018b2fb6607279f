"""Section 3: `rulecraft build --format python,html,json` of all five rulesets, as a whole process.

Issue 21, item 5: the build of all five (python, html, json) under 1 s as a whole process, start-up and
writing included. Informative: the first run with an empty cache folder, the floor any Python process
pays, and where a build's time goes (a cProfile of one build, self time by module).
"""

from __future__ import annotations

import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .context import ROOT, RULESETS, Context, progress, rulecraft_command
from .report import MISS, Section, Table, verdict
from .timing import CLOCK, Candidate, compare, ratio, ratio_text, seconds, spread

BUILD_TARGET = 1.0  # seconds, the whole process
FORMATS = "python,html,json"
EXTENSIONS = {"python": ".py", "html": ".html", "json": ".json"}


def python_command() -> list[str]:
    venv = ROOT / ".venv" / "bin" / "python"
    return [str(venv)] if venv.exists() else [sys.executable]


class Builds:
    """`rulecraft build` runs, each into a new empty folder (made before the timed call, removed after)."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.count = 0
        self.folder = scratch / "none"
        self.failures: list[str] = []
        self.cpu: dict[str, list[float]] = defaultdict(list)  # the child's user + system time, by runner

    def fresh(self) -> None:
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.count += 1
        self.folder = self.scratch / f"out{self.count}"

    def runner(self, key: str, env: dict[str, str] | None = None) -> Callable[[], None]:
        def build() -> None:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run([*rulecraft_command(), "build", "--format", FORMATS, "-o", str(self.folder)],
                                  cwd=ROOT, capture_output=True, text=True, timeout=300, check=False, env=env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            self.cpu[key].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode != 0:
                self.failures.append((done.stderr or done.stdout).strip()[-500:])

        return build

    def written(self) -> list[str]:
        """What the last build wrote that it should not have missed: (format, ruleset) pairs absent."""
        return [f"{fmt}/{rid}{ext}" for fmt, ext in EXTENSIONS.items() for rid in RULESETS
                if not (self.folder / fmt / f"{rid}{ext}").is_file()]


def _quiet(cmd: list[str]) -> Callable[[], None]:
    def run() -> None:
        subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)

    return run


def run(ctx: Context) -> Section:
    section = Section("build", "Build")
    shown = f"rulecraft build --format {FORMATS} -o <tmp>"
    python = python_command()
    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-build-") as scratch:
        builds = Builds(Path(scratch))
        progress("build: one untimed build first (fills the user's cache folder as any earlier run has)")
        builds.fresh()
        builds.runner("warm-up")()
        missing = builds.written()
        settings = replace(ctx.settings, min_time=0.0, repeats=2 if ctx.quick else 9,
                           min_repeats=1 if ctx.quick else 5, budget=6.0 if ctx.quick else 40.0, slow_call=1e9,
                           clock=CLOCK)
        progress("build: timing whole processes")
        found = compare([Candidate("build", builds.runner("build"), builds.fresh),
                         Candidate("help", _quiet([*rulecraft_command(), "--help"])),
                         Candidate("pass", _quiet([*python, "-c", "pass"]))], settings)
        first = None
        if not ctx.quick:
            progress("build: one more with an empty cache folder (the first run after an install)")
            empty = Path(scratch) / "cache"
            empty.mkdir()
            builds.fresh()
            first = compare([Candidate("first", builds.runner("first", {**os.environ, "XDG_CACHE_HOME": str(empty)}))],
                            replace(settings, repeats=1, min_repeats=1))["first"]
        failures = list(builds.failures)
    section.text(
        f"`{shown}`: the five rulesets ({', '.join(RULESETS)}) to Python, HTML and JSON, in a new process each "
        f"time (`{' '.join(rulecraft_command()[:1])}`), into a new empty folder each time (made before the timed "
        "call), start-up and writing included. One untimed build runs first, so that the user's cache folder "
        "holds whatever a build keeps there, as after any earlier run"
        + ("" if ctx.quick else "; one more build has an empty cache folder (`XDG_CACHE_HOME`), the first run "
           "after an install") + ". `rulecraft --help` is the command's own start-up, `python -c pass` the floor "
        "of any Python process. Timed interleaved. The target is on wall time; the CPU time (the child's user and "
        "system time) says how much of it was the build's own work when other processes share the cores (see the "
        "load average above).")
    table = Table(("command", "median (wall)", "spread", "runs", "CPU time (user + system)", "/ python -c pass",
                   f"target < {BUILD_TARGET:.0f} s", "verdict"))
    b, floor = found["build"], found["pass"]
    ok = b.median < BUILD_TARGET and not failures and not missing
    table.add(f"**`{shown}`**", f"**{seconds(b.median)}**", spread(b), b.repeats,
              seconds(statistics.median(builds.cpu["build"])), ratio_text(ratio(b, floor)),
              f"< {BUILD_TARGET:.0f} s", verdict(ok) if not failures and not missing else f"{MISS} (failed)")
    if first is not None:
        table.add("the same, empty cache folder (informative)", seconds(first.median), "", 1,
                  seconds(statistics.median(builds.cpu["first"])), ratio_text(ratio(first, floor)), "", "")
    table.add("`rulecraft --help`", seconds(found["help"].median), spread(found["help"]), found["help"].repeats, "",
              ratio_text(ratio(found["help"], floor)), "", "")
    table.add("`python -c pass`", seconds(floor.median), spread(floor), floor.repeats, "", "1.00x", "", "")
    section.table(table)
    if failures or missing:
        problems = ([f"missing {', '.join(missing)}"] if missing else []) + [f"`{f}`" for f in failures[:2]]
        section.text("**The build failed or wrote too little**: " + "; ".join(problems))
    measured = seconds(b.median) + ("" if not failures and not missing else " (failed)")
    section.target(f"`{shown}` of all five, a whole process, < {BUILD_TARGET:.0f} s", measured, verdict(ok))
    if not ctx.quick:
        _profile(section, python)
    return section


def _group(filename: str) -> str:
    """A profile entry's file as a group: the compiler's module, a third-party package, the standard library."""
    if filename.startswith("~") or filename.startswith("<"):
        return "built-in functions and C code" if filename.startswith("~") else "other (`<frozen>`, `<string>`)"
    path = Path(filename)
    parts = path.parts
    if "compiler" in parts and str(ROOT) in filename:
        inside = parts[parts.index("compiler") + 1:]
        return "`compiler/" + "/".join(inside) + "`"
    if "site-packages" in parts:
        return f"`{parts[parts.index('site-packages') + 1].split('.')[0]}` (third party)"
    return "standard library"


def _profile(section: Section, python: list[str]) -> None:
    """One build under cProfile: self time grouped by module, the largest first."""
    progress("build: one build under cProfile")
    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-profile-") as scratch:
        out = Path(scratch) / "build.prof"
        done = subprocess.run([*python, "-m", "cProfile", "-o", str(out), "-m", "rulecraft", "build", "--format",
                               FORMATS, "-o", str(Path(scratch) / "out")], cwd=ROOT, capture_output=True, text=True,
                              timeout=600, check=False)
        if done.returncode != 0 or not out.exists():
            section.text(f"(The profiled build failed: `{(done.stderr or done.stdout).strip()[-300:]}`.)")
            return
        stats = pstats.Stats(str(out))
    by_group: dict[str, float] = defaultdict(float)
    total = 0.0
    for (filename, _, _), row in stats.stats.items():  # type: ignore[attr-defined]
        by_group[_group(filename)] += row[2]
        total += row[2]
    table = Table(("where", "self time (profiled)", "share"))
    ranked = sorted(by_group.items(), key=lambda item: -item[1])
    for name, spent in ranked[:15]:
        table.add(name, seconds(spent), f"{spent / total:.0%}" if total else "")
    rest = sum(spent for _, spent in ranked[15:])
    if rest:
        table.add(f"{len(ranked) - 15} more", seconds(rest), f"{rest / total:.0%}" if total else "")
    table.add("**all**", f"**{seconds(total)}**", "100%")
    section.text("### Where a build's time goes (informative)")
    section.text(
        f"One `{' '.join(python[:1])} -m cProfile -m rulecraft build --format {FORMATS}` (the same build, in one "
        "process under the profiler, which slows Python code about twice as much as C code: read the shares, not "
        "the times). Self time of every function, added up by the file it is in: the compiler's modules, each "
        "third-party package, the standard library.")
    section.table(table)
