"""Cluster quotes: create, compare, read, list the standard builds, export as CSV.

A quote belongs to the API key that made it, or to no one (anonymous). Lists show the
standard quotes and the caller's own; an anonymous quote is reachable only by its id.
Anonymous creation is limited per client IP (`anonymous_quote_rate_per_minute`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from services.api.auth import KEY_OPTIONAL, OptionalKey
from services.api.deps import MAX_OFFSET, ModelDep, SessionDep, SettingsDep, VaryOnAccept
from services.api.openapi_inputs import inputs, rule
from services.api.quotes import service
from services.api.quotes.schemas import ClusterIn, CompareIn, ExportFormat, QuoteList, QuoteOut
from shared.quotes.store import bom_csv

router = APIRouter(tags=["quotes"])

# Both quotes are built by the one build model, priced from today's market and stored.
PRECISION_RULE = "every GPU can run the precision for the task"
POWER_RULE = "a power limit of at least 30 % of each GPU's TDP"
TOTAL_RULE = "the quote's total fits what a quote holds (under 10 billion USD)"
CLUSTER_INPUTS = inputs(
    rules=[
        rule("give count or a target, not both", "count"),
        rule(
            "a target is met by at most 512 GPUs",
            "target_relative_throughput",
            "memory_gb",
        ),
        rule(
            "without gpu_price_usd, each GPU has a market price at condition",
            "gpu_price_usd",
            "additional_gpus",
        ),
        rule(PRECISION_RULE, "precision"),
        rule(POWER_RULE, "power_limit_w"),
        rule(TOTAL_RULE, "total_usd"),
    ]
)
COMPARE_INPUTS = inputs(
    rules=[
        rule("cloud: only for a rented candidate", "candidates.condition"),
        rule(
            "a bought candidate without gpu_price_usd has a market price at its condition",
            "candidates.gpu_price_usd",
        ),
        rule(
            "a rented candidate without cloud_usd_per_hour has a current offer at its pricing",
            "candidates.cloud_usd_per_hour",
        ),
        rule(PRECISION_RULE, "precision", "candidates.precision"),
        rule(TOTAL_RULE, "total_usd"),
    ]
)


@router.post(
    "/quotes/cluster",
    response_model=QuoteOut,
    status_code=201,
    openapi_extra={**KEY_OPTIONAL, **CLUSTER_INPUTS},
)
def post_cluster_quote(
    body: ClusterIn,
    request: Request,
    key: OptionalKey,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
) -> QuoteOut:
    """Bill of materials, power, cooling, network, throughput and warnings; stored, owned
    by the API key if one is given (else anonymous: rate-limited per client, unlisted)."""
    made_by = service.maker(request, key, settings)
    return service.create_cluster(session, body, settings, model, made_by)


@router.post(
    "/quotes/compare",
    response_model=QuoteOut,
    status_code=201,
    openapi_extra={**KEY_OPTIONAL, **COMPARE_INPUTS},
)
def post_compare(
    body: CompareIn,
    request: Request,
    key: OptionalKey,
    session: SessionDep,
    settings: SettingsDep,
    model: ModelDep,
) -> QuoteOut:
    """Candidate builds (bought or rented) by total cost, throughput and cost per work;
    stored and owned like POST /quotes/cluster."""
    made_by = service.maker(request, key, settings)
    return service.create_comparison(session, body, settings, model, made_by)


@router.get("/quotes", response_model=QuoteList, openapi_extra=KEY_OPTIONAL)
def list_quotes(
    session: SessionDep,
    key: OptionalKey,
    standard: Annotated[
        bool,
        Query(description="true: the standard builds; false: the quotes your API key made"),
    ] = False,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> QuoteList:
    """The standard builds, or your own quotes (none without an API key): never anonymous
    quotes nor other keys' quotes."""
    return service.listing(session, standard, limit, offset, key)


@router.get("/quotes/{quote_id}", response_model=QuoteOut, dependencies=[VaryOnAccept])
def get_quote(
    session: SessionDep,
    quote_id: Annotated[str, Path(max_length=64)],
    format: Annotated[ExportFormat, Query(description="csv: the bill of materials")] = "json",
) -> QuoteOut | Response:
    quote = service.find(session, quote_id)
    if format == "csv":
        return Response(
            content=bom_csv(quote),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="quote-{quote.id}.csv"'},
        )
    return service.out(quote)
