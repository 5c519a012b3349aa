"""GET /health: can the service answer, and from how fresh data."""

from __future__ import annotations

import threading
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import func
from sqlmodel import Session, col, select

from services.api.deps import SessionDep, SettingsDep
from shared.kit import jobqueue
from shared.kit.broker import broker_reachable
from shared.kit.settings import Settings
from shared.models import CloudOffer, PriceObservation, ScoreState
from shared.pricing.market import CONDITION_GROUPS
from shared.pricing.measures import LIST_PRICE, QUOTE_KINDS
from shared.scoring.ages import ranking_ages

router = APIRouter(tags=["health"])


@router.get("/health")
def health(request: Request, session: SessionDep, settings: SettingsDep) -> JSONResponse:
    """200 while the API can answer (degraded without a broker); 503 without a database."""
    try:
        # The newest price behind the current ranking, stamped by every recompute: a
        # primary-key read, so load balancers can poll this cheaply.
        state = session.get(ScoreState, 1)
        newest = state.prices_as_of if state else None
    except Exception as exc:  # any driver error means the database is unreachable
        body = {"status": "down", "database": f"error: {type(exc).__name__}"}
        return JSONResponse(status_code=503, content=body)
    content: dict[str, Any] = {"status": "ok", "database": "ok"}
    if settings.broker_url:
        content["broker"] = "ok" if broker_reachable(settings.broker_url) else "unreachable"
        if content["broker"] != "ok":
            content["status"] = "degraded"
    else:
        content["broker"] = "in-process"
        # The embedded default's job queue: given-up jobs stay here until looked at.
        content["jobs"] = jobqueue.counts(session)
    content["newest_price_at"] = newest.isoformat() if newest else None
    content["newest_price_age_hours"] = (
        round((datetime.now(UTC) - newest).total_seconds() / 3600, 1) if newest else None
    )
    cache: FreshnessCache = request.app.state.freshness_cache
    newest_by_group = cache.newest(session, state.revision if state else None)
    content["prices"] = _price_freshness(newest_by_group, settings)
    # What the ranking stands on: the age of the observations behind its prices, per
    # ranking condition, and how many of them are estimates moved by the market index.
    content["ranking_prices"] = cache.ranking(
        session, state.revision if state else None, settings.price_stale_days
    )
    if any(p["stale"] is True for p in content["prices"].values()) and content["status"] == "ok":
        content["status"] = "degraded"
    content["scores"] = (
        {
            "revision": state.revision,
            "model_version": state.model_version,
            "computed_at": state.computed_at.isoformat(),
        }
        if state
        else None
    )
    return JSONResponse(content)


class FreshnessCache:
    """The newest price per group, read once per score revision: every price write is
    followed by a recompute that bumps it, and load balancers poll /health often."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[int | None, dict[str, datetime | None]] | None = None
        self._ranking: tuple[int | None, str, dict[str, Any]] | None = None

    def ranking(self, session: Session, revision: int | None, stale_days: int) -> dict[str, Any]:
        """`ranking_ages` per condition, once per score revision and day."""
        now = datetime.now(UTC)
        with self._lock:
            held = self._ranking
        if held is not None and held[:2] == (revision, now.date().isoformat()):
            return held[2]
        found = {
            condition: {
                **asdict(ages),
                "newest_observed_at": (
                    ages.newest_observed_at.isoformat() if ages.newest_observed_at else None
                ),
            }
            for condition, ages in ranking_ages(session, now, stale_days).items()
        }
        with self._lock:
            self._ranking = (revision, now.date().isoformat(), found)
        return found

    def newest(self, session: Session, revision: int | None) -> dict[str, datetime | None]:
        with self._lock:
            held = self._held
        if held is not None and held[0] == revision:
            return held[1]
        found = _newest_prices(session)
        with self._lock:
            self._held = (revision, found)
        return found


def _freshness(newest: datetime | None, settings: Settings, now: datetime) -> dict[str, Any]:
    age = (now - newest).total_seconds() / 86400 if newest else None
    return {
        "newest_at": newest.isoformat() if newest else None,
        "age_days": round(age, 1) if age is not None else None,
        "stale_after_days": settings.price_stale_days,
        # None: no prices of this kind at all (e.g. a deployment that rents nothing).
        "stale": None if age is None else age > settings.price_stale_days,
    }


def _newest_prices(session: Session) -> dict[str, datetime | None]:
    """Per group, the newest market price (quotes and launch prices left out)."""
    newest: dict[str, datetime | None] = {}
    for group, conditions in CONDITION_GROUPS.items():
        newest[group] = session.exec(
            select(func.max(PriceObservation.observed_at)).where(
                col(PriceObservation.condition).in_(conditions),
                col(PriceObservation.quarantined).is_(False),
                col(PriceObservation.kind).not_in(sorted(QUOTE_KINDS)),
                PriceObservation.measure != LIST_PRICE,
            )
        ).one()
    newest["cloud"] = session.exec(select(func.max(CloudOffer.observed_at))).one()
    return newest


def _price_freshness(
    newest: dict[str, datetime | None], settings: Settings
) -> dict[str, dict[str, Any]]:
    """A service whose newest used price is months old answers from history: say so."""
    now = datetime.now(UTC)
    return {group: _freshness(at, settings, now) for group, at in newest.items()}
