"""market_observations reads only the market windows, and the market price stays the same."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import Session, col, select

from shared.models import PriceObservation
from shared.pricing.market import PricePolicy, market_price
from shared.pricing.window import market_observations
from shared.seed import seed_catalog
from tests.factories import make_observation

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
NEWEST = datetime(2026, 11, 18, 9, 30, tzinfo=UTC)
GPU = "rtx-3090"


@pytest.fixture
def catalog_session(session: Session) -> Session:
    seed_catalog(session)
    session.flush()
    return session


def every_row(session: Session, gpu_id: str) -> list[PriceObservation]:
    """What the readers used to load: every unquarantined row of the GPU."""
    query = select(PriceObservation).where(
        PriceObservation.gpu_id == gpu_id, col(PriceObservation.quarantined).is_(False)
    )
    return list(session.exec(query))


def assert_same_prices(session: Session, gpu_ids: list[str], policy: PricePolicy) -> int:
    """Asserts equal prices; returns how many of them there were (not None)."""
    windowed = market_observations(session, gpu_ids, policy)
    found = 0
    for gpu_id in gpu_ids:
        for condition in ("new", "used"):
            price = market_price(windowed[gpu_id], condition, policy)
            assert price == market_price(every_row(session, gpu_id), condition, policy), (
                gpu_id,
                condition,
            )
            found += price is not None
    return found


def add(session: Session, **values: object) -> PriceObservation:
    observation = make_observation(gpu_id=GPU, **values)
    session.add(observation)
    session.flush()
    return observation


def test_the_window_starts_exactly_window_days_before_the_newest(
    catalog_session: Session,
) -> None:
    session = catalog_session
    policy = PricePolicy(now=NOW, window_days=7)
    start = NEWEST - timedelta(days=7)
    newest = add(session, observed_at=NEWEST, usd="900")
    boundary = add(session, observed_at=start, usd="910")
    before = add(session, observed_at=start - timedelta(microseconds=1), usd="920")
    old = add(session, observed_at=NEWEST - timedelta(days=200), usd="2000")
    ids = {o.id for o in market_observations(session, [GPU], policy)[GPU]}
    assert {newest.id, boundary.id} <= ids
    assert before.id not in ids and old.id not in ids
    assert_same_prices(session, [GPU], policy)


def test_each_condition_group_has_its_own_window(catalog_session: Session) -> None:
    session = catalog_session
    policy = PricePolicy(now=NOW, window_days=7)
    # Used: the newest is a refurbished card, so used rows count from its date.
    add(session, condition="refurbished", observed_at=NEWEST, usd="700")
    used = add(session, condition="used", observed_at=NEWEST - timedelta(days=6), usd="650")
    add(session, condition="used", observed_at=NEWEST - timedelta(days=30), usd="400")
    # New: last seen two months ago; its window is the week before that.
    new_last = NEWEST - timedelta(days=60)
    new = add(session, condition="new", observed_at=new_last - timedelta(days=7), usd="1400")
    add(session, condition="new", observed_at=new_last, usd="1300")
    ids = {o.id for o in market_observations(session, [GPU], policy)[GPU]}
    assert used.id in ids and new.id in ids
    assert_same_prices(session, [GPU], policy)


def test_quarantined_and_expired_list_prices_do_not_start_a_window(
    catalog_session: Session,
) -> None:
    session = catalog_session
    policy = PricePolicy(now=NOW, window_days=7, list_price_max_age_days=30)
    add(session, observed_at=NEWEST - timedelta(days=20), usd="800")
    kept = add(session, observed_at=NEWEST - timedelta(days=26), usd="820")
    add(session, observed_at=NEWEST, usd="9000", quarantined=True)
    # A scraped list price too old to count (the age limit is measured from now).
    add(session, observed_at=NOW - timedelta(days=31), usd="1499", measure="list_price")
    ids = {o.id for o in market_observations(session, [GPU], policy)[GPU]}
    assert kept.id in ids
    assert_same_prices(session, [GPU], policy)


def test_other_kinds_are_read_whole(catalog_session: Session) -> None:
    session = catalog_session
    policy = PricePolicy(now=NOW, window_days=7)
    add(session, observed_at=NEWEST, usd="900")
    snapshot = add(
        session, kind="snapshot", source="bundle", observed_at=NEWEST - timedelta(days=300)
    )
    msrp = add(
        session,
        kind="msrp",
        source="launch",
        condition="new",
        measure="list_price",
        listing_id=None,
        observed_at=NEWEST - timedelta(days=500),
        usd="1499",
    )
    quote = add(session, kind="manual", measure="quote", observed_at=NEWEST, usd="1")
    ids = {o.id for o in market_observations(session, [GPU], policy)[GPU]}
    assert {snapshot.id, msrp.id, quote.id} <= ids
    assert_same_prices(session, [GPU], policy)


def test_an_age_limit_beyond_the_calendar_reads_every_list_price(
    catalog_session: Session,
) -> None:
    # The quarantine reference uses "any age": now minus 10**6 days is no datetime.
    session = catalog_session
    policy = PricePolicy(now=NOW, stale_days=10**6, list_price_max_age_days=10**6)
    listed = add(
        session, measure="list_price", observed_at=NEWEST - timedelta(days=3000), usd="1499"
    )
    assert [o.id for o in market_observations(session, [GPU], policy)[GPU]] == [listed.id]
    assert_same_prices(session, [GPU], policy)


def test_gpus_without_prices_are_empty(catalog_session: Session) -> None:
    policy = PricePolicy(now=NOW)
    assert market_observations(catalog_session, ["rtx-4090"], policy)["rtx-4090"] == []
    assert market_observations(catalog_session, [], policy) == {}


@pytest.mark.parametrize("window_days", [1, 7, 30])
def test_random_histories_give_the_same_market_prices(
    catalog_session: Session, window_days: int
) -> None:
    session = catalog_session
    rng = random.Random(window_days)
    gpus = ["rtx-3090", "rtx-4090", "a100-80gb-sxm4"]
    # Odd names too: no sold record whatever the database's LIKE thinks, shorter than ":sold".
    sources = ["ebay", "ebay:sold", "ebay_browse", "newegg", "bhphoto", "newegg:SOLD", "bh"]
    for i in range(400):
        day = rng.choice([rng.uniform(0, 120), rng.uniform(0, 10), float(rng.randint(0, 40))])
        sold = rng.random() < 0.2
        session.add(
            make_observation(
                gpu_id=rng.choice(gpus),
                condition=rng.choice(["new", "used", "refurbished"]),
                usd=Decimal(rng.randint(300, 2500)),
                kind=rng.choice(["scraped"] * 8 + ["snapshot", "manual"]),
                source=rng.choice(sources),
                listing_id=f"r{rng.randint(0, 150)}",
                observed_at=NOW - timedelta(days=day, microseconds=i),
                quarantined=rng.random() < 0.05,
                measure="sale" if sold else rng.choice(["ask"] * 9 + ["list_price"]),
            )
        )
    session.flush()
    # Listings re-seen across sources of one site (ebay, ebay_browse, ebay:sold), stale
    # sources, and probable sales from recorded runs or from each source's newest row.
    for stale in (frozenset(), frozenset({"ebay"}), frozenset({"ebay_browse", "newegg"})):
        for last_runs in ({"ebay": NOW - timedelta(days=2)}, None):
            policy = PricePolicy(
                now=NOW,
                window_days=window_days,
                list_price_max_age_days=20,
                stale_sources=stale,
                last_runs=last_runs,
            )
            assert assert_same_prices(session, gpus, policy) == 6


def test_a_listing_seen_by_every_scrape_is_read_once(catalog_session: Session) -> None:
    session = catalog_session
    policy = PricePolicy(now=NOW, window_days=7)
    for run in range(12):
        add(session, listing_id="one", source="ebay", observed_at=NEWEST - timedelta(hours=6 * run))
    sold = add(
        session, listing_id="one", source="ebay:sold", observed_at=NEWEST - timedelta(days=2)
    )
    other = add(session, listing_id="two", source="newegg", observed_at=NEWEST - timedelta(days=1))
    read = market_observations(session, [GPU], policy)[GPU]
    # The sale (the listing's best record), ebay's newest row (its last run), newegg's.
    assert sorted(o.observed_at for o in read) == sorted(
        [sold.observed_at, NEWEST, other.observed_at]
    )
    assert_same_prices(session, [GPU], policy)
