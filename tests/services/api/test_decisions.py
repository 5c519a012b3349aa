"""POST /decisions, GET /decisions/{id} (JSON and CSV), GET /decisions/{id}/replay on
both backends: kept as answered, to its key alone, bad queries named under `query.`, and
a price change shown by the replay."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.decisions.store import CSV_COLUMNS
from shared.kit.db import make_engine, migrate, session_scope
from shared.models import PriceObservation
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation, plain_settings, recompute
from tests.services.api.conftest import MARKET_SETTINGS, NOW, _load_market

QUERY: dict[str, str | int] = {"task": "cv", "memory_gb": 24, "condition": "used"}


@pytest.fixture(scope="module")
def decisions_db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("decisions"))
    migrate(url)
    _load_market(url)
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture(scope="module")
def client(decisions_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = make_settings(
        decisions_db,
        tmp_path_factory.mktemp("decisions-app"),
        load_bundled_data=False,
        **MARKET_SETTINGS,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def new_key(url: str, scope: str = "write") -> dict[str, str]:
    engine = make_engine(url)
    with session_scope(engine) as session:
        created = create_key(session, "decisions", scope)
    engine.dispose()
    return {"Authorization": f"Bearer {created.key}"}


def observations(url: str, ids: list[int]) -> list[PriceObservation]:
    engine = make_engine(url)
    with session_scope(engine) as session:
        rows = list(
            session.exec(select(PriceObservation).where(PriceObservation.id.in_(ids)))  # type: ignore[union-attr]
        )
        session.expunge_all()
    engine.dispose()
    return rows


def decide(client: TestClient, key: dict[str, str], **body: object) -> dict[str, object]:
    response = client.post("/decisions", json={"query": QUERY, **body}, headers=key)
    assert response.status_code == 201, response.text
    found: dict[str, object] = response.json()
    return found


def test_a_decision_keeps_the_recommend_answer_and_reads_back_unchanged(
    client: TestClient, decisions_db: str
) -> None:
    key = new_key(decisions_db)
    posted = client.post(
        "/decisions", json={"query": QUERY, "note": "PO 4411: lab workstation"}, headers=key
    )
    assert posted.status_code == 201, posted.text
    decision = posted.json()
    assert set(decision) >= {"id", "created_at", "query", "answer", "prices", "model_version"}
    # The answer is /recommend's body for the same query and key, as it answers.
    asked = client.get("/recommend", params=QUERY, headers=key)
    assert decision["answer"] == asked.json()
    assert decision["model_version"] == asked.json()["model_version"]
    assert decision["query"] == QUERY
    assert decision["note"] == "PO 4411: lab workstation"
    read = client.get(f"/decisions/{decision['id']}", headers=key)
    assert read.status_code == 200
    assert read.content == posted.content  # byte for byte
    results = decision["answer"]["results"]
    assert results, "the test market ranks used 24 GB cards"
    assert [p["gpu_id"] for p in decision["prices"]] == [r["gpu"]["id"] for r in results]
    for used, result in zip(decision["prices"], results, strict=True):
        ids = [row["id"] for row in used["price_observations"]]
        assert ids, f"{used['gpu_id']}: no observation listed"
        rows = observations(decisions_db, ids)
        assert {r.gpu_id for r in rows} == {result["gpu"]["id"]}
        # The test market has one price per card: the row is the price.
        assert [r.price_usd for r in rows] == [Decimal(result["price"]["last_usd"])]
        assert all(r.condition == "used" for r in rows)


def test_without_a_key_401_and_another_keys_decision_is_404(
    client: TestClient, decisions_db: str
) -> None:
    owner, other = new_key(decisions_db), new_key(decisions_db)
    assert client.post("/decisions", json={"query": QUERY}).status_code == 401
    decision_id = decide(client, owner)["id"]
    assert client.get(f"/decisions/{decision_id}").status_code == 401
    assert client.get(f"/decisions/{decision_id}/replay").status_code == 401
    for path in (f"/decisions/{decision_id}", f"/decisions/{decision_id}/replay"):
        refused = client.get(path, headers=other)
        assert refused.status_code == 404
        assert "decision_id" in refused.json()["message"]
    unknown = client.get(f"/decisions/{'0' * 32}", headers=owner)
    assert unknown.status_code == 404
    # A read key cannot make one.
    read_only = new_key(decisions_db, "read")
    assert client.post("/decisions", json={"query": QUERY}, headers=read_only).status_code == 403


@pytest.mark.parametrize(
    ("query", "field", "valid"),
    [
        ({"task": "gaming"}, "query.task", "llm-inference"),
        ({"task": "cv", "prompt_tokens": 512}, "query.prompt_tokens", "task=llm-inference"),
        ({"task": "cv", "memroy_gb": 24}, "query.memroy_gb", None),
        ({"memory_gb": 24}, "query.task", None),
    ],
)
def test_a_bad_query_is_a_422_naming_the_field_inside_query(
    client: TestClient, decisions_db: str, query: dict[str, object], field: str, valid: str | None
) -> None:
    key = new_key(decisions_db)
    refused = client.post("/decisions", json={"query": query}, headers=key)
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["message"].startswith(f"{field}:"), body["message"]
    if valid is not None:
        assert valid in json.dumps(body["detail"])


def test_the_csv_export_has_a_line_per_result_with_its_price_ids(
    client: TestClient, decisions_db: str
) -> None:
    key = new_key(decisions_db)
    decision = decide(client, key, note="=SUM(A1)")
    exported = client.get(f"/decisions/{decision['id']}", params={"format": "csv"}, headers=key)
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert tuple(rows[0]) == CSV_COLUMNS
    answer = decision["answer"]
    assert isinstance(answer, dict)
    lines = [r for r in rows if r["category"] == "result"]
    assert [r["gpu"] for r in lines] == [r["gpu"]["id"] for r in answer["results"]]
    prices = decision["prices"]
    assert isinstance(prices, list)
    for line, result, used in zip(lines, answer["results"], prices, strict=True):
        assert Decimal(line["price_usd"]) == Decimal(result["price"]["usd"])
        assert line["price_as_of"] == result["price"]["observed_at"]
        expected = " ".join(str(row["id"]) for row in used["price_observations"])
        assert line["price_observation_ids"] == expected
    (query,) = [r for r in rows if r["category"] == "query"]
    assert json.loads(query["text"]) == QUERY
    (note,) = [r for r in rows if r["category"] == "note"]
    assert note["text"] == "'=SUM(A1)"  # never a formula in a spreadsheet
    (model,) = [r for r in rows if r["category"] == "model"]
    assert decision["model_version"] in model["text"]


# Last in this module: it changes the market the other tests rank.
def test_the_replay_after_a_price_change_shows_the_moved_price(
    client: TestClient, decisions_db: str
) -> None:
    key = new_key(decisions_db)
    decision = decide(client, key)
    before = client.get(f"/decisions/{decision['id']}", headers=key).content
    answer = decision["answer"]
    assert isinstance(answer, dict)
    then = {r["gpu"]["id"]: r for r in answer["results"]}["rtx-3090"]
    engine = make_engine(decisions_db)
    with session_scope(engine) as session:
        # A newer used price, beyond the market window of the old one: today's price.
        session.add(
            make_observation(
                gpu_id="rtx-3090", condition="used", usd="600", observed_at=NOW + timedelta(days=9)
            )
        )
        session.flush()
        recompute(session, ["rtx-3090"], settings=plain_settings(**MARKET_SETTINGS))
    engine.dispose()

    replay = client.get(f"/decisions/{decision['id']}/replay", headers=key)
    assert replay.status_code == 200, replay.text
    moved = replay.json()
    card = {c["gpu_id"]: c for c in moved["results"]}["rtx-3090"]
    assert card["status"] == "kept"
    assert Decimal(card["price"]["then"]) == Decimal(then["price"]["usd"])
    assert Decimal(card["price"]["now"]) == Decimal("600.00")
    assert Decimal(card["price"]["change"]) == Decimal("600.00") - Decimal(then["price"]["usd"])
    assert card["price"]["now_basis"]["observed_at"].startswith(
        (NOW + timedelta(days=9)).date().isoformat()
    )
    # Cheaper for the same speed: more perf per $1,000 than then.
    assert card["perf_per_1000_usd"]["now"] > card["perf_per_1000_usd"]["then"]
    assert card["rank"]["then"] == then["rank"]
    assert moved["model_version"]["then"] == decision["model_version"]
    assert moved["model_version"]["now"] == moved["answer"]["model_version"]
    assert moved["answer"]["results"] == client.get("/recommend", params=QUERY).json()["results"]
    # The record itself does not move.
    assert client.get(f"/decisions/{decision['id']}", headers=key).content == before
