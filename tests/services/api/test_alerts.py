"""Alerts, API keys and POST /prices over HTTP, with work run eagerly after commits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from standardwebhooks.webhooks import Webhook
from typer.testing import CliRunner

from services.api.app import create_app
from services.cli.main import app as cli_app
from shared.alerts.keys import create_key, revoke_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.events import enqueue_after_commit, recompute_call
from shared.kit.settings import get_settings
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, new_database
from tests.factories import make_observation
from tests.receiver import Receiver, running_receiver


@pytest.fixture(scope="module")
def alerts_db(backend, tmp_path_factory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("alerts"))
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
    engine.dispose()
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


def _reset_caches() -> None:
    get_settings.cache_clear()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
def make_client(alerts_db, monkeypatch, tmp_path):
    clients = []

    def build(**env: str) -> TestClient:
        values = {
            "GPU_ADVISOR_DATABASE_URL": alerts_db,
            "GPU_ADVISOR_DATA_DIR": str(tmp_path),
            "GPU_ADVISOR_INPROCESS_MODE": "eager",
            "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
            "GPU_ADVISOR_LOAD_BUNDLED_DATA": "false",
            "GPU_ADVISOR_WEBHOOK_ALLOWLIST": "127.0.0.1",
            **env,
        }
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        _reset_caches()
        client = TestClient(create_app(get_settings()))
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)
    _reset_caches()


def new_key(url: str, scope: str = "write", all_quotes: bool = False) -> tuple[int, dict[str, str]]:
    engine = make_engine(url)
    with session_scope(engine) as session:
        created = create_key(session, f"test-{scope}", scope, all_quotes=all_quotes)
    engine.dispose()
    return created.id, {"Authorization": f"Bearer {created.key}"}


def alert_body(url: str, **trigger) -> dict[str, Any]:
    base = {
        "type": "price_below",
        "gpu_id": "rtx-3090",
        "condition": "used",
        "max_price_usd": "500",
    }
    return {"url": url, "trigger": {**base, **trigger}}


def test_write_endpoints_need_a_key_with_write_scope(make_client, alerts_db, receiver):
    client = make_client()
    body = alert_body(receiver.url)
    assert client.post("/alerts", json=body).status_code == 401
    assert (
        client.post("/alerts", json=body, headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )
    _, read_headers = new_key(alerts_db, "read")
    assert client.post("/alerts", json=body, headers=read_headers).status_code == 403
    _, headers = new_key(alerts_db)
    created = client.post("/alerts", json=body, headers=headers)
    assert created.status_code == 201
    assert created.json()["secret"].startswith("whsec_")
    fetched = client.get(f"/alerts/{created.json()['id']}", headers=headers).json()
    assert "secret" not in fetched and fetched["trigger"]["max_price_usd"] == "500"


def test_each_key_sees_only_its_own_alerts_and_revocation_is_immediate(
    make_client, alerts_db, receiver
):
    client = make_client()
    owner_id, owner = new_key(alerts_db)
    _, other = new_key(alerts_db)
    alert_id = client.post("/alerts", json=alert_body(receiver.url), headers=owner).json()["id"]
    for method, path in (
        ("GET", f"/alerts/{alert_id}"),
        ("PATCH", f"/alerts/{alert_id}"),
        ("DELETE", f"/alerts/{alert_id}"),
        ("POST", f"/alerts/{alert_id}/test"),
        ("GET", f"/alerts/{alert_id}/deliveries"),
    ):
        kwargs = {"json": {"description": "x"}} if method == "PATCH" else {}
        assert client.request(method, path, headers=other, **kwargs).status_code == 404, path
    assert alert_id not in [a["id"] for a in client.get("/alerts", headers=other).json()["items"]]
    assert client.get(f"/alerts/{alert_id}", headers=owner).status_code == 200
    engine = make_engine(alerts_db)
    with session_scope(engine) as session:
        revoke_key(session, owner_id)
    engine.dispose()
    assert client.get(f"/alerts/{alert_id}", headers=owner).status_code == 401


def test_per_key_rate_limit_answers_429_with_retry_after(make_client, alerts_db):
    client = make_client(GPU_ADVISOR_RATE_LIMIT_PER_MINUTE="3")
    _, headers = new_key(alerts_db)
    statuses = [client.get("/alerts", headers=headers).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = client.get("/alerts", headers=headers)
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    _, fresh = new_key(alerts_db)
    assert client.get("/alerts", headers=fresh).status_code == 200


@pytest.mark.parametrize(
    ("url", "hint"),
    [
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://0x7f000001:8080/", None),  # 127.0.0.1 spelled in hex: allowlisted here
        ("http://10.0.0.1/hook", "private"),
        ("gopher://example.com/", "scheme"),
        # CR/LF and tab would be dropped by the URL parser but kept in the stored URL.
        ("http://0x7f000001:8080/hook\r\nX-Injected: 1", "\\r"),
        ("http://0x7f000001:8080/ho\nok", "\\n"),
        ("http://0x7f000001:8080/a\tb", "\\t"),
        ("http://0x7f000001:8080/a b", "space"),
    ],
)
def test_webhook_urls_are_checked_at_registration(make_client, alerts_db, url, hint):
    client = make_client()
    _, headers = new_key(alerts_db)
    response = client.post("/alerts", json=alert_body(url), headers=headers)
    if hint is None:
        assert response.status_code == 201
        return
    assert response.status_code == 422
    assert response.json()["message"].startswith("url:") and hint in response.json()["message"]


@pytest.mark.parametrize(
    ("trigger", "field"),
    [
        ({"gpu_id": "rtx-9999"}, "gpu_id"),
        ({"max_price_usd": "-3"}, "max_price_usd"),
        ({"type": "price_rise"}, "trigger"),
    ],
)
def test_bad_triggers_are_422_naming_the_field(make_client, alerts_db, receiver, trigger, field):
    client = make_client()
    _, headers = new_key(alerts_db)
    response = client.post("/alerts", json=alert_body(receiver.url, **trigger), headers=headers)
    assert response.status_code == 422
    assert field in response.json()["message"]


def test_a_trigger_gpu_is_an_id_name_or_known_alias_exactly(make_client, alerts_db, receiver):
    client = make_client()
    _, headers = new_key(alerts_db)
    named = client.post(
        "/alerts", json=alert_body(receiver.url, gpu_id="RTX 4090"), headers=headers
    )
    assert named.status_code == 201 and named.json()["trigger"]["gpu_id"] == "rtx-4090"
    loose = alert_body(receiver.url, gpu_id="not a 4090")
    refused = client.post("/alerts", json=loose, headers=headers)
    assert refused.status_code == 422
    assert (
        "gpu_id: Value error, unknown GPU 'not a 4090'; did you mean rtx-4090"
        in (refused.json()["message"])
    )


def test_patch_delete_and_test_event(make_client, alerts_db, receiver):
    client = make_client()
    _, headers = new_key(alerts_db)
    alert_id = client.post("/alerts", json=alert_body(receiver.url), headers=headers).json()["id"]
    patched = client.patch(
        f"/alerts/{alert_id}",
        json={
            "trigger": alert_body(receiver.url, max_price_usd="450")["trigger"],
            "cooldown_s": 60,
        },
        headers=headers,
    ).json()
    assert patched["trigger"]["max_price_usd"] == "450" and patched["cooldown_s"] == 60
    result = client.post(f"/alerts/{alert_id}/test", headers=headers)
    assert result.status_code == 200
    assert result.json()["status_code"] == 200 and result.json()["ok"]
    assert "secret-content" not in result.text  # never echo the target's body
    [request] = receiver.received
    assert json.loads(request.body)["type"] == "alert.test"
    deliveries = client.get(f"/alerts/{alert_id}/deliveries", headers=headers).json()["items"]
    assert (
        deliveries[0]["event_type"] == "alert.test"
        and deliveries[0]["attempts_log"][0]["status_code"] == 200
    )
    assert client.delete(f"/alerts/{alert_id}", headers=headers).status_code == 204
    assert client.get(f"/alerts/{alert_id}", headers=headers).status_code == 404


def test_a_posted_price_below_the_threshold_delivers_one_signed_event(
    make_client, alerts_db, receiver
):
    client = make_client()
    _, headers = new_key(alerts_db)
    created = client.post(
        "/alerts",
        json=alert_body(receiver.url, gpu_id="rtx-2080-ti", max_price_usd="300"),
        headers=headers,
    ).json()
    price = {"gpu_id": "RTX 2080 Ti", "usd": "350", "condition": "used", "source": "vendor-quote"}
    assert client.post("/prices", json=price, headers=headers).status_code == 201
    assert receiver.received == []
    cheap = client.post("/prices", json={**price, "usd": "280"}, headers=headers)
    assert cheap.status_code == 201 and cheap.json()["gpu_id"] == "rtx-2080-ti"
    [request] = receiver.received
    headers_in = {k: v for k, v in request.headers.items() if k.startswith("webhook-")}
    payload = Webhook(created["secret"]).verify(request.body, headers_in)
    assert payload["type"] == "price_below" and payload["alert_id"] == created["id"]
    observation = payload["data"]["observation"]
    assert observation["price_usd"] == "280.00" and observation["source"] == "vendor-quote"
    assert datetime.fromisoformat(observation["observed_at"]) <= datetime.now(UTC)
    # Still true, hovering: no second delivery.
    client.post("/prices", json={**price, "usd": "290"}, headers=headers)
    assert len(receiver.received) == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"gpu_id": "rtx-9999"}, "gpu_id"),
        ({"usd": "0"}, "usd"),
        ({"usd": "abc"}, "usd"),
        ({"condition": "broken"}, "condition"),
        ({"source": ""}, "source"),
    ],
)
def test_bad_prices_are_422_and_store_nothing(make_client, alerts_db, change, field):
    client = make_client()
    _, headers = new_key(alerts_db)
    body = {"gpu_id": "rtx-3090", "usd": "700", "condition": "used", "source": "vendor", **change}
    response = client.post("/prices", json=body, headers=headers)
    assert response.status_code == 422
    assert field in response.json()["message"]


def test_reads_can_require_a_key(make_client, alerts_db):
    client = make_client(GPU_ADVISOR_REQUIRE_KEY_FOR_READS="true")
    assert client.get("/gpus").status_code == 401
    assert client.get("/health").status_code == 200
    _, headers = new_key(alerts_db, "read")
    assert client.get("/gpus", headers=headers).status_code == 200


def test_a_failed_commit_is_an_error_not_a_201(make_client, alerts_db, receiver, monkeypatch):
    from sqlalchemy import event
    from sqlmodel import Session

    client = make_client()
    _, headers = new_key(alerts_db)

    def refuse(session: Session) -> None:
        raise RuntimeError("the database refused the commit")

    event.listen(Session, "before_commit", refuse)
    try:
        response = TestClient(client.app, raise_server_exceptions=False).post(
            "/alerts", json=alert_body(receiver.url), headers=headers
        )
    finally:
        event.remove(Session, "before_commit", refuse)
    assert response.status_code == 500
    assert client.get("/alerts", headers=headers).json()["items"] == []


def test_a_price_that_rounds_to_zero_cents_is_refused(make_client, alerts_db):
    client = make_client()
    _, headers = new_key(alerts_db)
    body = {"gpu_id": "rtx-4090", "usd": "0.004", "condition": "used", "source": "typo"}
    response = client.post("/prices", json=body, headers=headers)
    assert response.status_code == 422 and response.json()["message"].startswith("usd:")


def test_a_manual_price_far_from_the_market_is_kept_but_quarantined(make_client, alerts_db):
    client = make_client()
    _, headers = new_key(alerts_db)
    base = {"gpu_id": "rtx-a5000", "condition": "used"}
    for n, usd in enumerate(("1000", "1020", "980")):
        posted = client.post(
            "/prices", json={**base, "usd": usd, "source": f"vendor-{n}"}, headers=headers
        )
        assert posted.json()["quarantined"] is False and posted.json()["measure"] == "quote"
    # No market data here: the reference is the launch price ($2,250; half for used).
    typo = client.post("/prices", json={**base, "usd": "10000", "source": "typo"}, headers=headers)
    assert typo.status_code == 201 and typo.json()["quarantined"] is True
    assert typo.json()["quarantine_reason"] == "above_median_factor"
    assert typo.json()["reference_usd"] == "1125.00"
    assert typo.json()["reference"] == "launch price $2,250 (half for used)"
    detail = client.get("/gpus/rtx-a5000", headers=headers).json()
    assert detail["market_prices"]["used"] is None  # quotes never become the market price
    assert detail["best_quote"]["used"]["usd"] == "980.00"  # the cheapest, quarantine aside
    history = client.get(
        "/gpus/rtx-a5000/prices", params={"source": "typo"}, headers=headers
    ).json()
    assert [p["quarantined"] for p in history["items"]] == [True]
    assert history["best_quote"]["used"]["source"] == "vendor-2"


def test_a_test_delivery_holds_no_database_connection_while_the_receiver_answers(
    make_client, alerts_db
):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    client = make_client()
    engine = client.app.state.engine
    seen: list[int] = []

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self.rfile.read(int(self.headers.get("content-length", 0)))
            # Checked while the API waits for this answer.
            seen.append(engine.pool.checkedout())
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        _, headers = new_key(alerts_db)
        alert_id = client.post("/alerts", json=alert_body(url), headers=headers).json()["id"]
        result = client.post(f"/alerts/{alert_id}/test", headers=headers)
    finally:
        server.shutdown()
        server.server_close()
    assert result.status_code == 200 and result.json()["ok"]
    assert seen == [0]
    deliveries = client.get(f"/alerts/{alert_id}/deliveries", headers=headers).json()["items"]
    assert deliveries[0]["attempts_log"][0]["status_code"] == 204


def _alerts_per_key(
    client: TestClient, receiver: Receiver, keys: dict[str, dict[str, str]], **trigger: str
) -> None:
    """One price_below alert per key, each delivering to its own path of the receiver."""
    for name, headers in keys.items():
        body = alert_body(f"{receiver.url}/{name}", **trigger)
        assert client.post("/alerts", json=body, headers=headers).status_code == 201


def _fired(receiver: Receiver) -> list[str]:
    return sorted(r.path.rsplit("/", 1)[1] for r in receiver.received)


def test_a_quote_fires_only_its_own_keys_alerts_and_a_market_price_every_ones(
    make_client, alerts_db, receiver
):
    """Issue 24: one customer's negotiated price must not reach another's webhook."""
    client = make_client()
    keys = {
        "mine": new_key(alerts_db)[1],
        "theirs": new_key(alerts_db)[1],
        "operator": new_key(alerts_db, all_quotes=True)[1],
    }
    _alerts_per_key(client, receiver, keys, gpu_id="rtx-a4000", max_price_usd="600")
    quote = {"gpu_id": "rtx-a4000", "usd": "550", "condition": "used", "source": "negotiated"}
    assert client.post("/prices", json=quote, headers=keys["mine"]).status_code == 201
    assert _fired(receiver) == ["mine", "operator"]  # the key's own, and all_quotes
    bodies = [json.loads(r.body) for r in receiver.received]
    assert {b["data"]["observation"]["source"] for b in bodies} == {"negotiated"}
    # A market price is everyone's: the alert that no quote of another key could fire.
    ctx = client.app.state.context
    with ctx.session() as session:
        session.add(
            make_observation(
                gpu_id="rtx-a4000", usd="540", source="ebay", observed_at=datetime.now(UTC)
            )
        )
        session.flush()
        enqueue_after_commit(session, recompute_call(["rtx-a4000"]))
    assert _fired(receiver) == ["mine", "operator", "theirs"]


def test_an_operator_quote_fires_only_the_alerts_of_keys_that_see_every_quote(
    make_client, alerts_db, receiver, monkeypatch
):
    """`gpu-advisor prices add` stores a quote without a key: an operator quote."""
    client = make_client()
    keys = {"plain": new_key(alerts_db)[1], "operator": new_key(alerts_db, all_quotes=True)[1]}
    _alerts_per_key(
        client, receiver, keys, gpu_id="rtx-a6000", condition="new", max_price_usd="4500"
    )
    added = CliRunner().invoke(
        cli_app,
        [
            "prices",
            "add",
            "--gpu",
            "rtx-a6000",
            "--usd",
            "4399",
            "--condition",
            "new",
            "--source",
            "op",
        ],
    )
    assert added.exit_code == 0, added.output
    assert json.loads(added.output)["reference"] == "launch price $4,650"
    assert _fired(receiver) == ["operator"]
    plain = client.get("/gpus/rtx-a6000", headers=keys["plain"]).json()["best_quote"]["new"]
    seen = client.get("/gpus/rtx-a6000", headers=keys["operator"]).json()["best_quote"]["new"]
    assert plain is None and seen["usd"] == "4399.00" and seen["source"] == "op"
