"""Price history of one GPU, and its market price as the scorer sees it.

Posted quotes show only to the caller that may see them (`viewer`, its API key:
shared/pricing/quotes.py): its best quote, its quotes, and its quote rows in the history;
anonymous callers see market prices only. Auction bids are no prices: never listed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, or_
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from services.api.errors import InvalidParameter
from services.api.prices.cache import PriceCache, price_version
from services.api.prices.market_rows import MarketRows
from services.api.prices.schemas import (
    MarketOut,
    PriceHistory,
    PricePoint,
    QuoteOut,
    SourceMarketOut,
)
from shared.models import PriceObservation
from shared.pricing.market import (
    CONDITION_GROUPS,
    SOLD_SUFFIX,
    MarketPrice,
    PricePolicy,
    age_days,
    market_price,
)
from shared.pricing.measures import BID, describe
from shared.pricing.quotes import (
    QuoteViewer,
    best_for,
    best_quotes,
    hidden_quotes,
    recent_quotes,
    visible,
)
from shared.pricing.window import MarketRow, market_observations
from shared.sources.names import SCRAPED_SOURCES

QUOTES_SHOWN = 20


def history(
    session: Session,
    gpu_id: str,
    *,
    condition: str | None,
    source: str | None,
    since: datetime | None,
    limit: int,
    offset: int,
    policy: PricePolicy,
    cache: PriceCache | None = None,
    viewer: QuoteViewer | None = None,
    rows: MarketRows | None = None,
) -> PriceHistory:
    if source is not None:
        _check_source(session, gpu_id, source, viewer)
    where = _filters(gpu_id, condition, source, since)
    cache = cache or PriceCache(max_entries=0)
    version = price_version(session)

    def count(*also: ColumnElement[bool]) -> int:
        query = select(func.count()).select_from(PriceObservation).where(*where, *also)
        return session.exec(query).one()

    def stored(after: int | None, up_to: int | None) -> int:
        ids = col(PriceObservation.id)
        return count(
            *([] if after is None else [ids > after]), *([] if up_to is None else [ids <= up_to])
        )

    # Every caller's count is shared (a year of a popular card: a scan of 240k rows at a
    # million prices) and kept up to date by counting the prices stored since; the quotes
    # it may not see are few, counted per request.
    total = cache.total(("total", gpu_id, condition, source, since), version, stored)
    total -= count(hidden_quotes(viewer))
    query = (
        select(PriceObservation)
        .where(*where, visible(viewer))
        .order_by(col(PriceObservation.observed_at).desc(), col(PriceObservation.id).desc())
        .offset(offset)
        .limit(limit)
    )
    items = [_point(o) for o in session.exec(query)]
    best, quotes = quotes_of(session, gpu_id, policy.now, policy.stale_days, viewer)
    return PriceHistory(
        gpu_id=gpu_id,
        market=cache.get(
            ("market", gpu_id, policy.stale_sources, _runs(policy)),
            version,
            lambda: market(session, gpu_id, policy, rows),
        ),
        best_quote=best,
        quotes=quotes,
        total=total,
        limit=limit,
        offset=offset,
        items=items,
    )


def _runs(policy: PricePolicy) -> tuple[tuple[str, datetime], ...] | None:
    return None if policy.last_runs is None else tuple(sorted(policy.last_runs.items()))


def _filters(
    gpu_id: str, condition: str | None, source: str | None, since: datetime | None
) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = [
        col(PriceObservation.gpu_id) == gpu_id,
        # A live auction's bid is where the auction stands, not a price of the card: never
        # the market's (measures.py), so never in its history either. Quotes, the other
        # measure the market leaves out, are listed to the key that posted them (`visible`).
        col(PriceObservation.measure) != BID,
    ]
    if condition is not None:
        conditions = CONDITION_GROUPS.get(condition, (condition,))
        where.append(col(PriceObservation.condition).in_(conditions))
    if source is not None:
        # A scraper source name covers its sold records too ("ebay" -> "ebay:sold").
        where.append(
            or_(
                col(PriceObservation.source) == source,
                col(PriceObservation.source) == source + SOLD_SUFFIX,
            )
        )
    if since is not None:
        where.append(col(PriceObservation.observed_at) >= since)
    return where


def _check_source(session: Session, gpu_id: str, source: str, viewer: QuoteViewer | None) -> None:
    """A scraper source or a source with stored prices of this GPU that the caller sees (a
    quote's source names who quoted it); a scraper source with none yet (a fresh install)
    is an empty answer, not an error."""
    if source in SCRAPED_SOURCES:
        return
    query = (
        select(PriceObservation.source)
        .where(PriceObservation.gpu_id == gpu_id, visible(viewer))
        .distinct()
    )
    known = sorted(set(session.exec(query)))
    if source in known or source + SOLD_SUFFIX in known:
        return
    valid = sorted({*SCRAPED_SOURCES, *known})
    raise InvalidParameter(
        "source", f"no prices of {gpu_id} from {source!r}; valid: {', '.join(valid)}", valid
    )


def _point(o: PriceObservation) -> PricePoint:
    return PricePoint(
        observed_at=o.observed_at,
        usd=o.price_usd,
        price=o.price,
        currency=o.currency,
        condition=o.condition,
        kind=o.kind,
        source=o.source,
        url=o.url,
        listing_id=o.listing_id,
        title=o.title,
        quantity=o.quantity,
        quarantined=o.quarantined,
        measure=o.measure,
    )


def market(
    session: Session, gpu_id: str, policy: PricePolicy, rows: MarketRows | None = None
) -> dict[str, MarketOut | None]:
    """Market price per condition, leaving out stale sources when fresh ones have prices
    (from `rows` when given: the same rows, kept up to date)."""
    observations = market_rows(session, gpu_id, policy, rows)
    return {
        condition: market_out(market_price(observations, condition, policy))
        for condition in CONDITION_GROUPS
    }


def market_rows(
    session: Session, gpu_id: str, policy: PricePolicy, rows: MarketRows | None
) -> list[MarketRow]:
    """The rows a market price of `gpu_id` reads, from `rows` when given."""
    if rows is None:
        return market_observations(session, [gpu_id], policy)[gpu_id]
    return rows.get(session, gpu_id, policy)


def quote_out(quote: PriceObservation, now: datetime) -> QuoteOut:
    assert quote.id is not None
    return QuoteOut(
        id=quote.id,
        usd=quote.price_usd,
        condition=quote.condition,
        source=quote.source,
        observed_at=quote.observed_at,
        age_days=age_days(quote.observed_at, now),
        title=quote.title,
        url=quote.url,
        quarantined=quote.quarantined,
    )


def quotes_of(
    session: Session,
    gpu_id: str,
    now: datetime,
    max_age_days: int,
    viewer: QuoteViewer | None,
    before: datetime | None = None,
) -> tuple[dict[str, QuoteOut | None], list[QuoteOut]]:
    """(best quote per condition, recent quotes newest first) that `viewer` sees (as of a
    past date: those posted before `before`)."""
    recent = recent_quotes(session, [gpu_id], now, max_age_days, viewer)
    if before is not None:
        recent = [q for q in recent if q.observed_at < before]
    best = best_quotes(recent)
    by_condition = {
        condition: quote_out(q, now) if (q := best_for(best, gpu_id, condition)) else None
        for condition in CONDITION_GROUPS
    }
    return by_condition, [quote_out(q, now) for q in recent[:QUOTES_SHOWN]]


def market_out(price: MarketPrice | None) -> MarketOut | None:
    """The API shape of a market price, with its age when it was computed."""
    if price is None:
        return None
    return MarketOut(
        usd=price.usd,
        condition=price.condition,
        kind=price.kind,
        basis=price.basis,
        method=price.method,
        n=price.n,
        low_usd=price.low_usd,
        high_usd=price.high_usd,
        iqr_usd=price.iqr_usd,
        sold_n=price.sold_n,
        probable_sales=price.probable_sales,
        outliers_removed=price.outliers_removed,
        source=price.source,
        observed_at=price.observed_at,
        oldest_at=price.oldest_at,
        age_days=price.age_days,
        stale=price.stale,
        measure=price.measure,
        measure_description=describe(price.measure),
        stale_reason=price.stale_reason,
        by_source=[
            SourceMarketOut(
                source=s.source,
                usd=s.usd,
                n=s.n,
                low_usd=s.low_usd,
                high_usd=s.high_usd,
                observed_at=s.observed_at,
                stale=s.stale,
            )
            for s in price.by_source
        ],
    )
