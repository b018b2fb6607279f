"""`rulecraft watch`: the preview state, the real HTTP server, the real watcher, Ctrl-C in a real process."""

from __future__ import annotations

import ast
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import IO, Any

import pytest

from rulecraft.cli.main import main
from rulecraft.cli.targets import UsageError
from rulecraft.cli.watch import Preview, _interrupted, serve, watch_loop
from rulecraft.resources import templates_dir

ROOT = Path(__file__).resolve().parent.parent

SOURCE = '''ruleset "Tiny"

roll action "Action roll" [TINY-1]
  input dots: 0..3 = 1
  roll: 2d6 + dots
  - 6 or less: failure "You fail."
  - 7-9: partial "You do it, at a cost."
  - 10+: success "You do it."
'''

CHANGED = SOURCE.replace("at a cost", "at a price")
BROKEN = CHANGED.replace("  roll: 2d6", "  roll 2d6")  # line 5: MISSING-COLON
HOSTILE = SOURCE.replace('  - 10+: success "You do it."', '  - 10+ success "<script>alert(1)</script>"')

SCRIPT = re.compile(r'<script id="rulecraft-watch-reload">.*?</script>\n', re.DOTALL)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "tiny.rules").write_text(SOURCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def served(project: Path) -> Iterator[tuple[Preview, str]]:
    """The preview of tiny, built once, served on a free port in a thread."""
    preview = Preview(["tiny"], project / "output")
    assert [line.startswith("rebuilt tiny in ") for line in preview.rebuild()] == [True]
    server = serve(preview, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield preview, server.url()
    preview.close()
    server.shutdown()
    server.server_close()
    thread.join(5)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        return str(response.read().decode("utf-8"))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def save(path: Path, text: str) -> None:
    """The way many editors save: write a temporary file beside it, then rename it over the old one."""
    temp = path.with_name(f".{path.name}.swp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def check_text(capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["check", "tiny"]) == 1
    return capsys.readouterr().out.rstrip("\n")


def next_event(stream: IO[bytes]) -> dict[str, Any]:
    """The next `data:` event of a Server-Sent-Events stream (comments and `retry:` skipped)."""
    data: list[str] = []
    while True:
        line = stream.readline().decode("utf-8")
        if not line:
            raise EOFError("the event stream ended")
        line = line.rstrip("\n")
        if not line and data:
            parsed: dict[str, Any] = json.loads("\n".join(data))
            return parsed
        if line.startswith("data: "):
            data.append(line.removeprefix("data: "))


def test_the_first_build_is_rulecraft_builds_and_only_the_served_page_has_the_script(
        served: tuple[Preview, str], project: Path) -> None:
    _, url = served
    assert main(["build", "-o", str(project / "by_build"), "--format", "python,html,json,yaml"]) == 0
    assert snapshot(project / "output") == snapshot(project / "by_build")
    built = (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert "rulecraft-watch" not in built and "EventSource" not in built

    page = fetch(url + "tiny.html")
    script = SCRIPT.findall(page)
    assert len(script) == 1 and 'new EventSource("/events")' in script[0]
    assert page.rindex("</section>") < page.index(script[0]) < page.index("</body>")  # at the end of the body
    assert SCRIPT.sub("", page) == built  # the built sheet, with nothing but the script added
    assert "rulecraft-watch-errors" not in page
    assert fetch(url + "tiny/") == page

    index = fetch(url)
    assert '<a href="/tiny.html">Tiny</a>' in index and "rulecraft-watch-reload" in index
    with pytest.raises(urllib.error.HTTPError) as missing:
        fetch(url + "nothing.html")
    assert missing.value.code == 404


def test_a_broken_save_shows_the_diagnostics_over_the_last_good_sheet_and_writes_nothing(
        served: tuple[Preview, str], project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preview, url = served
    rules = project / "rulesets" / "tiny.rules"
    before = snapshot(project / "output")

    save(rules, BROKEN)
    assert preview.rebuild([rules]) == ["tiny: 1 error; showing the last good build"]
    page = fetch(url + "tiny.html")
    expected = check_text(capsys)
    assert re.match(r"rulesets/tiny\.rules:5:\d+: error\[MISSING-COLON\]: ", expected)
    assert escape(expected) in page  # the text of `rulecraft check`, whole
    banner = page.index('id="rulecraft-watch-errors"')
    assert banner < page.index('<header class="masthead">')  # above the sheet
    assert "You do it, at a cost." in page[banner:]  # the last good sheet under it
    assert "at a price" not in page
    assert snapshot(project / "output") == before  # output/ byte for byte the last good build
    assert '<span class="bad">1 error</span> (showing the last good build)' in fetch(url)

    save(rules, CHANGED)
    line, = preview.rebuild([rules])
    assert re.fullmatch(r"rebuilt tiny in \d+\.\d s", line)
    page = fetch(url + "tiny.html")
    assert "rulecraft-watch-errors" not in page and "MISSING-COLON" not in page
    assert "You do it, at a price." in page and "at a cost" not in page
    built = (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
    assert SCRIPT.sub("", page) == built
    assert 'class="bad"' not in fetch(url)


def test_diagnostics_are_text_never_markup(served: tuple[Preview, str], project: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    preview, url = served
    rules = project / "rulesets" / "tiny.rules"
    save(rules, HOSTILE)
    preview.rebuild([rules])
    page = fetch(url + "tiny.html")
    assert re.search(r"rulesets/tiny\.rules:8:\d+: error\[[A-Z-]+\]: ", page)
    assert "10+ success &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;" in page  # the line under the caret
    assert "<script>alert" not in page
    assert escape(check_text(capsys)) in page
    assert page.count("<script") == 1  # only the live-reload script


def test_a_ruleset_broken_from_the_start_has_a_page_and_no_output(project: Path) -> None:
    (project / "rulesets" / "tiny.rules").write_text(BROKEN, encoding="utf-8")
    preview = Preview(["tiny"], project / "output")
    assert preview.rebuild() == ["tiny: 1 error; no good build yet"]
    page = preview.sheet_page("tiny")
    assert page is not None and re.search(r"rulesets/tiny\.rules:5:\d+: error\[MISSING-COLON\]", page)
    assert "no good build yet" in page
    assert not (project / "output").exists()


def test_the_event_stream_announces_each_rebuild(served: tuple[Preview, str], project: Path) -> None:
    preview, url = served
    rules = project / "rulesets" / "tiny.rules"
    with urllib.request.urlopen(url + "events", timeout=5) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        first = next_event(stream)
        shown = re.search(r'shown = "([^"]+)"', fetch(url + "tiny.html"))
        assert shown is not None and shown.group(1) == first["sheets"]["tiny"]  # an open page stays

        save(rules, CHANGED)
        preview.rebuild([rules])
        second = next_event(stream)
        assert second["sheets"]["tiny"] != first["sheets"]["tiny"] and second["index"] != first["index"]
        shown = re.search(r'shown = "([^"]+)"', fetch(url + "tiny.html"))
        assert shown is not None and shown.group(1) == second["sheets"]["tiny"]

        save(rules, BROKEN)
        preview.rebuild([rules])
        third = next_event(stream)
        assert third["sheets"]["tiny"] not in (first["sheets"]["tiny"], second["sheets"]["tiny"])


def test_only_the_rulesets_a_change_concerns_are_rebuilt(project: Path) -> None:
    rulesets = project / "rulesets"
    (rulesets / "other.rules").write_text(SOURCE.replace('"Tiny"', '"Other"'), encoding="utf-8")
    preview = Preview(["other", "tiny"], project / "output", discover=rulesets)
    assert len(preview.rebuild()) == 2
    assert [line.split(" in ")[0] for line in preview.rebuild([rulesets / "other.rules"])] == ["rebuilt other"]
    assert preview.rebuild([rulesets / "notes.md", project / "elsewhere.rules"]) == []
    touched = preview.rebuild([templates_dir() / "sheet.css"])  # a template: every sheet
    assert sorted(line.split(" in ")[0] for line in touched) == ["rebuilt other", "rebuilt tiny"]

    (rulesets / "fresh.rules").write_text(SOURCE.replace('"Tiny"', '"Fresh"'), encoding="utf-8")
    assert [line.split(" in ")[0] for line in preview.rebuild([rulesets / "fresh.rules"])] == ["rebuilt fresh"]
    assert "Fresh" in preview.index_page() and (project / "output" / "html" / "fresh.html").is_file()


def test_the_watcher_sees_an_editor_save(served: tuple[Preview, str], project: Path) -> None:
    preview, url = served
    rules = project / "rulesets" / "tiny.rules"
    stop = threading.Event()
    watcher = threading.Thread(target=watch_loop, args=(preview, stop), daemon=True)
    watcher.start()
    try:
        deadline = time.monotonic() + 12
        seen = preview.versions()[0]
        while time.monotonic() < deadline:  # the watcher may not be ready for the first save: save again
            save(rules, CHANGED)
            if preview.wait(seen, 1.5) != seen:
                break
        else:
            pytest.fail("the watcher did not rebuild after a save")
        page = fetch(url + "tiny.html")
        assert "You do it, at a price." in page
        assert "at a price" in (project / "output" / "html" / "tiny.html").read_text(encoding="utf-8")
        assert sorted(p.name for p in (project / "rulesets").iterdir()) == ["tiny.rules"]
    finally:
        stop.set()
        watcher.join(5)
    assert not watcher.is_alive()


def test_a_port_in_use_is_a_one_line_error(project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=f"port {port} on 127.0.0.1 is in use"):
            serve(Preview(["tiny"], project / "output"), "127.0.0.1", port)


def test_ctrl_c_stops_the_command_cleanly(project: Path) -> None:
    program = ("import argparse, sys\nfrom rulecraft.cli.watch import configure, run\n"
               "parser = argparse.ArgumentParser()\nconfigure(parser)\n"
               "sys.exit(run(parser.parse_args(sys.argv[1:])))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen([sys.executable, "-c", program, "--port", "0"], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None

    def read(stream: IO[str]) -> None:
        for line in stream:
            lines.put(line)

    threading.Thread(target=read, args=(process.stdout,), daemon=True).start()
    try:
        printed: list[str] = []
        while not any(line.startswith("serving ") for line in printed):
            printed.append(lines.get(timeout=15))
        url = re.search(r"http://127\.0\.0\.1:\d+/", printed[-1])
        assert url is not None
        assert re.fullmatch(r"rebuilt tiny in \d+\.\d s\n", printed[0])
        assert "Tiny" in fetch(url.group(0))
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # say where it hangs: faulthandler prints every thread's stack
            process.send_signal(signal.SIGABRT)
            process.wait(timeout=10)
            assert process.stderr is not None
            pytest.fail(f"Ctrl-C did not stop the watch:\n{process.stderr.read()}")
        assert process.returncode == 0
        assert process.stderr is not None
        err = process.stderr.read()
        assert "Traceback" not in err and "stopped" in err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (project / "output" / "html" / "tiny.html").is_file()


def test_ctrl_c_stops_the_watch_even_where_its_keyboard_interrupt_is_swallowed(project: Path) -> None:
    """The handler `run` installs sets the loop's stop event before it raises: an import or a library that
    catches everything can lose the KeyboardInterrupt, and the watcher would then never stop."""
    stop = threading.Event()
    with pytest.raises(KeyboardInterrupt):
        _interrupted(stop, signal.SIGINT, None)
    assert stop.is_set()
    preview = Preview(["tiny"], project / "output")
    finished = threading.Event()
    threading.Thread(target=lambda: (watch_loop(preview, stop), finished.set()), daemon=True).start()
    assert finished.wait(10)


def test_watch_does_not_import_the_command_line() -> None:
    """The command line imports watch to run `rulecraft watch`; watch takes what both need (UsageError, the
    rulesets to work on) from rulecraft.cli.targets, so the two do not import each other, not even in a function."""
    tree = ast.parse((ROOT / "compiler" / "cli" / "watch.py").read_text(encoding="utf-8"))
    imported = {f"{'.' * node.level}{node.module or ''}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert ".targets" in imported
    assert not imported & {".main", ".", "..cli", "..cli.main"}


# ---------------------------------------------------------------- the server under attack and under load


def raw_request(url: str, path: str, host: str | None) -> tuple[int, bytes]:
    """One GET with the path and Host header exactly as given (no client-side normalising)."""
    import http.client

    address = url.removeprefix("http://").rstrip("/")
    name, _, port = address.rpartition(":")
    connection = http.client.HTTPConnection(name, int(port), timeout=5)
    connection.putrequest("GET", path, skip_host=True)
    if host is not None:
        connection.putheader("Host", host)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def test_a_host_that_is_not_loopback_needs_allow_remote(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    preview = Preview(["tiny"], project / "output")
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.org"):
        with pytest.raises(UsageError, match=f"--host {re.escape(host)} is not a loopback address.*--allow-remote"):
            serve(preview, host, 0)
    assert main(["watch", "--host", "0.0.0.0", "--port", "0"]) == 1
    assert "--host 0.0.0.0 is not a loopback address" in capsys.readouterr().err
    for host in ("127.0.0.1", "localhost", "127.0.0.2"):
        serve(preview, host, 0).server_close()
    remote = serve(preview, "0.0.0.0", 0, allow_remote=True)  # said so explicitly: served
    remote.server_close()


def test_only_requests_for_the_served_address_are_answered(served: tuple[Preview, str]) -> None:
    # DNS rebinding: a page on evil.example resolves its own name to 127.0.0.1 and reads the preview.
    _, url = served
    port = url.rstrip("/").rpartition(":")[2]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert raw_request(url, "/tiny.html", host)[0] == 200, host
    others: tuple[str | None, ...] = (f"evil.example:{port}", "evil.example", f"127.0.0.1:{int(port) + 1}", None,
                                      "127.0.0.1.evil.example", f"localhost.evil.example:{port}")
    for other in others:
        status, body = raw_request(url, "/tiny.html", other)
        assert status == 421 and b"Tiny" not in body, other
        assert raw_request(url, "/events", other)[0] == 421


@pytest.mark.parametrize("path", ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd",
                                  "/etc/passwd", "/tiny/../../../../etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
                                  "/%2e%2e%2f%2e%2e%2frulesets/tiny.rules", "/rulesets/tiny.rules",
                                  "/output/html/tiny.html",
                                  "/linked.html", "/linked", "/tiny.html/../../rulesets/tiny.rules", "/%00tiny.html"])
def test_no_path_reads_a_file_outside_the_preview(path: str, served: tuple[Preview, str], project: Path) -> None:
    _, url = served
    (project / "output" / "html" / "linked.html").symlink_to("/etc/passwd")
    status, body = raw_request(url, path, url.removeprefix("http://").rstrip("/"))
    assert status == 404, (path, status)
    assert b"root:" not in body and b"ruleset \"Tiny\"" not in body


def test_an_idle_connection_is_closed(served: tuple[Preview, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from rulecraft.cli.watch import IDLE_SECONDS, PreviewHandler

    assert 0 < IDLE_SECONDS <= 60 and PreviewHandler.timeout == IDLE_SECONDS
    monkeypatch.setattr(PreviewHandler, "timeout", 0.5)
    _, url = served
    name, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
    with socket.create_connection((name, int(port)), timeout=10) as idle:
        started = time.monotonic()
        assert idle.recv(100) == b""  # closed by the server, which sent nothing: no request came
        assert time.monotonic() - started < 5


def test_connections_past_the_cap_are_closed_at_once(served: tuple[Preview, str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from rulecraft.cli.watch import MAX_CONNECTIONS, PreviewServer

    assert 1 < MAX_CONNECTIONS <= 256
    _, url = served
    server = next(o for o in gc.get_objects() if isinstance(o, PreviewServer) and o.url() == url)
    server.slots = threading.BoundedSemaphore(2)
    name, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
    held = [socket.create_connection((name, int(port)), timeout=10) for _ in range(2)]  # two idle: the cap
    time.sleep(0.3)
    with socket.create_connection((name, int(port)), timeout=10) as extra:
        extra.sendall(f"GET /tiny.html HTTP/1.0\r\nHost: {name}:{port}\r\n\r\n".encode())
        assert extra.recv(100) == b""  # closed without an answer, no thread started for it
    for connection in held:
        connection.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the slots come back as the held connections end
        try:
            if "Tiny" in fetch(url + "tiny.html"):
                break
        except OSError:
            time.sleep(0.1)
    else:
        raise AssertionError("the server did not serve again after the connections closed")


def test_a_client_that_leaves_mid_page_prints_no_traceback(served: tuple[Preview, str],
                                                           capfd: pytest.CaptureFixture[str]) -> None:
    import struct

    preview, url = served
    with preview.changed:
        preview.sheets["tiny"].html = "<body>" + "x" * 30_000_000 + "</body>"  # far more than a socket buffers
    name, _, port = url.removeprefix("http://").rstrip("/").rpartition(":")
    for _ in range(3):
        client = socket.create_connection((name, int(port)), timeout=10)
        client.sendall(f"GET /tiny.html HTTP/1.0\r\nHost: {name}:{port}\r\n\r\n".encode())
        client.recv(1000)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset, not a close
        client.close()
    time.sleep(1.0)
    assert fetch(url).startswith("<!DOCTYPE html>")  # still serving
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Error" not in captured.err, captured.err


def test_an_internal_build_error_is_a_message_never_a_traceback(project: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import rulecraft.cli.watch as watch

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a stage fell over")

    monkeypatch.setattr(watch, "plan", broken)
    preview = Preview(["tiny"], project / "output")
    assert preview.rebuild() == ["tiny: 1 error; no good build yet"]
    page = preview.sheet_page("tiny")
    assert page is not None
    assert "the build failed inside Rulecraft (RuntimeError: a stage fell over)" in page
    assert "please report it" in page
    assert "Traceback" not in page and 'File "' not in page and ".py" not in page


def test_what_a_session_keeps_stays_bounded_over_many_saves(project: Path) -> None:
    # Each save made new definitions, and the exact odds kept their analyses of every earlier build (about
    # 1.5 MB a save of Tides of Gold): memory grew without bound over a session.
    import gc

    from rulecraft import model as m
    from rulecraft.semantics import odds

    shutil_source = (ROOT / "rulesets" / "errant.rules").read_text(encoding="utf-8")
    path = project / "rulesets" / "errant.rules"
    path.write_text(shutil_source, encoding="utf-8")

    def kept() -> tuple[int, int, int]:
        gc.collect()
        rulesets = sum(1 for o in gc.get_objects() if isinstance(o, m.CheckedRuleset))
        return rulesets, len(odds._ANALYSES), len(odds._NAMES)

    # what other tests in this worker process keep (their cached rulesets) is not the session's
    before = kept()[0]
    preview = Preview(["errant"], project / "output")

    sizes = []
    for save_number in range(8):
        path.write_text(shutil_source + f"\n# save {save_number}\n", encoding="utf-8")
        assert preview.rebuild([path])[0].startswith("rebuilt errant")
        sizes.append(kept())
    assert sizes[-1] == sizes[2], sizes  # nothing more kept after eight saves than after three
    assert sizes[-1][0] - before <= 2, sizes
