"""The rulecraft command as a user runs it: contracts of design.md section 5."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from .conftest import ROOT


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulecraft", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_odds_of_the_action_roll() -> None:
    done = run("odds", "tides_of_gold", "action_roll", "dots=2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["ruleset"] == "tides_of_gold" and data["name"] == "action_roll"
    assert data["inputs"]["dots"] == 2
    got = {o["id"]: o["probability"] for o in data["outcomes"]}
    assert got == {"failure": "1/6", "costly": "5/12", "heroic": "7/18", "advantage": "1/36"}
    assert abs(sum(o["percent"] for o in data["outcomes"]) - 100) < 0.01


def test_roll_is_repeatable_by_seed_and_matches_the_json_contract() -> None:
    first = run("roll", "tides_of_gold", "action_roll", "dots=2", "--seed", "7", "--json")
    second = run("roll", "tides_of_gold", "action_roll", "dots=2", "--seed", "7", "--json")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    for key in ("ruleset", "name", "inputs", "dice", "kept", "total", "outcome", "trace", "seed"):
        assert key in data
    assert data["seed"] == 7
    assert set(data["outcome"]) >= {"id", "label", "text"}
    assert data["total"] == sum(data["kept"]) + 2
    text = run("roll", "tides_of_gold", "action_roll", "dots=2", "--seed", "7")
    assert "rolled 2d6" in text.stdout and "seed 7" in text.stdout


def test_every_table_can_be_rolled_and_chains_show_in_the_trace() -> None:
    listing = json.loads(run("list", "tides_of_gold", "--json").stdout)
    tables = [i["name"] for i in listing["items"] if i["kind"] == "table"]
    assert len(tables) >= 11
    for name in tables:
        done = run("roll", "tides_of_gold", name, "--seed", "1")
        assert done.returncode == 0, (name, done.stderr)
    for seed in range(40):
        done = run("roll", "tides_of_gold", "zone_1", "--seed", str(seed), "--json")
        data = json.loads(done.stdout)
        if data["chain"]:
            assert "then Zone 2" in data["trace"]
            break
    else:
        raise AssertionError("no seed in 0..39 rolled a 6 on zone 1")


def test_list_json_contract() -> None:
    data = json.loads(run("list", "tides_of_gold", "--json").stdout)
    assert data["ruleset"] == "tides_of_gold" and data["title"] == "Tides of Gold v3.0"
    item = next(i for i in data["items"] if i["name"] == "action_roll")
    assert item["kind"] == "roll" and "TOG-01" in item["sources"]
    dots = next(i for i in item["inputs"] if i["name"] == "dots")
    assert dots == {"name": "dots", "type": "int", "min": 0, "max": 4, "choices": None, "default": 1}
    ids = {source for i in data["items"] for source in i["sources"]}
    assert {f"TOG-{n:02d}" for n in range(1, 63)} <= ids


def test_bad_inputs_give_one_line_and_exit_1() -> None:
    cases = [
        (["odds", "tides_of_gold", "action_roll", "dots=9"], "dots must be from 0 to 4"),
        (["odds", "tides_of_gold", "action_roll", "speed=1"], "has no input 'speed'"),
        (["roll", "tides_of_gold", "no_such_roll"], "no roll or table named 'no_such_roll'"),
        (["roll", "tides_of_gold", "seller_roll", "market=busy"], "must be one of scarce, normal, overflowing"),
        (["odds", "nowhere", "x"], "no ruleset `nowhere`"),
    ]
    for args, message in cases:
        done = run(*args)
        assert done.returncode == 1, args
        assert message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) <= 2, done.stderr


def test_a_syntax_error_reports_place_caret_hint_and_leaves_output_untouched(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "rulesets").mkdir(parents=True)
    shutil.copy(ROOT / "rulesets" / "tides_of_gold.rules", project / "rulesets")
    assert run("build", "--format", "python,json", cwd=project).returncode == 0
    before = {p: p.read_bytes() for p in (project / "output").rglob("*") if p.is_file()}
    source = (project / "rulesets" / "tides_of_gold.rules").read_text()
    broken = source.replace("  roll: 2d6 + wealth\n", "  roll 2d6 + wealth\n", 1)
    assert broken != source
    (project / "rulesets" / "tides_of_gold.rules").write_text(broken)
    done = run("build", "--format", "python,json", cwd=project)
    assert done.returncode == 1
    line = broken[: broken.index("  roll 2d6 + wealth")].count("\n") + 1
    assert f"rulesets/tides_of_gold.rules:{line}:" in done.stderr
    assert "error[MISSING-COLON]" in done.stderr
    assert "^" in done.stderr and "hint: put a colon" in done.stderr
    after = {p: p.read_bytes() for p in (project / "output").rglob("*") if p.is_file()}
    assert after == before


def test_generated_module_imports_by_path_with_only_the_standard_library(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-c",
         "import importlib.util, random, sys\n"
         f"spec = importlib.util.spec_from_file_location('tog', {str(ROOT / 'output/python/tides_of_gold.py')!r})\n"
         "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
         "r = mod.action_roll(dots=2, rng=random.Random(7)); print(r.outcome.id)\n"
         "print(sorted(k for k in sys.modules if k.split('.')[0] in ('lark', 'jinja2', 'compiler')))\n"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_roll_repeat_carries_state_into_the_next_roll() -> None:
    # Errant weather: clear skies carry +2 into the next weather roll (seed 11 rolls 4+5, then 4+4).
    done = run("roll", "errant", "weather", "season=summer", "--repeat", "2", "--seed", "11")
    assert done.returncode == 0, done.stderr
    first, second = [line for line in done.stdout.splitlines() if not line.startswith("  ")][:2]  # data: indented
    assert first.endswith("Clear skies (+2 to next weather roll)") and "→ 9-11" in first
    assert "→ 8 + 2 = 10" in second
    assert "--seed 11 --repeat 2` repeats these rolls" in done.stdout
    bad = run("roll", "errant", "weather", "--repeat", "0")
    assert bad.returncode == 1 and "--repeat takes a whole number of rolls" in bad.stderr


def test_roll_and_odds_use_the_built_module_only_while_it_is_current(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from rulecraft.api import load
    from rulecraft.backends.python import generate
    from rulecraft.cli.main import compiled

    (tmp_path / "rulesets").mkdir()
    (tmp_path / "output" / "python").mkdir(parents=True)
    rules = tmp_path / "rulesets" / "mini.rules"
    rules.write_text('ruleset "Mini"\n\nroll r "R" [M-1]\n  roll: d6\n  - 4+: hit "Hit"\n  - otherwise: miss "Miss"\n',
                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    built = generate(load("mini").checked) + "BUILT_MARKER = True\n"
    (tmp_path / "output" / "python" / "mini.py").write_text(built, encoding="utf-8")
    assert getattr(compiled("mini"), "BUILT_MARKER", False) is True  # same source, same compiler: no compile
    rules.write_text(rules.read_text(encoding="utf-8").replace("4+", "5+"), encoding="utf-8")
    fresh = compiled("mini")  # the source changed: the built module is stale and is not used
    assert not hasattr(fresh, "BUILT_MARKER") and fresh.odds("r")["hit"] == Fraction(1, 3)


def test_a_roll_prints_its_data_under_its_trace_as_the_json_holds_it() -> None:
    """A player at the table reads the harm and the complication, not only the outcome's text."""
    text = run("roll", "wyrd_wolds", "action_roll", "rating=2", "--seed", "3").stdout.splitlines()
    data = json.loads(run("roll", "wyrd_wolds", "action_roll", "rating=2", "--seed", "3", "--json").stdout)
    lines = [line.strip() for line in text if line.startswith("  ")]
    shown = {True: "yes", False: "no"}
    assert lines == [f"{name}: {shown.get(value, value) if isinstance(value, bool) else value}"
                     for name, value in data["values"].items()]
    assert lines and text[0].startswith("ACTION ROLL:") and text[-1].startswith("(seed 3:")
