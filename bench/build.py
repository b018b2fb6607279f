"""Section 4: the build. All five rulesets in one fresh process; stage by stage; the scaling curve."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import synth
from .context import ROOT, Context, compile_error_text, progress
from .report import MISS, Section, Table, verdict
from .timing import seconds, spread, stats_of

BUILD_TARGET = 1.0  # seconds: parse + check + codegen + HTML + JSON of all five, one process
TARGET_FORMATS = ("python", "html", "json")  # the stages: parse and check come with any format
ALL_FORMATS = (*TARGET_FORMATS, "yaml")
SCALES = (1, 2, 5, 10, 25, 50, 100)
ORDER = (1, 2, 5, 10, 25, 100, 50)  # 100x (the target) before 50x, when the time allows only one of them
LARGEST = "wyrd_wolds"
# Whole-file limits (safety caps, not costs): lifted while the synthetic rulesets build.
FILE_LIMITS = ("MAX_SOURCE_BYTES", "MAX_ANALYSIS", "MAX_SHEET_ODDS", "MAX_OUTPUT_BYTES", "MAX_OPTIONS")
PER_LINE_TARGET = 1.5  # "linear": the cost per line at the largest size at most this times the cost at 1x


def _child(mode: str, ids: tuple[str, ...], warm: int, cache: str | None = None,
           formats: tuple[str, ...] = TARGET_FORMATS) -> dict[str, Any]:
    """A fresh process's timings; `cache` replaces the user's cache folder (the parser, compiled
    templates, the marks of compiled modules)."""
    env = {**os.environ, "BENCH_WARM": str(warm), "BENCH_FORMATS": ",".join(formats),
           **({"XDG_CACHE_HOME": cache} if cache is not None else {})}
    done = subprocess.run([sys.executable, "-m", "bench.build_child", mode, *ids], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"bench.build_child {mode} failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def whole_build(ctx: Context, section: Section) -> None:
    section.text("### 4.1 All five rulesets, one fresh process")
    ids = ctx.rulesets
    most, budget = (1, 10.0) if ctx.quick else (3, 30.0)
    plans: list[dict[str, Any]] = []
    began = time.perf_counter()
    progress("build: a fresh process, stage by stage")
    stages = [_child("stages", ids, 0)]
    progress("build: a fresh process with an empty cache folder (plan)")
    with tempfile.TemporaryDirectory() as empty:
        first_ever = _child("plan", ids, 0, cache=empty)
    with_yaml: list[dict[str, Any]] = []
    while len(plans) < most:
        progress(f"build: fresh process {len(plans) + 1} (plan), and one with YAML too")
        start = time.perf_counter()
        plans.append(_child("plan", ids, 1))
        with_yaml.append(_child("plan", ids, 0, formats=ALL_FORMATS))
        last = time.perf_counter() - start
        if time.perf_counter() - began + last > budget:
            break
    section.text(
        f"`compiler.build.plan(ids, {list(TARGET_FORMATS)}, tmp)`: parse, check (with the design analysis, which "
        "works out every roll's odds), codegen, JSON and HTML (the issue's stages) of "
        f"{', '.join(f'`{i}`' for i in ids)}, in a new Python process each time (`python -m bench.build_child`), "
        "so that the first call pays what a `rulecraft build` pays: the grammar, the templates and any caches are "
        f"built on first use. {len(plans)} process{'es' if len(plans) > 1 else ''} (up to {most}, as many as fit "
        f"in {budget:.0f} s); the cold time is the first `plan()` of each, the warm time the second. Importing "
        "the compiler is timed apart (section 6 covers process start-up). PDF is section 5. The built parser and "
        "the compiled templates are kept in the user's cache folder (README, *Performance*), so these processes "
        "load them as every run after the first does; one more process, with an empty cache folder, times the "
        "first run after an install or an upgrade.")
    cold = stats_of([p["cold"] for p in plans])
    again = stats_of([w for p in plans for w in p["warm"]])
    imports = stats_of([p["import"] for p in plans])
    table = Table(("what", "median", "spread", "runs"))
    table.add("import compiler.build", seconds(imports.median), spread(imports), imports.repeats)
    table.add("**plan(), cold (first in the process)**", f"**{seconds(cold.median)}**", spread(cold),
              cold.repeats)
    table.add("plan(), warm (again in the same process)", seconds(again.median), spread(again), again.repeats)
    table.add("plan(), cold, empty cache folder (the first run)", seconds(first_ever["cold"]), "", 1)
    yaml_too = stats_of([p["cold"] for p in with_yaml])
    table.add("plan() with YAML too (`make build`'s formats but PDF), cold", seconds(yaml_too.median),
              spread(yaml_too), yaml_too.repeats)
    section.table(table)
    ok = cold.median < BUILD_TARGET
    whole = len(ids) == 5
    section.text(f"Target: under {BUILD_TARGET:.0f} s in one process (cold): **{verdict(ok)}**"
                 + ("" if whole else f" (quick run: {', '.join(ids)} only)") + ".")
    section.target(f"build of all five (parse, check, codegen, HTML, JSON), one process, < {BUILD_TARGET:.0f} s"
                   + ("" if whole else f" (quick: {', '.join(ids)})"), seconds(cold.median), verdict(ok))

    section.text("**Stage by stage**, cold, in one fresh process (the sum is close to the cold `plan()`; the "
                 "first parse loads the grammar, the first YAML imports ruamel.yaml and the first HTML compiles the "
                 "templates):")
    names: list[str] = []
    for run in stages:
        for per in run["stages"].values():
            for stage in per:
                if stage not in names:
                    names.append(stage)
    by_stage = Table(("ruleset", *names, "total"))
    totals = {stage: 0.0 for stage in names}
    for rid in ids:
        cells = []
        row_total = 0.0
        for stage in names:
            value = statistics.median(run["stages"][rid].get(stage, 0.0) for run in stages)
            totals[stage] += value
            row_total += value
            cells.append(seconds(value))
        by_stage.add(rid, *cells, seconds(row_total))
    by_stage.add("**all**", *(f"**{seconds(totals[s])}**" for s in names), f"**{seconds(sum(totals.values()))}**")
    section.table(by_stage)


@contextmanager
def lifted_limits() -> Iterator[list[str]]:
    """Raise the whole-file safety caps of every loaded compiler module for a while; restore them after."""
    changed: list[tuple[Any, str, Any]] = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "compiler" or name.startswith("compiler.")):
            continue
        for limit in FILE_LIMITS:
            value = getattr(module, limit, None)
            if isinstance(value, int) and not isinstance(value, bool):
                changed.append((module, limit, value))
                setattr(module, limit, value * 10_000)
    try:
        yield sorted({f"{limit} = {value:,}" for _, limit, value in changed})
    finally:
        for module, limit, value in changed:
            setattr(module, limit, value)


@contextmanager
def empty_cache_folder() -> Iterator[None]:
    """A new, empty cache folder for a while: each size's module is compiled, not found compiled by an
    earlier run of the bench (the warm-up is named apart from the 1x build for the same reason)."""
    saved = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["XDG_CACHE_HOME"] = folder
        try:
            yield
        finally:
            if saved is None:
                del os.environ["XDG_CACHE_HOME"]
            else:
                os.environ["XDG_CACHE_HOME"] = saved


def _build_once(source: str, ident: str) -> dict[str, float]:
    """Parse + check, codegen, JSON and HTML of one synthetic ruleset, in this process; seconds per stage."""
    from compiler import api
    from compiler.build import render_html
    from compiler.codegen import generate
    from compiler.diagnostics import Report
    from compiler.render import export_data, to_json

    times: dict[str, float] = {}
    start = time.perf_counter()
    report = Report()
    checked = api.load_text(source, f"<{ident}>", ident, report).checked
    times["parse + check"] = time.perf_counter() - start
    start = time.perf_counter()
    generate(checked)
    times["codegen"] = time.perf_counter() - start
    start = time.perf_counter()
    data = export_data(checked)
    to_json(data)
    times["JSON"] = time.perf_counter() - start
    start = time.perf_counter()
    render_html(data, None, "a4", report)
    times["HTML"] = time.perf_counter() - start
    return times


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares y = a + b x: (a, b, R²)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return my, 0.0, 1.0
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    a = my - b * mx
    total = sum((y - my) ** 2 for y in ys)
    residual = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return a, b, (1 - residual / total) if total else 1.0


def scaling(ctx: Context, section: Section) -> None:
    section.text("### 4.2 Scaling: a synthetic ruleset up to 100 times the largest")
    source = (ROOT / "rulesets" / f"{LARGEST}.rules").read_text(encoding="utf-8")
    scales = (1, 2) if ctx.quick else ORDER
    budget = 8.0 if ctx.quick else 150.0
    section.text(
        f"`rulesets/{LARGEST}.rules` (the largest) repeated N times in one file, every definition and type renamed "
        "consistently in each copy (`bench/synth.py`), then parse + check, codegen, JSON and HTML in this process "
        "(the grammar and templates already loaded), as `plan()` runs them, with an empty cache folder, so every "
        "size's module is compiled. One build per size, in the order "
        f"{', '.join(f'{c}x' for c in scales)}{' (the target, 100x, before 50x)' if 100 in scales else ''}; a size "
        "whose predicted time (at the "
        f"highest cost per line measured so far, plus half) would take the scaling past {budget:.0f} s is not run. "
        "The whole-file safety caps are raised for these builds only; at the default caps a file this large is "
        "refused (TOO-LARGE), which is a policy, not a cost.")
    from compiler import api, build, check, codegen, odds, render, syntax  # noqa: F401 (their caps are lifted)
    from compiler.diagnostics import CompileError

    table = Table(("copies", "lines", "bytes", "parse + check", "codegen", "JSON", "HTML", "total",
                   "per 1,000 lines"))
    rows: dict[int, tuple[str, ...]] = {}
    points: list[tuple[int, int, float]] = []  # (copies, lines, seconds) of the sizes built
    spent = 0.0
    skipped: list[str] = []
    with lifted_limits() as lifted, empty_cache_folder():
        progress("build: scaling warm-up (1x)")
        try:
            _build_once(synth.multiply(source, 1), "synthetic_warm_up")
        except CompileError as problem:
            section.text(f"**The 1x build fails**: {compile_error_text(problem)}")
            section.target("build scales linearly to 100x the largest ruleset", "the 1x build fails", MISS)
            return
        for copies in scales:
            text = synth.multiply(source, copies)
            lines = text.count("\n") + 1
            if points:
                per_line = max(p[2] / p[1] for p in points)
                predicted = per_line * lines
                if spent + predicted * 1.5 > budget:
                    skipped.append(f"{copies}x ({lines:,} lines, predicted ≈ {seconds(predicted)})")
                    continue
            progress(f"build: scaling {copies}x ({lines:,} lines)")
            start = time.perf_counter()
            try:
                stages = _build_once(text, f"synthetic_{copies}")
            except CompileError as problem:
                rows[copies] = (f"{copies}x", f"{lines:,}", f"{len(text.encode()):,}",
                                f"**refused**: {compile_error_text(problem)}", "", "", "", "", "")
                continue
            finally:
                spent += time.perf_counter() - start
            total = sum(stages.values())
            points.append((copies, lines, total))
            rows[copies] = (f"{copies}x", f"{lines:,}", f"{len(text.encode()):,}",
                            *(seconds(stages[s]) for s in ("parse + check", "codegen", "JSON", "HTML")),
                            seconds(total), seconds(total / lines * 1000))
    for copies in sorted(rows):
        table.add(*rows[copies])
    points.sort()
    section.text("Caps raised 10,000 times for these builds (their defaults shown): "
                 + (", ".join(f"`{x}`" for x in lifted) or "none found") + ".")
    section.table(table)
    if skipped:
        section.text("Not run (over the bench's time budget): " + "; ".join(skipped) + ".")
    if len(points) < 2:
        section.target("build scales linearly to 100x the largest ruleset", "fewer than two sizes built", MISS)
        return
    a, b, r2 = _fit([p[1] for p in points], [p[2] for p in points])
    first, last = points[0], points[-1]
    growth = (last[2] / last[1]) / (first[2] / first[1])
    reached = last[0]
    section.text(f"Linear fit over the sizes built: time ≈ {seconds(a)} + {seconds(b * 1000)} per 1,000 lines, "
                 f"R² = {r2:.4f}. Cost per line at {reached}x / at 1x: {growth:.2f}x.")
    linear = growth <= PER_LINE_TARGET and r2 >= 0.98
    ok = linear and reached == max(SCALES)
    measured = f"{reached}x built; per-line cost {growth:.2f}x of 1x; R² {r2:.3f}"
    if reached != max(SCALES):
        predicted = last[2] / last[1] * synth.multiply(source, max(SCALES)).count("\n")
        measured += f"; 100x not run (predicted ≈ {seconds(predicted)})"
    section.target(f"build of a 100x ruleset in linear time (per-line cost ≤ {PER_LINE_TARGET}x of 1x)", measured,
                   verdict(ok))


def run(ctx: Context) -> Section:
    section = Section("build", "Build")
    whole_build(ctx, section)
    scaling(ctx, section)
    return section

