"""The benchmark suite keeps running: a quick pass of two sections, in the project's own environment.

No time is asserted (speed is `make bench`'s report, measured as ratios in one run). Without the
bench environment's d20 and icepool, their comparisons must say n/a rather than fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .conftest import ROOT


def test_a_quick_bench_run_writes_a_report_with_its_summary(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--only", "simulate,odds", "--output",
                           str(report)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = report.read_text(encoding="utf-8")
    assert "## Summary" in text and "## 2. Batch simulation" in text and "## 3. Exact odds" in text
    summary = text.split("## Summary", 1)[1]
    assert "exact odds of every roll's full input grid" in summary
    assert summary.count("1,000,000 rolls") == 4 and "failed" not in summary
