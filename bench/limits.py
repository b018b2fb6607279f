"""Section 4: the documented limits hold within a second (`rulecraft check` on rolls at and past them).

Issue 21, item 6: every documented limit holds within a second: the exact odds' cost is estimated before
the work, and a roll past a limit is refused with a located error saying what is too big and what would fit.
Each case is a small ruleset checked by `rulecraft check` in a new process, stopped after a cap (20 s; 2 s in
a quick run) so that the bench never hangs, its address space capped too. PASS when the process exits within
1 s, accepting the ruleset or refusing it with an error at a file:line:col; MISS otherwise.
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .context import ROOT, Context, progress, rulecraft_command
from .report import MISS, PASS, Section, Table
from .timing import seconds

TARGET = 1.0  # seconds, the whole `rulecraft check` process
CAP = 20.0  # seconds before the process is stopped (a quick run: QUICK_CAP)
QUICK_CAP = 2.0
MEMORY = 4 * 1024 ** 3  # bytes of address space a check may take (500d1000 took 1.2 GB and minutes)
LOCATED = re.compile(r":\d+:\d+: error\[([A-Z-]+)\]")


@dataclass(frozen=True)
class Limit:
    key: str
    what: str  # the case, in words
    limit: str  # the documented limit it meets (docs/language.md, Limits)
    dice: str
    inputs: str = ""  # input lines
    bands: str = '  - 1-3: low "Low"\n  - 4+: high "High"'
    issue: str = ""  # what the issue measured before

    def text(self) -> str:
        return (f'ruleset "Bench limits: {self.key}"\n\nroll r "{self.what}" [LIMIT-1]\n{self.inputs}'
                f"  roll: {self.dice}\n{self.bands}\n")


_READINGS = "readings of one roll: 2,000,000"
_WORK = "work of one dice group: 1,000,000 steps"
_CHECK = "the check's exact odds of a ruleset: 1,500,000 steps"
LIMITS = (
    Limit("1000d1000", "`roll: 1000d1000`", _WORK, "1000d1000",
          bands='  - 500000 or less: low "Low"\n  - 500001+: high "High"', issue="accepted; check runs for minutes"),
    Limit("500d1000", "`roll: 500d1000`", _WORK, "500d1000",
          bands='  - 250000 or less: low "Low"\n  - 250001+: high "High"', issue="187 s and 1.2 GB"),
    Limit("n_d1000", "`roll: (n)d1000`, input n: 1..40", _WORK, "(n)d1000",
          inputs='  input n: 1..40 = 1 "Dice"\n', bands='  - 500 or less: low "Low"\n  - 501+: high "High"',
          issue="105 s"),
    Limit("n_d100", "`roll: (n)d100`, input n: 1..200", _CHECK, "(n)d100",
          inputs='  input n: 1..200 = 1 "Dice"\n', bands='  - 50 or less: low "Low"\n  - 51+: high "High"',
          issue="refused after 28 s"),
    Limit("successes_50d6", "`roll: 50d6`, `when count(5) + count(6) >= 3`", _WORK, "50d6",
          bands='  - when count(5) + count(6) >= 3: success "Success"\n  - otherwise: failure "Failure"'),
    Limit("computed_face", "`roll: 20d20`, `when count(x) >= 3`, input x: 1..20", _READINGS, "20d20",
          inputs='  input x: 1..20 = 20 "Face"\n',
          bands='  - when count(x) >= 3: many "Many"\n  - otherwise: few "Few"'),
    Limit("1001d6", "`roll: 1001d6`", "dice in one term: 1,000", "1001d6",
          bands='  - 3500 or less: low "Low"\n  - 3501+: high "High"'),
    Limit("d1001", "`roll: d1001`", "sides of a die: 1,000", "d1001",
          bands='  - 500 or less: low "Low"\n  - 501+: high "High"'),
    Limit("inputs", "`roll: d6 + a + b`, inputs a, b: 1..200", "input combinations: 20,000", "d6 + a + b",
          inputs='  input a: 1..200 = 1 "A"\n  input b: 1..200 = 1 "B"\n',
          bands='  - 100 or less: low "Low"\n  - 101+: high "High"'),
)


@dataclass(frozen=True)
class Checked:
    seconds: float  # the median of the runs (the cap when stopped)
    cpu: float  # the first run's user + system time
    runs: int
    stopped: bool
    code: int | None
    said: str  # the first error line, or the last line

    @property
    def verdict(self) -> str:
        return PASS if not self.stopped and self.seconds < TARGET and self.fits else MISS

    @property
    def fits(self) -> bool:
        """Accepted, or refused with a located error (not a traceback)."""
        return self.code == 0 or (self.code == 1 and LOCATED.search(self.said) is not None)

    def outcome(self, cap: float) -> str:
        if self.stopped:
            return f"still running at {cap:.0f} s: stopped"
        if self.code == 0:
            return "accepted"
        found = LOCATED.search(self.said)
        return f"refused: {found.group(1)}" if found and self.code == 1 else f"**exit {self.code}, no located error**"


def _limit_memory() -> None:  # runs in the child, before it starts
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def check_once(path: Path, cap: float) -> tuple[float, float, bool, int | None, str]:
    """(wall seconds, CPU seconds, stopped, exit code, what it said)."""
    cpu, start = _cpu(), time.perf_counter()
    try:
        done = subprocess.run([*rulecraft_command(), "check", str(path)], cwd=ROOT, capture_output=True, text=True,
                              timeout=cap, check=False, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:  # the child was stopped and reaped: its CPU time is counted
        return cap, _cpu() - cpu, True, None, ""
    took = time.perf_counter() - start
    lines = [line for line in (done.stdout + "\n" + done.stderr).splitlines() if line.strip()]
    said = next((line for line in lines if "error[" in line), lines[-1] if lines else "")
    return took, _cpu() - cpu, False, done.returncode, said.replace(str(path.parent) + "/", "")


def check(path: Path, cap: float, quick: bool) -> Checked:
    """One run; a run that ends within a few seconds is run twice more (the median is judged)."""
    took, cpu, stopped, code, said = check_once(path, cap)
    times = [took]
    if not stopped and not quick and took < 3 * TARGET:
        times += [check_once(path, cap)[0] for _ in range(2)]
    return Checked(statistics.median(times), cpu, len(times), stopped, code, said)


def run(ctx: Context) -> Section:
    section = Section("limits", "Limits")
    cap = QUICK_CAP if ctx.quick else CAP
    section.text(
        f"Each case is a small ruleset (one roll) checked by `rulecraft check <file>` in a new process, stopped "
        f"at {cap:.0f} s and capped at {MEMORY // 1024 ** 3} GB of address space, so that the bench never hangs. "
        f"PASS when the process exits within {TARGET:.0f} s (start-up included), accepting the ruleset or "
        "refusing it with an error at its file:line:col; MISS when it takes longer, is stopped, or fails without "
        "a located error. A case that ends within 3 s runs three times (the median is judged; the CPU time is "
        "the first run's user and system time). The limit is the one `docs/language.md` (Limits) documents for "
        "the case.")
    table = Table(("case", "documented limit", "issue 21 measured", "time", "runs", "CPU time", "outcome",
                   "what it said", f"target < {TARGET:.0f} s", "verdict"))
    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-limits-") as folder:
        for limit in LIMITS:
            path = Path(folder) / f"limit_{limit.key}.rules"
            path.write_text(limit.text(), encoding="utf-8")
            progress(f"limits: {limit.what}")
            found = check(path, cap, ctx.quick)
            shown = f"> {cap:.0f} s" if found.stopped else seconds(found.seconds)
            table.add(limit.what, limit.limit, limit.issue, shown, found.runs, seconds(found.cpu), found.outcome(cap),
                      f"`{found.said[:160]}`" if found.said else "", f"< {TARGET:.0f} s", found.verdict)
            section.target(f"limits: `rulecraft check` of {limit.what} ends within {TARGET:.0f} s "
                           "(accepted, or refused at its line)", f"{shown}, {found.outcome(cap)}", found.verdict)
    section.table(table)
    section.text("The first case's ruleset, as the bench writes it:\n\n```\n" + LIMITS[0].text().rstrip() + "\n```")
    return section
