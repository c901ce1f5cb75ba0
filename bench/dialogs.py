"""Measure how fast the rules dialog (F2) opens and closes beside help (F1) (run by hand).

    python bench/dialogs.py [--runs 5]

For each system's demo table, in one GM screen, the median time from the key
to the end of the refresh that shows the dialog, and from Escape to the end of
the refresh that shows the table again. Help is the baseline measured the same
way in the same run, so a busy machine shows in both columns. Target: the
rules open and close within twice the time help takes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from margin.core import SYSTEMS
from margin.tui.table.demo import build_demo
from margin.tui.table.rng import RandomDice

TARGET = 2.0


async def dialog_times(path: str, runs: int) -> dict[str, tuple[float, float]]:
    """Median open and close seconds of help (F1) and the rules (F2) on the table at ``path``."""
    from textual.app import App

    from margin.tui.screens.app import play_app
    from margin.tui.screens.modals import HelpScreen, RulesScreen

    app = play_app(path)

    async def refreshed(app: App[None]) -> float:
        done = asyncio.get_running_loop().create_future()
        app.call_after_refresh(lambda: done.set_result(time.perf_counter()))
        return await done

    out: dict[str, tuple[float, float]] = {}
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for key, dialog in (("f1", HelpScreen), ("f2", RulesScreen)):
            opened: list[float] = []
            closed: list[float] = []
            for _ in range(runs):
                t0 = time.perf_counter()
                await pilot.press(key)
                assert isinstance(app.screen, dialog)
                await pilot.pause()
                t1 = await refreshed(app)
                opened.append(t1 - t0)
                t1 = time.perf_counter()
                await pilot.press("escape")
                assert not isinstance(app.screen, dialog)
                await pilot.pause()
                closed.append(await refreshed(app) - t1)
            out[key] = statistics.median(opened), statistics.median(closed)
    app.view.table.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'system':<14}{'':<7}{'rules':>9}{'help':>9}{'ratio':>8}  ok")
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for system in SYSTEMS:
            path = Path(tmp) / f"{system}.margin"
            build_demo(path, system, dice=RandomDice(0)).close()
            times = asyncio.run(dialog_times(str(path), args.runs))
            for n, what in enumerate(("open", "close")):
                rules, help_ = times["f2"][n], times["f1"][n]
                ok = rules / help_ <= TARGET
                missed += not ok
                print(
                    f"{system:<14}{what:<7}{rules * 1000:>7.0f}ms{help_ * 1000:>7.0f}ms"
                    f"{rules / help_:>8.1f}  {'yes' if ok else 'NO'}"
                )
    print("every target met" if not missed else f"{missed} targets missed")


if __name__ == "__main__":
    main()
