"""Every 4xx and 5xx JSON answer has a top-level `message` and a `detail`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import Settings
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.services.api.web.conftest import BROWSER

RATE_LIMIT = 2
BOOM = "the secret connection string leaked into this text"


@pytest.fixture(scope="module")
def envelope_settings(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """A catalog-only database with a low per-key rate limit, counted in memory."""
    directory: Path = tmp_path_factory.mktemp("envelope")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    yield make_settings(url, directory, load_bundled_data=False, rate_limit_per_minute=RATE_LIMIT)
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def client(envelope_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(envelope_settings)) as client:
        yield client


def new_key(settings: Settings, scope: str) -> dict[str, str]:
    """A fresh key per test, so rate-limit counts never leak between tests."""
    engine = make_engine(settings.sqlalchemy_url)
    with session_scope(engine) as session:
        created = create_key(session, f"envelope-{scope}", scope)
    engine.dispose()
    return {"Authorization": f"Bearer {created.key}"}


class Answer(Protocol):
    """What the checks read from a response (the test client's httpx flavour varies)."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    @property
    def headers(self) -> Any: ...

    def json(self) -> Any: ...


def assert_envelope(response: Answer, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert isinstance(body["message"], str) and body["message"].strip()
    assert isinstance(body["detail"], dict | list) and body["detail"]
    return body


def test_401_without_a_key_keeps_www_authenticate(client: TestClient) -> None:
    response = client.get("/alerts")
    body = assert_envelope(response, 401)
    assert body["message"] == "Authorization: Bearer <API key> is required"
    assert body["detail"]["field"] == "Authorization"
    assert response.headers["www-authenticate"] == "Bearer"


def test_401_with_an_unknown_key(client: TestClient) -> None:
    response = client.get("/alerts", headers={"Authorization": "Bearer nope"})
    body = assert_envelope(response, 401)
    assert "unknown" in body["message"]
    assert response.headers["www-authenticate"] == "Bearer"


def test_403_for_a_key_without_the_scope(client: TestClient, envelope_settings: Settings) -> None:
    response = client.get("/alerts", headers=new_key(envelope_settings, "read"))
    body = assert_envelope(response, 403)
    assert "write needed" in body["message"]
    assert body["detail"]["message"] == body["message"]


def test_404_for_an_unknown_gpu_names_the_field(client: TestClient) -> None:
    body = assert_envelope(client.get("/gpus/rtx-9999"), 404)
    assert "GET /gpus" in body["message"]
    assert body["detail"]["field"] == "gpu_id"


def test_404_for_an_unknown_route(client: TestClient) -> None:
    body = assert_envelope(client.get("/no-such-endpoint"), 404)
    assert "/no-such-endpoint" in body["message"]
    assert body["detail"] == {"message": "Not Found"}


def test_405_for_a_wrong_method_keeps_allow(client: TestClient) -> None:
    response = client.delete("/gpus")
    body = assert_envelope(response, 405)
    assert body["message"].startswith("DELETE is not allowed on /gpus")
    assert "GET" in response.headers["allow"]


def test_422_keeps_its_shape(client: TestClient) -> None:
    body = assert_envelope(client.get("/gpus", params={"segment": "gaming"}), 422)
    assert set(body) == {"message", "detail"}
    assert body["message"].startswith("segment:")
    assert body["detail"][0]["loc"] == ["query", "segment"]


def test_429_keeps_retry_after(client: TestClient, envelope_settings: Settings) -> None:
    headers = new_key(envelope_settings, "write")
    # A sliding window: the request after the limit is refused, whatever the clock says.
    statuses = [client.get("/alerts", headers=headers).status_code for _ in range(RATE_LIMIT)]
    assert statuses == [200] * RATE_LIMIT
    response = client.get("/alerts", headers=headers)
    body = assert_envelope(response, 429)
    assert "rate limit" in body["message"]
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= 60
    assert body["detail"]["retry_after"] == retry_after


def test_500_gives_an_error_id_and_hides_the_exception(
    envelope_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    app: FastAPI = create_app(envelope_settings)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError(BOOM)

    with (
        TestClient(app, raise_server_exceptions=False) as client,
        caplog.at_level(logging.ERROR, logger="services.api.errors"),
    ):
        response = client.get("/boom")
    body = assert_envelope(response, 500)
    assert body["message"] == "internal error"
    error_id = body["detail"]["error_id"]
    assert isinstance(error_id, str) and 6 <= len(error_id) <= 16
    assert BOOM not in response.text and "RuntimeError" not in response.text
    logged = [r for r in caplog.records if error_id in r.getMessage()]
    assert logged and logged[0].exc_info is not None


def test_html_pages_keep_their_own_error_pages(client: TestClient) -> None:
    page = client.get("/gpus/rtx-9999", headers=BROWSER)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
