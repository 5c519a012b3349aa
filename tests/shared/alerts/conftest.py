"""A database of its own per module for the outbox tests, wiped between tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import delete
from sqlalchemy.engine import Engine

from shared.alerts.keys import create_key
from shared.alerts.models import Alert, AlertEvent, ApiKey, DeliveryAttempt
from shared.kit.db import make_engine, migrate, session_scope
from shared.models import CloudOffer, PriceObservation, Score
from shared.seed import seed_catalog
from shared.sources.status import SourceStatus
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.receiver import Receiver, running_receiver

T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def outbox_engine(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("outbox"))
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    yield engine
    engine.dispose()
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture
def db(outbox_engine: Engine) -> Engine:
    with session_scope(outbox_engine) as session:
        for table in (
            DeliveryAttempt,
            AlertEvent,
            Alert,
            PriceObservation,  # a posted quote refers to its key
            ApiKey,
            Score,
            CloudOffer,
            SourceStatus,
        ):
            session.execute(delete(table))
    return outbox_engine


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
def settings(tmp_path: Path):
    return make_settings("sqlite://", tmp_path, webhook_allowlist="127.0.0.1")


def make_alert(
    engine: Engine,
    url: str,
    trigger: dict[str, Any] | None = None,
    all_quotes: bool = False,
    **overrides,
) -> Alert:
    trigger = trigger or {
        "type": "price_below",
        "gpu_id": "rtx-3090",
        "condition": "used",
        "max_price_usd": "700",
    }
    with session_scope(engine) as session:
        key = create_key(session, "test", "write", all_quotes=all_quotes)
        alert = Alert(
            id=overrides.pop("id", "alr_test"),
            owner_key_id=key.id,
            url=url,
            trigger_type=trigger["type"],
            trigger=json.dumps(trigger),
            secret="whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            created_at=T0,
            updated_at=T0,
            **overrides,
        )
        session.add(alert)
    return alert
