"""Build: checked rulesets -> every output file, written all together or not at all.

`plan` runs every stage (parse, check, codegen, JSON, YAML, HTML, PDF) in
memory and returns the files it would write; `write_all` then makes a new
output folder beside the old one and swaps the two in one step, so that a
failure in any stage, a failure while writing, or a kill at any point leaves
the outputs all old or all new (see `write_all`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..diagnostics import NOWHERE, Code, CompileError, Report, Span
from ..resources import cache_dir, compiler_fingerprint, prune_cache, write_cache

if TYPE_CHECKING:
    from ..api import Loaded


@dataclass
class Plan:
    """The files one build would write, and the diagnostics (warnings) of the rulesets."""

    files: dict[Path, str | bytes] = field(default_factory=dict)
    report: Report = field(default_factory=Report)


Progress = Callable[[str], None]  # told what a build is doing, a short line at a time (the command line shows it)


def _silent(_: str) -> None:
    pass


def plan(targets: Sequence[str], formats: Sequence[str], out_dir: Path, page: str = "a4",
         report: Report | None = None, templates: Path | None = None, sheets: Sequence[str] = ("player",),
         package: bool = False, progress: Progress = _silent, card_size: str | None = None) -> Plan:
    """Every output of every target, in memory. Raises CompileError if any ruleset has errors.

    `package`: each ruleset's resolvers as an importable package, `python/<id>/__init__.py` with a `py.typed`
    (PEP 561: its types are for checkers to read), not the module `python/<id>.py`.

    `sheets` are the sheets made when html or pdf is asked for: "player" (`<id>.html`, `<id>.pdf`), "proof",
    the designer's proof (`<id>.proof.html`, `<id>.proof.pdf`) and "core", the one page of core rolls
    (`<id>.core.html`, `<id>.core.pdf`). With html or pdf, a ruleset with a deck whose cards are known also gets
    its card sheet, `<id>.cards.html` / `<id>.cards.pdf`: the cards at `card_size` (else the ruleset's
    `card_size:`, else poker) with cut marks. `progress` is told each
    stage of each ruleset and each PDF sheet as it is done.
    """
    from ..api import load
    from .python import generate
    from .render import JSON_SCHEMA, export_data, to_json, to_yaml

    result = Plan(report=report if report is not None else Report())
    html_for_pdf: list[tuple[Path, str]] = []
    failed = False
    for number, target in enumerate(targets, 1):
        counter = f"[{number}/{len(targets)}] " if len(targets) > 1 else ""
        progress(f"{counter}checking {target}")
        try:
            loaded = load(target, result.report)
        except CompileError:
            failed = True
            continue
        rid = loaded.checked.id
        data = export_data(loaded.checked)
        if "python" in formats:
            progress(f"{counter}{rid}: python resolver")
        if "python" in formats and package:
            result.files[out_dir / "python" / rid / "__init__.py"] = generate(loaded.checked)
            result.files[out_dir / "python" / rid / "py.typed"] = ""
        elif "python" in formats:
            result.files[out_dir / "python" / f"{rid}.py"] = generate(loaded.checked)
        if "json" in formats or "yaml" in formats:
            progress(f"{counter}{rid}: data")
        if "json" in formats:
            result.files[out_dir / "json" / f"{rid}.json"] = to_json(data)
        if "yaml" in formats:
            result.files[out_dir / "yaml" / f"{rid}.yaml"] = to_yaml(data)
        for sheet in sheets if "html" in formats or "pdf" in formats else ():
            name = rid if sheet == "player" else f"{rid}.{sheet}"
            progress(f"{counter}{rid}: sheet {name}.html")
            html = render_html(data, templates, page, result.report, sheet)
            if "html" in formats:
                result.files[out_dir / "html" / f"{name}.html"] = html
            if "pdf" in formats:
                html_for_pdf.append((out_dir / "pdf" / f"{name}.pdf", html))
        cards = render_cards(loaded, data, templates, page, card_size, result.report) if (
            "html" in formats or "pdf" in formats) else None
        if cards is not None:  # the decks whose cards are known, to print and cut (none: no card sheet)
            progress(f"{counter}{rid}: cards {rid}.cards.html")
            if "html" in formats:
                result.files[out_dir / "html" / f"{rid}.cards.html"] = cards
            if "pdf" in formats:
                html_for_pdf.append((out_dir / "pdf" / f"{rid}.cards.pdf", cards))
    if failed:
        raise CompileError(result.report)
    if "json" in formats:
        result.files[out_dir / "json" / "schema.json"] = json.dumps(JSON_SCHEMA, indent=2) + "\n"
    if html_for_pdf:
        pdf_engine(result.report)
    for path, pdf in cached_pdfs(html_for_pdf, progress):
        result.files[path] = pdf
    return result


PDF_ENGINE_HINT = ("WeasyPrint needs Pango (with HarfBuzz and Fontconfig) from the system: see "
                   "https://doc.courtbouillon.org/weasyprint/stable/first_steps.html; or build the other formats "
                   "(--format python,html,json,yaml)")


def pdf_engine(report: Report) -> None:
    """WeasyPrint, loaded; else an error saying so. It loads Pango and its libraries from the system, which a
    machine may lack (the usual stumbling block of installing WeasyPrint): a build that asks for PDFs then
    stops with a diagnostic, not a traceback, and writes nothing."""
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError) as problem:
        report.error(Code.PDF_ENGINE, f"PDF sheets need WeasyPrint, which could not be loaded: {problem}", "pdf",
                     hint=PDF_ENGINE_HINT)
        raise CompileError(report) from None


def render_cards(loaded: Loaded, data: dict[str, Any], templates: Path | None, page: str, card_size: str | None,
                 report: Report) -> str | None:
    """The card sheet of a ruleset's known decks (None if it has none). A card size that is none of the sizes is
    an error at the ruleset's `card_size:`; a card whose text is too long for it even in the smallest type, a
    warning at the card (its text is printed whole, past the card's border)."""
    from .. import model as m
    from ..resources import CARD_SIZES
    from .render import overfull_cards, to_cards_html

    try:
        overfull = overfull_cards(data, card_size)
    except ValueError as problem:
        header = re.search(r"^ruleset\b.*\n(?:(?:[ \t]+.*|[ \t]*(?:#.*)?)(?:\n|$))*", loaded.source, re.M)
        written = re.search(r"^[ \t]+card_size[ \t]*:", header.group(0), re.M) if header and card_size is None \
            else None
        line = loaded.source.count("\n", 0, header.start() + written.start()) + 1 if header and written else 0
        report.sources.setdefault(loaded.path, loaded.source)
        report.error(Code.TYPE, str(problem), loaded.path if written else "--card-size",
                     Span(line, 3, line, 3) if written else NOWHERE, hint=f"card_size: one of {', '.join(CARD_SIZES)}")
        raise CompileError(report) from None
    decks = {d.name: d for d in loaded.checked.definitions if isinstance(d, m.Deck)}
    for deck, card in overfull:
        span = next((c.span for c in decks[deck].cards if c.id == card), NOWHERE) if deck in decks else NOWHERE
        report.warning(Code.TOO_LARGE, f"card {card} of {deck} is too long for a card even in 6 pt type: its text "
                       "runs past the card's border on the card sheet", loaded.path, span, item=deck,
                       hint="shorten its text: a poker card holds about 1,100 characters, a mini one about 500")
    return templated(lambda: to_cards_html(data, page, templates, card_size), report)


def render_html(data: dict[str, Any], templates: Path | None, page: str, report: Report,
                sheet: str = "player") -> str:
    """The sheet; a broken template (a designer's own, from --templates) is a diagnostic at its line."""
    from .render import to_html

    return templated(lambda: to_html(data, extra_templates=templates, page=page, sheet=sheet), report)


Made = TypeVar("Made")


def templated(make: Callable[[], Made], report: Report) -> Made:
    """What `make` renders from the templates; a broken template is a diagnostic at its line."""
    from jinja2 import TemplateError, TemplateSyntaxError

    try:
        return make()
    except TemplateError as problem:
        where, line = template_place(problem)
        source = getattr(problem, "source", None)
        if source is None and line:
            try:
                source = Path(where).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                source = None
        if source is not None:
            report.sources[where] = source
        report.error(Code.TEMPLATE, f"the sheet template failed: {problem.message or type(problem).__name__}",
                     where, Span(line, 1, line, 1) if line else NOWHERE,
                     hint="see https://jinja.palletsprojects.com/templates/ for the template language"
                     if isinstance(problem, TemplateSyntaxError) else
                     "a template may use only the names the built-in templates in templates/ use")
        raise CompileError(report) from None


def template_place(problem: Exception) -> tuple[str, int]:
    """The template file and line where `problem` arose (Jinja puts template frames in the traceback)."""
    filename = getattr(problem, "filename", None)
    lineno = getattr(problem, "lineno", None)
    if filename and lineno:
        return str(filename), int(lineno)
    for frame in reversed(traceback.extract_tb(problem.__traceback__)):
        if frame.filename.endswith((".j2", ".html", ".css")):
            return frame.filename, frame.lineno or 0
    return "templates", 0


PDF_CACHE_KEEP = 40  # sheets kept in the user's cache folder: a build of the five rulesets with --one-page makes ten


def cached_pdfs(jobs: list[tuple[Path, str]], progress: Progress = _silent) -> list[tuple[Path, bytes]]:
    """`render_pdfs`, except that a sheet whose very HTML became a PDF before, by the same renderer, is
    taken from the user's cache folder (`pdf/`). A sheet is seconds of WeasyPrint (tens for a long one),
    and a build mostly makes again sheets that did not change: a designer edits one ruleset of five.

    The key is the HTML (which holds the theme, fonts and paper) and all else that decides the bytes
    (`pdf_renderer`). Each entry holds its PDF's hash ahead of it: a damaged one is rendered again, and a
    cache folder that cannot be read or written only costs the time.
    """
    folder = cache_dir()
    if folder is None or not jobs:
        return render_pdfs(jobs, progress=progress)
    folder = folder / "pdf"
    renderer = pdf_renderer().encode()
    entries = [folder / f"{hashlib.sha256(renderer + html.encode('utf-8', 'surrogatepass')).hexdigest()[:40]}.pdf"
               for _, html in jobs]
    found: dict[int, bytes] = {}
    for index, entry in enumerate(entries):
        pdf = read_cached_pdf(entry)
        if pdf is not None:
            found[index] = pdf
    missing = [index for index in range(len(jobs)) if index not in found]
    if found:
        progress(f"PDF sheets: {len(found)} of {len(jobs)} from the cache")
    for index, (_, pdf) in zip(missing, render_pdfs([jobs[index] for index in missing], progress=progress),
                               strict=True):
        found[index] = pdf
        write_cache(entries[index], hashlib.sha256(pdf).hexdigest().encode("ascii") + b"\n" + pdf)
    prune_cache(folder, "*.pdf", PDF_CACHE_KEEP)
    return [(path, found[index]) for index, (path, _) in enumerate(jobs)]


def read_cached_pdf(entry: Path) -> bytes | None:
    """The PDF of a cache entry whose hash holds (its time refreshed, so pruning keeps it), else None."""
    try:
        digest, _, pdf = entry.read_bytes().partition(b"\n")
    except OSError:
        return None
    if hashlib.sha256(pdf).hexdigest().encode("ascii") != digest:
        return None
    with contextlib.suppress(OSError):  # a cache that cannot be changed still serves
        os.utime(entry)
    return pdf


PDF_PACKAGES = ("weasyprint", "pydyf", "fonttools", "tinycss2", "tinyhtml5", "cssselect2", "pyphen")


def pdf_renderer() -> str:
    """Everything but the HTML that decides a PDF's bytes: the compiler (to_pdf's options), the epoch of
    the embedded fonts' timestamps, the versions of the packages that read the sheet, lay it out, hyphenate
    it and write it (PDF_PACKAGES, pinned in pyproject.toml), of zlib (which compresses its streams), of
    Pango, HarfBuzz and Fontconfig (the system's libraries that shape and place the text), and the library
    that subsets the fonts (`render.pdf_subsetter`: fontTools on every machine). Imports WeasyPrint."""
    import ctypes
    import ctypes.util
    import zlib
    from importlib.metadata import PackageNotFoundError, version

    from weasyprint.text.ffi import pango

    from .render import pdf_subsetter

    def native(library: str, call: str) -> str:
        try:
            name = ctypes.util.find_library(library)
            function = getattr(ctypes.CDLL(name), call)
            function.restype = ctypes.c_char_p if call.endswith("string") else ctypes.c_int
            value = function()
            return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
        except (OSError, AttributeError, TypeError):
            return "unknown"

    def package(name: str) -> str:
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            return f"{name} unknown"
    return "\0".join(("rulecraft-pdf-2", compiler_fingerprint(), os.environ.get("SOURCE_DATE_EPOCH", "0"),
                      *map(package, PDF_PACKAGES), f"zlib {zlib.ZLIB_RUNTIME_VERSION}", str(pango.pango_version()),
                      native("harfbuzz", "hb_version_string"), native("fontconfig", "FcGetVersion"),
                      pdf_subsetter()))


def render_pdfs(jobs: list[tuple[Path, str]], start_method: str | None = None,
                progress: Progress = _silent) -> list[tuple[Path, bytes]]:
    """PDFs in parallel on the machine's cores (WeasyPrint is single-threaded), in the order given.

    The longest sheets start first, so that no long sheet is left to run alone at the end. Workers start
    as `start_method` says (default: `safe_start_method()`). Where they fork, WeasyPrint is imported and
    the sheets' fonts are loaded once here, and the workers inherit both instead of each doing it again
    (a second or so of every worker's time on a small machine, and about 0.2 s of every sheet); started
    otherwise, each worker imports WeasyPrint and loads the fonts itself. `progress` is told of each sheet
    as it is done.
    """
    from .render import to_pdf

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        rendered: list[tuple[Path, bytes]] = []
        for number, (path, html) in enumerate(jobs, 1):
            progress(f"PDF sheet {number} of {len(jobs)}: {path.name}")
            rendered.append((path, to_pdf(html)))
        return rendered
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    method = start_method or safe_start_method()
    if method == "fork":
        from .render import font_config

        for _, html in jobs:
            font_config(html)  # WeasyPrint imported and the sheets' fonts loaded once, for the forked workers
    longest_first = sorted(range(len(jobs)), key=lambda index: -len(jobs[index][1]))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method)) as pool:
        pending = {index: pool.submit(to_pdf, jobs[index][1]) for index in longest_first}
        progress(f"PDF sheets: 0 of {len(jobs)} done")
        names = {future: jobs[index][0].name for index, future in pending.items()}
        for done, future in enumerate(as_completed(names), 1):
            progress(f"PDF sheets: {done} of {len(jobs)} done ({names[future]})")
        return [(path, pending[index].result()) for index, (path, _) in enumerate(jobs)]


def safe_start_method() -> str:
    """How to start worker processes: `fork` where it is safe, which is Linux in a process with one thread
    (Python calls fork unsafe on macOS, where system libraries may hold locks across it, and in a process
    with other threads, such as `watch --pdf`'s server: a lock another thread holds stays held in the child
    forever); else `forkserver` (workers forked from a fresh, single-threaded server) where there is one,
    else `spawn`."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


# ---------------------------------------------------------------- writing: a build's outputs change together

LEFTOVER = ".rulecraft-"  # every name the writing below gives a file or folder of its own begins so
SWAP_LIMIT = 5000  # entries of an output folder a build carries over into its new copy; past it, file by file
LEGACY_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")  # what the earlier write_all left when killed


def write_all(files: dict[Path, str | bytes]) -> None:
    """Write every file or none, and replace them all at one instant, durably.

    A build's files are `<root>/<format>/<name>`; the set is the root (`output/`), and other files in it
    survive. The new root is made beside the old one, in a staging folder (`.rulecraft-stage-<tag>-...`):
    the new files written and fsynced, and every other entry of the old root hard-linked in, as is a file
    whose bytes did not change (it keeps its time stamp). One call then swaps the two folders (renameat2's
    RENAME_EXCHANGE on Linux, renamex_np's RENAME_SWAP on macOS; elsewhere two renames, which the next
    build undoes if a kill falls between them), the parent is fsynced and the old root, now at the staging
    name, is removed. A build killed at any point leaves the root all old or all new, and the next build
    into it removes what the killed one left beside it. Builds into one root take turns (a lock on its
    parent folder). A root that cannot be swapped (the working folder or one holding it, a mount point, a
    folder of more than SWAP_LIMIT entries, a symbolic link on the way to a file) is written file by file:
    each file whole, but not the set at one instant.
    """
    if not files:
        return
    targets = {Path(os.path.abspath(path)): content for path, content in files.items()}
    root = swap_root(targets)
    if root is None:
        write_each(targets)
        return
    real = Path(os.path.realpath(root))
    targets = {real / path.relative_to(root): content for path, content in targets.items()}
    real.parent.mkdir(parents=True, exist_ok=True)
    with locked(real.parent):
        recover(real)
        stage = Path(tempfile.mkdtemp(prefix=f"{LEFTOVER}stage-{tag(real)}-", dir=real.parent))
        try:
            swappable = fill(stage, real, targets)
            if swappable:
                swap(stage, real)
        finally:
            remove_tree(stage)  # the new root if the swap did not happen, else the old root
        fsync_dir(real.parent)
    if not swappable:
        write_each(targets)


def write_atomic(path: Path, content: str | bytes) -> None:
    """One file, replaced whole or not at all, durably."""
    write_each({Path(os.path.abspath(path)): content})


def swap_root(targets: dict[Path, str | bytes]) -> Path | None:
    """The folder whose swap replaces the set (`<root>/<format>/<name>`), or None where it cannot be swapped."""
    if len(targets) < 2:
        return None  # one file is replaced whole by a rename
    root = Path(os.path.commonpath([path.parent.parent for path in targets]))
    real = Path(os.path.realpath(root))
    try:
        here = Path(os.path.realpath(os.getcwd()))
    except OSError:  # the working folder was removed
        here = Path("/nonexistent")
    if real == real.parent or os.path.ismount(real) or here.is_relative_to(real):
        return None
    return root


def tag(root: Path) -> str:
    """What names the leftovers of builds into `root`, among those of other folders beside it."""
    return hashlib.sha256(os.fsencode(root.name)).hexdigest()[:8]


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on `folder` for as long as the block runs (none where the system has no flock)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # releases the lock


def recover(root: Path) -> None:
    """Undo what a killed build into `root` left: the root put back if the kill fell between the two renames
    of a swap, and every staging folder of `root` removed. Only folders named by `tag(root)` are touched."""
    own = (f"{LEFTOVER}stage-{tag(root)}-", f"{LEFTOVER}old-{tag(root)}-")
    with os.scandir(root.parent) as entries:
        left = sorted(Path(entry.path) for entry in entries
                      if entry.name.startswith(own) and entry.is_dir(follow_symlinks=False))
    olds = [path for path in left if path.name.startswith(own[1])]
    if olds and not os.path.lexists(root):
        os.rename(olds[0], root)  # the old root, whole: the new one may not be
        fsync_dir(root.parent)
        left.remove(olds[0])
    for path in left:
        remove_tree(path)


def fill(stage: Path, root: Path, targets: dict[Path, str | bytes]) -> bool:
    """`stage` made into the new root: the old root's entries but the targets, hard-linked; the targets; all
    fsynced. False where the root cannot be swapped (too many entries, a symbolic link on a target's way)."""
    written = set(targets)
    if root.is_dir():
        os.chmod(stage, stat.S_IMODE(root.stat().st_mode))
        if not link_tree(root, stage, written, [SWAP_LIMIT]):
            return False
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(stage, 0o777 & ~umask)
    folders: set[Path] = set()
    for path, content in targets.items():
        place = stage / path.relative_to(root)
        folder = stage
        for part in place.parent.relative_to(stage).parts:
            folder = folder / part
            if folder.is_symlink():
                return False
            if not folder.exists():
                folder.mkdir()
                folders.add(folder.parent)
        data = content.encode("utf-8") if isinstance(content, str) else content
        if same_bytes(path, data):
            link(path, place)
        else:
            write_file(place, data)
        folders.add(place.parent)
    for folder in sorted(folders, key=lambda f: -len(f.parts)):
        fsync_dir(folder)
    fsync_dir(stage)
    return True


def link_tree(old: Path, new: Path, written: set[Path], budget: list[int]) -> bool:
    """Every entry of `old` but `written` (and the leftovers of a killed build) into `new`, files hard-linked;
    False once more than the budget of entries were found."""
    with os.scandir(old) as entries:
        for entry in entries:
            path = Path(entry.path)
            if path in written or leftover(path, written):
                continue
            budget[0] -= 1
            if budget[0] < 0:
                return False
            target = new / entry.name
            if entry.is_dir(follow_symlinks=False):
                target.mkdir()
                os.chmod(target, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode))
                if not link_tree(path, target, written, budget):
                    return False
                fsync_dir(target)
            else:
                link(path, target)
    return True


def leftover(path: Path, written: set[Path]) -> bool:
    """A temporary file of a killed build: one of ours, or one the earlier write_all made beside a file it wrote."""
    if path.name.startswith(f"{LEFTOVER}tmp-"):
        return True
    legacy = LEGACY_TEMPORARY.fullmatch(path.name)
    return legacy is not None and path.parent / legacy["name"] in written


def link(source: Path, target: Path) -> None:
    """`target` the same file as `source` (a copy where the file system has no hard links)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except (OSError, NotImplementedError):
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target, follow_symlinks=False)
            with open(target, "rb") as copied:
                os.fsync(copied.fileno())


def same_bytes(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data`."""
    try:
        return path.is_file() and not path.is_symlink() and path.stat().st_size == len(data) \
            and path.read_bytes() == data
    except OSError:
        return False


def write_file(path: Path, data: bytes) -> None:
    """A new file holding `data`, on the disk (fsynced) before this returns."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        with os.fdopen(handle, "wb", closefd=False) as stream:
            stream.write(data)
        if hasattr(os, "fchmod"):
            os.fchmod(handle, 0o644)  # whatever the umask: as readable as the files of a checkout
        else:
            os.chmod(path, 0o644)
        os.fsync(handle)
    finally:
        os.close(handle)


def fsync_dir(folder: Path) -> None:
    """The folder's entries on the disk (new names, renames); a system that cannot sync a folder skips it."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def swap(stage: Path, root: Path) -> None:
    """`stage` becomes `root` in one step and the old root goes to `stage`'s name (none if there was none)."""
    if not os.path.lexists(root):
        os.rename(stage, root)
        return
    if exchange(stage, root):
        return
    old = stage.with_name(stage.name.replace(f"{LEFTOVER}stage-", f"{LEFTOVER}old-", 1))
    os.rename(root, old)  # a kill from here to the next rename leaves no root: `recover` puts the old one back
    try:
        os.rename(stage, root)
    except BaseException:
        os.rename(old, root)
        raise
    os.rename(old, stage)


def exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one system call; False where the system or file system cannot."""
    import ctypes
    import errno

    if sys.platform.startswith("linux"):
        name, args = "renameat2", (-100, os.fsencode(first), -100, os.fsencode(second), 2)  # AT_FDCWD, EXCHANGE
    elif sys.platform == "darwin":
        name, args = "renamex_np", (os.fsencode(first), os.fsencode(second), 2)  # RENAME_SWAP
    else:
        return False
    try:
        call = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):
        return False
    if call(*args) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(error, os.strerror(error), str(second))


def remove_tree(path: Path) -> None:
    """A folder this module made, and all in it (never following a symbolic link); gone already is fine."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)


def write_each(targets: dict[Path, str | bytes]) -> None:
    """Each file whole: all to temporary siblings (`.rulecraft-tmp-...`), fsynced, then each renamed over its
    target; the temporaries a killed build left in these folders are removed first."""
    folders = sorted({path.parent for path in targets})
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    with locked(Path(os.path.commonpath(folders))):
        for folder in folders:
            with os.scandir(folder) as entries:
                stale = [Path(entry.path) for entry in entries
                         if entry.is_file(follow_symlinks=False) and leftover(Path(entry.path), set(targets))]
            for path in stale:
                path.unlink(missing_ok=True)
        staged: list[tuple[Path, Path]] = []
        try:
            for path, content in targets.items():
                staged.append((stage_file(path, content), path))
        except BaseException:
            for temp, _ in staged:
                temp.unlink(missing_ok=True)
            raise
        for temp, path in staged:
            os.replace(temp, path)
        for folder in folders:
            fsync_dir(folder)


def stage_file(path: Path, content: str | bytes) -> Path:
    """`content` in a new temporary file beside `path`, on the disk; returns its path."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    temp = path.with_name(f"{LEFTOVER}tmp-{secrets.token_hex(6)}")
    try:
        write_file(temp, data)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp
