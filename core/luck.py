"""How lucky a run of checks was, from each check's exact chance.

The number of successes in checks with chances p1..pn follows the
Poisson-binomial distribution. It is built by convolution: checks that share
a chance form one binomial (computed term by term from the log-gamma
function, so a thousand checks do not overflow), and the binomials are
convolved. Terms below 1e-40 are dropped; they cannot change a percentage.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

Chance = Fraction | float

#: terms of a distribution smaller than this are dropped
NEGLIGIBLE = 1e-40


@dataclass(frozen=True, slots=True)
class Distribution:
    """Probabilities of ``offset``, ``offset + 1``, ... successes."""

    offset: int
    weights: tuple[float, ...]

    def at_least(self, k: int) -> float:
        """P(successes >= k)."""
        start = max(0, k - self.offset)
        if start >= len(self.weights):
            return 0.0
        if start == 0:
            return 1.0
        return min(1.0, math.fsum(self.weights[start:]))


def _binomial(n: int, p: float) -> Distribution:
    if p <= 0.0:
        return Distribution(0, (1.0,))
    if p >= 1.0:
        return Distribution(n, (1.0,))
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)
    terms = [
        math.exp(base - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_p + (n - j) * log_q)
        for j in range(n + 1)
    ]
    return _trimmed(0, terms)


def _trimmed(offset: int, terms: list[float]) -> Distribution:
    lo, hi = 0, len(terms)
    while lo < hi - 1 and terms[lo] < NEGLIGIBLE:
        lo += 1
    while hi - 1 > lo and terms[hi - 1] < NEGLIGIBLE:
        hi -= 1
    return Distribution(offset + lo, tuple(terms[lo:hi]))


def _convolve(a: Distribution, b: Distribution) -> Distribution:
    # each term is one sum of products over two slices, so the inner loop runs
    # in C: a long session's luck report convolves thousands of terms
    ar, bw = a.weights[::-1], b.weights
    la, lb = len(ar), len(bw)
    out = []
    for k in range(la + lb - 1):
        lo, hi = max(0, k - la + 1), min(k, lb - 1)
        out.append(sum(map(operator.mul, ar[la - 1 - k + lo : la - k + hi], bw[lo : hi + 1])))
    return _trimmed(a.offset + b.offset, out)


def successes(chances: Iterable[Chance]) -> Distribution:
    """The exact distribution of the number of successes of independent checks."""
    dist = Distribution(0, (1.0,))
    for p, n in sorted(Counter(chances).items()):
        dist = _convolve(dist, _binomial(n, float(p)))
    return dist


@dataclass(frozen=True, slots=True)
class Luck:
    """A run of checks set against its odds."""

    checks: int
    expected: float
    actual: int
    #: the probability of at least ``actual`` successes
    at_least: float

    @property
    def percent(self) -> str:
        """``at_least`` as a percentage to read ("12.3%", "<0.1%")."""
        return percent(self.at_least)


def luck(chances: Sequence[Chance], actual: int) -> Luck:
    """Expected vs actual successes and how likely doing at least as well was."""
    expected = math.fsum(float(p) for p in chances)
    return Luck(len(chances), expected, actual, successes(chances).at_least(actual))


def percent(p: float) -> str:
    """A probability as a short percentage: "100%", "12.3%", "<0.1%"."""
    if p >= 1.0:
        return "100%"
    if p <= 0.0:
        return "0%"
    if p < 0.001:
        return "<0.1%"
    if p > 0.999:
        return ">99.9%"
    return f"{p * 100:.1f}%"
