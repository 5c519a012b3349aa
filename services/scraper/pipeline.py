"""Pure pipeline stages for scraped listings: normalize -> validate -> dedupe.

Every listing that does not go through comes back as a `Drop` with its stage and
reason, and is counted in `PipelineStats`. Title matching is injected: any callable
`str -> TitleMatch`; so are the exchange rates that price a listing shown in another
currency in US dollars (services/scraper/exchange.py). What comes out is valid; judging it
against the market (the quarantine), leaving out what is stored already and storing it
are the one ingest path of scraped and posted prices alike (shared/pricing/ingest.py), the
runner's next step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Generic, Protocol, TypeVar

from services.scraper.exchange import NO_EXCHANGE_RATE, USD, Exchange, UsdRate
from services.scraper.listing import CloudListing, Condition, RawListing
from services.scraper.settings import ScraperSettings
from shared.kit.money import CENT
from shared.kit.text import UNSAFE_SCRAPED

T = TypeVar("T")

MATCHED = "matched"
# Drop reason of a price in another currency that no dated rate converts (a currency the
# rate table lacks, a day past its end, or a run given no rates).
CURRENCY = NO_EXCHANGE_RATE

# Listing condition -> stored condition. Open-box cards are returns sold below new: a
# second-hand price, so "used".
STORED_CONDITIONS = {
    Condition.NEW: "new",
    Condition.USED: "used",
    Condition.REFURBISHED: "refurbished",
    Condition.OPEN_BOX: "used",
}


class TitleMatch(Protocol):
    """The matcher's verdict on a title; `reason` is "matched" or a rejection code."""

    @property
    def gpu_id(self) -> str | None: ...

    @property
    def quantity(self) -> int | None: ...

    @property
    def reason(self) -> str: ...


TitleMatcher = Callable[[str], TitleMatch]


@dataclass(frozen=True)
class PricedListing:
    listing: RawListing
    gpu_id: str
    quantity: int
    total_usd: Decimal
    unit_price_usd: Decimal
    # False when the page showed no shipping cost: the unit price is then a lower bound.
    shipping_known: bool
    # "new", "used" or "refurbished", as stored.
    condition: str
    # The rate that priced a listing shown in another currency in USD (the shown amount
    # and currency stay on `listing.price`); None for a price shown in USD.
    usd_rate: UsdRate | None = None


@dataclass(frozen=True)
class Drop:
    stage: str
    reason: str
    listing: RawListing | CloudListing
    detail: str = ""

    @property
    def ref(self) -> str:
        """'source:listing_id' or 'provider:instance_type:region', for logs and tests."""
        item = self.listing
        if isinstance(item, RawListing):
            return f"{item.source}:{item.listing_id}"
        return f"{item.provider}:{item.instance_type}:{item.region}"


@dataclass
class PipelineStats:
    seen: int = 0
    accepted: int = 0
    dropped: Counter[str] = field(default_factory=Counter)

    def record(self, drops: Iterable[Drop]) -> None:
        for drop in drops:
            self.dropped[f"{drop.stage}.{drop.reason}"] += 1


@dataclass(frozen=True)
class StageResult(Generic[T]):
    kept: list[T]
    dropped: list[Drop]


@dataclass(frozen=True)
class PriceBounds:
    min_unit_usd: Decimal
    max_unit_usd: Decimal

    @classmethod
    def from_settings(cls, settings: ScraperSettings) -> PriceBounds:
        return cls(settings.min_unit_price_usd, settings.max_unit_price_usd)


@dataclass(frozen=True)
class PipelineResult:
    accepted: list[PricedListing]
    dropped: list[Drop]
    stats: PipelineStats


def run(
    listings: Iterable[RawListing],
    matcher: TitleMatcher,
    bounds: PriceBounds,
    exchange: Exchange | None = None,
) -> PipelineResult:
    """All stages: the valid listings, once each, and every drop with its reason. Without
    an `exchange`, a price shown in another currency than USD is dropped."""
    raw = list(listings)
    stats = PipelineStats(seen=len(raw))
    normalized = normalize(raw, matcher, exchange)
    validated = validate(normalized.kept, bounds)
    unique = dedupe(validated.kept)
    drops = normalized.dropped + validated.dropped + unique.dropped
    stats.record(drops)
    stats.accepted = len(unique.kept)
    return PipelineResult(unique.kept, drops, stats)


def normalize(
    listings: Iterable[RawListing], matcher: TitleMatcher, exchange: Exchange | None = None
) -> StageResult[PricedListing]:
    """Match each title and price it as USD per unit: (price + shipping) / quantity, each
    converted at the rate of the listing's day when shown in another currency."""
    kept: list[PricedListing] = []
    dropped: list[Drop] = []
    for listing in listings:
        outcome = _normalize_one(listing, matcher, exchange)
        if isinstance(outcome, Drop):
            dropped.append(outcome)
        else:
            kept.append(outcome)
    return StageResult(kept, dropped)


def _normalize_one(
    listing: RawListing, matcher: TitleMatcher, exchange: Exchange | None
) -> PricedListing | Drop:
    reason = _unpriceable(listing)
    if reason is not None:
        return Drop("normalize", reason, listing, listing.price_text or "")
    in_usd = _in_usd(listing, exchange)
    if isinstance(in_usd, str):
        return Drop("normalize", CURRENCY, listing, in_usd)
    match = matcher(listing.title)
    if match.reason != MATCHED or match.gpu_id is None:
        code = match.reason if match.reason != MATCHED else "matcher_gave_no_gpu"
        return Drop("normalize", code, listing, listing.title)
    quantity = 1 if match.quantity is None else match.quantity
    if quantity < 1:
        return Drop("normalize", "invalid_quantity", listing, str(quantity))
    return _priced(listing, match.gpu_id, quantity, in_usd)


# Above any GPU's price by orders of magnitude, and far inside Decimal's exact range:
# 1e308 or 1e999 is a broken page, and quantizing it would raise.
MAX_SANE_AMOUNT = Decimal("1e9")


def _unsafe_text(*values: str | None) -> bool:
    """Text the database must not get (broken Unicode, NUL, control characters)."""
    return any(value is not None and UNSAFE_SCRAPED.search(value) for value in values)


def _insane_amount(amount: Decimal) -> bool:
    return not amount.is_finite() or abs(amount) > MAX_SANE_AMOUNT


def _unpriceable(listing: RawListing) -> str | None:
    """Why this listing has no usable USD price, or None when it has one."""
    if _unsafe_text(listing.title, listing.listing_id, listing.url):
        return "invalid_text"
    if listing.price_issue is not None:
        return listing.price_issue
    if listing.price is None:
        return "missing_price"
    if _insane_amount(listing.price.amount) or (
        listing.shipping is not None and _insane_amount(listing.shipping.amount)
    ):
        return "absurd_price"
    if listing.condition is Condition.FOR_PARTS:
        return "for_parts"
    if listing.in_stock is False:
        return "out_of_stock"
    if listing.condition not in STORED_CONDITIONS:
        return "unknown_condition"
    return None


@dataclass(frozen=True)
class _InUsd:
    total: Decimal
    # The rate of a price shown in another currency; None when shown in USD.
    rate: UsdRate | None


def _in_usd(listing: RawListing, exchange: Exchange | None) -> _InUsd | str:
    """Price plus shipping in USD, or why it cannot be (the drop's detail): a euro or sol
    amount stored as dollars would be a wrong price, and so would one at a guessed rate."""
    assert listing.price is not None  # checked by _unpriceable
    shown = [listing.price] + ([listing.shipping] if listing.shipping is not None else [])
    if all(money.currency == USD for money in shown):
        return _InUsd(sum((money.amount for money in shown), Decimal(0)), None)
    if exchange is None:
        return "no exchange rates given"
    day = exchange.day_of(listing)
    total = Decimal(0)
    rate: UsdRate | None = None
    for money in shown:
        converted = exchange.to_usd(money, day)
        if converted is None:
            return exchange.missing(money.currency, day)
        total += converted.usd
        if money.currency != USD and rate is None:
            rate = converted.rate
    return _InUsd(total, rate)


def _priced(listing: RawListing, gpu_id: str, quantity: int, in_usd: _InUsd) -> PricedListing:
    unit = (in_usd.total / quantity).quantize(CENT, rounding=ROUND_HALF_UP)
    condition = STORED_CONDITIONS[listing.condition]
    known = listing.shipping is not None
    return PricedListing(
        listing, gpu_id, quantity, in_usd.total, unit, known, condition, in_usd.rate
    )


def validate(items: Iterable[PricedListing], bounds: PriceBounds) -> StageResult[PricedListing]:
    """Unit prices within the configured bounds (a bound is not the market: a price far
    from the market is the ingest's quarantine, shared/pricing/ingest.py)."""
    kept: list[PricedListing] = []
    dropped: list[Drop] = []
    for item in items:
        reason = _out_of_bounds(item.unit_price_usd, bounds)
        if reason is not None:
            dropped.append(Drop("validate", reason, item.listing, str(item.unit_price_usd)))
        else:
            kept.append(item)
    return StageResult(kept, dropped)


def _out_of_bounds(unit_usd: Decimal, bounds: PriceBounds) -> str | None:
    if unit_usd <= 0:
        return "non_positive_price"
    if unit_usd < bounds.min_unit_usd:
        return "below_minimum_price"
    if unit_usd > bounds.max_unit_usd:
        return "above_maximum_price"
    return None


def dedupe(items: Iterable[PricedListing]) -> StageResult[PricedListing]:
    """First occurrence of each listing wins (pages and search terms overlap).

    A listing is (source, listing id, active or sold): a sold record of an item is a
    different fact from its asking price.
    """
    seen: set[tuple[str, str, str]] = set()
    kept: list[PricedListing] = []
    dropped: list[Drop] = []
    for item in items:
        listing = item.listing
        key = (listing.source, listing.listing_id, listing.listing_type.value)
        if key in seen:
            dropped.append(Drop("dedupe", "duplicate", listing, listing.listing_id))
        else:
            seen.add(key)
            kept.append(item)
    return StageResult(kept, dropped)


def validate_cloud(listings: Iterable[CloudListing]) -> StageResult[CloudListing]:
    """Drop cloud prices that are missing or non-positive; merge repeated offers.

    Azure lists a VM's on-demand and spot meters as separate rows, which paging can put
    on different pages: rows of one offer that carry different prices are merged, and
    only a row that adds nothing is dropped as a duplicate.
    """
    kept: dict[tuple[str, str, str, str | None], CloudListing] = {}
    dropped: list[Drop] = []
    for listing in listings:
        key = (listing.provider, listing.instance_type, listing.region, listing.offer_id)
        problem = _cloud_problem(listing)
        if problem is not None:
            dropped.append(Drop("validate", problem, listing))
            continue
        earlier = kept.get(key)
        if earlier is None:
            kept[key] = listing
            continue
        merged = _merge_offer(earlier, listing)
        if merged is None:
            dropped.append(Drop("validate", "duplicate", listing))
        else:
            kept[key] = merged
    return StageResult(list(kept.values()), dropped)


def _merge_offer(first: CloudListing, second: CloudListing) -> CloudListing | None:
    """`first` completed with the prices only `second` has; None if it adds nothing."""
    on_demand = first.on_demand_usd_per_hour or second.on_demand_usd_per_hour
    spot = first.spot_usd_per_hour or second.spot_usd_per_hour
    if (on_demand, spot) == (first.on_demand_usd_per_hour, first.spot_usd_per_hour):
        return None
    return replace(first, on_demand_usd_per_hour=on_demand, spot_usd_per_hour=spot)


def _cloud_problem(listing: CloudListing) -> str | None:
    prices = [listing.on_demand_usd_per_hour, listing.spot_usd_per_hour]
    shown = [price for price in prices if price is not None]
    if _unsafe_text(listing.provider, listing.instance_type, listing.region, listing.offer_id):
        return "invalid_text"
    if not shown:
        return "missing_price"
    if any(_insane_amount(price) for price in shown):
        return "absurd_price"
    if any(price <= 0 for price in shown):
        return "non_positive_price"
    return None
