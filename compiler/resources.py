"""Where the grammar and templates live: the one place that knows.

A wheel carries them inside the package (`rulecraft/grammar/`, `rulecraft/templates/`: package data, so any
install finds them beside the code: a venv, `pip install --user`, `--target`, pipx); in a checkout (or an
editable install) they sit at the repository's top, beside the package (see pyproject.toml).
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

# What `rulecraft build` can write (`--format`), one folder of output/ each. Here, not in build.py, so that
# the command line names them without importing the build on the paths that only roll.
FORMATS = ("python", "html", "pdf", "json", "yaml")
# The card sizes of a deck's card sheet (`card_size:`, `--card-size`), width and height in mm: poker, bridge, mini
CARD_SIZES: dict[str, tuple[float, float]] = {"poker": (63.5, 88.9), "bridge": (57.2, 88.9), "mini": (44.5, 63.5)}


@cache
def data_dir() -> Path:
    candidates = [PACKAGE_DIR, PACKAGE_DIR.parent]
    for candidate in candidates:
        if (candidate / "grammar" / "rules.lark").is_file():
            return candidate
    raise FileNotFoundError(f"cannot find grammar/rules.lark in {PACKAGE_DIR} or beside it; reinstall rulecraft")


def grammar_path() -> Path:
    return data_dir() / "grammar" / "rules.lark"


def templates_dir() -> Path:
    return data_dir() / "templates"


def export_schema_text() -> str:
    """The JSON Schema of the JSON and YAML export: package data beside the backend that writes the export
    (`backends/export.schema.json`), read through importlib.resources, so that every kind of install has it."""
    from importlib.resources import files

    return (files(__package__ or "rulecraft") / "backends" / "export.schema.json").read_text(encoding="utf-8")


def cache_dir() -> Path | None:
    """The platform's cache folder for Rulecraft (platformdirs: `$XDG_CACHE_HOME/rulecraft/`, else
    `~/.cache/rulecraft/` on Linux; `~/Library/Caches/rulecraft` on macOS; the local AppData on Windows), for
    what is slow to build and safe to lose (the parser, which generated modules compiled, the PDFs); never the
    project's folders. None without a home folder."""
    import platformdirs

    try:
        Path.home()
        folder = Path(platformdirs.user_cache_dir("rulecraft", appauthor=False))
    except (RuntimeError, KeyError, OSError):  # no home folder
        return None
    return folder if folder.is_absolute() else None


def write_cache(path: Path, data: bytes) -> None:
    """Write a cache file all at once (a reader never sees half of it); a read-only or full disk just skips it:
    a cache only saves time."""
    import contextlib
    import tempfile

    temporary = None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=path.stem, suffix=".tmp",
                                         delete=False) as file:
            temporary = file.name
            file.write(data)
        os.replace(temporary, path)
        temporary = None
    except OSError:
        pass
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def prune_cache(folder: Path, pattern: str, keep: int) -> None:
    """Delete all but the `keep` newest files of `folder` matching `pattern` (what other versions left);
    a cache that cannot be listed or changed is left as it is."""
    try:
        for stale in sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime)[:-keep]:
            stale.unlink()
    except OSError:
        pass


def display_path(path: Path) -> str:
    """`path` as a user sees it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


@cache
def compiler_fingerprint() -> str:
    """A hash of the compiler's own code (every module, in every stage's folder) and grammar: a built module or
    PDF from other code is stale."""
    digest = hashlib.sha256()
    for path in [*sorted(PACKAGE_DIR.rglob("*.py")), grammar_path()]:
        name = path.relative_to(PACKAGE_DIR).as_posix() if path.is_relative_to(PACKAGE_DIR) else path.name
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
