"""Catalog queries: listing, detail with prices and cloud offers."""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal

from sqlmodel import Session, select

from services.api.gpus.schemas import CloudPrice, GpuDetail, GpuSummary, PriceSummary
from shared.catalog.specs import GpuSpec
from shared.models import CloudOffer, PriceObservation
from shared.pricing.market import MarketPrice, market_price
from shared.scoring.compute import SourceHealth, gpu_prices

PROVENANCE_FIELDS = ("sources", "notes")


def summary(spec: GpuSpec) -> GpuSummary:
    return GpuSummary.model_validate(asdict(spec))


def _price(price: MarketPrice | None) -> PriceSummary | None:
    if price is None:
        return None
    return PriceSummary.model_validate(asdict(price), from_attributes=False)


def _cloud_prices(session: Session, gpu_id: str) -> list[CloudPrice]:
    offers = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == gpu_id)).all()
    prices = []
    for offer in offers:
        for pricing, hourly in (
            ("on-demand", offer.on_demand_usd_per_hour),
            ("spot", offer.spot_usd_per_hour),
        ):
            if hourly is None or offer.gpu_count <= 0:
                continue
            prices.append(
                CloudPrice(
                    provider=offer.provider,
                    instance_type=offer.instance_type,
                    region=offer.region,
                    gpu_count=offer.gpu_count,
                    usd_per_gpu_hour=(hourly / Decimal(str(offer.gpu_count))).quantize(
                        Decimal("0.0001")
                    ),
                    pricing=pricing,
                    source=offer.source,
                    observed_at=offer.observed_at,
                )
            )
    prices.sort(key=lambda p: (p.pricing, p.usd_per_gpu_hour))
    return prices


def detail(session: Session, spec: GpuSpec, window_days: int) -> GpuDetail:
    observations = session.exec(
        select(PriceObservation).where(
            PriceObservation.gpu_id == spec.id,
            PriceObservation.quarantined == False,  # noqa: E712
        )
    ).all()
    kinds = sorted({o.kind for o in observations})
    latest_by_kind = {}
    for kind in kinds:
        of_kind = [o for o in observations if o.kind == kind]
        for condition in ("new", "used"):
            price = market_price(of_kind, condition, window_days)
            if price is not None:
                latest_by_kind[f"{kind}:{condition}"] = PriceSummary.model_validate(asdict(price))
    spec_fields = {k: v for k, v in asdict(spec).items() if k not in PROVENANCE_FIELDS}
    return GpuDetail(
        id=spec.id,
        name=spec.name,
        specs=spec_fields,
        provenance={"sources": spec.sources, "notes": spec.notes, "catalog": "gpu_catalog.csv"},
        market_prices={
            k: _price(v)
            for k, v in gpu_prices(observations, window_days, SourceHealth.read(session)).items()
        },
        latest_by_kind=latest_by_kind,
        cloud=_cloud_prices(session, spec.id),
    )
