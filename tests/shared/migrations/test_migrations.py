from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

import shared.models  # noqa: F401


def test_migrations_build_exactly_the_model_schema(engine):
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == []


def test_every_table_exists_after_upgrade(engine):
    tables = set(inspect(engine).get_table_names())
    assert set(SQLModel.metadata.tables) <= tables
    assert "alembic_version" in tables
