"""Contracts the stages rely on: the runtime section's names, visitors that fail loudly, declared children."""

from __future__ import annotations

from rulecraft.backends.python import runtime_section_names
from rulecraft.check.names import runtime_names


def test_the_runtimes_names_are_its_sections_own() -> None:
    """runtime_names() reads the runtime module's names instead of parsing its section: the same set."""
    names = runtime_names()
    assert names == runtime_section_names()
    assert {"Result", "random", "Fraction", "MAX_DICE", "_Generic"} <= names


def test_a_visitor_without_a_rule_for_a_kind_of_node_says_so() -> None:
    """Every visitor (the interpreter, codegen) fails loudly on a kind it has no rule for, never by default."""
    import pytest

    from rulecraft import model as m
    from rulecraft.backends.python import ExprCompiler
    from rulecraft.semantics.evaluate import Closures

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

    from rulecraft import model as m

    for kind in m.Expr.__args__:  # type: ignore[attr-defined]
        typed = {f.name for f in dataclasses.fields(kind) if "Expr" in str(f.type)}
        assert set(kind.CHILDREN) == typed, kind.__name__


def test_the_checker_has_a_lowering_for_every_kind_of_definition() -> None:
    from typing import get_args

    from rulecraft import model as m
    from rulecraft.check.checker import KINDS

    assert set(KINDS) == set(get_args(m.ItemKind))


def test_no_module_of_the_compiler_imports_one_that_imports_it_back() -> None:
    """The stages import one way, down to the model: no cycle among the compiler's modules, counting
    imports inside functions too."""
    import ast

    from .conftest import ROOT

    package = ROOT / "compiler"
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                    base = f"{parent}.{base}" if base else parent
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            found |= {t for t in targets if t in modules and t != name and t != "compiler"}
        graph[name] = found
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for other in graph[name]:
            assert state.get(other) != 1, f"import cycle: {' -> '.join([*trail, name, other])}"
            if other not in state:
                visit(other, [*trail, name])
        state[name] = 2
    for name in graph:
        if name not in state:
            visit(name, [])
    assert len(graph) > 15


def test_names_a_designer_is_likely_to_give_are_free_in_a_generated_module() -> None:
    """The runtime's helpers that only generated code calls have private names, so a roll may be called
    `dice` or `roll_dice` and a track `keep` (class Keep) or `explode`."""
    from rulecraft.check.names import class_name, reserved_name

    assert not any(reserved_name(n) for n in ("dice", "roll_dice", "check_spec", "describe", "sample"))
    assert not any(reserved_name(class_name(n)) for n in ("keep", "explode", "rolling"))


def test_every_attribute_a_resolver_lowers_is_declared_by_a_kind_and_every_kind_names_known_ones() -> None:
    from rulecraft.check.checker import KINDS, RESOLVER_ATTRIBUTES, Checker

    resolver_kinds = [kind for kind in KINDS.values() if kind.lower is Checker.resolver]
    declared = set().union(*(kind.attributes or frozenset() for kind in resolver_kinds))
    assert set(RESOLVER_ATTRIBUTES) <= declared
    assert declared - set(RESOLVER_ATTRIBUTES) == {"steps"}  # a roll's `steps:` is data for the sheet
