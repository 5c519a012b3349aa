"""Database engine, sessions and migrations."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import event, make_url
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, create_engine

from shared.kit.settings import Settings


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the API read while a recompute writes; SQLite ignores FKs unless asked.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def engine_for(settings: Settings) -> Engine:
    """The engine of `settings`' database (creating the data directory for SQLite)."""
    if settings.sqlalchemy_url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    return make_engine(settings.sqlalchemy_url)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(resources.files("shared") / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


class HalfAppliedSchema(RuntimeError):
    """The database holds tables of a migration that never recorded its version."""


def migrate(url: str, settings: Settings | None = None) -> None:
    """Bring the schema at `url` to the newest migration.

    Upgrades are atomic (shared/migrations/env.py); a database left half-migrated by an
    older release is refused with what to do, rather than failing on every start.
    """
    if url.startswith("sqlite") and settings is not None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    try:
        command.upgrade(alembic_config(url), "head")
    except OperationalError as exc:
        if "already exists" not in str(exc):
            raise
        raise HalfAppliedSchema(
            f"the database ({make_url(url).render_as_string(hide_password=True)}) holds "
            f"tables of a migration that did not finish ({exc.orig}); restore a backup, or "
            "for the embedded default delete the file to start afresh (bundled data and "
            "scores are rebuilt; stored prices, alerts and keys are lost)"
        ) from exc
