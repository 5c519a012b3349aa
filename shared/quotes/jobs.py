"""Worker job: recompute the stored standard quotes after their GPUs' prices changed.

Idempotent: a quote whose content did not change is left untouched,
and a standard quote keeps its id across recomputes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from shared.kit.context import Context
from shared.kit.events import QUEUES, TaskCall
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.quotes.models import Quote
from shared.quotes.request import QuoteInputError
from shared.quotes.standard import builds_using, gpu_ids_of
from shared.quotes.store import compute_cluster, dumps, prices_as_of, store

RECOMPUTE_QUOTES = "compute.recompute_standard_quotes"


def quotes_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(RECOMPUTE_QUOTES, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["compute"])


def recompute_standard_quotes(
    session: Session, gpu_ids: list[str] | None, settings: Settings, model: ClassModel
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
            quote = compute_cluster(session, req, settings, model)
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
                model_version=model.version,
            )
            updated.append(key)
        elif _refresh(held, dumps(quote), quote.total_usd, prices_as_of(quote.gpus), model.version):
            updated.append(key)
        else:
            unchanged.append(key)
    session.flush()
    return {"updated": updated, "unchanged": unchanged, "skipped": skipped}


def _refresh(
    held: Quote, result_json: str, total: Any, as_of: datetime | None, version: str
) -> bool:
    if held.result_json == result_json and held.model_version == version:
        return False
    held.result_json = result_json
    held.total_usd = total
    held.prices_as_of = as_of
    held.model_version = version
    held.updated_at = datetime.now(UTC)
    return True


def recompute_standard_quotes_job(ctx: Context, gpu_ids: list[str] | None) -> dict[str, Any]:
    """One transaction over the standard quotes of `gpu_ids`."""
    with ctx.session() as session:
        return recompute_standard_quotes(session, gpu_ids, ctx.settings, ctx.model)
