"""Quote endpoints: the bodies are the domain's request schemas; compute, store, read.

Who makes a quote decides who may list it: see `Maker` and `listing`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fastapi import HTTPException, Request
from sqlmodel import Session

from services.api.forwarded import client_of
from services.api.quotes.schemas import QuoteList, QuoteOut
from services.api.ratelimit import RateLimiter
from shared.alerts.models import ApiKey
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.quotes import store as quotes
from shared.quotes.compare import create_compare
from shared.quotes.models import Quote
from shared.quotes.request import cluster_with_catalog_ids, compare_with_catalog_ids
from shared.quotes.schemas import ClusterRequest, CompareRequest

ANONYMOUS_QUOTES = "anonymous-quotes"  # the rate limiter's namespace for anonymous creation


@dataclass(frozen=True, slots=True)
class Maker:
    """Who is creating a quote: the owner to record, and the check to run before a new
    row is stored (the anonymous limit; nothing extra for a key, whose limit already ran)."""

    key_id: int | None
    admit: Callable[[], None] | None = None


def admit_anonymous(request: Request, settings: Settings) -> None:
    """Count one anonymous quote stored for this client; 429 past the anonymous limit."""
    base: RateLimiter = request.app.state.rate_limiter
    limiter = base.scoped(ANONYMOUS_QUOTES, settings.anonymous_quote_rate_per_minute)
    wait = limiter.hit(client_of(request))
    if wait is not None:
        # Raised as the per-key limit raises it (services/api/auth.py): same body, headers.
        raise HTTPException(
            429,
            detail={
                "message": f"rate limit of {limiter.per_minute} new quotes per minute without"
                " an API key (Authorization: Bearer <API key> lifts it)"
            },
            headers={"Retry-After": str(int(wait))},
        )


def maker(request: Request, key: ApiKey | None, settings: Settings) -> Maker:
    """The key's quote, or an anonymous one that must pass the per-client limit."""
    if key is not None:
        return Maker(key.id)
    return Maker(None, lambda: admit_anonymous(request, settings))


def out(quote: Quote) -> QuoteOut:
    return QuoteOut.model_validate(quotes.document(quote))


def create_cluster(
    session: Session,
    body: ClusterRequest,
    settings: Settings,
    model: ClassModel,
    made_by: Maker,
    *,
    reuse_identical: bool = False,
) -> QuoteOut:
    request = cluster_with_catalog_ids(body)
    quote = quotes.create_cluster_quote(
        session,
        request,
        settings,
        model,
        reuse_identical=reuse_identical,
        owner_key_id=made_by.key_id,
        before_store=made_by.admit,
    )
    return out(quote)


def create_comparison(
    session: Session, body: CompareRequest, settings: Settings, model: ClassModel, made_by: Maker
) -> QuoteOut:
    quote = create_compare(session, compare_with_catalog_ids(body), settings, model)
    # create_compare computes and stores in one go: an anonymous client over its limit
    # raises here and the request's transaction rolls the row back.
    if made_by.admit is not None:
        made_by.admit()
    quote.owner_key_id = made_by.key_id
    session.flush()
    return out(quote)


def find(session: Session, quote_id: str) -> Quote:
    quote = quotes.get_quote(session, quote_id)
    if quote is None:
        raise HTTPException(
            status_code=404,
            detail={"message": f"quote_id: unknown quote {quote_id!r}", "field": "quote_id"},
        )
    return quote


def listing(
    session: Session, standard: bool, limit: int, offset: int, key: ApiKey | None = None
) -> QuoteList:
    """The standard quotes, or the quotes `key` made (none without one)."""
    key_id = key.id if key is not None else None
    found = quotes.list_visible_quotes(session, standard, key_id, limit, offset)
    return QuoteList(items=[out(q) for q in found], limit=limit, offset=offset)
