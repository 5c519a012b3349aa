"""Quotes against the database: resolve prices, compute, store, read, export.

Functions only flush; the caller (request dependency, job, CLI) commits.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from pydantic import BaseModel
from sqlalchemy import ColumnElement
from sqlmodel import Session, col, select

from shared.kit.money import money
from shared.kit.settings import Settings
from shared.kit.spreadsheet import csv_text
from shared.perfmodel.classmodel import ClassModel
from shared.pricing.today import TodayPrice
from shared.quotes.count import resolve_count
from shared.quotes.lines import GpuPick
from shared.quotes.models import Quote
from shared.quotes.quote import ClusterQuote, quote_cluster
from shared.quotes.request import QuoteInputError, spec_of, validate
from shared.quotes.schemas import ClusterRequest
from shared.tco.purchase import price_basis, price_source, price_today, priced_or_error

BOM_COLUMNS = ("category", "item", "quantity", "unit_usd", "total_usd", "basis", "source", "as_of")


def _json_default(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, BaseModel):  # a request schema, also inside a result dataclass
        return value.model_dump(mode="json")
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def dumps(value: object) -> str:
    data = asdict(value) if is_dataclass(value) and not isinstance(value, type) else value
    return json.dumps(data, default=_json_default, sort_keys=True)


def pick_for(
    session: Session,
    gpu_id: str,
    count: int,
    condition: str,
    settings: Settings,
    override: Decimal | None = None,
    field_name: str = "gpu",
) -> GpuPick:
    if override is not None:
        return GpuPick(gpu_id, count, money(override), condition, "input", "request", None)
    found = priced_or_error(price_today(session, gpu_id, condition, settings), gpu_id, condition)
    if not isinstance(found, TodayPrice):
        raise QuoteInputError(
            "gpu_price_usd" if field_name == "gpu" else field_name,
            f"{found}: give gpu_price_usd",
        )
    return GpuPick(
        gpu_id,
        count,
        found.usd,
        found.condition,
        price_basis(found),
        price_source(found),
        found.last_observed_at.date(),
    )


def compute_cluster(
    session: Session, req: ClusterRequest, settings: Settings, model: ClassModel
) -> ClusterQuote:
    validate(req)
    count = resolve_count(req, spec_of("gpu", req.gpu), model)
    picks = [pick_for(session, req.gpu, count, req.condition, settings, req.gpu_price_usd)]
    for extra in req.additional_gpus:
        picks.append(
            pick_for(
                session, extra.gpu, extra.count, req.condition, settings, None, "additional_gpus"
            )
        )
    return quote_cluster(req, picks, settings, model)


# Quote.total_usd is NUMERIC(12, 2).
MAX_TOTAL_USD = Decimal("9999999999.99")


def prices_as_of(picks: list[GpuPick]) -> datetime | None:
    dates = [p.as_of for p in picks if p.as_of is not None]
    return datetime.combine(max(dates), time(), UTC) if dates else None


def store(
    session: Session,
    kind: str,
    request: object,
    result: object,
    gpu_ids: list[str],
    total: Decimal,
    prices_as_of: datetime | None,
    standard_key: str | None = None,
    owner_key_id: int | None = None,
    *,
    model_version: str,
) -> Quote:
    if abs(total) > MAX_TOTAL_USD:  # refused here, never a database error (a 500)
        raise QuoteInputError(
            "total_usd", f"{total} is beyond what a quote holds ({MAX_TOTAL_USD})"
        )
    now = datetime.now(UTC)
    quote = Quote(
        id=uuid.uuid4().hex,
        kind=kind,
        standard_key=standard_key,
        owner_key_id=owner_key_id,
        gpu_ids=",".join(sorted(set(gpu_ids))),
        request_json=dumps(request),
        result_json=dumps(result),
        total_usd=total,
        model_version=model_version,
        prices_as_of=prices_as_of,
        created_at=now,
        updated_at=now,
    )
    session.add(quote)
    session.flush()
    return quote


def create_cluster_quote(
    session: Session,
    req: ClusterRequest,
    settings: Settings,
    model: ClassModel,
    standard_key: str | None = None,
    *,
    reuse_identical: bool = False,
    owner_key_id: int | None = None,
    before_store: Callable[[], None] | None = None,
) -> Quote:
    """Compute and store a quote made by `owner_key_id` (None: anonymous).

    `reuse_identical` returns a stored quote of the same owner with the same request and
    the same result instead (a page reloaded or crawled adds no rows). `before_store` runs
    only when a new row is about to be stored, so a limit on it counts rows, not calls.
    """
    quote = compute_cluster(session, req, settings, model)
    if reuse_identical:
        same = session.exec(
            select(Quote).where(
                Quote.kind == "cluster",
                col(Quote.standard_key).is_(None),
                # Never another owner's quote: a key's quotes are not anyone else's to find.
                _owned_by(owner_key_id),
                Quote.request_json == dumps(req),
                Quote.result_json == dumps(quote),
            )
        ).first()
        if same is not None:
            return same
    if before_store is not None:
        before_store()
    ids = [p.gpu_id for p in quote.gpus]
    return store(
        session,
        "cluster",
        req,
        quote,
        ids,
        quote.total_usd,
        prices_as_of(quote.gpus),
        standard_key,
        owner_key_id,
        model_version=model.version,
    )


def _owned_by(owner_key_id: int | None) -> ColumnElement[bool]:
    owner = col(Quote.owner_key_id)
    return owner.is_(None) if owner_key_id is None else owner == owner_key_id


def get_quote(session: Session, quote_id: str) -> Quote | None:
    return session.get(Quote, quote_id)


def list_quotes(session: Session, standard: bool, limit: int, offset: int) -> list[Quote]:
    """Every quote, whoever made it: the operator's view (the CLI), never the API's."""
    query = select(Quote)
    if standard:
        query = query.where(col(Quote.standard_key).is_not(None)).order_by(col(Quote.standard_key))
    else:
        query = query.where(col(Quote.standard_key).is_(None)).order_by(
            col(Quote.created_at).desc()
        )
    return list(session.exec(query.offset(offset).limit(limit)))


def list_visible_quotes(
    session: Session, standard: bool, key_id: int | None, limit: int, offset: int
) -> list[Quote]:
    """What a caller may list: the standard quotes, or the quotes its API key made (none
    without a key). Anonymous quotes and other keys' quotes are never listed."""
    if standard:
        return list_quotes(session, True, limit, offset)
    if key_id is None:
        return []
    query = (
        select(Quote)
        .where(col(Quote.standard_key).is_(None), col(Quote.owner_key_id) == key_id)
        .order_by(col(Quote.created_at).desc(), col(Quote.id))
    )
    return list(session.exec(query.offset(offset).limit(limit)))


def owner_label(quote: Quote) -> str:
    """`standard`, `key:<id>` or `anonymous`: who a quote belongs to, for operators."""
    if quote.standard_key is not None:
        return "standard"
    if quote.owner_key_id is not None:
        return f"key:{quote.owner_key_id}"
    return "anonymous"


def document(quote: Quote) -> dict[str, Any]:
    """The stored quote as the API returns it."""
    return {
        "id": quote.id,
        "kind": quote.kind,
        "standard_key": quote.standard_key,
        "gpu_ids": quote.gpu_ids.split(","),
        "total_usd": quote.total_usd,
        "model_version": quote.model_version,
        "prices_as_of": quote.prices_as_of,
        "created_at": quote.created_at,
        "updated_at": quote.updated_at,
        "request": json.loads(quote.request_json),
        "result": json.loads(quote.result_json),
    }


def bom_rows(quote: Quote) -> list[dict[str, Any]]:
    result = json.loads(quote.result_json)
    if quote.kind == "cluster":
        return list(result["line_items"])
    rows: list[dict[str, Any]] = []
    for candidate in result["candidates"]:
        for line in candidate.get("line_items", []):
            rows.append({**line, "item": f"{candidate['label']}: {line['item']}"})
    return rows


def quote_warnings(quote: Quote) -> list[str]:
    """The quote's warnings (a comparison's, each with its candidate's label)."""
    result = json.loads(quote.result_json)
    if quote.kind == "cluster":
        return list(result.get("warnings", []))
    return [
        f"{candidate['label']}: {warning}"
        for candidate in result["candidates"]
        for warning in candidate.get("warnings", [])
    ]


def bom_csv(quote: Quote) -> str:
    """The bill of materials, then the warnings, what the prices and speeds are as of,
    and the total last (a spreadsheet keeps what the JSON says, not only the lines).
    Text cells that a spreadsheet would run as formulas are quoted (kit.spreadsheet)."""
    rows: list[dict[str, Any]] = list(bom_rows(quote))
    rows += [{"category": "warning", "item": warning} for warning in quote_warnings(quote)]
    as_of = quote.prices_as_of.date().isoformat() if quote.prices_as_of else ""
    rows.append({"category": "prices", "item": "newest price behind the quote", "as_of": as_of})
    rows.append(
        {
            "category": "model",
            "item": f"performance model {quote.model_version}",
            "basis": "calibrated",
            "as_of": quote.updated_at.date().isoformat(),
        }
    )
    rows.append({"category": "total", "item": "total", "total_usd": quote.total_usd})
    return csv_text(BOM_COLUMNS, rows)
