"""Dice: sources of faces, free-roll notation, and exact distributions.

Notation: a sum of terms, each ``NdM`` (``N`` defaults to 1, ``d%`` is
``d100``), optionally keeping the highest or lowest few (``3d10kh2``,
``4d6kl3``), or a whole number. ``2d6+1d4-1`` is three terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache
from typing import Protocol

import msgspec

from .errors import NotationError, RuleError
from .inputs import is_whole_in

MAX_DICE = 100
MAX_SIDES = 1000


class Dice(Protocol):
    """Where faces come from: a random source, or physical dice typed in."""

    source: str

    def roll(self, sides: int, count: int = 1) -> list[int]:
        """``count`` faces of a die with ``sides`` sides, 1..sides each."""
        ...


class TypedDice:
    """Faces rolled on the table and typed in, used in order.

    Too few faces, a face the die does not have, or faces left over are
    errors that name the face and what would be valid.
    """

    source = "typed"

    def __init__(self, faces: Iterable[int], tally: list[tuple[int, int]] | None = None) -> None:
        self.faces = list(faces)
        self.used = 0
        #: where each face used is told, with its die's sides (a record's typed dice)
        self.tally = tally

    def roll(self, sides: int, count: int = 1) -> list[int]:
        out = []
        for _ in range(count):
            if self.used >= len(self.faces):
                raise RuleError(
                    f"faces: {len(self.faces)} given, more are needed (next is a d{sides})"
                )
            face = self.faces[self.used]
            if not is_whole_in(face, 1, sides):
                raise RuleError(f"faces: {face!r} is not a face of a d{sides} (1..{sides})")
            self.used += 1
            out.append(face)
            if self.tally is not None:
                self.tally.append((sides, face))
        return out

    def release(self) -> None:
        """Count every typed face as used: the command read them itself, or needed none
        (a helper who refuses rolls nothing)."""
        self.used = len(self.faces)

    def finish(self) -> None:
        """Refuse faces that were typed in but not needed."""
        if self.used < len(self.faces):
            raise RuleError(f"faces: {len(self.faces)} given but the roll uses {self.used}")


def roll_for(dice: Dice, what: str, sides: int, count: int = 1) -> list[int]:
    """``count`` faces of a d``sides`` for ``what`` (the dodge, the damage): when typed
    faces run out, the refusal says which roll is due, so the GM knows what to roll next."""
    if isinstance(dice, TypedDice) and dice.used + count > len(dice.faces):
        raise RuleError(
            f"faces: {len(dice.faces)} given, more are needed: {what} rolls "
            f"{f'{count}d' if count > 1 else 'a d'}{sides} next"
        )
    return dice.roll(sides, count)


class DiceTerm(msgspec.Struct, frozen=True):
    count: int
    sides: int
    keep: str = ""  # "", "kh" or "kl"
    keep_n: int = 0
    sign: int = 1

    def __str__(self) -> str:
        keep = f"{self.keep}{self.keep_n}" if self.keep else ""
        return f"{self.count}d{self.sides}{keep}"


class ConstTerm(msgspec.Struct, frozen=True):
    value: int
    sign: int = 1

    def __str__(self) -> str:
        return str(self.value)


Term = DiceTerm | ConstTerm


class Expression(msgspec.Struct, frozen=True):
    text: str
    terms: tuple[Term, ...]

    def __str__(self) -> str:
        out = ""
        for i, term in enumerate(self.terms):
            if term.sign < 0:
                out += "-"
            elif i:
                out += "+"
            out += str(term)
        return out


class RolledTerm(msgspec.Struct, frozen=True):
    term: Term
    faces: tuple[int, ...]
    kept: tuple[bool, ...]

    @property
    def value(self) -> int:
        if isinstance(self.term, ConstTerm):
            return self.term.sign * self.term.value
        return self.term.sign * sum(f for f, k in zip(self.faces, self.kept, strict=True) if k)


class Roll(msgspec.Struct, frozen=True):
    """A rolled expression: every die kept in the result, dropped ones marked."""

    expression: Expression
    terms: tuple[RolledTerm, ...]

    @property
    def total(self) -> int:
        return sum(t.value for t in self.terms)

    @property
    def faces(self) -> list[int]:
        return [f for t in self.terms for f in t.faces]

    @property
    def kept(self) -> list[bool]:
        return [k for t in self.terms for k in t.kept]

    def describe(self) -> str:
        parts = (("-" if t.term.sign < 0 else "+") + _shown(t) for t in self.terms)
        text = "".join(parts).lstrip("+")
        return f"{text} = {self.total}"


def _shown(t: RolledTerm) -> str:
    """A rolled term as ``Roll.describe`` shows it: a number, or its faces in brackets with
    the dropped ones struck through (``[6,~2~]``)."""
    if isinstance(t.term, ConstTerm):
        return str(t.term.value)
    faces = ",".join(str(f) if k else f"~{f}~" for f, k in zip(t.faces, t.kept, strict=True))
    return f"[{faces}]"


class _Notation:
    """A cursor over dice notation with its spaces taken out; errors point into the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.s = text.replace(" ", "").lower()
        # positions in the stripped string map back to the original for the pointer
        self.positions = [i for i, ch in enumerate(text) if ch != " "]
        self.pos = 0

    def fail(self, at: int, reason: str) -> NotationError:
        where = self.positions[at] if at < len(self.positions) else len(self.text)
        return NotationError(self.text, where, reason)

    def at(self, chars: str) -> bool:
        """Whether the next character is one of ``chars``."""
        return self.pos < len(self.s) and self.s[self.pos] in chars

    def sign(self) -> int:
        """A term's sign: -1 for a ``-`` read, 1 for a ``+`` or none."""
        if not self.at("+-"):
            return 1
        self.pos += 1
        return -1 if self.s[self.pos - 1] == "-" else 1

    def number(self) -> int | None:
        start = self.pos
        while self.pos < len(self.s) and "0" <= self.s[self.pos] <= "9":
            self.pos += 1
        if self.pos == start:
            return None
        if self.pos - start > 6:
            raise self.fail(start, "number too large")
        return int(self.s[start : self.pos])

    def term(self, sign: int) -> Term:
        """One term: ``3d6``, ``d%``, ``4d6kh3`` or a number."""
        start = self.pos
        n = self.number()
        if not self.at("d"):
            if n is None:
                raise self.fail(self.pos, "expected a number or dice like 2d6")
            return ConstTerm(n, sign)
        self.pos += 1
        count = 1 if n is None else n
        at = self.pos
        sides = self.sides()
        if not 1 <= count <= MAX_DICE:
            raise self.fail(start, f"{count} dice is out of range (1..{MAX_DICE})")
        if not 2 <= sides <= MAX_SIDES:
            raise self.fail(at, f"{sides} sides is out of range (2..{MAX_SIDES})")
        keep, keep_n = self.keep(count)
        return DiceTerm(count, sides, keep, keep_n, sign)

    def sides(self) -> int:
        if self.at("%"):
            self.pos += 1
            return 100
        sides = self.number()
        if sides is None:
            raise self.fail(self.pos, "expected the number of sides after 'd'")
        return sides

    def keep(self, count: int) -> tuple[str, int]:
        """``kh3`` or ``kl1`` after the dice: which to keep and how many; none when absent."""
        if not self.s.startswith(("kh", "kl"), self.pos):
            if self.at("k"):
                raise self.fail(self.pos, "keep must be 'kh' (highest) or 'kl' (lowest)")
            return "", 0
        keep = self.s[self.pos : self.pos + 2]
        self.pos += 2
        k = self.number()
        if k is None:
            raise self.fail(self.pos, f"expected how many dice to keep after '{keep}'")
        if not 1 <= k <= count:
            raise self.fail(self.pos - 1, f"keep {k} is out of range (1..{count})")
        return keep, k


def parse(text: str) -> Expression:
    """Parse dice notation; a bad character raises ``NotationError`` pointing at it."""
    notation = _Notation(text)
    if not notation.s:
        raise NotationError(text, 0, "empty notation (try 2d10 or 3d6+2)")
    terms: list[Term] = []
    while True:
        terms.append(notation.term(notation.sign()))
        if notation.pos == len(notation.s):
            break
        if not notation.at("+-"):
            raise notation.fail(notation.pos, f"unexpected {notation.s[notation.pos]!r}")
        if notation.pos + 1 == len(notation.s):
            raise notation.fail(notation.pos + 1, "expected a term after the sign")
    if not any(isinstance(t, DiceTerm) for t in terms):
        raise NotationError(text, 0, "no dice in the notation")
    return Expression(text.strip(), tuple(terms))


def _kept_flags(faces: Sequence[int], keep: str, n: int) -> tuple[bool, ...]:
    if not keep:
        return (True,) * len(faces)
    order = sorted(range(len(faces)), key=lambda i: faces[i], reverse=(keep == "kh"))
    chosen = set(order[:n])
    return tuple(i in chosen for i in range(len(faces)))


def roll(expr: Expression, dice: Dice) -> Roll:
    """Roll an expression with faces from ``dice``."""
    rolled = []
    for term in expr.terms:
        if isinstance(term, ConstTerm):
            rolled.append(RolledTerm(term, (), ()))
            continue
        faces = tuple(dice.roll(term.sides, term.count))
        rolled.append(RolledTerm(term, faces, _kept_flags(faces, term.keep, term.keep_n)))
    return Roll(expr, tuple(rolled))


def dice_count(expr: Expression) -> int:
    return sum(t.count for t in expr.terms if isinstance(t, DiceTerm))


# -- exact distributions ----------------------------------------------------

Dist = dict[int, int]  # total -> number of equally likely outcomes


def convolve(a: Dist, b: Dist) -> Dist:
    out: Dist = {}
    for x, wx in a.items():
        for y, wy in b.items():
            out[x + y] = out.get(x + y, 0) + wx * wy
    return out


@cache
def _die(sides: int) -> tuple[tuple[int, int], ...]:
    return tuple((f, 1) for f in range(1, sides + 1))


@cache
def _sum_dist(count: int, sides: int) -> tuple[tuple[int, int], ...]:
    dist: Dist = {0: 1}
    one = dict(_die(sides))
    for _ in range(count):
        dist = convolve(dist, one)
    return tuple(sorted(dist.items()))


@cache
def _keep_dist(count: int, sides: int, keep: str, n: int) -> tuple[tuple[int, int], ...]:
    # State: the sorted tuple of the n best faces so far, with its weight.
    states: dict[tuple[int, ...], int] = {(): 1}
    high = keep == "kh"
    for _ in range(count):
        nxt: dict[tuple[int, ...], int] = {}
        for kept, w in states.items():
            for f in range(1, sides + 1):
                cand = sorted((*kept, f), reverse=high)[:n]
                key = tuple(cand)
                nxt[key] = nxt.get(key, 0) + w
        states = nxt
    dist: Dist = {}
    for kept, w in states.items():
        dist[sum(kept)] = dist.get(sum(kept), 0) + w
    return tuple(sorted(dist.items()))


MAX_KEEP_STATES = 2_000_000


def term_distribution(term: Term) -> Dist:
    if isinstance(term, ConstTerm):
        return {term.sign * term.value: 1}
    if term.keep and term.keep_n < term.count:
        from math import comb

        if comb(term.sides + term.keep_n - 1, term.keep_n) * term.sides > MAX_KEEP_STATES:
            raise RuleError(f"dice {term}: too many kept dice to enumerate exactly")
        base = dict(_keep_dist(term.count, term.sides, term.keep, term.keep_n))
    else:
        base = dict(_sum_dist(term.count, term.sides))
    if term.sign < 0:
        return {-k: v for k, v in base.items()}
    return base


def distribution(expr: Expression) -> Dist:
    """Exact distribution of an expression's total, as integer weights."""
    dist: Dist = {0: 1}
    for term in expr.terms:
        dist = convolve(dist, term_distribution(term))
    return dict(sorted(dist.items()))


def chance_at_least(dist: Dist, target: int) -> Fraction:
    total = sum(dist.values())
    return Fraction(sum(v for k, v in dist.items() if k >= target), total)


def mean(dist: Dist) -> Fraction:
    total = sum(dist.values())
    return Fraction(sum(k * v for k, v in dist.items()), total)
