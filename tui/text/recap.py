"""After play: the recap and the luck report of a table, as the GM or one player may read them."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from margin.core.luck import Luck, percent
from margin.core.panels import character_status
from margin.core.recap import CharacterLuck, CheckLine, Encounter, Recap, recap

if TYPE_CHECKING:
    from margin.tui.table.reader import View


def build(view: View, corrected: bool = True, progress: bool = False) -> Recap:
    """The recap of the table ``view`` reads, as its reader (the GM or a player) may read it."""
    state = view.state()
    standing = [(c.name, character_status(c, state)) for c in state.characters.values()]
    total = view.table.projection.seq
    show = _progress(total) if progress and total >= 20_000 and sys.stderr.isatty() else None
    result = recap(view.readable(), state.system, corrected, standing, progress=show)
    if show is not None:
        sys.stderr.write("\r" + " " * 40 + "\r")
    return result


def _progress(total: int) -> Any:
    def show(seq: int) -> None:
        sys.stderr.write(f"\rreading records: {seq:,} of {total:,}")
        sys.stderr.flush()

    return show


# -- text -----------------------------------------------------------------------


def _spent(spent: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in spent.items()) or "-"


def how_read(r: Recap, name: str | None) -> str:
    """One line: which records count, and whose view this is."""
    if r.corrected:
        kind = "as corrected" + (f" ({r.undone} undone records left out)" if r.undone else "")
    else:
        kind = "as it happened" + (
            f" ({r.undone} records undone later, marked)" if r.undone else ""
        )
    whose = f"; what {name}'s player saw" if name else ""
    return f"{r.records:,} records, {kind}{whose}."


def ending(enc: Encounter) -> str:
    """How an encounter ended, in one sentence ("" for the play outside encounters)."""
    if enc.outside:
        return ""
    if enc.ended is None:
        return "Still running at the end of the log."
    return "Ended" + (f" {enc.ended}" if enc.ended else "") + "."


def markdown(r: Recap, name: str | None = None) -> str:
    """The recap as Markdown."""
    title = r.title or "a table"
    out = [f"# Recap: {title} ({r.system})", "", how_read(r, name), ""]
    for enc in r.encounters:
        out += _encounter_markdown(enc)
    out += ["## Luck", ""] + luck_table(r) + [""]
    if r.revealed:
        out += ["## Secrets revealed", ""] + [f"- {text}" for text in r.revealed] + [""]
    if r.standing:
        out += ["## How it ended", ""]
        out += [f"- {who}: {', '.join(status) or 'no status'}" for who, status in r.standing]
        out.append("")
    return "\n".join(out)


def _encounter_markdown(enc: Encounter) -> list[str]:
    """One encounter's section: how it ended, its tallies, harms, notable rolls, damage."""
    out = [f"## {enc.name}", ""] + ([ending(enc), ""] if ending(enc) else [])
    if enc.tallies:
        out += [
            "| Character | Turns | Checks passed | Hits | Damage dealt | Damage taken | Spent |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for t in enc.tallies.values():
            hits = f"{t.hits}/{t.attacks}" if t.attacks else "-"
            out.append(
                f"| {t.name} | {t.turns} | {t.successes}/{t.checks} | {hits} | {t.dealt} "
                f"| {t.taken} | {_spent(t.spent)} |"
            )
        out.append("")
    harms = [(t.name, t.harms) for t in enc.tallies.values() if t.harms]
    if harms:
        out += ["Injuries and conditions:", ""]
        out += [f"- {who}: {'; '.join(h)}" for who, h in harms]
        out.append("")
    return out + _notable_markdown(enc) + _damage_markdown(enc)


def _notable_markdown(enc: Encounter) -> list[str]:
    notable = [(t.name, n) for t in enc.tallies.values() for n in t.notable]
    if not notable:
        return []
    out = ["Notable rolls:", ""] + [f"- {who}: {text}" for who, text in notable[:30]]
    if len(notable) > 30:
        out.append(f"- and {len(notable) - 30} more")
    return [*out, ""]


def _damage_markdown(enc: Encounter) -> list[str]:
    if not enc.damage:
        return []
    rounds = "; ".join(
        f"round {n}: " + ", ".join(f"{who} {amount}" for who, amount in dealt.items())
        for n, dealt in sorted(enc.damage.items())
    )
    return [f"Damage by round: {rounds}.", ""]


def luck_table(r: Recap) -> list[str]:
    """The luck report as a Markdown table (one row per character, then per source)."""
    if not r.luck:
        return ["No check of known chance was rolled."]
    out = [
        "| Character | Dice | Checks | Expected successes | Successes | Chance of a result this far out |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for c in r.luck:
        out += [_luck_row(c.name, source, luck) for source, luck in luck_rows(c)]
    banded = [c for c in r.luck if c.bands]
    if banded:
        out += [
            "",
            "| Character | Band | Expected | Actual | Chance of a result this far out |",
            "|---|---|---:|---:|---:|",
        ]
        for c in banded:
            for b in c.bands:
                out.append(
                    f"| {c.name} | {b.band} | {b.luck.expected:.2f} | {b.luck.actual} "
                    f"| {b.luck.tail}: {b.luck.percent} |"
                )
    return out


def luck_rows(c: CharacterLuck) -> list[tuple[str, Luck]]:
    """A character's luck by source of dice, with the whole first when both sources rolled."""
    if len(c.by_source) > 1:
        return [("all dice", c.overall), *c.by_source]
    return list(c.by_source)


def _luck_row(name: str, source: str, luck: Luck) -> str:
    return (
        f"| {name} | {source} | {luck.checks} | {luck.expected:.2f} | {luck.actual} "
        f"| {luck.tail}: {luck.percent} |"
    )


BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float, whole: float, width: int = 24) -> str:
    """``value`` out of ``whole`` as a bar of ``width`` cells, in eighths."""
    if whole <= 0:
        return " " * width
    eighths = round(max(0.0, min(1.0, value / whole)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def fairness_lines(r: Recap) -> list[str]:
    """Each source of dice and kind of die: its faces counted, and whether they look fair."""
    if not r.fairness:
        return []
    out = ["Fairness of the dice (every die rolled, undone ones too):"]
    for d in r.fairness:
        test = (
            f"exact test: {d.fit.percent}"
            if d.fit.exact
            else (
                f"chi-square {d.fit.statistic:.1f} on {d.sides - 1} degrees of freedom: {d.fit.percent}"
            )
        )
        out.append(
            f"  {d.source}, d{d.sides}: {d.fit.rolls} rolled; a fair die fits this badly or worse: {test}"
        )
        out.append(f"    {_faces(d.counts)}")
    out.append("")
    return out


def _faces(counts: tuple[int, ...]) -> str:
    """How often each face came up: ``1:3 2:5 ...``, by tens for a die of more than 20 faces."""
    if len(counts) <= 20:
        return " ".join(f"{n}:{c}" for n, c in enumerate(counts, 1))
    tens = [counts[i : i + 10] for i in range(0, len(counts), 10)]
    return " ".join(f"{i * 10 + 1}-{i * 10 + len(t)}:{sum(t)}" for i, t in enumerate(tens))


def luck_text(r: Recap, name: str | None = None, checks: bool = False) -> str:
    """The luck report for a terminal: expected and actual successes drawn as bars."""
    out = [f"Luck: {r.title or 'a table'} ({r.system}), {how_read(r, name)}", ""]
    if not r.luck:
        out.append("No check of known chance was rolled.")
    width = max((len(c.name) for c in r.luck), default=0)
    for c in r.luck:
        out += _luck_lines(c, width)
    out += fairness_lines(r)
    if checks:
        out.append("Every check:")
        out += [_check_line(line) for line in r.checks]
    return "\n".join(out).rstrip() + "\n"


def _luck_lines(c: CharacterLuck, width: int) -> list[str]:
    """One character's luck, by source of dice then by band, its name ``width`` wide."""
    out = []
    pad = f"{'':{width}}"
    for i, (source, luck) in enumerate(luck_rows(c)):
        who = (c.name if i == 0 else "").ljust(width)
        out.append(f"{who}  {source}: {luck.checks} check{'' if luck.checks == 1 else 's'}")
        out.append(f"{pad}    expected {bar(luck.expected, luck.checks)} {luck.expected:7.2f}")
        out.append(
            f"{pad}    actual   {bar(luck.actual, luck.checks)} {luck.actual:7d}"
            f"   chance of {luck.tail}: {luck.percent}"
        )
    for b in c.bands:
        out.append(
            f"{pad}    {b.band:<22} expected {b.luck.expected:6.2f}  actual "
            f"{b.luck.actual:4d}  {b.luck.tail}: {b.luck.percent}"
        )
    out.append("")
    return out


def _check_line(line: CheckLine) -> str:
    """One check of ``margin luck --checks``."""
    chance = "unknown" if line.chance is None else percent(float(line.chance))
    result = "success" if line.success else "failure"
    marks = (" typed" if line.typed else "") + (" (undone)" if line.undone else "")
    band = f" ({line.band})" if line.band else ""
    return f"{line.record:>7}  {line.name}: {line.label}: chance {chance}, {result}{band}{marks}"
