"""Fixtures of the kit's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import delete
from sqlalchemy.engine import Engine

from shared.kit.db import session_scope
from shared.models import QueuedJob


@pytest.fixture
def queue(engine: Engine) -> Iterator[Engine]:
    """The shared test database with an empty job queue before and after."""
    with session_scope(engine) as session:
        session.execute(delete(QueuedJob))
    yield engine
    with session_scope(engine) as session:
        session.execute(delete(QueuedJob))
