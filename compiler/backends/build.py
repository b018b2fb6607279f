"""Build: checked rulesets -> every output file, written all together or not at all.

`plan` runs every stage (parse, check, codegen, JSON, YAML, HTML, PDF) in
memory and returns the files it would write; `write_all` then writes them in
two phases: each file to a temporary sibling first, and only when every one
of them is on disk are they renamed over the old files. A failure in any
stage, or while writing, leaves every earlier output untouched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.diagnostics import NOWHERE, Code, CompileError, Report, Span
from compiler.resources import cache_dir, compiler_fingerprint, prune_cache, write_cache


@dataclass
class Plan:
    """The files one build would write, and the diagnostics (warnings) of the rulesets."""

    files: dict[Path, str | bytes] = field(default_factory=dict)
    report: Report = field(default_factory=Report)


def plan(targets: Sequence[str], formats: Sequence[str], out_dir: Path, page: str = "a4",
         report: Report | None = None, templates: Path | None = None, sheets: Sequence[str] = ("full",)) -> Plan:
    """Every output of every target, in memory. Raises CompileError if any ruleset has errors.

    `sheets` are the sheets made when html or pdf is asked for: "full" (`<id>.html`, `<id>.pdf`)
    and "core", the one page of core rolls (`<id>.core.html`, `<id>.core.pdf`).
    """
    from compiler.api import load
    from compiler.backends.python import generate
    from compiler.backends.render import JSON_SCHEMA, export_data, to_json, to_yaml

    result = Plan(report=report if report is not None else Report())
    html_for_pdf: list[tuple[Path, str]] = []
    failed = False
    for target in targets:
        try:
            loaded = load(target, result.report)
        except CompileError:
            failed = True
            continue
        rid = loaded.checked.id
        data = export_data(loaded.checked)
        if "python" in formats:
            result.files[out_dir / "python" / f"{rid}.py"] = generate(loaded.checked)
        if "json" in formats:
            result.files[out_dir / "json" / f"{rid}.json"] = to_json(data)
        if "yaml" in formats:
            result.files[out_dir / "yaml" / f"{rid}.yaml"] = to_yaml(data)
        for sheet in sheets if "html" in formats or "pdf" in formats else ():
            html = render_html(data, templates, page, result.report, sheet)
            name = rid if sheet == "full" else f"{rid}.{sheet}"
            if "html" in formats:
                result.files[out_dir / "html" / f"{name}.html"] = html
            if "pdf" in formats:
                html_for_pdf.append((out_dir / "pdf" / f"{name}.pdf", html))
    if failed:
        raise CompileError(result.report)
    if "json" in formats:
        result.files[out_dir / "json" / "schema.json"] = json.dumps(JSON_SCHEMA, indent=2) + "\n"
    if html_for_pdf:
        pdf_engine(result.report)
    for path, pdf in cached_pdfs(html_for_pdf):
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


def render_html(data: dict[str, Any], templates: Path | None, page: str, report: Report,
                sheet: str = "full") -> str:
    """The sheet; a broken template (a designer's own, from --templates) is a diagnostic at its line."""
    from jinja2 import TemplateError, TemplateSyntaxError

    from compiler.backends.render import to_html

    try:
        return to_html(data, extra_templates=templates, page=page, sheet=sheet)
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


def cached_pdfs(jobs: list[tuple[Path, str]]) -> list[tuple[Path, bytes]]:
    """`render_pdfs`, except that a sheet whose very HTML became a PDF before, by the same renderer, is
    taken from the user's cache folder (`pdf/`). A sheet is seconds of WeasyPrint (tens for a long one),
    and a build mostly makes again sheets that did not change: a designer edits one ruleset of five.

    The key is the HTML (which holds the theme, fonts and paper) and all else that decides the bytes
    (`pdf_renderer`). Each entry holds its PDF's hash ahead of it: a damaged one is rendered again, and a
    cache folder that cannot be read or written only costs the time.
    """
    folder = cache_dir()
    if folder is None or not jobs:
        return render_pdfs(jobs)
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
    for index, (_, pdf) in zip(missing, render_pdfs([jobs[index] for index in missing]), strict=True):
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


def pdf_renderer() -> str:
    """Everything but the HTML that decides a PDF's bytes: the compiler (to_pdf's options), the epoch of
    the embedded fonts' timestamps, the versions of WeasyPrint, pydyf, fontTools, Pango, HarfBuzz and
    Fontconfig (the libraries that shape and place the text), and which library subsets the fonts (WeasyPrint
    uses HarfBuzz-Subset where the system has it, which keeps a font's own timestamp, else fontTools, which
    stamps the epoch). Imports WeasyPrint."""
    import ctypes
    import ctypes.util

    import fontTools  # type: ignore[import-untyped,unused-ignore]
    import pydyf  # type: ignore[import-untyped,unused-ignore]
    import weasyprint
    from weasyprint.pdf import fonts as pdf_fonts
    from weasyprint.text.ffi import pango

    def native(library: str, call: str) -> str:
        try:
            name = ctypes.util.find_library(library)
            function = getattr(ctypes.CDLL(name), call)
            function.restype = ctypes.c_char_p if call.endswith("string") else ctypes.c_int
            value = function()
            return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)
        except (OSError, AttributeError, TypeError):
            return "unknown"
    return "\0".join(("rulecraft-pdf-1", compiler_fingerprint(), os.environ.get("SOURCE_DATE_EPOCH", "0"),
                      weasyprint.__version__, pydyf.__version__, fontTools.version, str(pango.pango_version()),
                      native("harfbuzz", "hb_version_string"), native("fontconfig", "FcGetVersion"),
                      "harfbuzz-subset" if getattr(pdf_fonts, "harfbuzz_subset", None) else "fonttools-subset"))


def render_pdfs(jobs: list[tuple[Path, str]]) -> list[tuple[Path, bytes]]:
    """PDFs in parallel on the machine's cores (WeasyPrint is single-threaded), in the order given.

    The longest sheets start first, so that no long sheet is left to run alone at the end; and
    where processes fork, WeasyPrint is imported and the sheets' fonts are loaded once here, and the
    workers inherit both instead of each doing it again (a second or so of every worker's time on a
    small machine, and about 0.2 s of every sheet).
    """
    from compiler.backends.render import to_pdf

    workers = min(len(jobs), os.cpu_count() or 1)
    if workers <= 1:
        return [(path, to_pdf(html)) for path, html in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = None
    if "fork" in multiprocessing.get_all_start_methods():
        from compiler.backends.render import font_config

        for _, html in jobs:
            font_config(html)  # WeasyPrint imported and the sheets' fonts loaded once, for the forked workers
        context = multiprocessing.get_context("fork")
    longest_first = sorted(range(len(jobs)), key=lambda index: -len(jobs[index][1]))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = {index: pool.submit(to_pdf, jobs[index][1]) for index in longest_first}
        return [(path, pending[index].result()) for index, (path, _) in enumerate(jobs)]


def write_all(files: dict[Path, str | bytes]) -> None:
    """Write every file or none: all to temporary siblings, then rename each over its target.

    If writing any temporary file fails (a full disk, a read-only folder), the
    temporaries are removed and no target has changed. Renames within a folder
    do not fail for want of space, so the second phase replaces them all.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for path, content in files.items():
            staged.append((stage(path, content), path))
    except BaseException:
        for temp, _ in staged:
            Path(temp).unlink(missing_ok=True)
        raise
    for temp, path in staged:
        os.replace(temp, path)


def stage(path: Path, content: str | bytes) -> str:
    """`content` in a temporary file beside `path`; returns the temporary file's name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temp, 0o644)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return temp


def write_atomic(path: Path, content: str | bytes) -> None:
    """One file, replaced whole or not at all."""
    write_all({path: content})
