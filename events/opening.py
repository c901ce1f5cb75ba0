"""Opening what the user typed: a table file, a ``postgresql://`` URL, or a table in memory.

``open_store`` and ``build_store`` take what the user typed, a file path or
a ``postgresql://`` URL, so every command reaches either store the same way.
This module sits above the engines: it is the one place that picks one. The
PostgreSQL engine is imported only for a URL, so psycopg loads only for a table
kept there.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager

from . import memory
from .signing import SigningKey
from .sqlite import SQLiteStore
from .store import Store, is_url

#: How a table held in this process's memory is named (``memory:NAME``), for tests.
MEMORY = "memory:"


def open_store(
    name: str | object,
    *,
    create: bool = False,
    readonly: bool = False,
    signer: SigningKey | None = None,
) -> Store:
    """The store a user's PATH or URL names: a table file, or a table in PostgreSQL."""
    text = str(name)
    if is_url(text):
        from .postgres import PostgresStore

        return PostgresStore(text, create=create, readonly=readonly, signer=signer)
    if text.startswith(MEMORY):
        return memory.MemoryStore.named(text, create=create, readonly=readonly, signer=signer)
    return SQLiteStore(text, create=create, readonly=readonly, signer=signer)


def build_store(
    name: str | object, signer: SigningKey | None = None
) -> AbstractContextManager[Store]:
    """A new table at ``name`` that appears only when the ``with`` block ends without error.

    A table file is built beside its path under a hidden name and moved into
    place; a table in PostgreSQL is written in one transaction. A failure or a
    kill leaves nothing behind.
    """
    text = str(name)
    if is_url(text):
        from .postgres import PostgresStore

        return PostgresStore.build(text, signer)
    if text.startswith(MEMORY):
        return memory.MemoryStore.build(text, signer)
    return SQLiteStore.build(text, signer)


def display_name(name: str | object) -> str:
    """``name`` as messages and logs may show it: a URL loses its password."""
    text = str(name)
    if is_url(text):
        from .postgres import parse_url

        return parse_url(text).display
    return text


def short_name(name: str | object) -> str:
    """What a screen's title calls a table: its file's name, or its name in the database.

    Text, always: bytes of a file name that are not UTF-8 are shown as U+FFFD, so the name
    can go into a record or onto a screen.
    """
    text = str(name)
    if is_url(text):
        from .postgres import parse_url

        return parse_url(text).table
    return os.path.basename(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def table_exists(name: str | object) -> bool:
    """Whether a table is already at ``name`` (a file, or a table in the database)."""
    text = str(name)
    if is_url(text):
        from .postgres import exists

        return exists(text)
    if text.startswith(MEMORY):
        return memory.exists(text)
    return os.path.lexists(text)
