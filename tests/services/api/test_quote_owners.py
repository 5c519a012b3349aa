"""Who a quote belongs to (both backends): what GET /quotes lists for whom, what an id
reaches, the anonymous creation limit on the API and the /quotes form, migration 0008."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, text
from sqlmodel import col, select
from typer.testing import CliRunner

from services.api.app import create_app
from services.api.ratelimit import RateLimiter
from services.cli.quotes import app as quotes_app
from shared.alerts.keys import create_key
from shared.kit.db import alembic_config, make_engine, migrate, session_scope
from shared.kit.settings import get_settings
from shared.perfmodel.registry import get_model
from shared.quotes.jobs import recompute_standard_quotes
from shared.quotes.models import Quote
from shared.quotes.store import list_quotes, list_visible_quotes, owner_label
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.processes import RedisServer
from tests.services.api.conftest import MARKET_SETTINGS, _load_market

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
CLUSTER = {"gpu": "rtx-3090", "count": 2}
COMPARE = {"candidates": [{"gpu": "rtx-3090", "count": 2}, {"gpu": "rtx-a6000"}]}
MakeClient = Callable[..., TestClient]


@pytest.fixture(scope="module")
def owners_db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("owners"))
    migrate(url)
    _load_market(url)
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture
def make_client(owners_db: str, tmp_path: Path) -> Iterator[MakeClient]:
    """A fresh app per client, so each test starts with its own (in-memory) limits."""
    clients: list[TestClient] = []

    def build(client: tuple[str, int] = ("203.0.113.7", 50000), **overrides: Any) -> TestClient:
        settings = make_settings(
            owners_db, tmp_path, load_bundled_data=False, **{**MARKET_SETTINGS, **overrides}
        )
        test_client = TestClient(create_app(settings), client=client)
        test_client.__enter__()
        clients.append(test_client)
        return test_client

    yield build
    for test_client in clients:
        test_client.__exit__(None, None, None)


def new_key(url: str) -> dict[str, str]:
    return new_key_with_id(url)[1]


def new_key_with_id(url: str) -> tuple[int, dict[str, str]]:
    engine = make_engine(url)
    with session_scope(engine) as session:
        created = create_key(session, "quotes", "read")
    engine.dispose()
    return created.id, {"Authorization": f"Bearer {created.key}"}


def listed(client: TestClient, headers: dict[str, str] | None = None, **params: Any) -> set[str]:
    response = client.get("/quotes", params={"limit": 100, **params}, headers=headers or {})
    assert response.status_code == 200, response.text
    return {q["id"] for q in response.json()["items"]}


def message(response: Any) -> str:
    """The error sentence, wherever the error envelope of the day puts it."""
    body = response.json()
    found = body.get("message") or body.get("detail", {}).get("message")
    return str(found)


def stored_quotes(url: str) -> int:
    engine = make_engine(url)
    with session_scope(engine) as session:
        count = session.exec(select(func.count()).select_from(Quote)).one()
    engine.dispose()
    return int(count)


def test_an_anonymous_quote_is_unlisted_but_reachable_by_its_id(
    make_client: MakeClient, owners_db: str
) -> None:
    client = make_client()
    cluster = client.post("/quotes/cluster", json=CLUSTER)
    compare = client.post("/quotes/compare", json=COMPARE)
    assert cluster.status_code == compare.status_code == 201
    made = {cluster.json()["id"], compare.json()["id"]}
    someone = new_key(owners_db)
    for headers in (None, someone):
        assert not made & listed(client, headers)
        assert not made & listed(client, headers, standard="true")
    for quote_id in made:
        assert client.get(f"/quotes/{quote_id}").json()["id"] == quote_id
    assert client.get(f"/quotes/{cluster.json()['id']}", params={"format": "csv"}).is_success


def test_a_keys_quotes_are_listed_for_that_key_only(
    make_client: MakeClient, owners_db: str
) -> None:
    client = make_client()
    key_a, key_b = new_key(owners_db), new_key(owners_db)
    first = client.post("/quotes/cluster", json=CLUSTER, headers=key_a).json()["id"]
    second = client.post("/quotes/compare", json=COMPARE, headers=key_a).json()["id"]
    page = client.get("/quotes", headers=key_a).json()
    assert [q["id"] for q in page["items"]] == [second, first]  # newest first
    assert (page["limit"], page["offset"]) == (20, 0)
    one = client.get("/quotes", params={"limit": 1, "offset": 1}, headers=key_a).json()
    assert [q["id"] for q in one["items"]] == [first]
    assert not {first, second} & listed(client, key_b)
    assert not {first, second} & listed(client)
    assert not {first, second} & listed(client, key_a, standard="true")
    # Readable by its id, as before: the id is the capability.
    assert client.get(f"/quotes/{first}").status_code == 200
    assert client.get(f"/quotes/{second}", headers=key_b).status_code == 200


def test_standard_quotes_are_listed_for_everyone(make_client: MakeClient, owners_db: str) -> None:
    client = make_client()
    settings = client.app.state.settings  # type: ignore[attr-defined]
    engine = make_engine(owners_db)
    with session_scope(engine) as session:
        recompute_standard_quotes(session, None, settings, get_model())
        standard = {
            q.id for q in session.exec(select(Quote).where(col(Quote.standard_key).is_not(None)))
        }
    engine.dispose()
    assert standard
    key_a = new_key(owners_db)
    for headers in (None, key_a):
        assert listed(client, headers, standard="true") == standard
        assert not standard & listed(client, headers)  # the default lists one's own quotes
    # The standard job's rows have no owner.
    engine = make_engine(owners_db)
    with session_scope(engine) as session:
        rows = session.exec(select(Quote).where(col(Quote.id).in_(standard))).all()
        assert {owner_label(q) for q in rows} == {"standard"}
        assert {q.owner_key_id for q in rows} == {None}
    engine.dispose()


def test_a_bad_key_is_refused_not_treated_as_anonymous(make_client: MakeClient) -> None:
    client = make_client()
    bogus = {"Authorization": "Bearer gpa_000000000000_nope"}
    assert client.post("/quotes/cluster", json=CLUSTER, headers=bogus).status_code == 401
    assert client.get("/quotes", headers=bogus).status_code == 401


def test_anonymous_creation_over_the_limit_is_429_and_a_key_is_not_affected(
    make_client: MakeClient, owners_db: str
) -> None:
    client = make_client(anonymous_quote_rate_per_minute=2)
    # Refused input stores nothing, so it does not count.
    assert client.post("/quotes/cluster", json={"gpu": "rtx-9999"}).status_code == 422
    assert client.post("/quotes/cluster", json=CLUSTER).status_code == 201
    assert client.post("/quotes/compare", json=COMPARE).status_code == 201
    before = stored_quotes(owners_db)
    for path, body in (("/quotes/cluster", CLUSTER), ("/quotes/compare", COMPARE)):
        limited = client.post(path, json=body)
        assert limited.status_code == 429, path
        assert 1 <= int(limited.headers["retry-after"]) <= 60
        assert "2 new quotes per minute" in message(limited)
    assert stored_quotes(owners_db) == before, "an over-limit request stores nothing"
    # A keyed client keeps the per-key limit only.
    key = new_key(owners_db)
    statuses = [client.post("/quotes/cluster", json=CLUSTER, headers=key).status_code]
    statuses.append(client.post("/quotes/compare", json=COMPARE, headers=key).status_code)
    statuses += [client.post("/quotes/cluster", json=CLUSTER, headers=key).status_code]
    assert statuses == [201, 201, 201]
    # Reads stay open, and the limit is per client address.
    assert client.get("/quotes", params={"standard": "true"}).status_code == 200
    other = TestClient(client.app, client=("198.51.100.9", 50000))
    assert other.post("/quotes/cluster", json=CLUSTER).status_code == 201


def test_an_ipv6_client_is_limited_by_its_64(make_client: MakeClient) -> None:
    client = make_client(client=("2001:db8:1:2::10", 50000), anonymous_quote_rate_per_minute=1)
    assert client.post("/quotes/cluster", json=CLUSTER).status_code == 201
    neighbour = TestClient(client.app, client=("2001:db8:1:2:ffff::1", 50000))
    assert neighbour.post("/quotes/cluster", json=CLUSTER).status_code == 429
    elsewhere = TestClient(client.app, client=("2001:db8:1:3::10", 50000))
    assert elsewhere.post("/quotes/cluster", json=CLUSTER).status_code == 201


def test_the_quotes_form_is_throttled_too(make_client: MakeClient, owners_db: str) -> None:
    client = make_client(anonymous_quote_rate_per_minute=2)
    first = client.get("/quotes", params={"gpu": "rtx-3090", "count": "3"}, headers=BROWSER)
    second = client.get("/quotes", params={"gpu": "rtx-3090", "count": "5"}, headers=BROWSER)
    assert first.status_code == second.status_code == 200
    # A reload reuses the stored quote: no new row, so it does not count.
    again = client.get("/quotes", params={"gpu": "rtx-3090", "count": "3"}, headers=BROWSER)
    assert again.status_code == 200
    third = client.get("/quotes", params={"gpu": "rtx-3090", "count": "6"}, headers=BROWSER)
    assert third.status_code == 429
    assert third.headers["content-type"].startswith("text/html")
    assert 1 <= int(third.headers["retry-after"]) <= 60
    assert 'id="quote-form"' in third.text and "new quotes per minute" in third.text
    assert 'id="quote-result"' not in third.text
    # The form and the API count in one bucket per client.
    assert client.post("/quotes/cluster", json=CLUSTER).status_code == 429
    keyed = client.get(
        "/quotes",
        params={"gpu": "rtx-3090", "count": "6"},
        headers={**BROWSER, **new_key(owners_db)},
    )
    assert keyed.status_code == 200


def test_the_form_reuses_only_the_same_owners_quote(
    make_client: MakeClient, owners_db: str
) -> None:
    client = make_client()
    key = new_key(owners_db)
    query = {"gpu": "rtx-3090", "count": "7"}

    def form(headers: dict[str, str]) -> str:
        page = client.get("/quotes", params=query, headers={**BROWSER, **headers})
        assert page.status_code == 200, page.text
        found = re.search(r'data-quote="([0-9a-f]+)"', page.text)
        assert found
        return found.group(1)

    keyed = form(key)
    anonymous = form({})
    assert anonymous != keyed, "an identical anonymous request never finds the key's quote"
    assert form(key) == keyed and form({}) == anonymous
    assert keyed in listed(client, key) and anonymous not in listed(client, key)


def test_a_key_is_counted_once_when_reads_require_keys(
    make_client: MakeClient, owners_db: str
) -> None:
    client = make_client(require_key_for_reads=True, rate_limit_per_minute=3)
    key = new_key(owners_db)
    statuses = [client.get("/quotes", headers=key).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert client.get("/quotes").status_code == 401


def test_the_cli_lists_every_quote_with_its_owner(
    make_client: MakeClient, owners_db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make_client()
    key_id, key = new_key_with_id(owners_db)
    keyed = client.post("/quotes/cluster", json=CLUSTER, headers=key).json()["id"]
    anonymous = client.post("/quotes/cluster", json=CLUSTER).json()["id"]
    engine = make_engine(owners_db)
    settings = client.app.state.settings  # type: ignore[attr-defined]
    with session_scope(engine) as session:
        recompute_standard_quotes(session, None, settings, get_model())
    engine.dispose()
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", owners_db)
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        ran = CliRunner().invoke(quotes_app, ["list", "--limit", "100"])
        standard = CliRunner().invoke(quotes_app, ["list", "--standard", "--limit", "100"])
    finally:
        get_settings.cache_clear()
    assert ran.exit_code == 0, ran.output
    rows = {line.split("  ")[0]: line.split("  ") for line in ran.output.splitlines()}
    assert rows[keyed][1:] == ["cluster", rows[keyed][2], f"key:{key_id}", CLUSTER["gpu"]]
    assert rows[keyed][2].startswith("$")
    assert rows[anonymous][3] == "anonymous"
    assert standard.exit_code == 0
    assert {line.split("  ")[3] for line in standard.output.splitlines()} == {"standard"}


def test_the_anonymous_limit_counts_in_the_shared_redis(tmp_path: Path) -> None:
    """Two API processes (two limiters on one Redis) share the count exactly, and the
    scoped names never touch the per-key ones."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    try:
        one, two = RateLimiter(100, server.url), RateLimiter(100, server.url)
        anon_one, anon_two = one.scoped("anon", 3), two.scoped("anon", 3)
        hits = [anon_one.hit("203.0.113.7"), anon_two.hit("203.0.113.7")]
        hits += [anon_one.hit("203.0.113.7"), anon_two.hit("203.0.113.7")]
        assert hits[:3] == [None, None, None] and hits[3] is not None
        assert one.hit(7) is None and anon_one.hit("198.51.100.9") is None
    finally:
        server.stop()


def test_scoped_limits_share_the_in_memory_table() -> None:
    base = RateLimiter(1)
    anon = base.scoped("anon", 2)
    assert base.hit(1) is None and base.hit(1) is not None
    assert anon.hit(1) is None, "its own names: the per-key count does not spill over"
    assert base.scoped("anon", 2).hit(1) is None  # a new view counts in the same table
    assert anon.hit(1) is not None


def test_migration_0008_keeps_standard_quotes_and_makes_the_rest_anonymous(
    backend: str, tmp_path: Path
) -> None:
    url, pg_name = new_database(backend, tmp_path)
    try:
        command.upgrade(alembic_config(url), "0007")
        engine = create_engine(url)
        insert = text(
            "INSERT INTO quote (id, kind, standard_key, gpu_ids, request_json, result_json,"
            " total_usd, model_version, prices_as_of, created_at, updated_at) VALUES (:id,"
            " 'cluster', :key, 'rtx-3090', '{}', '{}', 1600, 'v1', NULL, :at, :at)"
        )
        with engine.begin() as conn:
            conn.execute(
                insert, {"id": "a" * 32, "key": "4x-rtx-3090", "at": "2026-11-01 00:00:00"}
            )
            conn.execute(insert, {"id": "b" * 32, "key": None, "at": "2026-11-02 00:00:00"})
        engine.dispose()
        command.upgrade(alembic_config(url), "head")
        engine = make_engine(url)
        with session_scope(engine) as session:
            owners = {q.id[0]: owner_label(q) for q in list_quotes(session, True, 10, 0)}
            owners |= {q.id[0]: owner_label(q) for q in list_quotes(session, False, 10, 0)}
            assert owners == {"a": "standard", "b": "anonymous"}
            assert [q.id[0] for q in list_visible_quotes(session, True, None, 10, 0)] == ["a"]
            assert list_visible_quotes(session, False, None, 10, 0) == []
        engine.dispose()
        # And back: the downgrade drops the column on both backends.
        command.downgrade(alembic_config(url), "0007")
        command.upgrade(alembic_config(url), "head")
    finally:
        if pg_name:
            _drop_postgres_database(pg_name)


def test_invalid_keys_are_rate_limited_per_client(make_client: MakeClient, owners_db: str) -> None:
    client = make_client(rate_limit_per_minute=3)
    bad = {"Authorization": "Bearer gpa_nope_0123456789"}
    statuses = [client.get("/alerts", headers=bad).status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]
    refused = client.get("/alerts", headers=bad)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    # Over its budget the client is refused before the lookup: a right guess looks the same.
    good = new_key(owners_db)
    assert client.get("/alerts", headers=good).status_code == 429
    # Another client's check runs: the key verifies (403: a read key, /alerts needs write).
    other = make_client(("198.51.100.9", 50000), rate_limit_per_minute=3)
    assert other.get("/alerts", headers=good).status_code == 403


def test_metrics_need_a_read_key_when_reads_do(make_client: MakeClient, owners_db: str) -> None:
    open_reads = make_client()
    assert open_reads.get("/metrics").status_code == 200
    keyed = make_client(("198.51.100.10", 50000), require_key_for_reads=True)
    assert keyed.get("/metrics").status_code == 401
    answer = keyed.get("/metrics", headers=new_key(owners_db))
    assert answer.status_code == 200 and "gpu_advisor_http_requests" in answer.text
