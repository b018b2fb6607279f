"""walk() reads only the fields a node class declares (`CHILDREN`); every node of every
expression of the rulesets and the dice-forms fixture is still found, in the same order as a walk
that looks at every field of every node."""

from __future__ import annotations

from dataclasses import fields
from typing import get_args

import pytest

from rulecraft import model as m
from rulecraft.api import load
from rulecraft.semantics.evaluate import walk

from .conftest import ROOT, RULESET_IDS

EXPR_TYPES: tuple[type, ...] = get_args(m.Expr)


def every_field_walk(expr: m.Expr) -> list[m.Expr]:
    """Outermost first, left to right, looking into every field that holds an expression or a tuple of them."""
    out = [expr]
    for item in fields(expr):  # type: ignore[arg-type]
        value = getattr(expr, item.name)
        if isinstance(value, EXPR_TYPES):
            out += every_field_walk(value)  # type: ignore[arg-type]
        elif isinstance(value, tuple) and value and all(isinstance(v, EXPR_TYPES) for v in value):
            for inner in value:
                out += every_field_walk(inner)
    return out


@pytest.mark.parametrize("source", [*RULESET_IDS, str(ROOT / "tests" / "fixtures" / "dice_forms.rules")])
def test_walk_finds_every_node_in_order(source: str) -> None:
    checked = load(source).checked
    expressions = [e for d in checked.definitions if isinstance(d, m.Resolver) for e in d.expressions()]
    kinds: set[type] = set()
    for expr in expressions:
        found = walk(expr)
        assert [id(n) for n in found] == [id(n) for n in every_field_walk(expr)]
        kinds.update(type(n) for n in found)
    assert len(expressions) > 20 and len(kinds) >= 6
