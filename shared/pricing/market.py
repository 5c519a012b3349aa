"""The market price of a GPU in a condition, from stored observations.

Which prices may stand for the market: observations of a market (scraped listings,
bundled market data, launch list prices of cards still on sale), never quotes posted to
us (`POST /prices`), never quarantined ones. They fall into series (all scraped listings
together; each bundled dataset and measure on its own), and each series gives one
aggregate over its newest window:

1. each listing counts once, with its latest observation (a listing re-seen by every
   scrape is one offer, not one per scrape); a sold record of a listing beats its asking
   records;
2. for used cards, sold prices are used when there are any (eBay sold listings, plus
   marketplace listings that vanished before a later successful scrape: probable sales
   at their last price); active asking prices otherwise. `basis` says which;
3. prices outside Tukey's fences (1.5 IQR beyond the quartiles, with 4 or more prices)
   are removed; the price is the median of the rest, with n, low/high and the IQR;
4. within the window, prices from sources flagged stale are left out when a fresh source
   has prices too; when only stale sources do, they are used and the price is marked stale.

The ranking then takes, in this order: recent sales (within `stale_days`) over recent
asking prices over older data, the newest first within each. A launch list price counts
as a new price only within `list_price_max_age_days` of launch: later the card may be
discontinued and its MSRP says nothing about what buyers pay. For `any` condition the
fresher of new and used wins; between equally fresh ones, the cheaper.

Kept whole because it is the one rule above, its steps in the order listed, and each
helper serves only that rule.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Protocol

from shared.kit.money import CENT
from shared.kit.settings import Settings
from shared.pricing.measures import (
    ASK,
    LIST_PRICE,
    NOT_MARKET_MEASURES,
    SALE,
    SALE_MEASURES,
    describe,
    is_quote,
)

# "used" covers refurbished cards too: both are second-hand market prices.
CONDITION_GROUPS: dict[str, tuple[str, ...]] = {
    "new": ("new",),
    "used": ("used", "refurbished"),
}

SCRAPED = "scraped"
# Observation sources are "<scraper source>" or "<scraper source>:sold" (completed sales).
SOLD_SUFFIX = ":sold"
# Scraper sources that show the same listings under the same ids as another source.
SAME_LISTINGS_AS: dict[str, str] = {"ebay_browse": "ebay"}
# Sites where a listing that disappears between two scrapes was most likely bought;
# retailers drop items for many reasons (restock, delisting), so they are not here.
MARKETPLACES = frozenset({"ebay"})

BASIS_SOLD = "sold"
BASIS_ASKING = "asking"
TUKEY_K = Decimal("1.5")
MIN_FOR_OUTLIERS = 4
# Two stale prices this close in time are equally old for choosing the cheaper one.
DATE_TIE_DAYS = 90


class Observation(Protocol):
    """What a market price reads of a stored price: a `PriceObservation`, or a lighter
    row of the same columns (`shared/pricing/window.py`)."""

    @property
    def gpu_id(self) -> str: ...
    @property
    def condition(self) -> str: ...
    @property
    def price_usd(self) -> Decimal: ...
    @property
    def kind(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def listing_id(self) -> str | None: ...
    @property
    def observed_at(self) -> datetime: ...
    @property
    def quarantined(self) -> bool: ...
    @property
    def measure(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SourcePrice:
    source: str
    usd: Decimal
    n: int
    low_usd: Decimal
    high_usd: Decimal
    observed_at: datetime
    stale: bool = False


@dataclass(frozen=True, slots=True)
class MarketPrice:
    gpu_id: str
    condition: str
    usd: Decimal
    kind: str
    source: str
    observed_at: datetime
    n: int
    low_usd: Decimal
    high_usd: Decimal
    method: str
    # "sold" / "asking" for scraped prices, else the kind ("snapshot", "msrp", ...).
    basis: str = ""
    sold_n: int = 0
    probable_sales: int = 0
    outliers_removed: int = 0
    iqr_usd: Decimal = Decimal("0")
    # Oldest observation used: with observed_at, how fresh the whole price is.
    oldest_at: datetime | None = None
    stale: bool = False
    by_source: tuple[SourcePrice, ...] = ()
    # What the price measures (shared/pricing/measures.py), and why it is stale if it is.
    measure: str = ASK
    stale_reason: str | None = None
    age_days: float = 0.0
    # Set when the series is too thin to be a market (a marketplace's asks below
    # `min_asks`): kept to say what was seen, never a price.
    thin_reason: str | None = None


def age_days(at: datetime, now: datetime) -> float:
    """How old a price observed `at` is at `now`, in days (two decimals)."""
    return round((now - at).total_seconds() / 86400, 2)


def source_name(observation_source: str) -> str:
    """The scraper source an observation came from ("ebay:sold" -> "ebay")."""
    return observation_source.removesuffix(SOLD_SUFFIX)


def is_sold(observation: Observation) -> bool:
    return observation.source.endswith(SOLD_SUFFIX)


@dataclass(frozen=True, slots=True)
class PricePolicy:
    """When a market price is computed, and the rules that depend on the date."""

    now: datetime
    window_days: int = 7
    stale_days: int = 90
    list_price_max_age_days: int = 730
    stale_sources: frozenset[str] = frozenset()
    min_asks: int = 3
    # Each scraper source's last successful run (probable sales); None: the newest
    # observation of each source stands in for the run.
    last_runs: Mapping[str, datetime] | None = None
    # An answer as of a past date sees only what was observed before this moment; None:
    # every stored price.
    observed_before: datetime | None = None

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        now: datetime,
        *,
        stale_sources: Collection[str] = frozenset(),
        last_runs: Mapping[str, datetime] | None = None,
    ) -> PricePolicy:
        return cls(
            now=now,
            window_days=settings.market_window_days,
            stale_days=settings.price_stale_days,
            list_price_max_age_days=settings.msrp_as_new_max_age_days,
            stale_sources=frozenset(stale_sources),
            min_asks=settings.market_min_asks,
            last_runs=last_runs,
        )

    def is_fresh(self, observed_at: datetime) -> bool:
        return self.now - observed_at <= timedelta(days=self.stale_days)


def market_price(
    observations: Sequence[Observation], condition: str, policy: PricePolicy
) -> MarketPrice | None:
    """The market price of one GPU in `condition` ("new" or "used"); None without data."""
    return preferred(series_prices(observations, condition, policy))


def series_prices(
    observations: Sequence[Observation], condition: str, policy: PricePolicy
) -> list[MarketPrice]:
    """Each series' price in `condition`, the series in the order their rows first come.
    The market price of any subset of the series (of one kind, say) is `preferred` of
    theirs: a page showing the price per kind reads the rows once."""
    usable = [o for o in observations if _is_market(o, condition, policy)]
    return [
        price
        for series in _series(usable).values()
        if (price := _series_price(series, condition, policy)) is not None
    ]


def preferred(candidates: Iterable[MarketPrice]) -> MarketPrice | None:
    """The series price that stands for the market (the first of equals)."""
    return max(candidates, key=_preference, default=None)


def _is_market(o: Observation, condition: str, policy: PricePolicy) -> bool:
    if o.condition not in CONDITION_GROUPS[condition] or o.quarantined or is_quote(o.kind):
        return False
    if policy.observed_before is not None and o.observed_at >= policy.observed_before:
        return False
    if o.measure in NOT_MARKET_MEASURES:
        return False
    if o.measure == LIST_PRICE:
        return policy.now - o.observed_at <= timedelta(days=policy.list_price_max_age_days)
    return True


def _series(
    observations: Iterable[Observation],
) -> dict[tuple[str, ...], list[Observation]]:
    """Scraped listings form one series (sold and asking records of the same listings);
    every bundled dataset and measure is a series of its own."""
    grouped: dict[tuple[str, ...], list[Observation]] = defaultdict(list)
    for o in observations:
        key = (SCRAPED,) if o.kind == SCRAPED else (o.kind, o.source, o.measure)
        grouped[key].append(o)
    return grouped


def _preference(price: MarketPrice) -> tuple[bool, bool, bool, datetime]:
    # Fresh first, as before thin series existed: a price never depends on history older
    # than the stale age before a fresher one (price-drop alerts read no more than that).
    # A thin fresh series then wins over an old market and leaves the card unranked,
    # saying so, rather than estimated from the older market.
    fresh = not price.stale
    market = price.thin_reason is None
    return fresh, market, fresh and price.measure in SALE_MEASURES, price.observed_at


def _series_price(
    series: Sequence[Observation], condition: str, policy: PricePolicy
) -> MarketPrice | None:
    newest = max(series, key=lambda o: o.observed_at)
    since = newest.observed_at - timedelta(days=policy.window_days)
    window = [o for o in series if o.observed_at >= since]
    window, source_stale = _prefer_fresh(window, policy.stale_sources)
    runs = dict(policy.last_runs) if policy.last_runs is not None else _newest_by_source(series)
    offers = _latest_per_listing(window)
    chosen, basis, sold_n, probable = _choose(offers, newest.kind, condition, runs)
    kept, removed = remove_outliers(chosen)
    if not kept:
        return None
    counts = _Counts(sold_n, probable, removed)
    price = _aggregate(newest, condition, policy, kept, basis, source_stale, counts)
    # A retailer's one ask is a market of one as much as a marketplace seller's: the
    # minimum applies to every source's asks (a published aggregate is not an ask).
    if price.measure == ASK and price.n < policy.min_asks:
        where = (
            "on a marketplace" if is_marketplace(newest.kind, newest.source) else "at a retailer"
        )
        thin = (
            f"only {price.n} asking price{'s' if price.n > 1 else ''} {where} "
            f"(a market price needs {policy.min_asks})"
        )
        return replace(price, thin_reason=thin)
    return price


def is_marketplace(kind: str, source: str) -> bool:
    """Asks of individual sellers (eBay, scraped or as a bundled search snapshot), not a
    retailer's own offer or a published aggregate."""
    if kind == SCRAPED:
        name = source_name(source)
        return SAME_LISTINGS_AS.get(name, name) in MARKETPLACES
    return source.startswith("eBay")


def _prefer_fresh(
    window: list[Observation], stale_sources: Collection[str]
) -> tuple[list[Observation], bool]:
    fresh = [o for o in window if source_name(o.source) not in stale_sources]
    if fresh:
        return fresh, False
    return window, bool(window)


def _newest_by_source(observations: Iterable[Observation]) -> dict[str, datetime]:
    newest: dict[str, datetime] = {}
    for o in observations:
        name = source_name(o.source)
        if name not in newest or o.observed_at > newest[name]:
            newest[name] = o.observed_at
    return newest


def _listing_key(o: Observation) -> tuple[str, str] | int:
    if o.listing_id is None:
        return id(o)  # bundled rows without an id are separate data points
    name = source_name(o.source)
    return (SAME_LISTINGS_AS.get(name, name), o.listing_id)


def _latest_per_listing(window: Iterable[Observation]) -> list[Observation]:
    latest: dict[tuple[str, str] | int, Observation] = {}
    for o in window:
        key = _listing_key(o)
        held = latest.get(key)
        if held is None or (is_sold(o), o.observed_at) > (is_sold(held), held.observed_at):
            latest[key] = o
    return list(latest.values())


def _choose(
    offers: list[Observation], kind: str, condition: str, runs: Mapping[str, datetime]
) -> tuple[list[Observation], str, int, int]:
    """(prices used, basis, confirmed sales, probable sales)."""
    if kind != SCRAPED:
        return offers, kind, 0, 0
    sold = [o for o in offers if is_sold(o)]
    probable = [o for o in offers if not is_sold(o) and _vanished(o, runs)]
    if condition == "used" and (sold or probable):
        return sold + probable, BASIS_SOLD, len(sold), len(probable)
    asking = [o for o in offers if not is_sold(o)]
    # New cards: the asking price is what a buyer pays; sold-only windows still count.
    chosen = asking or offers
    return chosen, BASIS_ASKING if asking else BASIS_SOLD, len(offers) - len(asking), 0


def _vanished(o: Observation, runs: Mapping[str, datetime]) -> bool:
    name = source_name(o.source)
    site = SAME_LISTINGS_AS.get(name, name)
    last_run = runs.get(name)
    return site in MARKETPLACES and last_run is not None and o.observed_at < last_run


def remove_outliers(
    observations: Sequence[Observation],
) -> tuple[list[Observation], int]:
    """Drop prices outside Tukey's fences; fewer than 4 prices are all kept."""
    if len(observations) < MIN_FOR_OUTLIERS:
        return list(observations), 0
    q1, q3 = quartiles([o.price_usd for o in observations])
    low, high = q1 - TUKEY_K * (q3 - q1), q3 + TUKEY_K * (q3 - q1)
    kept = [o for o in observations if low <= o.price_usd <= high]
    return kept, len(observations) - len(kept)


def quartiles(values: Sequence[Decimal]) -> tuple[Decimal, Decimal]:
    """First and third quartile, linear interpolation between order statistics."""
    ordered = sorted(values)
    return _quantile(ordered, Decimal("0.25")), _quantile(ordered, Decimal("0.75"))


def _quantile(ordered: Sequence[Decimal], q: Decimal) -> Decimal:
    position = q * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    fraction = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * fraction


def _median(values: Sequence[Decimal]) -> Decimal:
    return Decimal(statistics.median(values)).quantize(CENT)


@dataclass(frozen=True, slots=True)
class _Counts:
    sold_n: int
    probable: int
    removed: int


def _aggregate(
    newest: Observation,
    condition: str,
    policy: PricePolicy,
    kept: list[Observation],
    basis: str,
    source_stale: bool,
    counts: _Counts,
) -> MarketPrice:
    prices = sorted(o.price_usd for o in kept)
    q1, q3 = quartiles(prices)
    observed_at = max(o.observed_at for o in kept)
    measure = _measure(newest, basis)
    stale_reason = _stale_reason(observed_at, source_stale, policy)
    return MarketPrice(
        gpu_id=newest.gpu_id,
        condition=condition,
        usd=_median(prices),
        kind=newest.kind,
        source=_describe_sources(o.source for o in kept),
        observed_at=observed_at,
        n=len(kept),
        low_usd=prices[0],
        high_usd=prices[-1],
        method=_describe_method(len(kept), policy, measure, counts, stale_reason),
        basis=basis,
        sold_n=counts.sold_n,
        probable_sales=counts.probable,
        outliers_removed=counts.removed,
        iqr_usd=(q3 - q1).quantize(CENT),
        oldest_at=min(o.observed_at for o in kept),
        stale=stale_reason is not None,
        by_source=_per_source(kept, source_stale),
        measure=measure,
        stale_reason=stale_reason,
        age_days=age_days(observed_at, policy.now),
    )


def _measure(newest: Observation, basis: str) -> str:
    if newest.kind != SCRAPED:
        return newest.measure
    return SALE if basis == BASIS_SOLD else ASK


def _stale_reason(observed_at: datetime, source_stale: bool, policy: PricePolicy) -> str | None:
    if source_stale:
        return "its sources have not answered for 2 scrape intervals"
    if not policy.is_fresh(observed_at):
        return f"older than {policy.stale_days} days"
    return None


def _per_source(kept: Iterable[Observation], stale: bool) -> tuple[SourcePrice, ...]:
    grouped: dict[str, list[Observation]] = defaultdict(list)
    for o in kept:
        grouped[o.source].append(o)
    return tuple(
        SourcePrice(
            source=source,
            usd=_median([o.price_usd for o in group]),
            n=len(group),
            low_usd=min(o.price_usd for o in group),
            high_usd=max(o.price_usd for o in group),
            observed_at=max(o.observed_at for o in group),
            stale=stale,
        )
        for source, group in sorted(grouped.items())
    )


def _describe_sources(sources: Iterable[str]) -> str:
    unique = sorted(set(sources))
    return unique[0] if len(unique) == 1 else "; ".join(unique)


def _describe_method(
    n: int, policy: PricePolicy, measure: str, counts: _Counts, stale_reason: str | None
) -> str:
    what = describe(measure)
    if n == 1:
        text = f"single {what}"
    else:
        text = f"median of {n} ({what}) within {policy.window_days} days of the newest"
    if counts.probable:
        text += f", {counts.probable} of them probable sales (listings gone before a later scrape)"
    if counts.removed:
        text += f", {counts.removed} outlier{'s' if counts.removed > 1 else ''} removed (1.5 IQR)"
    if stale_reason:
        text += f"; stale: {stale_reason}"
    return text


def cheapest(prices: Iterable[MarketPrice | None]) -> MarketPrice | None:
    """The price for condition "any": the fresher of the new and used prices; between
    equally fresh ones (or stale ones within the same window of time), the cheaper."""
    found = [p for p in prices if p is not None]
    if not found:
        return None
    fresh = [p for p in found if not p.stale]
    if fresh:
        return min(fresh, key=lambda p: p.usd)
    newest = max(p.observed_at for p in found)
    recent = [p for p in found if newest - p.observed_at <= timedelta(days=DATE_TIE_DAYS)]
    return min(recent, key=lambda p: p.usd)
