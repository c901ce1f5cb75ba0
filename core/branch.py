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
    drafts += [
        Draft(Undone(command=command, voids=seqs))
        for command, seqs in _by_command(history, final - now).items()
    ]
    drafts += [
        Draft(Redone(command=command, restores=seqs))
        for command, seqs in _by_command(history, now - final).items()
    ]
    return drafts


def _by_command(history: History, seqs: set[int]) -> dict[str, list[int]]:
    """Records by the command that wrote them, in order."""
    by_command: dict[str, list[int]] = {}
    for seq in sorted(seqs):
        command = history.command_of(seq)
        if command is not None:
            by_command.setdefault(command, []).append(seq)
    return by_command
