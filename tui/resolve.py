"""``margin resolve``: JSON Lines in, JSON Lines out, no table touched."""

from __future__ import annotations

import json
from typing import IO

import msgspec

from core.errors import RuleError
from core.resolve import resolve

from .rng import RandomDice


def run(inp: IO[str], out: IO[str], seed: int | None = None) -> int:
    dice = RandomDice(seed)
    failed = False
    for line in inp:
        if not line.strip():
            continue
        try:
            request = msgspec.json.decode(line)
            result = resolve(request, dice)
        except msgspec.DecodeError as exc:
            failed = True
            result = {"error": f"not JSON: {exc}"}
        except RuleError as exc:
            failed = True
            result = {"error": str(exc)}
        except Exception as exc:  # a bug on one line must not end the filter
            failed = True
            result = {"error": f"margin failed ({type(exc).__name__}: {exc})"}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 1 if failed else 0
