import json
from datetime import UTC, datetime, timedelta

from sqlmodel import select
from standardwebhooks.webhooks import Webhook

from shared.alerts.delivery import attempt, claim_due, dispatch_due
from shared.alerts.evaluate import new_event
from shared.alerts.models import Alert, AlertEvent, DeliveryAttempt
from shared.kit.db import session_scope
from tests.shared.alerts.conftest import T0, make_alert


def add_event(engine, alert, key="k1", when=T0):
    with session_scope(engine) as session:
        payload = json.dumps(
            {"type": "price_below", "alert_id": alert.id, "data": {"price": "650"}}
        )
        event = new_event(alert, key, "price_below", payload, when)
        session.add(event)
    return event


def event_row(engine, webhook_id):
    with session_scope(engine) as session:
        return session.exec(select(AlertEvent).where(AlertEvent.webhook_id == webhook_id)).one()


def alert_row(engine, alert_id):
    with session_scope(engine) as session:
        return session.get(Alert, alert_id)


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def test_delivery_is_signed_per_standard_webhooks(db, receiver, settings):
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    counts = dispatch_due(db, settings, clock=Clock(T0))
    assert counts == {"claimed": 1, "delivered": 1, "failed_attempts": 0}
    [request] = receiver.received
    assert request.headers["webhook-id"] == event.webhook_id
    assert request.headers["host"] == f"127.0.0.1:{receiver.port}"
    assert json.loads(request.body)["alert_id"] == alert.id
    row = event_row(db, event.webhook_id)
    assert row.status == "delivered" and row.attempts == 1


def test_signature_verifies_with_the_standardwebhooks_library(db, receiver, settings):
    # Webhook.verify checks the timestamp against the real clock: send at the real time.
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    now = datetime.now(UTC)
    dispatch_due(db, settings, clock=Clock(now))
    [request] = receiver.received
    headers = {k: v for k, v in request.headers.items() if k.startswith("webhook-")}
    assert Webhook(alert.secret).verify(request.body, headers)["alert_id"] == alert.id
    assert headers["webhook-id"] == event.webhook_id


def test_failures_follow_the_retry_schedule_with_one_webhook_id(db, receiver, settings):
    receiver.respond((500, {}))
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    clock = Clock(T0)
    schedule = settings.retry_schedule()
    assert schedule == (5, 300, 1800, 7200, 18000, 36000, 36000)
    max_attempts = len(schedule) + 1
    for attempt_number in range(1, max_attempts + 1):
        assert dispatch_due(db, settings, clock=clock)["failed_attempts"] == 1
        row = event_row(db, event.webhook_id)
        assert row.attempts == attempt_number
        if attempt_number < max_attempts:
            wait = schedule[attempt_number - 1]
            assert row.next_attempt_at == clock.now + timedelta(seconds=wait)
            clock.now += timedelta(seconds=wait - 1)
            assert dispatch_due(db, settings, clock=clock)["claimed"] == 0  # not due yet
            clock.now += timedelta(seconds=1)
    assert event_row(db, event.webhook_id).status == "failed"
    assert len(receiver.received) == max_attempts
    assert {r.headers["webhook-id"] for r in receiver.received} == {event.webhook_id}
    assert len({r.headers["webhook-signature"] for r in receiver.received}) == max_attempts
    with session_scope(db) as session:
        attempts = session.exec(select(DeliveryAttempt)).all()
    assert [a.status_code for a in attempts] == [500] * max_attempts


def test_gone_disables_the_alert_endpoint(db, receiver, settings):
    receiver.respond((410, {}))
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    dispatch_due(db, settings, clock=Clock(T0))
    assert event_row(db, event.webhook_id).status == "failed"
    row = alert_row(db, alert.id)
    assert not row.enabled and "410" in row.disabled_reason
    add_event(db, alert, key="k2")
    dispatch_due(db, settings, clock=Clock(T0 + timedelta(hours=1)))
    assert len(receiver.received) == 1  # a disabled endpoint gets nothing more


def test_retry_after_is_honoured_on_429_and_503(db, receiver, settings):
    receiver.respond(
        (429, {"Retry-After": "120"}), (503, {"Retry-After": "Sun, 01 Nov 2026 12:00:00 GMT"})
    )
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    dispatch_due(db, settings, clock=Clock(T0))
    assert event_row(db, event.webhook_id).next_attempt_at == T0 + timedelta(seconds=120)


def test_redirects_are_failures_and_not_followed(db, receiver, settings):
    receiver.respond((302, {"Location": "http://169.254.169.254/latest/meta-data/"}))
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    dispatch_due(db, settings, clock=Clock(T0))
    row = event_row(db, event.webhook_id)
    assert row.status == "pending" and row.attempts == 1
    assert "not followed" in row.last_error and row.last_status_code == 302
    assert len(receiver.received) == 1


def test_a_name_that_resolves_to_loopback_at_send_time_is_blocked(db, receiver, settings):
    alert = make_alert(db, f"http://hooks.example.test:{receiver.port}/hook")
    event = add_event(db, alert)
    strict = settings.model_copy(update={"webhook_allowlist": ""})
    claim_due(db, strict, T0)
    attempt(db, event.id, strict, clock=Clock(T0), resolver=lambda host, port: ["127.0.0.1"])
    row = event_row(db, event.webhook_id)
    assert row.last_error.startswith("blocked:") and "loopback" in row.last_error
    assert receiver.received == []


def test_an_endpoint_failing_for_days_is_disabled_with_the_reason(db, receiver, settings):
    receiver.respond((500, {}))
    alert = make_alert(db, receiver.url)
    clock = Clock(T0)
    # A new event each day, and the sweeps that retry them every few hours.
    for hour in range(0, 7 * 24, 4):
        if hour % 24 == 0:
            add_event(db, alert, key=f"day-{hour // 24}", when=clock.now)
        dispatch_due(db, settings, clock=clock)
        clock.now = T0 + timedelta(hours=hour + 4)
    row = alert_row(db, alert.id)
    assert not row.enabled and "5 days" in row.disabled_reason
    assert row.failing_since == T0


def test_one_failure_after_a_quiet_week_does_not_disable_the_endpoint(db, receiver, settings):
    receiver.respond((500, {}))
    alert = make_alert(db, receiver.url)
    add_event(db, alert)
    dispatch_due(db, settings, clock=Clock(T0))  # fails; no sweep runs for ten days
    later = T0 + timedelta(days=10)
    dispatch_due(db, settings, clock=Clock(later))  # the retry fails once more
    row = alert_row(db, alert.id)
    assert row.enabled and row.failing_since == later


def test_a_claim_that_was_never_recorded_is_resent_with_the_same_id(db, receiver, settings):
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    # A sender claims and posts, then dies before recording (no record() call).
    [claimed] = claim_due(db, settings, T0)
    assert claim_due(db, settings, T0) == []  # the claim hides it from other senders
    lease_end = T0 + timedelta(seconds=settings.webhook_lease_s)
    assert dispatch_due(db, settings, clock=Clock(lease_end))["delivered"] == 1
    assert claimed == event_row(db, event.webhook_id).id
    assert [r.headers["webhook-id"] for r in receiver.received] == [event.webhook_id]


def test_odd_retry_after_values_are_bounded_not_fatal(db, receiver, settings):
    receiver.respond(
        (503, {"Retry-After": "Wed, 21 Oct 2099 07:28:00 -0000"}),
        (429, {"Retry-After": "99999999999999"}),
    )
    alert = make_alert(db, receiver.url)
    event = add_event(db, alert)
    assert dispatch_due(db, settings, clock=Clock(T0))["failed_attempts"] == 1
    first = event_row(db, event.webhook_id)
    assert first.next_attempt_at == T0 + timedelta(days=1)  # capped, not 2099
    later = first.next_attempt_at
    assert dispatch_due(db, settings, clock=Clock(later))["failed_attempts"] == 1
    assert event_row(db, event.webhook_id).next_attempt_at == later + timedelta(days=1)


def test_a_sender_error_is_recorded_as_a_failed_attempt(db, settings):
    import httpx

    def explode(request):
        raise RuntimeError("receiver did something odd")

    alert = make_alert(db, "http://127.0.0.1:9/hook")
    event = add_event(db, alert)
    counts = dispatch_due(db, settings, clock=Clock(T0), transport=httpx.MockTransport(explode))
    row = event_row(db, event.webhook_id)
    assert counts["failed_attempts"] == 1 and row.attempts == 1 and row.status == "pending"
    assert "receiver did something odd" in row.last_error


def test_internationalized_host_names_are_sent_as_idna(db, settings):
    from shared.alerts.ssrf import Allowlist, check_url

    target = check_url(
        "https://bücher.example/hook", Allowlist.parse(""), resolver=lambda h, p: ["93.184.216.34"]
    )
    assert target.host == "xn--bcher-kva.example"
    assert target.host_header == "xn--bcher-kva.example"


def test_a_receiver_trickling_its_answer_cannot_hold_the_sender(db, settings):
    import socket
    import threading
    import time as clock

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        try:
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
                if stop.is_set():
                    break
                conn.send(bytes([byte]))
                clock.sleep(0.05)  # always within httpx's per-read timeout
        except OSError:
            pass  # the sender hung up first: what the test wants (seen under load)
        finally:
            conn.close()

    threading.Thread(target=trickle, daemon=True).start()
    port = server.getsockname()[1]
    alert = make_alert(db, f"http://127.0.0.1:{port}/hook")
    event = add_event(db, alert)
    quick = settings.model_copy(update={"webhook_timeout_s": 1.0})
    try:
        dispatch_due(db, quick, clock=Clock(T0))
    finally:
        stop.set()
        server.close()
    row = event_row(db, event.webhook_id)
    assert row.attempts == 1 and row.status == "pending"
    assert row.last_error.startswith("TimeoutError")
