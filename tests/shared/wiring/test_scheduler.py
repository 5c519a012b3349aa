"""A start catches up by itself: work a killed process had queued in memory is redone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import select

from services.api.app import create_app
from shared.kit.db import make_engine, migrate, session_scope
from shared.models import Score
from shared.seed import seed_catalog
from tests.conftest import make_settings, new_database
from tests.factories import make_observation, recompute
from tests.processes import wait_for


def _prices(engine, gpu_id: str) -> set[Decimal]:
    with session_scope(engine) as session:
        rows = session.exec(select(Score).where(Score.gpu_id == gpu_id)).all()
    return {r.price_usd for r in rows if r.condition == "used"}


def test_a_price_whose_recompute_was_lost_reaches_the_scores_at_the_next_start(
    tmp_path: Path,
) -> None:
    url, _ = new_database("sqlite", tmp_path)
    migrate(url)
    engine = make_engine(url)
    now = datetime.now(UTC)
    with session_scope(engine) as session:
        seed_catalog(session)
        session.add(make_observation(usd="800", observed_at=now - timedelta(days=1)))
        session.flush()
        recompute(session)
    assert _prices(engine, "rtx-3090") == {Decimal("800.00")}
    # Committed, but its recompute never ran: the process was killed with it queued.
    with session_scope(engine) as session:
        session.add(make_observation(usd="500", observed_at=now, listing_id="cheaper"))
    settings = make_settings(url, tmp_path, load_bundled_data=False, inprocess_scheduler=True)
    with TestClient(create_app(settings)):
        wait_for(
            lambda: _prices(engine, "rtx-3090") != {Decimal("800.00")} or None,
            60,
            "the catch-up recompute",
        )
    engine.dispose()
