"""Contracts the stages rely on: the runtime section's names, visitors that fail loudly, declared children."""

from __future__ import annotations

from compiler.codegen import runtime_section_names
from compiler.names import runtime_names


def test_the_runtimes_names_are_its_sections_own() -> None:
    """runtime_names() reads the runtime module's names instead of parsing its section: the same set."""
    names = runtime_names()
    assert names == runtime_section_names()
    assert {"Result", "random", "Fraction", "MAX_DICE", "_Generic"} <= names


def test_a_visitor_without_a_rule_for_a_kind_of_node_says_so() -> None:
    """Every visitor (the interpreter, codegen) fails loudly on a kind it has no rule for, never by default."""
    import pytest

    from compiler import model as m
    from compiler.codegen import ExprCompiler
    from compiler.evaluate import Closures

    class Partial(m.Visitor[str]):
        def visit_Number(self, node: m.Number) -> str:
            return str(node.value)

    assert Partial().visit(m.Number(3)) == "3"
    with pytest.raises(TypeError, match="Partial has no rule for Name nodes"):
        Partial().visit(m.Name("dots"))
    for visitor in (Closures, ExprCompiler):  # the interpreter and codegen have a rule for every kind
        kinds = m.Expr.__args__  # type: ignore[attr-defined]
        assert [k.__name__ for k in kinds if not hasattr(visitor, f"visit_{k.__name__}")] == []


def test_every_kind_of_expression_declares_the_fields_that_hold_expressions() -> None:
    """`CHILDREN` (what walk, rebuild and children read) names exactly the fields typed with `Expr`."""
    import dataclasses

    from compiler import model as m

    for kind in m.Expr.__args__:  # type: ignore[attr-defined]
        typed = {f.name for f in dataclasses.fields(kind) if "Expr" in str(f.type)}
        assert set(kind.CHILDREN) == typed, kind.__name__


def test_the_checker_has_a_lowering_for_every_kind_of_definition() -> None:
    from typing import get_args

    from compiler import model as m
    from compiler.check import KINDS

    assert set(KINDS) == set(get_args(m.ItemKind))
