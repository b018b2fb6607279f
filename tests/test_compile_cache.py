"""A generated module is compiled before anyone sees it; a text that compiled once is not compiled again
(the user's cache folder keeps a marker per text that compiled, the newest few of each file name), and nothing in
that cache can let a broken module through or break a build."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compiler import codegen
from compiler.codegen import compile_once, runtime_names, runtime_section_names

GOOD = "def roll() -> int:\n    return 4\n"


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "rulecraft"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The file name of every text codegen hands to compile()."""
    names: list[str] = []

    def counting(text: str, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        names.append(filename)
        return compile(text, filename, mode, *args, **kwargs)
    monkeypatch.setattr(codegen, "compile", counting, raising=False)
    yield names


def test_a_text_that_compiled_is_not_compiled_again(cache: Path, compiled: list[str]) -> None:
    compile_once(GOOD, "output/python/game.py")
    assert compiled == ["output/python/game.py"]
    assert len(list(cache.glob("compiled-*/*"))) == 1
    compile_once(GOOD, "output/python/game.py")
    assert compiled == ["output/python/game.py"]
    compile_once(GOOD + "\n# changed\n", "output/python/game.py")  # a changed text is compiled
    compile_once(GOOD, "output/python/other.py")  # and the same text under another name
    assert compiled == ["output/python/game.py"] * 2 + ["output/python/other.py"]
    compile_once(GOOD, "output/python/game.py")  # texts that take turns under one name both stay marked
    compile_once(GOOD + "\n# changed\n", "output/python/game.py")
    assert len(compiled) == 3


def test_only_the_newest_texts_of_a_name_stay_marked(cache: Path, compiled: list[str]) -> None:
    for version in range(codegen.COMPILED_CACHE_KEEP + 3):
        compile_once(GOOD + f"# version {version}\n", "game.py")
    compile_once(GOOD, "other.py")
    assert len(list(cache.glob("compiled-*/*"))) == codegen.COMPILED_CACHE_KEEP + 1


def test_a_text_that_does_not_compile_fails_every_time(cache: Path, compiled: list[str]) -> None:
    compile_once(GOOD, "game.py")
    for _ in range(2):
        with pytest.raises(SyntaxError) as raised:
            compile_once(GOOD + "x = = 1\n", "game.py")
        assert raised.value.lineno == 3
    compile_once(GOOD, "game.py")  # the good text's mark stays
    assert len(compiled) == 3


def test_a_damaged_marker_or_another_python_means_compiling_again(cache: Path, compiled: list[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    compile_once(GOOD, "game.py")
    [marker] = cache.glob("compiled-*/*")
    marker.write_bytes(b"\x00damaged")
    compile_once(GOOD, "game.py")
    assert len(compiled) == 2
    compile_once(GOOD, "game.py")
    assert len(compiled) == 2  # marked again
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    compile_once(GOOD, "game.py")
    assert len(compiled) == 3
    assert len(list(cache.glob("compiled-*"))) == 2


def test_no_cache_folder_only_means_compiling(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             compiled: list[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # cannot hold a folder: nothing is written
    for _ in range(2):
        compile_once(GOOD, "game.py")
        with pytest.raises(SyntaxError):
            compile_once("x = = 1\n", "game.py")
    assert len(compiled) == 4


def test_the_runtimes_names_are_its_sections_own() -> None:
    """runtime_names() reads the runtime module's names instead of parsing its section: the same set."""
    names = runtime_names()
    assert names == runtime_section_names()
    assert {"Result", "random", "Fraction", "MAX_DICE", "_Generic"} <= names


def long_module(functions: int) -> list[str]:
    """A module of `functions` small functions, each four lines and two blank ones after."""
    lines: list[str] = []
    for index in range(functions):
        lines += [f"def roll_{index}(bonus: int) -> int:", "    total = bonus + 1", "    return total", "", ""]
    return lines


def test_a_long_module_is_compiled_in_pieces_of_whole_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces: list[str] = []

    def recording(text: str, filename: str, mode: str) -> Any:
        pieces.append(text)
        return compile(text, filename, mode)
    monkeypatch.setattr(codegen, "compile", recording, raising=False)
    text = "\n".join(long_module(2_000))
    codegen.compile_in_pieces(text, "output/python/long.py")
    assert len(pieces) == 5 and "\n".join(pieces) == text
    assert all(piece.startswith("def roll_") for piece in pieces)


def test_a_syntax_error_in_a_later_piece_is_reported_at_its_line_in_the_module() -> None:
    lines = long_module(2_000)
    lines[7_001] = "    total = bonus +"  # roll_1400's second line
    with pytest.raises(SyntaxError) as error:
        codegen.compile_in_pieces("\n".join(lines), "output/python/long.py")
    assert (error.value.filename, error.value.lineno) == ("output/python/long.py", 7_002)


def test_a_cut_inside_a_string_leaves_the_module_to_compile_whole() -> None:
    """Generated text keeps rule text in repr() strings, on one line; a module whose triple-quoted string
    holds what looks like a top-level definition still compiles, whole."""
    lines = long_module(400)  # 2,000 lines: the next `def` after a blank line is where a piece ends
    lines += ['TEXT = """a rule', "", "def not_code(:", '"""', ""]
    lines += long_module(500)
    assert lines[2_002] == "def not_code(:"
    codegen.compile_in_pieces("\n".join(lines), "output/python/long.py")
