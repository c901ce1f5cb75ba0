"""The recap as one HTML page with its charts drawn inline as SVG (pygal), readable offline."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from html import escape

import pygal
from pygal.style import Style

from margin.core.recap import Encounter, Recap

from .recap import (
    BAND_HEAD,
    LUCK_HEAD,
    TALLY_HEAD,
    closing_lists,
    encounter_lists,
    ending,
    how_read,
    luck_cells,
    tally_cells,
)

#: the page's colours: a character keeps one in every chart (``palette``)
COLOURS = (
    "#3b6ea5", "#c0504d", "#6a9a3a", "#8064a2", "#d08a2c", "#3a9a9a",
    "#b5527f", "#7a6a3a", "#4f81bd", "#9bbb59", "#f79646", "#7f7f7f",
)  # fmt: skip
STYLE = dict(
    background="#ffffff",
    plot_background="#ffffff",
    foreground="#222222",
    foreground_strong="#111111",
    foreground_subtle="#888888",
    font_family="sans-serif",
    title_font_size=18,
    label_font_size=13,
    legend_font_size=13,
    major_label_font_size=13,
)


def palette(r: Recap) -> dict[str, str]:
    """Each character's colour, the same in every chart of the page: in the order they
    first appear in the recap (a session of more characters than colours repeats them)."""
    names: dict[str, None] = {}
    for enc in r.encounters:
        names.update(dict.fromkeys(t.name for t in enc.tallies.values()))
        for rounds in (enc.damage, enc.activity):
            names.update(dict.fromkeys(who for n in sorted(rounds) for who in rounds[n]))
    names.update(dict.fromkeys(c.name for c in r.luck))
    return {who: COLOURS[i % len(COLOURS)] for i, who in enumerate(names)}


CSS = """
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { text-align: left; } td.text { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.chart { width: 28em; }
.chart svg { width: 100%; height: auto; }
.note { color: #555; }
"""


def _chart(
    kind: type[pygal.graph.graph.Graph],
    title: str,
    colours: tuple[str, ...] = COLOURS,
    **config: object,
) -> pygal.Graph:
    """A chart whose series take ``colours`` in the order they are added."""
    # no scripts fetched from anywhere: the page must read offline
    return kind(
        title=title,
        style=Style(**STYLE, colors=colours),
        js=[],
        disable_xml_declaration=True,
        width=560,
        height=360,
        legend_at_bottom=True,
        **config,
    )


def _svg(chart: pygal.Graph) -> str:
    return f'<div class="chart">{chart.render(is_unicode=True)}</div>'


def damage_chart(enc: Encounter, colours: Mapping[str, str]) -> str:
    """Damage dealt in each round, stacked by who dealt it."""
    return _by_round(pygal.StackedBar, "Damage dealt by round", enc.damage, 0, colours)


def timeline_chart(enc: Encounter, colours: Mapping[str, str]) -> str:
    """Who rolled checks in which round: one row of dots per character."""
    return _by_round(pygal.Dot, "Timeline: checks by round", enc.activity, None, colours)


def _by_round(
    kind: type[pygal.graph.graph.Graph],
    title: str,
    rounds: Mapping[int, Mapping[str, int]],
    absent: int | None,
    colours: Mapping[str, str],
) -> str:
    """A chart with a series per character, in order of first appearance, over the rounds;
    ``absent`` stands where a character has nothing in a round."""
    numbers = sorted(rounds)
    names = list(dict.fromkeys(who for n in numbers for who in rounds[n]))
    chart = _chart(kind, title, _colours_of(names, colours), x_title="round")
    chart.x_labels = [str(n) for n in numbers]
    for who in names:
        chart.add(who, [rounds[n].get(who, absent) for n in numbers])
    return _svg(chart)


def _colours_of(names: list[str], colours: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(colours.get(who, COLOURS[-1]) for who in names)


#: sessions with more encounters than this get one chart over all their
#: encounters instead of charts per encounter (hundreds of charts make a page
#: nobody reads, and take a minute to draw)
CHARTED_ENCOUNTERS = 20


#: the session chart names at most this many dealers, those who dealt the most; the rest
#: stack as one (a long campaign seats fresh enemies for every fight)
SESSION_DEALERS = 8
#: and draws at most this many bars: beyond, each bar sums a run of encounters
SESSION_BARS = 100
#: the stack of every dealer the session chart does not name
OTHERS = "everyone else"
GREY = "#9e9e9e"


def session_chart(r: Recap, colours: Mapping[str, str]) -> str:
    """Damage dealt in each encounter (or each run of encounters, in a session of more than
    ``SESSION_BARS``), stacked by who dealt it: the ``SESSION_DEALERS`` who dealt the most
    by name, everyone else together."""
    fights = [e for e in r.encounters if not e.outside]
    dealt = [{t.name: t.dealt for t in e.tallies.values() if t.dealt} for e in fights]
    named, dealers = _top_dealers(dealt)
    per = -(-len(fights) // SESSION_BARS)  # encounters a bar
    firsts = range(0, len(fights), per)
    bars = [_bar(dealt[first : first + per], named) for first in firsts]
    chart = _chart(
        pygal.StackedBar,
        "Damage dealt by encounter" + (f" ({per} encounters a bar)" if per > 1 else ""),
        _colours_of(dealers, {**colours, OTHERS: GREY}),
        x_title="encounter" if per == 1 else "encounters",
        show_x_labels=len(bars) <= 40,
    )
    last = len(fights)
    chart.x_labels = [
        str(first + 1) if per == 1 else f"{first + 1}-{min(first + per, last)}" for first in firsts
    ]
    for who in dealers:
        chart.add(who, [bar.get(who, 0) for bar in bars])
    return _svg(chart)


def _top_dealers(dealt: list[dict[str, int]]) -> tuple[set[str], list[str]]:
    """Who the session chart names (those who dealt the most), and its stacks in the order
    their dealers first dealt, ``OTHERS`` last when anyone else dealt too."""
    totals: Counter[str] = Counter()
    for d in dealt:
        totals.update(d)
    named = {who for who, _ in totals.most_common(SESSION_DEALERS)}
    stacks = [who for who in totals if who in named]
    return named, stacks + [OTHERS] if len(totals) > len(named) else stacks


def _bar(run: list[dict[str, int]], named: set[str]) -> dict[str, int]:
    """One bar of the session chart: the damage each named dealer dealt in a run of
    encounters, and everyone else's together."""
    bar: Counter[str] = Counter()
    for d in run:
        for who, n in d.items():
            bar[who if who in named else OTHERS] += n
    return bar


#: the luck chart's bars stand for at most this many characters: those with the most
#: checks, when more rolled (the table above it lists every one)
LUCK_CHARTED = 12


def luck_chart(r: Recap) -> str:
    """Expected against actual successes, per character (those with the most checks, in
    a session of more than ``LUCK_CHARTED``), in the order the luck report lists them."""
    title = "Luck: expected and actual successes"
    shown = r.luck
    if len(shown) > LUCK_CHARTED:
        most = {id(c) for c in sorted(shown, key=lambda c: -c.overall.checks)[:LUCK_CHARTED]}
        shown = [c for c in shown if id(c) in most]
        title += f" ({LUCK_CHARTED} of {len(r.luck)} characters: those with the most checks)"
    chart = _chart(pygal.Bar, title)
    chart.x_labels = [c.name for c in shown]
    chart.add("expected", [round(c.overall.expected, 2) for c in shown])
    chart.add("actual", [c.overall.actual for c in shown])
    return _svg(chart)


def _table(head: list[str], rows: list[list[str]]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(map(_cell, row)) + "</tr>" for row in rows]
    return "\n".join(out) + "</table>"


@lru_cache(maxsize=8192)
def _cell(text: str) -> str:
    """A cell, numbers right-aligned and words left."""
    numeric = text[:1].isdigit() or text[:1] in "<>-"
    return f"<td>{escape(text)}</td>" if numeric else f'<td class="text">{escape(text)}</td>'


def _list(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"


def _encounter(enc: Encounter, charted: bool, colours: Mapping[str, str]) -> list[str]:
    out = [f"<h2>{escape(enc.name)}</h2>"]
    if ending(enc):
        out.append(f"<p>{escape(ending(enc))}</p>")
    out.append(_table(TALLY_HEAD, [tally_cells(t) for t in enc.tallies.values()]))
    for title, items in encounter_lists(enc):
        out += [f"<h3>{escape(title)}</h3>", _list(items)]
    return out + (_encounter_charts(enc, colours) if charted else [])


def _encounter_charts(enc: Encounter, colours: Mapping[str, str]) -> list[str]:
    """An encounter's charts: damage by round, and who acted when (a fight's alone)."""
    charts = []
    if enc.damage:
        charts.append(damage_chart(enc, colours))
    if enc.activity and not enc.outside:
        charts.append(timeline_chart(enc, colours))
    return ['<div class="charts">' + "".join(charts) + "</div>"] if charts else []


def _luck_html(r: Recap) -> list[str]:
    """The luck report: a table by source of dice and its chart, then one by band."""
    if not r.luck:
        return ["<p>No check of known chance was rolled.</p>"]
    by_source, by_band = luck_cells(r)
    out = [_table(LUCK_HEAD, by_source), '<div class="charts">' + luck_chart(r) + "</div>"]
    if by_band:
        out += ["<h3>By band</h3>", _table(BAND_HEAD, by_band)]
    return out


def html(r: Recap, name: str | None = None) -> str:
    """The whole recap as a standalone HTML page."""
    title = f"Recap: {r.title or 'a table'} ({r.system})"
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<p class="note">{escape(how_read(r, name))}</p>',
    ]
    fights = sum(1 for e in r.encounters if not e.outside)
    charted = fights <= CHARTED_ENCOUNTERS
    colours = palette(r)
    if not charted:
        out += [
            "<h2>The session</h2>",
            f'<p class="note">{fights} encounters; each has its own charts in a session of '
            f"up to {CHARTED_ENCOUNTERS}.</p>",
            '<div class="charts">' + session_chart(r, colours) + "</div>",
        ]
    for enc in r.encounters:
        out += _encounter(enc, charted, colours)
    out += ["<h2>Luck</h2>", *_luck_html(r)]
    for title, items in closing_lists(r):
        out += [f"<h2>{escape(title)}</h2>", _list(items)]
    out.append("</body></html>")
    return "\n".join(out) + "\n"
