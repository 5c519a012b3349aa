"""Webhook delivery per the Standard Webhooks spec, from the alert_event outbox.

At least once, never lost: an event row is committed before any attempt; a sender claims
due rows by pushing their next attempt one lease into the future (committed), posts, then
records the outcome. A sender that dies after the POST and before recording leaves the
claim to expire, and the event is sent again with the same webhook-id: at most one
duplicate, which the receiver drops by webhook-id.

Schedule after a failed attempt (setting `webhook_retry_schedule_s`): 5 s, 5 min, 30 min,
2 h, 5 h, 10 h, 10 h, then the event fails. A 2xx is success; redirects are failures and
are not followed; 410 disables the alert's endpoint; 429 and 503 wait at least their
Retry-After. An endpoint failing for
`webhook_disable_after_days` is disabled with the reason kept on the alert.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select
from standardwebhooks.webhooks import Webhook

from shared.alerts.models import Alert, AlertEvent, DeliveryAttempt
from shared.alerts.ssrf import Allowlist, BlockedUrl, Resolver, Target, check_url, system_resolver
from shared.kit.db import session_scope
from shared.kit.settings import Settings

USER_AGENT = "GPU-Advisor-Webhooks/1.0"
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Outcome:
    status_code: int | None
    duration_ms: int
    error: str | None
    retry_after_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def sign_headers(secret: str, webhook_id: str, payload: str, when: datetime) -> dict[str, str]:
    """Fresh signature for this attempt; the webhook-id stays the event's."""
    signature = Webhook(secret).sign(webhook_id, when, payload)
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


# A receiver asking for longer than a day gets a day: its answer must not overflow a
# timestamp or park an event for years.
MAX_RETRY_AFTER_S = 86400.0


def _retry_after(headers: httpx.Headers, now: datetime) -> float | None:
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" means UTC without a stated zone (RFC 5322)
        when = when.replace(tzinfo=UTC)
    return min(max(0.0, (when - now).total_seconds()), MAX_RETRY_AFTER_S)


async def post_async(
    target: Target,
    headers: dict[str, str],
    payload: str,
    settings: Settings,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Outcome:
    """POST to the checked address (not a fresh DNS answer), never following redirects.

    The whole attempt, headers included, must finish within `webhook_timeout_s`: httpx's
    timeouts bound each read, so a receiver trickling bytes could otherwise hold a sender.
    """
    started = time.perf_counter()
    try:
        status, response_headers = await _post(
            target, headers, payload, settings.webhook_timeout_s, transport
        )
    except (httpx.HTTPError, TimeoutError) as exc:
        elapsed = int((time.perf_counter() - started) * 1000)
        reason = str(exc) or f"no answer within {settings.webhook_timeout_s:g} s"
        return Outcome(None, elapsed, f"{type(exc).__name__}: {reason}"[:1000])
    elapsed = int((time.perf_counter() - started) * 1000)
    error = None
    if 300 <= status < 400:  # any 3xx: a webhook endpoint must answer where it is asked
        location = response_headers.get("location", "no location")
        error = f"HTTP {status} redirect to {location} not followed"
    elif not 200 <= status < 300:
        error = f"HTTP {status}"
    return Outcome(status, elapsed, error, _retry_after(response_headers, utc_now()))


async def _post(
    target: Target,
    headers: dict[str, str],
    payload: str,
    timeout_s: float,
    transport: httpx.AsyncBaseTransport | None,
) -> tuple[int, httpx.Headers]:
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    async with (
        asyncio.timeout(timeout_s),
        httpx.AsyncClient(transport=transport, timeout=timeout_s) as client,
        # Streamed and never read: only the status and headers matter, so a receiver
        # cannot hold the sender with a slow or endless body either.
        client.stream(
            "POST",
            target.pinned_url,
            content=payload.encode(),
            headers={**headers, "host": target.host_header},
            extensions=extensions,
            follow_redirects=False,
        ) as response,
    ):
        return response.status_code, response.headers


def claim_due(engine: Engine, settings: Settings, now: datetime, limit: int = 50) -> list[int]:
    """Claim due events for one lease; committed before any POST."""
    with session_scope(engine) as session:
        query = (
            select(AlertEvent)
            .where(AlertEvent.status == "pending", AlertEvent.next_attempt_at <= now)
            .order_by(col(AlertEvent.next_attempt_at))
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        events = session.exec(query).all()
        lease = now + timedelta(seconds=settings.webhook_lease_s)
        for event in events:
            event.next_attempt_at = lease
            session.add(event)
        return [e.id for e in events if e.id is not None]


def attempt(
    engine: Engine,
    event_id: int,
    settings: Settings,
    *,
    clock: Clock = utc_now,
    resolver: Resolver = system_resolver,
    transport: httpx.AsyncBaseTransport | None = None,
    after_post: Callable[[], None] | None = None,
) -> Outcome | None:
    """One delivery attempt of a claimed event; None when there was nothing to send."""
    with session_scope(engine) as session:
        event = session.get(AlertEvent, event_id)
        alert = session.get(Alert, event.alert_id) if event else None
        if event is None or alert is None or event.status != "pending":
            return None
        if not alert.enabled or alert.deleted_at is not None:
            event.status = "cancelled"
            session.add(event)
            return None
        url, secret, webhook_id, payload = alert.url, alert.secret, event.webhook_id, event.payload
    try:
        outcome = send(url, secret, webhook_id, payload, settings, clock(), resolver, transport)
    except Exception as exc:  # whatever the receiver did, record it: never loop unrecorded
        outcome = Outcome(None, 0, f"error: {type(exc).__name__}: {exc}"[:1000])
    if after_post is not None:
        after_post()
    with session_scope(engine) as session:
        record(session, event_id, outcome, settings, clock())
    return outcome


def send(
    url: str,
    secret: str,
    webhook_id: str,
    payload: str,
    settings: Settings,
    when: datetime,
    resolver: Resolver = system_resolver,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Outcome:
    """`send_async` for a thread of its own (the retrying sender)."""
    return asyncio.run(
        send_async(url, secret, webhook_id, payload, settings, when, resolver, transport)
    )


async def send_async(
    url: str,
    secret: str,
    webhook_id: str,
    payload: str,
    settings: Settings,
    when: datetime,
    resolver: Resolver = system_resolver,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Outcome:
    """Check the address and POST a signed event: the check (a DNS lookup, bounded by the
    webhook timeout) runs on a thread, the POST on the loop, so a caller on an event loop
    (the API's test endpoint) holds no thread while the receiver answers."""
    allowlist = Allowlist.parse(settings.webhook_allowlist)
    try:
        async with asyncio.timeout(settings.webhook_timeout_s):
            target = await asyncio.to_thread(check_url, url, allowlist, resolver)
    except BlockedUrl as exc:
        return Outcome(None, 0, f"blocked: {exc}")
    except TimeoutError:
        return Outcome(None, 0, f"blocked: no DNS answer within {settings.webhook_timeout_s:g} s")
    headers = sign_headers(secret, webhook_id, payload, when)
    return await post_async(target, headers, payload, settings, transport)


def record(
    session: Session, event_id: int, outcome: Outcome, settings: Settings, now: datetime
) -> None:
    """Store the attempt and decide what happens next, in one transaction."""
    event = session.get(AlertEvent, event_id)
    if event is None:
        return
    alert = session.get(Alert, event.alert_id)
    previous = session.exec(
        select(func.max(DeliveryAttempt.attempted_at)).where(
            DeliveryAttempt.alert_id == event.alert_id,
            DeliveryAttempt.test == False,  # noqa: E712
        )
    ).one()
    event.attempts += 1
    event.last_status_code = outcome.status_code
    event.last_error = outcome.error
    session.add(
        DeliveryAttempt(
            event_id=event_id,
            alert_id=event.alert_id,
            attempted_at=now,
            status_code=outcome.status_code,
            duration_ms=outcome.duration_ms,
            error=outcome.error,
        )
    )
    if outcome.ok:
        event.status, event.delivered_at = "delivered", now
        if alert is not None:
            alert.failing_since = None
    else:
        _after_failure(event, alert, outcome, settings, now, previous)
    session.add(event)
    if alert is not None:
        session.add(alert)
    session.flush()


def _after_failure(
    event: AlertEvent,
    alert: Alert | None,
    outcome: Outcome,
    settings: Settings,
    now: datetime,
    previous_attempt: datetime | None,
) -> None:
    if alert is not None:
        alert.failing_since = _failing_since(alert, settings, now, previous_attempt)
        if outcome.status_code == 410:
            _disable(alert, "the endpoint answered 410 Gone", now)
        elif now - alert.failing_since >= timedelta(days=settings.webhook_disable_after_days):
            days = settings.webhook_disable_after_days
            _disable(alert, f"the endpoint failed every delivery for {days:g} days", now)
    if alert is not None and not alert.enabled:
        event.status = "failed"
        return
    schedule = settings.retry_schedule()
    if event.attempts > len(schedule):
        event.status = "failed"
        return
    wait = schedule[event.attempts - 1]
    if outcome.status_code in (429, 503) and outcome.retry_after_s is not None:
        wait = max(wait, outcome.retry_after_s)
    event.next_attempt_at = now + timedelta(seconds=wait)


def _failing_since(
    alert: Alert, settings: Settings, now: datetime, previous_attempt: datetime | None
) -> datetime:
    """Start of the current streak of failures. A streak is broken by a success or by a
    silence longer than any retry wait: an old failure followed by quiet days is no
    evidence that the endpoint kept failing."""
    if alert.failing_since is None or previous_attempt is None:
        return now
    longest_gap = max(settings.retry_schedule(), default=0.0) + settings.webhook_lease_s
    if (now - previous_attempt).total_seconds() > longest_gap:
        return now
    return alert.failing_since


def _disable(alert: Alert, reason: str, now: datetime) -> None:
    alert.enabled = False
    alert.disabled_reason = reason
    alert.updated_at = now


def dispatch_due(
    engine: Engine,
    settings: Settings,
    *,
    clock: Clock = utc_now,
    resolver: Resolver = system_resolver,
    transport: httpx.AsyncBaseTransport | None = None,
    after_post: Callable[[], None] | None = None,
    limit: int = 100,
) -> dict[str, int]:
    """Claim and attempt due events one at a time (at most `limit`).

    One claim per attempt keeps the lease longer than the attempt it covers; a batch
    claim could expire while earlier events of the batch were still being sent, and a
    second sender would then send the rest again.
    """
    counts = {"claimed": 0, "delivered": 0, "failed_attempts": 0}
    while counts["claimed"] < limit:
        claimed = claim_due(engine, settings, clock(), limit=1)
        if not claimed:
            break
        event_id = claimed[0]
        counts["claimed"] += 1
        outcome = attempt(
            engine,
            event_id,
            settings,
            clock=clock,
            resolver=resolver,
            transport=transport,
            after_post=after_post,
        )
        if outcome is not None:
            counts["delivered" if outcome.ok else "failed_attempts"] += 1
    return counts


def test_payload(alert: Alert, now: datetime) -> str:
    body = {
        "type": "alert.test",
        "timestamp": now.isoformat(),
        "alert_id": alert.id,
        "data": {"alert_id": alert.id, "message": "test event from GPU Advisor"},
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True)
