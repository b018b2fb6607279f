"""What an install carries (issue 24, item 1): one version string, read back by `rulecraft --version`; the
wheel holds the licence, the package's `py.typed` and the metadata a package index shows."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from compiler import __version__

from .conftest import ROOT


def test_version_is_the_packages_one() -> None:
    done = subprocess.run([sys.executable, "-m", "compiler", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"rulecraft {__version__}"
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_wheel_carries_its_licence_types_and_metadata(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("rulecraft-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "compiler/py.typed" in names and any(n.endswith("licenses/LICENSE") for n in names)
    assert "compiler/backends/export.schema.json" in names  # the schema every export names
    metadata = zipfile.ZipFile(wheel).read(f"rulecraft-{__version__}.dist-info/METADATA").decode("utf-8")
    assert f"Version: {__version__}" in metadata and "Classifier: Typing :: Typed" in metadata
    assert "compiler/grammar/rules.lark" in names and "compiler/templates/sheet.html.j2" in names
    # installed with --target (no share/ folder, no site-packages): a game starts, checks and builds from the
    # package's own data, and every file written is in the game's folder
    target, home = tmp_path / "target", tmp_path / "home"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                                str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    before = {p for p in target.rglob("*") if "__pycache__" not in p.parts}
    env = {**os.environ, "PYTHONPATH": str(target), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    home.mkdir()
    for command in (["init", "game"], ["check"], ["build"]):
        done = subprocess.run([sys.executable, "-m", "compiler", *command], cwd=home / "game" if command != [
            "init", "game"] else home, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert (home / "game" / "output" / "html" / "game.html").is_file()
    assert {p for p in target.rglob("*") if "__pycache__" not in p.parts} == before  # nothing into the install
