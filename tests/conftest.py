"""Shared fixtures: real SQLite and PostgreSQL databases built by the migrations."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, event, text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from shared.kit.db import make_engine, migrate
from shared.kit.settings import Settings
from shared.wiring.bootstrap import prepare_database
from shared.wiring.runtime import open_context
from tests import clock

POSTGRES_ADMIN_URL = os.environ.get(
    "GPU_ADVISOR_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    """The whole run, and every Python process it starts, is on the suite's clock: the day
    the bundled data and the tests' fixed dates were current (tests/clock.py)."""
    clock.pin()


def pytest_unconfigure(config: pytest.Config) -> None:
    clock.unpin()


def _create_postgres_database() -> tuple[str, str]:
    name = f"gpu_advisor_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}", name


def _drop_postgres_database(name: str) -> None:
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def new_database(backend: str, directory: Path) -> tuple[str, str | None]:
    """A fresh, empty database; returns (url, postgres name to drop)."""
    if backend == "sqlite":
        return f"sqlite:///{directory / f'{uuid.uuid4().hex}.db'}", None
    return _create_postgres_database()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def migrated_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An empty database at the newest migration, one per backend per test run."""
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("db"))
    migrate(url)
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


def make_settings(url: str, directory: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "test",
        "data_dir": directory,
        "database_url": url,
        "broker_url": "",
        "inprocess_scheduler": False,
    }
    values.update(overrides)
    return Settings.model_validate(values)


def prepare(engine: Engine, settings: Settings) -> None:
    """First-start preparation through a context on `engine` (the caller disposes it)."""
    prepare_database(open_context(settings, engine))


@pytest.fixture(scope="session")
def seeded_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database with the catalog, the bundled prices and computed scores (read-only use)."""
    directory = tmp_path_factory.mktemp("seeded")
    url, pg_name = new_database(backend, directory)
    engine = make_engine(url)
    prepare(engine, make_settings(url, directory))
    engine.dispose()
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture
def engine(migrated_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_url)
    yield engine
    engine.dispose()


def _begin_explicitly(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None


def _emit_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


@pytest.fixture
def session(migrated_url: str) -> Iterator[Session]:
    """A session whose work, commits included, is rolled back after the test.

    On SQLite its engine begins transactions itself: pysqlite's default begins none until
    the first write, so the outermost SAVEPOINT a commit releases would write to the
    shared database and leak into the next test on the same worker."""
    engine = make_engine(migrated_url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _begin_explicitly)
        event.listen(engine, "begin", _emit_begin)
    connection = engine.connect()
    transaction = connection.begin()
    session = Session(bind=connection, join_transaction_mode="create_savepoint")
    try:
        yield session
    finally:
        session.close()
        transaction.rollback()
        connection.close()
        engine.dispose()
