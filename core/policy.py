"""The players' policy for one record: what players get of it, given who is hidden.

It fails closed:

- an event type that declares no player form (``Event.PLAYER``) is GM-only;
- a GM-only record, and a record about a character players cannot see, is
  unseen, unless its form lets that character be ``unseen`` (then the id gives
  way to ``UNSEEN`` and every field that would give the character away is cut);
- a secret record loses its secret fields until the GM reveals it, and a
  stored secret field name the event does not have makes the whole record unseen.

``seal`` applies it to records as they are written (the stored visibility says
what players get); ``core.lens`` reads a log by the same rules (``judge``).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from margin.events import (
    ALL_EVENTS,
    CharacterAdded,
    CharacterRemoved,
    CharacterUpdated,
    Draft,
    Event,
    PlayerForm,
    Revealed,
    Visibility,
)
from margin.events.base import UNSEEN

from .health import tells_health, view_of
from .history import History
from .state import TableState, hidden_ids

__all__ = [
    "SHOWN",
    "UNSEEN",
    "UNSEEN_VERDICT",
    "Verdict",
    "about",
    "hidden_around",
    "hidden_ids",
    "judge",
    "mask_field",
    "named_ids",
    "seal",
    "seq_list",
    "track_hidden",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What players get of one record: nothing, or the record less ``cut`` fields."""

    shown: bool
    #: fields removed from the event (dotted paths reach into nested fields)
    cut: tuple[str, ...] = ()
    #: ``about`` fields whose hidden characters are masked as ``UNSEEN``
    unseen: tuple[str, ...] = ()


UNSEEN_VERDICT = Verdict(False)
SHOWN = Verdict(True)


def named_ids(value: Any) -> list[str]:
    """The character ids a field names: an id, a side (``.actor``), a list of either, or a
    mapping keyed by ids. Works on events and on their plain-data form alike."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [i for item in value for i in named_ids(item)]
    if isinstance(value, dict):
        return _side(value) or [k for k in value if isinstance(k, str)]
    actor = getattr(value, "actor", None)
    return [actor] if isinstance(actor, str) else []


def about(event: Event) -> set[str]:
    """The ids of the characters a record is about, as its player form names them."""
    form = type(event).PLAYER
    if form is None:
        return set()
    return {i for name in form.about for i in named_ids(getattr(event, name))}


def _side(value: dict[str, Any]) -> list[str]:
    actor = value.get("actor")
    return [actor] if isinstance(actor, str) else []


#: the ``about`` fields of each event type that has a player form, by the type's tag
_ABOUT: dict[str, tuple[str, ...]] = {
    str(kind.__struct_config__.tag): kind.PLAYER.about
    for kind in ALL_EVENTS
    if kind.PLAYER is not None
}


def about_fields(tag: str) -> tuple[str, ...]:
    """The fields of the event type tagged ``tag`` that name the characters it is about."""
    return _ABOUT.get(tag, ())


def name_field(value: Any, names: Mapping[str, str]) -> Any:
    """A field's plain value with the character ids it names said by name (``names``: id ->
    name); ids not in ``names`` are left as they are. The shapes are ``named_ids``'s."""
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [name_field(item, names) for item in value]
    return _name_mapping(value, names) if isinstance(value, dict) else value


def _name_mapping(value: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """A side with its actor said by name, or a mapping keyed by ids keyed by names."""
    if _side(value):
        return {**value, "actor": names.get(value["actor"], value["actor"])}
    return {names.get(k, k): v for k, v in value.items()}


def mask_field(value: Any, hidden: Container[str]) -> Any:
    """A field's plain value with the hidden characters it names masked or removed."""
    if isinstance(value, str):
        return UNSEEN if value in hidden else value
    if isinstance(value, list):
        return [i for i in value if not _names_hidden(i, hidden)]
    return _mask_mapping(value, hidden) if isinstance(value, dict) else value


def _names_hidden(value: Any, hidden: Container[str]) -> bool:
    """Whether a value names a hidden character (the shapes are ``named_ids``'s)."""
    return any(i in hidden for i in named_ids(value))


def _mask_mapping(value: dict[str, Any], hidden: Container[str]) -> dict[str, Any]:
    """A side with a hidden actor masked, or a mapping keyed by ids less the hidden ones."""
    if _side(value):
        return {"actor": UNSEEN} if value["actor"] in hidden else value
    return {k: v for k, v in value.items() if k not in hidden}


def _secret_names_ok(names: Iterable[str], fields: Container[str]) -> bool:
    return all(name.split(".", 1)[0] in fields for name in names)


def judge(
    event: Event,
    visibility: Visibility,
    hidden: Container[str],
    via_unseen: bool = False,
    reader: str | None = None,
) -> Verdict:
    """The policy for one record, given the ids of the characters players cannot see.

    ``via_unseen`` tells that the record's cause had an unseen character.
    ``reader`` is the player's character who reads: a record addressed to one player
    (``visibility.to``) is unseen by every other, and by a reader not named.
    Records naming other records (``follows``) are judged again by
    ``PlayerLens``, which knows what players saw.
    """
    form: PlayerForm | None = type(event).PLAYER
    if form is None or not _may_reach(event, visibility, reader):
        return UNSEEN_VERDICT
    if not form.about and not via_unseen and not form.private:
        return _verdict(visibility.hidden, [])
    return _masking(event, form, visibility.hidden, hidden, via_unseen)


def _may_reach(event: Event, visibility: Visibility, reader: str | None) -> bool:
    """Whether a record's visibility lets it reach the player ``reader``: not GM-only, not
    addressed to another, and cutting only fields its event has."""
    if visibility.gm_only or (visibility.to and visibility.to != reader):
        return False
    return _secret_names_ok(visibility.hidden, type(event).__struct_fields__)


def _masking(
    event: Event,
    form: PlayerForm,
    stored: tuple[str, ...],
    hidden: Container[str],
    via_unseen: bool,
) -> Verdict:
    """The verdict on a record whose form names characters, private fields or what a cause
    with an unseen character cuts: ``stored`` is what its visibility already cuts."""
    # a stored unseen field (a hidden attacker) stays unseen, whoever the reader knows of
    unseen: list[str] = [n for n in stored if n in form.unseen]
    cut: list[str] = [n for n in stored if n not in form.unseen]
    cut += form.private
    more = _masked_about(event, form, hidden, unseen)
    if more is None:
        return UNSEEN_VERDICT
    unseen += more
    cut += [field for name in more for field in form.unseen[name]]
    if via_unseen:
        cut.extend(form.via_unseen)
    return _verdict(cut, unseen)


def _verdict(cut: Iterable[str], unseen: list[str]) -> Verdict:
    """Players see the record less the ``cut`` fields, the ``unseen`` ones masked."""
    shown = tuple(dict.fromkeys(c for c in cut if c not in unseen))
    return Verdict(True, shown, tuple(unseen)) if shown or unseen else SHOWN


def _masked_about(
    event: Event, form: PlayerForm, hidden: Container[str], unseen: list[str]
) -> list[str] | None:
    """The ``about`` fields (besides those already ``unseen``) naming a hidden character,
    which players see masked; None when players may not see the record at all: its form
    cannot mask a hidden character it names, or every character it names is hidden."""
    more: list[str] = []
    named = seen = 0
    for name in form.about:
        ids = named_ids(getattr(event, name))
        masked = [i for i in ids if i in hidden]
        named += len(ids)
        seen += len(ids) - len(masked)
        if not masked or name in unseen:
            continue
        if name not in form.unseen:
            return None
        more.append(name)
    return None if named and not seen else more


def seal(
    drafts: list[Draft], state: TableState, history: History, author: str | None = None
) -> list[Draft]:
    """The drafts of one command with the visibility the policy gives them (and, when
    ``author`` is given, naming it: a player's seat, whose records are all theirs).

    The stored visibility then says what players get: whether they see the
    record at all, and which fields they do not see (``PlayerLens`` reads
    the same policy again, so a table written before a rule existed is read
    by it too).
    """
    hidden = hidden_ids(state)
    out = []
    # the command's own records masked so far, beside the log's
    masked: set[int] = set()
    for n, draft in enumerate(drafts):
        event = draft.event
        to = _addressee(draft, history)
        verdict = _sealed(
            _health_cut(draft, state), hidden_around(event, hidden), masked, history, to
        )
        if verdict.unseen:
            masked.add(state.seq + n + 1)
        visibility = _stored(verdict, event)
        if to and not visibility.gm_only:
            visibility = msgspec.structs.replace(visibility, to=to)
        if author is None:
            out.append(replace(draft, visibility=visibility))
        else:
            out.append(replace(draft, visibility=visibility, author=author))
        track_hidden(event, hidden)
    return out


def _addressee(draft: Draft, history: History) -> str:
    """The one player a draft is for: as its visibility says, or, for a record that only
    reports on records of one player's (an undo of a ruling on their request), that player."""
    if draft.visibility.to:
        return draft.visibility.to
    refs = _reported_unpublished(draft.event, history) or []
    readers = {history.addressed[r] for r in refs if r in history.addressed}
    return readers.pop() if len(readers) == 1 else ""


def _sealed(draft: Draft, hidden: set[str], masked: set[int], history: History, to: str) -> Verdict:
    """The verdict on a draft as it is written, for the player ``to`` it is addressed to
    (every player when ""): one that answers only GM-only records (an undo of a GM-only
    roll) is unseen too, a reveal excepted."""
    event, cause = draft.event, draft.cause
    via = cause is not None and (cause in masked or cause in history.masked)
    verdict = judge(event, draft.visibility, hidden, via, reader=to or None)
    if not verdict.shown or to:
        # addressed to one player: what it reports is that player's (``_addressee``)
        return verdict
    return UNSEEN_VERDICT if _reported_unpublished(event, history) is not None else verdict


def _reported_unpublished(event: Event, history: History) -> list[int] | None:
    """The records a record reports on (``_reported``), when players at large saw none of
    them; None when it reports on none, or on one they saw."""
    refs = _reported(event)
    if refs is None or not all(_unpublished(r, history) for r in refs):
        return None
    return refs


def _unpublished(seq: int, history: History) -> bool:
    """Whether players at large never saw record ``seq``: it is GM-only, or one player's."""
    return seq in history.gm_only or seq in history.addressed


def _reported(event: Event) -> list[int] | None:
    """The records a record reports on (an undo's), by its form's ``follows``; None for a
    record of a kind that reports on none, and for a reveal (it shows what it reveals)."""
    form = type(event).PLAYER
    if form is None or not form.follows or type(event) is Revealed:
        return None
    return [r for name in form.follows for r in seq_list(getattr(event, name))]


def _stored(verdict: Verdict, event: Event) -> Visibility:
    """The visibility a record is stored with, which says what players get of it."""
    if not verdict.shown:
        return Visibility(gm_only=True)
    form = type(event).PLAYER
    # an unseen single character is stored by name; a list's hidden members are
    # known to the lens from who is hidden
    single = [u for u in verdict.unseen if not isinstance(getattr(event, u), list | dict)]
    # fields players never see are the event type's to say, not the record's
    cut = [c for c in verdict.cut if form is None or c not in form.private]
    return Visibility(hidden=(*single, *cut)) if single or cut else Visibility()


def _health_cut(draft: Draft, state: TableState) -> Draft:
    """A record stating the health of a character whose health players may not see
    exactly, with those fields cut from players' view (a reveal shows them)."""
    fields = tells_health(draft.event)
    if not fields:
        return draft
    chars = [state.characters[c] for c in about(draft.event) if c in state.characters]
    if not any(view_of(c, state) != "exact" for c in chars):
        return draft
    vis = draft.visibility
    cut = tuple(dict.fromkeys((*vis.hidden, *fields)))
    return replace(draft, visibility=msgspec.structs.replace(vis, hidden=cut))


def hidden_around(event: Event, hidden: set[str]) -> set[str]:
    """The hidden ids a record is judged by: a character shown or hidden by the record
    (or joining visible) counts as seen, since players get that news."""
    if isinstance(event, CharacterAdded):
        return hidden | {event.id} if event.hidden else hidden - {event.id}
    if isinstance(event, CharacterUpdated) and event.hidden is not None:
        # hiding one already hidden is no news: players never learn who that was
        return hidden if event.hidden and event.id in hidden else hidden - {event.id}
    return hidden


def track_hidden(event: Event, hidden: set[str]) -> None:
    """Follow who is hidden, as the fold does."""
    if isinstance(event, CharacterAdded | CharacterUpdated) and event.hidden is not None:
        (hidden.add if event.hidden else hidden.discard)(event.id)
    elif isinstance(event, CharacterRemoved):
        hidden.discard(event.id)


def seq_list(value: Any) -> list[int]:
    if isinstance(value, list):
        return [v for v in value if isinstance(v, int)]
    return [value] if isinstance(value, int) else []
