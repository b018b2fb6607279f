"""`python -m bench`: run the benchmark suite and write bench/REPORT.md.

    bench/.venv/bin/python -m bench                 # everything; writes bench/REPORT.md and prints it
    bench/.venv/bin/python -m bench --quick         # a smoke run (under a minute), printed only
    bench/.venv/bin/python -m bench --only odds     # one section (repeatable, or comma-separated)
    bench/.venv/bin/python -m bench --quick --output /tmp/report.md

Only a full run (no --quick, no --only) writes bench/REPORT.md by default, so a
partial or quick run never replaces the full report; --output writes anywhere.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from . import build, exact_odds, limits, resolvers, simulation, startup
from .context import ROOT, Context, progress
from .report import MISS, Section, Table, load_average, machine_table, summary

# Issue 21's targets (item 5: resolvers, odds, build; item 6: limits), then two informative sections.
SECTIONS: dict[str, tuple[str, Callable[[Context], Section]]] = {
    "resolvers": ("Resolvers: one call", resolvers.run),
    "odds": ("Exact odds against icepool", exact_odds.run),
    "build": ("Build", build.run),
    "limits": ("Limits", limits.run),
    "simulate": ("Batch simulation (informative)", simulation.run),
    "startup": ("Start-up (informative)", startup.run),
}
NUMBERS = {key: number for number, key in enumerate(SECTIONS, start=1)}  # fixed, whatever --only picks
REPORT = ROOT / "bench" / "REPORT.md"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench",
                                     description="Rulecraft's benchmark suite (issue 21's targets).")
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: fewer repeats, smaller sizes")
    parser.add_argument("--only", action="append", default=[], metavar="SECTION",
                        help=f"run only these sections ({', '.join(SECTIONS)}); repeat or separate by commas")
    parser.add_argument("--output", type=Path, default=None,
                        help="write the report here (default: bench/REPORT.md for a full run, nowhere otherwise)")
    args = parser.parse_args(argv)
    only = [name.strip() for item in args.only for name in item.split(",") if name.strip()]
    unknown = [name for name in only if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; the sections are {', '.join(SECTIONS)}")
    args.only = only
    return args


def failed(key: str, title: str, problem: BaseException) -> Section:
    """A section that raised: the report says so (and its targets count as missed)."""
    section = Section(key, title)
    last = traceback.format_exception_only(type(problem), problem)[-1].strip()
    section.text(f"**The section failed**: `{last}`")
    section.text("```\n" + "".join(traceback.format_exception(problem)).strip()[-3000:] + "\n```")
    section.target(f"{title}: the section runs", f"failed: {last[:120]}", MISS)
    return section


def render(ctx: Context, sections: list[Section], started: dt.datetime, load_before: str, wall: float,
           mode: str) -> str:
    parts = [
        "# Rulecraft benchmarks",
        "Written by `make bench` (`bench/.venv/bin/python -m bench`; see `bench/README.md`). Every ratio compares "
        "two things measured in this one run, interleaved. Times are medians of repeats; a spread is the "
        "interquartile range (q1–q3) of the repeats; a ratio is the ratio of the medians, and its spread runs from "
        "one side's q1 over the other's q3 to its q3 over the other's q1. Sections 1, 2 and 5 time calls in this "
        "process on its CPU time (`time.process_time`: the 2 cores are shared, and a call preempted by another "
        "process would count the other's time); sections 3, 4 and 6 time whole processes on the wall clock. "
        "A verdict is PASS only when a target of issue 21 (items 5 and 6) or issue 23 is met in this run; MISS "
        "otherwise (a miss is reported as a miss); n/a when the thing measured is not available. Sections and rows "
        "without a verdict are informative.",
        "## Machine\n\n" + machine_table(ROOT, mode, started, load_before, load_average(), wall).markdown(),
    ]
    if ctx.quick:
        parts.append("> **Quick run**: fewer repeats and smaller sizes than `make bench`; the verdicts are only "
                     "indicative.")
    for section in sections:
        parts.append(section.markdown(NUMBERS[section.key]).rstrip())
    parts.append("## Summary\n\n" + summary(sections).markdown())
    counts = _counts(summary(sections))
    parts.append(counts)
    return "\n\n".join(parts) + "\n"


def _counts(table: Table) -> str:
    verdicts = [row[-1].split(" ")[0] for row in table.rows]
    return (f"{verdicts.count('PASS')} PASS, {verdicts.count('MISS')} MISS, {verdicts.count('n/a')} n/a "
            f"of {len(verdicts)} targets.")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    ctx = Context.make(args.quick)
    chosen = args.only or list(SECTIONS)
    started = dt.datetime.now(dt.UTC)
    load_before = load_average()
    clock = time.perf_counter()
    sections: list[Section] = []
    for key in SECTIONS:  # the report's order is fixed, whatever order --only names them in
        if key not in chosen:
            continue
        title, run = SECTIONS[key]
        progress(f"section: {title}")
        begun = time.perf_counter()
        try:
            sections.append(run(ctx))
        except Exception as problem:  # a broken section is reported, and the others still run
            sections.append(failed(key, title, problem))
        progress(f"section: {title} took {time.perf_counter() - begun:.1f} s")
    wall = time.perf_counter() - clock
    mode = "quick (`--quick`)" if args.quick else "full"
    if args.only:
        mode += f", sections: {', '.join(k for k in SECTIONS if k in chosen)}"
    text = render(ctx, sections, started, load_before, wall, mode)
    output = args.output if args.output is not None else (REPORT if not args.quick and not args.only else None)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        progress(f"wrote {output}")
    sys.stdout.write(text)
    return 0
