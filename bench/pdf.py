"""Section 5: PDF. `compiler.render.to_pdf` against WeasyPrint alone; `render_pdfs` on both cores."""

from __future__ import annotations

import math
import os
import resource
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .context import Context, progress
from .report import Section, Table, load_average, verdict
from .timing import Candidate, compare, ratio, ratio_text, seconds, spread, times

MAX_OVERHEAD = 1.10  # to_pdf at most 10% over WeasyPrint alone; render_pdfs at most 10% over the ideal on the cores
FRACTIONS = (1.0, 0.5, 0.25, 0.125, 0.0625)


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (the pool's workers, once it has shut down)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _weasyprint(html: str) -> bytes:
    from weasyprint import HTML  # type: ignore[import-untyped,unused-ignore]

    pdf: bytes = HTML(string=html, base_url=None).write_pdf()
    return pdf


def _sheet(ctx: Context, ruleset: str, fraction: float) -> tuple[str, int]:
    """The ruleset's sheet HTML, rendered by the compiler, cut to the first `fraction` of its definitions;
    and how many definitions it shows."""
    from compiler.build import render_html
    from compiler.diagnostics import Report
    from compiler.render import export_data

    data: dict[str, Any] = export_data(ctx.loaded(ruleset).checked)
    definitions = data["definitions"]
    if fraction < 1.0:
        definitions = definitions[:max(1, math.ceil(len(definitions) * fraction))]
        data = dict(data, definitions=definitions)
    return render_html(data, None, "a4", Report()), len(definitions)


SMALL_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Bench</title>
<style>body { font-family: serif; } td { border: 1px solid #999; padding: 2pt 4pt; }</style></head><body>
<h1>Action roll</h1><table>{rows}</table></body></html>"""


def _small_page() -> str:
    """A small HTML page (a table of a few rows): the quick run's stand-in for a sheet."""
    rows = "".join(f"<tr><td>{i}</td><td>{'outcome ' * (i % 7 + 1)}</td></tr>" for i in range(40))
    return SMALL_PAGE.replace("{rows}", rows)


@dataclass(frozen=True)
class Plan:
    fraction: float  # of each sheet's definitions
    rulesets: tuple[str, ...]  # the sheets rendered one after another and on the cores
    note: str


def plan(ctx: Context, rulesets: tuple[str, ...], cores: int, budget: float) -> Plan:
    """How much to render: every sheet if it fits in `budget`, each cut to the largest fraction that fits.

    A sheet's time is taken as proportional to its share of the definitions (it has a fixed part too, so
    this overestimates and errs on the short side). Work: every sheet alone, then all on the cores.
    """
    if ctx.shared.get("full_sheets"):
        return Plan(1.0, rulesets, "The sheets are whole (`--full-sheets`).")
    smallest = FRACTIONS[-1]
    probe, _ = _sheet(ctx, rulesets[0], smallest)
    start = time.perf_counter()
    _weasyprint(probe)
    probe_time = time.perf_counter() - start

    def cost(fraction: float, sheets: int) -> float:
        return probe_time * (fraction / smallest) * sheets * (1 + 1 / cores)

    fraction = next((f for f in FRACTIONS if cost(f, len(rulesets)) <= budget), smallest)
    chosen = rulesets
    while len(chosen) > cores and cost(fraction, len(chosen)) > budget:
        chosen = chosen[:-1]
    note = ""
    if fraction < 1.0:
        in_51 = f" in 5.2 and to their first {smallest:.0%} in 5.1" if fraction != smallest else ""
        note = (f"WeasyPrint is slow here (a sheet cut to its first {smallest:.0%} of definitions took "
                f"{seconds(probe_time)}), so to keep the bench within its time the sheets are cut to their first "
                f"{fraction:.0%} of definitions{in_51} (real sheets of the same templates, only shorter)")
    if chosen != rulesets:
        note += (f"{'; and ' if note else 'To keep the bench within its time, '}only {len(chosen)} of the "
                 f"{len(rulesets)} sheets are rendered in 5.2 (as many as there are cores, at least)")
    if note:
        note += ". `python -m bench --only pdf --full-sheets` renders every sheet whole."
    return Plan(fraction, chosen, note or "The sheets are whole.")


def run(ctx: Context) -> Section:
    section = Section("pdf", "PDF sheets")
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # what to_pdf sets; set first so both sides run alike
    budget = 45.0  # for 5.2; 5.1 has about 25 s more
    cores = os.cpu_count() or 1
    progress("pdf: warming WeasyPrint up (fonts)")
    _weasyprint(_small_page())
    if ctx.quick:
        page = _small_page()
        sheets = {f"small page {i + 1}": (page, 0) for i in range(max(2, cores))}
        chosen = Plan(1.0, tuple(sheets), "Quick run: a small HTML page (a table of 40 rows) stands in for the "
                      "sheets, which take WeasyPrint seconds each.")
    else:
        progress("pdf: sizing the sheets")
        chosen = plan(ctx, ctx.rulesets, cores, budget)
        sheets = {r: _sheet(ctx, r, chosen.fraction) for r in chosen.rulesets}
    rulesets = chosen.rulesets
    # 5.1 measures an overhead, which does not grow with the sheet: the shortest cut gives the most repeats
    first = rulesets[0]
    small = chosen.fraction if ctx.quick or chosen.fraction == 1.0 else FRACTIONS[-1]
    html, shown = sheets[first] if ctx.quick or small == chosen.fraction else _sheet(ctx, first, small)
    section.text(
        "The sheets are rendered to HTML by the compiler (`compiler.build.render_html`) in this process, then to "
        "PDF. WeasyPrint alone is `weasyprint.HTML(string=html).write_pdf()`; Rulecraft's is "
        "`compiler.render.to_pdf(html)` on the same HTML; the parallel build is `compiler.build.render_pdfs` over "
        f"every sheet (a process pool on the {cores} cores), against the same sheets rendered one after another "
        "by WeasyPrint alone. " + chosen.note)

    # 5.1 overhead on one sheet
    progress(f"pdf: to_pdf against WeasyPrint alone ({first}, {shown} definitions)")
    from compiler.render import to_pdf

    # CPU time of this process: WeasyPrint is single-threaded, and CPU time is not stretched by other processes
    # sharing the cores (wall time on a busy machine is; sections 5.2 reports both)
    settings = replace(ctx.settings, repeats=3 if ctx.quick else 5, min_repeats=1 if ctx.quick else 3,
                       budget=25.0, slow_call=1.0, clock=time.process_time)
    found = compare([Candidate("weasyprint", lambda: _weasyprint(html)), Candidate("to_pdf", lambda: to_pdf(html))],
                    settings)
    alone, ours = found["weasyprint"], found["to_pdf"]
    r = ratio(ours, alone)
    overhead = Table(("sheet", "definitions", "WeasyPrint alone (CPU)", "spread", "to_pdf (CPU)", "spread",
                      "to_pdf / WeasyPrint", f"target ≤ {MAX_OVERHEAD:.2f}x", "verdict"))
    overhead.add(first + ("" if small == 1.0 else f" (first {small:.0%})"), shown or "",
                 seconds(alone.median), spread(alone), seconds(ours.median), spread(ours), ratio_text(r),
                 f"≤ {MAX_OVERHEAD:.2f}x", verdict(r.value <= MAX_OVERHEAD))
    section.text("### 5.1 Rulecraft's PDF step against WeasyPrint alone, one sheet")
    section.table(overhead)
    section.target(f"PDF: to_pdf ≤ {MAX_OVERHEAD:.2f}x WeasyPrint alone on the same HTML", times(r.value),
                   verdict(r.value <= MAX_OVERHEAD))

    # 5.2 every sheet: one after another (WeasyPrint alone), then render_pdfs on the cores
    from compiler.build import render_pdfs

    progress(f"pdf: {len(rulesets)} sheets one after another (WeasyPrint alone)")
    each: list[float] = []
    cpu_start = time.process_time()
    for ruleset in rulesets:
        start = time.perf_counter()
        _weasyprint(sheets[ruleset][0])
        each.append(time.perf_counter() - start)
    sequential = sum(each)
    sequential_cpu = time.process_time() - cpu_start
    progress(f"pdf: {len(rulesets)} sheets with render_pdfs")
    jobs = [(Path(f"{ruleset}-{i}.pdf"), sheets[ruleset][0]) for i, ruleset in enumerate(rulesets)]
    load = load_average()
    cpu_start, children_start = time.process_time(), _children_cpu()
    start = time.perf_counter()
    render_pdfs(jobs)
    parallel = time.perf_counter() - start
    parallel_cpu = time.process_time() - cpu_start + _children_cpu() - children_start
    ideal = max(sequential / cores, max(each))
    table = Table(("sheet", "definitions", "WeasyPrint alone"))
    for ruleset, seconds_taken in zip(rulesets, each, strict=True):
        table.add(ruleset, sheets[ruleset][1] or "", seconds(seconds_taken))
    table.add("**one after another**", sum(sheets[r][1] for r in rulesets) or "", f"**{seconds(sequential)}**")
    section.text(f"### 5.2 All sheets: render_pdfs on {cores} cores against WeasyPrint one sheet at a time")
    section.table(table)
    result = Table(("what", "wall time", "CPU time (processes included)"))
    result.add("WeasyPrint alone, one after another", seconds(sequential), seconds(sequential_cpu))
    result.add(f"ideal on {cores} cores: max(total / {cores}, longest sheet)", seconds(ideal), "")
    result.add("`compiler.build.render_pdfs`, all sheets", seconds(parallel), seconds(parallel_cpu))
    result.add("speed-up over one after another", times(sequential / parallel), "")
    result.add(f"render_pdfs / ideal (target ≤ {MAX_OVERHEAD:.2f}x)", times(parallel / ideal), "")
    section.table(result)
    ok = parallel <= MAX_OVERHEAD * ideal
    section.text("One run each (a PDF takes seconds; the pool's start-up is included, as a build pays it). "
                 f"Load average when render_pdfs started: {load}. The cores are shared with whatever else runs "
                 "on the machine: when another process keeps a core busy, the pool cannot go faster than one "
                 "sheet after another, and its wall time says so while its CPU time stays that of the work.")
    section.target(f"PDF: render_pdfs of all sheets ≤ {MAX_OVERHEAD:.2f}x the ideal time on {cores} cores",
                   f"{times(parallel / ideal)} ({times(sequential / parallel)} speed-up)", verdict(ok))
    return section
