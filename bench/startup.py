"""Informative: `rulecraft roll` and `rulecraft odds` as whole processes, and what they import.

Issue 8 asked for under 150 ms and neither Jinja nor WeasyPrint on these paths; issue 21 sets no target
here, so the section reports those figures without a verdict (a stage boundary that leaks shows up as a
heavy import)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

from .context import ROOT, Context, progress
from .report import Section, Table
from .timing import CLOCK, Candidate, compare, ratio, ratio_text, seconds, spread

HEAVY = ("jinja2", "weasyprint")  # what neither command should need (issue 8's test)
WATCHED = ("jinja2", "weasyprint", "lark", "ruamel", "markupsafe", "watchfiles", "fontTools", "PIL", "numpy")


def commands() -> tuple[list[str], list[str], str]:
    """(how to run rulecraft, how to run the same Python, which environment) — the project's .venv if present."""
    venv = ROOT / ".venv" / "bin"
    if (venv / "rulecraft").exists() and (venv / "python").exists():
        return [str(venv / "rulecraft")], [str(venv / "python")], "`.venv` (the project's environment)"
    return [sys.executable, "-m", "rulecraft"], [sys.executable], f"`{sys.executable}` (`python -m rulecraft`)"


def _run(cmd: list[str]) -> None:
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)


# Runs the command inside `python -X importtime` and, at exit, lists the modules really imported (importtime
# also lists optional imports that failed, such as lark trying `regex`).
_WRAPPER = """
import atexit, json, runpy, sys
atexit.register(lambda: sys.stderr.write("BENCH-MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
target, sys.argv = sys.argv[1], sys.argv[1:]
if target == "-m":
    sys.argv = ["rulecraft", *sys.argv[1:]]
    runpy.run_module("rulecraft", run_name="__main__", alter_sys=True)
else:
    runpy.run_path(target, run_name="__main__")
"""


def imports(python: list[str], rulecraft: list[str], args: list[str]) -> tuple[float, dict[str, float], list[str]]:
    """(total import time, cumulative import time of each top-level package imported, the compiler's modules)."""
    target = [rulecraft[0]] if len(rulecraft) == 1 else ["-m"]
    done = subprocess.run([*python, "-X", "importtime", "-c", _WRAPPER, *target, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    loaded: set[str] = set()
    for line in done.stderr.splitlines():
        if line.startswith("BENCH-MODULES "):
            loaded = set(json.loads(line[len("BENCH-MODULES "):]))
    total = 0.0
    packages: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line[len("import time:"):].split("|")
        try:
            self_us, cumulative_us = int(parts[0]), int(parts[1])
        except ValueError:
            continue  # the header line
        name = parts[2].strip()
        if name not in loaded:
            continue
        total += self_us / 1e6
        top = name.split(".")[0]
        packages[top] = max(packages.get(top, 0.0), cumulative_us / 1e6 if name == top else 0.0)
    ours = sorted(name for name in loaded if name.startswith("rulecraft."))
    return total, packages, ours


def run(ctx: Context) -> Section:
    section = Section("startup", "Start-up (informative)")
    rulecraft, python, where = commands()
    roll = [*rulecraft, "roll", "tides_of_gold", "action_roll", "--seed", "1"]
    odds = [*rulecraft, "odds", "tides_of_gold", "action_roll"]
    shown = {"roll": "rulecraft roll tides_of_gold action_roll --seed 1", "odds":
             "rulecraft odds tides_of_gold action_roll", "pass": "python -c pass",
             "imports": 'python -c "import random, fractions"'}
    section.text(
        f"Whole processes from {where}, each started with `subprocess.run` (output discarded), the four commands "
        "interleaved. `python -c pass` is the floor any Python command pays; `import random, fractions` what a "
        "resolver needs from the standard library.")
    progress("startup: timing whole processes")
    settings = replace(ctx.settings, min_time=0.0, repeats=2 if ctx.quick else 15, min_repeats=1 if ctx.quick else 5,
                       budget=2.0 if ctx.quick else 15.0, slow_call=0.0 if ctx.quick else 1e9, clock=CLOCK)
    found = compare([Candidate("roll", lambda: _run(roll)), Candidate("odds", lambda: _run(odds)),
                     Candidate("pass", lambda: _run([*python, "-c", "pass"])),
                     Candidate("imports", lambda: _run([*python, "-c", "import random, fractions"]))], settings)
    table = Table(("command", "median", "spread", "runs", "/ python -c pass"))
    for key in ("roll", "odds", "pass", "imports"):
        s = found[key]
        table.add(f"`{shown[key]}`", seconds(s.median), spread(s), s.repeats, ratio_text(ratio(s, found["pass"])))
    section.table(table)

    section.text("### What those commands import (`python -X importtime`)")
    heavy = Table(("command", "import time (sum of self)", "modules of the compiler",
                   *(f"`{name}`" for name in WATCHED), "other third-party packages"))
    stdlib = set(sys.stdlib_module_names)
    for key, args in (("roll", roll[len(rulecraft):]), ("odds", odds[len(rulecraft):])):
        progress(f"startup: import time of {key}")
        total, packages, ours = imports(python, rulecraft, args)
        others = sorted(p for p in packages if p not in stdlib and p not in WATCHED and p not in
                        ("compiler", "__main__", "site", "encodings", "sitecustomize") and not p.startswith("_"))
        heavy.add(f"`{shown[key]}`", seconds(total), ", ".join(sorted(m.removeprefix("compiler.") for m in ours))
                  or "none", *(seconds(packages[name]) if name in packages else "—" for name in WATCHED),
                  ", ".join(others) or "none")
    section.table(heavy)
    section.text("A package's time is its cumulative import time where it is first imported (— means not "
                 f"imported). Neither command needs {' or '.join(HEAVY)} (the sheets' libraries).")
    return section
