"""Typed factories for test data, with overrides."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from shared.models import PriceObservation

_counter = 0


def make_observation(**overrides: Any) -> PriceObservation:
    global _counter
    _counter += 1
    price = Decimal(str(overrides.pop("usd", "1000.00")))
    values: dict[str, Any] = {
        "gpu_id": "rtx-3090",
        "condition": "used",
        "price": price,
        "currency": "USD",
        "price_usd": price,
        "kind": "scraped",
        "source": "test-market",
        "url": f"http://127.0.0.1/listing/{_counter}",
        "listing_id": f"listing-{_counter}",
        "title": "NVIDIA GeForce RTX 3090 24GB",
        "quantity": 1,
        "observed_at": datetime(2026, 11, 1, 12, tzinfo=UTC),
    }
    values.update(overrides)
    return PriceObservation(**values)
