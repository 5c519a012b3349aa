"""Current cloud prices per GPU-hour from the stored offers (scraped or bundled snapshots).

"Current" means each provider's newest price list, and only if that list is recent: for
a provider, each instance type's newest offer among those observed within `window_days`
of the provider's newest offer, and none older than `stale_days` (a price list that old
is history, not a price one can rent at today).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, col, select

from shared.kit.settings import Settings
from shared.models import CloudOffer
from shared.pricing.index import log_spread

PRICINGS = ("on-demand", "spot")
PER_GPU_HOUR = Decimal("0.00001")


@dataclass(frozen=True, slots=True)
class CloudPrice:
    gpu_id: str
    provider: str
    instance_type: str
    region: str
    gpu_count: float
    usd_per_gpu_hour: Decimal
    pricing: str
    kind: str
    source: str
    observed_at: datetime
    measure: str = "list"


def _hourly(offer: CloudOffer, pricing: str) -> Decimal | None:
    return offer.on_demand_usd_per_hour if pricing == "on-demand" else offer.spot_usd_per_hour


@dataclass(frozen=True, slots=True)
class Currency:
    """What makes an offer current at `now`."""

    now: datetime
    window_days: int = 7
    stale_days: int = 90
    # An answer as of a past date sees only offers observed before this moment.
    observed_before: datetime | None = None

    def seen(self, observed_at: datetime) -> bool:
        """Whether an offer observed then existed for this answer."""
        return self.observed_before is None or observed_at < self.observed_before

    @classmethod
    def from_settings(cls, settings: Settings, now: datetime) -> Currency:
        return cls(now, settings.market_window_days, settings.price_stale_days)


def current_offers(offers: Iterable[CloudOffer], currency: Currency) -> list[CloudOffer]:
    """Each provider's newest list, one offer per instance type and region, if recent."""
    by_provider: dict[str, list[CloudOffer]] = defaultdict(list)
    recent = timedelta(days=currency.stale_days)
    for offer in offers:
        if currency.now - offer.observed_at <= recent and currency.seen(offer.observed_at):
            by_provider[offer.provider].append(offer)
    current: list[CloudOffer] = []
    for group in by_provider.values():
        since = max(o.observed_at for o in group) - timedelta(days=currency.window_days)
        newest: dict[tuple[str, str, float], CloudOffer] = {}
        for o in group:
            key = (o.instance_type, o.region, o.gpu_count)
            if o.observed_at >= since and (
                key not in newest or o.observed_at > newest[key].observed_at
            ):
                newest[key] = o
        current.extend(newest.values())
    return current


def to_price(offer: CloudOffer, pricing: str) -> CloudPrice | None:
    hourly = _hourly(offer, pricing)
    if hourly is None or hourly <= 0 or offer.gpu_count <= 0:
        return None
    per_gpu = (hourly / Decimal(str(offer.gpu_count))).quantize(PER_GPU_HOUR)
    return CloudPrice(
        offer.gpu_id,
        offer.provider,
        offer.instance_type,
        offer.region,
        offer.gpu_count,
        per_gpu,
        pricing,
        offer.kind,
        offer.source,
        offer.observed_at,
        offer.measure,
    )


def cheapest_offer(
    session: Session, gpu_id: str, pricing: str, currency: Currency, factor: Decimal
) -> CloudPrice | None:
    """The offer one rents at today: the ranking's rule (`rentals_of`: whole GPUs, offers
    far below the others held back, spot never above on-demand)."""
    offers = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == gpu_id)).all()
    rental = rentals_of(offers, currency, factor)[pricing]
    return rental.cheapest if rental is not None else None


def current_prices(
    offers: Iterable[CloudOffer], pricing: str, currency: Currency
) -> list[CloudPrice]:
    """Per-GPU-hour prices of the current offers at `pricing`; whole GPUs only."""
    whole = [o for o in offers if o.gpu_count >= 1 and _hourly(o, pricing) is not None]
    return [p for o in current_offers(whole, currency) if (p := to_price(o, pricing))]


def cheapest_of(
    offers: Iterable[CloudOffer], pricing: str, currency: Currency
) -> CloudPrice | None:
    prices = current_prices(offers, pricing, currency)
    if not prices:
        return None
    return min(prices, key=lambda p: (p.usd_per_gpu_hour, p.provider, p.instance_type))


# The log standard deviation of one offer around its card's market, for a rental of one or
# two offers (whose own spread says little or nothing): the median, over 613 card-days of
# the bundled gpu-price-feed (toolshedlabs, 2026-07-23 .. 2026-10-04) on which 3 or more
# providers listed the same card, of the robust log spread of their cheapest on-demand
# offers (quartiles 0.20 and 0.51). tests/shared/bundled/test_rental_floor.py measures it
# again on the bundled data. For comparison, the vast.ai daily median of one card moves by
# a robust 0.065 from one day to the next (ccir-vastai-index-2026-03): between providers,
# not over days, is where one offer can be far from the market.
ONE_OFFER_LOG_SD = 0.375
# The band is an 80 % interval: the 10th and 90th percentiles of a normal in log price.
_Z_80 = 1.2816


@dataclass(frozen=True, slots=True)
class Rental:
    """What renting one GPU costs now: the cheapest sane current offer, the median of the
    current offers (what a renter pays when the cheapest is gone), their number, how many
    were held back as far below the others, the sane offers' prices (the band's evidence)
    and the spot offers that were no spot price (above their provider's on-demand)."""

    cheapest: CloudPrice
    median_usd: Decimal
    n: int
    held_back: int
    # Set when the spot price is the on-demand one (no spot offer is cheaper).
    note: str | None = None
    prices: tuple[Decimal, ...] = ()
    not_spot: tuple[str, ...] = ()

    @property
    def log_sd(self) -> float:
        """How far one offer may be from the card's market (log standard deviation): the
        offers' own robust spread from 3 offers, else at least ONE_OFFER_LOG_SD."""
        own = log_spread(self.prices)
        if own is not None:
            return own
        logs = [math.log(float(p)) for p in self.prices if p > 0]
        return max(statistics.stdev(logs) if len(logs) == 2 else 0.0, ONE_OFFER_LOG_SD)

    def band(self) -> tuple[Decimal, Decimal, float]:
        """The 80 % band around the cheapest offer, (low, high, log half-width): the
        market's level is known to log_sd / sqrt(n) (n sane offers); the top is at least
        the median offer (what a renter pays once the cheapest is taken)."""
        price = self.cheapest.usd_per_gpu_hour
        half = _Z_80 * self.log_sd / math.sqrt(max(len(self.prices), 1))
        width = Decimal(str(math.exp(half)))
        low = (price / width).quantize(PER_GPU_HOUR)
        high = max((price * width).quantize(PER_GPU_HOUR), self.median_usd)
        return low, high, half


def _rental(prices: list[CloudPrice], factor: Decimal, not_spot: tuple[str, ...] = ()) -> Rental:
    median = Decimal(statistics.median(p.usd_per_gpu_hour for p in prices)).quantize(PER_GPU_HOUR)
    sane = [p for p in prices if len(prices) < 3 or p.usd_per_gpu_hour * factor >= median]
    cheapest = min(sane, key=lambda p: (p.usd_per_gpu_hour, p.provider, p.instance_type))
    return Rental(
        cheapest,
        max(median, cheapest.usd_per_gpu_hour),
        len(prices),
        len(prices) - len(sane),
        prices=tuple(sorted(p.usd_per_gpu_hour for p in sane)),
        not_spot=not_spot,
    )


def rental_of(
    offers: Iterable[CloudOffer], pricing: str, currency: Currency, factor: Decimal
) -> Rental | None:
    """The current rental price at `pricing`, offers far below the GPU's median current
    offer (by `factor`, with 3 or more offers) held back like a quarantined price."""
    prices = current_prices(offers, pricing, currency)
    return _rental(prices, factor) if prices else None


def _spot_prices(
    spot: list[CloudPrice], on_demand: list[CloudPrice]
) -> tuple[list[CloudPrice], tuple[str, ...]]:
    """Spot offers that are spot prices, and why the others are not: a spot offer above
    its own provider's cheapest on-demand offer of the card (per GPU-hour) is not what
    that provider charges for an interruptible GPU (a renter there takes on-demand)."""
    ceiling: dict[str, Decimal] = {}
    for p in on_demand:
        ceiling[p.provider] = min(ceiling.get(p.provider, p.usd_per_gpu_hour), p.usd_per_gpu_hour)
    kept, reasons = [], []
    for p in spot:
        top = ceiling.get(p.provider)
        if top is not None and p.usd_per_gpu_hour > top:
            reasons.append(
                f"{p.provider} {p.instance_type} at ${p.usd_per_gpu_hour}/h is above "
                f"{p.provider}'s on-demand ${top}/h: not a spot price"
            )
        else:
            kept.append(p)
    return kept, tuple(reasons)


def rentals_of(
    offers: Iterable[CloudOffer], currency: Currency, factor: Decimal
) -> dict[str, Rental | None]:
    """On-demand and spot rentals of one GPU. A spot offer is checked against the
    on-demand offers of the same card and provider (`_spot_prices`). Spot is never dearer
    than on-demand: where no spot price is left below the cheapest on-demand offer (of any
    provider), a renter takes the on-demand offer, and so does the spot ranking, saying
    so."""
    listed = list(offers)
    on_demand_prices = current_prices(listed, "on-demand", currency)
    on_demand = _rental(on_demand_prices, factor) if on_demand_prices else None
    spot_prices, not_spot = _spot_prices(current_prices(listed, "spot", currency), on_demand_prices)
    spot = _rental(spot_prices, factor, not_spot) if spot_prices else None
    if on_demand is None or (spot is None and not not_spot):
        return {"on-demand": on_demand, "spot": spot}
    if spot is None:
        note = f"no spot price ({'; '.join(not_spot)}): the on-demand offer is used"
        spot = replace(on_demand, note=note, not_spot=not_spot)
    elif spot.cheapest.usd_per_gpu_hour > on_demand.cheapest.usd_per_gpu_hour:
        spot = replace(
            on_demand,
            note=(
                f"no spot offer below on-demand (cheapest spot "
                f"${spot.cheapest.usd_per_gpu_hour}/h, {spot.cheapest.provider}): "
                "the on-demand offer is used"
            ),
            not_spot=not_spot,
        )
    return {"on-demand": on_demand, "spot": spot}


def newest_offer(
    session: Session, gpu_id: str, pricing: str, currency: Currency, factor: Decimal
) -> CloudPrice | None:
    """What a rental whose offers all aged out was last seen at: the rental (`rentals_of`,
    with its rules: whole GPUs, offers far below the others held back, spot never above
    on-demand) as the offers stood on the newest day any was seen at `pricing`."""
    column = (
        CloudOffer.on_demand_usd_per_hour
        if pricing == "on-demand"
        else CloudOffer.spot_usd_per_hour
    )
    seen = (
        []
        if currency.observed_before is None
        else [col(CloudOffer.observed_at) < currency.observed_before]
    )
    newest = session.exec(
        select(CloudOffer.observed_at)
        .where(
            CloudOffer.gpu_id == gpu_id,
            col(column).is_not(None),
            CloudOffer.gpu_count >= 1,
            *seen,
        )
        .order_by(col(CloudOffer.observed_at).desc())
        .limit(1)
    ).first()
    if newest is None:
        return None
    then = replace(currency, now=newest)
    offers = session.exec(
        select(CloudOffer).where(
            CloudOffer.gpu_id == gpu_id,
            CloudOffer.observed_at >= newest - timedelta(days=then.stale_days),
            CloudOffer.observed_at <= newest,
        )
    ).all()
    rental = rentals_of(offers, then, factor)[pricing]
    return rental.cheapest if rental is not None else None


def gpus_with_offers(session: Session, pricing: str, currency: Currency) -> set[str]:
    """GPUs one can rent today at `pricing`: those `cheapest_offer` finds an offer for
    (history, and offers a provider's newer list dropped, do not count)."""
    since = currency.now - timedelta(days=currency.stale_days)
    recent = session.exec(select(CloudOffer).where(CloudOffer.observed_at >= since)).all()
    by_gpu: dict[str, list[CloudOffer]] = defaultdict(list)
    for offer in recent:
        by_gpu[offer.gpu_id].append(offer)
    return {gpu_id for gpu_id, offers in by_gpu.items() if cheapest_of(offers, pricing, currency)}
