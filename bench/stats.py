"""Pearson's chi-square test of counts against exact probabilities (standard library only).

The bench uses it to check that a hand-written twin rolls the same distribution as the generated
resolver's exact `odds()`: the twin draws its dice its own way, so its results cannot be compared
call by call, only by counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

MIN_EXPECTED = 5.0  # outcomes expected fewer times than this are pooled into one cell (the usual rule)


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    dof: int
    p: float  # the chance of a statistic at least this large if the counts follow the probabilities
    impossible: tuple[str, ...] = ()  # outcomes counted that have probability 0 (p is then 0)


def upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below a + 1, a continued fraction above (Numerical Recipes' gammq)."""
    if a <= 0:
        raise ValueError(f"a must be positive, not {a}")
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for X chi-square distributed with `dof` degrees of freedom."""
    if dof <= 0:
        return 1.0
    return upper_gamma_regularized(dof / 2, statistic / 2)


def chi_square(counts: Mapping[str, int], probabilities: Mapping[str, Fraction]) -> ChiSquare:
    """Counts of outcomes against their exact probabilities (which sum to 1)."""
    n = sum(counts.values())
    impossible = tuple(sorted(k for k, c in counts.items() if c and not probabilities.get(k)))
    if impossible or n == 0:
        return ChiSquare(math.inf if impossible else 0.0, 0, 0.0 if impossible else 1.0, impossible)
    cells: list[tuple[float, int]] = []  # (expected, observed)
    pooled_expected, pooled_observed = 0.0, 0
    for outcome, p in probabilities.items():
        if not p:
            continue
        expected = float(p) * n
        if expected < MIN_EXPECTED:
            pooled_expected += expected
            pooled_observed += counts.get(outcome, 0)
        else:
            cells.append((expected, counts.get(outcome, 0)))
    if pooled_expected > 0:
        cells.append((pooled_expected, pooled_observed))
    statistic = sum((observed - expected) ** 2 / expected for expected, observed in cells)
    dof = len(cells) - 1
    return ChiSquare(statistic, dof, chi_square_sf(statistic, dof))
