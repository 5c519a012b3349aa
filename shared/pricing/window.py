"""Reading only the observations a market price can use.

`market_price` (market.py) uses, of each series, the rows within `window_days` of the
series' newest usable row. A year of scraping is millions of rows and a price is made
of the last week's, so reading every row of a GPU made each recompute, price page and
TCO grow with the history. Here the window is applied in SQL, to the one series that
grows: scraped listings (one series per condition group). Every other kind (bundled
datasets: few rows, a series per source and measure) is read whole and windowed by
`market_price` as before. Of a scraped window, rows that cannot reach the price (a
listing's earlier records) are left out too (`_offers_in`). `market_price` over what is
returned gives the same answer as over all of the GPU's rows. Rows come in id order:
`market_price` keeps the first of equal records, so one order makes its answer one, and
lets a cache that appends new prices (services/api/prices/market_rows.py) match it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from decimal import Decimal
from operator import attrgetter
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    case,
    func,
    join,
    literal,
    or_,
    select,
    true,
    union_all,
)
from sqlmodel import Session, col

from shared.models import Gpu, PriceObservation
from shared.pricing.market import (
    CONDITION_GROUPS,
    SAME_LISTINGS_AS,
    SCRAPED,
    SOLD_SUFFIX,
    PricePolicy,
)
from shared.pricing.measures import LIST_PRICE

MARKET_CONDITIONS = tuple(sorted({c for group in CONDITION_GROUPS.values() for c in group}))
# A condition's market group ("refurbished" -> "used"), as `market_group` in SQL.
GROUP_OF = {member: group for group, members in CONDITION_GROUPS.items() for member in members}


@dataclass(frozen=True, slots=True)
class MarketRow:
    """The columns of a price a market price reads (an `Observation`): thousands of
    these load several times faster than ORM objects, which the market never writes."""

    id: int
    gpu_id: str
    condition: str
    price_usd: Decimal
    kind: str
    source: str
    listing_id: str | None
    observed_at: datetime
    quarantined: bool
    measure: str


COLUMNS = tuple(field.name for field in fields(MarketRow))


def market_observations(
    session: Session, gpu_ids: Iterable[str], policy: PricePolicy
) -> dict[str, list[MarketRow]]:
    """Per GPU, the unquarantined rows `market_price` may use for any condition."""
    ids = sorted(set(gpu_ids))
    grouped: dict[str, list[MarketRow]] = defaultdict(list)
    if not ids:
        return grouped
    o = PriceObservation
    table = PriceObservation.__table__.c  # type: ignore[attr-defined]
    # Two index ranges around "scraped" (`!=` is no range): every other kind, whole.
    other_kinds = select(*(table[name] for name in COLUMNS)).where(
        col(o.gpu_id).in_(ids),
        or_(col(o.kind) < SCRAPED, col(o.kind) > SCRAPED),
        col(o.quarantined).is_(False),
        *observed_in_time(policy),
    )
    for values in session.execute(other_kinds):
        row = MarketRow(*values)
        grouped[row.gpu_id].append(row)
    windows = [
        and_(
            col(o.gpu_id) == gpu_id,
            col(o.kind) == SCRAPED,
            col(o.condition).in_(CONDITION_GROUPS[group]),
            col(o.observed_at) >= newest - timedelta(days=policy.window_days),
            *observed_in_time(policy),
        )
        for (gpu_id, group), newest in newest_scraped(session, ids, policy).items()
    ]
    if windows:
        for values in session.execute(_offers_in(windows, policy.stale_sources)):
            row = MarketRow(*values)
            grouped[row.gpu_id].append(row)
    for rows in grouped.values():
        rows.sort(key=attrgetter("id"))
    return grouped


def _offers_in(windows: list[ColumnElement[bool]], stale_sources: Collection[str]) -> Select[Any]:
    """The window rows `market_price` can tell apart from the others.

    A listing is re-seen by every scrape and counts once, at its best record (a sale
    before asks, then the newest): the others never reach the price. Kept per listing,
    market group and freshness of its source (stale sources drop out when a fresh one
    has prices), ties all kept; plus each source's newest row (its last run when none
    is recorded) and rows without a listing id (each its own data point).
    """
    o = PriceObservation
    # Not LIKE: SQLite's is case-insensitive, str.endswith is not.
    suffix_at = func.length(o.source) - (len(SOLD_SUFFIX) - 1)
    sold_suffix = func.substr(o.source, suffix_at) == SOLD_SUFFIX
    name = case(
        (sold_suffix, func.substr(o.source, 1, func.length(o.source) - len(SOLD_SUFFIX))),
        else_=col(o.source),
    )
    site = case(*((name == alias, same) for alias, same in SAME_LISTINGS_AS.items()), else_=name)
    group = market_group()
    stale = case((name.in_(sorted(stale_sources)), 1), else_=0) if stale_sources else literal(0)
    best_record = func.rank().over(
        partition_by=(col(o.gpu_id), group, site, col(o.listing_id), stale),
        order_by=(case((sold_suffix, 1), else_=0).desc(), col(o.observed_at).desc()),
    )
    newest_of_source = func.rank().over(
        partition_by=(col(o.gpu_id), group, name), order_by=col(o.observed_at).desc()
    )
    table = PriceObservation.__table__.c  # type: ignore[attr-defined]
    ranked = (
        select(
            *(table[name] for name in COLUMNS),
            best_record.label("best_record"),
            newest_of_source.label("newest_of_source"),
        )
        .where(col(o.quarantined).is_(False), or_(*windows))
        .subquery()
    )
    return select(*(ranked.c[name] for name in COLUMNS)).where(
        or_(
            ranked.c.best_record == 1,
            ranked.c.newest_of_source == 1,
            ranked.c.listing_id.is_(None),
        )
    )


def best_offers(window: Iterable[MarketRow], stale_sources: Collection[str]) -> list[MarketRow]:
    """`_offers_in` in Python, over rows already within their windows (a cache that holds
    a GPU's window rows and appends new prices): the same rows, in the order given."""
    rows = list(window)
    best: dict[tuple[str, str, str, str | None, bool], tuple[bool, datetime]] = {}
    newest: dict[tuple[str, str, str], datetime] = {}
    keys = []
    for row in rows:
        sold = row.source.endswith(SOLD_SUFFIX)
        name = row.source[: -len(SOLD_SUFFIX)] if sold else row.source
        group = GROUP_OF.get(row.condition, row.condition)
        record = (row.gpu_id, group, SAME_LISTINGS_AS.get(name, name), row.listing_id)
        listing = (*record, name in stale_sources)
        rank = (sold, row.observed_at)
        if listing not in best or rank > best[listing]:
            best[listing] = rank
        source = (row.gpu_id, group, name)
        if source not in newest or row.observed_at > newest[source]:
            newest[source] = row.observed_at
        keys.append((listing, rank, source))
    # Ties are all kept, as rank() = 1 keeps them.
    return [
        row
        for row, (listing, rank, source) in zip(rows, keys, strict=True)
        if row.listing_id is None or best[listing] == rank or newest[source] == row.observed_at
    ]


RecordKey = tuple[str, str, str, str, str]


def record_of(row: MarketRow) -> RecordKey | None:
    """The listing and source whose records `best_offers` ranks `row` among (GPU, group,
    site, listing id, source name); None for a row without a listing id (always kept)."""
    if row.listing_id is None:
        return None
    name = row.source.removesuffix(SOLD_SUFFIX)
    group = GROUP_OF.get(row.condition, row.condition)
    return row.gpu_id, group, SAME_LISTINGS_AS.get(name, name), row.listing_id, name


def outranks(later: MarketRow, row: MarketRow) -> bool:
    """Whether `later`, a record of the same listing and source (`record_of`), keeps `row`
    out of `best_offers` in every window that holds `row`: it is later, so in any window
    `row` is in and the source's newest is not `row`, and it ranks above it (a sale, or
    `row` is no sale). Such a row can be dropped from what `best_offers` reads."""
    sold = later.source.endswith(SOLD_SUFFIX)
    return later.observed_at > row.observed_at and (sold or not row.source.endswith(SOLD_SUFFIX))


def market_group() -> ColumnElement[str]:
    """A price's market group ("used" for refurbished too: CONDITION_GROUPS), in SQL."""
    condition = col(PriceObservation.condition)
    return case(
        *((condition.in_(members), group) for group, members in CONDITION_GROUPS.items()),
        else_=condition,
    )


def newest_scraped(
    session: Session, ids: list[str], policy: PricePolicy
) -> dict[tuple[str, str], datetime]:
    """The newest usable scraped row per (GPU, condition group): where its window starts.

    One index lookup per GPU and condition (a correlated max), not a scan of the history.
    """
    conditions = union_all(
        *(select(literal(c).label("condition")) for c in MARKET_CONDITIONS)
    ).subquery()
    newest = (
        select(func.max(PriceObservation.observed_at))
        .where(
            col(PriceObservation.gpu_id) == Gpu.id,
            col(PriceObservation.kind) == SCRAPED,
            col(PriceObservation.condition) == conditions.c.condition,
            col(PriceObservation.quarantined).is_(False),
            _usable_list_price(policy),
            *observed_in_time(policy),
        )
        .scalar_subquery()
    )
    pairs = join(Gpu, conditions, true())  # every GPU with every condition
    query = (
        select(col(Gpu.id), conditions.c.condition, newest)
        .select_from(pairs)
        .where(col(Gpu.id).in_(ids))
    )
    found: dict[tuple[str, str], datetime] = {}
    for gpu_id, condition, at in session.execute(query):
        if at is None:
            continue
        for group, members in CONDITION_GROUPS.items():
            key = (gpu_id, group)
            if condition in members and (key not in found or at > found[key]):
                found[key] = at
    return found


def observed_in_time(policy: PricePolicy) -> list[ColumnElement[bool]]:
    """`market._is_market`'s as-of rule in SQL: nothing observed after the policy's moment."""
    if policy.observed_before is None:
        return []
    return [col(PriceObservation.observed_at) < policy.observed_before]


def _usable_list_price(policy: PricePolicy) -> ColumnElement[bool]:
    """`market._is_market`'s age limit on list prices, in SQL."""
    try:
        since = policy.now - timedelta(days=policy.list_price_max_age_days)
    except OverflowError:  # an age limit beyond the calendar: every list price is usable
        return col(PriceObservation.measure).is_not(None)
    return or_(
        col(PriceObservation.measure) != LIST_PRICE, col(PriceObservation.observed_at) >= since
    )
