"""What-if branches: the records that make a copy of a log's first records a branch of it."""

from __future__ import annotations

from margin.events import Branched, Draft, Redone, Undone, Visibility

from .history import History


def branch_drafts(history: History, at: int, source: str, title: str, head: str) -> list[Draft]:
    """The records a branch at record ``at`` adds after the records it shares.

    A branch starts from the source as corrected: undos and redos the source
    made after ``at`` that reach records up to ``at`` are applied here as
    records of this table, so the shared records stay byte for byte the same.
    The mark itself is GM-only (its event type declares no player form).
    """
    now = {seq for seq in history.voided_at(at) if seq <= at}
    final = {seq for seq in history.voided if seq <= at}
    drafts = [
        Draft(
            Branched(source=source, title=title, at=at, head=head),
            visibility=Visibility(gm_only=True),
        )
    ]
    for kind, seqs in ((Undone, final - now), (Redone, now - final)):
        by_command: dict[str, list[int]] = {}
        for seq in sorted(seqs):
            command = history.command_of(seq)
            if command is not None:
                by_command.setdefault(command, []).append(seq)
        for command, listed in by_command.items():
            event = (
                Undone(command=command, voids=listed)
                if kind is Undone
                else Redone(command=command, restores=listed)
            )
            drafts.append(Draft(event))
    return drafts
