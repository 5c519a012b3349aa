"""GET /gpus/{id}/prices (the history behind a market price) and POST /prices."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request

from services.api.as_of import AS_OF_INPUT, AS_OF_RULE
from services.api.auth import KEY_OPTIONAL, OptionalKey, WriteKey
from services.api.deps import MAX_OFFSET, ModelDep, SessionDep, SettingsDep, catalog_gpu
from services.api.errors import InvalidParameter
from services.api.openapi_inputs import inputs, rule
from services.api.prices import service
from services.api.prices.schemas import ConditionFilter, PriceCreated, PriceHistory, PriceIn
from shared.alerts.keys import quote_viewer
from shared.catalog.aliases import catalog_id
from shared.kit.money import CENT
from shared.pricing.intake import PriceInput, record_price
from shared.scoring.check_as_of import check_quote as check_quote_as_of
from shared.scoring.compute import SourceHealth
from shared.scoring.schemas import PriceCheckOut, PriceCheckRequest

router = APIRouter(tags=["prices"])

HISTORY_INPUTS = inputs(
    rules=[
        rule("a source with prices of this GPU (the 422 lists them)", "source"),
        rule("a moment UTC can represent", "since"),
    ]
)
# What urlsplit reads as http(s) with a host (PriceIn._web_url): ASCII host characters
# only, as it refuses some others (NFKC forms of '/', '?', '#', '@').
WEB_URL = r"^\s*[hH][tT][tT][pP][sS]?://[A-Za-z0-9._~%!$&'()*+,;=:-]+([/?#][^\u0000]*)?$"
# Not blank: the intake strips it (shared/pricing/intake.py).
NAMED = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
# One price per quote, fitting its condition (shared/scoring/price_check.py:quoted).
CHECK_INPUTS = inputs(
    rules=[
        rule(
            "usd (per GPU) with condition new, used or refurbished; usd_per_hour (per "
            "GPU-hour) and optionally pricing with condition cloud",
            "usd",
            "usd_per_hour",
            "pricing",
        ),
        # as_of: checked against the stored prices (shared/scoring/as_of.py).
        AS_OF_RULE,
    ],
    as_of=AS_OF_INPUT,
)
QUOTE_INPUTS = inputs(
    rules=[rule("at least 0.01 once rounded to the cent", "usd")],
    url={"pattern": WEB_URL},
    source={"pattern": NAMED},
)


def _utc(since: datetime) -> datetime:
    """`since` in UTC (no offset means UTC); a moment UTC cannot hold is a 422."""
    try:
        return since.replace(tzinfo=UTC) if since.tzinfo is None else since.astimezone(UTC)
    except OverflowError:
        raise InvalidParameter("since", "outside the dates UTC can represent") from None


@router.get(
    "/gpus/{gpu_id}/prices",
    response_model=PriceHistory,
    openapi_extra={**KEY_OPTIONAL, **HISTORY_INPUTS},
)
def get_prices(
    gpu_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    key: OptionalKey,
    condition: Annotated[
        ConditionFilter | None, Query(description="'used' includes refurbished")
    ] = None,
    source: Annotated[
        str | None,
        Query(max_length=128, description="e.g. 'ebay' (with its sold records) or 'ebay:sold'"),
    ] = None,
    since: Annotated[datetime | None, Query(description="ISO 8601; UTC when no offset")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> PriceHistory:
    resolved = catalog_gpu(gpu_id).id
    if since is not None:
        since = _utc(since)
    return service.history(
        session,
        resolved,
        condition=condition,
        source=source,
        since=since,
        limit=limit,
        offset=offset,
        policy=SourceHealth.read(session).policy(settings, datetime.now(UTC)),
        cache=request.app.state.price_cache,
        viewer=quote_viewer(key),
        # The app's one copy of the market rows, which the GPU page updates too.
        rows=request.app.state.series_cache.market_rows,
    )


@router.post(
    "/prices/check",
    response_model=PriceCheckOut,
    openapi_extra={**KEY_OPTIONAL, **CHECK_INPUTS},
)
def check_quote(
    body: PriceCheckRequest, session: SessionDep, settings: SettingsDep, model: ModelDep
) -> PriceCheckOut:
    """Check a quote against today's market before signing: its percentile in today's
    price band of that card and condition (a cloud quote: its rental), a verdict with its
    reason (suspicious: far below every band), the evidence, how much market stands
    behind the price, and what the same money buys used, new or rented. Read only:
    nothing is stored, no alert fires. With as_of: as of that day's prices."""
    return check_quote_as_of(session, body, settings, model, datetime.now(UTC))


@router.post("/prices", response_model=PriceCreated, status_code=201, openapi_extra=QUOTE_INPUTS)
def post_price(
    body: PriceIn, key: WriteKey, session: SessionDep, settings: SettingsDep
) -> PriceCreated:
    """Record a quote (a price from outside the scraper); alerts follow the commit. A quote
    is shown beside the market price and never replaces it in rankings. It is this key's:
    only this key (and keys that see every quote) sees it and has its alerts fire on it."""
    # An id or a known alias, exactly: free text must never become a price of a real GPU.
    gpu_id = catalog_id("gpu_id", body.gpu_id)
    price = PriceInput(
        gpu_id, body.usd, body.condition, body.source, body.title, body.url, body.quantity
    )
    # A PriceRejected answers 422.
    recorded = record_price(session, price, settings, owner_key_id=key.id)
    observation, reference = recorded.observation, recorded.reference
    assert observation.id is not None
    return PriceCreated(
        id=observation.id,
        gpu_id=observation.gpu_id,
        usd=observation.price_usd,
        condition=observation.condition,
        kind=observation.kind,
        source=observation.source,
        observed_at=observation.observed_at,
        quarantined=observation.quarantined,
        quarantine_reason=recorded.quarantine_reason,
        reference_usd=reference.usd.quantize(CENT) if reference else None,
        reference=reference.basis if reference else None,
    )
