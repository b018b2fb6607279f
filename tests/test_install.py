"""What an install carries (issue 24, item 1): one version string, read back by `rulecraft --version`; the
wheel holds the licence, the package's `py.typed` and the metadata a package index shows."""

from __future__ import annotations

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
