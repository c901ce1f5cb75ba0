"""Every dice system has the shape of one: each of its modules gives the hooks its Protocol
(``core/systems/shape.py``) names, and a hook misspelt or left out stops margin at load.

``SHIPPED`` is read by mypy too (``.ci/typecheck``): each module stands where its
Protocol is expected, so a hook of the wrong type fails the type check.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

import pytest

from margin.core import SYSTEMS, systems
from margin.core.systems import chance, edge, effect, shape, under
from margin.core.systems.chance import commands as chance_commands
from margin.core.systems.chance import decide as chance_decide
from margin.core.systems.chance import fold as chance_fold
from margin.core.systems.chance import present as chance_present
from margin.core.systems.chance import recap as chance_recap
from margin.core.systems.chance import resolve as chance_resolve
from margin.core.systems.chance import state as chance_state
from margin.core.systems.chance import words as chance_words
from margin.core.systems.edge import commands as edge_commands
from margin.core.systems.edge import decide as edge_decide
from margin.core.systems.edge import fold as edge_fold
from margin.core.systems.edge import present as edge_present
from margin.core.systems.edge import recap as edge_recap
from margin.core.systems.edge import resolve as edge_resolve
from margin.core.systems.edge import state as edge_state
from margin.core.systems.edge import words as edge_words
from margin.core.systems.effect import commands as effect_commands
from margin.core.systems.effect import decide as effect_decide
from margin.core.systems.effect import fold as effect_fold
from margin.core.systems.effect import present as effect_present
from margin.core.systems.effect import recap as effect_recap
from margin.core.systems.effect import resolve as effect_resolve
from margin.core.systems.effect import state as effect_state
from margin.core.systems.effect import words as effect_words
from margin.core.systems.under import commands as under_commands
from margin.core.systems.under import decide as under_decide
from margin.core.systems.under import fold as under_fold
from margin.core.systems.under import present as under_present
from margin.core.systems.under import recap as under_recap
from margin.core.systems.under import resolve as under_resolve
from margin.core.systems.under import state as under_state
from margin.core.systems.under import words as under_words

Shape = tuple[
    shape.Package,
    shape.Commands,
    shape.Decide,
    shape.Fold,
    shape.State,
    shape.Resolve,
    shape.Present,
    shape.Words,
    shape.Recap,
]

#: the modules of each system margin ships, in the order of ``shape.SHAPE``
SHIPPED: dict[str, Shape] = {
    "d100-chance": (
        chance,
        chance_commands,
        chance_decide,
        chance_fold,
        chance_state,
        chance_resolve,
        chance_present,
        chance_words,
        chance_recap,
    ),
    "2d10-edge": (
        edge,
        edge_commands,
        edge_decide,
        edge_fold,
        edge_state,
        edge_resolve,
        edge_present,
        edge_words,
        edge_recap,
    ),
    "2d6-effect": (
        effect,
        effect_commands,
        effect_decide,
        effect_fold,
        effect_state,
        effect_resolve,
        effect_present,
        effect_words,
        effect_recap,
    ),
    "d100-under": (
        under,
        under_commands,
        under_decide,
        under_fold,
        under_state,
        under_resolve,
        under_present,
        under_words,
        under_recap,
    ),
}


def test_every_system_gives_every_hook_of_its_modules() -> None:
    assert set(SHIPPED) == set(SYSTEMS)
    for system in SYSTEMS.values():
        for name, typed in zip(shape.SHAPE, SHIPPED[system.id], strict=True):
            module = import_module(f"{system.package}.{name}" if name else system.package)
            assert module is typed
            protocol = shape.SHAPE[name]
            assert set(shape.given(module, protocol, system.id)) == set(shape.hooks(protocol))


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of 2d6-effect as one more system, ``probe``, found beside margin's own."""
    folder = tmp_path / "probe"
    shutil.copytree(
        Path(effect.__file__).parent, folder, ignore=shutil.ignore_patterns("__pycache__")
    )
    edit(folder / "__init__.py", 'id="2d6-effect"', 'id="probe"')
    monkeypatch.setattr(systems, "__path__", [*systems.__path__, str(tmp_path)])
    yield folder
    for name in [m for m in sys.modules if m.startswith("margin.core.systems.probe")]:
        del sys.modules[name]
    vars(systems).pop("probe", None)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_probe_is_found_and_loads(probe: Path) -> None:
    assert "probe" in systems.discover()


#: a probe's file, a change to it, and the one line margin stops with at load
BROKEN = {
    "misspelt": (
        "present.py",
        ("def vocabulary(", "def vocabluary("),
        r"^probe: margin\.core\.systems\.probe\.present gives no vocabulary \(every "
        r"system's present gives describe, status, field_lines, clock, odds, vocabulary\)$",
    ),
    "left out": (
        "__init__.py",
        ("\nmoment = None\n", "\n"),
        r"^probe: margin\.core\.systems\.probe gives no moment \(every system's package "
        r"gives .*; moment = None says the system has none\)$",
    ),
    "none where every system has one": (
        "present.py",
        ("\n\ndef vocabulary(", "\n\nvocabulary = None\n\n\ndef _vocabulary("),
        r"^probe: margin\.core\.systems\.probe\.present\.vocabulary is None: every system "
        r"gives one$",
    ),
    "face misspelt": (
        "__init__.py",
        ("    summary=", "    sumary="),
        r"^probe: sumary is no part of a system's face$",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_hook_misspelt_or_left_out_stops_margin_at_load(probe: Path, case: str) -> None:
    name, (old, new), message = BROKEN[case]
    edit(probe / name, old, new)
    with pytest.raises(shape.ShapeError, match=message):
        systems.discover()
