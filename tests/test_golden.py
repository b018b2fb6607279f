"""Same source, same bytes: every committed text output is what the compiler makes now, every time."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate
from rulecraft.backends.render import export_data, to_html, to_json, to_yaml
from tests.conftest import ROOT

RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_building_twice_gives_the_committed_bytes(path: Path) -> None:
    first = load(path.stem).checked
    second = load(path.stem).checked
    module = generate(first)
    assert module == generate(second)
    assert module == (ROOT / "output" / "python" / f"{path.stem}.py").read_text(encoding="utf-8")
    data = export_data(first)
    html = to_html(data)
    assert html == to_html(export_data(second))
    assert html == (ROOT / "output" / "html" / f"{path.stem}.html").read_text(encoding="utf-8")
    assert to_json(data) == (ROOT / "output" / "json" / f"{path.stem}.json").read_text(encoding="utf-8")
    assert to_yaml(data) == (ROOT / "output" / "yaml" / f"{path.stem}.yaml").read_text(encoding="utf-8")


def test_yaml_is_written_by_libyaml_whose_line_breaks_the_committed_files_have() -> None:
    """ruamel.yaml falls back to its pure-Python emitter without ruamel.yaml.clib, and that one wraps
    long text differently: the same source would give other bytes. The dependency is declared; this
    says so plainly if an environment lacks it."""
    from ruamel.yaml import YAML

    assert YAML(typ="safe", pure=False).Emitter.__name__ == "CEmitter"


@pytest.mark.pdf
def test_a_pdf_is_the_same_bytes_when_built_again_later() -> None:
    import time

    from rulecraft.backends.render import to_pdf

    html = to_html(export_data(load(str(ROOT / "tests" / "fixtures" / "dice_forms.rules")).checked))
    first = to_pdf(html)
    time.sleep(1.1)  # embedded fonts are stamped to the second
    assert to_pdf(html) == first


@pytest.mark.pdf
def test_sheets_with_the_same_fonts_share_one_configuration_and_the_pdf_bytes_do_not_change() -> None:
    """to_pdf keeps WeasyPrint's font configuration for the next sheet with the same @font-face rules;
    a sheet rendered after another is the same bytes as that sheet rendered first in a new configuration."""
    import rulecraft.backends.render as render

    html = to_html(export_data(load(str(ROOT / "tests" / "fixtures" / "dice_forms.rules")).checked))
    other = to_html(export_data(load(str(ROOT / "tests" / "fixtures" / "injection.rules")).checked))
    render.forget_font_configs()
    alone = render.to_pdf(html)  # a new configuration, the sheet's faces loaded for it
    render.forget_font_configs()
    render.to_pdf(other)
    assert render.font_config(html) is render.font_config(other)  # same faces: one configuration
    assert render.to_pdf(html) == alone
    assert render.font_config("<p>No fonts</p>") is not render.font_config(html)


def test_a_forked_worker_does_not_drop_the_font_configurations_it_inherited() -> None:
    """Dropping a configuration removes its folder of decoded fonts; one a worker inherited from the process
    that forked it is that process's, still in use, and a worker's clear-out leaves it alone."""
    import os

    import rulecraft.backends.render as render

    inherited = render.font_config("<p>No fonts</p>")
    render._font_configs["inherited"] = (os.getppid(), inherited)  # as a forked worker finds it
    try:
        render.forget_font_configs()
        assert list(render._font_configs) == ["inherited"]
    finally:
        render._font_configs.clear()
