"""A designer's project: the folder a game lives in, and its settings.

As ruff and black do, Rulecraft looks up from the current folder for `rulecraft.toml` (or a `pyproject.toml`
with a `[tool.rulecraft]` table); the first one found is the project, its folder the root. A folder that
holds `rulesets/` is a project without settings (this repository is one). Without either, the current folder
is the root: outputs go to `./output`, never into the installation.

```toml
rulesets = "rulesets"          # where ruleset ids are looked up, and what `rulecraft build` builds
output = "output"              # where `rulecraft build` writes
formats = ["python", "html"]   # what it builds by default (every format without this)
page = "a4"                    # or "letter"
theme = "theme"                # a folder of templates overriding the built-in ones, file by file
ignore = ["NO-SOURCE"]         # warnings not to report (a file can add `# rulecraft: ignore CODE, ...`)
package = false                # true: resolvers as importable packages, python/<id>/__init__.py and py.typed
```
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .diagnostics import Code
from .resources import FORMATS

CONFIG_NAME = "rulecraft.toml"
KEYS = ("rulesets", "output", "formats", "page", "theme", "ignore", "package")
PAGES = ("a4", "letter")
WARNING_CODES = frozenset(code.value for code in Code if code.meaning.startswith("W: "))
PRAGMA = re.compile(r"^[ \t]*#[ \t]*rulecraft:[ \t]*ignore[ \t]+([A-Z0-9][A-Z0-9, \t-]*)$", re.MULTILINE)


class ProjectError(Exception):
    """A settings file that cannot be used: the message names the file, the key and what it may be."""


@dataclass(frozen=True)
class Project:
    root: Path  # the project's folder
    config: Path | None  # the settings file read, if any
    rulesets: Path
    output: Path
    formats: tuple[str, ...] | None = None  # None: every format
    page: str | None = None
    theme: Path | None = None
    ignore: frozenset[str] = frozenset()
    package: bool = False  # resolvers as importable packages (`build --package`)


def find_project(start: Path | None = None) -> Project:
    """The project the folder `start` (the current folder) is in: see the module's docstring."""
    here = (start or Path.cwd()).resolve()
    return _find(here)


@cache
def _find(here: Path) -> Project:
    for folder in (here, *here.parents):
        config = folder / CONFIG_NAME
        if config.is_file():
            return _read(folder, config, _table(config, tool=False))
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            table = _table(pyproject, tool=True)
            if table is not None:
                return _read(folder, pyproject, table)
        if (folder / "rulesets").is_dir():
            return Project(folder, None, folder / "rulesets", folder / "output")
    return Project(here, None, here / "rulesets", here / "output")


def _table(path: Path, tool: bool) -> dict[str, object] | None:
    """The settings in `path`: the whole of a rulecraft.toml, `[tool.rulecraft]` of a pyproject.toml (None when
    it has none)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as problem:
        raise ProjectError(f"{path}: cannot be read ({problem})") from None
    except tomllib.TOMLDecodeError as problem:
        raise ProjectError(f"{path}: not valid TOML: {problem}") from None
    if not tool:
        return data
    section = data.get("tool", {})
    found = section.get("rulecraft") if isinstance(section, dict) else None
    if found is not None and not isinstance(found, dict):
        raise ProjectError(f"{path}: `tool.rulecraft` must be a table of settings, like `[tool.rulecraft]`")
    return found


def _read(root: Path, config: Path, table: dict[str, object] | None) -> Project:
    table = table or {}
    where = f"{config}" if config.name == CONFIG_NAME else f"{config} [tool.rulecraft]"
    unknown = [key for key in table if key not in KEYS]
    if unknown:
        raise ProjectError(f"{where}: unknown setting `{unknown[0]}`; the settings are {', '.join(KEYS)}")

    def folder(key: str, default: str) -> Path:
        value = table.get(key, default)
        if not isinstance(value, str) or not value.strip():
            raise ProjectError(f"{where}: `{key}` is a folder, written as text, like `{key} = \"{default}\"`")
        return root / value

    formats = table.get("formats")
    if formats is not None and (not isinstance(formats, list) or not formats
                                or any(f not in FORMATS for f in formats)):
        raise ProjectError(f"{where}: `formats` is a list of {', '.join(FORMATS)}, like `formats = [\"python\", "
                           "\"html\"]`")
    page = table.get("page")
    if page is not None and page not in PAGES:
        raise ProjectError(f"{where}: `page` is \"a4\" or \"letter\", not {page!r}")
    ignore = table.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(code, str) for code in ignore):
        raise ProjectError(f"{where}: `ignore` is a list of warning codes, like `ignore = [\"NO-SOURCE\"]`")
    unknown = [code for code in ignore if code not in WARNING_CODES]
    if unknown:
        raise ProjectError(f"{where}: `ignore` names `{unknown[0]}`, which is not a warning; the warnings are "
                           f"{', '.join(sorted(WARNING_CODES))}")
    theme = folder("theme", "theme") if "theme" in table else None
    package = table.get("package", False)
    if not isinstance(package, bool):
        raise ProjectError(f"{where}: `package` is true or false")
    return Project(root, config, folder("rulesets", "rulesets"), folder("output", "output"),
                   tuple(formats) if formats is not None else None, page if isinstance(page, str) else None,
                   theme, frozenset(ignore), package)


def ignored_in(source: str) -> frozenset[str]:
    """The warning codes a ruleset's own comments ignore: `# rulecraft: ignore NO-SOURCE, RANGE-GAP`."""
    return frozenset(code.strip() for found in PRAGMA.findall(source) for code in found.split(",") if code.strip())


def forget() -> None:
    """Read the settings again (a long-running `watch`, tests that change folders)."""
    _find.cache_clear()


def source_name(path: Path) -> str:
    """How the outputs name a ruleset's file (`Generated from rulesets/x.rules`): relative to its project (the
    folder holding the rulesets/ it sits in; else the project root), else its bare name. Never where the build
    was started, nor a user's home folder."""
    absolute = Path(os.path.abspath(path))  # symbolic links kept: the path as the project lays it out
    for folder in absolute.parents:
        if folder.name == "rulesets":
            return absolute.relative_to(folder.parent).as_posix()
    found = find_project()
    if found.config is None and not found.rulesets.is_dir():
        return absolute.name  # no project: the current folder is where the build started, not the game's
    try:
        return absolute.relative_to(os.path.abspath(found.root)).as_posix()
    except ValueError:
        return absolute.name


def ruleset_path(name_or_path: str) -> Path:
    """An id from the project's rulesets or a path: a .rules name, a name with a folder in it, or anything there
    but a folder (a device or a pipe is a path too, to be refused as one, never taken for an id)."""
    candidate = Path(name_or_path)
    separators = {"/", os.sep, os.altsep or "/"}
    if candidate.suffix == ".rules" or any(sep in name_or_path for sep in separators) or \
            (candidate.exists() and not candidate.is_dir()):
        return candidate
    return find_project().rulesets / f"{name_or_path}.rules"


STARTER = '''# {title}: a game of your own. Change anything; `rulecraft build` makes its sheet (output/html/{id}.html),
# `rulecraft roll {id} test skill=1` rolls, `rulecraft odds {id} test` gives the exact odds.
ruleset "{title}"

roll test "Test"
  text: "Roll 2d6 and add your skill. On 10 or more you do it; on 7 to 9, at a cost; on 6 or less, it goes wrong."
  input skill: -1..+3 = 0 "Skill"
  roll: 2d6 + skill
  - 10+: success "You do it"
  - 7-9: cost "You do it, at a cost"
  - 6 or less: miss "Things go wrong"

table weather "Weather"
  text: "Roll when the party sets out."
  roll: d6
  - 1-2: clear "Clear skies"
  - 3-5: wind "A hard wind"
  - 6: storm "A storm: travel takes twice as long"

clock danger "Danger"
  text: "Tick it when things go wrong; when it fills, trouble arrives."
  size: 6
'''

CONFIG = '''# Rulecraft settings for {title} (every one optional; see `rulecraft --help`).
rulesets = "rulesets"
output = "output"
formats = ["python", "html", "json"]
page = "a4"
ignore = []
'''

README = '''# {title}

A game written in the Rulecraft rules language.

- `rulesets/{id}.rules`: the rules.
- `rulecraft check`: find mistakes, with the line and a hint.
- `rulecraft build`: the sheet (`output/html/{id}.html`, and a PDF with `--format pdf`), the resolvers
  (`output/python/{id}.py`, standard library only) and the data (`output/json/{id}.json`).
- `rulecraft watch`: a live preview in the browser while you edit.
- `rulecraft roll {id} test skill=1` and `rulecraft odds {id} test`: roll, and the exact odds.
'''


def init_project(folder: Path, title: str | None = None) -> list[Path]:
    """Start a game in `folder`: its settings, a starter ruleset, `.gitignore` and a README. Writes nothing if
    any of them is there already (ProjectError naming it); gives the files written."""
    name = re.sub(r"[^a-z0-9]+", "_", (title or folder.resolve().name).lower()).strip("_") or "my_game"
    if name[0].isdigit():
        name = f"game_{name}"
    shown = title or name.replace("_", " ").capitalize()
    files = {folder / CONFIG_NAME: CONFIG, folder / "rulesets" / f"{name}.rules": STARTER,
             folder / ".gitignore": "output/\n", folder / "README.md": README}
    for path in files:
        if path.exists():
            raise ProjectError(f"{path} is there already; nothing was written (start a game in an empty folder: "
                               "`rulecraft init my_game`)")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{title}", shown).replace("{id}", name), encoding="utf-8")
    forget()
    return list(files)
