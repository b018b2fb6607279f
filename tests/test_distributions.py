"""Every exact distribution of the five rulesets, held against fingerprints taken before the core rebuild.

For each roll, table, lookup and formula, and each combination of its inputs, the odds stage's
outcome probabilities and total probabilities are written as text and hashed, one hash per
definition. A refactor of the core may change how odds are worked out, never what they are:
`python -m tests.test_distributions --update` rewrites the fingerprints, for a change meant to
alter some odds (say which in the commit).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from pathlib import Path

import pytest

from rulecraft import model as m
from rulecraft.api import load
from rulecraft.semantics.odds import MAX_GRID, definition_names, distribution, input_values

ROOT = Path(__file__).resolve().parent.parent
FINGERPRINTS = ROOT / "tests" / "fixtures" / "distributions.json"
RULESETS = tuple(sorted(p.stem for p in (ROOT / "rulesets").glob("*.rules")))


def fingerprint(checked: m.CheckedRuleset, resolver: m.Resolver) -> str:
    """A hash of every input combination's outcome and total probabilities, in grid order."""
    digest = hashlib.sha256()
    names = definition_names(checked)
    names_of = [i.name for i in resolver.inputs]
    grid = itertools.product(*(input_values(i.type) for i in resolver.inputs))
    for combination in itertools.islice(grid, MAX_GRID):  # the first MAX_GRID of a grid too large to check
        inputs = dict(zip(names_of, combination, strict=True))
        found = distribution(resolver, inputs, names)
        outcomes = sorted((key, str(p)) for key, p in found.outcomes.items() if p)
        totals = sorted((str(key), str(p)) for key, p in found.totals.items() if p)
        digest.update(json.dumps([sorted((k, str(v)) for k, v in inputs.items()), outcomes, totals]).encode())
    return digest.hexdigest()


def fingerprints(ruleset: str) -> dict[str, str]:
    checked = load(ruleset).checked
    return {f"{ruleset}/{r.name}": fingerprint(checked, r) for r in checked.resolvers()}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_distribution_is_unchanged(ruleset: str) -> None:
    expected = {k: v for k, v in json.loads(FINGERPRINTS.read_text()).items() if k.startswith(f"{ruleset}/")}
    found = fingerprints(ruleset)
    assert found.keys() == expected.keys()
    changed = sorted(name for name in found if found[name] != expected[name])
    assert not changed, f"exact odds changed: {changed}"


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    everything = {k: v for ruleset in RULESETS for k, v in fingerprints(ruleset).items()}
    FINGERPRINTS.write_text(json.dumps(everything, indent=1, sort_keys=True) + "\n")
    print(f"{len(everything)} fingerprints written to {FINGERPRINTS.relative_to(ROOT)}")
