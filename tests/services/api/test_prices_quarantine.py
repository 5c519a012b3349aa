"""A quote on a card with no market price and no launch price (H200, B200, MI300X) is
checked against its peer cards' reference and quarantined beyond the factor like any
other; the answer says which reference it was (issue 24 item 4, issue 26 item 5)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation

# Peer market prices (new, scraped): an H100 SXM for the H200 SXM, a B300 and a GB200
# for the B200 (modules like it), an MI325X for the MI300X. None of the three has a
# price or a launch price of its own.
PEERS = [("h100-sxm5", "30000"), ("b300", "45000"), ("gb200", "41000"), ("mi325x", "22000")]


@pytest.fixture(scope="module")
def client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    directory = tmp_path_factory.mktemp("peer-quarantine")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
        for gpu_id, usd in PEERS:
            session.add(
                make_observation(
                    gpu_id=gpu_id,
                    condition="new",
                    usd=usd,
                    source="newegg",
                    observed_at=datetime.now(UTC) - timedelta(days=2),
                )
            )
    with session_scope(engine) as session:
        key = create_key(session, "peers", "write")
    engine.dispose()
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(create_app(settings)) as test_client:
        test_client.headers["Authorization"] = f"Bearer {key.key}"
        yield test_client
    if pg_name:
        _drop_postgres_database(pg_name)


def post(client: TestClient, gpu_id: str, usd: str, condition: str = "new") -> dict[str, Any]:
    body = {"gpu_id": gpu_id, "usd": usd, "condition": condition, "source": "test quote"}
    response = client.post("/prices", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


@pytest.mark.parametrize(
    ("gpu_id", "plausible", "reference_usd", "peers"),
    [
        ("h200-sxm", "32000", "30000.00", ["h100-sxm5 $30,000"]),
        ("b200", "38000", "43000.00", ["b300 $45,000", "gb200 $41,000"]),
        ("mi300x", "15000", "22000.00", ["mi325x $22,000"]),
    ],
)
def test_a_99_dollar_quote_on_a_card_without_a_market_is_quarantined_against_its_peers(
    client: TestClient, gpu_id: str, plausible: str, reference_usd: str, peers: list[str]
) -> None:
    absurd = post(client, gpu_id, "99")
    assert absurd["quarantined"] is True
    assert absurd["quarantine_reason"] == "below_median_factor"
    assert absurd["reference_usd"] == reference_usd
    assert absurd["reference"].startswith("peer cards' reference")
    assert all(peer in absurd["reference"] for peer in peers)
    accepted = post(client, gpu_id, plausible)
    assert accepted["quarantined"] is False and accepted["quarantine_reason"] is None
    assert accepted["reference_usd"] == reference_usd
    # The held-back quote is never the best one shown, the accepted one is.
    shown = client.get(f"/gpus/{gpu_id}").json()["best_quote"]["new"]
    assert shown["usd"] == f"{plausible}.00"


def test_a_used_quote_is_checked_against_half_the_peers_new_reference(
    client: TestClient,
) -> None:
    absurd = post(client, "h200-nvl", "99", "used")  # H200 NVL (PCIe): H100 SXM as peer
    assert absurd["quarantined"] is True and absurd["reference_usd"] == "15000.00"
    assert "h100-sxm5 $30,000 new, half for used" in absurd["reference"]
    assert post(client, "h200-nvl", "14000", "used")["quarantined"] is False
    # Far above is held back too.
    assert post(client, "h200-nvl", "60000", "used")["quarantine_reason"] == "above_median_factor"


def test_a_card_with_no_reference_at_all_is_stored_unchecked_and_says_so(
    client: TestClient,
) -> None:
    created = post(client, "tesla-p4", "99")  # Pascal datacenter: no price, launch or peer
    assert created["quarantined"] is False
    assert created["reference_usd"] is None and created["reference"] is None


def test_a_card_with_a_market_price_keeps_its_own_reference(client: TestClient) -> None:
    created = post(client, "h100-sxm5", "99")
    assert created["quarantined"] is True and created["reference_usd"] == "30000.00"
    assert created["reference"].startswith("newest market price")
