"""The runtime section copied into every generated module defines exactly the runtime module's names."""

from __future__ import annotations

from compiler.codegen import runtime_names, runtime_section_names


def test_the_runtimes_names_are_its_sections_own() -> None:
    """runtime_names() reads the runtime module's names instead of parsing its section: the same set."""
    names = runtime_names()
    assert names == runtime_section_names()
    assert {"Result", "random", "Fraction", "MAX_DICE", "_Generic"} <= names
