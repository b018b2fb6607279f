"""A fresh process that builds rulesets and prints its timings as JSON (run by the build section).

    python -m bench.build_child plan ID...     # plan() cold, then twice more warm (BENCH_WARM=n: n times)
                                               # of the BENCH_FORMATS (python,html,json,yaml if unset)
    python -m bench.build_child stages ID...   # each stage of each ruleset, cold, in pipeline order

A build is a fresh `rulecraft build` process, so the cold numbers (grammar,
templates and caches built on first use) are the ones a user waits for.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FORMATS = os.environ.get("BENCH_FORMATS", "python,html,json,yaml").split(",")


def plan_mode(ids: list[str], warm: int) -> dict[str, Any]:
    clock = time.perf_counter()
    from compiler.build import plan

    imported = time.perf_counter() - clock
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(1 + warm):
            start = time.perf_counter()
            result = plan(ids, FORMATS, Path(tmp))
            runs.append(time.perf_counter() - start)
    return {"import": imported, "cold": runs[0], "warm": runs[1:], "files": len(result.files)}


def stages_mode(ids: list[str]) -> dict[str, Any]:
    from compiler import api
    from compiler.build import render_html
    from compiler.codegen import generate
    from compiler.diagnostics import Report
    from compiler.render import export_data, to_json, to_yaml
    from compiler.resources import ruleset_path

    try:  # parse and check apart, when their signatures are the ones api.load_text uses
        from compiler.check import check
        from compiler.syntax import parse
    except ImportError:
        parse = check = None  # type: ignore[assignment]
    out: dict[str, dict[str, float]] = {}
    for rid in ids:
        source = ruleset_path(rid).read_text(encoding="utf-8")
        report = Report()
        times: dict[str, float] = {}
        start = time.perf_counter()
        try:
            if parse is None or check is None:
                raise TypeError("no separate parse and check")
            report.sources[rid] = source
            model = parse(source, rid, rid)
            times["parse"] = time.perf_counter() - start
            start = time.perf_counter()
            checked = check(model, source, report)
            times["check"] = time.perf_counter() - start
        except TypeError:
            start = time.perf_counter()
            checked = api.load_text(source, rid, rid, Report()).checked
            times["parse + check"] = time.perf_counter() - start
        start = time.perf_counter()
        generate(checked)
        times["codegen"] = time.perf_counter() - start
        start = time.perf_counter()
        data = export_data(checked)
        times["export data"] = time.perf_counter() - start
        start = time.perf_counter()
        to_json(data)
        times["JSON"] = time.perf_counter() - start
        start = time.perf_counter()
        to_yaml(data)
        times["YAML"] = time.perf_counter() - start
        start = time.perf_counter()
        render_html(data, None, "a4", report)
        times["HTML"] = time.perf_counter() - start
        out[rid] = times
    return {"stages": out}


def main() -> int:
    mode, ids = sys.argv[1], sys.argv[2:]
    result = plan_mode(ids, int(os.environ.get("BENCH_WARM", "2"))) if mode == "plan" else stages_mode(ids)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
