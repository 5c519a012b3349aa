"""Quote endpoints: map bodies to the domain requests, compute, store, read."""

from __future__ import annotations

from decimal import Decimal

from fastapi import HTTPException
from sqlmodel import Session

from services.api.errors import InvalidParameter
from services.api.quotes.schemas import ClusterIn, CompareIn, QuoteList, QuoteOut
from shared.catalog.aliases import resolve_alias
from shared.catalog.specs import load_catalog
from shared.quotes import service as quotes
from shared.quotes.build import ClusterRequest
from shared.quotes.compare import Candidate, CompareRequest, create_compare
from shared.quotes.models import Quote
from shared.settings import Settings


def _gpu(field: str, text: str) -> str:
    gpu_id = resolve_alias(text)
    if gpu_id is None:
        raise InvalidParameter(field, f"unknown GPU {text!r}", load_catalog().ids)
    return gpu_id


def cluster_request(body: ClusterIn) -> ClusterRequest:
    data = body.model_dump(exclude={"additional_gpus"})
    data["gpu"] = _gpu("gpu", body.gpu)
    extra = tuple((_gpu("additional_gpus", g.gpu), g.count) for g in body.additional_gpus)
    return ClusterRequest(**data, additional_gpus=extra)


def compare_request(body: CompareIn) -> CompareRequest:
    candidates = []
    for item in body.candidates:
        data = item.model_dump()
        data["gpu"] = _gpu("candidates.gpu", item.gpu)
        candidates.append(Candidate(**data))
    return CompareRequest(
        candidates=tuple(candidates),
        task=body.task,
        precision=body.precision,
        years=body.years,
        utilization=body.utilization,
        electricity_usd_per_kwh=Decimal(body.electricity_usd_per_kwh),
    )


def out(quote: Quote) -> QuoteOut:
    return QuoteOut.model_validate(quotes.document(quote))


def create_cluster(
    session: Session, body: ClusterIn, settings: Settings, *, reuse_identical: bool = False
) -> QuoteOut:
    request = cluster_request(body)
    return out(
        quotes.create_cluster_quote(session, request, settings, reuse_identical=reuse_identical)
    )


def create_comparison(session: Session, body: CompareIn, settings: Settings) -> QuoteOut:
    return out(create_compare(session, compare_request(body), settings))


def find(session: Session, quote_id: str) -> Quote:
    quote = quotes.get_quote(session, quote_id)
    if quote is None:
        raise HTTPException(
            status_code=404,
            detail={"message": f"quote_id: unknown quote {quote_id!r}", "field": "quote_id"},
        )
    return quote


def listing(session: Session, standard: bool, limit: int, offset: int) -> QuoteList:
    items = [out(q) for q in quotes.list_quotes(session, standard, limit, offset)]
    return QuoteList(items=items, limit=limit, offset=offset)
