"""What moved between two /recommend answers (shared/decisions/replay.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any


def result(gpu: str, rank: int, usd: str) -> dict[str, Any]:
    """A ranked result with the fields the replay reads, as /recommend writes them."""
    return {
        "rank": rank,
        "gpu": {"id": gpu},
        "price": {
            "usd": usd,
            "unit": "usd",
            "condition": "used",
            "estimated": False,
            "observed_at": "2026-11-08T00:00:00Z",
            "basis": "one price (asking price), 2026-11-08",
            "measure_description": "asking price",
        },
        "perf_per_1000_usd": 1000 / float(usd),
        "total_cost_usd": usd,
        "relative_performance": 1.0,
        "cost_per_unit": {"usd": "0.5", "unit": "usd per 1k images"} if gpu == "x" else None,
    }


def test_cards_that_entered_left_or_moved_and_the_model_version() -> None:
    from shared.decisions.replay import what_moved

    then = {"model_version": "a", "results": [result("x", 1, "10"), result("y", 2, "20")]}
    now = {"model_version": "b", "results": [result("z", 1, "5"), result("x", 2, "12")]}
    moved = what_moved(then, now)
    assert moved["entered"] == ["z"]
    assert moved["left"] == ["y"]
    assert [c["gpu_id"] for c in moved["results"]] == ["z", "x", "y"]
    x = moved["results"][1]
    assert x["status"] == "kept"
    assert x["rank"] == {"then": 1, "now": 2, "moved": -1}
    assert x["price"]["change"] == Decimal("2")
    assert x["price"]["change_pct"] == 20.0
    assert x["price"]["then_basis"]["observed_at"] == "2026-11-08T00:00:00Z"
    assert x["perf_per_1000_usd"]["now"] < x["perf_per_1000_usd"]["then"]
    assert x["cost_per_unit_usd"]["change"] == Decimal("0")
    y = moved["results"][2]
    assert y["status"] == "left" and y["rank"]["now"] is None and y["price"]["change"] is None
    assert moved["model_version"] == {"then": "a", "now": "b", "changed": True}


def test_the_same_answer_moved_nothing() -> None:
    from shared.decisions.replay import what_moved

    answer = {"model_version": "a", "results": [result("x", 1, "10")]}
    moved = what_moved(answer, answer)
    assert moved["entered"] == moved["left"] == []
    (card,) = moved["results"]
    assert card["rank"]["moved"] == 0 and card["price"]["change"] == Decimal("0")
    assert moved["model_version"]["changed"] is False
