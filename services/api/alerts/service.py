"""Alert rules owned by API keys; another key's alert does not exist for you (404)."""

from __future__ import annotations

import base64
import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from fastapi import HTTPException
from sqlmodel import Session, col, select

from services.api.alerts.schemas import (
    AlertCreate,
    AlertCreated,
    AlertOut,
    AlertPatch,
    DeliveryOut,
    TestResult,
)
from services.api.errors import InvalidParameter
from shared.alerts.delivery import Outcome, test_payload
from shared.alerts.evaluate import new_event
from shared.alerts.models import Alert, AlertEvent, ApiKey, DeliveryAttempt
from shared.alerts.ssrf import Allowlist, BlockedUrl, check_url
from shared.alerts.triggers import Trigger
from shared.kit.settings import Settings


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _check_target(url: str, settings: Settings) -> None:
    try:
        check_url(url, Allowlist.parse(settings.webhook_allowlist))
    except BlockedUrl as exc:
        raise InvalidParameter("url", str(exc)) from None


def out(alert: Alert) -> AlertOut:
    return AlertOut(
        id=alert.id,
        url=alert.url,
        trigger=json.loads(alert.trigger),
        description=alert.description,
        enabled=alert.enabled,
        disabled_reason=alert.disabled_reason,
        armed=alert.armed,
        cooldown_s=alert.cooldown_s,
        last_fired_at=alert.last_fired_at,
        failing_since=alert.failing_since,
        created_at=alert.created_at,
        updated_at=alert.updated_at,
    )


def _dump(trigger: Trigger) -> str:
    return trigger.model_dump_json()


def create(session: Session, owner: ApiKey, body: AlertCreate, settings: Settings) -> AlertCreated:
    _check_target(body.url, settings)
    now = datetime.now(UTC)
    assert owner.id is not None
    alert = Alert(
        id=f"alr_{uuid.uuid4().hex[:20]}",
        owner_key_id=owner.id,
        url=body.url.strip(),
        trigger_type=body.trigger.type,
        trigger=_dump(body.trigger),
        secret=new_secret(),
        description=body.description,
        cooldown_s=body.cooldown_s if body.cooldown_s is not None else settings.alert_cooldown_s,
        created_at=now,
        updated_at=now,
    )
    session.add(alert)
    session.flush()
    return AlertCreated(**out(alert).model_dump(), secret=alert.secret)


def owned(session: Session, owner: ApiKey, alert_id: str) -> Alert:
    alert = session.get(Alert, alert_id)
    if alert is None or alert.owner_key_id != owner.id or alert.deleted_at is not None:
        raise HTTPException(404, detail={"message": f"no alert {alert_id!r}", "field": "alert_id"})
    return alert


def list_for(session: Session, owner: ApiKey) -> list[AlertOut]:
    query = (
        select(Alert)
        .where(Alert.owner_key_id == owner.id, col(Alert.deleted_at).is_(None))
        .order_by(col(Alert.created_at))
    )
    return [out(a) for a in session.exec(query)]


def patch(session: Session, alert: Alert, body: AlertPatch, settings: Settings) -> AlertOut:
    if body.url is not None:
        _check_target(body.url, settings)
        alert.url = body.url.strip()
    if body.trigger is not None:
        alert.trigger, alert.trigger_type, alert.armed = (
            _dump(body.trigger),
            body.trigger.type,
            True,
        )
    if body.description is not None:
        alert.description = body.description
    if body.cooldown_s is not None:
        alert.cooldown_s = body.cooldown_s
    if body.enabled is not None:
        alert.enabled = body.enabled
        if body.enabled:
            alert.disabled_reason, alert.failing_since = None, None
    alert.updated_at = datetime.now(UTC)
    session.add(alert)
    session.flush()
    return out(alert)


def delete(session: Session, alert: Alert) -> None:
    alert.deleted_at = alert.updated_at = datetime.now(UTC)
    alert.enabled = False
    session.add(alert)
    session.flush()


@dataclass(frozen=True, slots=True)
class PreparedTest:
    """A test event of an alert, not stored yet, and where it goes."""

    alert_id: str
    event: AlertEvent
    url: str
    secret: str
    at: datetime


def prepare_test(session: Session, owner: ApiKey, alert_id: str) -> PreparedTest:
    """The owner's alert's test event; ends the transaction, so no connection (nor SQLite's
    lock) is held while the receiver answers."""
    alert = owned(session, owner, alert_id)
    now = datetime.now(UTC)
    event = new_event(
        alert, f"test:{uuid.uuid4().hex}", "alert.test", test_payload(alert, now), now
    )
    prepared = PreparedTest(alert.id, event, alert.url, alert.secret, now)
    session.commit()  # ends the read transaction and returns the connection to the pool
    return prepared


def record_test(session: Session, prepared: PreparedTest, outcome: Outcome) -> TestResult:
    """Store the test event with its outcome (a test event is never queued for the
    retrying sender, so nothing was stored before the call)."""
    event, now = prepared.event, prepared.at
    session.add(event)
    session.flush()
    assert event.id is not None
    session.add(
        DeliveryAttempt(
            event_id=event.id,
            alert_id=prepared.alert_id,
            attempted_at=now,
            status_code=outcome.status_code,
            duration_ms=outcome.duration_ms,
            error=outcome.error,
            test=True,
        )
    )
    event.attempts, event.last_status_code, event.last_error = 1, outcome.status_code, outcome.error
    event.status = "delivered" if outcome.ok else "failed"
    event.delivered_at = now if outcome.ok else None
    session.add(event)
    session.flush()
    return TestResult(
        status_code=outcome.status_code,
        latency_ms=outcome.duration_ms,
        ok=outcome.ok,
        error=outcome.error,
    )


def deliveries(session: Session, alert: Alert, limit: int) -> list[DeliveryOut]:
    events = session.exec(
        select(AlertEvent)
        .where(AlertEvent.alert_id == alert.id)
        .order_by(col(AlertEvent.created_at).desc())
        .limit(limit)
    ).all()
    ids = [e.id for e in events]
    attempts = session.exec(
        select(DeliveryAttempt)
        .where(col(DeliveryAttempt.event_id).in_(ids))
        .order_by(col(DeliveryAttempt.attempted_at))
    ).all()
    by_event: dict[int, list[dict[str, object]]] = {}
    for a in attempts:
        by_event.setdefault(a.event_id, []).append(
            {
                "attempted_at": a.attempted_at.isoformat(),
                "status_code": a.status_code,
                "duration_ms": a.duration_ms,
                "error": a.error,
            }
        )
    return [
        DeliveryOut(
            webhook_id=e.webhook_id,
            event_type=e.event_type,
            status=e.status,
            attempts=e.attempts,
            next_attempt_at=e.next_attempt_at if e.status == "pending" else None,
            created_at=e.created_at,
            delivered_at=e.delivered_at,
            attempts_log=by_event.get(e.id or -1, []),
        )
        for e in events
    ]
