"""Compiled templates are kept in the user's cache: the next run loads them instead of compiling,
and nothing in the cache can change or break a sheet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest

from compiler import render
from compiler.api import load
from compiler.render import export_data, to_html
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return export_data(load("everrain").checked)


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A cache folder of this test's own, and an environment made afresh (as in a new process)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    render.environment.cache_clear()
    yield tmp_path / "cache" / "rulecraft"
    render.environment.cache_clear()


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every template Jinja compiles from its text."""
    names: list[str] = []
    original = jinja2.Environment.compile

    def compile(self: jinja2.Environment, source: Any, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        names.append(str(name))
        return original(self, source, name, *args, **kwargs)
    monkeypatch.setattr(jinja2.Environment, "compile", compile)
    return names


def new_process() -> None:
    render.environment.cache_clear()


def test_templates_are_compiled_once_then_loaded_from_the_cache(data: dict[str, Any], cache: Path,
                                                                compiled: list[str]) -> None:
    first = to_html(data)
    assert {"sheet.html.j2", "definition.html.j2", "pictures.html.j2"} <= set(compiled)
    assert len(list(cache.glob("templates-*/*.cache"))) >= 3
    compiled.clear()
    new_process()
    assert to_html(data) == first
    assert compiled == []


def test_an_edited_template_is_compiled_again(data: dict[str, Any], cache: Path, tmp_path: Path) -> None:
    theme = tmp_path / "theme"
    theme.mkdir()
    original = (ROOT / "templates" / "sheet.html.j2").read_text(encoding="utf-8")
    assert "<body" in original
    (theme / "sheet.html.j2").write_text(original.replace("<body", "<!-- first -->\n<body", 1), encoding="utf-8")
    assert "<!-- first -->" in to_html(data, theme)
    new_process()
    (theme / "sheet.html.j2").write_text(original.replace("<body", "<!-- second -->\n<body", 1), encoding="utf-8")
    html = to_html(data, theme)
    assert "<!-- second -->" in html and "<!-- first -->" not in html


def test_a_damaged_cache_is_compiled_again(data: dict[str, Any], cache: Path, compiled: list[str]) -> None:
    first = to_html(data)
    files = list(cache.glob("templates-*/*.cache"))
    for damage in (b"", b"garbage", files[0].read_bytes()[:40] + b"\x00" * 100):
        for file in files:
            file.write_bytes(damage)
        new_process()
        compiled.clear()
        assert to_html(data) == first
        assert "sheet.html.j2" in compiled


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_time(data: dict[str, Any], cache: Path) -> None:
    first = to_html(data)
    new_process()
    for folder in cache.glob("templates-*"):
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
    cache.rmdir()
    cache.write_text("a file where the folder would go", encoding="utf-8")
    assert to_html(data) == first
