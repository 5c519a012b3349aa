"""The embedded default answers from the newest bundled public prices."""

from __future__ import annotations

from typing import Any


def _results(client: Any, **params: Any) -> dict[str, dict[str, Any]]:
    response = client.get("/recommend", params={"limit": 100, **params})
    assert response.status_code == 200, response.text
    return {r["gpu"]["id"]: r for r in response.json()["results"]}


def test_cv_24gb_ranks_on_2026_prices_each_labelled(bundled_client):
    results = _results(bundled_client, task="cv", memory_gb=24)
    for gpu_id in ("rtx-3090", "rtx-4090", "rtx-5090"):
        price = results[gpu_id]["price"]
        assert price["observed_at"].startswith("2026-"), (gpu_id, price)
        assert price["measure"] and price["measure_description"] and price["source"]
    # GPU Poet's September 2026 report, not the October 2023 eBay average of $704.
    assert results["rtx-3090"]["price"]["usd"] == "1207.00"
    assert "GPU Poet" in results["rtx-3090"]["price"]["source"]


def test_datacenter_cards_appear_where_data_prices_them(bundled_client):
    bought = _results(bundled_client, task="nlp", memory_gb=80)
    rented = _results(bundled_client, task="nlp", memory_gb=80, condition="cloud")
    assert {"h200-nvl", "rtx-pro-6000-blackwell"} <= set(bought)
    assert {"h200-sxm", "b200", "mi300x", "a100-80gb-sxm4", "a100-80gb-pcie"} <= set(rented)
    for result in rented.values():
        assert result["price"]["unit"] == "usd_per_gpu_hour" and not result["price"]["stale"]


def test_old_cloud_snapshots_are_history_not_offers(bundled_client):
    h100 = bundled_client.get("/gpus/h100-sxm5").json()["cloud"]
    runpod = [o for o in h100 if o["provider"] == "runpod"]
    assert runpod and not any(o["current"] for o in runpod)  # pre-2025 prices
    assert any(o["current"] and o["provider"] == "gpu-price-index" for o in h100)
