"""The market price of a GPU in a condition, from stored observations.

The newest observation sets the date and the kind; the observations of that kind within
`window_days` before it form the price:

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

Quarantined observations never count. The aggregate is also given per source.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from shared.models import PriceObservation

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
CENT = Decimal("0.01")


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


def source_name(observation_source: str) -> str:
    """The scraper source an observation came from ("ebay:sold" -> "ebay")."""
    return observation_source.removesuffix(SOLD_SUFFIX)


def is_sold(observation: PriceObservation) -> bool:
    return observation.source.endswith(SOLD_SUFFIX)


def market_price(
    observations: Sequence[PriceObservation],
    condition: str,
    window_days: int,
    *,
    stale_sources: Collection[str] = frozenset(),
    last_runs: Mapping[str, datetime] | None = None,
) -> MarketPrice | None:
    """Robust median of the newest window of observations; None when there are none.

    `stale_sources` names scraper sources flagged stale; `last_runs` gives each scraper
    source's last successful run (probable sales); without it the newest observation of
    each source among `observations` stands in for the run.
    """
    usable = [
        o for o in observations if o.condition in CONDITION_GROUPS[condition] and not o.quarantined
    ]
    if not usable:
        return None
    newest = max(usable, key=lambda o: o.observed_at)
    since = newest.observed_at - timedelta(days=window_days)
    window = [o for o in usable if o.kind == newest.kind and o.observed_at >= since]
    window, stale = _prefer_fresh(window, stale_sources)
    runs = dict(last_runs) if last_runs is not None else _newest_by_source(usable)
    offers = _latest_per_listing(window)
    chosen, basis, sold_n, probable = _choose(offers, newest.kind, condition, runs)
    kept, removed = remove_outliers(chosen)
    return _aggregate(newest, condition, window_days, kept, removed, basis, stale, sold_n, probable)


def _prefer_fresh(
    window: list[PriceObservation], stale_sources: Collection[str]
) -> tuple[list[PriceObservation], bool]:
    fresh = [o for o in window if source_name(o.source) not in stale_sources]
    if fresh:
        return fresh, False
    return window, bool(window)


def _newest_by_source(observations: Iterable[PriceObservation]) -> dict[str, datetime]:
    newest: dict[str, datetime] = {}
    for o in observations:
        name = source_name(o.source)
        if name not in newest or o.observed_at > newest[name]:
            newest[name] = o.observed_at
    return newest


def _listing_key(o: PriceObservation) -> tuple[str, str] | int:
    if o.listing_id is None:
        return id(o)  # bundled rows without an id are separate data points
    name = source_name(o.source)
    return (SAME_LISTINGS_AS.get(name, name), o.listing_id)


def _latest_per_listing(window: Iterable[PriceObservation]) -> list[PriceObservation]:
    latest: dict[tuple[str, str] | int, PriceObservation] = {}
    for o in window:
        key = _listing_key(o)
        held = latest.get(key)
        if held is None or (is_sold(o), o.observed_at) > (is_sold(held), held.observed_at):
            latest[key] = o
    return list(latest.values())


def _choose(
    offers: list[PriceObservation], kind: str, condition: str, runs: Mapping[str, datetime]
) -> tuple[list[PriceObservation], str, int, int]:
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


def _vanished(o: PriceObservation, runs: Mapping[str, datetime]) -> bool:
    name = source_name(o.source)
    site = SAME_LISTINGS_AS.get(name, name)
    last_run = runs.get(name)
    return site in MARKETPLACES and last_run is not None and o.observed_at < last_run


def remove_outliers(
    observations: Sequence[PriceObservation],
) -> tuple[list[PriceObservation], int]:
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


def _aggregate(
    newest: PriceObservation,
    condition: str,
    window_days: int,
    kept: list[PriceObservation],
    removed: int,
    basis: str,
    stale: bool,
    sold_n: int,
    probable: int,
) -> MarketPrice:
    prices = sorted(o.price_usd for o in kept)
    q1, q3 = quartiles(prices)
    return MarketPrice(
        gpu_id=newest.gpu_id,
        condition=condition,
        usd=_median(prices),
        kind=newest.kind,
        source=_describe_sources(o.source for o in kept),
        observed_at=max(o.observed_at for o in kept),
        n=len(kept),
        low_usd=prices[0],
        high_usd=prices[-1],
        method=_describe_method(len(kept), window_days, basis, probable, removed, stale),
        basis=basis,
        sold_n=sold_n,
        probable_sales=probable,
        outliers_removed=removed,
        iqr_usd=(q3 - q1).quantize(CENT),
        oldest_at=min(o.observed_at for o in kept),
        stale=stale,
        by_source=_per_source(kept, stale),
    )


def _per_source(kept: Iterable[PriceObservation], stale: bool) -> tuple[SourcePrice, ...]:
    grouped: dict[str, list[PriceObservation]] = defaultdict(list)
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
    n: int, window_days: int, basis: str, probable: int, removed: int, stale: bool
) -> str:
    what = {BASIS_SOLD: "sold price", BASIS_ASKING: "asking price"}.get(basis, "observation")
    if n == 1:
        text = f"single {what}"
    else:
        text = f"median of {n} {what}s within {window_days} days of the newest"
    if probable:
        text += f", {probable} of them probable sales (listings gone before a later scrape)"
    if removed:
        text += f", {removed} outlier{'s' if removed > 1 else ''} removed (1.5 IQR)"
    if stale:
        text += "; stale: its sources have not answered for 2 scrape intervals"
    return text


def cheapest(prices: Iterable[MarketPrice | None]) -> MarketPrice | None:
    found = [p for p in prices if p is not None]
    return min(found, key=lambda p: p.usd) if found else None
