"""A designer's review tools: `check --odds` beside each band, and `diff OLD NEW` with the odds' movement."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rulecraft.cli.main import main

V1 = '''ruleset "Tiny"

roll action "Action roll" [TINY-1]
  input dots: 0..3 = 1
  roll: 2d6 + dots
  - 6 or less: failure "You fail."
  - 7-9: partial "You do it, at a cost."
  - 10+: success "You do it."

list gear "Gear" [TINY-2]
  - "Rope"
'''

V2 = '''ruleset "Tiny"

roll action "Action roll" [TINY-1]
  input dots: 0..3 = 1
  roll: 2d6 + dots
  - 7 or less: failure "You fail."
  - 8-9: partial "You do it, at a price."
  - 10+: success "You do it."

roll fate "Fate" [TINY-3]
  roll: d6
  - 1-3: bad "Bad"
  - 4+: good "Good"
'''


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "tiny_v1.rules", tmp_path / "tiny_v2.rules"
    old.write_text(V1, encoding="utf-8")
    new.write_text(V2, encoding="utf-8")
    return old, new


def test_check_odds_prints_each_band_with_its_probability(versions: tuple[Path, Path],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    old, _ = versions
    assert main(["check", "--odds", str(old)]) == 0
    out = capsys.readouterr().out
    listing = out[out.index(":3: action"):].splitlines()
    assert listing[0] == ':3: action "Action roll" at dots=1'
    # 2d6+1: 6 or less is 2d6 <= 5 (10/36); 7-9 is 2d6 in 6..8 (16/36); 10+ is 2d6 >= 9 (10/36)
    assert listing[1:4] == [
        '    6 | - 6 or less: failure "You fail."               5/18   27.778%',
        '    7 | - 7-9: partial "You do it, at a cost."          4/9   44.444%',
        '    8 | - 10+: success "You do it."                    5/18   27.778%',
    ]


def test_check_odds_in_json(versions: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, _ = versions
    assert main(["check", "--odds", "--format", "json", str(old)]) == 0
    payload = json.loads(capsys.readouterr().out)
    action = payload["odds"]["tiny_v1"][0]
    assert action["name"] == "action" and action["inputs"] == {"dots": 1}
    assert [(b["key"], b["line"], b["probability"]) for b in action["bands"]] == [
        ("6 or less", 6, "5/18"), ("7-9", 7, "4/9"), ("10+", 8, "5/18")]


def test_diff_names_every_change_and_how_the_odds_moved(versions: tuple[Path, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    assert main(["diff", str(old), str(new)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        '- list gear "Gear": removed',
        '+ roll fate "Fate": added',
        '~ action "Action roll"',
        '    bands[failure].key: "6 or less" -> "7 or less"',
        '    bands[partial].key: "7-9" -> "8-9"',
        '    bands[partial].text: "You do it, at a cost." -> "You do it, at a price."',
        "    odds over 4 input combinations:",
        # at dots=1 failure is 2d6 <= 6 (15/36) instead of <= 5 (10/36); at dots=0, 2d6 <= 7 (21/36) vs 15/36
        "      failure: 27.778% -> 41.667% at the defaults (+13.889 points); "
        "most at dots=0: 41.667% -> 58.333% (+16.667 points)",
        "      partial: 44.444% -> 30.556% at the defaults (-13.889 points); "
        "most at dots=0: 41.667% -> 25.000% (-16.667 points)",
    ]


def test_diff_json_and_exit_code(versions: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    assert main(["diff", "--json", "--exit-code", str(old), str(new)]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["same"] is False
    assert [d["name"] for d in payload["added"]] == ["fate"]
    failure = next(o for o in payload["changed"][0]["odds"] if o["outcome"] == "failure")
    assert failure["at_defaults"] == {"old": "5/18", "new": "5/12"}
    assert failure["largest"] == {"inputs": {"dots": 0}, "old": "5/12", "new": "7/12"}
    assert main(["diff", "--exit-code", str(old), str(old)]) == 0
    assert "define the same rules" in capsys.readouterr().out


def test_spacing_alone_changes_nothing(versions: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    new.write_text(V1.replace("- 7-9:", "- 7 - 9 :").replace("2d6 + dots", "2d6+dots"), encoding="utf-8")
    assert main(["diff", "--exit-code", str(old), str(new)]) == 0
    assert "define the same rules" in capsys.readouterr().out


def test_diff_reads_an_old_version_from_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "rulesets").mkdir()
    path = tmp_path / "rulesets" / "tiny.rules"
    path.write_text(V1, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], cwd=tmp_path, check=True)
    path.write_text(V2, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "HEAD:rulesets/tiny.rules", "tiny"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("--- HEAD:rulesets/tiny.rules\n") and '+ roll fate "Fate": added' in out
    assert main(["diff", "HEAD:rulesets/nothing.rules", "tiny"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rulecraft: git cannot show HEAD:rulesets/nothing.rules:") and "Traceback" not in err


def test_diff_of_a_broken_version_shows_its_diagnostics(versions: tuple[Path, Path],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    old, new = versions
    new.write_text(V2.replace("roll: d6", "roll d6"), encoding="utf-8")
    assert main(["diff", str(old), str(new)]) == 1
    assert "tiny_v2.rules:11:" in capsys.readouterr().err


@pytest.mark.parametrize("revision", ["--output={out}", "-p", "--textconv", "-"])
def test_a_revision_is_never_a_git_option(revision: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # `rulecraft diff -- "--output=/some/file:x" tides_of_gold` wrote the file through `git show --output`.
    out = tmp_path / "written"
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    spec = revision.format(out=out) + ":rulesets/tides_of_gold.rules"
    assert main(["diff", "--", spec, "tides_of_gold"]) == 1
    err = capsys.readouterr().err
    assert not out.exists()
    assert f"rulecraft: diff: the revision {revision.format(out=out)!r} starts with '-'" in err, err
    assert "Traceback" not in err


def test_every_git_call_ends_its_options_before_user_text() -> None:
    # The audit of compiler/cli: every subprocess call to git passes --end-of-options before what a user wrote.
    import ast

    folder = Path(__file__).resolve().parent.parent / "compiler" / "cli"
    calls = 0
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess":
                calls += 1
                command = node.args[0]
                assert isinstance(command, ast.List), f"{path.name}:{node.lineno}: build the command as a list"
                words = [e.value if isinstance(e, ast.Constant) else None for e in command.elts]
                assert words[0] == "git" and "--end-of-options" in words, f"{path.name}:{node.lineno}"
                first_user_text = next(i for i, w in enumerate(words) if w is None)
                assert words.index("--end-of-options") < first_user_text, f"{path.name}:{node.lineno}"
    assert calls >= 1
