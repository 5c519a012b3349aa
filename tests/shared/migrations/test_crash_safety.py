"""A process killed inside a migration leaves the schema as it was (SQLite included),
and a database an older release left half-migrated is refused with what to do."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from shared.kit.db import HalfAppliedSchema, make_engine, migrate
from tests.processes import ROOT


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {name for (name,) in rows}


def _version(path: Path) -> str | None:
    with sqlite3.connect(path) as db:
        try:
            row = db.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.OperationalError:
            return None
    return None if row is None else str(row[0])


def _head() -> str:
    from alembic.script import ScriptDirectory

    from shared.kit.db import alembic_config

    return str(ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head())


def _killed_migration(url: str, after: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GPU_ADVISOR_FAULT_INJECTION": f"migrate-exit-after:{after}"}
    code = f"from shared.kit.db import migrate; migrate({url!r})"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("after", ["0002", "0005", "0009", "0010"])
def test_a_kill_inside_the_upgrade_leaves_no_trace_and_the_next_start_completes(
    tmp_path: Path, after: str
) -> None:
    path = tmp_path / "app.db"
    url = f"sqlite:///{path}"
    killed = _killed_migration(url, after)
    assert killed.returncode == 137, killed.stderr
    # The upgrade is one transaction: nothing of it stayed, not even 0001's tables.
    assert _version(path) is None
    assert _tables(path) <= {"alembic_version"}
    migrate(url)
    assert _version(path) == _head()
    assert {"price_observation", "task_run", "quote", "alert"} <= _tables(path)


def test_a_kill_during_a_later_upgrade_keeps_the_earlier_version(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    url = f"sqlite:///{path}"
    from alembic import command

    from shared.kit.db import alembic_config

    command.upgrade(alembic_config(url), "0004")
    before = _tables(path)
    assert _killed_migration(url, "0006").returncode == 137
    assert _version(path) == "0004" and _tables(path) == before
    migrate(url)
    assert _version(path) == _head()


def test_a_half_applied_schema_is_refused_with_what_to_do(tmp_path: Path) -> None:
    # What an older release could leave: version 0001 stamped, 0002's table created.
    path = tmp_path / "app.db"
    url = f"sqlite:///{path}"
    from alembic import command

    from shared.kit.db import alembic_config

    command.upgrade(alembic_config(url), "0001")
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE task_run (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(HalfAppliedSchema, match="did not finish.*delete the file"):
        migrate(url)
