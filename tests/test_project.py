"""A designer's project: settings found by walking up from the current folder, outputs under the project (never
into the installation), ruleset ids from any subfolder, warnings ignored by the settings or a comment, and
`rulecraft init`, which starts a game that builds at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rulecraft import project
from rulecraft.api import load
from rulecraft.project import ProjectError, find_project, ignored_in, init_project

from .conftest import ROOT

GAME = '''ruleset "Skies"

roll test "Test"
  input skill: 0..3 = 0
  roll: 2d6 + skill
  - 10+: success "Success"
  - 7-9: cost "At a cost"
'''  # 6 or less falls to no band: a RANGE-GAP warning


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulecraft", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(autouse=True)
def fresh() -> None:
    project.forget()


def test_settings_are_found_by_walking_up(tmp_path: Path) -> None:
    (tmp_path / "rulecraft.toml").write_text('output = "build"\nformats = ["json"]\npage = "letter"\n')
    deep = tmp_path / "rulesets" / "drafts"
    deep.mkdir(parents=True)
    found = find_project(deep)
    assert found.root == tmp_path.resolve() and found.config == tmp_path.resolve() / "rulecraft.toml"
    assert found.output == tmp_path.resolve() / "build" and found.formats == ("json",) and found.page == "letter"
    other = tmp_path / "other"
    (other / "sub").mkdir(parents=True)
    (other / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.rulecraft]\nrulesets = "games"\n')
    assert find_project(other / "sub").rulesets == other.resolve() / "games"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.rulecraft]: not a project
    assert find_project(plain).root == tmp_path.resolve()  # the rulecraft.toml above it


def test_without_settings_the_current_folder_is_the_project(tmp_path: Path) -> None:
    found = find_project(tmp_path)
    assert found.root == tmp_path.resolve() and found.config is None
    assert found.output == tmp_path.resolve() / "output"
    assert find_project(ROOT / "compiler").root == ROOT  # this checkout: the folder that holds rulesets/


@pytest.mark.parametrize(("text", "message"), [
    ('outputs = "x"\n',
     "unknown setting `outputs`; the settings are rulesets, output, formats, page, theme, ignore, package"),
    ('formats = ["pdf", "docx"]\n', "`formats` is a list of python, html, pdf, json, yaml"),
    ('page = "A4"\n', "`page` is \"a4\" or \"letter\", not 'A4'"),
    ('ignore = ["RANGE-GAPS"]\n', "`ignore` names `RANGE-GAPS`, which is not a warning"),
    ('output = 3\n', "`output` is a folder, written as text"),
    ('formats = [\n', "not valid TOML"),
])
def test_a_wrong_setting_names_the_file_and_what_it_may_be(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "rulecraft.toml").write_text(text)
    with pytest.raises(ProjectError, match=r"rulecraft\.toml") as caught:
        find_project(tmp_path)
    assert message in str(caught.value)
    done = run("build", cwd=tmp_path)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_a_build_outside_any_project_writes_under_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "skies.rules").write_text(GAME)
    done = run("build", "skies.rules", "--format", "python,json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "output" / "python" / "skies.py").is_file()
    assert (tmp_path / "output" / "json" / "skies.json").is_file()
    assert not (ROOT / "output" / "python" / "skies.py").exists()


def test_ids_resolve_from_any_subfolder_and_settings_apply(tmp_path: Path) -> None:
    (tmp_path / "rulecraft.toml").write_text('output = "site"\nformats = ["json"]\n')
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "skies.rules").write_text(GAME)
    (tmp_path / "notes").mkdir()
    done = run("odds", "skies", "test", "--json", cwd=tmp_path / "notes")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["name"] == "test"
    done = run("build", cwd=tmp_path / "notes")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == ["json"]


def test_warnings_are_ignored_by_the_settings_or_a_comment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "skies.rules").write_text(GAME)
    monkeypatch.chdir(tmp_path)
    assert "RANGE-GAP" in {d.code.value for d in load("skies.rules").report.diagnostics}
    (tmp_path / "skies.rules").write_text("# rulecraft: ignore RANGE-GAP, NO-SOURCE\n" + GAME)
    assert ignored_in((tmp_path / "skies.rules").read_text()) == {"RANGE-GAP", "NO-SOURCE"}
    assert "RANGE-GAP" not in {d.code.value for d in load("skies.rules").report.diagnostics}
    (tmp_path / "skies.rules").write_text(GAME)
    (tmp_path / "rulecraft.toml").write_text('ignore = ["RANGE-GAP"]\n')
    project.forget()
    assert "RANGE-GAP" not in {d.code.value for d in load("skies.rules").report.diagnostics}


def test_init_starts_a_game_that_builds_and_rolls(tmp_path: Path) -> None:
    done = run("init", "star raiders", "--title", "Star Raiders", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    game = tmp_path / "star raiders"
    assert sorted(p.name for p in game.iterdir()) == [".gitignore", "README.md", "rulecraft.toml", "rulesets"]
    assert (game / "rulesets" / "star_raiders.rules").read_text().startswith("# Star Raiders: a game of your own")
    assert "cd 'star raiders' && rulecraft build" in done.stdout
    check = run("check", cwd=game)
    assert check.returncode == 0 and "no problems found" in check.stdout, check.stdout + check.stderr  # no NO-SOURCE
    build = run("build", cwd=game)
    assert build.returncode == 0, build.stderr
    assert (game / "output" / "html" / "star_raiders.html").is_file()
    assert not (game / "output" / "pdf").exists()  # the settings' formats: python, html, json
    roll = run("roll", "star_raiders", "test", "skill=1", "--seed", "3", cwd=game / "rulesets")
    assert roll.returncode == 0 and roll.stdout.startswith("Test: rolled 2d6")
    again = run("init", "star raiders", cwd=tmp_path)
    assert again.returncode == 1 and "is there already; nothing was written" in again.stderr


def test_resolvers_as_an_importable_package_with_a_valid_name(tmp_path: Path) -> None:
    (tmp_path / "my-game.rules").write_text(GAME)
    done = run("build", "my-game.rules", "--format", "python", "--package", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    package = tmp_path / "output" / "python" / "my_game"
    assert sorted(p.name for p in package.iterdir()) == ["__init__.py", "py.typed"]
    script = ("import random, my_game; r = my_game.test(skill=1, rng=random.Random(3)); "
              "print(my_game.RULESET, r.outcome.id if r.outcome else None, r.total)")
    imported = subprocess.run([sys.executable, "-c", script], cwd=tmp_path / "output" / "python",
                              capture_output=True, text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split()[0] == "my_game"
    rolled = run("roll", "my-game.rules", "test", "skill=1", "--seed", "3", cwd=tmp_path)  # reads the package
    assert rolled.returncode == 0 and rolled.stdout.startswith("Test: rolled 2d6"), rolled.stderr
    (tmp_path / "rulecraft.toml").write_text("package = true\nformats = [\"python\"]\n")
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "2nd edition.rules").write_text(GAME)
    assert run("build", cwd=tmp_path).returncode == 0
    assert (tmp_path / "output" / "python" / "game_2nd_edition" / "__init__.py").is_file()


def test_init_names_a_game_after_its_folder(tmp_path: Path) -> None:
    written = init_project(tmp_path / "2 Moons")
    assert written[1].name == "game_2_moons.rules"
    assert 'ruleset "Game 2 moons"' in written[1].read_text()
    with pytest.raises(ProjectError, match="is there already"):
        init_project(tmp_path / "2 Moons")
