"""A price far from the market is held back (stored, flagged, never the market price)
until the market confirms it: one rule, one set of settings, for scraped and posted
prices alike.

The reference a price is compared with, per GPU and market group (new / used):
1. the median of the last `window_days` of market prices, each listing once at its
   latest price, when there are at least `min_n` of them;
2. else the newest market price (shared/pricing/market.py), however old;
3. else the card's launch list price (half of it for used cards);
4. else its peers' reference: the median of the references (1-3) of the catalog cards of
   the same vendor, segment and architecture whose memory is within 2x of the card's,
   those of its form (modules: SXM, OAM, superchips; or cards) first; for used cards
   without used peer prices, half of the peers' new reference. A card no market prices
   and without a launch price (H200, B200, MI300X) is still checked: a $99 H200 is not
   a price.
Quotes posted to us never enter a reference: one posted price cannot move the bar the
next one is measured against. `reference_details` also says which reference it is.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Row, func, or_, select
from sqlmodel import Session, col

from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.settings import Settings
from shared.models import PriceObservation
from shared.pricing.market import PricePolicy, market_price
from shared.pricing.measures import LIST_PRICE, NOT_MARKET_MEASURES, QUOTE_KINDS
from shared.pricing.window import market_group, market_observations

MARKET_GROUPS = {"new": "new", "used": "used", "refurbished": "used"}

MedianKey = tuple[str, str]  # (gpu id, market group)
# (gpu id, condition, source, listing id, observed at, price usd, measure)
_Recent = Row[Any]
DEFAULT_FACTOR = Decimal("3")
# Peers' memory within this factor of the card's: a similar memory class.
PEER_MEMORY_RATIO = 2.0
MODULE_FORMS = frozenset({"sxm", "oam", "superchip"})


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference price and what it is (said in POST /prices' answer)."""

    usd: Decimal
    basis: str


@dataclass(frozen=True, slots=True)
class QuarantineRules:
    factor: Decimal = DEFAULT_FACTOR
    window_days: int = 30
    min_n: int = 3

    @classmethod
    def from_settings(cls, settings: Settings) -> QuarantineRules:
        return cls(
            settings.quarantine_factor,
            settings.quarantine_window_days,
            settings.quarantine_min_n,
        )


def _market_rows(session: Session, gpu_ids: Set[str], since: datetime) -> Sequence[_Recent]:
    """Each listing's latest row of the window (rows without a listing id all), and only
    the columns the median needs: a month of a popular card is tens of thousands of rows,
    a listing stored by every scrape, and whole ORM objects of all of them made each
    posted price wait seconds for its check. (source, listing id, time) is unique, so
    the latest row of a listing is one row."""
    o = PriceObservation
    group = market_group()
    latest = func.rank().over(
        partition_by=(col(o.gpu_id), group, col(o.source), col(o.listing_id)),
        order_by=col(o.observed_at).desc(),
    )
    names = ("gpu_id", "condition", "source", "listing_id", "observed_at", "price_usd", "measure")
    ranked = (
        select(*(col(getattr(o, name)) for name in names), latest.label("latest"))
        .where(
            col(o.gpu_id).in_(sorted(gpu_ids)),
            col(o.quarantined).is_(False),
            col(o.kind).not_in(sorted(QUOTE_KINDS)),
            col(o.measure) != LIST_PRICE,
            col(o.measure).not_in(sorted(NOT_MARKET_MEASURES)),
            col(o.observed_at) >= since,
        )
        .subquery()
    )
    no_listing = or_(ranked.c.listing_id.is_(None), ranked.c.listing_id == "")
    query = select(*(ranked.c[name] for name in names)).where(or_(ranked.c.latest == 1, no_listing))
    return session.execute(query).all()


def recent_medians(
    session: Session, keys: Set[MedianKey], now: datetime, rules: QuarantineRules
) -> dict[MedianKey, Decimal]:
    """Median unit price per (GPU, market group) over the window, each listing counted
    once at its latest price: an asking listing stored on every run must not become
    "the market" by repetition. Launch list prices and quotes are left out."""
    return {key: median for key, (median, _n) in _recent_medians(session, keys, now, rules).items()}


def _recent_medians(
    session: Session, keys: Set[MedianKey], now: datetime, rules: QuarantineRules
) -> dict[MedianKey, tuple[Decimal, int]]:
    """`recent_medians` with the number of listings of each median."""
    if not keys:
        return {}
    since = now - timedelta(days=rules.window_days)
    latest: dict[tuple[MedianKey, str, str], tuple[datetime, Decimal]] = {}
    for row, o in enumerate(_market_rows(session, {gpu for gpu, _ in keys}, since)):
        key = (o.gpu_id, MARKET_GROUPS.get(o.condition, o.condition))
        if key not in keys or o.measure == LIST_PRICE:
            continue
        listing = (key, o.source, o.listing_id or f"row:{row}")  # no id: its own listing
        if listing not in latest or o.observed_at > latest[listing][0]:
            latest[listing] = (o.observed_at, o.price_usd)
    prices: dict[MedianKey, list[Decimal]] = defaultdict(list)
    for (key, _source, _listing), (_at, usd) in latest.items():
        prices[key].append(usd)
    return {
        key: (Decimal(statistics.median(values)), len(values))
        for key, values in prices.items()
        if len(values) >= rules.min_n
    }


def references(
    session: Session, keys: Set[MedianKey], now: datetime, rules: QuarantineRules
) -> dict[MedianKey, Decimal]:
    """The reference price of each key (see the module docstring); keys without any
    market data, list price or priced peers are absent."""
    return {key: ref.usd for key, ref in reference_details(session, keys, now, rules).items()}


def reference_details(
    session: Session, keys: Set[MedianKey], now: datetime, rules: QuarantineRules
) -> dict[MedianKey, Reference]:
    """`references` with what each reference is."""
    found = _own_references(session, keys, now, rules)
    catalog = load_catalog()
    unpriced = {
        key: peers
        for key in keys
        if key not in found
        and (spec := catalog.by_id.get(key[0])) is not None
        and (peers := peer_tiers(spec, catalog.gpus))
    }
    if not unpriced:
        return found
    peer_keys = {
        (peer.id, group)
        for tiers in unpriced.values()
        for tier in tiers
        for peer in tier
        for group in ("new", "used")
    }
    of_peers = _own_references(session, peer_keys, now, rules)
    for key, tiers in unpriced.items():
        if (reference := _peer_reference(tiers, key[1], of_peers)) is not None:
            found[key] = reference
    return found


def _own_references(
    session: Session, keys: Set[MedianKey], now: datetime, rules: QuarantineRules
) -> dict[MedianKey, Reference]:
    """Steps 1-3 of the module docstring: the card's own market, else its launch price."""
    found = {
        key: Reference(median, f"{rules.window_days}-day median of {n} market prices")
        for key, (median, n) in _recent_medians(session, keys, now, rules).items()
    }
    missing = {key for key in keys if key not in found}
    if not missing:
        return found
    # Any age, any launch price: a reference, not a ranking price.
    policy = PricePolicy(now=now, stale_days=10**6, list_price_max_age_days=10**6)
    by_gpu = market_observations(session, {gpu for gpu, _ in missing}, policy)
    catalog = load_catalog().by_id
    for gpu_id, group in missing:
        newest = market_price(by_gpu[gpu_id], group, policy)
        if newest is not None:
            basis = f"newest market price ({newest.measure}, {newest.observed_at.date()})"
            found[(gpu_id, group)] = Reference(newest.usd, basis)
        elif (spec := catalog.get(gpu_id)) is not None and spec.launch_price_usd:
            launch = Decimal(spec.launch_price_usd)
            basis = f"launch price ${launch:,.0f}" + (" (half for used)" if group != "new" else "")
            found[(gpu_id, group)] = Reference(list_price_reference(launch, group), basis)
    return found


def peer_tiers(spec: GpuSpec, catalog: Sequence[GpuSpec]) -> list[list[GpuSpec]]:
    """A card's peers (same vendor, segment and architecture, memory within 2x), those
    of its form first: [same form, other forms], empty tiers left out."""
    peers = [
        other
        for other in catalog
        if other.id != spec.id
        and (other.vendor, other.segment, other.architecture)
        == (spec.vendor, spec.segment, spec.architecture)
        and max(other.memory_gb, spec.memory_gb)
        <= PEER_MEMORY_RATIO * min(other.memory_gb, spec.memory_gb)
    ]
    module = spec.form_factor in MODULE_FORMS
    same = [p for p in peers if (p.form_factor in MODULE_FORMS) == module]
    other = [p for p in peers if (p.form_factor in MODULE_FORMS) != module]
    return [tier for tier in (same, other) if tier]


def _peer_reference(
    tiers: Sequence[Sequence[GpuSpec]], group: str, of_peers: dict[MedianKey, Reference]
) -> Reference | None:
    """The median of the first priced tier's references of `group`; for used cards whose
    peers have only new references, half of those."""
    for tier in tiers:
        for peer_group in dict.fromkeys((group, "new")):
            priced = {p.id: ref for p in tier if (ref := of_peers.get((p.id, peer_group)))}
            if not priced:
                continue
            median = Decimal(statistics.median(ref.usd for ref in priced.values()))
            usd = list_price_reference(median, group) if peer_group != group else median
            listed = ", ".join(f"{gpu} ${ref.usd:,.0f}" for gpu, ref in sorted(priced.items()))
            half = " new, half for used" if peer_group != group else ""
            basis = f"peer cards' reference (median of {listed}{half})"
            return Reference(usd, basis)
    return None


def list_price_reference(launch_usd: Decimal, group: str) -> Decimal:
    """With no market data, the launch price anchors the band. Used cards sell below it
    (an old card for a fraction), so their reference is half of it: with the factor of 3,
    used prices between a sixth and 1.5x the launch price pass."""
    return launch_usd if group == "new" else launch_usd / 2


def quarantine_reason(
    price: Decimal, reference: Decimal | None, factor: Decimal = DEFAULT_FACTOR
) -> str | None:
    """Why `price` is held back against the `reference`, or None."""
    if reference is None or reference <= 0:
        return None
    if price > reference * factor:
        return "above_median_factor"
    if price < reference / factor:
        return "below_median_factor"
    return None
