"""Each /recommend result says how much market stands behind its price."""

from __future__ import annotations


def test_every_result_shows_its_availability(bundled_client):
    bought = bundled_client.get("/recommend", params={"task": "cv", "memory_gb": 24})
    assert bought.status_code == 200, bought.text
    results = bought.json()["results"]
    assert results
    for result in results:
        available = result["availability"]
        # The bundled purchase prices are months old: no listing in the market window.
        assert available == "unknown" or (
            available["listings"] == 0
            and available["offers_now"] is None
            and available["window_days"] == 7
            and "listing in the 7 days" in available["note"]
        )
    rented = bundled_client.get(
        "/recommend", params={"task": "cv", "memory_gb": 24, "condition": "cloud"}
    )
    assert rented.status_code == 200, rented.text
    counted = [
        r["availability"] for r in rented.json()["results"] if r["availability"] != "unknown"
    ]
    assert counted and all(a["offers_now"] >= 1 and a["providers"] >= 1 for a in counted)
