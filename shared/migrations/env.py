"""Alembic environment: the URL comes from the Alembic config or from settings.

The whole upgrade is one transaction, on SQLite too: a process killed mid-migration
leaves the schema as it was before, never a table without its version stamp.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from typing import Any

from alembic import context
from alembic.runtime.migration import MigrationContext, MigrationInfo
from sqlalchemy import engine_from_config, event, pool
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

import shared.alerts.models  # noqa: F401
import shared.decisions.models  # noqa: F401
import shared.models  # noqa: F401  (registers the tables on SQLModel.metadata)
import shared.pricing.models  # noqa: F401
import shared.quotes.models  # noqa: F401
import shared.sources.status  # noqa: F401
from shared.kit.settings import get_settings

config = context.config
url = config.get_main_option("sqlalchemy.url") or get_settings().sqlalchemy_url
config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
target_metadata = SQLModel.metadata


def run_offline() -> None:
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def _transactional_sqlite_ddl(engine: Engine) -> None:
    """pysqlite leaves DDL outside any transaction (each CREATE commits at once); with
    its own transaction handling off, SQLAlchemy's BEGIN makes SQLite wrap the DDL."""

    @event.listens_for(engine, "connect")
    def _autocommit_driver(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _fault_after(
    ctx: MigrationContext, step: MigrationInfo, heads: Collection[Any], run_args: Mapping[str, Any]
) -> None:
    """`migrate-exit-after:<revision>` kills the process inside the upgrade's transaction,
    right after that migration ran (the crash-safety tests; refused in production)."""
    fault = get_settings().fault_injection
    for spec in fault.split(","):
        key, _sep, revision = spec.strip().partition(":")
        if key == "migrate-exit-after" and revision in step.up_revision_ids:
            os._exit(137)


def run_online() -> None:
    connectable = engine_from_config(
        config.get_section(config.config_ini_section, {}),
        prefix="sqlalchemy.",
        poolclass=pool.NullPool,
    )
    if connectable.dialect.name == "sqlite":
        _transactional_sqlite_ddl(connectable)
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            transactional_ddl=True,
            on_version_apply=_fault_after,
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
