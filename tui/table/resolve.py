"""``margin resolve``: JSON Lines in, JSON Lines out, no table touched."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO

from margin.core.errors import RuleError
from margin.core.inputs import read_json
from margin.core.resolve import resolve

from .rng import RandomDice


def run(inp: IO[str], out: IO[str], seed: int | None = None) -> int:
    dice = RandomDice(seed)
    failed = False
    for line in input_lines(inp):
        if not line.strip():
            continue
        try:
            result = resolve(read_json(line), dice)
        except RuleError as exc:
            failed = True
            result = {"error": str(exc)}
        except Exception as exc:  # a bug on one line must not end the filter
            failed = True
            result = {"error": f"margin failed ({type(exc).__name__}: {exc})"}
        out.write(json.dumps(result) + "\n")
        out.flush()
    return 1 if failed else 0


def input_lines(stream: IO[str]) -> Iterator[bytes]:
    """Standard input as raw lines: bytes that are not UTF-8 reach the decoder, which names them."""
    raw = getattr(stream, "buffer", None)
    if raw is not None:
        yield from raw
    else:
        for line in stream:
            yield line.encode("utf-8", "surrogatepass")
