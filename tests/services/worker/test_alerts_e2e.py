"""Alerts end to end: the scraper stores prices, a real worker recomputes and evaluates,
beat sweeps the outbox, and a local receiver gets signed webhooks."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select
from standardwebhooks.webhooks import Webhook

from services.scraper.runner import run_sources
from shared.alerts.keys import create_key
from shared.alerts.models import Alert, AlertEvent
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import Settings
from shared.seed import seed_catalog
from shared.wiring.runtime import open_context
from tests.conftest import _create_postgres_database, _drop_postgres_database
from tests.processes import RedisServer, Service, wait_for
from tests.receiver import Receiver
from tests.services.scraper.fixture_server import FixtureServer
from tests.services.scraper.scrape_env import route_all, scraper_settings

pytestmark = pytest.mark.slow
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    url, name = _create_postgres_database()
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    redis_server = RedisServer(tmp_path)
    redis_server.start()
    env = {
        "GPU_ADVISOR_DATABASE_URL": url,
        "GPU_ADVISOR_BROKER_URL": redis_server.url,
        "GPU_ADVISOR_WEBHOOK_ALLOWLIST": "127.0.0.1",
        "GPU_ADVISOR_ALERT_DISPATCH_INTERVAL_S": "0.5",
        "GPU_ADVISOR_WEBHOOK_RETRY_SCHEDULE_S": "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
        "GPU_ADVISOR_WEBHOOK_LEASE_S": "3",
        "GPU_ADVISOR_REDIS_VISIBILITY_TIMEOUT_S": "5",
        "GPU_ADVISOR_REDIS_RESTORE_INTERVAL_S": "1",
        "GPU_ADVISOR_TASK_RETRY_BACKOFF_MAX_S": "1",
    }
    beat = Service(
        "beat",
        f"celery -A services.worker.celery_app beat -s {tmp_path}/beat-schedule",
        env,
        tmp_path,
    ).start()
    yield {
        "url": url,
        "engine": engine,
        "env": env,
        "logs": tmp_path,
        "beat": beat,
        "redis": redis_server,
    }
    beat.stop()
    redis_server.stop()
    engine.dispose()
    _drop_postgres_database(name)


def start_worker(stack: dict[str, Any], name: str, **extra: str) -> Service:
    command = (
        "celery -A services.worker.celery_app worker -Q compute,alerts --concurrency 1 "
        f"--loglevel INFO -n {name}@%h"
    )
    return Service(name, command, {**stack["env"], **extra}, stack["logs"]).start()


def add_alert(engine: Engine, alert_id: str, url: str, trigger: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    with session_scope(engine) as session:
        key = create_key(session, alert_id, "write")
        session.add(
            Alert(
                id=alert_id,
                owner_key_id=key.id,
                url=url,
                trigger_type=trigger["type"],
                trigger=json.dumps(trigger),
                secret=SECRET,
                cooldown_s=3600,
                created_at=now,
                updated_at=now,
            )
        )


def scrape_ebay(stack: dict[str, Any], server: FixtureServer) -> None:
    settings = Settings(
        database_url=stack["url"], broker_url=stack["env"]["GPU_ADVISOR_BROKER_URL"]
    )
    # The scrape sends its recompute to the stack's broker, as the scraper worker would.
    [report] = run_sources(
        ["ebay"],
        ctx=open_context(settings, stack["engine"]),
        scraper_settings=scraper_settings(server),
    )
    assert report.stored > 0, report.summary_json()


def events(engine: Engine) -> list[AlertEvent]:
    with session_scope(engine) as session:
        return list(session.exec(select(AlertEvent)))


@pytest.fixture
def fixture_server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        route_all(server)
        yield server


def verified(request: Any) -> dict[str, Any]:
    headers = {k: v for k, v in request.headers.items() if k.startswith("webhook-")}
    payload: dict[str, Any] = Webhook(SECRET).verify(request.body, headers)
    return payload


def test_a_scraped_price_below_the_threshold_is_delivered_once(stack, fixture_server):
    receiver = Receiver().start()
    worker = start_worker(stack, "alerts-1")
    try:
        trigger = {
            "type": "price_below",
            "gpu_id": "rtx-4090",
            "condition": "any",
            "max_price_usd": "5000",
        }
        add_alert(stack["engine"], "alr_e2e", receiver.url, trigger)
        scrape_ebay(stack, fixture_server)
        wait_for(lambda: receiver.received, 60, "the webhook")
        time.sleep(3)  # more sweeps and evaluations must not send it again
        [request] = receiver.received
        payload = verified(request)
        assert payload["type"] == "price_below" and payload["alert_id"] == "alr_e2e"
        observation = payload["data"]["observation"]
        assert observation["kind"] == "scraped" and observation["source"].startswith("ebay")
        assert observation["url"] and observation["observed_at"]
    finally:
        worker.stop()
        receiver.stop()


def test_a_receiver_down_for_a_while_gets_every_event_once_after_recovery(stack, fixture_server):
    receiver = Receiver()
    port = receiver.port
    receiver.respond((503, {}))
    receiver.start()
    worker = start_worker(stack, "alerts-2")
    url = f"http://127.0.0.1:{port}/hook"
    try:
        for gpu in ("rtx-4090", "rtx-3090", "rtx-4080"):
            trigger = {
                "type": "price_below",
                "gpu_id": gpu,
                "condition": "any",
                "max_price_usd": "9000",
            }
            add_alert(stack["engine"], f"alr_{gpu}", url, trigger)
        scrape_ebay(stack, fixture_server)
        wait_for(
            lambda: len(events(stack["engine"])) >= 2 and len(receiver.received) >= 3, 60, "503s"
        )
        receiver.stop()  # now the connection is refused
        time.sleep(3)
        assert all(e.status == "pending" for e in events(stack["engine"]))
        recovered = Receiver(port=port).start()
        try:
            expected = {e.webhook_id for e in events(stack["engine"])}
            wait_for(
                lambda: all(e.status == "delivered" for e in events(stack["engine"])),
                60,
                "delivery",
            )
            ids = [r.headers["webhook-id"] for r in recovered.received]
            assert sorted(ids) == sorted(expected)  # every event, each once
            assert all(verified(r)["alert_id"].startswith("alr_") for r in recovered.received)
        finally:
            recovered.stop()
    finally:
        worker.stop()


def test_a_worker_killed_mid_delivery_loses_nothing(stack, fixture_server):
    receiver = Receiver().start()
    stuck = start_worker(stack, "stuck", GPU_ADVISOR_FAULT_INJECTION="deliver-pause:60")
    try:
        trigger = {
            "type": "price_below",
            "gpu_id": "rtx-4090",
            "condition": "any",
            "max_price_usd": "5000",
        }
        add_alert(stack["engine"], "alr_kill", receiver.url, trigger)
        scrape_ebay(stack, fixture_server)
        wait_for(lambda: receiver.received, 60, "the first POST")
        stuck.kill(signal.SIGKILL)  # after the POST, before it was recorded
        rescuer = start_worker(stack, "rescuer")
        try:
            wait_for(
                lambda: [e.status for e in events(stack["engine"])] == ["delivered"],
                60,
                "redelivery",
            )
        finally:
            rescuer.stop()
        ids = [r.headers["webhook-id"] for r in receiver.received]
        [event] = events(stack["engine"])
        assert set(ids) == {event.webhook_id} and 1 <= len(ids) <= 2  # at most one duplicate
    finally:
        stuck.stop()
        receiver.stop()
