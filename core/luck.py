"""How lucky a run of checks was, from each check's exact chance.

The number of successes in checks with chances p1..pn follows the
Poisson-binomial distribution. It is built by convolution: checks that share
a chance form one binomial (computed term by term from the log-gamma
function, so a thousand checks do not overflow), and the binomials are
convolved. Terms below 1e-16 are dropped: that is below the rounding of a sum
that reaches 1, all of them together cannot change a percentage, and the
distributions of a long session's checks keep about 40% fewer terms than at
1e-40 (their convolutions cost about a third as much). A count whose terms were all dropped
is still possible: its tail reads as below 0.1%, never as 0%.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

Chance = Fraction | float

#: terms of a distribution smaller than this are dropped
NEGLIGIBLE = 1e-16

#: distinct runs of chances whose distributions are kept for the next to ask
CACHED = 4096


@dataclass(frozen=True, slots=True)
class Distribution:
    """Probabilities of ``offset``, ``offset + 1``, ... successes; the counts from ``least``
    to ``most`` are the possible ones, those outside the kept terms less likely than
    ``NEGLIGIBLE`` each."""

    offset: int
    weights: tuple[float, ...]
    least: int
    most: int

    def at_least(self, k: int) -> float:
        """P(successes >= k): never 0 or 1 where the count is possible but not sure (a
        report reads "<0.1%" or ">99.9%" there, not "0%" or "100%"); ``NEGLIGIBLE`` where
        only dropped terms count."""
        if k > self.most:
            return 0.0
        if k <= self.least:
            return 1.0
        start = k - self.offset
        if start >= len(self.weights):
            return NEGLIGIBLE
        if start <= 0:
            return 1.0 - NEGLIGIBLE
        return min(1.0 - NEGLIGIBLE, math.fsum(self.weights[start:]))

    def at_most(self, k: int) -> float:
        """P(successes <= k), as ``at_least`` reads the dropped terms."""
        if k < self.least:
            return 0.0
        if k >= self.most:
            return 1.0
        end = k - self.offset + 1
        if end <= 0:
            return NEGLIGIBLE
        if end >= len(self.weights):
            return 1.0 - NEGLIGIBLE
        return min(1.0 - NEGLIGIBLE, math.fsum(self.weights[:end]))


def _binomial(n: int, p: float) -> Distribution:
    if p <= 0.0:
        return Distribution(0, (1.0,), 0, 0)
    if p >= 1.0:
        return Distribution(n, (1.0,), n, n)
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)

    def term(j: int) -> float:
        return math.exp(
            base - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_p + (n - j) * log_q
        )

    # the terms fall away on both sides of the likeliest count: only those that are not
    # negligible are worked out, walking out from it (the same terms a trim of all would keep)
    top = min(n, int((n + 1) * p))
    lo, hi = _last_kept(term, top, -1, 0), _last_kept(term, top, 1, n)
    return Distribution(lo, tuple(map(term, range(lo, hi + 1))), 0, n)


def _last_kept(term: Callable[[int], float], j: int, step: int, end: int) -> int:
    """The last count from ``j`` towards ``end`` (by ``step``) before the terms grow
    negligible."""
    while j != end and term(j + step) >= NEGLIGIBLE:
        j += step
    return j


def _trimmed(offset: int, terms: list[float], least: int, most: int) -> Distribution:
    lo, hi = 0, len(terms)
    while lo < hi - 1 and terms[lo] < NEGLIGIBLE:
        lo += 1
    while hi - 1 > lo and terms[hi - 1] < NEGLIGIBLE:
        hi -= 1
    return Distribution(offset + lo, tuple(terms[lo:hi]), least, most)


def _convolve(a: Distribution, b: Distribution) -> Distribution:
    if len(b.weights) == 1 and b.weights[0] == 1.0:  # a sure count: a shift alone
        return Distribution(a.offset + b.offset, a.weights, a.least + b.least, a.most + b.most)
    # each term is one sum of products over two slices, so the inner loop runs
    # in C: a long session's luck report convolves thousands of terms
    ar, bw = a.weights[::-1], b.weights
    la, lb = len(ar), len(bw)
    out = []
    for k in range(la + lb - 1):
        lo, hi = max(0, k - la + 1), min(k, lb - 1)
        out.append(sum(map(operator.mul, ar[la - 1 - k + lo : la - k + hi], bw[lo : hi + 1])))
    return _trimmed(a.offset + b.offset, out, a.least + b.least, a.most + b.most)


def successes(chances: Iterable[Chance]) -> Distribution:
    """The exact distribution of the number of successes of independent checks."""
    return _successes(_counted(chances))


def _counted(chances: Iterable[Chance]) -> tuple[tuple[float, int], ...]:
    """Checks as their distinct chances and how many share each, lowest chance first."""
    return tuple(sorted(Counter(map(float, chances)).items()))


@lru_cache(maxsize=CACHED)
def _successes(counted: tuple[tuple[float, int], ...]) -> Distribution:
    # a long session's characters (each fight's enemies) share a few runs of chances
    dist = Distribution(0, (1.0,), 0, 0)
    for p, n in counted:
        dist = _convolve(dist, _binomial(n, p))
    return dist


@dataclass(frozen=True, slots=True)
class Luck:
    """A run of checks set against its odds."""

    checks: int
    expected: float
    actual: int
    #: the probability of at least ``actual`` successes
    at_least: float
    #: the probability of at most ``actual`` successes
    at_most: float = 1.0

    @property
    def unlucky(self) -> bool:
        """Fewer successes than expected: the tail to ask about is "as few or fewer"."""
        return self.actual < self.expected

    @property
    def tail(self) -> str:
        """Which tail ``chance`` is: "at least as many" or, for bad luck, "at most as many"."""
        return "at most as many" if self.unlucky else "at least as many"

    @property
    def chance(self) -> float:
        """The probability of a result this far from expected, in the direction of the luck."""
        return self.at_most if self.unlucky else self.at_least

    @property
    def percent(self) -> str:
        """``chance`` as a percentage to read ("12.3%", "<0.1%")."""
        return percent(self.chance)


def luck(chances: Sequence[Chance], actual: int) -> Luck:
    """Expected vs actual successes, and how likely a result this far from expected was
    (at least as many successes, or for bad luck at most as many)."""
    return luck_of(Counter(map(float, chances)), actual)


def luck_of(chances: Mapping[float, int], actual: int) -> Luck:
    """``luck`` of checks given as each distinct chance and how many checks had it."""
    return _luck(tuple(sorted(chances.items())), actual)


@lru_cache(maxsize=CACHED)
def _luck(counted: tuple[tuple[float, int], ...], actual: int) -> Luck:
    expected = math.fsum(itertools.chain.from_iterable(itertools.repeat(p, n) for p, n in counted))
    dist = _successes(counted)
    checks = sum(n for _, n in counted)
    return Luck(checks, expected, actual, dist.at_least(actual), dist.at_most(actual))


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


# -- fairness of dice -------------------------------------------------------------

#: at most this many rolls of a die are tested exactly (the multinomial test over every
#: outcome); more are tested with the chi-square distribution, which is close by then
EXACT_ROLLS = 25


@dataclass(frozen=True, slots=True)
class Fit:
    """How well one die's faces fit a fair die: Pearson's chi-square statistic and the
    probability that a fair die gives a fit at least this bad (``p``); ``exact`` when
    that probability was summed over every outcome rather than taken from the
    chi-square distribution."""

    rolls: int
    statistic: float
    p: float
    exact: bool

    @property
    def percent(self) -> str:
        return percent(self.p)


def fit(counts: Sequence[int]) -> Fit:
    """The goodness of fit of a die's face counts (``counts[i]``: how often face i+1
    came up) to a fair die."""
    n, k = sum(counts), len(counts)
    if n == 0 or k < 2:
        return Fit(n, 0.0, 1.0, True)
    expected = n / k
    statistic = math.fsum((c - expected) ** 2 for c in counts) / expected
    if n <= EXACT_ROLLS:
        return Fit(n, statistic, _exact(counts), True)
    return Fit(n, statistic, chi_square_tail(statistic, k - 1), False)


def _exact(counts: Sequence[int]) -> float:
    """The exact multinomial test of a fair die: the chance of every outcome no likelier
    than the one seen. Outcomes are walked as partitions of the rolls among the faces
    (each stands for all its arrangements), since a fair die's likelihood depends only
    on how many faces came up how often."""
    n, k = sum(counts), len(counts)

    def log_p(parts: Iterable[int]) -> float:
        """Log-probability of one outcome with these counts."""
        return math.lgamma(n + 1) - n * math.log(k) - math.fsum(math.lgamma(x + 1) for x in parts)

    seen = log_p(counts) + 1e-9
    total = 0.0
    for parts in _partitions(n, k, n):
        here = log_p(parts)
        if here <= seen:
            # its arrangements among the faces: k! / (zeros! * each repeated count's m!)
            repeats = [*Counter(parts).values(), k - len(parts)]
            ways = math.lgamma(k + 1) - math.fsum(math.lgamma(m + 1) for m in repeats)
            total += math.exp(ways + here)
    return min(1.0, total)


def _partitions(n: int, parts: int, largest: int) -> Iterable[list[int]]:
    """The partitions of ``n`` into at most ``parts`` parts none above ``largest``."""
    if n == 0:
        yield []
        return
    if parts == 0:
        return
    for first in range(min(n, largest), 0, -1):
        if first * parts < n:
            break
        for rest in _partitions(n - first, parts - 1, first):
            yield [first, *rest]


def chi_square_tail(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the regularized upper
    incomplete gamma function Q(df/2, x/2), by its series below s+1 and its continued
    fraction above (both converge fast there)."""
    if x <= 0:
        return 1.0
    s, z = df / 2, x / 2
    if z < s + 1:
        term = total = 1.0 / s
        a = s
        for _ in range(10_000):
            a += 1
            term *= z / a
            total += term
            if term < total * 1e-15:
                break
        lower = total * math.exp(-z + s * math.log(z) - math.lgamma(s))
        return max(0.0, 1.0 - lower)
    tiny = 1e-300
    b = z + 1 - s
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - s)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-z + s * math.log(z) - math.lgamma(s)) * h)
