"""`rulecraft watch`: rebuild on save, serve the sheets on localhost, reload the browser.

Three parts, each usable (and tested) alone:

- `Preview` holds the state: for every watched ruleset the last good HTML, the
  diagnostics of the latest build if it failed, and a version number. Its
  `rebuild(changed_paths)` builds the rulesets those paths concern, one ruleset
  per `compiler.build.plan` call (a broken ruleset does not hold back the
  others), and writes a good build with `write_all`. A broken build raises in
  `plan` before anything is written, so output/ keeps the last good files, byte
  for byte those of `rulecraft build`. A condition variable wakes the
  Server-Sent-Events streams after every rebuild.
- `serve` binds a standard-library `ThreadingHTTPServer`: `/` an index,
  `/<id>.html` (or `/<id>/`) the last good sheet with the diagnostics banner
  and a small live-reload script injected at serve time only, `/events` the
  event stream. Each page embeds the version it shows; the stream sends the
  current versions on connect and after each rebuild, and the script reloads
  when its page's version differs. Versions carry a per-process token, so a
  page reconnecting to a restarted server reloads too.
- `watch_loop` feeds `watchfiles.watch` batches (already debounced) to
  `rebuild`. It watches the folders that hold the .rules files (not the files:
  an editor that writes a temporary file and renames it over the ruleset
  replaces the inode), the built-in templates and the --templates folder.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import html
import ipaddress
import json
import re
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, cast
from urllib.parse import unquote, urlsplit

from ..backends.build import plan, write_all
from ..diagnostics import CompileError, Report, plural
from ..project import find_project, ruleset_path
from ..resources import display_path, templates_dir
from .targets import UsageError, targets

if TYPE_CHECKING:
    from watchfiles import Change

FORMATS = ("python", "html", "json", "yaml")
EVENTS_PATH = "/events"
KEEPALIVE_SECONDS = 15.0
IDLE_SECONDS = 20.0  # a connection that sends no request (or stops reading its page) this long is closed
MAX_CONNECTIONS = 32  # open at once (each open page holds one for its event stream); more are closed at once


def configure(parser: argparse.ArgumentParser) -> None:
    """The arguments of `rulecraft watch`."""
    parser.add_argument("paths", nargs="*", help="rulesets (ids or .rules files); default: all of rulesets/, "
                        "including ones added while watching")
    parser.add_argument("--port", type=int, default=8000, help="port to serve on (default: 8000; 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to serve on (default: 127.0.0.1); one that is not loopback needs --allow-remote")
    parser.add_argument("--allow-remote", action="store_true",
                        help="let --host be an address other machines can reach: anyone on the network can then "
                             "read the sheets and diagnostics (there is no password)")
    parser.add_argument("--page", choices=("a4", "letter"), default="a4",
                        help="paper size of the sheets (default: a4)")
    parser.add_argument("--templates", metavar="DIR", default=None,
                        help="a folder of templates that override the built-in ones file by file (watched too)")
    parser.add_argument("--pdf", action="store_true", help="also rebuild the PDFs (takes seconds per sheet)")
    parser.add_argument("--open", action="store_true", help="open the index in a web browser")
    parser.add_argument("-o", "--output", default=None, help="output folder (default: output/)")


# ---------------------------------------------------------------- state


@dataclass
class Sheet:
    """One watched ruleset: its last good sheet and the state of its latest build."""

    id: str
    target: str  # as given to `plan` (an id or a path), so diagnostics name the file as `check` does
    source: Path  # the .rules file: its folder resolved, as watchfiles reports it
    title: str = ""
    html: str | None = None  # the last good sheet
    built_at: float | None = None
    problems: str = ""  # diagnostics of the latest build when it failed, else ""
    errors: int = 0
    warnings: str = ""  # diagnostics of the last good build (warnings only)
    warning_count: int = 0
    version: int = 0


def source_key(path: Path) -> Path:
    """`path` with its folder resolved: the form watchfiles reports for a file in a watched folder."""
    return path.parent.resolve() / path.name


class Preview:
    """Watched rulesets, rebuilt on demand; readable from the HTTP threads while the watch thread rebuilds."""

    def __init__(self, targets: Sequence[str], out_dir: Path, *, formats: Sequence[str] = FORMATS,
                 page: str = "a4", templates: Path | None = None, discover: Path | None = None,
                 echo: Callable[[str], None] | None = None) -> None:
        self.out_dir = out_dir
        self.formats = tuple(formats)
        self.page = page
        self.templates = templates
        self.discover = discover  # a rulesets/ folder whose new .rules files join the watch
        self.echo: Callable[[str], None] = echo or (lambda _line: None)
        self.token = secrets.token_hex(4)  # tells this server's versions from an earlier one's
        self.sheets: dict[str, Sheet] = {}
        self.counter = 0
        self.closed = False
        self.changed = threading.Condition()
        from watchfiles import DefaultFilter

        self.litter_filter = DefaultFilter()  # editors' swap, backup and lock files
        for target in targets:
            self.add(target)

    def add(self, target: str) -> Sheet:
        path = ruleset_path(target)
        sheet = Sheet(path.stem, target, source_key(path))
        other = self.sheets.get(sheet.id)
        if other is not None and other.source != sheet.source:
            raise UsageError(f"{other.target} and {target} would both build {sheet.id}.html; watch one of them")
        return self.sheets.setdefault(sheet.id, sheet)

    # ------------------------------------------------------------ what to watch

    def template_dirs(self) -> list[Path]:
        folders = [templates_dir().resolve()]
        if self.templates is not None:
            folders.insert(0, self.templates.resolve())
        return folders

    def watch_paths(self) -> list[Path]:
        folders = {sheet.source.parent for sheet in self.sheets.values() if sheet.source.parent.is_dir()}
        if self.discover is not None and self.discover.is_dir():
            folders.add(self.discover.resolve())
        folders.update(self.template_dirs())
        return sorted(folders)

    def relevant(self, change: Change, path: str) -> bool:
        """watchfiles filter: a watched ruleset, a new ruleset in rulesets/, a template; no editor litter."""
        changed = Path(path)
        if not self.litter_filter(change, path) or changed.name.startswith("."):
            return False
        if changed.is_relative_to(self.out_dir.resolve()):
            return False
        if any(sheet.source == changed for sheet in self.sheets.values()):
            return True
        if self.discover is not None and changed.suffix == ".rules" and changed.parent == self.discover.resolve():
            return True
        return any(changed.is_relative_to(folder) for folder in self.template_dirs())

    def affected(self, changed: Iterable[Path] | None) -> list[Sheet]:
        """The sheets a change concerns: all for a template (or no list), else those whose file changed."""
        if changed is None:
            return list(self.sheets.values())
        paths = {source_key(Path(p)) for p in changed}
        if any(p.is_relative_to(folder) for p in paths for folder in self.template_dirs()):
            return list(self.sheets.values())
        if self.discover is not None:
            folder = self.discover.resolve()
            known = {sheet.source for sheet in self.sheets.values()}
            for path in sorted(paths):
                if path.parent == folder and path.suffix == ".rules" and path not in known and path.is_file():
                    with self.changed:
                        self.add(path.stem)
        return [sheet for sheet in self.sheets.values() if sheet.source in paths]

    # ------------------------------------------------------------ building

    def rebuild(self, changed: Iterable[Path] | None = None) -> list[str]:
        """Rebuild the sheets `changed` concerns (all when None); one status line per sheet, also echoed."""
        lines = []
        for sheet in self.affected(changed):
            line = self.build(sheet)
            self.echo(line)
            lines.append(line)
        return lines

    def build(self, sheet: Sheet) -> str:
        """Build one sheet; write it if good, else keep its last good build. Returns its status line."""
        started = time.perf_counter()
        report = Report()
        problems = ""
        page = title = ""
        try:
            built = plan([sheet.target], self.formats, self.out_dir, page=self.page, report=report,
                         templates=self.templates)
            page, title = built_sheet(built.files, self.out_dir, sheet.id)
            write_all(unchanged_left_out(built.files))
        except CompileError as error:
            problems = error.report.format_text()
        except OSError as problem:  # writing: a full disk, a read-only folder; nothing was written
            problems = (f"cannot write {problem.filename or self.out_dir}: {problem.strerror or problem}; "
                        "nothing was written")
        except Exception as problem:  # a bug in a stage must not end the session: a message, never a traceback
            problems = (f"{sheet.target}: the build failed inside Rulecraft ({type(problem).__name__}: {problem}).\n"
                        "This is a bug in Rulecraft, not in the ruleset: please report it with the ruleset. "
                        "output/ is unchanged.")
        elapsed = time.perf_counter() - started
        release_caches()
        with self.changed:
            self.counter += 1
            sheet.version = self.counter
            if problems:
                sheet.problems = problems
                sheet.errors = max(report.counts()[0], 1)
                line = (f"{sheet.id}: {plural(sheet.errors, 'error')}; "
                        + ("showing the last good build" if sheet.html is not None else "no good build yet"))
            else:
                sheet.html, sheet.title = page, title
                sheet.built_at = time.time()
                sheet.problems = ""
                sheet.errors = 0
                sheet.warning_count = report.counts()[1]
                sheet.warnings = report.format_text() if sheet.warning_count else ""
                line = f"rebuilt {sheet.id} in {elapsed:.1f} s" + (
                    f" ({plural(sheet.warning_count, 'warning')})" if sheet.warning_count else "")
            self.changed.notify_all()
        return line

    # ------------------------------------------------------------ for the server

    def versions(self) -> tuple[int, str]:
        """The rebuild counter and the JSON event the stream sends: the version of the index and of each sheet."""
        with self.changed:
            payload = {"index": self.tag(self.counter),
                       "sheets": {sid: self.tag(sheet.version) for sid, sheet in self.sheets.items()}}
            return self.counter, json.dumps(payload, sort_keys=True)

    def wait(self, seen: int, timeout: float) -> int | None:
        """Block until a rebuild after `seen` (or `timeout`); the counter then, or None once closed."""
        with self.changed:
            self.changed.wait_for(lambda: self.closed or self.counter != seen, timeout)
            return None if self.closed else self.counter

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()

    def tag(self, version: int) -> str:
        return f"{self.token}.{version}"

    def index_page(self) -> str:
        with self.changed:
            rows = []
            for sid, sheet in sorted(self.sheets.items()):
                if sheet.errors:
                    status = (f'<span class="bad">{plural(sheet.errors, "error")}</span>'
                              + (" (showing the last good build)" if sheet.html is not None else ""))
                elif sheet.html is None:
                    status = "not built yet"
                else:
                    status = f"built {clock(sheet.built_at)}" + (
                        f', <span class="warn">{plural(sheet.warning_count, "warning")}</span>'
                        if sheet.warning_count else "")
                rows.append(f'<li><a href="/{quote(sid)}.html">{html.escape(sheet.title or sid)}</a> '
                            f'<code>{html.escape(sid)}</code> · {status}</li>')
            version = self.tag(self.counter)
        body = (f"<h1>Rulecraft live preview</h1>\n<ul>\n{chr(10).join(rows)}\n</ul>\n"
                f"<p>Output: <code>{html.escape(str(self.out_dir))}</code>. Save a .rules file and its sheet "
                "reloads; a save with errors shows them above the last good sheet.</p>\n")
        return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                f"<title>Rulecraft live preview</title>\n<style>{INDEX_CSS}</style>\n</head>\n<body>\n"
                f"{body}{reload_script(None, version)}</body>\n</html>\n")

    def sheet_page(self, sheet_id: str) -> str | None:
        """The page for one sheet: the last good HTML, the diagnostics banner, the live-reload script."""
        with self.changed:
            sheet = self.sheets.get(sheet_id)
            if sheet is None:
                return None
            page = sheet.html
            banner = problems_banner(sheet) if sheet.problems else warnings_note(sheet) if sheet.warnings else ""
            script = reload_script(sheet.id, self.tag(sheet.version))
        if page is None:
            page = (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
                    f"<title>{html.escape(sheet_id)} — no good build yet</title>\n</head>\n<body>\n"
                    "<p>This ruleset has not built yet; the sheet appears when its errors are fixed.</p>\n"
                    "</body>\n</html>\n")
        return inject(page, banner, script)


def release_caches() -> None:
    """Drop what the exact odds keep of earlier builds. Each build makes new definitions, so what the odds cached
    for the last one is never read again, and it held about 1.5 MB a save of Tides of Gold (GBs in a day's
    session). The next build works its odds out afresh, as it would anyway."""
    from ..semantics import odds

    odds.forget()


def unchanged_left_out(files: dict[Path, str | bytes]) -> dict[Path, str | bytes]:
    """The files whose content differs from what is on disk: an unchanged file keeps its time stamp."""
    out: dict[Path, str | bytes] = {}
    for path, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        try:
            if path.read_bytes() == data:
                continue
        except OSError:
            pass
        out[path] = content
    return out


def built_sheet(files: dict[Path, str | bytes], out_dir: Path, sheet_id: str) -> tuple[str, str]:
    """The sheet's HTML among a plan's files, and the ruleset's title (from its JSON)."""
    page = files[out_dir / "html" / f"{sheet_id}.html"]
    data = files.get(out_dir / "json" / f"{sheet_id}.json")
    title = json.loads(data).get("title") if data is not None else None
    return str(page), str(title or sheet_id)


def clock(moment: float | None) -> str:
    return time.strftime("%H:%M:%S", time.localtime(moment)) if moment is not None else "never"


def quote(text: str) -> str:
    from urllib.parse import quote as url_quote

    return html.escape(url_quote(text), quote=True)


# ---------------------------------------------------------------- what the server adds to a page

BANNER_CSS = """
#rulecraft-watch-errors, #rulecraft-watch-warnings { position: sticky; top: 0; z-index: 2147483647; margin: 0;
  font: 14px/1.45 system-ui, sans-serif; color: #1a1a1a; text-align: left; }
#rulecraft-watch-errors { background: #fff1f0; border-bottom: 4px solid #c62828; padding: 12px 16px;
  box-shadow: 0 2px 12px rgba(0, 0, 0, .25); max-height: 70vh; overflow: auto; }
#rulecraft-watch-errors h2 { all: unset; display: block; font-weight: 700; color: #b71c1c; margin: 0 0 8px; }
#rulecraft-watch-errors pre, #rulecraft-watch-warnings pre { margin: 0; padding: 8px 10px; background: #fff;
  border: 1px solid #e0b4b4; border-radius: 4px; overflow-x: auto; white-space: pre;
  font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
#rulecraft-watch-warnings { background: #fffbe6; border-bottom: 2px solid #d4a106; padding: 4px 16px; }
#rulecraft-watch-warnings summary { cursor: pointer; color: #7a5a00; }
@media print { #rulecraft-watch-errors, #rulecraft-watch-warnings { display: none; } }
"""

INDEX_CSS = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
li { margin: .3rem 0; } code { color: #555; } .bad { color: #b71c1c; font-weight: 700; } .warn { color: #7a5a00; }
"""


def problems_banner(sheet: Sheet) -> str:
    shown = ("showing the last good build, from " + clock(sheet.built_at)) if sheet.html is not None \
        else "no good build yet"
    return (f'<style>{BANNER_CSS}</style>\n<div id="rulecraft-watch-errors" role="alert">\n'
            f"<h2>{html.escape(sheet.id)}: {plural(sheet.errors, 'error')}; {shown}. output/ is unchanged.</h2>\n"
            f"<pre>{html.escape(sheet.problems)}</pre>\n</div>\n")


def warnings_note(sheet: Sheet) -> str:
    return (f'<style>{BANNER_CSS}</style>\n<details id="rulecraft-watch-warnings">\n'
            f"<summary>{plural(sheet.warning_count, 'warning')} (rulecraft check)</summary>\n"
            f"<pre>{html.escape(sheet.warnings)}</pre>\n</details>\n")


RELOAD_JS = """(function () {
  var sheet = %(sheet)s, shown = %(version)s, delay = 500;
  function connect() {
    var source = new EventSource("%(events)s");
    source.onopen = function () { delay = 500; };
    source.onmessage = function (event) {
      var now = JSON.parse(event.data);
      var current = sheet === null ? now.index : now.sheets[sheet];
      if (current !== shown) { source.close(); window.location.reload(); }
    };
    source.onerror = function () {  /* the server stopped or restarted: try again, then reload if it changed */
      source.close();
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }
  connect();
})();"""


def reload_script(sheet_id: str | None, version: str) -> str:
    def literal(value: str | None) -> str:
        return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")

    code = RELOAD_JS % {"sheet": literal(sheet_id), "version": literal(version), "events": EVENTS_PATH}
    return f'<script id="rulecraft-watch-reload">\n{code}\n</script>\n'


BODY_OPEN = re.compile(r"<body\b[^>]*>", re.IGNORECASE)
BODY_CLOSE = re.compile(r"</body\s*>", re.IGNORECASE)


def inject(page: str, banner: str, script: str) -> str:
    """`banner` first thing in the body, `script` last; a page without a body gets them around it."""
    opening = BODY_OPEN.search(page)
    page = page[:opening.end()] + banner + page[opening.end():] if opening else banner + page
    closings = list(BODY_CLOSE.finditer(page))
    if closings:
        return page[:closings[-1].start()] + script + page[closings[-1].start():]
    return page + script


# ---------------------------------------------------------------- the server


def is_loopback(host: str) -> bool:
    """`host` names this machine only: localhost, 127.x.y.z, ::1."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_port = False  # never share a port with another server

    def __init__(self, address: tuple[str, int], preview: Preview) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.preview = preview
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, PreviewHandler)

    def hosts(self) -> set[str]:
        """The Host headers this server answers: its own address and port by IP or as localhost (a page from
        another site that resolves its own name to 127.0.0.1, DNS rebinding, sends its own name: refused)."""
        port = int(self.server_address[1])
        bound = str(self.server_address[0])
        names = {"localhost", "127.0.0.1", "[::1]"}
        if not is_loopback(bound):
            names.add(f"[{bound}]" if ":" in bound else bound)
            with contextlib.suppress(OSError):
                names.update({socket.gethostname().lower(), socket.getfqdn().lower()})
        return {f"{name}:{port}" for name in names} | (names if port == 80 else set())

    def allowed_host(self, header: str | None) -> bool:
        if header is None:
            return False
        host = header.strip().lower()
        if host in self.hosts():
            return True
        if is_loopback(bound := str(self.server_address[0])) or bound not in ("0.0.0.0", "::"):
            return False
        name, _, port = host.rpartition(":")  # bound to every address (--allow-remote): any IP of this machine
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return False
        return port == str(self.server_address[1])

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket],
                        client_address: object) -> None:
        """A thread per connection, at most MAX_CONNECTIONS at once: one more is closed at once."""
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: socket.socket | tuple[bytes, socket.socket],
                               client_address: object) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away mid-page (or stayed idle) is no news; anything else is one line, no traceback."""
        problem = sys.exc_info()[1]
        if isinstance(problem, (ConnectionError, TimeoutError)):
            return
        print(f"rulecraft watch: a request failed: {type(problem).__name__}: {problem}", file=sys.stderr, flush=True)

    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        if host in ("0.0.0.0", "::"):
            host = "localhost"
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


class PreviewHandler(BaseHTTPRequestHandler):
    server_version = "rulecraft-watch"
    timeout = IDLE_SECONDS  # on the socket: a request line or a write that waits longer ends the connection

    @property
    def preview(self) -> Preview:
        return cast(PreviewServer, self.server).preview

    def do_GET(self) -> None:
        self.respond(body=True)

    def do_HEAD(self) -> None:
        self.respond(body=False)

    def respond(self, body: bool) -> None:
        if not cast(PreviewServer, self.server).allowed_host(self.headers.get("Host")):
            self.send_page(HTTPStatus.MISDIRECTED_REQUEST, "<!DOCTYPE html>\n<title>wrong host</title>\n"
                           "<p>This preview answers only at the address it serves on.</p>\n", body)
            return
        route = unquote(urlsplit(self.path).path)
        if route == EVENTS_PATH:
            self.events(body)
            return
        page: str | None
        if route in ("/", "/index.html"):
            page = self.preview.index_page()
        else:
            name = route.strip("/")
            name = name.removesuffix(".html")
            page = self.preview.sheet_page(name) if name and "/" not in name else None
        if page is None:
            self.send_page(HTTPStatus.NOT_FOUND, "<!DOCTYPE html>\n<title>not found</title>\n"
                           f"<p>No sheet at {html.escape(route)}. <a href=\"/\">All sheets</a></p>\n", body)
        else:
            self.send_page(HTTPStatus.OK, page, body)

    def send_page(self, status: HTTPStatus, page: str, body: bool) -> None:
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def events(self, body: bool) -> None:
        """Server-Sent Events: the versions now, then after every rebuild; a comment now and then to keep alive."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not body:
            return
        try:
            self.wfile.write(b"retry: 1000\n\n")
            seen = -1
            while True:
                counter, payload = self.preview.versions()
                if counter != seen:
                    self.wfile.write(f"data: {payload}\n\n".encode())
                else:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
                seen = counter
                if self.preview.wait(counter, KEEPALIVE_SECONDS) is None:
                    return
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal shows one line per rebuild, not one per request."""


def serve(preview: Preview, host: str, port: int, allow_remote: bool = False) -> PreviewServer:
    """A bound (not yet serving) server; a port in use, a bad address, or one other machines reach without
    `allow_remote`, is a UsageError."""
    if not is_loopback(host) and not allow_remote:
        raise UsageError(f"--host {host} is not a loopback address: other machines could read the sheets and "
                         "diagnostics, with no password. Serve on 127.0.0.1 (the default), or add --allow-remote "
                         "if that is what you want")
    try:
        return PreviewServer((host, port), preview)
    except OSError as problem:
        if problem.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is in use; pick another with --port "
                             "(or --port 0 for any free one)") from None
        if problem.errno in (errno.EACCES, errno.EPERM):
            raise UsageError(f"not allowed to serve on port {port} (ports below 1024 need privileges); "
                             "pick another with --port") from None
        raise UsageError(f"cannot serve on {host}:{port}: {problem.strerror or problem}") from None
    except OverflowError:
        raise UsageError(f"--port {port}: a port is from 0 to 65535") from None


# ---------------------------------------------------------------- the loop


def _interrupted(stop: threading.Event, signum: int, frame: object) -> None:
    """Ctrl-C: stop the watch even where the KeyboardInterrupt is lost. Raised while watchfiles starts its
    watcher, it can be swallowed there, and the watcher then never saw the signal; it sees the event."""
    stop.set()
    raise KeyboardInterrupt


def watch_loop(preview: Preview, stop_event: threading.Event | None = None) -> None:
    """Rebuild after every (debounced) batch of changes, until `stop_event` is set or Ctrl-C."""
    import watchfiles

    for changes in watchfiles.watch(*preview.watch_paths(), watch_filter=preview.relevant, stop_event=stop_event,
                                    recursive=False):
        preview.rebuild([Path(path) for _, path in changes])


def run(args: argparse.Namespace) -> int:
    """`rulecraft watch`: build, serve, rebuild on save until Ctrl-C."""
    templates = Path(args.templates) if args.templates else None
    if templates is not None and not templates.is_dir():
        raise UsageError(f"--templates {args.templates}: no such folder")
    found = targets(args.paths)
    for target in found:
        if not ruleset_path(target).is_file():
            raise UsageError(f"no ruleset {target!r} (looked for {ruleset_path(target)})")
    out_dir = Path(args.output) if args.output else find_project().output
    formats = (*FORMATS, "pdf") if args.pdf else FORMATS
    import watchfiles  # noqa: F401  (now, not after "serving": a Ctrl-C then does not land in its imports)

    def echo(line: str) -> None:
        print(line, flush=True)

    preview = Preview(list(dict.fromkeys(found)), out_dir, formats=formats, page=args.page, templates=templates,
                      discover=None if args.paths else find_project().rulesets, echo=echo)
    server = serve(preview, args.host, args.port, args.allow_remote)  # before the first build: a busy port fails
    if not is_loopback(args.host):
        echo(f"warning: serving on {args.host}, reachable from other machines; anyone who can reach it reads the "
             "sheets and diagnostics")
    serving: threading.Thread | None = None
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, partial(_interrupted, stop))
    try:
        preview.rebuild()
        serving = threading.Thread(target=server.serve_forever, name="rulecraft-watch-http", daemon=True)
        serving.start()
        url = server.url()
        echo(f"serving {url} (Ctrl-C to stop)")
        for sid, sheet in sorted(preview.sheets.items()):
            echo(f"  {url}{sid}.html" + (f"  {sheet.title}" if sheet.title else ""))
        echo("watching " + ", ".join(display_path(folder) + "/" for folder in preview.watch_paths()))
        if args.open:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        watch_loop(preview, stop)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
        preview.close()
        if serving is not None:
            server.shutdown()
        server.server_close()
    print("stopped", file=sys.stderr, flush=True)
    return 0
