"""Evaluate alert rules after prices or scores change, with hysteresis.

An alert fires once when its condition becomes true, then stays quiet until the
condition has been false for its cool-down; firing writes an event to the outbox
(alert_event) in the same transaction, so an event exists exactly when the alert
recorded that it fired.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from shared.alerts.models import Alert, AlertEvent, ApiKey
from shared.alerts.triggers import Firing, Trigger, evaluate, parse_trigger
from shared.kit.settings import Settings
from shared.pricing.quotes import QuoteViewer

log = logging.getLogger(__name__)


def event_payload(alert: Alert, trigger: Trigger, data: dict[str, Any], now: datetime) -> str:
    """The JSON body delivered to the endpoint (Standard Webhooks: type, timestamp, data)."""
    body = {
        "type": trigger.type,
        "timestamp": now.isoformat(),
        "alert_id": alert.id,
        "data": {"alert_id": alert.id, "trigger": trigger.model_dump(mode="json"), **data},
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True)


def new_event(alert: Alert, key: str, event_type: str, payload: str, now: datetime) -> AlertEvent:
    return AlertEvent(
        alert_id=alert.id,
        event_key=key[:200],
        webhook_id=f"msg_{uuid.uuid4().hex}",
        event_type=event_type,
        payload=payload,
        status="pending",
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )


def _fire(
    session: Session, alert: Alert, trigger: Trigger, firing: Firing, now: datetime
) -> AlertEvent | None:
    event = new_event(
        alert, firing.key, trigger.type, event_payload(alert, trigger, firing.data, now), now
    )
    try:
        with session.begin_nested():
            session.add(event)
    except IntegrityError:
        return None  # this very fact was already announced
    return event


def _step(
    session: Session, alert: Alert, settings: Settings, now: datetime, viewer: QuoteViewer
) -> AlertEvent | None:
    trigger = parse_trigger(alert.trigger)
    firing = evaluate(session, trigger, settings, now, viewer)
    if firing is None:
        if not alert.armed:
            alert.last_false_at = alert.last_false_at or now
            if _cooled_down(alert, now):
                alert.armed = True
        return None
    if not alert.armed and _cooled_down(alert, now):
        # False for its whole cool-down before this change made it true: re-arm now,
        # even if no evaluation happened to run while it was false.
        alert.armed = True
    alert.last_false_at = None
    if not alert.armed:
        return None
    alert.armed = False
    alert.last_fired_at = now
    return _fire(session, alert, trigger, firing, now)


def _cooled_down(alert: Alert, now: datetime) -> bool:
    if alert.last_false_at is None:
        return False
    return (now - alert.last_false_at).total_seconds() >= alert.cooldown_s


def _affected(alert: Alert, gpu_ids: set[str] | None) -> bool:
    if gpu_ids is None:
        return True
    watched = parse_trigger(alert.trigger).gpu_ids()
    return watched is None or bool(watched & gpu_ids)


def _all_quotes_keys(session: Session, key_ids: set[int]) -> set[int]:
    if not key_ids:
        return set()
    query = select(ApiKey.id).where(
        col(ApiKey.id).in_(sorted(key_ids)),
        ApiKey.all_quotes == True,  # noqa: E712
    )
    return {key_id for key_id in session.exec(query) if key_id is not None}


def evaluate_alerts(
    session: Session,
    settings: Settings,
    gpu_ids: Iterable[str] | None = None,
    now: datetime | None = None,
) -> list[AlertEvent]:
    """Step every enabled alert the change can affect; returns the events created."""
    now = now or datetime.now(UTC)
    wanted = set(gpu_ids) if gpu_ids is not None else None
    # Row locks keep two concurrent evaluations from both firing one alert.
    query = (
        select(Alert)
        .where(Alert.enabled == True, col(Alert.deleted_at).is_(None))  # noqa: E712
        .order_by(col(Alert.id))
        .with_for_update()
    )
    alerts = session.exec(query).all()
    # An alert sees the quotes its owner key sees: its own, or every one (`all_quotes`).
    all_quotes = _all_quotes_keys(session, {a.owner_key_id for a in alerts})
    events = []
    for alert in alerts:
        try:
            if not _affected(alert, wanted):
                continue
            viewer = QuoteViewer(alert.owner_key_id, alert.owner_key_id in all_quotes)
            with session.begin_nested():  # one broken rule must not stop the others
                event = _step(session, alert, settings, now, viewer)
                session.add(alert)
        except Exception:
            log.exception("evaluating alert %s failed", alert.id)
            continue
        if event is not None:
            events.append(event)
    session.flush()
    return events
