"""What an install carries (issue 24, items 1 and 9): one version string, read back by `rulecraft --version`;
the wheel holds the licence, `py.typed`, the grammar and templates and the metadata a package index shows; and
installed outside the checkout it runs the README's tutorial, writing nowhere but the game's folder and the
cache."""

from __future__ import annotations

import os
import shlex
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
    # installed with --target (no share/ folder, no site-packages), the README's tutorial runs as written from
    # the package's own data, and every file it writes is in the game's folder or the cache
    target = tmp_path / "target"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                                str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    before = {p for p in target.rglob("*") if "__pycache__" not in p.parts}
    checkout = {p: p.stat().st_mtime_ns for p in (ROOT / "output").rglob("*")}
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target), "HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "NO_COLOR": "1"}
    here = work
    for line in tutorial():  # the README's tutorial, as written, with the installed package
        words = shlex.split(line)
        if words[0] == "cd":
            here = here / words[1]
            continue
        done = subprocess.run([sys.executable, "-m", "compiler", *words[1:]], cwd=here, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
    assert (here / "output" / "html" / "star_raiders.html").is_file()
    assert {p for p in target.rglob("*") if "__pycache__" not in p.parts} == before  # nothing into the install
    assert {p: p.stat().st_mtime_ns for p in (ROOT / "output").rglob("*")} == checkout  # nor into the checkout
    assert not any(home.iterdir())  # nor into the home folder: only the game's folder and the cache


def tutorial() -> list[str]:
    """The commands of the README's tutorial (its `sh` block), comments dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]
