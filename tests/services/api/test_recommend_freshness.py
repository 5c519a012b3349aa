from datetime import UTC, datetime

from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.kit.db import make_engine, migrate, session_scope
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation, recompute


def _add_price_and_recompute(url: str, usd: str, day: int) -> None:
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
        observed = datetime(2026, 11, day, tzinfo=UTC)
        # Three asks: a market price (one ask is a market of one).
        for _ in range(3):
            session.add(make_observation(gpu_id="rtx-3090", usd=usd, observed_at=observed))
        session.flush()
        recompute(session, ["rtx-3090"])
    engine.dispose()


def test_a_recompute_reaches_the_next_answer_despite_the_answer_cache(backend, tmp_path):
    url, pg_name = new_database(backend, tmp_path)
    try:
        migrate(url)
        _add_price_and_recompute(url, "800", day=1)
        settings = make_settings(url, tmp_path, load_bundled_data=False)
        with TestClient(create_app(settings)) as client:
            params: dict[str, str | int] = {"task": "cv", "memory_gb": 24}
            first = client.get("/recommend", params=params).json()
            assert client.get("/recommend", params=params).json() == first
            assert first["results"][0]["price"]["usd"] == "800.00"
            _add_price_and_recompute(url, "650", day=20)
            second = client.get("/recommend", params=params).json()
            assert second["results"][0]["price"]["usd"] == "650.00"
            assert second["prices_as_of"].startswith("2026-11-20")
    finally:
        if pg_name:
            _drop_postgres_database(pg_name)
