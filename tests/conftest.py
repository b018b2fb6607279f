"""Shared fixtures: compiled rulesets as modules, loaded the way a user imports them."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest

from rulecraft.api import load
from rulecraft.backends.python import generate

ROOT = Path(__file__).resolve().parent.parent


def compile_module(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def import_path(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def tog_loaded():  # type: ignore[no-untyped-def]
    return load(str(ROOT / "rulesets" / "tides_of_gold.rules"))


@pytest.fixture(scope="session")
def tog(tog_loaded):  # type: ignore[no-untyped-def]
    return compile_module(generate(tog_loaded.checked), "generated_tides_of_gold")


# ---------------------------------------------------------------- sheets, rendered from the templates of the checkout

RULESET_IDS = tuple(sorted(p.stem for p in (ROOT / "rulesets").glob("*.rules")))
# what the sheet and PDF tests read
SHEET_KINDS = (("player", "a4"), ("proof", "a4"), ("core", "a4"), ("core", "letter"))


@pytest.fixture(scope="session")
def sheet_html() -> dict[tuple[str, str, str], str]:
    """(ruleset id, sheet, page) -> the sheet's HTML, for every ruleset and every kind in SHEET_KINDS."""
    from rulecraft.backends.render import export_data, to_html

    sheets: dict[tuple[str, str, str], str] = {}
    for rid in RULESET_IDS:
        data = export_data(load(rid).checked)
        for sheet, page in SHEET_KINDS:
            sheets[rid, sheet, page] = to_html(data, page=page, sheet=sheet)
    return sheets
