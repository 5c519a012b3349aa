"""Cluster quotes: create, compare, read, list the standard builds, export as CSV."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from services.api.deps import SessionDep, SettingsDep, VaryOnAccept
from services.api.quotes import service
from services.api.quotes.schemas import ClusterIn, CompareIn, ExportFormat, QuoteList, QuoteOut
from shared.quotes.service import bom_csv

router = APIRouter(tags=["quotes"])


@router.post("/quotes/cluster", response_model=QuoteOut, status_code=201)
def post_cluster_quote(body: ClusterIn, session: SessionDep, settings: SettingsDep) -> QuoteOut:
    """Bill of materials, power, cooling, network, throughput and warnings; stored."""
    return service.create_cluster(session, body, settings)


@router.post("/quotes/compare", response_model=QuoteOut, status_code=201)
def post_compare(body: CompareIn, session: SessionDep, settings: SettingsDep) -> QuoteOut:
    """Candidate builds (bought or rented) by total cost, throughput and cost per work."""
    return service.create_comparison(session, body, settings)


@router.get("/quotes", response_model=QuoteList)
def list_quotes(
    session: SessionDep,
    standard: Annotated[bool, Query(description="true: the standard builds")] = False,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> QuoteList:
    return service.listing(session, standard, limit, offset)


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
