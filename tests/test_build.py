"""Atomic builds: a build that fails at any stage leaves every earlier output byte for byte as it was."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import rulecraft.backends.build as build_module
import rulecraft.backends.python as codegen
import rulecraft.backends.render as render
from rulecraft.cli.main import main

SOURCE = '''ruleset "Tiny"

roll action "Action roll" [TINY-1]
  input dots: 0..3 = 1
  roll: 2d6 + dots
  - 6 or less: failure "You fail."
  - 7-9: partial "You do it, at a cost."
  - 10+: success "You do it."
'''

CHANGED = SOURCE.replace("at a cost", "at a price")


@pytest.fixture(scope="session")
def built_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A designer's folder with one ruleset, built once with every format, with a cache folder of its own
    (`cache/`), so that what a test expects a build to do never depends on what another run left there."""
    folder = tmp_path_factory.mktemp("built")
    (folder / "rulesets").mkdir()
    (folder / "rulesets" / "tiny.rules").write_text(SOURCE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        patch.chdir(folder)
        assert main(["build"]) == 0
    return folder


@pytest.fixture
def project(built_once: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of `built_once` (its sources, outputs and cache) for one test to change: the build, a PDF
    among its outputs, runs once a session and not once a test."""
    shutil.copytree(built_once, tmp_path, symlinks=True, dirs_exist_ok=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(project: Path) -> dict[Path, bytes]:
    return {p.relative_to(project): p.read_bytes() for p in (project / "output").rglob("*") if p.is_file()}


def test_a_build_writes_every_format(project: Path) -> None:
    assert sorted(str(p) for p in snapshot(project)) == [
        "output/html/tiny.html", "output/json/schema.json", "output/json/tiny.json", "output/pdf/tiny.pdf",
        "output/python/tiny.py", "output/yaml/tiny.yaml"]


def fail(*_: object, **__: object) -> object:
    raise RuntimeError("this stage failed")


STAGES: dict[str, tuple[object, str]] = {
    "codegen": (codegen, "generate"),
    "json": (render, "to_json"),
    "yaml": (render, "to_yaml"),
    "html": (render, "to_html"),
    "pdf": (render, "to_pdf"),
}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_stage_that_fails_leaves_every_earlier_output_untouched(
        project: Path, stage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(project)
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    owner, name = STAGES[stage]
    monkeypatch.setattr(owner, name, fail)
    with pytest.raises(RuntimeError, match="this stage failed"):
        main(["build"])
    assert snapshot(project) == before


@pytest.mark.parametrize("broken, code", [
    (CHANGED.replace("  roll: 2d6", "  roll 2d6"), "MISSING-COLON"),  # parse
    (CHANGED.replace("2d6 + dots", "2d6 + dot"), "UNDEFINED"),  # check
])
def test_a_ruleset_with_errors_writes_nothing(project: Path, broken: str, code: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(project)
    (project / "rulesets" / "tiny.rules").write_text(broken, encoding="utf-8")
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert f"error[{code}]" in err and "build failed: nothing was written" in err
    assert snapshot(project) == before


def test_a_failure_while_writing_replaces_no_file(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The third file cannot be written (a full disk): the two written before it must not land either."""
    before = snapshot(project)
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    real_write: Callable[[Path, bytes], None] = build_module.write_file
    calls: list[Path] = []

    def write_file(path: Path, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(path))
        real_write(path, data)

    monkeypatch.setattr(build_module, "write_file", write_file)
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "nothing was written" in err
    assert len(calls) == 3 and snapshot(project) == before
    assert leftovers(project) == []


def leftovers(project: Path) -> list[str]:
    """What a build left that is not an output: staging folders beside output/, temporary files in it."""
    return sorted([p.name for p in project.iterdir() if p.name.startswith(".rulecraft-")]
                  + [str(p) for p in (project / "output").rglob("*") if p.name.startswith(".rulecraft-")
                     or p.name.endswith(".tmp")])


# A build killed at every step of its writing, in a process of its own (os._exit: no clean-up runs). It writes
# two rulesets in five formats into a root holding other files; after each kill the root must hold all the old
# outputs or all the new, and the next build must leave all the new and nothing of the killed one.
KILLER = """
import json, os, shutil, sys
from pathlib import Path
import rulecraft.backends.build as build

spec = json.loads(sys.stdin.read())
root, old, new = Path(spec["root"]), spec["old"], spec["new"]
files = {root / name: text for name, text in new.items()}
steps = []
point = [-1]


def seam(name, real):
    def step(*args, **kwargs):
        steps.append(name)
        if len(steps) - 1 == point[0]:
            os._exit(9)
        return real(*args, **kwargs)
    return step


for name in ("write_file", "link", "fsync_dir", "exchange", "remove_tree"):
    setattr(build, name, seam(name, getattr(build, name)))
os.fsync = lambda handle: None  # a kill is not a power cut: the order of the steps is tested here, not syncing
os.rename = seam("rename", os.rename)
if spec["no_exchange"]:
    build.exchange = seam("exchange", lambda first, second: False)


def state():
    if not root.exists():
        return "none"
    found = {str(p.relative_to(root)): p.read_text() for p in root.rglob("*") if p.is_file()}
    return "old" if found == old else "new" if found == spec["after"] else "mixed"


def left():  # inside the root, `state` compares every file
    return sorted(p.name for p in root.parent.iterdir() if p.name.startswith(".rulecraft-") and p.name != spec["keep"])


results = []
kill = 0
while True:
    shutil.rmtree(root, ignore_errors=True)
    for name, text in old.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    steps.clear()
    child = os.fork()
    if child == 0:
        point[0] = kill
        build.write_all(files)
        os._exit(0)
    _, status = os.waitpid(child, 0)
    killed = os.waitstatus_to_exitcode(status) == 9
    if not killed:
        break
    at_kill = state()
    steps.clear()
    build.write_all(files)  # the next build
    results.append({"kill": kill, "state": at_kill, "next": state(), "left": left()})
    kill += 1
print(json.dumps(results))
"""


@pytest.mark.parametrize("no_exchange", [False, True], ids=["exchange", "two-renames"])
def test_a_build_killed_at_any_step_leaves_all_old_or_all_new_and_the_next_build_cleans_up(
        tmp_path: Path, no_exchange: bool) -> None:
    import json
    import subprocess
    import sys

    root = tmp_path / "output"
    formats = {"python": "py", "html": "html", "json": "json", "yaml": "yaml", "pdf": "pdf"}
    old = {f"{folder}/{rid}.{ext}": f"old {rid} {ext}\n" for folder, ext in formats.items() for rid in ("a", "b")}
    others = {"README.txt": "not ours\n", "pdf/other.pdf": "another ruleset's sheet\n", "notes.tmp": "mine\n",
              "json/.other.json.abcd1234.tmp": "not beside a file the build writes\n",
              ".rulecraft-notes": "our prefix, but no name we give\n"}
    legacy = {"python/.a.py.k3j9x0q2.tmp": "left by a killed build of an older version\n"}
    new = {name: text.replace("old", "new") for name, text in old.items()}
    new["json/schema.json"] = "{}\n"
    new["yaml/b.yaml"] = old["yaml/b.yaml"]  # unchanged: linked, not written
    spec = {"root": str(root), "old": {**old, **others, **legacy}, "new": new, "after": {**new, **others},
            "no_exchange": no_exchange, "keep": ".rulecraft-old-00000000-kept"}
    (tmp_path / spec["keep"]).mkdir()  # another root's leftover: not this build's to remove
    done = subprocess.run([sys.executable, "-c", KILLER], input=json.dumps(spec), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert len(results) > 20  # every file written, every folder synced, the swap, the clean-up
    # Two renames leave no root between them, for an instant (and, if killed there, until the next build)
    assert [r for r in results if r["state"] not in ("old", "new", *(["none"] if no_exchange else []))] == []
    assert {r["state"] for r in results} == {"old", "new", *(["none"] if no_exchange else [])}
    assert [r for r in results if r["next"] != "new" or r["left"] != []] == []
    assert (tmp_path / spec["keep"]).is_dir()


def test_every_new_file_and_the_folders_naming_it_are_synced_to_disk(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A power cut after a build leaves its outputs: each new file, each folder that names one, and the
    folder whose entry the swap changed are synced (fsync) before the build ends; so is a file written alone."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("names the synced files through /proc")
    synced: list[Path] = []
    real_fsync = os.fsync

    def fsync(handle: int) -> None:
        synced.append(Path(os.readlink(f"/proc/self/fd/{handle}")))
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", fsync)
    root = tmp_path / "output"
    build_module.write_all({root / "python" / "a.py": "a\n", root / "json" / "a.json": "{}\n"})
    assert {"a.py", "a.json", "python", "json"} <= {path.name for path in synced}
    assert any(path.name.startswith(".rulecraft-stage-") for path in synced) and synced[-1] == tmp_path
    synced.clear()
    build_module.write_atomic(tmp_path / "tiny.rules", "ruleset \"Tiny\"\n")
    assert [path.name[:15] for path in synced] == [".rulecraft-tmp-", tmp_path.name[:15]]


def test_a_build_keeps_the_files_it_does_not_make(project: Path) -> None:
    output = project / "output"
    (output / "notes.txt").write_text("mine\n", encoding="utf-8")
    (output / "pdf" / "other.pdf").write_bytes(b"%PDF another sheet")
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    assert main(["build", "--format", "python,json"]) == 0
    assert (output / "notes.txt").read_text(encoding="utf-8") == "mine\n"
    assert (output / "pdf" / "other.pdf").read_bytes() == b"%PDF another sheet"
    assert "at a price" in (output / "python" / "tiny.py").read_text(encoding="utf-8")
    assert (output / "html" / "tiny.html").is_file() and leftovers(project) == []


def test_an_unchanged_file_keeps_its_time_stamp(project: Path) -> None:
    schema = project / "output" / "json" / "schema.json"
    before = schema.stat()
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    assert main(["build", "--format", "python,json"]) == 0
    after = schema.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_build_into_the_working_folder_writes_file_by_file_and_cleans_its_temporaries(project: Path) -> None:
    """The working folder cannot be swapped (a shell in it would be left in the old one): each file is
    replaced whole instead, and the temporary files a killed build left beside them go."""
    (project / "python").mkdir()
    (project / "python" / ".rulecraft-tmp-0123456789ab").write_text("killed\n", encoding="utf-8")
    (project / "python" / ".tiny.py.abcd1234.tmp").write_text("killed, older version\n", encoding="utf-8")
    folder = project.stat().st_ino
    assert main(["build", "--format", "python,json", "--output", "."]) == 0
    assert project.stat().st_ino == folder and Path.cwd().samefile(project)
    assert sorted(p.name for p in (project / "python").iterdir()) == ["tiny.py"]
    assert (project / "json" / "tiny.json").is_file() and (project / "rulesets" / "tiny.rules").is_file()


def test_a_successful_rebuild_replaces_the_changed_files(project: Path) -> None:
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    assert main(["build", "--format", "python,html"]) == 0
    assert "at a price" in (project / "output" / "python" / "tiny.py").read_text(encoding="utf-8")
    assert "at a price" in (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert "at a cost" in (project / "output" / "json" / "tiny.json").read_text(encoding="utf-8")


def test_a_theme_overrides_one_template_and_keeps_the_rest(project: Path) -> None:
    theme = project / "theme"
    theme.mkdir()
    (theme / "sheet.css").write_text("body { color: rebeccapurple; }\n", encoding="utf-8")
    assert main(["build", "--format", "html", "--templates", str(theme)]) == 0
    html = (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert "rebeccapurple" in html
    assert "You do it, at a cost." in html  # the built-in definition template still rendered the bands


def test_a_broken_theme_template_is_a_diagnostic_at_its_line(project: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(project)
    theme = project / "theme"
    theme.mkdir()
    (theme / "definition.html.j2").write_text("<div>\n{{ d.no_such_field }}\n</div>\n", encoding="utf-8")
    assert main(["build", "--templates", str(theme)]) == 1
    err = capsys.readouterr().err
    assert "definition.html.j2:2:" in err and "error[TEMPLATE]" in err and "no_such_field" in err
    assert "Traceback" not in err
    (theme / "definition.html.j2").write_text("{% if %}\n", encoding="utf-8")
    assert main(["build", "--templates", str(theme)]) == 1
    err = capsys.readouterr().err
    assert "definition.html.j2:1:" in err and "error[TEMPLATE]" in err
    assert snapshot(project) == before


def test_templates_must_be_a_folder(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--templates", str(project / "nowhere")]) == 1
    assert "--templates" in capsys.readouterr().err


def test_one_page_adds_the_core_sheet_of_each_ruleset(project: Path) -> None:
    assert main(["build", "--format", "html,pdf", "--one-page"]) == 0
    core = (project / "output" / "html" / "tiny.core.html").read_text(encoding="utf-8")
    assert '<body class="sheet-core">' in core and 'id="action"' in core
    assert (project / "output" / "pdf" / "tiny.core.pdf").read_bytes().startswith(b"%PDF")
    assert '<body class="sheet-player">' in (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert not (project / "output" / "html" / "tiny.proof.html").exists()  # the proof only with --proof


def test_proof_adds_the_designers_proof_beside_the_players_sheet(project: Path) -> None:
    assert main(["build", "--format", "html,pdf", "--proof"]) == 0
    proof = (project / "output" / "html" / "tiny.proof.html").read_text(encoding="utf-8")
    assert '<body class="sheet-proof">' in proof and "sha256" in proof and "tiny.rules" in proof
    assert (project / "output" / "pdf" / "tiny.proof.pdf").read_bytes().startswith(b"%PDF")
    player = (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert "sha256" not in player and "tiny.rules" not in player
    assert not (project / "output" / "html" / "tiny.core.html").exists()


def test_a_section_sets_its_columns_and_a_bad_value_is_an_error(project: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # a rule beside the roll: the player's sheet moves the main roll to its top, out of its section
    source = SOURCE.replace('roll action', 'section "Rolls"\n  columns: 3\n\nrule note "Note" [TINY-2]\n'
                            '  text: "A note."\n\nroll action')
    (project / "rulesets" / "tiny.rules").write_text(source, encoding="utf-8")
    assert main(["build", "--format", "html"]) == 0
    assert '<section class="section cols-3"' in (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    before = snapshot(project)
    for wrong, message in (("columns: 4", "`columns:` of a section is 1, 2 or 3"),
                           ("colums: 2", "a section takes only `columns:`")):
        (project / "rulesets" / "tiny.rules").write_text(source.replace("columns: 3", wrong), encoding="utf-8")
        assert main(["build"]) == 1
        err = capsys.readouterr().err
        assert "tiny.rules:4:3: error[TYPE]" in err and message in err
        assert snapshot(project) == before
        assert main(["check"]) == 1  # the check stage finds it, so `check` and `watch` say it too
        said = capsys.readouterr()
        assert "tiny.rules:4:3: error[TYPE]" in said.out + said.err and message in said.out + said.err


def test_a_theme_brings_its_own_files_for_the_css_and_a_missing_one_is_a_diagnostic(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    theme = project / "theme"
    (theme / "fonts").mkdir(parents=True)
    (theme / "fonts" / "Display.woff2").write_bytes(b"wOF2 not really a font")
    (theme / "sheet.css").write_text('@font-face { font-family: D; src: url("fonts/Display.woff2"); }\n'
                                     'h1 { background: url(paper.png); }\n', encoding="utf-8")
    before = snapshot(project)
    assert main(["build", "--format", "html", "--templates", str(theme)]) == 1
    assert "error[TEMPLATE]" in capsys.readouterr().err and snapshot(project) == before
    (theme / "paper.png").write_bytes(b"\x89PNG")
    assert main(["build", "--format", "html", "--templates", str(theme)]) == 0
    html = (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert 'url("data:font/woff2;base64,d09GMiBub3QgcmVhbGx5IGEgZm9udA==")' in html
    assert 'url("data:image/png;base64,iVBORw==")' in html
    assert 'url("data:font/woff2;base64,' + "d09GMgABAAAA" in html  # the built-in fonts.css still applies


def test_a_pdf_leaves_no_folder_of_fonts_behind(tmp_path: Path) -> None:
    """WeasyPrint decodes a sheet's fonts into a temporary folder. The configuration holding them is kept for
    the process (render.font_config) and removes the folder when the process exits: also a pytest process,
    which tears its modules down in an order where WeasyPrint's own clean-up cannot run."""
    import subprocess
    import sys

    temp = tmp_path / "tmp"
    temp.mkdir()
    (tmp_path / "tiny.rules").write_text(SOURCE, encoding="utf-8")  # a sheet with every @font-face of the templates
    (tmp_path / "test_one_pdf.py").write_text(
        "from rulecraft.api import load\n"
        "from rulecraft.backends.render import export_data, to_html, to_pdf\n\n\n"
        "def test_pdf() -> None:\n"
        f"    html = to_html(export_data(load({str(tmp_path / 'tiny.rules')!r}).checked))\n"
        "    assert to_pdf(html).startswith(b'%PDF')\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one_pdf.py"],
                          cwd=tmp_path, env={**os.environ, "TMPDIR": str(temp)}, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not list(temp.glob("weasyprint-*"))


def test_a_build_takes_the_pdf_of_an_unchanged_sheet_from_the_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sheet whose HTML became a PDF before, by the same renderer, is not rendered again; a changed sheet,
    a damaged cache entry or another renderer (here the fonts' epoch) is, and what a build takes from the
    cache is what rendering the sheet again would give."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    (tmp_path / "rulesets").mkdir()
    source = tmp_path / "rulesets" / "tiny.rules"
    source.write_text(SOURCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    pdf = tmp_path / "output" / "pdf" / "tiny.pdf"
    assert main(["build", "--format", "pdf"]) == 0
    first = pdf.read_bytes()
    rendered: list[str] = []
    real_to_pdf = render.to_pdf

    def to_pdf(html: str, base_url: str | None = None) -> bytes:
        rendered.append(html)
        return real_to_pdf(html, base_url)
    monkeypatch.setattr(render, "to_pdf", to_pdf)

    assert main(["build", "--format", "pdf"]) == 0  # nothing changed
    assert rendered == [] and pdf.read_bytes() == first

    def read_only(*_: object) -> None:
        raise PermissionError(13, "Read-only file system")
    with monkeypatch.context() as frozen:  # a cache that cannot be changed still serves
        frozen.setattr(build_module.os, "utime", read_only)
        assert main(["build", "--format", "pdf"]) == 0
    assert rendered == []

    (entry,) = (tmp_path / "cache" / "rulecraft" / "pdf").glob("*.pdf")
    entry.write_bytes(entry.read_bytes()[:-100])  # damaged
    assert main(["build", "--format", "pdf"]) == 0
    assert len(rendered) == 1 and pdf.read_bytes() == first

    source.write_text(CHANGED, encoding="utf-8")
    assert main(["build", "--format", "pdf"]) == 0
    assert len(rendered) == 2 and "at a price" in rendered[-1]
    changed = pdf.read_bytes()
    assert changed != first

    # Another epoch is another renderer (the embedded fonts' timestamp where fontTools subsets them; HarfBuzz
    # keeps each font's own, and there the bytes stay the same): rendered again, and cached in turn.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert main(["build", "--format", "pdf"]) == 0
    assert len(rendered) == 3 and rendered[-1] == rendered[-2]
    assert pdf.read_bytes() == real_to_pdf(rendered[-1])  # the same epoch, the same bytes
    assert main(["build", "--format", "pdf"]) == 0
    assert len(rendered) == 3 and pdf.read_bytes() == real_to_pdf(rendered[-1])
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # back to the first epoch: its entry still serves
    assert main(["build", "--format", "pdf"]) == 0
    assert len(rendered) == 3 and pdf.read_bytes() == changed


def test_the_pdf_cache_key_holds_what_decides_the_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fonts' epoch, the versions of the packages that read, lay out and write a PDF (pinned in
    pyproject.toml), zlib's, and the library that subsets the fonts: fontTools, whether or not the system has
    HarfBuzz-Subset (which WeasyPrint would use, with other bytes: render.pdf_subsetter), so the key does not
    follow that library's presence either."""
    import tomllib
    import zlib
    from importlib.metadata import version

    from weasyprint.pdf import fonts as pdf_fonts

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    key = build_module.pdf_renderer()
    parts = key.split("\0")
    assert {f"{name} {version(name)}" for name in build_module.PDF_PACKAGES} <= set(parts)
    assert f"zlib {zlib.ZLIB_RUNTIME_VERSION}" in parts and parts[-1] == f"fonttools {version('fonttools')}"
    pins = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    pinned = {line.split("==")[0].lower(): line.split("==")[1] for line in pins["project"]["dependencies"]
              if "==" in line}
    assert {name: version(name) for name in build_module.PDF_PACKAGES} == pinned
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    assert build_module.pdf_renderer() not in {key, ""}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert build_module.pdf_renderer() == key
    monkeypatch.setattr(pdf_fonts, "harfbuzz_subset", object())  # a system with HarfBuzz-Subset
    assert build_module.pdf_renderer() == key and pdf_fonts.harfbuzz_subset is None


def test_a_machine_without_the_pdf_engine_gets_a_diagnostic_and_no_partial_build(
        project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """WeasyPrint loads Pango and its libraries from the system; where it cannot, a build that asks for PDFs
    says so with what to do, exits 1 and writes nothing (a build without PDFs is not affected)."""
    import sys

    before = snapshot(project)
    (project / "rulesets" / "tiny.rules").write_text(CHANGED, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "weasyprint", None)  # `import weasyprint` fails, as without its libraries
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert "error[PDF-ENGINE]: PDF sheets need WeasyPrint, which could not be loaded" in err
    assert "--format python,html,json,yaml" in err and "nothing was written" in err
    assert snapshot(project) == before
    assert main(["build", "--format", "python,html,json,yaml"]) == 0


# ---------------------------------------------------------------- how PDF workers start


@pytest.mark.parametrize("platform, threads, expected", [
    ("linux", 1, "fork"),
    ("linux", 2, "forkserver"),  # a threaded process (watch --pdf's server): a forked child may deadlock
    ("darwin", 1, "forkserver"),  # macOS: Python calls fork unsafe there
])
def test_workers_fork_only_where_it_is_safe(platform: str, threads: int, expected: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import threading

    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(threading, "active_count", lambda: threads)
    assert build_module.safe_start_method() == expected


def test_a_threaded_process_renders_pdfs_without_forking(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing
    import threading

    started: list[str] = []
    real_context = multiprocessing.get_context

    def get_context(method: str | None = None) -> object:
        started.append(str(method))
        return real_context(method)

    monkeypatch.setattr(multiprocessing, "get_context", get_context)
    monkeypatch.setattr(build_module.os, "cpu_count", lambda: 2)
    stop = threading.Event()
    server = threading.Thread(target=stop.wait)  # as watch --pdf's server thread
    server.start()
    try:
        pdfs = build_module.render_pdfs([(Path("a.pdf"), "<p>A</p>"), (Path("b.pdf"), "<p>B</p>")])
    finally:
        stop.set()
        server.join()
    assert started and "fork" not in started
    assert pdfs == [(Path("a.pdf"), render.to_pdf("<p>A</p>")), (Path("b.pdf"), render.to_pdf("<p>B</p>"))]


@pytest.mark.pdf  # four renders of a sheet with every font: 20 s
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_started_either_way_give_the_bytes_of_one_process(method: str, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers inherit the fonts loaded here; spawned ones import WeasyPrint and load them themselves.
    Either way each sheet is the bytes rendering it in this process gives."""
    import multiprocessing

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} on this system")
    from rulecraft.api import load

    (tmp_path / "tiny.rules").write_text(SOURCE, encoding="utf-8")
    html = render.to_html(render.export_data(load(str(tmp_path / "tiny.rules")).checked))
    jobs = [(Path("full.pdf"), html), (Path("small.pdf"), html.replace("You fail.", "You fail badly."))]
    monkeypatch.setattr(build_module.os, "cpu_count", lambda: 2)
    rendered = build_module.render_pdfs(jobs, start_method=method)
    assert [(path, pdf) for path, pdf in rendered] == [(path, render.to_pdf(page)) for path, page in jobs]


def test_the_cache_key_follows_every_module_of_the_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change in any stage's folder (backends/render.py writes the PDFs) makes cached PDFs and modules stale."""
    from rulecraft import resources

    (tmp_path / "backends").mkdir()
    (tmp_path / "api.py").write_text("x = 1\n")
    (tmp_path / "backends" / "render.py").write_text("y = 1\n")
    monkeypatch.setattr(resources, "PACKAGE_DIR", tmp_path)
    fingerprint = resources.compiler_fingerprint.__wrapped__  # the process keeps its first answer (cache)
    before = fingerprint()
    (tmp_path / "backends" / "render.py").write_text("y = 2\n")
    assert fingerprint() != before
