"""Webhook tests to receivers that do not answer hold no worker thread and no database
connection: with more tests in flight than the thread pool has threads (45 against 40),
the API still answers reads and writes, and each key has a bound of its own."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import uvicorn

from services.api.app import create_app
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.processes import wait_for
from tests.receiver import Receiver, running_receiver
from tests.services.api.test_alerts import alert_body, new_key

pytestmark = pytest.mark.slow

IN_FLIGHT = 45  # more than the 40 threads of the thread pool


@pytest.fixture
def api(backend: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    url, pg_name = new_database(backend, tmp_path)
    settings = make_settings(
        url, tmp_path, load_bundled_data=False, webhook_allowlist="127.0.0.1", webhook_timeout_s=60
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started, 60, "uvicorn")
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", url
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()
    if pg_name:  # left behind by every run before (two a run)
        _drop_postgres_database(pg_name)


@pytest.fixture
def held() -> Iterator[Receiver]:
    with running_receiver() as receiver:
        receiver.hold()
        yield receiver


def _alert(base: str, url: str, receiver: Receiver) -> tuple[dict[str, str], str]:
    _, headers = new_key(url)
    created = httpx.post(f"{base}/alerts", json=alert_body(receiver.url), headers=headers)
    assert created.status_code == 201, created.text
    return headers, created.json()["id"]


def test_tests_waiting_on_receivers_starve_nothing(api, held) -> None:
    base, url = api
    alerts = [_alert(base, url, held) for _ in range(IN_FLIGHT)]
    pool = ThreadPoolExecutor(IN_FLIGHT)
    futures = [
        pool.submit(httpx.post, f"{base}/alerts/{alert_id}/test", headers=headers, timeout=120)
        for headers, alert_id in alerts
    ]
    try:
        wait_for(lambda: len(held.received) >= IN_FLIGHT, 60, "every test to reach the receiver")
        # Every test is now waiting on the receiver. The API still reads and writes: before,
        # these waited for a free thread (and on SQLite for the write lock).
        headers, _ = alerts[0]
        assert httpx.get(f"{base}/alerts", headers=headers, timeout=20).status_code == 200
        assert httpx.get(f"{base}/health", timeout=20).status_code == 200
        created = httpx.post(
            f"{base}/alerts", json=alert_body(held.url), headers=headers, timeout=20
        )
        assert created.status_code == 201
        assert not any(f.done() for f in futures)
    finally:
        held.release()
    answers = [f.result() for f in futures]
    pool.shutdown()
    assert [a.status_code for a in answers] == [200] * IN_FLIGHT
    assert all(a.json()["ok"] for a in answers)
    headers, alert_id = alerts[-1]
    deliveries = httpx.get(f"{base}/alerts/{alert_id}/deliveries", headers=headers).json()
    assert [(d["event_type"], d["status"]) for d in deliveries["items"]] == [
        ("alert.test", "delivered")
    ]


def test_one_key_has_a_bound_of_tests_in_flight(api, held) -> None:
    base, url = api
    headers, alert_id = _alert(base, url, held)
    pool = ThreadPoolExecutor(2)
    first = [
        pool.submit(httpx.post, f"{base}/alerts/{alert_id}/test", headers=headers, timeout=120)
        for _ in range(2)
    ]
    try:
        wait_for(lambda: len(held.received) >= 2, 60, "two tests to reach the receiver")
        third = httpx.post(f"{base}/alerts/{alert_id}/test", headers=headers, timeout=20)
        assert third.status_code == 429 and third.headers["retry-after"] == "1"
        assert "at most 2 webhook tests" in third.json()["message"]
    finally:
        held.release()
    assert [f.result().status_code for f in first] == [200, 200]
    pool.shutdown()
    # The slots are free again once the receiver has answered.
    again = httpx.post(f"{base}/alerts/{alert_id}/test", headers=headers, timeout=20)
    assert again.status_code == 200
