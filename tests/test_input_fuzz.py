"""Malformed input never reaches an internal error: every line of ``margin do`` and
``margin resolve`` gets one answer, and a table written by fuzzed commands verifies."""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzzing import Fuzzer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import run_margin

from margin.core import SYSTEMS

#: one Fuzzer per test run: it reads every system's schema once
FUZZER = Fuzzer(random.Random(0))


def answered_without_internal_errors(lines: list[bytes], replies: list[str]) -> None:
    assert len(replies) == sum(1 for line in lines if line.strip())
    for line, reply in zip((x for x in lines if x.strip()), replies, strict=True):
        answer = json.loads(reply)
        assert "margin failed" not in answer.get("error", ""), (line[:300], answer)
        assert "\n" not in answer.get("error", "")


def played_on_a_demo(
    demo_copy: Callable[[str, Path], Path], system: str, lines: list[bytes]
) -> None:
    """``margin do`` on a copy of the system's demo answers each line, none with an internal
    error, and the table it leaves verifies."""
    with tempfile.TemporaryDirectory() as tmp:
        path = str(demo_copy(system, Path(tmp) / "t.margin"))
        _, out, err = run_margin("do", path, stdin=b"".join(lines))
        assert err == ""
        answered_without_internal_errors(lines, out.splitlines())
        code, _, err = run_margin("verify", path)
        assert code == 0, err


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**64), st.sampled_from(sorted(SYSTEMS)))
def test_fuzzed_margin_do_lines_get_clear_answers_and_the_table_verifies(
    demo_copy: Callable[[str, Path], Path], seed: int, system: str
) -> None:
    FUZZER.rng = random.Random(seed)
    lines = FUZZER.command_lines(system, 40)
    played_on_a_demo(demo_copy, system, lines)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64))
def test_fuzzed_margin_resolve_lines_get_clear_answers(seed: int) -> None:
    FUZZER.rng = random.Random(seed)
    lines = FUZZER.request_lines(60)
    code, out, err = run_margin("resolve", stdin=b"".join(lines))
    replies = out.splitlines()
    assert err == ""
    answered_without_internal_errors(lines, replies)


#: Any JSON value, with text that may hold lone surrogates and numbers of any size.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(exclude_categories=())),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(SYSTEMS)).flatmap(
        lambda system: st.tuples(
            st.just(system),
            st.lists(
                st.builds(
                    lambda tag, fields: {"type": tag, **fields},
                    st.sampled_from(sorted(FUZZER.commands[system])),
                    st.dictionaries(
                        st.sampled_from(
                            sorted({f for fs in FUZZER.commands[system].values() for f in fs})
                        ),
                        json_values,
                        max_size=4,
                    ),
                ),
                min_size=1,
                max_size=8,
            ),
        )
    )
)
def test_commands_with_any_json_in_any_field_are_answered_clearly(
    demo_copy: Callable[[str, Path], Path], case: tuple[str, list[dict[str, object]]]
) -> None:
    system, commands = case
    lines = [json.dumps(c).encode() + b"\n" for c in commands]
    played_on_a_demo(demo_copy, system, lines)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"type": "note", "text": "\\ud800"}', "surrogate pair"),
        (b'{"type": "note", "text": "a\xffb"}', "Invalid UTF-8"),
        (
            b'{"type": "add-character", "name": "X", "sheet": {"a": '
            + b"[" * 5000
            + b"]" * 5000
            + b"}}",
            "nested more than 32",
        ),
        (
            b'{"type": "add-character", "name": "Y", "sheet": {"a": '
            + b"[" * 100
            + b"]" * 100
            + b"}}",
            "nested more than 32",
        ),
        (
            b'{"type": "roll", "dice": "2d6", "faces": [' + b"9" * 400 + b"]}",
            "$.faces[0]: number too large",
        ),
        (b'{"type": "set-option", "name": "x", "value": NaN}', "not JSON"),
        (
            b'{"type": "roll", "dice": "2d6", "faces": [1e999]}',
            "Number out of range - at `$.faces[0]`",
        ),
        (b'{"type": "note", "text": 5}', "Expected `str`, got `int` - at `$.text`"),
    ],
    ids=["surrogate", "utf8", "deep", "nested", "huge", "nan", "infinite", "type"],
)
def test_each_kind_of_malformed_line_is_named(tmp_path: Path, line: bytes, message: str) -> None:
    path = str(tmp_path / "t.margin")
    assert run_margin("new", path, "--system", "2d10-edge")[0] == 0
    code, out, _ = run_margin("do", path, stdin=line + b'\n{"type": "note", "text": "after"}\n')
    assert code == 1
    first, second = (json.loads(r) for r in out.splitlines())
    assert first["error"].startswith("line 1: "), first
    assert message in first["error"], first
    assert second["ok"] is True  # the line after a bad one still runs
    code, out, _ = run_margin(
        "resolve", stdin=line.replace(b'"type": "note"', b'"system": "x"') + b"\n"
    )
    assert "error" in json.loads(out)
    assert "margin failed" not in out
