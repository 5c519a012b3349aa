"""Who sees a posted quote (both backends, through the API): the key that posted it and
keys with all_quotes; never another key, never an anonymous caller (issue 24 item 4).
Operator quotes (`gpu-advisor prices add`, no key) are seen by all_quotes keys only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from services.api.app import create_app
from services.cli.main import app as cli_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import get_settings
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.services.api.conftest import MARKET_SETTINGS, _load_market

GPU = "rtx-3090"
Headers = dict[str, str]


@pytest.fixture(scope="module")
def owners_url(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("price-owners"))
    migrate(url)
    _load_market(url)  # a used RTX 3090 at $800
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def client(owners_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = make_settings(
        owners_url, tmp_path_factory.mktemp("app"), load_bundled_data=False, **MARKET_SETTINGS
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def new_key(url: str, all_quotes: bool = False) -> Headers:
    engine = make_engine(url)
    with session_scope(engine) as session:
        created = create_key(session, "owners", "write", all_quotes=all_quotes)
    engine.dispose()
    return {"Authorization": f"Bearer {created.key}"}


def post_quote(client: TestClient, key: Headers, usd: str, source: str) -> dict[str, Any]:
    body = {"gpu_id": GPU, "usd": usd, "condition": "used", "source": source}
    response = client.post("/prices", json=body, headers=key)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert created["quarantined"] is False
    return created


def best_on_recommend(client: TestClient, key: Headers | None = None) -> str | None:
    params: dict[str, Any] = {"task": "cv", "memory_gb": 24, "condition": "used", "limit": 100}
    response = client.get("/recommend", params=params, headers=key or {})
    assert response.status_code == 200, response.text
    [result] = [r for r in response.json()["results"] if r["gpu"]["id"] == GPU]
    quote = result["best_quote"]
    return None if quote is None else str(quote["source"])


def best_on_detail(client: TestClient, key: Headers | None = None) -> str | None:
    response = client.get(f"/gpus/{GPU}", headers=key or {})
    assert response.status_code == 200, response.text
    quote = response.json()["best_quote"]["used"]
    return None if quote is None else str(quote["source"])


def history(client: TestClient, key: Headers | None = None, **params: Any) -> dict[str, Any]:
    response = client.get(f"/gpus/{GPU}/prices", params=params, headers=key or {})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_a_quote_shows_to_its_key_and_all_quotes_keys_only(
    client: TestClient, owners_url: str
) -> None:
    mine, theirs, operator = new_key(owners_url), new_key(owners_url), new_key(owners_url, True)
    # The anonymous answer is cached first: a keyed answer must not come from it, nor
    # go into it.
    assert best_on_recommend(client) is None
    post_quote(client, mine, "700", "Acme for me")
    for _ in range(2):  # the second time from whatever cache holds it
        assert best_on_recommend(client, mine) == "Acme for me"
        assert best_on_recommend(client, operator) == "Acme for me"
        assert best_on_recommend(client, theirs) is None
        assert best_on_recommend(client) is None
    assert best_on_detail(client, mine) == "Acme for me"
    assert best_on_detail(client, operator) == "Acme for me"
    assert best_on_detail(client, theirs) is None and best_on_detail(client) is None


def test_the_history_lists_only_the_callers_quotes(client: TestClient, owners_url: str) -> None:
    mine, theirs, operator = new_key(owners_url), new_key(owners_url), new_key(owners_url, True)
    post_quote(client, mine, "720", "Broker for me")
    post_quote(client, theirs, "730", "Broker for them")

    def quote_sources(key: Headers | None) -> tuple[set[str], set[str], int]:
        found = history(client, key, limit=500)
        items = {p["source"] for p in found["items"] if p["measure"] == "quote"}
        assert found["total"] == len(found["items"])
        return {q["source"] for q in found["quotes"]}, items, found["total"]

    anonymous_quotes, anonymous_items, market_total = quote_sources(None)
    assert anonymous_quotes == anonymous_items == set()
    my_quotes, my_items, my_total = quote_sources(mine)
    assert "Broker for me" in my_quotes and "Broker for them" not in my_quotes
    assert my_items == my_quotes and my_total == market_total + len(my_items)
    everyone, _, _ = quote_sources(operator)
    assert {"Broker for me", "Broker for them"} <= everyone
    # A quote's source names who quoted it: not a valid filter for callers who cannot see it.
    assert client.get(f"/gpus/{GPU}/prices", params={"source": "Broker for me"}).status_code == 422
    refused = client.get(f"/gpus/{GPU}/prices", params={"source": "Broker for me"}, headers=theirs)
    assert refused.status_code == 422
    valid = refused.json()["detail"][0]["valid"]
    assert "Broker for them" in valid and "Broker for me" not in valid
    [only] = history(client, mine, source="Broker for me")["items"]
    assert only["usd"] == "720.00"


def test_an_operator_quote_shows_to_all_quotes_keys_only(
    client: TestClient, owners_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, operator = new_key(owners_url), new_key(owners_url, all_quotes=True)
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", owners_url)
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_ADVISOR_LOAD_BUNDLED_DATA", "false")
    # The CLI's recompute prices this database's single asks as the app does.
    for name, value in MARKET_SETTINGS.items():
        monkeypatch.setenv(f"GPU_ADVISOR_{name.upper()}", str(value))
    get_settings.cache_clear()
    try:
        added = CliRunner().invoke(
            cli_app,
            ["prices", "add", "--gpu", GPU, "--usd", "650", "--condition", "used"]
            + ["--source", "House price"],
        )
    finally:
        get_settings.cache_clear()
    assert added.exit_code == 0, added.output
    stored = json.loads(added.output)
    assert stored["quarantined"] is False and stored["reference_usd"] == "800.00"
    assert best_on_detail(client, operator) == "House price"  # the cheapest it sees
    assert best_on_recommend(client, operator) == "House price"
    assert best_on_detail(client, plain) is None and best_on_detail(client) is None
    assert best_on_recommend(client, plain) is None
