"""The rented side: which GPU to rent and its price per GPU-hour."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session

from shared.builds import assumptions as d
from shared.builds.assumptions import Sourced
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.pricing.cloud import CloudPrice, Currency, cheapest_offer, gpus_with_offers
from shared.pricing.measures import describe
from shared.scoring.as_of import AsOf
from shared.tco.request import TcoInputError, from_request
from shared.tco.schemas import TcoRequest


def closest_cloud_gpu(
    session: Session,
    gpu: GpuSpec,
    req: TcoRequest,
    own_single: float,
    settings: Settings,
    model: ClassModel,
    as_of: AsOf | None = None,
) -> GpuSpec:
    currency = _currency(settings, as_of)
    available = gpus_with_offers(session, req.pricing, currency)
    if gpu.id in available:
        return gpu
    best: tuple[float, str] | None = None
    for gpu_id in sorted(available):
        candidate = load_catalog().get(gpu_id)
        if candidate is None:
            continue
        prediction = model.predict(candidate, req.task, req.precision)
        if prediction is None:
            continue
        distance = abs(math.log(prediction.relative_throughput / own_single))
        if best is None or distance < best[0]:
            best = (distance, gpu_id)
    if best is None:
        raise TcoInputError(
            "cloud_gpu", f"no current {req.pricing} cloud offers stored: give cloud_gpu"
        )
    return load_catalog().by_id[best[1]]


def cloud_price(
    session: Session,
    req: TcoRequest,
    cloud_gpu: GpuSpec,
    settings: Settings,
    out: list[Sourced],
    as_of: AsOf | None = None,
) -> tuple[Decimal, CloudPrice | None]:
    if req.cloud_usd_per_hour is not None:
        out.append(from_request("cloud_usd_per_hour", req.cloud_usd_per_hour, "USD per GPU-hour"))
        return req.cloud_usd_per_hour, None
    currency = _currency(settings, as_of)
    offer = cheapest_offer(
        session, cloud_gpu.id, req.pricing, currency, settings.cloud_quarantine_factor
    )
    if offer is None:
        raise TcoInputError(
            "cloud_usd_per_hour",
            f"no current {req.pricing} offer for {cloud_gpu.id}: give cloud_usd_per_hour",
        )
    basis: d.Basis = "scraped" if offer.kind == "scraped" else "snapshot"
    out.append(
        Sourced(
            "cloud_usd_per_hour",
            offer.usd_per_gpu_hour,
            "USD per GPU-hour",
            basis,
            f"cheapest current {req.pricing} offer ({describe(offer.measure)}"
            f"{_held_back_note(req.pricing, offer)}): "
            f"{offer.provider} {offer.instance_type} ({offer.region}, {offer.gpu_count:g} GPU) "
            f"from {offer.source}",
            offer.observed_at.date(),
        )
    )
    return offer.usd_per_gpu_hour, offer


def _currency(settings: Settings, as_of: AsOf | None) -> Currency:
    """Which offers are current: now, or as of a past date (offers observed by then)."""
    if as_of is not None:
        return as_of.currency(settings)
    return Currency.from_settings(settings, datetime.now(UTC))


def _held_back_note(pricing: str, offer: CloudPrice) -> str:
    if offer.pricing != pricing:
        return f"; no {pricing} offer below it: the {offer.pricing} offer"
    return ""
