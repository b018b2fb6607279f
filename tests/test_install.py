"""What an install carries (issue 24, items 1 and 9): one version string, read back by `rulecraft --version`;
the wheel holds the licence, `py.typed`, the grammar and templates and the metadata a package index shows; and
installed outside the checkout (with `--target`, into a fresh venv run through a linked command as pipx runs
it, and with `--user`) it runs the README's tutorial, writing nowhere but the game's folder and the cache."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

import pytest

from rulecraft import __version__

from .conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy of what the wheel is made of, so that setuptools' build/ folder (which would carry
    stale modules from one build to the next) is not written into the checkout."""
    folder, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source") / "rulecraft"
    for name in ("compiler", "grammar", "templates"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(folder), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (built,) = folder.glob("rulecraft-*.whl")
    return built


def test_version_is_the_packages_one() -> None:
    done = subprocess.run([sys.executable, "-m", "rulecraft", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"rulecraft {__version__}"
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_wheel_carries_its_licence_types_and_metadata(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "rulecraft/py.typed" in names and any(n.endswith("licenses/LICENSE") for n in names)
    assert "rulecraft/backends/export.schema.json" in names  # the schema every export names
    assert "rulecraft/grammar/rules.lark" in names and "rulecraft/templates/sheet.html.j2" in names
    assert "rulecraft/__main__.py" in names  # python -m rulecraft
    # one import package, named for the tool: nothing a user's own compiler/ or grammar/ folder could shadow
    assert {name.split("/", 1)[0] for name in names} == {"rulecraft", f"rulecraft-{__version__}.dist-info"}
    metadata = zipfile.ZipFile(wheel).read(f"rulecraft-{__version__}.dist-info/METADATA").decode("utf-8")
    assert f"Version: {__version__}" in metadata and "Classifier: Typing :: Typed" in metadata
    assert "License-Expression: MIT" in metadata
    entry_points = zipfile.ZipFile(wheel).read(f"rulecraft-{__version__}.dist-info/entry_points.txt").decode()
    assert "rulecraft = rulecraft.cli.main:main" in entry_points


def test_a_target_install_runs_the_tutorial(wheel: Path, tmp_path: Path) -> None:
    """`--target`: no share/ folder, no site-packages; the package finds its data beside its code."""
    target = tmp_path / "target"
    pip([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)])
    before = files_in(target)
    run_tutorial([sys.executable, "-m", "rulecraft"], tmp_path, {"PYTHONPATH": str(target)})
    assert files_in(target) == before  # nothing written into the install


def test_a_fresh_venv_runs_the_tutorial_through_a_linked_command(wheel: Path, tmp_path: Path) -> None:
    """A venv of its own with the dependencies pip resolves for the wheel, and the command run through a link in
    another folder, as pipx installs it (`~/.local/bin/rulecraft` -> the venv's script). The game's folder holds
    a `compiler/` package that fails on import: the tool is `rulecraft` and never imports it."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)])
    before = files_in(venv)
    links = tmp_path / "links"
    links.mkdir()
    (links / "rulecraft").symlink_to(venv / "bin" / "rulecraft")
    run_tutorial([str(links / "rulecraft")], tmp_path, {})
    assert files_in(venv) == before
    module = subprocess.run([str(venv / "bin" / "python"), "-m", "rulecraft", "--version"], cwd=tmp_path / "work",
                            capture_output=True, text=True, timeout=60)  # the work folder first on sys.path
    assert module.returncode == 0 and module.stdout.strip() == f"rulecraft {__version__}", module.stderr


def test_a_user_install_runs_the_tutorial(wheel: Path, tmp_path: Path) -> None:
    """`pip install --user`: the package and its command under the user base (PYTHONUSERBASE), from a venv that
    sees user site-packages (one made with --system-site-packages, as a system Python does)."""
    venv, base = tmp_path / "venv", tmp_path / "userbase"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    user = {"PYTHONUSERBASE": str(base)}
    pip([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--user", str(wheel)], user)
    assert not list(venv.glob("lib/python*/site-packages/rulecraft"))  # it went to the user base
    before = files_in(base)
    run_tutorial([str(base / "bin" / "rulecraft")], tmp_path, user)
    assert files_in(base) == before


def pip(command: list[str], env: Mapping[str, str] | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr


def files_in(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if "__pycache__" not in p.parts}


def run_tutorial(rulecraft: list[str], tmp_path: Path, env: Mapping[str, str]) -> None:
    """The README's tutorial, as written, with `rulecraft` run as given, from an empty work folder (and a home
    folder of its own): it builds the sheet, and writes nothing into the checkout or the home folder, only into
    the game's folder and the cache."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    (work / "compiler").mkdir()  # a folder named like the source folder must not matter
    (work / "compiler" / "__init__.py").write_text("raise ImportError('the user\\'s own compiler package')\n")
    checkout = {p: p.stat().st_mtime_ns for p in (ROOT / "output").rglob("*")}
    full = {**os.environ, **env, "HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    full.pop("VIRTUAL_ENV", None)
    here = work
    for line in tutorial():
        words = shlex.split(line)
        if words[0] == "cd":
            here = here / words[1]
            continue
        assert words[0] == "rulecraft"
        done = subprocess.run([*rulecraft, *words[1:]], cwd=here, env=full, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
    assert (here / "output" / "html" / "star_raiders.html").is_file()
    assert {p: p.stat().st_mtime_ns for p in (ROOT / "output").rglob("*")} == checkout  # nothing into the checkout
    assert not any(home.iterdir())  # nor into the home folder: only the game's folder and the cache


def tutorial() -> list[str]:
    """The commands of the README's tutorial (its `sh` block), comments dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]
