"""Typed factories for test data, with overrides."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from shared.kit.settings import Settings
from shared.models import CloudOffer, PriceObservation
from shared.perfmodel.base import PerformanceModel
from shared.perfmodel.registry import get_model
from shared.scoring.compute import RecomputeResult, recompute_scores

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


def make_asks(count: int = 3, **overrides: Any) -> list[PriceObservation]:
    """`count` asks of the same card and price on distinct listings: a market price (one
    or two asks are too thin to be one, GPU_ADVISOR_MARKET_MIN_ASKS)."""
    return [make_observation(**overrides) for _ in range(count)]


def make_offer(gpu_id: str, usd: str, observed_at: datetime, **overrides: Any) -> CloudOffer:
    """One whole-GPU on-demand cloud offer (no spot price) at `usd` per hour."""
    values: dict[str, Any] = {
        "provider": "cloud-a",
        "instance_type": f"{gpu_id}-1x",
        "gpu_id": gpu_id,
        "gpu_count": 1,
        "region": "us",
        "on_demand_usd_per_hour": Decimal(usd),
        "spot_usd_per_hour": None,
        "kind": "snapshot",
        "source": "test list",
        "observed_at": observed_at,
        "measure": "list",
    }
    values.update(overrides)
    return CloudOffer(**values)


def plain_settings(**overrides: Any) -> Settings:
    """Settings for a test that needs no database of its own (no broker, no scheduler)."""
    values: dict[str, Any] = {"environment": "test", "broker_url": "", "inprocess_scheduler": False}
    values.update(overrides)
    return Settings.model_validate(values)


def recompute(
    session: Session,
    gpu_ids: Iterable[str] | None = None,
    *,
    model: PerformanceModel | None = None,
    settings: Settings | None = None,
) -> RecomputeResult:
    """recompute_scores with the product's model and test settings unless given."""
    return recompute_scores(
        session, gpu_ids, model=model or get_model(), settings=settings or plain_settings()
    )


def monthly_sales(
    session: Session,
    gpu_id: str,
    start: float,
    monthly: float,
    months: int,
    now: datetime,
    source: str = "shop",
) -> None:
    """Three sales a month of one card, from `months` months before `now` until last
    month, the price moving by `monthly` a month (a known index for the tests)."""
    for m in range(months, 0, -1):
        at = now - timedelta(days=30.44 * m)
        usd = start * (1 + monthly) ** (months - m)
        for k in range(3):
            session.add(
                make_observation(
                    gpu_id=gpu_id, usd=f"{usd * (1 + 0.01 * k):.2f}", observed_at=at, source=source
                )
            )


def stale_3090_with_risen_peers(session: Session, now: datetime) -> None:
    """Two consumer peers (RTX 4090, RTX 3080) whose used prices rose 2 % a month for two
    years, and an RTX 3090 last sold a year before `now`: a stale price the index moves."""
    monthly_sales(session, "rtx-4090", 1500, 0.02, 24, now)
    monthly_sales(session, "rtx-3080-10gb", 400, 0.02, 24, now)
    year_ago = now - timedelta(days=365)
    for k in range(3):
        session.add(make_observation(gpu_id="rtx-3090", usd=f"{700 + k}", observed_at=year_ago))
