"""The HTML recap of the 2d10-edge demo fight, rendered by a real headless Chromium.

Run as a script to refresh the screenshot in docs/:
``python tests/test_recap_html.py docs/recap.png``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from support import CHROMIUM_FLAGS, chromium, margin_output

from margin.tui.table.demo import build_demo


def render(html_file: Path, screenshot: Path) -> dict[str, object]:
    """Open ``html_file`` in headless Chromium, save a full-page screenshot, report what it saw.

    Every request that is not the page itself is refused and counted: the recap
    must read with no network.
    """
    from playwright.sync_api import sync_playwright

    outside: list[str] = []
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=chromium(),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1000, "height": 800},
        )
        try:
            page = context.new_page()

            def refuse(route, request):
                if request.url != html_file.as_uri():
                    outside.append(request.url)
                    route.abort()
                else:
                    route.continue_()

            page.route("**/*", refuse)
            page.goto(html_file.as_uri())
            page.screenshot(path=str(screenshot), full_page=True)
            seen = {
                "title": page.title(),
                "charts": page.locator("div.chart svg").count(),
                # a drawn chart has bars: rectangles with a real size on screen
                "bars": page.evaluate(
                    "() => [...document.querySelectorAll('div.chart svg rect.rect')]"
                    ".filter(r => r.getBoundingClientRect().height > 1).length"
                ),
                "headings": page.locator("h2").all_inner_texts(),
                "text": page.inner_text("body"),
                "outside": outside,
            }
        finally:
            context.close()
    return seen


def demo_recap(folder: Path) -> Path:
    """The demo fight's HTML recap, written by ``margin recap --format html -o``."""
    table = folder / "demo.margin"
    build_demo(table, "2d10-edge").close()
    out = folder / "recap.html"
    margin_output("recap", str(table), "--format", "html", "-o", str(out))
    return out


def test_html_recap_renders_in_chromium(tmp_path: Path) -> None:
    seen = render(demo_recap(tmp_path), tmp_path / "recap.png")
    assert seen["outside"] == []
    assert seen["title"] == "Recap: 2d10-edge demo (2d10-edge)"
    # damage by round and the timeline for the fight, luck for the party
    assert seen["charts"] == 3
    assert isinstance(seen["bars"], int)
    assert seen["bars"] >= 5
    assert seen["headings"] == [
        "Outside encounters",
        "Ambush at the cliff top",
        "Luck",
        "How it ended",
    ]
    text = str(seen["text"])
    assert "Guard: serious injury (14 points)" in text
    assert "Damage dealt by round" in text
    assert (tmp_path / "recap.png").stat().st_size > 10_000


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/recap.png")
    with tempfile.TemporaryDirectory() as folder:
        render(demo_recap(Path(folder)), target.resolve())
    print(f"wrote {target}")
