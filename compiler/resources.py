"""Where the grammar and templates live: the one place that knows.

In a checkout (or an editable install) they sit beside the package; a built
wheel installs them under `<prefix>/share/rulecraft/` (see pyproject.toml).
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

# What `rulecraft build` can write (`--format`), one folder of output/ each. Here, not in build.py, so that
# the command line names them without importing the build on the paths that only roll.
FORMATS = ("python", "html", "pdf", "json", "yaml")


@cache
def data_dir() -> Path:
    candidates = [PACKAGE_DIR.parent, Path(sys.prefix) / "share" / "rulecraft"]
    for candidate in candidates:
        if (candidate / "grammar" / "rules.lark").is_file():
            return candidate
    raise FileNotFoundError("cannot find grammar/rules.lark beside the compiler package or in "
                            f"{candidates[1]}; reinstall rulecraft")


def grammar_path() -> Path:
    return data_dir() / "grammar" / "rules.lark"


def templates_dir() -> Path:
    return data_dir() / "templates"


def cache_dir() -> Path | None:
    """`$XDG_CACHE_HOME/rulecraft/` (else `~/.cache/rulecraft/`), for what is slow to build and safe to lose
    (the parser, which generated modules compiled, the PDFs); never the project's folders. None without a
    home folder."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError, OSError):  # no home folder
            return None
    return Path(base) / "rulecraft"


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


def project_root() -> Path:
    """The folder holding rulesets/ and output/: the current directory, else the checkout."""
    here = Path.cwd()
    if (here / "rulesets").is_dir():
        return here
    return PACKAGE_DIR.parent


def display_path(path: Path) -> str:
    """`path` as a user sees it: relative to the current folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def source_name(path: Path) -> str:
    """How the outputs name a ruleset's file (`Generated from rulesets/x.rules`): relative to its project (the
    folder holding the rulesets/ it sits in; else the project root), else its bare name. Never where the build
    was started, nor a user's home folder."""
    absolute = Path(os.path.abspath(path))  # symbolic links kept: the path as the project lays it out
    for folder in absolute.parents:
        if folder.name == "rulesets":
            return absolute.relative_to(folder.parent).as_posix()
    try:
        return absolute.relative_to(os.path.abspath(project_root())).as_posix()
    except ValueError:
        return absolute.name


def ruleset_path(name_or_path: str) -> Path:
    """An id from rulesets/ or a path: a .rules name, a name with a folder in it, or anything there but a folder
    (a device or a pipe is a path too, to be refused as one, never taken for an id)."""
    candidate = Path(name_or_path)
    separators = {"/", os.sep, os.altsep or "/"}
    if candidate.suffix == ".rules" or any(sep in name_or_path for sep in separators) or \
            (candidate.exists() and not candidate.is_dir()):
        return candidate
    return project_root() / "rulesets" / f"{name_or_path}.rules"


@cache
def compiler_fingerprint() -> str:
    """A hash of the compiler's own code and grammar: a built module from other code is stale."""
    digest = hashlib.sha256()
    for path in [*sorted(PACKAGE_DIR.glob("*.py")), grammar_path()]:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
