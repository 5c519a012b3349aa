import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError
from sqlmodel import select

from shared.alerts.evaluate import evaluate_alerts
from shared.alerts.models import Alert, AlertEvent
from shared.alerts.triggers import parse_trigger
from shared.kit.db import session_scope
from shared.models import CloudOffer
from shared.sources.status import SourceStatus
from tests.factories import make_asks, make_observation, plain_settings, recompute
from tests.shared.alerts.conftest import T0, make_alert

URL = "http://127.0.0.1:9/hook"


def add(engine, *rows):
    with session_scope(engine) as session:
        for row in rows:
            session.add(row)


def step(engine, gpu_ids=None, now=T0):
    with session_scope(engine) as session:
        return [
            json.loads(e.payload) for e in evaluate_alerts(session, plain_settings(), gpu_ids, now)
        ]


def alert_state(engine, alert_id="alr_test"):
    with session_scope(engine) as session:
        return session.get(Alert, alert_id)


def price(usd, at=T0, **kw):
    return make_observation(gpu_id="rtx-3090", condition="used", usd=usd, observed_at=at, **kw)


def market(usd, at=T0):
    """Three asks at `usd`: a market price the scores rest on (one ask is too thin)."""
    return make_asks(gpu_id="rtx-3090", condition="used", usd=usd, observed_at=at)


def test_price_below_fires_once_and_rearms_after_the_cooldown(db):
    make_alert(db, URL, cooldown_s=3600)
    add(db, price("750"))
    assert step(db) == []
    add(db, price("650", at=T0 + timedelta(minutes=1)))
    [event] = step(db, now=T0 + timedelta(minutes=2))
    assert event["type"] == "price_below" and event["alert_id"] == "alr_test"
    assert event["data"]["observation"]["price_usd"] == "650.00"
    assert event["data"]["observation"]["source"] == "test-market"
    # Hovering at the threshold: still true, no second event.
    add(db, price("690", at=T0 + timedelta(minutes=3)))
    assert step(db, now=T0 + timedelta(minutes=4)) == []
    # False (the cheap listings age out of the 7-day window) but not for a whole hour yet.
    later = T0 + timedelta(days=8)
    assert step(db, now=later) == [] and not alert_state(db).armed
    assert step(db, now=later + timedelta(minutes=30)) == [] and not alert_state(db).armed
    assert step(db, now=later + timedelta(minutes=61)) == [] and alert_state(db).armed
    add(db, price("600", at=later + timedelta(hours=2)))
    assert len(step(db, now=later + timedelta(hours=2))) == 1


def test_quarantined_and_stale_prices_never_fire(db):
    make_alert(db, URL)
    add(db, price("100", quarantined=True))
    add(db, price("200", source="ebay"))
    add(db, SourceStatus(name="ebay", interval_s=3600, stale=True))
    assert step(db) == []
    assert alert_state(db).armed


def steady_market(usd_by_condition, days=range(8, 40, 2)):
    """Three sales a day, every second day, over the month before the last week."""
    return [
        make_observation(
            gpu_id="rtx-3090",
            condition=condition,
            source="ebay:sold",
            measure="sale",
            usd=str(usd + spread),
            observed_at=T0 - timedelta(days=d),
        )
        for d in days
        for condition, usd in usd_by_condition.items()
        for spread in (-20, 0, 20)
    ]


def sales(usd_list, at=T0):
    return [
        price(str(usd), at=at - timedelta(hours=n), source="ebay:sold", measure="sale")
        for n, usd in enumerate(usd_list)
    ]


def test_price_drop_pct_compares_the_market_with_its_own_history(db):
    trigger = {"type": "price_drop_pct", "gpu_id": "rtx-3090", "condition": "used", "pct": 20}
    make_alert(db, URL, trigger)
    add(db, *steady_market({"used": 1000}))
    # One cheap sale among normal ones moves no market: no alert.
    add(db, *sales([990, 1010, 500]))
    assert step(db) == []
    # The market itself falls: this week's sales sit 25 % below the month before.
    later = T0 + timedelta(days=2)
    add(db, *sales([760, 740, 750, 745, 755], at=later))
    [event] = step(db, now=later)
    assert event["type"] == "price_drop_pct" and event["data"]["drop_pct"] >= 20
    assert event["data"]["median_usd"] == "1000.00"
    assert event["data"]["market"]["measure"] == "sale" and event["data"]["market"]["n"] >= 5


def test_perf_per_dollar_above_reads_the_scores(db):
    trigger = {"type": "perf_per_dollar_above", "task": "cv", "precision": "fp16", "threshold": 0.5}
    make_alert(db, URL, trigger)
    add(db, *market("5000", at=T0 - timedelta(days=10)))
    with session_scope(db) as session:
        recompute(session)
    assert step(db) == []
    add(db, *market("400", at=T0 + timedelta(hours=1)))
    with session_scope(db) as session:
        recompute(session)
    [event] = step(db, now=T0 + timedelta(hours=1))
    assert event["data"]["gpu_id"] == "rtx-3090" and event["data"]["perf_per_1000_usd"] > 0.5


def test_cost_per_unit_below_fires_on_the_worst_case_cost_of_a_scored_card(db):
    """Issue 38: dollars per 1k images (cv's unit) of one bought card with its system,
    judged at the interval's high end; the threshold a cheap listing crosses."""
    add(db, *market("400", at=T0 + timedelta(hours=1)))
    with session_scope(db) as session:
        recompute(session)
    make_alert(db, URL, {"type": "cost_per_unit_below", "task": "cv", "max_usd": 1e-9})
    assert step(db, now=T0 + timedelta(hours=1)) == []
    make_alert(db, URL, {"type": "cost_per_unit_below", "task": "cv", "max_usd": 1.0}, id="alr_two")
    [event] = step(db, now=T0 + timedelta(hours=1))
    data = event["data"]
    assert event["type"] == "cost_per_unit_below" and data["gpu_id"] == "rtx-3090"
    cost = data["cost_per_unit"]
    assert cost["unit"] == "usd per 1k images" and cost["interval"][1] < 1.0
    assert cost["usd"] == pytest.approx(
        cost["usd_per_hour"] / cost["units_per_hour"] * 1e3, rel=1e-3
    )
    assert data["throughput"]["unit"] == "images/s"
    assert Decimal(data["price"]["usd"]) == Decimal(400)


def test_cloud_price_below_is_per_gpu_hour(db):
    trigger = {"type": "cloud_price_below", "gpu_id": "h100-sxm5", "max_usd_per_hour": "2.00"}
    make_alert(db, URL, trigger)
    offer: dict[str, Any] = {
        "provider": "aws",
        "instance_type": "p5.48xlarge",
        "gpu_id": "h100-sxm5",
        "gpu_count": 8,
        "region": "us-east-1",
        "kind": "scraped",
        "source": "test",
        "observed_at": T0,
    }
    add(db, CloudOffer(on_demand_usd_per_hour=Decimal("20.00"), **offer))
    assert step(db) == []  # $2.50 per GPU-hour
    add(db, CloudOffer(on_demand_usd_per_hour=Decimal("15.20"), **{**offer, "region": "us-west-2"}))
    [event] = step(db, ["h100-sxm5"])
    assert event["data"]["usd_per_gpu_hour"] == "1.9000" and event["data"]["region"] == "us-west-2"


def test_only_alerts_on_the_changed_gpus_are_evaluated(db):
    make_alert(db, URL)
    add(db, price("100"))
    assert step(db, ["rtx-4090"]) == []
    assert len(step(db, ["rtx-3090"])) == 1
    with session_scope(db) as session:
        assert len(session.exec(select(AlertEvent)).all()) == 1


@pytest.mark.parametrize(
    ("trigger", "field"),
    [
        ({"type": "price_below", "gpu_id": "rtx-9999", "max_price_usd": 1}, "gpu_id"),
        ({"type": "price_below", "gpu_id": "rtx-3090", "max_price_usd": -1}, "max_price_usd"),
        ({"type": "price_drop_pct", "gpu_id": "rtx-3090", "pct": 150}, "pct"),
        ({"type": "perf_per_dollar_above", "task": "gaming", "threshold": 1}, "task"),
        ({"type": "cost_per_unit_below", "task": "cv", "max_usd": 0}, "max_usd"),
        (
            {"type": "cost_per_unit_below", "task": "cv", "max_usd": 1, "condition": "x"},
            "condition",
        ),
        (
            {
                "type": "cloud_price_below",
                "gpu_id": "h100-sxm5",
                "max_usd_per_hour": 1,
                "pricing": "x",
            },
            "pricing",
        ),
        ({"type": "price_rise"}, "type"),
    ],
)
def test_bad_triggers_are_refused_naming_the_field(trigger, field):
    with pytest.raises(ValidationError, match=field):
        parse_trigger(trigger)


def test_an_alert_false_for_its_cooldown_fires_when_the_next_change_makes_it_true(db):
    make_alert(db, URL, cooldown_s=3600)
    add(db, price("650"))
    assert len(step(db)) == 1
    # The only evaluation while it was false: the daily run, 8 days later.
    assert step(db, now=T0 + timedelta(days=8)) == []
    # Hours later a new cheap listing arrives: false for longer than the cool-down.
    later = T0 + timedelta(days=8, hours=12)
    add(db, price("600", at=later))
    assert len(step(db, now=later)) == 1


def test_one_broken_rule_does_not_stop_the_others(db):
    make_alert(db, URL, id="alr_broken")
    with session_scope(db) as session:
        broken = session.get(Alert, "alr_broken")
        assert broken is not None
        broken.trigger = '{"type": "price_below", "gpu_id": "gone-gpu", "max_price_usd": "1"}'
        session.add(broken)
    make_alert(db, URL, id="alr_fine")
    add(db, price("100"))
    [event] = step(db, ["rtx-3090"])
    assert event["alert_id"] == "alr_fine"


def test_cloud_price_below_ignores_prices_a_newer_list_has_replaced(db):
    trigger = {"type": "cloud_price_below", "gpu_id": "h100-sxm5", "max_usd_per_hour": "2.00"}
    make_alert(db, URL, trigger)
    offer: dict[str, Any] = {
        "provider": "aws",
        "instance_type": "p5.48xlarge",
        "gpu_id": "h100-sxm5",
        "gpu_count": 8,
        "region": "us-east-1",
        "kind": "scraped",
        "source": "test",
    }
    add(db, CloudOffer(on_demand_usd_per_hour=Decimal("15.20"), observed_at=T0, **offer))
    add(
        db,
        CloudOffer(
            on_demand_usd_per_hour=Decimal("40.00"), observed_at=T0 + timedelta(days=30), **offer
        ),
    )
    assert step(db, ["h100-sxm5"]) == []  # $1.90 was last month's list; today it is $5.00


def test_revoking_a_key_stops_its_alerts(db):
    from shared.alerts.keys import revoke_key

    alert = make_alert(db, URL)
    with session_scope(db) as session:
        assert revoke_key(session, alert.owner_key_id)
    add(db, price("100"))
    assert step(db, ["rtx-3090"]) == []
    state = alert_state(db)
    assert not state.enabled and "revoked" in state.disabled_reason


def test_price_drop_for_any_condition_compares_each_market_with_itself(db):
    trigger = {"type": "price_drop_pct", "gpu_id": "rtx-3090", "condition": "any", "pct": 20}
    make_alert(db, URL, trigger)
    add(db, *steady_market({"new": 1500, "used": 800}))
    add(db, *sales([800, 810, 790]))  # the usual used price: no drop from the new price
    assert step(db) == []
    later = T0 + timedelta(days=2)
    add(db, *sales([600, 610, 590, 605], at=later))  # 25 % below the used market
    [event] = step(db, now=later)
    assert event["data"]["median_usd"] == "800.00"
    assert event["data"]["market"]["condition"] == "used"


def test_price_below_fires_on_offers_never_on_completed_sales(db):
    alert = make_alert(db, URL)  # price_below 700 for a used RTX 3090
    add(db, price("650", source="ebay:sold", measure="sale"))
    add(db, price("600", kind="snapshot", measure="cheapest_asks_mean"))
    assert step(db) == []  # a sale and a monthly aggregate: nothing to buy at
    mine = {"kind": "manual", "measure": "quote", "owner_key_id": alert.owner_key_id}
    add(db, price("640", at=T0 + timedelta(minutes=1), **mine))
    [event] = step(db, now=T0 + timedelta(minutes=2))
    assert event["data"]["observation"]["measure"] == "quote"


def test_a_quote_fires_only_the_alerts_of_its_key_and_of_keys_that_see_every_quote(db):
    """Issue 24: another customer's quote never reaches this alert; an operator's key
    (all_quotes) is alerted on every quote, operator quotes (no key) included."""
    mine = make_alert(db, URL, id="alr_mine")
    theirs = make_alert(db, URL, id="alr_theirs")
    make_alert(db, URL, id="alr_operator", all_quotes=True)
    quote = {"kind": "manual", "measure": "quote"}
    add(db, price("600", owner_key_id=theirs.owner_key_id, **quote))
    fired = {e["alert_id"]: e["data"]["observation"]["price_usd"] for e in step(db)}
    assert fired == {"alr_theirs": "600.00", "alr_operator": "600.00"}
    # An operator quote (the CLI: no key) only for the operator's key, which has fired.
    add(db, price("550", at=T0 + timedelta(minutes=1), **quote))
    assert step(db, now=T0 + timedelta(minutes=2)) == []
    add(db, price("640", at=T0 + timedelta(minutes=3), owner_key_id=mine.owner_key_id, **quote))
    [event] = step(db, now=T0 + timedelta(minutes=4))
    assert event["alert_id"] == "alr_mine"
    assert event["data"]["observation"]["price_usd"] == "640.00"  # not the cheaper ones


def test_a_market_price_fires_every_keys_alert(db):
    make_alert(db, URL, id="alr_one")
    make_alert(db, URL, id="alr_two")
    add(db, price("650"))
    assert sorted(e["alert_id"] for e in step(db)) == ["alr_one", "alr_two"]


def test_an_operator_quote_alone_fires_no_plain_keys_alert(db):
    make_alert(db, URL)
    add(db, price("500", kind="manual", measure="quote"))
    assert step(db) == []
