"""What moved between a kept /recommend answer and the same query answered today.

Per card (ranked then, now or both): rank, price (with its basis and date), perf per
$1,000, total cost, relative performance and cost per unit, then and now; cards that
entered or left the ranking; the model version and newest price date then and now.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

Json = dict[str, Any]


def _price(result: Json | None) -> Json | None:
    if result is None:
        return None
    price = result["price"]
    return {
        "usd": price["usd"],
        "unit": price["unit"],
        "condition": price["condition"],
        "estimated": price["estimated"],
        "observed_at": price["observed_at"],
        "basis": price.get("basis") or price["measure_description"],
    }


def _number(value: Any) -> Decimal | None:
    try:
        return None if value is None else Decimal(str(value))
    except InvalidOperation:
        return None


def _change(then: Any, now: Any) -> Json:
    """Then, now and now minus then (None where either is missing)."""
    a, b = _number(then), _number(now)
    change = None if a is None or b is None else b - a
    percent = None if change is None or not a else round(float(change / a) * 100, 2)
    return {"then": then, "now": now, "change": change, "change_pct": percent}


def _figure(result: Json | None, key: str) -> Any:
    return None if result is None else result.get(key)


def _cost(result: Json | None) -> Any:
    cost = None if result is None else result.get("cost_per_unit")
    return None if cost is None else cost.get("usd")


def _card(gpu_id: str, then: Json | None, now: Json | None) -> Json:
    status = "kept" if then and now else ("entered" if now else "left")
    then_price, now_price = _price(then), _price(now)
    rank_then, rank_now = _figure(then, "rank"), _figure(now, "rank")
    return {
        "gpu_id": gpu_id,
        "status": status,
        "rank": {
            "then": rank_then,
            "now": rank_now,
            # Positive: the card moved up the ranking.
            "moved": None if then is None or now is None else rank_then - rank_now,
        },
        "price": {
            **_change(
                then_price["usd"] if then_price else None, now_price["usd"] if now_price else None
            ),
            "then_basis": then_price,
            "now_basis": now_price,
        },
        "perf_per_1000_usd": _change(
            _figure(then, "perf_per_1000_usd"), _figure(now, "perf_per_1000_usd")
        ),
        "total_cost_usd": _change(_figure(then, "total_cost_usd"), _figure(now, "total_cost_usd")),
        "relative_performance": _change(
            _figure(then, "relative_performance"), _figure(now, "relative_performance")
        ),
        "cost_per_unit_usd": _change(_cost(then), _cost(now)),
    }


def what_moved(then: Json, now: Json) -> Json:
    """The moves from answer `then` to answer `now` (both /recommend bodies)."""
    before = {r["gpu"]["id"]: r for r in then.get("results", [])}
    after = {r["gpu"]["id"]: r for r in now.get("results", [])}
    # Today's order first, then the cards that left in their old order.
    order = list(after) + [gpu_id for gpu_id in before if gpu_id not in after]
    cards = [_card(gpu_id, before.get(gpu_id), after.get(gpu_id)) for gpu_id in order]
    return {
        "model_version": {
            "then": then.get("model_version"),
            "now": now.get("model_version"),
            "changed": then.get("model_version") != now.get("model_version"),
        },
        "prices_as_of": {"then": then.get("prices_as_of"), "now": now.get("prices_as_of")},
        "entered": [c["gpu_id"] for c in cards if c["status"] == "entered"],
        "left": [c["gpu_id"] for c in cards if c["status"] == "left"],
        "results": cards,
    }
