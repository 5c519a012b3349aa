"""Worker job: recompute the stored standard quotes after their GPUs' prices changed.

The lead wires the Celery task and its chaining after price events; this is the plain
function it calls. Idempotent: a quote whose content did not change is left untouched,
and a standard quote keeps its id across recomputes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from shared.db import session_scope
from shared.perfmodel.params import MODEL_VERSION
from shared.quotes.build import QuoteInputError
from shared.quotes.models import Quote
from shared.quotes.service import compute_cluster, dumps, prices_as_of, store
from shared.quotes.standard import builds_using, gpu_ids_of
from shared.settings import Settings, get_settings


def recompute_standard_quotes(
    session: Session, gpu_ids: list[str] | None, settings: Settings
) -> dict[str, Any]:
    """Recompute (or create) the standard quotes using `gpu_ids`; the caller commits."""
    builds = builds_using(gpu_ids)
    stored = {
        q.standard_key: q
        for q in session.exec(select(Quote).where(col(Quote.standard_key).in_(list(builds))))
    }
    updated, unchanged, skipped = [], [], {}
    for key, req in sorted(builds.items()):
        try:
            quote = compute_cluster(session, req, settings)
        except QuoteInputError as exc:
            skipped[key] = str(exc)  # e.g. no market price yet: retried on the next change
            continue
        held = stored.get(key)
        if held is None:
            store(
                session,
                "cluster",
                req,
                quote,
                sorted(gpu_ids_of(req)),
                quote.total_usd,
                prices_as_of(quote.gpus),
                key,
            )
            updated.append(key)
        elif _refresh(held, dumps(quote), quote.total_usd, prices_as_of(quote.gpus)):
            updated.append(key)
        else:
            unchanged.append(key)
    session.flush()
    return {"updated": updated, "unchanged": unchanged, "skipped": skipped}


def _refresh(held: Quote, result_json: str, total: Any, as_of: datetime | None) -> bool:
    if held.result_json == result_json and held.model_version == MODEL_VERSION:
        return False
    held.result_json = result_json
    held.total_usd = total
    held.prices_as_of = as_of
    held.model_version = MODEL_VERSION
    held.updated_at = datetime.now(UTC)
    return True


def recompute_standard_quotes_job(gpu_ids: list[str] | None) -> dict[str, Any]:
    """Entry point for the worker: one transaction over the standard quotes of `gpu_ids`."""
    with session_scope() as session:
        return recompute_standard_quotes(session, gpu_ids, get_settings())
