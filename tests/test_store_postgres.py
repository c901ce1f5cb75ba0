"""The PostgreSQL store: the contract, then what only it does (many tables in one database,
privileges and triggers, a URL's password, a lost connection)."""

from __future__ import annotations

import psycopg
import pytest
from pg_server import Server
from store_contract import StoreContract


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def name(self, pg_url: str) -> str:
        return pg_url


def admin(pg: Server) -> psycopg.Connection:  # type: ignore[type-arg]
    return psycopg.connect(pg.conninfo(), autocommit=True)
