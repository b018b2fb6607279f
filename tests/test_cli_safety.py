"""The command line under hostile input: rule text that would drive the terminal, a terminal that is not UTF-8,
usage mistakes, files that are not rulesets, outputs that must not depend on where a build started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulecraft.cli.main import main

from .conftest import ROOT

ESCAPES = ("\x1b]0;pwned\x07", "\x1b[2J", "\x9b31m", "\x1b[31m", "\x05", "\x08", "\u202e")

# Every place rule text reaches the terminal: the title, a label, band text, a card, a diagnostic's source line.
EVIL = '''ruleset "Evil \x1b]0;pwned\x07 title"

roll action "Action \x1b[2J roll" [EVIL-1]
  input dots: 0..3 = 1
  roll: 2d6 + dots
  - 6 or less: failure "You \x1b[31mfail\x9b31m."
  - 7-9: partial "You do it\x08\x08, at a \u202ecost."
  - 10+: success "You do it\x05."

deck omens "Omens \x1b[2J" [EVIL-2]
  - raven "Raven \x1b]0;pwned\x07"
      text: "A raven \x1b[31mcalls."
      copies: 2
'''


def hostile(tmp_path: Path) -> str:
    path = tmp_path / "evil.rules"
    path.write_text(EVIL, encoding="utf-8")
    return str(path)


def assert_inert(text: str) -> None:
    for sequence in ESCAPES:
        assert sequence not in text, (sequence, text)


@pytest.mark.parametrize("command", [
    ["roll", "{path}", "action", "--seed", "1", "--repeat", "30"],
    ["roll", "{path}", "omens", "--seed", "1"],
    ["odds", "{path}", "omens"],
    ["list", "{path}"],
    ["check", "{path}", "--odds"],
    ["diff", "{path}", "{other}"],
    ["fmt", "--diff", "{other}"],
])
def test_rule_text_never_drives_the_terminal(command: list[str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile(tmp_path)
    other = tmp_path / "other.rules"
    other.write_text(EVIL.replace("7-9", "7 - 9").replace("You do it", "You \x1b[2Jdo it"), encoding="utf-8")
    main([part.format(path=path, other=other) for part in command])
    captured = capsys.readouterr()
    assert_inert(captured.out + captured.err)
    assert "\\x1b" in captured.out + captured.err  # shown, visibly, not dropped


@pytest.mark.parametrize("command", [["roll", "{path}", "action", "--seed", "1"], ["roll", "{path}", "omens"],
                                     ["list", "{path}"], ["check", "{path}", "--odds", "--format", "json"]])
def test_json_output_escapes_control_characters_and_reads_back_unchanged(command: list[str], tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile(tmp_path)
    assert main([part.format(path=path) for part in command] + ([] if "--format" in command else ["--json"])) == 0
    out = capsys.readouterr().out
    assert_inert(out)
    assert "\\u001b" in out
    assert any("\x1b" in text for text in strings(json.loads(out)))  # the data reads back unchanged


def strings(data: object) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for key, value in data.items() for s in [*strings(key), *strings(value)]]
    if isinstance(data, list):
        return [s for value in data for s in strings(value)]
    return []


def test_a_diagnostic_quoting_hostile_text_is_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.rules"
    path.write_text(EVIL.replace("  roll: 2d6 + dots", "  roll 2d6 + dots \x1b[2J"), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    captured = capsys.readouterr()
    err = captured.out + captured.err
    assert "error[" in err and "\\x1b[2J" in err
    assert_inert(err)


def test_fmt_into_a_pipe_writes_the_file_as_it_is(tmp_path: Path) -> None:
    source = EVIL.replace("roll: 2d6 + dots", "roll:  2d6+dots")
    done = subprocess.run([sys.executable, "-m", "rulecraft", "fmt", "-"], input=source.encode("utf-8"),
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("utf-8") == EVIL  # data, not a message: nothing escaped, nothing lost


@pytest.mark.parametrize("environment", [{"PYTHONIOENCODING": "cp1252"}, {"PYTHONIOENCODING": "ascii"},
                                         {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}])
def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_traceback(environment: dict[str, str],
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "wide.rules"
    path.write_text('ruleset "Wide — 波"\n\nroll r "Rôle ☠" [W-1]\n  roll: d6\n  - 4+: hit "Hit → ☠"\n'
                    '  - otherwise: miss "Miss"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LC_ALL", "LANG")}
    env.update(environment)
    for command in (["roll", str(path), "r", "--seed", "1"], ["odds", str(path), "r"], ["list", str(path)],
                    ["check", str(path), "--odds"], ["odds", str(path), "nothing"]):
        done = subprocess.run([sys.executable, "-m", "rulecraft", *command], capture_output=True, cwd=tmp_path,
                              env=env, timeout=120)
        shown = done.stdout.decode("ascii", "replace") + done.stderr.decode("ascii", "replace")
        assert "Traceback" not in shown and "Error" not in shown, (command, shown)
        assert done.returncode == (1 if "nothing" in command else 0), (command, shown)
    odds = subprocess.run([sys.executable, "-m", "rulecraft", "odds", str(path), "r"], capture_output=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert b"\\u2588" in odds.stdout  # the bar, escaped where the encoding has no block character


# ---------------------------------------------------------------- usage


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rulecraft", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("args", [["roll"], ["roll", "tides_of_gold", "action_roll", "--seed", "x"], ["nothing"],
                                  ["build", "--page", "a5"], ["odds", "tides_of_gold", "action_roll", "--bogus"],
                                  ["watch", "--port", "eighty"], []])
def test_a_usage_mistake_prints_usage_and_one_line_and_exits_1(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == 1, (args, done.returncode, done.stderr)
    assert done.stderr.startswith("usage: rulecraft") and "rulecraft" in done.stderr.splitlines()[-1]
    assert "error:" in done.stderr.splitlines()[-1] and "Traceback" not in done.stderr


def test_usage_mistakes_in_process_return_1_and_help_returns_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["roll"]) == 1
    assert "error: the following arguments are required" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "usage: rulecraft" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["roll", "tides_of_gold", "action_roll", "dots=1", "dots=2"], "input 'dots' is given twice ('dots=1' and "
                                                                    "'dots=2'); give each input once"),
    (["odds", "tides_of_gold", "action_roll", "dots=2", "dots=2"], "input 'dots' is given twice"),
    (["simulate", "tides_of_gold", "action_roll", "dots=1", "dots=3", "-n", "10"], "input 'dots' is given twice"),
    (["roll", "everrain", "sea_event_deck", "chapter=1", "chapter=2"], "give its pile once, not chapter=1 chapter=2"),
])
def test_an_input_given_twice_is_an_error_not_last_wins(args: list[str], message: str,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(args) == 1
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


@pytest.mark.parametrize("formats, message", [
    (",", "--format ',' names no format; formats are: python, html, pdf, json, yaml"),
    ("", "--format '' names no format; formats are: python, html, pdf, json, yaml"),
    ("python,,json", "--format 'python,,json' has an empty name between commas; formats are: python, html, pdf"),
    ("python,svg", "unknown format 'svg'; formats are: python, html, pdf, json, yaml"),
])
def test_build_refuses_a_format_list_that_names_nothing_or_no_format(formats: str, message: str,
                                                                     tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "rulesets").mkdir(parents=True)
    (project / "rulesets" / "mini.rules").write_text(MINI, encoding="utf-8")
    done = run("build", "--format", formats, cwd=project)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert "nothing was built" in done.stderr
    assert not (project / "output").exists()


MINI = 'ruleset "Mini"\n\nroll r "R" [M-1]\n  roll: d6\n  - 4+: hit "Hit"\n  - otherwise: miss "Miss"\n'


@pytest.mark.parametrize("name", ["action_roll", "deck"])
def test_repeat_has_a_documented_bound(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from rulecraft.cli.main import MAX_REPEAT

    assert MAX_REPEAT == 1_000_000
    reference = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert f"--repeat N` rolls at most\n{MAX_REPEAT:,} times" in reference
    monkeypatch.chdir(ROOT)
    args = ["roll", "tides_of_gold", "action_roll"] if name == "action_roll" else ["roll", "everrain",
                                                                                   "sea_event_deck", "chapter=1"]
    assert main([*args, "--repeat", "1000000000"]) == 1
    err = capsys.readouterr().err
    assert "--repeat takes a whole number of rolls from 1 to 1,000,000; not 1000000000" in err
    assert main([*args, "--repeat", "3", "--seed", "1", "--json"]) == 0  # within the bound, as before


# ---------------------------------------------------------------- reading a ruleset


READERS = [["check", "{path}"], ["list", "{path}"], ["roll", "{path}", "r"], ["odds", "{path}", "r"],
           ["fmt", "--check", "{path}"], ["diff", "{path}", "{path}"], ["build", "{path}", "-o", "{out}"]]


def refused(command: list[str], path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main([part.format(path=path, out=tmp_path / "out") for part in command]) == 1, command
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    assert not (tmp_path / "out").exists()
    return text


@pytest.mark.parametrize("command", READERS)
@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo", "folder.rules"])
def test_what_is_not_a_regular_file_is_refused_without_reading_it(command: list[str], special: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    if special.startswith("/dev/"):
        if not Path(special).exists():
            pytest.skip(f"no {special} here")
        path = Path(special)
    elif special == "fifo":
        path = tmp_path / "pipe.rules"
        os.mkfifo(path)  # nothing ever writes: reading it would block for ever
    else:
        path = tmp_path / special
        path.mkdir()
    text = refused(command, path, tmp_path, capsys)
    kind = {"fifo": "a pipe (FIFO)", "folder.rules": "a folder"}.get(special, "a device")
    assert f"{path}: error[NO-FILE]: {path} is {kind}, not a ruleset file" in text, text


@pytest.mark.parametrize("command", READERS)
def test_a_file_past_the_size_limit_is_refused_without_reading_it_whole(command: list[str], tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from rulecraft.syntax.parse import MAX_SOURCE_BYTES

    path = tmp_path / "huge.rules"
    with path.open("wb") as file:
        file.truncate(600_000_000)  # 600 MB, sparse: reading it whole would take the memory
    reads: list[int] = []
    real_read = os.read

    def counted(handle: int, size: int) -> bytes:
        reads.append(size)
        return real_read(handle, size)

    monkeypatch.setattr(os, "read", counted)
    text = refused(command, path, tmp_path, capsys)
    assert f"error[TOO-LARGE]: this file is 600,000,000 bytes; the limit is {MAX_SOURCE_BYTES:,}" in text, text
    assert sum(reads) <= MAX_SOURCE_BYTES + 1


def test_a_file_growing_past_the_limit_is_read_only_to_the_limit_and_one_byte(tmp_path: Path) -> None:
    from rulecraft.api import read_ruleset
    from rulecraft.diagnostics import CompileError
    from rulecraft.syntax.parse import MAX_SOURCE_BYTES

    # /proc files say they are 0 bytes long; a file may grow after its size was read: only the read counts.
    path = tmp_path / "grown.rules"
    path.write_bytes(b"#" * (MAX_SOURCE_BYTES + 10))
    real_fstat = os.fstat

    def small(handle: int) -> os.stat_result:
        info = real_fstat(handle)
        return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid, 0,
                               int(info.st_atime), int(info.st_mtime), int(info.st_ctime)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fstat", small)
        with pytest.raises(CompileError) as raised:
            read_ruleset(str(path))
    assert f"more than {MAX_SOURCE_BYTES:,} bytes" in raised.value.report.format_text()


@pytest.mark.parametrize("command", READERS)
def test_a_file_that_is_not_utf8_is_located_with_a_caret_and_a_hint(command: list[str], tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin.rules"
    path.write_bytes(MINI.replace('"Hit"', '"Hit caf\xe9"').encode("cp1252"))
    text = refused(command, path, tmp_path, capsys)
    assert f"{path}:5:21: error[BAD-CHARACTER]: this file is not UTF-8 text: byte 0xe9 cannot be read as UTF-8" \
        in text, text
    assert '\n   5 |   - 4+: hit "Hit caf\ufffd"\n' + " " * 27 + "^\n" in text, text
    assert "hint: save the ruleset as UTF-8" in text


def test_utf16_gets_its_own_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wide.rules"
    path.write_bytes(MINI.encode("utf-16"))
    text = refused(["check", "{path}"], path, tmp_path, capsys)
    assert "error[BAD-CHARACTER]" in text and "hint: this looks like UTF-16: save the ruleset as UTF-8" in text


def test_fmt_reads_stdin_to_the_limit_only(tmp_path: Path) -> None:
    from rulecraft.syntax.parse import MAX_SOURCE_BYTES

    done = subprocess.run([sys.executable, "-m", "rulecraft", "fmt", "-"], input=b"#" * (MAX_SOURCE_BYTES + 5000),
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and b"error[TOO-LARGE]: standard input is more than 1,000,000 bytes" in done.stderr
    done = subprocess.run([sys.executable, "-m", "rulecraft", "fmt", "-"], input=MINI.encode("cp1252") + b"\xe9",
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1 and b"<stdin>:7:1: error[BAD-CHARACTER]" in done.stderr, done.stderr


# ---------------------------------------------------------------- where a build started


def test_outputs_name_their_source_the_same_wherever_the_build_started(tmp_path: Path) -> None:
    project = tmp_path / "game"
    (project / "rulesets").mkdir(parents=True)
    (project / "rulesets" / "mini.rules").write_text(MINI, encoding="utf-8")
    loose = tmp_path / "loose" / "mini.rules"
    loose.parent.mkdir()
    loose.write_text(MINI, encoding="utf-8")
    formats = "python,html,json,yaml"
    builds = {
        "root": run("build", "--format", formats, "-o", str(tmp_path / "o1"), cwd=project),
        "rulesets": run("build", "mini.rules", "--format", formats, "-o", str(tmp_path / "o2"),
                        cwd=project / "rulesets"),
        "outside": run("build", str(project / "rulesets" / "mini.rules"), "--format", formats, "-o",
                       str(tmp_path / "o3"), cwd=tmp_path),
        "relative": run("build", "game/rulesets/../rulesets/mini.rules", "--format", formats, "-o",
                        str(tmp_path / "o4"), cwd=tmp_path),
    }
    for name, done in builds.items():
        assert done.returncode == 0, (name, done.stderr)
    outputs = [{p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
               for out in (tmp_path / f"o{n}" for n in range(1, 5))]
    assert {"python/mini.py", "html/mini.html", "json/mini.json", "yaml/mini.yaml"} <= set(outputs[0])
    assert all(output == outputs[0] for output in outputs)
    assert b"Generated from rulesets/mini.rules (sha256" in outputs[0]["python/mini.py"]
    assert json.loads(outputs[0]["json/mini.json"])["source"]["path"] == "rulesets/mini.rules"
    # A file in no project is named by its name alone: never the folder a build started in, nor a home folder.
    for n, cwd in enumerate((loose.parent, tmp_path, ROOT), start=5):
        assert run("build", str(loose), "--format", "json", "-o", str(tmp_path / f"o{n}"), cwd=cwd).returncode == 0
        assert json.loads((tmp_path / f"o{n}" / "json" / "mini.json").read_text())["source"]["path"] == "mini.rules"


def test_line_endings_are_read_as_python_reads_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, ending in (("crlf", "\r\n"), ("cr", "\r")):
        path = tmp_path / f"{name}.rules"
        path.write_bytes(MINI.replace("\n", ending).encode("utf-8"))
        assert main(["odds", str(path), "r"]) == 0, capsys.readouterr().err
        path.write_bytes(MINI.replace("\n", ending).replace('"Hit"', '"Hit caf\xe9"').encode("cp1252"))
        assert main(["check", str(path)]) == 1
        assert f"{path}:5:21: error[BAD-CHARACTER]" in capsys.readouterr().out
