"""The scraper's background jobs as plain functions (Celery tasks call these by name)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from services.scraper.errors import TransientFetchError
from services.scraper.fetch import utc_now
from services.scraper.page_cache import persistent_fetchers
from services.scraper.runner import FAILED, run_sources
from services.scraper.settings import ScraperSettings
from shared.kit.context import Context
from shared.kit.events import enqueue_after_commit, recompute_call
from shared.models import PriceObservation
from shared.pricing.market import SOLD_SUFFIX
from shared.sources.status import staleness_sweep

log = logging.getLogger(__name__)


def scrape_job(ctx: Context, source: str, scraper: ScraperSettings) -> dict[str, Any]:
    """Scrape one source end to end with its own fetcher and session.

    The failure is recorded in source_status first; a transient fetch failure is then
    raised again so that the task wrapper retries it with backoff.
    """
    [report] = run_sources(
        [source],
        ctx=ctx,
        scraper_settings=scraper,
        fetcher_factory=persistent_fetchers(ctx.settings, scraper),
    )
    log.info("scrape %s: %s", source, report.summary_json())
    if report.status == FAILED and isinstance(report.exception, TransientFetchError):
        raise report.exception
    return report.as_dict()


def staleness_sweep_job(ctx: Context) -> dict[str, Any]:
    with ctx.session() as session:
        changed = sweep(session, utc_now())
    return {"changed": changed}


def sweep(session: Session, now: datetime) -> list[str]:
    """Flag or unflag stale sources; rescore the GPUs they price after the commit."""
    changed = staleness_sweep(session, now)
    gpu_ids = _gpus_priced_by(session, changed)
    if gpu_ids:
        enqueue_after_commit(session, recompute_call(gpu_ids))
    return changed


def _gpus_priced_by(session: Session, sources: Sequence[str]) -> list[str]:
    if not sources:
        return []
    names = [*sources, *(name + SOLD_SUFFIX for name in sources)]
    query = (
        select(PriceObservation.gpu_id).where(col(PriceObservation.source).in_(names)).distinct()
    )
    return sorted(session.exec(query))
