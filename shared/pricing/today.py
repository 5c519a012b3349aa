"""What a card costs today: a value, an 80 % band, whether it is an estimate, and why.

The one door for "what does this card cost now": `bought_today` and `rented_today` read
the stored prices of some cards and answer with today's price per condition; the ranking
(through its Score rows, which the price check and the GPU page show), /tco and quotes
read prices here.
A market price (market.py) observed within `price_stale_days` is today's price, with a
band from its spread and n. An older one is never used at face value: it is moved to
today by the index of its segment and condition group (index.py), and its band widens
with the months it was moved over, at the volatility the stored series show. Where no
index bridges the gap, the card has no price today: `Unpriced` says what was last seen
and why it is not used.

Band (log units): z * sqrt(noise^2 + card_drift^2 * gap + index_step^2 * unsupported),
where noise is the price's own spread over sqrt(n) (at least the index's point noise),
gap the months since the observation, and unsupported the months of that gap in which
the group index has no data (bridged by its prior, or after its newest data, where it is
carried flat): the index is only as sure as the months it saw.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, col, select

from shared.kit.money import CENT
from shared.models import CloudOffer
from shared.pricing.ages import too_old
from shared.pricing.cloud import (
    PER_GPU_HOUR,
    PRICINGS,
    CloudPrice,
    Currency,
    Rental,
    newest_offer,
    rentals_of,
)
from shared.pricing.index import (
    GroupIndex,
    MarketIndex,
    cloud_index,
    market_index,
    month_of,
    month_start,
    series_family,
)
from shared.pricing.market import MarketPrice, Observation, PricePolicy, market_price
from shared.pricing.measures import describe
from shared.pricing.siblings import Estimate, disagreement, related
from shared.pricing.window import market_observations

RENTAL_GROUPS = frozenset(PRICINGS)
# The band is an 80 % interval: the 10th and 90th percentiles of a normal in log price.
Z_80 = 1.2816
DAYS_PER_MONTH = 30.44
# An index must have data within this many months before (or a couple after) the
# observation it moves, else it does not describe that card's market at that time.
MAX_SUPPORT_GAP_MONTHS = 6
MAX_SUPPORT_LAG_MONTHS = 2


@dataclass(frozen=True, slots=True)
class TodayPrice:
    """Today's price of a card in a condition (or a rental per GPU-hour)."""

    usd: Decimal
    band_low: Decimal
    band_high: Decimal
    estimated: bool
    basis: str
    # The observation it rests on.
    last_usd: Decimal
    last_observed_at: datetime
    n: int
    measure: str
    # The log half-width of the band (for combining with other intervals).
    log_spread: float
    condition: str
    kind: str
    source: str

    @property
    def band(self) -> tuple[Decimal, Decimal]:
        return self.band_low, self.band_high


@dataclass(frozen=True, slots=True)
class Unpriced:
    """A card with a last price that cannot stand for today's, and why."""

    last_usd: Decimal
    last_observed_at: datetime
    measure: str
    reason: str
    condition: str
    kind: str
    source: str


def unpriced(price: MarketPrice, reason: str) -> Unpriced:
    return Unpriced(
        price.usd,
        price.observed_at,
        price.measure,
        reason,
        price.condition,
        price.kind,
        price.source,
    )


def own_noise(price: MarketPrice) -> float | None:
    """The log standard error of a market price from its spread and n (None for one
    price: its noise is the index's point noise)."""
    if price.n < 2 or price.usd <= 0:
        return None
    # IQR / 1.349 is a robust standard deviation; the median's error shrinks with sqrt(n).
    spread = (
        float(price.iqr_usd) / 1.349 if price.n >= 4 else float(price.high_usd - price.low_usd) / 2
    )
    return spread / float(price.usd) / math.sqrt(price.n)


def today_price(
    price: MarketPrice,
    index: MarketIndex,
    now: datetime,
    stale_days: int,
    quantum: Decimal = CENT,
) -> TodayPrice | Unpriced:
    """Today's price from a card's market price (see the module docstring)."""
    age_months = (now - price.observed_at).total_seconds() / 86400 / DAYS_PER_MONTH
    volatility = index.volatility
    noise = own_noise(price)
    if (now - price.observed_at).days <= stale_days:
        spread = volatility.spread(age_months, 0.0, noise)
        basis = _fresh_basis(price)
        return _priced(price.usd, spread, price, estimated=False, basis=basis, quantum=quantum)
    reasons = []
    for group in index.for_card(price.gpu_id, price.condition):
        reason = _unbridged(group, price)
        if reason is None:
            break
        reasons.append(reason)
    else:
        return unpriced(price, "; ".join(reasons) or _no_index(price))
    if (old := too_old(age_months)) is not None:
        return unpriced(price, f"needs a current price: {old}")
    since, until = month_of(price.observed_at), month_of(now)
    change = group.change(since, until)
    beyond = max(until - group.last, 0)
    spread = volatility.spread(age_months, group.unsupported(since, until), noise)
    central = (price.usd * Decimal(str(math.exp(change)))).quantize(quantum)
    basis = _estimate_basis(price, group, change, beyond)
    return _priced(central, spread, price, estimated=True, basis=basis, quantum=quantum)


def _priced(
    central: Decimal,
    spread: float,
    price: MarketPrice,
    *,
    estimated: bool,
    basis: str,
    quantum: Decimal = CENT,
) -> TodayPrice:
    width = Decimal(str(math.exp(Z_80 * spread)))
    return TodayPrice(
        usd=central,
        band_low=(central / width).quantize(quantum),
        band_high=(central * width).quantize(quantum),
        estimated=estimated,
        basis=basis,
        last_usd=price.usd,
        last_observed_at=price.observed_at,
        n=price.n,
        measure=price.measure,
        log_spread=Z_80 * spread,
        condition=price.condition,
        kind=price.kind,
        source=price.source,
    )


def _no_index(price: MarketPrice) -> str:
    return (
        f"no index of comparable cards (same segment, {price.condition}) to move its "
        f"{price.observed_at.date().isoformat()} price to today"
    )


def _unbridged(group: GroupIndex, price: MarketPrice) -> str | None:
    """Why the index cannot move this price, or None: it must have seen other cards of
    its market around the observation (within MAX_SUPPORT_GAP_MONTHS before it, or
    MAX_SUPPORT_LAG_MONTHS after), else it says nothing about the change since."""
    since = month_of(price.observed_at)
    window = range(since - MAX_SUPPORT_GAP_MONTHS, since + MAX_SUPPORT_LAG_MONTHS + 1)
    # Other cards' data: the card's own old price says nothing about how its market moved.
    if not any(group.seen_by_others(m, price.gpu_id) for m in window):
        return (
            f"the {group.key[0]} {group.key[1]} index has no data from "
            f"{MAX_SUPPORT_GAP_MONTHS} months before to {MAX_SUPPORT_LAG_MONTHS} months after "
            f"{price.observed_at.date().isoformat()}"
        )
    return None


def _fresh_basis(price: MarketPrice) -> str:
    what = describe(price.measure)
    n = f"median of {price.n}" if price.n > 1 else "one price"
    return f"{n} ({what}), {price.observed_at.date().isoformat()}"


def _estimate_basis(price: MarketPrice, group: GroupIndex, change: float, beyond: int) -> str:
    what = describe(price.measure)
    segment, condition = group.key
    moved = f"{math.expm1(change) * 100:+.0f} %"
    seen = f"${price.usd:,.0f}" if price.usd >= 10 else f"${price.usd}/h"
    market = f"{condition} rental" if condition in RENTAL_GROUPS else condition
    text = (
        f"last seen {seen} ({what}) on {price.observed_at.date().isoformat()}; "
        f"{segment} {market} index {moved} since"
    )
    if beyond > 0:
        newest = month_start(group.last).strftime("%Y-%m")
        text += f" (index data to {newest}, carried flat {beyond} months, band widened)"
    return text


CardPrice = TodayPrice | Unpriced


@dataclass(frozen=True, slots=True)
class CardPrices:
    """Today's price of one card per ranking condition ("new", "used", "any"; absent:
    never seen), and a caveat per condition about the price itself."""

    by_condition: dict[str, CardPrice]
    notes: dict[str, str]


def card_prices(
    market: dict[str, MarketPrice | None], index: MarketIndex, now: datetime, stale_days: int
) -> CardPrices:
    """Today's new and used prices of a card from its market prices, and "any" (see
    `with_any`)."""
    return with_any(conditions_of(market, index, now, stale_days))


def conditions_of(
    market: dict[str, MarketPrice | None], index: MarketIndex, now: datetime, stale_days: int
) -> dict[str, CardPrice]:
    """Today's new and used prices of a card from its market prices."""
    found: dict[str, CardPrice] = {}
    for condition in ("new", "used"):
        price = market.get(condition)
        if price is None:
            continue
        if price.thin_reason is not None:
            found[condition] = unpriced(price, price.thin_reason)
        else:
            found[condition] = today_price(price, index, now, stale_days)
    return found


def with_any(found: dict[str, CardPrice]) -> CardPrices:
    """The new and used prices with "any": the measured (not estimated) one first, then
    the fresher, then the cheaper; and a caveat where used is priced above new."""
    found = dict(found)
    notes: dict[str, str] = {}
    new, used = found.get("new"), found.get("used")
    if isinstance(new, TodayPrice) and isinstance(used, TodayPrice) and used.usd > new.usd:
        notes["used"] = (
            f"used priced above new (${used.usd:,.0f} against ${new.usd:,.0f} new): "
            "second-hand asks for this card are above what a retailer charges; buy new"
        )
    priced = [p for p in (new, used) if isinstance(p, TodayPrice)]
    if priced:
        found["any"] = min(priced, key=lambda p: (p.estimated, -_fresh_month(p), p.usd))
    elif new is not None or used is not None:
        found["any"] = next(p for p in (new, used) if p is not None)
    return CardPrices(found, notes)


def stale_rental_today(
    offer: CloudPrice, index: MarketIndex, now: datetime, stale_days: int
) -> TodayPrice | Unpriced:
    """A rental whose offers all aged out: its newest offer moved by the cloud index of
    comparable cards (same segment and pricing), or unranked where none bridges."""
    last = MarketPrice(
        gpu_id=offer.gpu_id,
        condition=offer.pricing,
        usd=offer.usd_per_gpu_hour,
        kind=offer.kind,
        source=f"{offer.provider} {offer.instance_type} ({offer.region}): {offer.source}",
        observed_at=offer.observed_at,
        n=1,
        low_usd=offer.usd_per_gpu_hour,
        high_usd=offer.usd_per_gpu_hour,
        method="newest offer",
        measure=offer.measure,
    )
    price = today_price(last, index, now, stale_days, quantum=PER_GPU_HOUR)
    return replace(price, condition="cloud")


def rental_today(rental: Rental) -> TodayPrice:
    """A current rental: its cheapest sane offer (what a renter pays), with a band from
    the offers' spread and number (`Rental.band`: one or two offers are banded at least
    by how far one provider's offer typically is from the others'), whose top is at
    least the median current offer (what a renter pays once the cheapest is taken)."""
    offer = rental.cheapest
    low, high, half = rental.band()
    what = describe(offer.measure)
    basis = (
        f"cheapest of {rental.n} current offer{'s' if rental.n > 1 else ''} ({what}, "
        f"{offer.provider}, {offer.observed_at.date().isoformat()}); median "
        f"${rental.median_usd}/h"
    )
    if rental.held_back:
        basis += f"; {rental.held_back} held back as far below the others"
    if rental.not_spot:
        basis += f"; {len(rental.not_spot)} spot held back as above their provider's on-demand"
    return TodayPrice(
        usd=offer.usd_per_gpu_hour,
        band_low=low,
        band_high=high,
        estimated=False,
        basis=basis,
        last_usd=offer.usd_per_gpu_hour,
        last_observed_at=offer.observed_at,
        n=rental.n,
        measure=offer.measure,
        log_spread=max(half, math.log(float(high / offer.usd_per_gpu_hour))),
        condition="cloud",
        kind=offer.kind,
        source=f"{offer.provider} {offer.instance_type} ({offer.region}): {offer.source}",
    )


@dataclass(frozen=True, slots=True)
class Priced:
    """One condition's price of one card: today's price or why there is none, and a
    caveat about the price itself (used above new, spot at the on-demand price)."""

    price: CardPrice
    note: str | None = None


def _fresh_month(price: TodayPrice) -> int:
    """How fresh an estimate's observation is, by month (two estimates from the same
    month are equally fresh: the cheaper wins)."""
    return month_of(price.last_observed_at) if price.estimated else 0


def priced_conditions(
    observations: Sequence[Observation], policy: PricePolicy, index: MarketIndex
) -> dict[str, CardPrice]:
    """Today's new and used prices of one card from its stored observations."""
    market = {c: market_price(observations, c, policy) for c in ("new", "used")}
    return conditions_of(market, index, policy.now, policy.stale_days)


def bought_today(
    session: Session, gpu_ids: Iterable[str], policy: PricePolicy
) -> dict[str, dict[str, Priced]]:
    """Today's purchase prices of these cards per condition (see `today_prices`), each
    estimate checked against its siblings' fresh prices (shared/pricing/siblings.py)."""
    wanted = set(gpu_ids)
    ids = sorted(related(wanted))
    observations = market_observations(session, ids, policy)
    # As of a past date: the index fitted on what was observed by then.
    index = market_index(session, before=policy.observed_before, min_asks=policy.min_asks)
    conditions = {
        gpu_id: priced_conditions(observations.get(gpu_id, []), policy, index) for gpu_id in ids
    }
    check_estimates(conditions, index)
    found = {}
    for gpu_id in sorted(wanted):
        prices = with_any(conditions[gpu_id])
        found[gpu_id] = {c: Priced(p, prices.notes.get(c)) for c, p in prices.by_condition.items()}
    return found


def check_estimates(found: dict[str, dict[str, CardPrice]], index: MarketIndex) -> None:
    """Unprice, in place, every estimate that disagrees with its fresh siblings, is
    above the card's new price (used) or breaks the order of its memory variants."""
    fresh = {
        group: {
            gpu_id: price.usd
            for gpu_id, by_condition in found.items()
            if isinstance(price := by_condition.get(group), TodayPrice) and not price.estimated
        }
        for group in ("new", "used")
    }
    for gpu_id, by_condition in found.items():
        new = by_condition.get("new")
        new_usd = new.usd if isinstance(new, TodayPrice) and not new.estimated else None
        for group in ("new", "used"):
            price = by_condition.get(group)
            if not isinstance(price, TodayPrice) or not price.estimated:
                continue
            estimate = Estimate(
                gpu_id=gpu_id,
                usd=price.usd,
                band_low=price.band_low,
                band_high=price.band_high,
                last_usd=price.last_usd,
                month=month_of(price.last_observed_at),
                series=series_family(price.kind, price.source, price.measure),
            )
            used_over = new_usd if group == "used" else None
            reason = disagreement(estimate, group, fresh[group], used_over, index)
            if reason is not None:
                by_condition[group] = _unpriced_estimate(price, reason)


def _unpriced_estimate(price: TodayPrice, reason: str) -> Unpriced:
    return Unpriced(
        price.last_usd,
        price.last_observed_at,
        price.measure,
        reason,
        price.condition,
        price.kind,
        price.source,
    )


def rented_today(
    session: Session, gpu_ids: Iterable[str], currency: Currency, factor: Decimal
) -> dict[str, dict[str, Priced | None]]:
    """Today's rental per pricing ("on-demand", "spot") of these cards: the cheapest sane
    current offer (shared/pricing/cloud.py:rentals_of), else the newest offer moved by
    the cloud index (`stale_rental_today`); None where the card was never offered."""
    ids = sorted(set(gpu_ids))
    offers = _current_offers(session, ids, currency)
    rental_index: MarketIndex | None = None
    found: dict[str, dict[str, Priced | None]] = {}
    for gpu_id in ids:
        rentals = rentals_of(offers.get(gpu_id, []), currency, factor)
        by_pricing: dict[str, Priced | None] = {}
        for pricing in PRICINGS:
            rental = rentals[pricing]
            if rental is not None:
                by_pricing[pricing] = Priced(rental_today(rental), rental.note)
            elif (last := newest_offer(session, gpu_id, pricing, currency, factor)) is not None:
                # Fitted only when some card's offers all aged out.
                rental_index = rental_index or cloud_index(session, currency.observed_before)
                by_pricing[pricing] = Priced(
                    stale_rental_today(last, rental_index, currency.now, currency.stale_days)
                )
            else:
                by_pricing[pricing] = None
        found[gpu_id] = _spot_not_above_on_demand(by_pricing)
    return found


def _spot_not_above_on_demand(by_pricing: dict[str, Priced | None]) -> dict[str, Priced | None]:
    """A spot estimate (its offers aged out) above today's on-demand rental is no spot
    price: a renter takes the on-demand offer, as `rentals_of` rules for current offers."""
    spot, on_demand = by_pricing.get("spot"), by_pricing.get("on-demand")
    if spot is None or on_demand is None:
        return by_pricing
    spot_price, on_demand_price = spot.price, on_demand.price
    if (
        isinstance(spot_price, TodayPrice)
        and isinstance(on_demand_price, TodayPrice)
        and spot_price.estimated
        and spot_price.usd > on_demand_price.usd
    ):
        note = (
            f"no spot price (an estimate of ${spot_price.usd}/h from old spot offers is above "
            f"today's on-demand ${on_demand_price.usd}/h): the on-demand offer is used"
        )
        return {**by_pricing, "spot": Priced(on_demand_price, note)}
    return by_pricing


def _current_offers(
    session: Session, ids: Sequence[str], currency: Currency
) -> dict[str, list[CloudOffer]]:
    """Offers that may be current: older ones than `stale_days` never are."""
    since = currency.now - timedelta(days=currency.stale_days)
    query = select(CloudOffer).where(
        col(CloudOffer.gpu_id).in_(ids), col(CloudOffer.observed_at) >= since
    )
    if currency.observed_before is not None:
        query = query.where(col(CloudOffer.observed_at) < currency.observed_before)
    grouped: dict[str, list[CloudOffer]] = defaultdict(list)
    for offer in session.exec(query):
        grouped[offer.gpu_id].append(offer)
    return grouped
